"""Writing a large synthetic table in chunks, so no more than one chunk is ever in memory.

``write_synthetic(path, rows, sample)`` calls ``sample(k)`` (a DataFrame of ``k`` synthetic
rows, drawn by a fitted model: post-processing, it never sees the data) for chunks of at
most ``chunk_rows`` rows and appends each to a CSV (written exactly as
``DataFrame.to_csv(path, index=False)`` writes a whole table) or a Parquet file (one row
group per chunk, one schema for the whole file). The file appears only when complete: it
is written beside its final name and renamed at the end, and removed on failure.
"""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .errors import ParameterError

FORMATS = ("csv", "parquet")
#: Rows per chunk by default: about 100 MB of a 15-column table in memory.
CHUNK_ROWS = 1_000_000


def output_format(path, fmt: str | None = None) -> str:
    """``fmt`` when given, else the format named by the file's suffix (.csv, .parquet)."""
    if fmt is None:
        suffix = Path(path).suffix.lower()
        fmt = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}.get(suffix)
        if fmt is None:
            raise ParameterError(f"cannot tell the output format from {Path(path).name!r}: "
                                 "end the name in .csv or .parquet, or choose the format")
    if fmt not in FORMATS:
        raise ParameterError(f"output format ({fmt!r}) must be one of {', '.join(FORMATS)}")
    return fmt


def chunk_sizes(rows: int, chunk_rows: int) -> list[int]:
    """The sizes of the chunks :func:`write_synthetic` asks for, in order (an empty table: one chunk of 0 rows)."""
    return [min(int(chunk_rows), int(rows) - start) for start in range(0, int(rows), int(chunk_rows))] or [0]


def _arrow(chunk: pd.DataFrame, schema: pa.Schema | None) -> pa.Table:
    table = pa.Table.from_pandas(chunk, preserve_index=False)
    if schema is None:
        # A column all missing in the first chunk has no type yet: text is what it can only be.
        fields = [pa.field(f.name, pa.string()) if pa.types.is_null(f.type) else f.remove_metadata()
                  for f in table.schema]
        return table.cast(pa.schema(fields))
    return table.cast(schema)


def write_synthetic(path, rows: int, sample, *, chunk_rows: int = CHUNK_ROWS, fmt: str | None = None,
                    columns: list | None = None) -> int:
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
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(handle)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temp, 0o666 & ~umask)  # the permissions a plain open() would give the file
    written, writer, schema, pending = 0, None, None, None
    sizes = chunk_sizes(rows, chunk_rows)  # an empty release still gets its header (CSV) or schema (Parquet)
    # Parquet: a chunk is encoded and compressed by Arrow (without Python's lock) in a second
    # thread while the next chunk is drawn; at most one chunk waits.
    background = ThreadPoolExecutor(max_workers=1) if fmt == "parquet" else None
    try:
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
                table = _arrow(chunk, schema)
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
        Path(temp).unlink(missing_ok=True)
        raise
    finally:
        if background is not None:
            background.shutdown(wait=True)
    return written
