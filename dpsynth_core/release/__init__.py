"""One-call releases: ``synthesize(data, domain, epsilon)`` returns the synthetic table and its card."""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import constraints
from ..data.tables import check_delimiter, check_encoding, read_table
from ..domain import as_table_domain
from ..errors import ParameterError
from ..privacy.accounting import Accountant
from ..privacy.spending import Spend
from ..synthesizers import DEFAULT_METHOD, get_method
from ..synthesizers.base import resolve_engine
from ..validation import check_memory_limit, check_publisher_rho, check_rows, check_seed, check_total_epsilon
from .card import build_card
from .rerun import rerun_script, rerun_settings  # noqa: F401 (public)
from .writer import (
    CHUNK_ROWS,
    check_spark_target,
    chunk_sizes,
    is_remote,
    output_format,
    write_on_spark,
    write_synthetic,
)


@dataclass
class Release:
    """A finished release.

    Attributes:
        data: the synthetic table (safe to publish); None when it was written to ``path`` in chunks.
        path, rows, columns: where the table was written (``out``), its number of rows and its columns.
        card: the release card (safe to publish).
        accountant: the ledger of privacy spends behind the card.
        charge: the draw's price, computed before the data was read; what the workspace's ledger
            records (the accountant's events compose to it).
        publisher_report: data-dependent diagnostics (lines changed by the per-record reading
            rule, cells changed by the encoding rule, per-column details): for the publisher
            only, never to be published.
        settings: the public settings that made it (method, epsilon, rho, rows, options, reading,
            engine, declaration; never the seed), for a rerun (:mod:`dpsynth_core.release.rerun`).
    """

    data: pd.DataFrame | None
    card: dict
    accountant: Accountant
    publisher_report: dict
    path: Path | None = None
    rows: int | None = None
    columns: list | None = None
    settings: dict | None = None
    charge: Spend | None = None

    def __post_init__(self):
        if self.data is not None:
            self.rows, self.columns = len(self.data), list(self.data.columns)


def synthesize(
    data,
    domain,
    epsilon: float,
    *,
    method: str = DEFAULT_METHOD,
    rho: float = constraints.RHO_DEFAULT,
    rows: int | None = None,
    random_state=None,
    encoding: str | None = None,
    delimiter: str | None = None,
    progress=None,
    engine: str | None = "auto",
    memory_limit: str | None = None,
    out=None,
    out_format: str | None = None,
    chunk_rows: int = CHUNK_ROWS,
    **options,
) -> Release:
    """Make a DP synthetic copy of ``data`` over its declared ``domain``.

    Every parameter is checked before the data is read; the ranges are the app's.

    Args:
        data: a DataFrame, a path to a CSV/TSV or Parquet file, a folder or glob of Parquet files
            (read by an engine: :mod:`dpsynth_core.data.parts`), or an open counting source.
        domain: a :class:`~dpsynth_core.domain.TableDomain`, its JSON form as a dict, or a
            path to the JSON file.
        epsilon: the total privacy budget, from 0.01 to 20 (``constraints.EPSILON_MIN`` and
            ``EPSILON_MAX``), split as the card shows.
        method: a registered method name (see ``dpsynth_core.METHODS``; default ``marginals``, the
            best general-purpose one). ``options``: the method's own (``groups``, ``delta``...),
            checked by the method's option specs.
        rho: tolerance for randomness, from 0.01 to 0.99: the chance a column has no made-up value.
        rows: a public number of synthetic rows (1 to 5,000,000; 10^9 with ``out``); None (default) noises
            the true count.
        random_state: None for the secure source (releases); an int in [0, 2^128) or a numpy
            Generator for repeatable runs (tests, teaching). The seed never appears in the card.
        encoding: how to read a CSV path (see :func:`~dpsynth_core.data.tables.read_table`); None
            reads it from the byte-order mark, or line by line, never from the other records.
        delimiter: the CSV's delimiter; None takes it from the header line, never from the records.
        progress: optional ``callable(done, message)`` told how far the release is (0 to 1)
            at coarse steps, for progress bars.
        engine: how the table is counted: ``auto`` (default), ``pandas`` (in memory), ``duckdb``
            or ``spark`` (:mod:`dpsynth_core.engines`; only methods that read through a counting
            source, such as ``marginals`` and ``cathist``, take the last two). ``data`` may also be
            an open counting source. ``memory_limit``: DuckDB's, for example ``"2GB"``.
        out: write the synthetic table to this file in chunks of ``chunk_rows`` rows (CSV or
            Parquet, by ``out_format`` or the suffix; the file appears only when complete) instead
            of returning it: the table is then never whole in memory, and may hold up to
            ``constraints.MAX_ENGINE_SYNTHETIC_ROWS`` rows, whichever engine counted the data
            (``constraints.MAX_SYNTHETIC_ROWS`` for a table returned in memory).
            With ``engine="spark"`` and a Parquet ``out``, the chunks are drawn on Spark's executors
            and ``out`` becomes a new folder of Parquet parts (:func:`~dpsynth_core.release.writer.write_on_spark`).
    """
    request = prepare(
        data,
        domain,
        epsilon,
        method=method,
        rho=rho,
        rows=rows,
        random_state=random_state,
        encoding=encoding,
        delimiter=delimiter,
        engine=engine,
        memory_limit=memory_limit,
        out=out,
        out_format=out_format,
        chunk_rows=chunk_rows,
        **options,
    )
    return request.run(data, progress=progress)


@dataclass
class Request:
    """A release asked for, every parameter checked and the draw priced, before any data is read.

    ``charge``: what the draw costs (:meth:`~dpsynth_core.synthesizers.base.Synthesizer.charge`),
    recorded by the ledger as it is; :meth:`run` makes the release.
    """

    info: object
    domain: object
    epsilon: float
    rho: float
    rows: int | None
    random_state: object
    encoding: str | None
    delimiter: str | None
    engine: str
    memory_limit: str | None
    out: object
    out_format: str | None
    chunk_rows: int
    options: dict
    charge: Spend

    @property
    def method(self) -> str:
        return self.info.name

    def run(self, data, *, progress=None) -> Release:
        """Read ``data`` (the only step that does), fit the method and draw the release."""
        return _run(self, data, progress)


def prepare(
    data,
    domain,
    epsilon: float,
    *,
    method: str = DEFAULT_METHOD,
    rho: float = constraints.RHO_DEFAULT,
    rows: int | None = None,
    random_state=None,
    encoding: str | None = None,
    delimiter: str | None = None,
    engine: str | None = "auto",
    memory_limit: str | None = None,
    out=None,
    out_format: str | None = None,
    chunk_rows: int = CHUNK_ROWS,
    **options,
) -> Request:
    """Check every input of :func:`synthesize` once and price the draw, without reading the data."""
    epsilon = check_total_epsilon(epsilon)
    rho = check_publisher_rho(rho)
    fmt = output_format(out, out_format) if out is not None else None
    info = get_method(method)
    domain = as_table_domain(domain)
    info.cls.check_unit(domain.person)
    if not isinstance(data, (str, Path, pd.DataFrame)):
        chosen = getattr(data, "engine", "pandas")
    else:
        chosen = resolve_engine(info.cls, data, engine, domain.person)
    streamed = out is not None and chosen != "pandas"
    # the cap follows the publisher's choice of a file (written in chunks) or a table in memory, never
    # the engine (``auto`` picks one from the file's size, a fact about the data)
    cap = constraints.MAX_ENGINE_SYNTHETIC_ROWS if out is not None else constraints.MAX_SYNTHETIC_ROWS
    rows = check_rows(rows, cap)
    random_state = check_seed(random_state)
    encoding, delimiter = check_encoding(encoding), check_delimiter(delimiter)
    memory_limit = check_memory_limit(memory_limit, "memory limit")
    options = info.check_options(options)
    if isinstance(data, (str, Path)) and chosen == "pandas":
        from ..engines import PANDAS_READS_CSV, names_parquet

        if names_parquet(data):
            raise ParameterError(PANDAS_READS_CSV)
    if streamed and chosen == "spark" and fmt == "parquet":
        check_spark_target(out)
    domain.validate()
    if chosen != "pandas":  # before the draw is priced and recorded: names an engine cannot tell apart
        from ..engines import check_column_names

        check_column_names(domain, chosen)
    charge = info.cls.charge(domain, epsilon, rows=rows, **options)
    if random_state is not None:  # a seeded (repeatable) draw claims no guarantee: recorded as such
        charge = Spend(charge.events, False, charge.zcdp_delta)
    return Request(
        info,
        domain,
        epsilon,
        rho,
        rows,
        random_state,
        encoding,
        delimiter,
        chosen,
        memory_limit,
        out,
        fmt,
        chunk_rows,
        options,
        charge,
    )


def _run(request: Request, data, progress) -> Release:
    info, domain, out, chosen = request.info, request.domain, request.out, request.engine
    encoding, delimiter, memory_limit = request.encoding, request.delimiter, request.memory_limit
    chunk_rows, out_format, rows = request.chunk_rows, request.out_format, request.rows
    streamed = out is not None and chosen != "pandas"
    on_spark = streamed and chosen == "spark" and out_format == "parquet"
    spark_folder = Path(str(out).removeprefix("file://")) if on_spark and not is_remote(out) else None
    reading = None
    if isinstance(data, (str, Path)) and chosen == "pandas":
        data, table_info = read_table(data, encoding=encoding, delimiter=delimiter)
        reading = table_info["lines"]
    opened = None
    if isinstance(data, (str, Path)) and chosen != "pandas":
        from ..engines import open_source

        data = opened = open_source(
            data, domain, engine=chosen, memory_limit=memory_limit, encoding=encoding, delimiter=delimiter
        )
    if reading is None and not isinstance(data, pd.DataFrame):  # a source that read a CSV in chunks
        from ..engines import lines_read

        reading = lines_read(data)
    settings = {
        "method": info.name,
        "epsilon": request.epsilon,
        "rho": request.rho,
        "rows": rows,
        "encoding": encoding,
        "delimiter": delimiter,
        "engine": chosen,
        "declaration": domain.to_json(),
        "options": {k: [list(g) for g in v] if k == "groups" and v else v for k, v in request.options.items()},
    }
    model = info.cls(epsilon=request.epsilon, rho=request.rho, random_state=request.random_state, **request.options)
    share = model.fit_share
    spark = getattr(data, "spark", None)
    try:
        model.fit(
            data,
            domain,
            rows=rows,
            progress=_scaled(progress, 0.0, share),
            engine=chosen,
            memory_limit=memory_limit,
            max_rows=constraints.MAX_ENGINE_SYNTHETIC_ROWS if out is not None else constraints.MAX_SYNTHETIC_ROWS,
        )
    finally:
        if opened is not None:
            opened.close()
    told = _scaled(progress, share, 1.0)

    def finished(synthetic=None, written=None, path=None) -> Release:
        """The release of a table held in memory (``synthetic``) or of ``written`` rows at ``path``."""
        return Release(
            data=synthetic,
            card=build_card(model, info, written if synthetic is None else len(synthetic)),
            accountant=model.ledger(),
            publisher_report=_report(model, reading),
            path=path,
            rows=written,
            columns=None if synthetic is not None else list(model.domain_.kept),
            settings=settings,
            charge=request.charge,
        )

    if not model.independent_chunks:  # one table drawn in order (it may hold fewer rows than planned)
        table = model.sample(progress=told)
        if out is None:
            return finished(table)
        written = write_synthetic(
            out, len(table), _slices(table), chunk_rows=chunk_rows, fmt=out_format, columns=list(table.columns)
        )
        return finished(written=written, path=Path(out))
    # Chunks from their own streams (Model.chunk_sampler): a table returned in memory is the
    # file a chunked release writes, for the same seed.
    sizes = chunk_sizes(model.rows_, chunk_rows)
    if on_spark and model.independent_chunks:
        if told is not None:
            told(0.0, f"Drawing {model.rows_:,} synthetic rows on Spark's executors")
        return finished(written=write_on_spark(spark, model.chunk_sampler(), sizes, out), path=spark_folder or out)
    done = [0]
    with ChunksAhead(model.chunk_sampler(), sizes, SAMPLING_THREADS if model.independent_chunks else 1) as ahead:

        def draw(k):
            chunk = ahead.next(k)
            done[0] += k
            if told is not None:
                told(done[0] / max(model.rows_, 1), f"Drew {done[0]:,} of {model.rows_:,} synthetic rows")
            return chunk

        if out is None:
            return finished(
                pd.concat([draw(k) for k in sizes], ignore_index=True) if len(sizes) > 1 else draw(sizes[0])
            )
        written = write_synthetic(
            out, model.rows_, draw, chunk_rows=chunk_rows, fmt=out_format, columns=list(model.domain_.kept)
        )
    return finished(written=written, path=Path(out))


#: Chunks of a large release drawn at once, in threads (numpy's sorts and searches run without
#: Python's lock); each chunk has its own random stream, so the file is the same for any number.
SAMPLING_THREADS = max(1, min(4, os.cpu_count() or 1))


class ChunksAhead:
    """Chunk ``i`` of ``sizes`` drawn by ``draw(i, size)``, up to ``threads`` chunks ahead of the
    writer; :meth:`next` hands them over in order (at most ``threads`` chunks wait in memory)."""

    def __init__(self, draw, sizes: list, threads: int = 1):
        self.draw, self.sizes, self.threads = draw, list(sizes), max(1, int(threads))
        self._pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None
        self._waiting, self._submitted, self._handed = deque(), 0, 0

    def next(self, size: int) -> pd.DataFrame:
        index = self._handed
        if index >= len(self.sizes) or self.sizes[index] != size:
            raise ValueError(f"chunk {index} of {size} rows was not planned")
        self._handed += 1
        if self._pool is None:
            return self.draw(index, size)
        while self._submitted < len(self.sizes) and len(self._waiting) < self.threads:
            self._waiting.append(self._pool.submit(self.draw, self._submitted, self.sizes[self._submitted]))
            self._submitted += 1
        return self._waiting.popleft().result()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._pool is not None:
            for future in self._waiting:
                future.cancel()
            self._pool.shutdown(wait=True)


def _report(model, reading) -> dict:
    """The publisher-only report, once the table is drawn (some methods report on their draws)."""
    report = {"encoding": model.encoding_report_, "columns": model.publisher_details()}
    if reading is not None:
        report["reading"] = reading
    return report


def _slices(frame):
    """``sample(k)`` for the writer: the next ``k`` rows of a table already in memory."""
    start = [0]

    def take(k):
        chunk = frame.iloc[start[0] : start[0] + k]
        start[0] += k
        return chunk

    return take


def _scaled(progress, start: float, end: float):
    """A progress callable mapping 0..1 onto ``start..end`` of ``progress`` (None stays None)."""
    if progress is None:
        return None
    return lambda done, message: progress(start + (end - start) * done, message)


def warm_up_release() -> None:
    """One release of the default method on a made-up table of 60 rows (no one's data; nothing is
    recorded), so that a server's first real release does not also pay for loading the method's code
    and filling its caches (about half a second on the bundled example)."""
    table = pd.DataFrame({"group": ["a", "b", "c"] * 20, "number": [str(i % 41) for i in range(60)]})
    spec = {
        "columns": {
            "group": {"type": "categorical", "values": ["a", "b", "c"]},
            "number": {"type": "integer", "min": 0, "max": 100},
        }
    }
    synthesize(table, spec, 1.0, method=DEFAULT_METHOD)  # secure noise, as a real release (warms its samplers too)
