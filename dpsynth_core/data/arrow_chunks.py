"""A chunk of rows as Arrow, by one rule for every Parquet writer.

A release written as Parquet is written chunk by chunk, by the release's own writer in this
process (:func:`~dpsynth_core.release.writer.write_synthetic`) or by an engine's workers
(:func:`~dpsynth_core.engines.spark_writer.write_on_spark`); both cast each chunk here, so a
file holds the same column types whoever wrote it.
"""

from __future__ import annotations

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
