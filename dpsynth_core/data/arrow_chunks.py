"""A chunk of rows as Arrow, by one rule for every Parquet writer.

A release written as Parquet is written chunk by chunk, by the release's own writer in this
process (:func:`~dpsynth_core.release.writer.write_synthetic`) or by an engine's workers
(:func:`~dpsynth_core.engines.spark_writer.write_on_spark`); both cast each chunk here, so a
file holds the same column types whoever wrote it. Dates, dates with a time and times of day are
typed (:func:`moment_type`), as in the app's Parquet download and the publisher's own formats: a
CSV writes them as text, a typed file as what they are.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..domain.dates import DateDomain, DateTimeDomain, TimeDomain


def moment_type(column) -> pa.DataType | None:
    """The Arrow type of a date, date-and-time or time-of-day column (a column's declared domain) in a typed
    file: days as ``date32``, dates with a time as ``timestamp[us]``, times of day as ``time64[us]`` (the units
    Spark writes, and pandas' dates and times give Arrow; whole seconds, or the column's step). None (text)
    for any other column, and for dates the file writes as a year and a month or a quarter (no day to type) and
    times it writes as HHMM (a number of the file's own form), which stay as written."""
    if isinstance(column, TimeDomain):
        return None if column.written == "HHMM" else pa.time64("us")
    if isinstance(column, DateTimeDomain):
        return pa.timestamp("us")
    if isinstance(column, DateDomain):
        return None if column.written in ("year and month", "year and quarter") else pa.date32()
    return None


def moment_array(column, numbers: np.ndarray, missing: np.ndarray | None) -> pa.Array:
    """A column's drawn values as typed Arrow (:func:`moment_type`) from the numbers the domain counts them by
    (days since 1970-01-01, or steps since 1970-01-01 00:00 or since midnight): no text is made or parsed."""
    kind = moment_type(column)
    numbers = np.asarray(numbers, dtype=np.int64)
    if isinstance(column, DateTimeDomain):  # a time of day too: its steps count from midnight
        numbers = numbers * (column.seconds * 1_000_000)
    else:
        numbers = numbers.astype(np.int32)
    mask = missing if missing is not None and missing.any() else None
    return pa.array(numbers, mask=mask, type=kind)


def typed(table: pa.Table, domain) -> pa.Table:
    """``table`` with every date, date-and-time and time-of-day column of ``domain`` (a table's declared
    domain) in its :func:`moment_type`: a column drawn as text (the file's form, YYYY-MM-DD, YYYY-MM-DD
    HH:MM[:SS], HH:MM[:SS]) is read as one; a column already typed, or of another kind, is left as it is."""
    columns = getattr(domain, "columns", {}) or {}
    for place, name in enumerate(table.column_names):
        kind = moment_type(columns.get(name))
        values = table.column(place)
        if kind is None or values.type == kind:
            continue
        if pa.types.is_dictionary(values.type):
            values = values.cast(values.type.value_type)
        if pa.types.is_time64(kind) and pa.types.is_string(values.type):  # Arrow reads no time of day from text
            values = pc.binary_join_element_wise("1970-01-01 ", values, "").cast(pa.timestamp("us"))
        table = table.set_column(place, pa.field(name, kind), values.cast(kind))
    return table


def arrow_chunk(chunk: pd.DataFrame, schema: pa.Schema | None) -> pa.Table:
    """A chunk as Arrow: cast to ``schema``, or (the first chunk) with its own types, text where a column has none."""
    table = pa.Table.from_pandas(chunk, preserve_index=False)
    if schema is None:
        # A column all missing in the first chunk has no type yet: text is what it can only be.
        fields = [
            pa.field(f.name, pa.string()) if pa.types.is_null(f.type) else f.remove_metadata() for f in table.schema
        ]
        return table.cast(pa.schema(fields))
    return table.cast(schema)


def arrow_table(columns: dict) -> pa.Table:
    """Columns drawn as Arrow (:meth:`~dpsynth_core.data.decoding.Decoded.arrow`) as one table: the types
    :func:`arrow_chunk` gives the same values as a DataFrame, except text may come as dictionary arrays,
    which a Parquet file stores as text (:func:`parquet_writer`)."""
    return pa.table(columns)


def parquet_writer(path, schema: pa.Schema) -> pq.ParquetWriter:
    """A Parquet writer (zstd) for chunks of ``schema``. Dictionary columns are written as their
    dictionary pages directly and read back as plain text, as the file keeps no Arrow schema of its own
    then (Parquet's types say the rest: text, int64, double), and with no minimum and maximum of their
    text (Arrow's for a dictionary column cost a third of writing the file)."""
    plain = [f.name for f in schema if not pa.types.is_dictionary(f.type)]
    if len(plain) == len(schema):
        return pq.ParquetWriter(path, schema, compression="zstd")
    return pq.ParquetWriter(path, schema, compression="zstd", store_schema=False, write_statistics=plain)
