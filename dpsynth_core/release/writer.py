"""Writing a large synthetic table in chunks, so no more than one chunk is ever in memory.

``write_synthetic(path, rows, sample)`` calls ``sample(k)`` (a DataFrame of ``k`` synthetic
rows, drawn by a fitted model: post-processing, it never sees the data) for chunks of at
most ``chunk_rows`` rows and appends each to a CSV (written exactly as
``DataFrame.to_csv(path, index=False)`` writes a whole table) or a Parquet file (one row
group per chunk, one schema for the whole file). The file appears only when complete: it
is written beside its final name and renamed at the end, and removed on failure.

One rule names the format (:func:`output_format`, used by ``synthesize`` and the command
line alike): a name ending in ``.parquet``, ``.pq`` or ``.parq`` (any case) is Parquet; a
name whose suffix promises another format the writer does not produce (a compressed file,
a spreadsheet, JSON, ...) is refused, since a CSV under that name would not open; any other
name (``.csv``, ``.txt``, ``.tsv``, ``.dat``, no suffix) is CSV.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..data.parts import PARQUET_SUFFIXES, is_remote
from ..errors import ParameterError

FORMATS = ("csv", "parquet")
#: Rows per chunk by default: about 100 MB of a 15-column table in memory.
CHUNK_ROWS = 1_000_000
#: Suffixes that promise a format the writer does not produce (refused rather than written as CSV).
OTHER_FORMAT_SUFFIXES = {
    "a compressed file": (".gz", ".gzip", ".bz2", ".xz", ".zst", ".zstd", ".lz4", ".zip", ".7z", ".tar", ".tgz"),
    "a spreadsheet": (".xlsx", ".xlsm", ".xls", ".ods"),
    "another table format": (
        ".json",
        ".jsonl",
        ".ndjson",
        ".feather",
        ".arrow",
        ".ipc",
        ".orc",
        ".avro",
        ".pkl",
        ".pickle",
        ".h5",
        ".hdf5",
        ".sqlite",
        ".db",
        ".dta",
        ".sav",
        ".sas7bdat",
    ),
}


def output_format(path, fmt: str | None = None) -> str:
    """``fmt`` when given, else the format the file's name says (the module docstring's rule):
    Parquet for ``PARQUET_SUFFIXES``, a refusal for a suffix of another format, else CSV."""
    if fmt is None:
        suffix = Path(path).suffix.lower()
        if suffix in PARQUET_SUFFIXES:
            return "parquet"
        for kind, suffixes in OTHER_FORMAT_SUFFIXES.items():
            if suffix in suffixes:
                raise ParameterError(
                    f"cannot write {Path(path).name!r}: {suffix} names {kind}, and the synthetic "
                    f"table is written as CSV (.csv or any other name) or Parquet "
                    f"({', '.join(PARQUET_SUFFIXES)})"
                )
        return "csv"
    if fmt not in FORMATS:
        raise ParameterError(f"output format ({fmt!r}) must be one of {', '.join(FORMATS)}")
    return fmt


def chunk_sizes(rows: int, chunk_rows: int) -> list[int]:
    """The sizes of the chunks :func:`write_synthetic` asks for, in order (an empty table: one chunk of 0 rows)."""
    return [min(int(chunk_rows), int(rows) - start) for start in range(0, int(rows), int(chunk_rows))] or [0]


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


def write_synthetic(
    path, rows: int, sample, *, chunk_rows: int = CHUNK_ROWS, fmt: str | None = None, columns: list | None = None
) -> int:
    """Write ``rows`` rows drawn by ``sample(k)`` to ``path`` in chunks; returns the rows written.

    ``columns``: the expected column names in order (default: those of the first chunk);
    every chunk must have exactly these.
    """
    fmt = output_format(path, fmt)
    if int(rows) != rows or rows < 0:
        raise ParameterError(f"rows ({rows}) must be a whole number >= 0")
    if int(chunk_rows) != chunk_rows or chunk_rows < 1:
        raise ParameterError(f"chunk_rows ({chunk_rows}) must be a whole number >= 1")
    path = Path(path)
    if not path.parent.is_dir():
        raise ParameterError(f"cannot write {path}: the folder {path.parent} does not exist")
    written, writer, schema, pending, temp = 0, None, None, None, None
    sizes = chunk_sizes(rows, chunk_rows)  # an empty release still gets its header (CSV) or schema (Parquet)
    # Parquet: a chunk is encoded and compressed by Arrow (without Python's lock) in a second
    # thread while the next chunk is drawn; at most one chunk waits.
    background = ThreadPoolExecutor(max_workers=1) if fmt == "parquet" else None
    try:  # the temporary file is made inside: a SIGTERM (raised as an exception) right after leaves none
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        os.close(handle)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)  # the permissions a plain open() would give the file
        for size in sizes:
            chunk = sample(size)
            if not isinstance(chunk, pd.DataFrame) or len(chunk) != size:
                raise ValueError(f"sample({size}) must return a DataFrame of {size} rows")
            if columns is None:
                columns = list(chunk.columns)
            if list(chunk.columns) != list(columns):
                raise ValueError(f"sample({size}) returned columns {list(chunk.columns)}, expected {list(columns)}")
            if fmt == "csv":
                chunk.to_csv(temp, index=False, header=written == 0, mode="w" if written == 0 else "a")
            else:
                table = arrow_chunk(chunk, schema)
                del chunk
                if writer is None:
                    schema = table.schema
                    writer = pq.ParquetWriter(temp, schema, compression="zstd")
                if pending is not None:
                    pending.result()
                pending = background.submit(writer.write_table, table)
            written += size
        if pending is not None:
            pending.result()
            pending = None
        if writer is not None:
            writer.close()
            writer = None
        os.replace(temp, path)
    except BaseException:
        if pending is not None:
            pending.exception()  # wait for it before closing the file
        if writer is not None:
            writer.close()
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
        raise
    finally:
        if background is not None:
            background.shutdown(wait=True)
    return written


#: The stream a Spark release's schema probe is drawn from: no chunk uses it.
PROBE_STREAM = 2**64 - 1
PROBE_ROWS = 10_000


def check_spark_target(path) -> Path | None:
    """The local folder a Spark release will create (None: a cluster's storage); refused when it exists."""
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

    final = check_spark_target(path)
    local = final is not None
    probe = arrow_chunk(draw(PROBE_STREAM, min(PROBE_ROWS, max(sizes))), None)
    schema = pa.schema([pa.field(f.name, pa.string()) if pa.types.is_large_string(f.type) else f for f in probe.schema])
    plan = list(sizes)

    def draw_parts(batches):
        for batch in batches:
            for index in batch.column(0).to_pylist():
                yield from arrow_chunk(draw(index, plan[index]), schema).to_batches()

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


def csv_text(table: pd.DataFrame) -> str:
    """``table.to_csv(index=False)``, character for character, a few times faster on the tables the
    methods make (columns of text and of whole numbers, missing cells empty). Those columns skip
    pandas' formatting: each cell is its text (or ``str`` of its integer); when no cell needs
    quoting the rows are joined directly, else they go through the csv module's writer, which
    pandas itself ends in. A table with any other column (floats, dates, booleans, mixed objects)
    is left to pandas."""
    columns, quoting = [], len(table.columns) < 2  # a single empty field is written quoted
    for name in table.columns:
        column = table[name]
        if isinstance(column.dtype, pd.api.extensions.ExtensionDtype) and column.dtype.kind not in "iu":
            return table.to_csv(index=False)
        text = column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty")
        if column.dtype.kind not in "iu" and not text:
            return table.to_csv(index=False)
        codes, distinct = pd.factorize(column)  # missing: code -1, the last label below
        labels = [v if text else str(v) for v in distinct.tolist()]
        quoting = quoting or any(any(c in v for c in _SPECIAL) for v in labels)
        columns.append(np.array([*labels, ""], dtype=object)[codes].tolist())
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=os.linesep, quoting=csv.QUOTE_MINIMAL)
    writer.writerow(table.columns)
    if quoting:
        writer.writerows(zip(*columns))
    elif columns and len(table):
        out.write(os.linesep.join(map(",".join, zip(*columns))) + os.linesep)
    return out.getvalue()


#: Characters that make the csv writer quote a field (or may, by Python version).
_SPECIAL = (",", '"', "\n", "\r")
