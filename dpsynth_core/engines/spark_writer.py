"""A release drawn on Spark's executors and written by Spark as a folder of Parquet parts (or, for a
session in local mode, drawn by the driver's threads into the same folder of parts: :func:`draws_here`).

The Spark engine's way of writing (:class:`~dpsynth_core.engines.Engine`'s ``writer``): with a
Parquet output, each chunk of synthetic rows is drawn by a task, from its own random stream,
so the driver never holds the table; the parts hold the rows the release's own writer
(:func:`~dpsynth_core.release.writer.write_synthetic`) would write, chunk by chunk.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from ..data.arrow_chunks import arrow_chunk
from ..data.parts import is_remote
from ..errors import ParameterError

#: Who draws the chunks (the engine's words in progress messages).
WORKERS = "Spark's executors"
#: The stream a Spark release's schema probe is drawn from: no chunk uses it.
PROBE_STREAM = 2**64 - 1
PROBE_ROWS = 10_000


def check_target(path) -> Path | None:
    """The local folder a Spark release will create (None: a cluster's storage); refused when it exists
    (the engine's check of an output, before the draw is priced and recorded)."""
    if is_remote(path):
        return None
    final = Path(str(path).removeprefix("file://"))
    if final.exists():
        raise ParameterError(f"{final} already exists: Spark writes a new folder of Parquet parts, choose a new name")
    if not final.parent.is_dir():
        raise ParameterError(f"cannot write {final}: the folder {final.parent} does not exist")
    return final


def write_on_spark(spark, draw, sizes: list, path: str) -> int:
    """Draw chunk ``i`` of ``sizes`` with ``draw(i, size)`` on Spark's executors (one task per
    chunk) and let Spark write them as a folder of Parquet parts at ``path``; returns the rows.

    ``draw`` is a fitted model's :meth:`~dpsynth_core.synthesizers.base.Synthesizer.chunk_sampler`:
    post-processing that carries the model and the release's stream key to the executors and
    never reads the data; the parts hold the rows the driver's writer would write, chunk by
    chunk. The column types come from a probe drawn on the driver from a stream no chunk uses.
    A local ``path`` appears only when complete (written beside it, then renamed); on a
    cluster's storage Spark's own commit protocol does that. ``path`` must not exist.
    """
    from pyspark.sql.pandas.types import from_arrow_schema

    final = check_target(path)
    local = final is not None
    probe = _arrow(draw(PROBE_STREAM, min(PROBE_ROWS, max(sizes))), None)
    schema = pa.schema([pa.field(f.name, _spark_type(f.type)) for f in probe.schema])
    plan = list(sizes)

    def draw_parts(batches):
        for batch in batches:
            for index in batch.column(0).to_pylist():
                yield from _arrow(draw(index, plan[index]), schema).to_batches()

    target = str(final.parent / f".{final.name}.{os.getpid()}.part") if local else str(path)
    frame = spark.range(0, len(plan), numPartitions=max(1, len(plan))).mapInArrow(draw_parts, from_arrow_schema(schema))
    try:
        frame.write.mode("errorifexists").parquet(target)
        if local:
            os.replace(target, final)
    except BaseException:
        if local:
            shutil.rmtree(target, ignore_errors=True)
        raise
    return int(sum(plan))


def _arrow(chunk, schema: pa.Schema | None) -> pa.Table:
    """A drawn chunk as Arrow: an Arrow table (a sampler's ``arrow=True`` chunks, text as dictionary
    arrays) cast to ``schema`` in Arrow, no Python object per cell; a DataFrame by :func:`arrow_chunk`.
    A time of day that ``schema`` holds as text (:func:`_spark_type`) is written HH:MM:SS."""
    if not isinstance(chunk, pa.Table):
        return arrow_chunk(chunk, schema)
    if schema is None:
        return chunk
    for place, field in enumerate(chunk.schema):
        if pa.types.is_time(field.type) and pa.types.is_string(schema.field(field.name).type):
            seconds = chunk.column(place).cast(pa.int64()).cast(pa.timestamp("us")).cast(pa.timestamp("s"))
            chunk = chunk.set_column(place, field.name, pc.strftime(seconds, format="%H:%M:%S"))
    return chunk.cast(schema)


def _spark_type(kind: pa.DataType) -> pa.DataType:
    """The type Spark's Arrow reader takes for a chunk's column: text as plain strings (not large, not
    dictionary-encoded: the values are the same); a time of day as its text, HH:MM:SS (Spark 4.3 takes no
    time of day from Arrow: the one type its parts hold otherwise than the driver's file)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.string() if pa.types.is_large_string(kind) or pa.types.is_time(kind) else kind


def draws_here(source, path) -> bool:
    """True when a release is better drawn by the driver's own threads: a session in local mode (its
    executors are this machine's cores) writing to a local path. Spark's tasks would start Python workers
    and hand every row to the JVM and to Spark's Parquet writer (10 million rows: 32 s against 10 s);
    the folder of parts holds the same rows either way."""
    return str(source.spark.sparkContext.master).startswith("local") and not is_remote(path)


def write_here(next_chunk, sizes: list, path) -> int:
    """Write chunk ``i`` of ``sizes`` (``next_chunk(size)``, in order) as part ``i`` of a folder of Parquet
    parts at ``path``, as :func:`write_on_spark`'s tasks would (one part per chunk, text as text), from
    this process; the folder appears only when complete (written beside it, then renamed)."""
    from ..data.arrow_chunks import parquet_writer

    final = check_target(path)
    target = final.parent / f".{final.name}.{os.getpid()}.part"
    target.mkdir()
    schema = None
    try:
        for index, size in enumerate(sizes):
            chunk = _arrow(next_chunk(size), schema)
            schema = schema or chunk.schema
            with parquet_writer(target / f"part-{index:05d}.parquet", schema) as writer:
                writer.write_table(chunk)
        (target / "_SUCCESS").write_bytes(b"")
        os.replace(target, final)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return int(sum(sizes))


def write(source, draw, sizes: list, path) -> int:
    """The engine's writer: :func:`write_on_spark` on the session that counted ``source``."""
    return write_on_spark(source.spark, draw, sizes, path)
