"""Drawing a release from its settings: fit the method on the opened table, draw, write, and the card.

:func:`draw_release` is what :meth:`~dpsynth_core.release.ReleaseSettings.run` does once its input is
open: the method measures the table (the only step that reads it), then the synthetic rows are
drawn, post-processing of the fitted model, and returned in memory or written chunk by chunk (by the
release's writer in this process, or by the engine's own workers: :mod:`dpsynth_core.engines`).
"""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..data.parts import is_remote
from ..engines import get_engine
from ..privacy.accounting import Accountant
from ..privacy.spending import Spend
from .card import build_card
from .dominance import TextTally
from .own_formats import write_whole
from .writer import WHOLE_FORMATS, chunk_sizes, write_synthetic


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


def draw_release(settings, opened, progress) -> Release:
    """The release of ``settings`` (:class:`~dpsynth_core.release.ReleaseSettings`) drawn from the
    ``opened`` table (:class:`~dpsynth_core.release.settings.OpenedTable`, closed here once measured when
    it was opened for the release); ``progress``: optional ``callable(done, message)``."""
    info, out, engine = settings.info, settings.out, get_engine(settings.engine)
    chunk_rows, out_format = settings.chunk_rows, settings.out_format
    try:
        model = info.cls(
            epsilon=settings.epsilon, rho=settings.rho, random_state=settings.random_state, **settings.options
        )
        model.fit(
            opened.table,
            settings.domain,
            rows=settings.rows,
            progress=_scaled(progress, 0.0, model.fit_share),
            engine=settings.engine,
            memory_limit=settings.memory_limit,
            max_rows=settings.max_rows,
        )
    finally:
        opened.close()
    told = _scaled(progress, model.fit_share, 1.0)

    # a release written to a file: its free-text columns counted as drawn, for the card (none held in memory)
    kept = (getattr(model, "full_domain_", None) or model.domain_).kept.items()  # derived columns too
    categories = [name for name, column in kept if column.kind == "categorical"]  # for the single-value note
    tally = TextTally([*model.text_facts(), *categories] if out is not None else ())

    def finished(synthetic=None, written=None, path=None) -> Release:
        """The release of a table held in memory (``synthetic``) or of ``written`` rows at ``path``."""
        read = synthetic if synthetic is not None else tally
        return Release(
            data=synthetic,
            card=build_card(model, info, written if synthetic is None else len(synthetic), read, settings.person_check),
            accountant=model.ledger(),
            publisher_report=_report(model, opened.lines),
            path=path,
            rows=written,
            columns=None if synthetic is not None else model.released_columns,
            settings=settings.public(),
            charge=settings.charge,
        )

    if out is not None and out_format in WHOLE_FORMATS.values():  # drawn in memory, written whole with its card
        release = finished(_whole_table(model, told, chunk_rows))
        write_whole(out, release.data, out_format, card=release.card, declaration=settings.domain.to_json())
        release.path = Path(out)
        return release
    if not model.independent_chunks:  # one table drawn in order (it may hold fewer rows than planned)
        table = model.sample(progress=told)
        if out is None:
            return finished(table)
        as_file = model.as_arrow if out_format == "parquet" else None  # dates and times typed, as every Parquet
        written = write_synthetic(
            out, len(table), _slices(table, as_file), chunk_rows=chunk_rows, fmt=out_format, columns=list(table.columns)
        )
        tally.add(table)
        return finished(written=written, path=Path(out))
    # Chunks from their own streams (Model.chunk_sampler): a table returned in memory is the
    # file a chunked release writes, for the same seed.
    sizes = chunk_sizes(model.rows_, chunk_rows)
    local_parts = out is not None and out_format == "parquet" and engine.writes_parquet
    if local_parts and not engine.draws_here(opened.table, out):  # drawn on the engine's workers
        if told is not None:
            told(0.0, f"Drawing {model.rows_:,} synthetic rows on {engine.workers}")
        written = engine.write(opened.table, model.chunk_sampler(arrow=True), sizes, out)  # Arrow, as the file
        path = out if is_remote(out) else Path(str(out).removeprefix("file://"))
        if tally.counts and not is_remote(out):  # drawn elsewhere: the text columns read back from the parts
            tally_parts(tally, path)
        return finished(written=written, path=path)
    done, arrow = [0], out is not None and out_format == "parquet"  # Arrow chunks: written as they are
    with ChunksAhead(model.chunk_sampler(arrow=arrow), sizes, SAMPLING_THREADS) as ahead:

        def draw(k):
            chunk = ahead.next(k)
            tally.add(chunk)
            done[0] += k
            if told is not None:
                told(done[0] / max(model.rows_, 1), f"Drew {done[0]:,} of {model.rows_:,} synthetic rows")
            return chunk

        if out is None:
            return finished(
                pd.concat([draw(k) for k in sizes], ignore_index=True) if len(sizes) > 1 else draw(sizes[0])
            )
        if local_parts:  # a local session's workers are this machine's: drawn here, written as its parts
            written = engine.write_here(draw, sizes, out)
            return finished(written=written, path=Path(str(out).removeprefix("file://")))
        written = write_synthetic(
            out, model.rows_, draw, chunk_rows=chunk_rows, fmt=out_format, columns=model.released_columns
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


def _whole_table(model, told, chunk_rows: int) -> pd.DataFrame:
    """The synthetic table in memory, as :func:`draw_release` returns one (for a file written whole)."""
    if not model.independent_chunks:
        return model.sample(progress=told)
    sizes = chunk_sizes(model.rows_, chunk_rows)
    with ChunksAhead(model.chunk_sampler(), sizes, SAMPLING_THREADS) as ahead:
        chunks = [ahead.next(k) for k in sizes]
    return pd.concat(chunks, ignore_index=True) if len(chunks) > 1 else chunks[0]


def tally_parts(tally: TextTally, path: Path) -> None:
    """Add the free-text columns of a written folder of Parquet parts to ``tally``, a batch at a time."""
    import pyarrow.dataset as ds

    dataset = ds.dataset(path, format="parquet", exclude_invalid_files=True)
    for batch in dataset.to_batches(columns=[n for n in tally.counts if n in dataset.schema.names]):
        tally.add(batch)


def _report(model, reading) -> dict:
    """The publisher-only report, once the table is drawn (some methods report on their draws)."""
    report = {"encoding": model.encoding_report_, "columns": model.publisher_details()}
    if reading is not None:
        report["reading"] = reading
    return report


def _slices(frame, convert=None):
    """``sample(k)`` for the writer: the next ``k`` rows of a table already in memory (passed through
    ``convert`` when given)."""
    start = [0]

    def take(k):
        chunk = frame.iloc[start[0] : start[0] + k]
        start[0] += k
        return chunk if convert is None else convert(chunk)

    return take


def _scaled(progress, start: float, end: float):
    """A progress callable mapping 0..1 onto ``start..end`` of ``progress`` (None stays None)."""
    if progress is None:
        return None
    return lambda done, message: progress(start + (end - start) * done, message)
