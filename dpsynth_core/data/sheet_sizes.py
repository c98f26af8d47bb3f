"""How large a workbook really is, found before python-calamine loads it (each check streams, never loads).

* :func:`check_unzipped`: a zip's members (an .xlsx, .ods) are inflated a block at a time, the output
  counted and thrown away, up to ``MAX_UNZIPPED_BYTES``: a zip bomb whose directory understates what
  its members unpack to is refused by what they really unpack to, not by what the directory says.
* :func:`ods_extents`: a LibreOffice sheet's cells are placed by counts (``number-rows-repeated``,
  ``number-columns-repeated``), so its size is what ``content.xml`` spans: streamed, rows and cells
  counted per sheet, the rows and columns that hold a value giving each sheet's extent (calamine
  loads every sheet of an .ods when it opens it).
* :func:`xls_extents`: an old Excel file (.xls) is an OLE2 compound file whose ``Workbook`` stream
  holds BIFF records: each sheet's ``DIMENSIONS`` record says the rows and columns it spans (calamine
  loads every sheet of an .xls when it opens it). Read from the stream's directory and the few records
  before it, without any cell.

Each returns or refuses in one line (:class:`~dpsynth_core.errors.DataError`) with the size found.
"""

from __future__ import annotations

import re
import struct
import zipfile
import zlib

from .. import constraints
from ..errors import DataError

_BLOCK = 1 << 20


def check_unzipped(raw: bytes, archive: zipfile.ZipFile, name: str) -> None:
    """Refuse a zip whose members inflate to more than ``MAX_UNZIPPED_BYTES`` (counted, not trusted)."""
    cap, total = constraints.MAX_UNZIPPED_BYTES, 0
    for member in archive.infolist():
        total += _inflated_size(raw, member, cap - total + 1, name)
        if total > cap:
            raise DataError(
                f"{name} unpacks to more than {cap >> 20:,} MB (its zip directory says "
                f"{sum(m.file_size for m in archive.infolist()) / 2**20:,.1f} MB), more than a workbook may unpack "
                "to here: it needs more than that much memory; save the sheet as CSV"
            )


def _inflated_size(raw: bytes, member: zipfile.ZipInfo, limit: int, name: str) -> int:
    """The bytes ``member`` inflates to, counted a block at a time, stopping past ``limit``."""
    at = member.header_offset
    if raw[at : at + 4] != b"PK\x03\x04":
        raise DataError(f"{name} is a damaged zip file (a member's header is not where its directory says)")
    start = at + 30 + sum(struct.unpack_from("<HH", raw, at + 26))
    body = memoryview(raw)[start : start + member.compress_size]
    if member.compress_type == zipfile.ZIP_STORED:
        return len(body)
    if member.compress_type != zipfile.ZIP_DEFLATED:
        raise DataError(f"{name} holds a member compressed in a way workbooks are not ({member.compress_type})")
    inflater, count = zlib.decompressobj(-15), 0
    try:
        for offset in range(0, len(body), _BLOCK):
            pending = body[offset : offset + _BLOCK]
            while pending and count <= limit:
                count += len(inflater.decompress(pending, _BLOCK))
                pending = inflater.unconsumed_tail
            if count > limit or inflater.eof:
                break
    except zlib.error:
        raise DataError(f"{name} is a damaged zip file (a member cannot be inflated)") from None
    return count


_SHEET = re.compile(rb"<table:table\s[^>]*?table:name=\"([^\"]*)\"|</table:table>")
_CLOSED_ROW = re.compile(rb"<table:table-row\b([^>]*?)/>")
_CELL = re.compile(rb"<table:(?:covered-)?table-cell\b([^>]*?)(/?)>")
_REPEATED = re.compile(rb'number-(?:rows|columns)-repeated="([0-9]+)"')
_ROW_END = b"</table:table-row>"
#: Most XML one row of an .ods may take (16,384 columns of long text fit many times over).
_ROW_BYTES = 64 << 20


class _Extents:
    """The sheets' extents as ``content.xml`` is walked, one piece (up to a row's end) at a time."""

    def __init__(self):
        self.out: dict[str, tuple[int, int]] = {}
        self.sheet, self.row, self.rows, self.columns = None, 0, [0, 0], 0

    def sheets(self, text: bytes) -> None:
        from html import unescape

        for found in _SHEET.finditer(text):
            if found.group(1) is not None:
                self.sheet, self.row, self.rows, self.columns = unescape(found.group(1).decode()), 0, [0, 0], 0
            elif self.sheet is not None:
                self.out[self.sheet] = (self.rows[1] - self.rows[0], self.columns)
                self.sheet = None

    def piece(self, piece: bytes) -> None:
        at = piece.rfind(b"<table:table-row")
        head = piece if at < 0 else piece[:at]
        if b"<table:table" in head or b"</table:table>" in head:
            self.sheets(head)
        if at < 0 or self.sheet is None:
            return
        for attributes in _CLOSED_ROW.findall(head):  # rows written as one empty tag
            self.row += _repeats(attributes)
        close = piece.find(b">", at)
        times = _repeats(piece[at:close])
        width = 0 if piece[close - 1 : close] == b"/" else _row_width(piece[close + 1 :])
        if width:
            self.rows = [self.rows[0] if self.rows[1] else self.row, self.row + times]
            self.columns = max(self.columns, width)
        self.row += times


def ods_extents(archive: zipfile.ZipFile, name: str) -> dict[str, tuple[int, int]]:
    """Each sheet's ``(rows, columns)`` spanned by the cells that hold a value, from ``content.xml``
    streamed a row at a time (a run of empty repeated rows or cells, such as LibreOffice writes to a
    sheet's end, spans nothing)."""
    walk, carry = _Extents(), b""
    try:
        with archive.open("content.xml") as handle:
            while True:
                block = handle.read(_BLOCK)
                data = carry + block
                cut = data.rfind(_ROW_END) + len(_ROW_END) if block else len(data)
                if block and cut < len(_ROW_END):
                    cut = 0
                if len(data) - cut > _ROW_BYTES:
                    raise DataError(f"a row of {name} takes more than {_ROW_BYTES >> 20} MB of XML: save it as CSV")
                for piece in data[:cut].split(_ROW_END):
                    walk.piece(piece)
                carry = data[cut:]
                if not block:
                    break
    except KeyError:
        raise DataError(f"{name} holds no content.xml: it is not a LibreOffice spreadsheet") from None
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as problem:
        raise DataError(f"{name} is a damaged spreadsheet ({problem})") from None
    return walk.out


def _row_width(body: bytes) -> int:
    """How far a row's cells that hold a value reach (0: none holds one)."""
    if b"value-type" not in body and b"<text:" not in body:
        return 0
    if b"repeated" not in body:  # one cell per tag: the last one holding a value ends the row
        last = max(body.rfind(b"value-type"), body.rfind(b"<text:"))
        return body.count(b"table-cell", 0, last) - body.count(b"</table:table-cell", 0, last)
    column = width = 0
    for attributes, closed in _CELL.findall(body):
        times = _repeats(attributes)
        if b"value-type" in attributes or not closed:
            width = column + times
        column += times
    return width


def _repeats(attributes: bytes) -> int:
    found = _REPEATED.search(attributes)
    return int(found.group(1)) if found else 1


def xls_extents(raw: bytes, name: str) -> dict[str, tuple[int, int]]:
    """Each worksheet's ``(rows, columns)`` from its ``DIMENSIONS`` record (see the module docstring);
    ``{}`` when the file is not laid out as an .xls is (calamine then says what it is)."""
    try:
        stream = ole_stream(raw, ("Workbook", "Book"))
    except (struct.error, IndexError, ValueError):
        raise DataError(f"{name} is a damaged Excel file (its compound file's directory cannot be read)") from None
    if stream is None:
        return {}
    out, at = {}, 0
    sheets = []
    while at + 4 <= len(stream):  # the workbook's globals: up to their EOF record
        kind, length = struct.unpack_from("<HH", stream, at)
        body = stream[at + 4 : at + 4 + length]
        if kind == 0x0085 and len(body) >= 8 and body[5] == 0:  # BOUNDSHEET of a worksheet
            count, wide = body[6], body[7] & 1
            text = body[8 : 8 + count * (2 if wide else 1)]
            sheets.append((struct.unpack_from("<I", body)[0], text.decode("utf-16-le" if wide else "latin-1")))
        at += 4 + length
        if kind == 0x000A:
            break
    for offset, sheet in sheets:
        at = offset
        for _ in range(64):  # DIMENSIONS comes among a sheet's first records
            if at + 4 > len(stream):
                break
            kind, length = struct.unpack_from("<HH", stream, at)
            if kind == 0x0200:
                if length >= 14:
                    first, last, left, right = struct.unpack_from("<IIHH", stream, at + 4)
                else:
                    first, last, left, right = struct.unpack_from("<HHHH", stream, at + 4)
                out[sheet] = (max(last - first, 0), max(right - left, 0))
                break
            at += 4 + length
    return out


def ole_stream(raw: bytes, names: tuple[str, ...]) -> bytes | None:
    """The first of ``names`` found in an OLE2 compound file's directory, read along its sector chain."""
    if not raw.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return None
    size = 1 << struct.unpack_from("<H", raw, 0x1E)[0]
    mini_size = 1 << struct.unpack_from("<H", raw, 0x20)[0]
    directory, cutoff, mini_fat_start, difat_next, difat_count = struct.unpack_from("<I4xII4xII", raw, 0x30)
    sectors = [s for s in struct.unpack_from("<109I", raw, 0x4C) if s < 0xFFFFFFFA]
    per = size // 4
    for _ in range(difat_count):  # more FAT sectors, listed in DIFAT sectors
        block = struct.unpack_from(f"<{per}I", raw, 512 + difat_next * size)
        sectors += [s for s in block[:-1] if s < 0xFFFFFFFA]
        difat_next = block[-1]
    fat = b"".join(raw[512 + s * size : 512 + (s + 1) * size] for s in sectors)
    table = struct.unpack(f"<{len(fat) // 4}I", fat)

    def chain(start: int, unit: int, source: bytes, links) -> bytes:
        parts, seen = [], set()
        while start < 0xFFFFFFFA and start not in seen and len(seen) < len(links) + 1:
            seen.add(start)
            base = 512 + start * unit if source is raw else start * unit
            parts.append(source[base : base + unit])
            start = links[start]
        return b"".join(parts)

    entries = chain(directory, size, raw, table)
    root = entries[:128]
    for at in range(0, len(entries) - 127, 128):
        entry = entries[at : at + 128]
        length = struct.unpack_from("<H", entry, 64)[0]
        if entry[66] != 2 or entry[: max(length - 2, 0)].decode("utf-16-le", "replace") not in names:
            continue
        start, stream_size = struct.unpack_from("<II", entry, 116)
        if stream_size >= cutoff:
            return chain(start, size, raw, table)[:stream_size]
        mini = chain(struct.unpack_from("<I", root, 116)[0], size, raw, table)
        mini_fat = chain(mini_fat_start, size, raw, table)
        links = struct.unpack(f"<{len(mini_fat) // 4}I", mini_fat)
        return chain(start, mini_size, mini, links)[:stream_size]
    return None
