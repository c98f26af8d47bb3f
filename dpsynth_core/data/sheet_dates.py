"""Dates before 1900 in a workbook, which calamine cannot read.

Excel has no date before 1 January 1900, but LibreOffice, Google Sheets, openpyxl and pandas store one (in an
.xlsx or an .xls) as a negative serial number of days from 30 December 1899 (xlwt's own dates a day later; a
workbook that counts from 1904, from 1 January 1904), and calamine reads such a cell, whose format shows a date,
as the time 00:00:00 (or as its time of day). The cells found here are those
of a date format (Excel's own, :data:`DATE_FORMATS`, or a format of the file's own that shows a day, a month, a
year, an hour or a second) that store a negative number: an .xlsx's from its sheet's XML as
:mod:`.workbooks` streams it (its styles from :func:`xlsx_date_styles`), an .xls's from its BIFF records
(:func:`xls_negative_dates`). :func:`restore_dates` puts their dates back in calamine's grid, where calamine
read a time. An .ods stores a date as its text (``1875-04-26``), which calamine reads as it is.
"""

from __future__ import annotations

import datetime as dt
import re
import struct
import zipfile

from .sheet_sizes import ole_stream

#: Excel's own number formats that show a date or a time (ECMA-376, 18.8.30).
DATE_FORMATS = {*range(14, 23), *range(27, 37), *range(45, 48), *range(50, 59)}
#: Day 0 of the serial dates before 1900 (LibreOffice's, Google Sheets', openpyxl's and pandas').
SERIAL_EPOCH = dt.datetime(1899, 12, 30)
#: Days from :data:`SERIAL_EPOCH` to day 0 of a workbook that counts from 1904 (an old Mac Excel's), 1 January 1904.
FROM_1904 = 1462


def shows_a_date(code: str) -> bool:
    """Whether a number format of the file's own shows a date or a time: a day, month, year, hour or second once
    its quoted text, its escaped characters and its bracketed parts (a colour, a locale) are set aside.

    >>> [shows_a_date(c) for c in ("yyyy-mm-dd", "[$-409]d-mmm", "h:mm", "#,##0.00 [$€]", '0.0 "days"', "General")]
    [True, True, True, False, False, False]
    """
    shown = re.sub(r'"[^"]*"|\[[^\]]*\]|\\.', "", code).lower()
    return shown != "general" and re.search(r"[ymdhs]", shown) is not None


def xlsx_date_styles(archive: zipfile.ZipFile) -> set[bytes]:
    """The cell styles of an .xlsx (their indices in ``styles.xml``'s ``cellXfs``, as a sheet's ``s`` attribute
    names them) whose number format shows a date or a time."""
    try:
        styles = archive.read("xl/styles.xml").decode("utf-8", "replace")
    except KeyError:
        return set()
    from html import unescape

    own = re.findall(r'<(?:\w+:)?numFmt\b[^>]*?numFmtId="([0-9]+)"[^>]*?formatCode="([^"]*)"', styles)
    dated = DATE_FORMATS | {int(number) for number, code in own if shows_a_date(unescape(code))}
    cells = re.search(r"<(?:\w+:)?cellXfs\b.*?</(?:\w+:)?cellXfs>", styles, re.S)
    formats = re.findall(r"<(?:\w+:)?xf\b([^>]*)", cells.group(0)) if cells else []
    found = set()
    for index, attributes in enumerate(formats):
        number = re.search(r'numFmtId="([0-9]+)"', attributes)
        if number and int(number.group(1)) in dated:
            found.add(str(index).encode())
    return found


def xlsx_days_shift(archive: zipfile.ZipFile) -> int:
    """What to add to an .xlsx's serial numbers to count days from :data:`SERIAL_EPOCH`: :data:`FROM_1904` when its
    workbook counts from 1904 (``date1904``), else 0."""
    try:
        book = archive.read("xl/workbook.xml")
    except KeyError:
        return 0
    return FROM_1904 if re.search(rb'\bdate1904="(?:1|true)"', book) else 0


def _rk(value: int) -> float:
    """A BIFF RK number: a 30-bit integer or the top 30 bits of a double, divided by 100 when its bit 0 says so.

    >>> [_rk(((-9014 << 2) | 2) & 0xFFFFFFFF), _rk(((-1234 << 2) | 3) & 0xFFFFFFFF), _rk(0xBFE00000)]
    [-9014.0, -12.34, -0.5]
    """
    number = (
        float(value >> 2 if value < 1 << 31 else (value >> 2) - (1 << 30))
        if value & 2
        else struct.unpack("<d", struct.pack("<Q", (value & 0xFFFFFFFC) << 32))[0]
    )
    return number / 100 if value & 1 else number


def xls_negative_dates(raw: bytes, sheet: str) -> dict:
    """The cells of an .xls sheet in a date format that store a negative number, by (row, column) from 0, each as
    days from :data:`SERIAL_EPOCH` (its ``DATEMODE`` says whether it counts from 1904): its
    ``NUMBER``, ``RK``, ``MULRK`` and ``FORMULA`` records (a formula's cached number), read as the module docstring
    says; ``{}`` when the file holds no date format, or is not laid out as an .xls is."""
    try:
        stream = ole_stream(raw, ("Workbook", "Book"))
        return _xls_records(stream, sheet) if stream is not None else {}
    except (struct.error, IndexError, ValueError):  # a damaged file: calamine says what it is
        return {}


def _xls_records(stream: bytes, sheet: str) -> dict:
    own, styles, offset, shift, at = set(), [], None, 0, 0
    while at + 4 <= len(stream):  # the workbook's globals, up to their EOF record
        kind, length = struct.unpack_from("<HH", stream, at)
        body = stream[at + 4 : at + 4 + length]
        if kind == 0x041E and len(body) >= 5:  # FORMAT: its number and its code
            count, wide = struct.unpack_from("<H", body, 2)[0], body[4] & 1
            code = body[5 : 5 + count * (2 if wide else 1)].decode("utf-16-le" if wide else "latin-1", "replace")
            if shows_a_date(code):
                own.add(struct.unpack_from("<H", body)[0])
        elif kind == 0x0022 and len(body) >= 2:  # DATEMODE: 1 when the workbook counts from 1904
            shift = FROM_1904 if struct.unpack_from("<H", body)[0] == 1 else 0
        elif kind == 0x00E0 and len(body) >= 4:  # XF: a cell style, by its number format
            styles.append(struct.unpack_from("<H", body, 2)[0])
        elif kind == 0x0085 and len(body) >= 8:  # BOUNDSHEET: where the sheet's records start
            count, wide = body[6], body[7] & 1
            if body[8 : 8 + count * (2 if wide else 1)].decode("utf-16-le" if wide else "latin-1", "replace") == sheet:
                offset = struct.unpack_from("<I", body)[0]
        at += 4 + length
        if kind == 0x000A:
            break
    dated = {i for i, number in enumerate(styles) if number in DATE_FORMATS | own}
    if not dated or offset is None:
        return {}
    found, at = {}, offset
    while at + 4 <= len(stream):
        kind, length = struct.unpack_from("<HH", stream, at)
        if kind in (0x0203, 0x0006) and length >= 14:  # NUMBER, FORMULA (its cached number unless it says not)
            row, column, style = struct.unpack_from("<HHH", stream, at + 4)
            if style in dated and not (kind == 0x0006 and stream[at + 16 : at + 18] == b"\xff\xff"):
                number = struct.unpack_from("<d", stream, at + 10)[0]
                if number < 0:
                    found[row, column] = number + shift
        elif kind == 0x027E and length >= 10:  # RK
            row, column, style, value = struct.unpack_from("<HHHI", stream, at + 4)
            if style in dated and (number := _rk(value)) < 0:
                found[row, column] = number + shift
        elif kind == 0x00BD and length >= 12:  # MULRK: a run of RK cells in one row
            row, first = struct.unpack_from("<HH", stream, at + 4)
            for k in range((length - 6) // 6):
                style, value = struct.unpack_from("<HI", stream, at + 8 + 6 * k)
                if style in dated and (number := _rk(value)) < 0:
                    found[row, first + k] = number + shift
        elif kind == 0x000A:  # the sheet's EOF
            break
        at += 4 + length
    return found


def restore_dates(grid: list, negative: dict, first_row: int, first_column: int) -> None:
    """Each cell of ``negative`` (by (row, column) from 0, as days from :data:`SERIAL_EPOCH`) that calamine read as a
    time of day, in ``grid`` (its
    rows from ``first_row``, its columns from ``first_column``), becomes its date, and its time of day if it has one,
    in place; a negative number read as a number is left alone."""
    for (row, column), serial in negative.items():
        i, j = row - first_row, column - first_column
        if 0 <= i < len(grid) and 0 <= j < len(grid[i]) and isinstance(grid[i][j], dt.time):
            try:
                moment = SERIAL_EPOCH + dt.timedelta(milliseconds=round(serial * 86_400_000))  # as calamine rounds
            except (OverflowError, ValueError):  # before the year 1, or no number: left as calamine read it
                continue
            grid[i][j] = moment.date() if moment.time() == dt.time() else moment
