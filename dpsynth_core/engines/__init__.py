"""Counting engines: the same exact counts from memory (pandas), DuckDB or Apache Spark.

``open_source(data, domain, engine=...)`` returns a :class:`~.base.CountingSource`:

* ``"pandas"``: the in-memory path (uploads; a DataFrame or a CSV read whole);
* ``"duckdb"``: embedded DuckDB, CSV and Parquet read out of core with a memory limit;
* ``"spark"``: Apache Spark, for a Spark DataFrame or any path Spark can read; a Parquet release
  is drawn on Spark's executors (:mod:`.spark_writer`);
* ``"auto"`` (default): Spark for a Spark DataFrame, DuckDB for a Parquet path (a file, a
  folder of parts or a glob: :mod:`dpsynth_core.data.parts`) or a CSV larger than
  :data:`~dpsynth_core.constraints.ENGINE_AUTO_BYTES`, else pandas; for a method that reads a table in memory,
  pandas for any single file (:func:`~.registry.choose_engine`'s ``reads_sources``).

The engines are listed once, in :mod:`.registry` (name, how each opens a source, how it
writes, what it reads); the command line and the release ask that list. A folder or glob is
listed and checked once, before either engine reads it
(:func:`~dpsynth_core.data.parts.parquet_parts`: Parquet files only, one schema), so both read
exactly the same files.

The engines are imported only when chosen (DuckDB and PySpark are not needed for uploads), and
the names of :mod:`.base` on first use (PEP 562), so importing this package stays light.
"""

import importlib

from .registry import (
    AUTO,
    ENGINE_CHOICES,
    ENGINES,
    IN_MEMORY,
    LARGE_FILES,
    Engine,
    check_column_names,
    choose_engine,
    get_engine,
    lines_read,
    open_source,
)

#: Names loaded on first use (PEP 562): the counting interface and the re-codings.
_LAZY = {"CountingSource": "base", "Merge": "recodings", "Rebin": "recodings", "Vocabulary": "recodings"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AUTO",
    "ENGINES",
    "ENGINE_CHOICES",
    "IN_MEMORY",
    "LARGE_FILES",
    "CountingSource",
    "Engine",
    "Merge",
    "Rebin",
    "Vocabulary",
    "check_column_names",
    "choose_engine",
    "get_engine",
    "lines_read",
    "open_source",
]
