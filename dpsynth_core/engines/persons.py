"""Keeping at most ``K`` rows per person in the engines for large tables: exactly the rows kept in memory.

A declaration's person unit (:class:`~dpsynth_core.domain.PersonUnit`) has every release keep at most ``K``
random rows of each person before any statistic (:mod:`dpsynth_core.privacy.persons`). An engine keeps the
same rows as the in-memory :func:`~dpsynth_core.privacy.persons.bound_rows` for the same generator:

1. the identifier column's distinct values with their row counts (one GROUP BY in the engine);
2. each value's person by the in-memory rule itself (:func:`~dpsynth_core.privacy.persons.person_codes`,
   in Python over the distinct values: the same code, not a translation), so the rows per person;
3. the same draw (:func:`~dpsynth_core.privacy.persons.kept_ranks`: it depends on the rows per person only);
4. one DuckDB query over the rows of the persons past the bound, which ranks each person's rows in the
   table's order (its files in their listing, then each file's rows; a frame's rows) and keeps the drawn
   ranks, with every other person's rows kept whole (:func:`~.duckdb_source.kept_rows`); the kept rows are
   written once (a DuckDB table; for Spark, which bounds local files only, a Parquet file written by DuckDB
   out of core) and every later count reads them (the source's ``_bound``).

The guarantee is the in-memory path's (audited on neighbouring tables), since the kept rows are the same:
``tests/core/engines/test_engine_persons.py`` holds that on real tables, and catches an engine that keeps
every row or each person's first rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from ..privacy.persons import kept_ranks, person_codes, rows_per_person


def identifiers(raw: pa.Array) -> pd.Series:
    """An engine's distinct identifiers as pandas holds a column of them (whole numbers as whole numbers, even
    beside a missing one), so :func:`~dpsynth_core.privacy.persons.person_codes` reads each as the in-memory
    path reads it: ``12``, not ``12.0``."""
    return raw.to_pandas(types_mapper=lambda kind: pd.Int64Dtype() if pa.types.is_signed_integer(kind) else None)


def _persons(source, unit) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Steps 1 and 2: the identifier's distinct values, each one's person code, and the rows per person."""
    raw, counts = source._person_values(unit.column)
    codes = person_codes(identifiers(raw), ignore_case=unit.ignore_case)
    return raw, codes, rows_per_person(codes, counts)


def rows_of_each_person(source, unit) -> np.ndarray:
    """How many rows each person holds in the engine ``source`` (exact: only a DP check may read it,
    :func:`~dpsynth_core.privacy.persons.rows_histogram`), as :func:`~dpsynth_core.privacy.persons.rows_per_person`
    counts them in memory."""
    return _persons(source, unit)[2]


def bound_persons(source, unit, rng):
    """A twin of the engine ``source`` counting at most ``unit.max_rows`` rows per person (steps 1-4 above)."""
    raw, codes, per_person = _persons(source, unit)
    persons, ranks = kept_ranks(per_person, unit.max_rows, rng)
    past = np.flatnonzero(per_person[codes] > unit.max_rows)
    twin = source._twin()
    twin._bound(unit.column, raw.take(pa.array(past)), codes[past], persons, ranks)
    twin._setup(source.domain, source._column_names())
    return twin
