"""A chunk of rows as Arrow, by one rule for every Parquet writer.

A release written as Parquet is written chunk by chunk, by the release's own writer in this
process (:func:`~dpsynth_core.release.writer.write_synthetic`) or by an engine's workers
(:func:`~dpsynth_core.engines.spark_writer.write_on_spark`); both cast each chunk here, so a
file holds the same column types whoever wrote it.
"""

from __future__ import annotations

import functools

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq


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
    """Columns drawn as Arrow (:meth:`~dpsynth_core.data.encoding.Decoded.arrow`) as one table, with the
    pandas metadata :func:`arrow_chunk` gives the same values as a DataFrame (so pandas reads ``Int64``
    and text back as it would); text may come as dictionary arrays, which a Parquet file stores as
    text (:func:`parquet_writer`)."""
    table = pa.table(columns)
    return table.replace_schema_metadata(_pandas_metadata(tuple((f.name, _kind(f.type)) for f in table.schema)))


def parquet_writer(path, schema: pa.Schema) -> pq.ParquetWriter:
    """A Parquet writer (zstd) for chunks of ``schema``. Dictionary columns are written as their
    dictionary pages directly and read back as plain text: the file keeps no Arrow schema of its own
    then (Parquet's types and the pandas metadata say the rest: text, int64, double), and no minimum
    and maximum of their text (Arrow's for a dictionary column cost a third of writing the file)."""
    plain = [f.name for f in schema if not pa.types.is_dictionary(f.type)]
    if len(plain) == len(schema):
        return pq.ParquetWriter(path, schema, compression="zstd")
    return pq.ParquetWriter(path, schema, compression="zstd", store_schema=False, write_statistics=plain)


def _kind(arrow_type) -> str:
    if pa.types.is_integer(arrow_type):
        return "Int64"
    return "float" if pa.types.is_floating(arrow_type) else "object"


@functools.lru_cache(maxsize=64)
def _pandas_metadata(kinds: tuple) -> dict:
    placeholder = {"Int64": pd.array([0], dtype="Int64"), "float": [0.0], "object": pd.array(["x"], dtype=object)}
    frame = pd.DataFrame({name: placeholder[kind] for name, kind in kinds})
    return pa.Schema.from_pandas(frame, preserve_index=False).metadata
