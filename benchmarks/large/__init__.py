"""Large tables: counting and whole releases through pandas, DuckDB and Spark on tens of millions of rows
(built by :mod:`benchmarks.tools.make_large_table`)."""
