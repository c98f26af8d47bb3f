"""Writing a large synthetic table in chunks, so no more than one chunk is ever in memory.

``write_synthetic(path, rows, sample)`` calls ``sample(k)`` (a DataFrame of ``k`` synthetic
rows, drawn by a fitted model: post-processing, it never sees the data) for chunks of at
most ``chunk_rows`` rows and appends each to a CSV (written exactly as
``DataFrame.to_csv(path, index=False)`` writes a whole table) or a Parquet file (one row
group per chunk, one schema for the whole file). The file appears only when complete: it
is written beside its final name and renamed at the end, and removed on failure.

One rule names the format (:func:`output_format`, used by ``synthesize`` and the command
line alike): a name ending in ``.parquet``, ``.pq`` or ``.parq`` (any case) is Parquet; ``.xlsx``,
``.sav``, ``.dta`` and ``.xpt`` are the publisher's own formats (below); a name whose suffix promises another
format the writer does not produce (a compressed file, JSON, ...) is refused, since a CSV under that
name would not open; any other name (``.csv``, ``.txt``, ``.tsv``, ``.dat``, no suffix) is CSV.

**The publisher's own formats** (:data:`WHOLE_FORMATS`) are written whole, once the table is drawn in
memory: :mod:`.own_formats`.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from ..data.arrow_chunks import arrow_chunk, parquet_writer
from ..data.parts import PARQUET_SUFFIXES
from ..errors import ParameterError

#: Formats written whole from memory with the card and the codebook, by the suffix that names each.
WHOLE_FORMATS = {".xlsx": "xlsx", ".sav": "sav", ".dta": "dta", ".xpt": "xpt"}
FORMATS = ("csv", "parquet", *WHOLE_FORMATS.values())
#: Rows per chunk by default: about 100 MB of a 15-column table in memory.
CHUNK_ROWS = 1_000_000
#: Cells of a CSV chunk turned into text at once (:func:`csv_pieces`; about 100 MB of text and lists).
CSV_PIECE_CELLS = 2_000_000
#: Suffixes that promise a format the writer does not produce (refused rather than written as CSV).
OTHER_FORMAT_SUFFIXES = {
    "a compressed file": (".gz", ".gzip", ".bz2", ".xz", ".zst", ".zstd", ".lz4", ".zip", ".7z", ".tar", ".tgz"),
    "a spreadsheet": (".xlsm", ".xls", ".ods"),
    "a page or a script": (".html", ".htm", ".pdf", ".py"),
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
        ".zsav",
        ".por",
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
        if suffix in WHOLE_FORMATS:
            return WHOLE_FORMATS[suffix]
        for kind, suffixes in OTHER_FORMAT_SUFFIXES.items():
            if suffix in suffixes:
                raise ParameterError(
                    f"cannot write {Path(path).name!r}: {suffix} names {kind}, and the synthetic "
                    f"table is written as CSV (.csv or any other name), Parquet "
                    f"({', '.join(PARQUET_SUFFIXES)}) or {', '.join(WHOLE_FORMATS)}"
                )
        return "csv"
    if fmt not in FORMATS:
        raise ParameterError(f"output format ({fmt!r}) must be one of {', '.join(FORMATS)}")
    return fmt


def chunk_sizes(rows: int, chunk_rows: int) -> list[int]:
    """The sizes of the chunks :func:`write_synthetic` asks for, in order (an empty table: one chunk of 0 rows)."""
    return [min(int(chunk_rows), int(rows) - start) for start in range(0, int(rows), int(chunk_rows))] or [0]


def write_synthetic(
    path, rows: int, sample, *, chunk_rows: int = CHUNK_ROWS, fmt: str | None = None, columns: list | None = None
) -> int:
    """Write ``rows`` rows drawn by ``sample(k)`` to ``path`` in chunks; returns the rows written.

    ``columns``: the expected column names in order (default: those of the first chunk);
    every chunk must have exactly these. For Parquet, ``sample(k)`` may return an Arrow table
    (``Model.chunk_sampler(arrow=True)``), written as it is.
    """
    fmt = output_format(path, fmt)
    if fmt in WHOLE_FORMATS.values():
        raise ParameterError(f"a .{fmt} file is written whole, after the draw, by write_whole (not in chunks)")
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
            arrow = isinstance(chunk, pa.Table) and fmt == "parquet"  # drawn as Arrow (Model.chunk_sampler)
            if not (arrow or isinstance(chunk, pd.DataFrame)) or len(chunk) != size:
                raise ValueError(f"sample({size}) must return a DataFrame of {size} rows")
            names = chunk.column_names if arrow else list(chunk.columns)
            if columns is None:
                columns = names
            if names != list(columns):
                raise ValueError(f"sample({size}) returned columns {names}, expected {list(columns)}")
            if fmt == "csv":  # what ``chunk.to_csv(temp, index=False, header=..., mode=...)`` writes, faster
                step = max(1, CSV_PIECE_CELLS // max(1, len(columns)))
                with open(temp, "w" if written == 0 else "a", encoding="utf-8", newline="") as stream:
                    stream.writelines(csv_pieces(chunk, header=written == 0, piece_rows=step))
            else:
                table = (chunk if schema is None else chunk.cast(schema)) if arrow else arrow_chunk(chunk, schema)
                del chunk
                if writer is None:
                    schema = table.schema
                    writer = parquet_writer(temp, schema)
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


def csv_text(table: pd.DataFrame, *, header: bool = True) -> str:
    """``table.to_csv(index=False, header=header)``, character for character, a few times faster on the tables
    the methods make (:func:`csv_pieces`, in one piece)."""
    return "".join(csv_pieces(table, header=header, piece_rows=max(1, len(table))))


def csv_pieces(table: pd.DataFrame, *, header: bool = True, piece_rows: int = 10_000):
    """``table.to_csv(index=False, header=header)`` as consecutive pieces of text (at most ``piece_rows`` rows
    each; the header with the first), character for character, a few times faster on the tables the methods
    make (columns of text and of whole numbers, missing cells empty). Those columns skip pandas' formatting:
    each column's distinct values are found once, each cell is its text (or ``str`` of its integer); when no
    cell needs quoting the rows are joined directly, else they go through the csv module's writer, which
    pandas itself ends in. A table with any other column (floats, dates, booleans, mixed objects) is left to
    pandas, in one piece."""
    columns, quoting = [], len(table.columns) < 2  # a single empty field is written quoted
    for name in table.columns:
        column = table[name]
        if isinstance(column.dtype, pd.api.extensions.ExtensionDtype) and column.dtype.kind not in "iu":
            yield table.to_csv(index=False, header=header)
            return
        text = column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty")
        if column.dtype.kind not in "iu" and not text:
            yield table.to_csv(index=False, header=header)
            return
        codes, distinct = pd.factorize(column)  # missing: code -1, the last label below
        labels = [v if text else str(v) for v in distinct.tolist()]
        quoting = quoting or any(any(c in v for c in _SPECIAL) for v in labels)
        columns.append((codes, np.array([*labels, ""], dtype=object)))
    for start in range(0, max(len(table), 1), piece_rows):
        out = io.StringIO()
        writer = csv.writer(out, lineterminator=os.linesep, quoting=csv.QUOTE_MINIMAL)
        if header and start == 0:
            writer.writerow(table.columns)
        cells = [labels[codes[start : start + piece_rows]].tolist() for codes, labels in columns]
        if quoting:
            writer.writerows(zip(*cells))
        elif cells and len(table):
            out.write(os.linesep.join(map(",".join, zip(*cells))) + os.linesep)
        yield out.getvalue()


#: Characters that make the csv writer quote a field (or may, by Python version).
_SPECIAL = (",", '"', "\n", "\r")
