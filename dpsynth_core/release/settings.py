"""A release's settings, stated once: ``prepare`` checks them and prices the draw; ``run`` makes it.

``synthesize(data, domain, epsilon, ...)`` is ``prepare(data, domain, epsilon, ...).run(data)``:
:func:`prepare` checks every setting once, before the data is read, and returns a frozen
:class:`ReleaseSettings` with the draw's price; :meth:`ReleaseSettings.open` is the one place a
release's input is opened (a file read whole into memory, or an engine's counting source), and
:meth:`ReleaseSettings.run` reads it (the only step that does), fits the method and draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import pandas as pd

from .. import constraints
from ..data.file_bytes import check_delimiter, check_encoding
from ..data.formats import DECLARED_READING, check_header_reading, declared_reading, read_data
from ..domain import TableDomain, as_table_domain
from ..engines import IN_MEMORY, check_column_names, choose_engine, get_engine, lines_read, open_source
from ..privacy.persons import RowsPerPerson
from ..privacy.spending import Spend
from ..synthesizers import DEFAULT_METHOD, get_method
from ..validation import (
    check_memory_limit,
    check_names,
    check_publisher_rho,
    check_rows,
    check_seed,
    check_sheet,
    check_total_epsilon,
)
from .drawing import Release, draw_release
from .own_formats import check_whole_format
from .writer import CHUNK_ROWS, WHOLE_FORMATS, output_format


@dataclass(frozen=True)
class OpenedTable:
    """A release's input, opened once (:meth:`ReleaseSettings.open`).

    Attributes:
        table: a DataFrame, or a counting source (:class:`~dpsynth_core.engines.CountingSource`).
        lines: how the per-record rule read a CSV's lines (``read_table``'s ``info["lines"]``, or
            the engine's, summed over its chunks); None when no CSV was read. Publisher-only.
        owned: opened here, so closed once the method has measured it.
    """

    table: object
    lines: dict | None = None
    owned: bool = False

    def close(self) -> None:
        """Close a source opened here (a release that stops before its draw)."""
        if self.owned:
            self.table.close()


@dataclass(frozen=True)
class ReleaseSettings:
    """Every setting of one release, checked, and the draw's price, before any data is read.

    Made by :func:`prepare` (the parameters of :func:`synthesize` describe each setting). The
    settings are public: none is read off the data (the engine ``auto`` chooses is a fact of the
    file's form and size).

    Attributes:
        method: the registered method's name; ``options``: its own options, checked (``groups``,
            ``delta``, ``k``...).
        domain: the declaration, with its person unit and public bound on rows per person if any.
        epsilon, rho, rows: the budget, the tolerance for randomness and the public number of rows
            (None: a noisy count).
        random_state: the seed, checked (None: the secure source; a seeded release claims no guarantee).
        encoding, delimiter: how a CSV path is read (None: from the file's start).
        sheet, header_row: which sheet of a spreadsheet path is read, and its header's row number, or
            a CSV's header line (None: the first sheet; the first row or line that holds anything);
            header_rows: how many rows or lines the header spans (None: one; 0: none, columns named column_1, ...);
            names: the publisher's names for the columns of a file without a header (None: column_1, ...).
        engine: the engine that counts the table (a name in :data:`~dpsynth_core.engines.ENGINES`,
            never ``auto``); ``memory_limit``: DuckDB's (with Spark, its person bounding's).
        out, out_format, chunk_rows: where the table is written, in which format and in chunks of
            how many rows (``out`` None: the table is returned in memory).
        charge: the draw's price (:meth:`~dpsynth_core.synthesizers.pricing.PricedMethod.charge`), what
            the workspace's ledger records as it is.
        person_check: the DP rows-per-person check drawn before this release
            (:class:`~dpsynth_core.privacy.persons.RowsPerPerson`, its spend recorded apart), for the card's
            sentence on bounding; None without one.
    """

    method: str
    domain: TableDomain
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
    options: Mapping
    charge: Spend
    person_check: object = None
    sheet: str | None = None
    header_row: int | None = None
    header_rows: int | None = None
    names: tuple[str, ...] | None = None

    @property
    def info(self):
        """The method's registry entry (:class:`~dpsynth_core.synthesizers.MethodInfo`)."""
        return get_method(self.method)

    @property
    def max_rows(self) -> int:
        """The public cap on synthetic rows: higher for a table written to a file in chunks than for one
        returned in memory (see :func:`prepare`)."""
        return _row_cap(self.out, self.out_format)

    def public(self) -> dict:
        """The public settings a release records (method, epsilon, rho, rows, reading, engine,
        declaration, options; never the seed), for a rerun (:mod:`dpsynth_core.release.rerun`)."""
        return {
            "method": self.method,
            "epsilon": self.epsilon,
            "rho": self.rho,
            "rows": self.rows,
            "encoding": self.encoding,
            "delimiter": self.delimiter,
            **({"sheet": self.sheet} if self.sheet is not None else {}),
            **({"header_row": self.header_row} if self.header_row is not None else {}),
            **({"header_rows": self.header_rows} if self.header_rows is not None else {}),
            **({"names": list(self.names)} if self.names is not None else {}),
            "engine": self.engine,
            "declaration": self.domain.to_json(),
            "options": {k: [list(g) for g in v] if k == "groups" and v else v for k, v in self.options.items()},
        }

    def reading(self) -> dict:
        """How a table file is read (:func:`~dpsynth_core.data.formats.read_data`'s keywords): a CSV's encoding and
        delimiter, a spreadsheet's sheet, the header's row and how many rows it spans, the names of a file without a
        header."""
        return {
            "encoding": self.encoding,
            "delimiter": self.delimiter,
            "sheet": self.sheet,
            "header_row": self.header_row,
            "header_rows": self.header_rows,
            "names": self.names,
        }

    def open(self, data) -> OpenedTable:
        """``data`` as the release reads it, opened once: a path is read whole by the in-memory engine
        (:func:`~dpsynth_core.data.formats.read_data`: a CSV with this release's encoding and delimiter,
        a spreadsheet's sheet, a statistical package's file; its
        columns checked against the declaration) or opened as the engine's counting source (closed by
        :meth:`run` once the method has measured it); a DataFrame, a counting source or a table
        opened already is taken as it is."""
        if isinstance(data, OpenedTable):
            return data
        if isinstance(data, (str, Path)) and get_engine(self.engine).in_memory:
            frame, info = read_data(data, **self.reading())
            self.domain.check_matches(frame.columns)
            return OpenedTable(frame, info["lines"])
        if isinstance(data, (str, Path)):
            reading = {k: v for k, v in self.reading().items() if k != "sheet"}
            source = open_source(data, self.domain, engine=self.engine, memory_limit=self.memory_limit, **reading)
            return OpenedTable(source, lines_read(source), owned=True)
        if isinstance(data, pd.DataFrame):
            return OpenedTable(data)
        return OpenedTable(data, lines_read(data))  # a source the caller opened (a CSV it read in chunks)

    def run(self, data, *, progress=None) -> Release:
        """Open ``data`` (:meth:`open`; the only step that reads it), fit the method and draw the release.

        ``progress``: optional ``callable(done, message)`` told how far the release is (0 to 1).
        """
        return draw_release(self, self.open(data), progress)


def synthesize(data, domain, epsilon: float, *, progress=None, **settings) -> Release:
    """Make a DP synthetic copy of ``data`` over its declared ``domain``: ``prepare(...).run(data)``.

    Every setting is checked before the data is read (:func:`prepare`); the ranges are the app's.

    Args:
        data: a DataFrame, a path to a CSV/TSV or Parquet file, a spreadsheet (.xlsx, .xls, .ods) or a
            statistical package's file (.sav, .zsav, .por, .dta, .sas7bdat, .xpt), a folder or glob of Parquet files
            (read by an engine: :mod:`dpsynth_core.data.parts`), or an open counting source.
        domain: a :class:`~dpsynth_core.domain.TableDomain`, its JSON form as a dict, or a
            path to the JSON file.
        epsilon: the total privacy budget, from 0.01 to 20 (``constraints.EPSILON_MIN`` and
            ``EPSILON_MAX``), split as the card shows.
        progress: optional ``callable(done, message)`` told how far the release is (0 to 1)
            at coarse steps, for progress bars.
        settings: the keywords of :func:`prepare`:

            * ``method``: a registered method name (see ``dpsynth_core.METHODS``; default ``marginals``,
              the best general-purpose one), and the method's own options (``groups``, ``delta``...),
              checked by the method's option specs.
            * ``rho``: tolerance for randomness, from 0.01 to 0.99: the chance a column has no made-up value.
            * ``rows``: a public number of synthetic rows (1 to 5,000,000; 10^9 with ``out``); None
              (default) noises the true count.
            * ``random_state``: None for the secure source (releases); an int in [0, 2^128) or a numpy
              Generator for repeatable runs (tests, teaching). The seed never appears in the card.
            * ``encoding``: how to read a CSV path (see :func:`~dpsynth_core.data.tables.read_table`); None
              reads it from the byte-order mark, or line by line, never from the other records.
            * ``delimiter``: the CSV's delimiter; None takes it from the header line, never from the records.
            * ``sheet``, ``header_row``: a spreadsheet's sheet (by name; None: the first) and its header's
              row number, or a CSV's header line, read in memory (None: the first row or line that holds
              anything): :mod:`dpsynth_core.data.formats`; ``header_rows``: how many rows or lines the header
              spans (a survey tool's question above its answers; None: one; 0: the file has no header line),
              read in memory too; ``names``: the columns' names for a file without a header line, one per field in
              order (a list, or text separated by commas; given, they mean ``header_rows`` 0; None: ``column_1``,
              ...). Where the declaration came from a data package whose dialect says how its file is written
              (``notes["reading"]``: :func:`~dpsynth_core.data.formats.declared_reading`), a CSV path is read so
              for the options left None (the header's three together).
            * ``engine``: how the table is counted: ``auto`` (default), ``pandas`` (in memory), ``duckdb``
              or ``spark`` (:mod:`dpsynth_core.engines`; only methods that read through a counting
              source, such as ``marginals`` and ``cathist``, take the last two). ``data`` may also be
              an open counting source. ``memory_limit``: DuckDB's, for example ``"2GB"``.
            * ``out``: write the synthetic table to this file in chunks of ``chunk_rows`` rows (CSV or
              Parquet, by ``out_format`` or the suffix; the file appears only when complete) instead
              of returning it: the table is then never whole in memory, and may hold up to
              ``constraints.MAX_ENGINE_SYNTHETIC_ROWS`` rows, whichever engine counted the data
              (``constraints.MAX_SYNTHETIC_ROWS`` for a table returned in memory). With
              ``engine="spark"`` and a Parquet ``out``, the chunks are drawn on Spark's executors and
              ``out`` becomes a new folder of Parquet parts (:mod:`dpsynth_core.engines.spark_writer`).
    """
    return prepare(data, domain, epsilon, **settings).run(data, progress=progress)


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
    sheet: str | None = None,
    header_row: int | None = None,
    header_rows: int | None = None,
    names=None,
    engine: str | None = "auto",
    memory_limit: str | None = None,
    out=None,
    out_format: str | None = None,
    chunk_rows: int = CHUNK_ROWS,
    person_check=None,
    **options,
) -> ReleaseSettings:
    """Check every setting of :func:`synthesize` once (each described there) and price the draw,
    without reading the data: the :class:`ReleaseSettings` a release runs from.

    ``data`` is looked at only for its form (a DataFrame, a path, an open source) and, with
    ``engine="auto"``, a file's size, to choose the engine.
    """
    epsilon = check_total_epsilon(epsilon)
    rho = check_publisher_rho(rho)
    fmt = output_format(out, out_format) if out is not None else None
    info = get_method(method)
    domain = as_table_domain(domain)
    info.cls.check_unit(domain.person)
    if not isinstance(data, (str, Path, pd.DataFrame)):  # an open source says which engine counts it
        chosen = get_engine(getattr(data, "engine", IN_MEMORY))
    else:
        chosen = get_engine(choose_engine(data, engine, reads_sources=info.cls.reads_sources))
    chosen.check_domain(domain)  # a gap column is read from two columns: not by every engine (data.gaps)
    # the cap follows the publisher's choice of a file (written in chunks) or a table in memory, never
    # the engine (``auto`` picks one from the file's size, a fact about the data)
    rows = check_rows(rows, _row_cap(out, fmt))
    random_state = check_seed(random_state)
    reading = dict(zip(DECLARED_READING, (encoding, delimiter, header_row, header_rows, names)))
    reading.update(declared_reading(domain, data, reading))  # a data package's dialect, where not given
    encoding, delimiter, header_row, header_rows, names = (reading[k] for k in DECLARED_READING)
    encoding, delimiter = check_encoding(encoding), check_delimiter(delimiter)
    sheet, header_row = check_sheet(sheet, header_row)
    names, header_rows = check_names(names, header_rows)
    if not chosen.in_memory and isinstance(data, (str, Path)):  # an engine reads a local CSV's header as in memory
        check_header_reading(data, header_row=header_row, header_rows=header_rows, names=names)
    memory_limit = check_memory_limit(memory_limit, "memory limit")
    options = info.check_options(options)
    if isinstance(data, (str, Path)):
        chosen.check_input(data)
    if fmt == "parquet" and chosen.writes_parquet:  # drawn on the engine's workers: a target they can write
        chosen.check_target(out)
    domain.validate()
    check_whole_format(fmt, domain.kept)  # a package's variable names, before the draw is priced
    check_column_names(domain, chosen.name)  # before the draw is priced and recorded: names an engine cannot tell apart
    charge = info.cls.charge(domain, epsilon, rows=rows, **options)
    if random_state is not None:  # a seeded (repeatable) draw claims no guarantee: recorded as such
        charge = Spend(charge.events, False, charge.zcdp_delta)
    return ReleaseSettings(
        method=info.name,
        domain=domain,
        epsilon=epsilon,
        rho=rho,
        rows=rows,
        random_state=random_state,
        encoding=encoding,
        delimiter=delimiter,
        engine=chosen.name,
        memory_limit=memory_limit,
        out=out,
        out_format=fmt,
        chunk_rows=chunk_rows,
        options=MappingProxyType(options),
        charge=charge,
        person_check=_person_check(person_check, domain),
        sheet=sheet,
        header_row=header_row,
        header_rows=header_rows,
        names=names,
    )


def _person_check(check, domain):
    """A rows-per-person check (an object or its dict) for a release with a person unit; None otherwise."""
    if check is None or domain.person is None:
        return None
    return check if isinstance(check, RowsPerPerson) else RowsPerPerson.from_dict(check)


def _row_cap(out, fmt: str | None) -> int:
    """The public cap on synthetic rows: a file written in chunks holds more than a table in memory (a
    table returned, or written whole in a publisher's format: :data:`~.writer.WHOLE_FORMATS`)."""
    if out is None or fmt in WHOLE_FORMATS.values():
        return constraints.MAX_SYNTHETIC_ROWS
    return constraints.MAX_ENGINE_SYNTHETIC_ROWS


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
