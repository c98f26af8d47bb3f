"""Counting engines: the same exact counts from memory (pandas), DuckDB or Apache Spark.

``open_source(data, domain, engine=...)`` returns a :class:`~.base.CountingSource`:

* ``"pandas"``: the in-memory path (uploads; a DataFrame or a CSV read whole);
* ``"duckdb"``: embedded DuckDB, CSV and Parquet read out of core with a memory limit;
* ``"spark"``: Apache Spark, for a Spark DataFrame or any path Spark can read;
* ``"auto"`` (default): Spark for a Spark DataFrame, DuckDB for a Parquet path (a file, a
  folder of parts or a glob: :mod:`dpsynth_core.data.parts`) or a CSV larger than
  :data:`~dpsynth_core.constraints.ENGINE_AUTO_BYTES`, else pandas.

A folder or glob is listed and checked once, before either engine reads it
(:func:`dpsynth_core.data.parts.parquet_parts`: Parquet files only, one schema), so both read exactly the same files.

The engines are imported only when chosen (DuckDB and PySpark are not needed for uploads).
"""

from __future__ import annotations

from pathlib import Path

from .. import constraints
from ..data.parts import PARQUET_SUFFIXES, is_file_set, names_parquet, parquet_parts  # noqa: F401  (re-exported)
from ..domain import as_table_domain
from ..errors import ParameterError
from .base import CountingSource, Merge, Rebin, Vocabulary

ENGINES = ("auto", "pandas", "duckdb", "spark")
PANDAS_READS_CSV = (
    "the pandas engine reads one CSV file; use engine='duckdb' or 'spark' for Parquet "
    "(a file, a folder of parts or a glob)"
)

__all__ = [
    "ENGINES",
    "PARQUET_SUFFIXES",
    "CountingSource",
    "Merge",
    "Rebin",
    "Vocabulary",
    "check_column_names",
    "choose_engine",
    "lines_read",
    "names_parquet",
    "open_source",
    "parquet_parts",
]


def _is_spark_frame(data) -> bool:
    return type(data).__module__.startswith("pyspark.")


def choose_engine(data, engine: str | None = "auto") -> str:
    """The engine ``open_source`` uses for ``data`` (see the module docstring)."""
    engine = engine or "auto"
    if engine not in ENGINES:
        raise ParameterError(f"engine ({engine!r}) must be one of {', '.join(ENGINES)}")
    if engine != "auto":
        return engine
    if _is_spark_frame(data):
        return "spark"
    if isinstance(data, (str, Path)):
        path = Path(data)
        if names_parquet(data):
            return "duckdb"
        if path.is_file() and path.stat().st_size > constraints.ENGINE_AUTO_BYTES:
            return "duckdb"
    return "pandas"


def check_column_names(domain, engine: str) -> None:
    """DuckDB and Spark resolve column names without regard to case, so two declared columns whose
    names differ only in case (``Race`` and ``race``) would be read as one: refused in one line,
    naming the columns (the pandas engine tells them apart)."""
    if engine == "pandas":
        return
    seen = {}
    for name in as_table_domain(domain).columns:
        key = str(name).casefold()
        if key in seen:
            raise ParameterError(
                f"columns '{seen[key]}' and '{name}' differ only in case, which the {engine} engine "
                "cannot tell apart: rename one, or use the pandas engine"
            )
        seen[key] = name


def open_source(
    data,
    domain,
    *,
    engine: str | None = "auto",
    memory_limit: str | None = None,
    threads: int | None = None,
    temp_directory: str | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    spark=None,
) -> CountingSource:
    """The table ``data`` over its declared ``domain``, counted by the chosen engine.

    ``memory_limit`` (DuckDB, e.g. ``"2GB"``), ``threads`` and ``temp_directory`` (where
    DuckDB spills); ``encoding`` and ``delimiter`` of a CSV (detected when None); ``spark``:
    the SparkSession to use (default: the active one, else a local one).
    """
    domain = as_table_domain(domain)
    chosen = choose_engine(data, engine)
    check_column_names(domain, chosen)
    if chosen == "pandas":
        from .memory import MemorySource

        if names_parquet(data):
            raise ParameterError(PANDAS_READS_CSV)
        return MemorySource(data, domain)
    if chosen == "duckdb":
        from .duckdb_source import DuckDBSource

        return DuckDBSource(
            data,
            domain,
            memory_limit=memory_limit,
            threads=threads,
            temp_directory=temp_directory,
            encoding=encoding,
            delimiter=delimiter,
        )
    from .spark_source import SparkSource

    return SparkSource(data, domain, spark=spark, encoding=encoding, delimiter=delimiter)


def lines_read(source) -> dict | None:
    """A source's :attr:`~.base.EngineSource.lines_read` (the lines of a CSV it read in chunks),
    or None for a source that has none (the in-memory source, a caller's own). Publisher-only."""
    return getattr(source, "lines_read", None)
