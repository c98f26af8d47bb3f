"""The engines, listed once: each one's name, how it opens a source, how it writes, what it reads.

:func:`open_source`, the command line's ``--engine`` choices and the release ask :data:`ENGINES`;
nothing else names an engine. A new engine is its module and one entry here.

``auto`` (the default choice) picks the engine that counts a DataFrame of its library (Spark's),
the engine for large files for a Parquet path (a file, a folder of parts or a glob:
:mod:`dpsynth_core.data.parts`) or a CSV larger than :data:`~dpsynth_core.constraints.ENGINE_AUTO_BYTES`,
else the in-memory engine. Spreadsheets and statistical packages' files (:mod:`dpsynth_core.data.formats`)
are read whole into memory: ``auto`` picks the in-memory engine for them, and the engines for large
tables refuse them in one line (export them as CSV or Parquet for those).

An engine's module is imported only when the engine opens a source (DuckDB and PySpark are not
needed for uploads), and this list imports no numerical library, so the command line's parser
can offer the choices at once.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from .. import constraints
from ..errors import ParameterError

#: The choice that lets the data decide (see the module docstring).
AUTO = "auto"


@dataclass(frozen=True)
class Engine:
    """One way of counting a table.

    Attributes:
        name: what the publisher chooses (``engine=...``, ``--engine``).
        summary: what it is, in a few words (the command line's help).
        source: ``module:Class`` of its counting source (:class:`~.base.CountingSource`), the
            module relative to this package, imported when the engine opens a source; called as
            ``Class(data, domain, **settings)`` with those of :func:`open_source`'s settings named
            in ``takes``.
        takes: the settings of :func:`open_source` its source takes.
        in_memory: the table is read whole into memory (a path by
            :func:`~dpsynth_core.data.tables.read_table`), so every method can read it; a release read
            this way is returned or written from memory.
        reads_parquet: it reads Parquet as a table of parts (a file, a folder of parts or a glob); otherwise one
            file, a single Parquet file among them (read whole, with the package and spreadsheet files).
        case_blind: it resolves column names without regard to case, so declared names that differ
            only in case are refused (:func:`check_column_names`).
        frames_of: the library whose DataFrames it counts (``auto`` picks it for them), or None.
        large_files: ``auto`` picks it for Parquet and for a large CSV.
        keys_records: its source computes the ledger's identity of the records in its own pass over the
            file (``records_identity(secret)``), so the command line opens it before the budget check
            instead of reading the file a second time.
        reads_gaps: it reads a column declared past another one as its gap (:mod:`dpsynth_core.data.gaps`):
            an engine that does not refuses a declaration with such a column before anything is read
            (:meth:`check_domain`).
        writer: how it writes a release to a Parquet file: a module relative to this package with
            ``WORKERS`` (who draws the chunks, in words), ``check_target(path)`` (refuse a target
            before the draw is priced) and ``write(source, draw, sizes, path) -> rows`` (chunk ``i``
            of ``sizes`` drawn by ``draw(i, size)`` on the engine's own workers); None: the release's own writer
            (:func:`~dpsynth_core.release.writer.write_synthetic`) writes it chunk by chunk in this process.
    """

    name: str
    summary: str
    source: str
    takes: tuple = ()
    in_memory: bool = False
    reads_parquet: bool = True
    case_blind: bool = True
    frames_of: str | None = None
    large_files: bool = False
    keys_records: bool = False
    reads_gaps: bool = True
    writer: str | None = None

    def open(self, data, domain, **settings):
        """The table ``data`` over its declared ``domain`` (a :class:`~dpsynth_core.domain.TableDomain`),
        counted by this engine; ``settings``: :func:`open_source`'s, those it does not take ignored."""
        self.check_input(data)
        module, name = self.source.split(":")
        source_class = getattr(importlib.import_module(f".{module}", __package__), name)
        return source_class(data, domain, **{key: settings[key] for key in self.takes if key in settings})

    def check_domain(self, domain) -> None:
        """Refuse a declaration this engine cannot count (a gap column: see ``reads_gaps``) in one line."""
        if domain.gaps and not self.reads_gaps:
            from ..data.gaps import gap_engine_refusal

            able = " or ".join(f"'{e.name}'" for e in ENGINES.values() if e.reads_gaps)
            raise ParameterError(gap_engine_refusal(domain.gaps, self.name, able))

    def check_input(self, data) -> None:
        """Refuse a folder or glob of Parquet parts for an engine that reads one file, before anything is read."""
        from ..data.formats import check_engine_input
        from ..data.parts import is_file_set, is_remote, names_parquet

        if not self.in_memory:
            check_engine_input(data, self.name)
        if not self.reads_parquet and (is_file_set(data) or (is_remote(data) and names_parquet(data))):
            others = " or ".join(f"'{e.name}'" for e in ENGINES.values() if e.reads_parquet)
            raise ParameterError(
                f"the {self.name} engine reads one file; use engine={others} for a folder or glob of Parquet "
                "parts (or a remote Parquet path)"
            )

    @property
    def writes_parquet(self) -> bool:
        """True when it writes a Parquet release itself, on its own workers (see ``writer``)."""
        return self.writer is not None

    @property
    def workers(self) -> str:
        """Who draws a Parquet release it writes itself, in words (for progress messages)."""
        return self._writer().WORKERS

    def check_target(self, path) -> None:
        """Refuse a Parquet target its writer cannot write (one that exists), before the draw is priced."""
        self._writer().check_target(path)

    def write(self, source, draw, sizes: list, path) -> int:
        """Write a Parquet release on its own workers (see ``writer``); returns the rows written."""
        return self._writer().write(source, draw, sizes, path)

    def draws_here(self, source, path) -> bool:
        """True when its workers are this machine's (a local session): the release's own threads draw the
        chunks and :meth:`write_here` writes them as its workers would."""
        return self._writer().draws_here(source, path)

    def write_here(self, next_chunk, sizes: list, path) -> int:
        """Write chunks drawn here (``next_chunk(size)``, in order) as its workers would; returns the rows."""
        return self._writer().write_here(next_chunk, sizes, path)

    def _writer(self):
        return importlib.import_module(f".{self.writer}", __package__)


#: How a CSV is read (:func:`~dpsynth_core.data.csvfile.csv_frames`' options), which the large-table engines take.
CSV_READING = ("encoding", "delimiter", "header_row", "header_rows", "names")

#: Every engine, by name, in the order the command line lists them.
ENGINES: dict[str, Engine] = {
    engine.name: engine
    for engine in (
        Engine("pandas", "in memory", "memory:MemorySource", in_memory=True, reads_parquet=False, case_blind=False),
        Engine(
            "duckdb",
            "out of core, large files",
            "duckdb_source:DuckDBSource",
            takes=("memory_limit", "threads", "temp_directory", *CSV_READING),
            large_files=True,
            keys_records=True,
        ),
        Engine(
            "spark",
            "a local Spark session",
            "spark_source:SparkSource",
            takes=("spark", "memory_limit", *CSV_READING),
            frames_of="pyspark",
            keys_records=True,
            writer="spark_writer",
        ),
    )
}
#: What the publisher may choose: ``auto`` or an engine's name.
ENGINE_CHOICES = (AUTO, *ENGINES)
#: The engine that counts a table held in memory (``auto``'s choice for a DataFrame or a small CSV).
IN_MEMORY = next(e.name for e in ENGINES.values() if e.in_memory)
#: ``auto``'s choice for Parquet and for a CSV larger than ``constraints.ENGINE_AUTO_BYTES``.
LARGE_FILES = next(e.name for e in ENGINES.values() if e.large_files)


def get_engine(name: str | None) -> Engine:
    """The engine called ``name`` (``auto`` is not one: :func:`choose_engine` picks one for the data)."""
    if name not in ENGINES:
        raise ParameterError(f"engine ({name!r}) must be one of {', '.join(ENGINE_CHOICES)}")
    return ENGINES[name]


def choose_engine(data, engine: str | None = AUTO, *, reads_sources: bool = True) -> str:
    """The name of the engine :func:`open_source` uses for ``data`` (see the module docstring); for a method that
    reads a table in memory (``reads_sources`` False), ``auto`` reads a file whole (a CSV or a single Parquet file):
    only a folder or glob of Parquet parts, or a remote path, needs an engine."""
    engine = engine or AUTO
    if engine != AUTO:
        return get_engine(engine).name
    if not reads_sources and isinstance(data, (str, Path)):
        from ..data.parts import is_file_set, is_remote

        if not is_file_set(data) and not is_remote(data):
            return IN_MEMORY
    library = type(data).__module__.split(".")[0]
    for candidate in ENGINES.values():
        if candidate.frames_of is not None and candidate.frames_of == library:
            return candidate.name
    if isinstance(data, (str, Path)):
        from ..data.formats import reads_whole
        from ..data.parts import names_parquet

        if reads_whole(data):  # a spreadsheet or a statistical package's file: read whole, in memory
            return IN_MEMORY
        path = Path(data)
        if names_parquet(data) or (path.is_file() and path.stat().st_size > constraints.ENGINE_AUTO_BYTES):
            return LARGE_FILES
    return IN_MEMORY


def check_column_names(domain, engine: str) -> None:
    """Some engines (DuckDB, Spark) resolve column names without regard to case, so two declared
    columns whose names differ only in case (``Race`` and ``race``) would be read as one: refused in
    one line, naming the columns (the in-memory engine tells them apart)."""
    if not get_engine(engine).case_blind:
        return
    from ..domain import as_table_domain

    seen = {}
    for name in as_table_domain(domain).columns:
        key = str(name).casefold()
        if key in seen:
            raise ParameterError(
                f"columns '{seen[key]}' and '{name}' differ only in case, which the {engine} engine "
                f"cannot tell apart: rename one, or use the {IN_MEMORY} engine"
            )
        seen[key] = name


def open_source(
    data,
    domain,
    *,
    engine: str | None = AUTO,
    memory_limit: str | None = None,
    threads: int | None = None,
    temp_directory: str | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    spark=None,
    header_row: int | None = None,
    header_rows: int | None = None,
    names: tuple[str, ...] | None = None,
):
    """The table ``data`` over its declared ``domain``, counted by the chosen engine: a
    :class:`~.base.CountingSource`.

    ``memory_limit`` (DuckDB, e.g. ``"2GB"``), ``threads`` and ``temp_directory`` (where
    DuckDB spills); ``encoding`` and ``delimiter`` of a CSV (detected when None), and its header's
    ``header_row``, ``header_rows`` and ``names`` (:func:`~dpsynth_core.data.tables.read_table`'s); ``spark``:
    the SparkSession to use (default: the active one, else a local one). An engine ignores
    the settings it does not take (:attr:`Engine.takes`).
    """
    from ..domain import as_table_domain

    domain = as_table_domain(domain)
    chosen = get_engine(choose_engine(data, engine))
    chosen.check_domain(domain)
    check_column_names(domain, chosen.name)
    return chosen.open(
        data,
        domain,
        memory_limit=memory_limit,
        threads=threads,
        temp_directory=temp_directory,
        encoding=encoding,
        delimiter=delimiter,
        spark=spark,
        header_row=header_row,
        header_rows=header_rows,
        names=names,
    )


def lines_read(source) -> dict | None:
    """A source's :attr:`~.base.EngineSource.lines_read` (the lines of a CSV it read in chunks),
    or None for a source that has none (the in-memory source, a caller's own). Publisher-only."""
    return getattr(source, "lines_read", None)
