"""A chunk of rows as Arrow, by one rule for every Parquet writer.

A release written as Parquet is written chunk by chunk, by the release's own writer in this
process (:func:`~dpsynth_core.release.writer.write_synthetic`) or by an engine's workers
(:func:`~dpsynth_core.engines.spark_writer.write_on_spark`); both cast each chunk here, so a
file holds the same column types whoever wrote it.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa


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
