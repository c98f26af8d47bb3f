"""A CSV file for the engines: read by :func:`~dpsynth_core.data.tables.read_table`'s own rule, in chunks.

``read_table`` reads one record per line (its module docstring states the per-record rule:
a line that does not decode or parse becomes a row of missing cells; the encoding and the
delimiter are the publisher's choice or come from the byte-order mark and the header line).
Because the rule looks at one line at a time, the file can be cut at line ends: each chunk
of about ``CHUNK_BYTES``, with the header line (and its byte-order mark) in front, goes
through ``read_table`` itself, and its rows are appended to a temporary Parquet file of
text columns that the engine then reads out of core. So the engines read a CSV exactly as
the in-memory path does, by construction, with memory bounded by one chunk. A file without a
header line is cut so too: its first chunk is read as the whole file is, and each later one is
led by a header line of placeholders, so that every line of it is read as a record.

UTF-16 and UTF-32 files (two- and four-byte line ends) are read whole, as in memory.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import DataError
from . import file_bytes, tables
from .header_names import NO_HEADER

CHUNK_BYTES = 32 << 20


@dataclass
class CsvFile:
    """A CSV converted for an engine: ``path`` is a temporary Parquet file of its text cells."""

    path: Path
    columns: list
    encoding: str
    delimiter: str
    lines: dict = field(default_factory=dict)

    def cleanup(self) -> None:
        self.path.unlink(missing_ok=True)


def _chunks(handle, first: bytes, cr: bool = False):
    """Byte chunks of the file after its header line, each ending at a line end (``cr``: the file ends its lines
    with carriage returns alone, :func:`~.file_bytes.cr_line_ends`, read as line feeds)."""
    carry = first
    while True:
        block = handle.read(CHUNK_BYTES)
        if cr:
            block = block.replace(b"\r", b"\n")
        if not block:
            if carry:
                yield carry
            return
        data = carry + block
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
            continue
        yield data[: cut + 1]
        carry = data[cut + 1 :]


def _header_line(body: bytes) -> int:
    """The header's line number by ``read_table``'s rule, in the bytes after a byte-order mark: the first line that
    holds anything, or the one after it that does when it is Excel's ``sep=;`` (:func:`~.tables.excel_sep`). Every
    chunk is led by the lines down to it. Past the bytes given: a number beyond them (the file is read whole)."""
    lines = body.split(b"\n")[:-1]  # whole lines only
    held = [i for i, line in enumerate(lines) if line.rstrip(b"\r")]
    if held and tables.excel_sep(lines[held[0]].decode("latin-1")) is not None:
        held = held[1:]
    return held[0] + 1 if held else len(lines) + 2


def _header_end(body: bytes, line: int, rows: int) -> int:
    """The line number of the header's last line: ``line`` for a header of one line, else the ``rows - 1``-th line
    after it that holds anything (``read_table``'s rule), or a number beyond the bytes given (read whole)."""
    if rows == 1:
        return line
    lines = body.split(b"\n")[:-1]  # whole lines only
    held = [i + 1 for i in range(line, len(lines)) if lines[i].rstrip(b"\r")]
    return held[rows - 2] if len(held) >= rows - 1 else len(lines) + 2


def _line_end(head: bytes, line: int) -> int:
    """Where the ``line``-th line of ``head`` ends (its line feed), or -1 when it ends past the head."""
    end = -1
    for _ in range(line):
        end = head.find(b"\n", end + 1)
        if end < 0:
            return -1
    return end


def _add_lines(total: dict, lines: dict) -> None:
    for key, value in lines.items():
        total[key] = total.get(key, 0) + int(value)


def csv_frames(
    path,
    *,
    encoding: str | None = None,
    delimiter: str | None = None,
    header_row: int | None = None,
    header_rows: int | None = None,
    names: tuple[str, ...] | None = None,
):
    """``(frame, info)`` of each chunk of a local CSV, read by ``read_table``'s own rule (see the
    module docstring); a file with no records raises ``read_table``'s error for the whole file.
    ``header_row``: the header's line number (the lines above it, and it, lead every chunk); ``header_rows``: how
    many lines the header spans, and ``names`` the columns' for a file without one (:func:`~.tables.read_table`'s)."""
    path = Path(path)
    name = path.name
    if not path.exists():
        raise DataError(f"file not found: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a folder, not a file")
    if not path.is_file():
        raise DataError(f"{path} is not a regular file (a device or a pipe)")
    found_any = False
    with path.open("rb") as handle:
        head = handle.read(1 << 16)
        found, skip = file_bytes.byte_order_mark(head)
        chosen = file_bytes.check_encoding(encoding)
        wide = file_bytes.is_wide(chosen or found or "")
        cr = not wide and file_bytes.cr_line_ends(head[skip:])
        if cr:  # lines ended by a carriage return alone: read as line feeds, chunk by chunk
            head = head.replace(b"\r", b"\n")
        line = header_row or _header_line(head[skip:])
        headless = header_rows == NO_HEADER and not wide
        end = -1 if wide or headless else _line_end(head, _header_end(head[skip:], line, header_rows or 1))
        reading = {"header_row": header_row, "header_rows": header_rows, "names": names}
        columns = None
        if headless:  # no header line: the file's own chunks, the first read as it is (see below)
            parts, header = _chunks(handle, head, cr), b""
        elif end < 0:  # a wide encoding or a header line longer than the head: read the file whole
            parts = [head + (handle.read().replace(b"\r", b"\n") if cr else handle.read())]
            header = b""
        else:
            header, rest = head[: end + 1], head[end + 1 :]
            parts = _chunks(handle, rest, cr)
        for part in parts:
            try:
                frame, info = tables.read_table(
                    header + part, name=name, encoding=encoding, delimiter=delimiter, **reading
                )
            except DataError as exc:
                if (header or columns is None and headless) and ("no data rows" in str(exc) or "is empty" in str(exc)):
                    continue  # a chunk of blank lines only: no records in it
                raise
            delimiter = delimiter or {"tab": "\t"}.get(info["delimiter"], info["delimiter"])
            if headless and columns is None:
                # Its first chunk named the columns (the names given, or by the number of fields of its first
                # record, read_table's rule for the whole file). Every later chunk is led by the byte-order mark
                # and a header line of placeholders, so that each of its lines is read as a record (never as a
                # header, nor as Excel's "sep=" line), and its columns are then named so.
                columns = list(info["columns"])
                gap = file_bytes.check_delimiter(delimiter)  # a character ("tab" given as its word)
                gap = " " if gap == file_bytes.SPACES else gap
                header = head[:skip] + gap.join(f"c{i}" for i in range(len(columns))).encode("ascii") + b"\n"
                reading = {}
            elif columns is not None:
                frame.columns, info["columns"] = columns, columns
            found_any = True
            yield frame, info
    if not found_any:
        # raises the whole-file error
        reading = {"header_row": header_row, "header_rows": header_rows, "names": names}
        tables.read_table(header, name=name, encoding=encoding, delimiter=delimiter, **reading)
        raise DataError(f"{name} has a header but no data rows")


def csv_to_parquet(
    path,
    *,
    encoding: str | None = None,
    delimiter: str | None = None,
    temp_directory: str | None = None,
    header_row: int | None = None,
    header_rows: int | None = None,
    names: tuple[str, ...] | None = None,
) -> CsvFile:
    """Read a local CSV by ``read_table``'s rule, chunk by chunk, into a temporary Parquet file (``header_row``,
    ``header_rows``, ``names``: :func:`csv_frames`')."""
    header = {"header_row": header_row, "header_rows": header_rows, "names": names}
    frames = csv_frames(path, encoding=encoding, delimiter=delimiter, **header)
    first = next(frames)  # the file's own errors before any temporary file exists
    handle_fd, target = tempfile.mkstemp(suffix=".parquet", prefix="dpsynth-csv-", dir=temp_directory)
    os.close(handle_fd)
    target = Path(target)
    writer, lines, columns, used = None, {}, None, None
    try:
        for frame, info in itertools.chain([first], frames):
            columns, used = info["columns"], (info["encoding"], info["delimiter"])
            _add_lines(lines, info["lines"])
            table = pa.Table.from_pandas(frame, preserve_index=False).cast(
                pa.schema([pa.field(c, pa.string()) for c in frame.columns])
            )
            if writer is None:
                writer = pq.ParquetWriter(target, table.schema)
            writer.write_table(table)
        writer.close()
        writer = None
    except BaseException:
        if writer is not None:
            writer.close()
        target.unlink(missing_ok=True)
        raise
    return CsvFile(target, columns, used[0], used[1], lines)
