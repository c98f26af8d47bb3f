"""Spreadsheets (.xlsx, .xlsm, .xls, .ods): one sheet read as a table, read with python-calamine.

* The sheet is chosen by name (the first by default); :func:`sheet_names` lists the sheets from
  the workbook's directory without reading any cell.
* The header is one row, numbered as the spreadsheet numbers it (1 = the sheet's first row;
  default: the first row that holds anything). Rows above it (a title) are skipped, so are empty
  rows. Header cells are named as the CSV reader names them
  (:func:`~dpsynth_core.data.header_names.name_columns`): an empty cell ``Unnamed: 2``, a repeated name
  ``Income.1``; a merged header cell names every column it spans (``Income``, ``Income.1``).
* Typed cells are kept as their values and written as canonical text (:mod:`.typed_cells`); a date before 1900,
  stored as a negative serial number, is read as its date (:mod:`.sheet_dates`).

Hostile files end with one line (:class:`~dpsynth_core.errors.DataError`), before calamine loads the
workbook: a zip whose members would unpack to more than ``MAX_UNZIPPED_BYTES`` (from the zip's
directory, then by inflating each member a block at a time, the output counted and thrown away: a
directory that understates is caught; :mod:`.sheet_sizes`); a workbook encrypted with a password; a
sheet spanning more than ``MAX_SHEET_CELLS`` cells, refused with its size (an .xlsx's chosen sheet
from its streamed XML; every sheet of an .ods from its streamed ``content.xml`` and of an .xls from
its ``DIMENSIONS`` records, since calamine loads all of theirs on opening); a formula with no saved
value (a file written by a program that does not calculate: its cell would read as empty).
"""

from __future__ import annotations

import io
import re
import zipfile

import pandas as pd

from .. import constraints
from ..errors import DataError
from ..wording import counted
from .header_names import NO_HEADER, join_header_rows, name_columns, numbered_columns
from .sheet_dates import restore_dates, xls_negative_dates, xlsx_date_styles, xlsx_days_shift
from .sheet_sizes import check_unzipped, ods_extents, xls_extents
from .typed_cells import TEXT_DTYPE, cells_text, drop_empty_rows

_CELL_COLUMN = re.compile(rb'<c\b[^>]*?\sr="([A-Z]{1,3})[0-9]')
_ROW_NUMBER = re.compile(rb'<row\b[^>]*?\sr="([0-9]{1,7})"')
_CELL = re.compile(rb"<c\b([^>]*?)(?:/>|>(.*?)</c>)", re.S)
_SCAN_BYTES = 8 << 20
#: A cell whose stored value is negative: its attributes and its value (a formula's cached value included).
_NEGATIVE = re.compile(
    rb"<c\b([^>]*)>(?:<f\b[^>]*/>|<f\b[^>]*>[^<]*</f>)?<v>(-(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)</v>"
)
_REFERENCE = re.compile(rb'\sr="([A-Z]{1,3})([0-9]{1,7})"')
_STYLE = re.compile(rb'\ss="([0-9]+)"')


def _column_number(letters: bytes) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number


def _zip(raw: bytes, name: str) -> zipfile.ZipFile | None:
    if not raw.startswith(b"PK\x03\x04"):
        return None
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        raise DataError(f"{name} is a damaged zip file (truncated or not a workbook)") from None
    total = sum(m.file_size for m in members)
    if total > constraints.MAX_UNZIPPED_BYTES:
        raise DataError(
            f"{name} would unpack to {total / 2**20:,.0f} MB, more than the "
            f"{constraints.MAX_UNZIPPED_BYTES >> 20:,} MB a workbook may unpack to here"
        )
    return archive


def _is_ods(archive: zipfile.ZipFile) -> bool:
    names = archive.namelist()
    return "content.xml" in names and "xl/workbook.xml" not in names


def _check_encrypted(raw: bytes, name: str) -> None:
    if raw.startswith(b"\xd0\xcf\x11\xe0") and "EncryptedPackage".encode("utf-16-le") in raw[: 1 << 20]:
        raise DataError(f"{name} is encrypted with a password: open it, remove the password and save it again")


def _sheet_member(archive: zipfile.ZipFile, sheet: str) -> str | None:
    """The zip member of an .xlsx sheet, from the workbook's directory and its relations."""
    try:
        book = archive.read("xl/workbook.xml").decode("utf-8", "replace")
        rels = archive.read("xl/_rels/workbook.xml.rels").decode("utf-8", "replace")
    except KeyError:
        return None
    from html import unescape

    for attributes in re.findall(r"<(?:\w+:)?sheet\b([^>]*)/?>", book):
        found = re.search(r'\bname="([^"]*)"', attributes)
        rid = re.search(r'\br:id="([^"]*)"', attributes) or re.search(r'\b\w+:id="([^"]*)"', attributes)
        if found and rid and unescape(found.group(1)) == sheet:
            for rel in re.findall(r"<Relationship\b([^>]*)/?>", rels):
                if f'Id="{rid.group(1)}"' in rel:
                    target = re.search(r'Target="([^"]*)"', rel).group(1)
                    return target.lstrip("/") if target.startswith("/") else f"xl/{target}"
    return None


def _scan_sheet(archive: zipfile.ZipFile, member: str, sheet: str, name: str) -> dict:
    """Read an .xlsx sheet's XML as a stream (bounded by its declared size), before the cells are
    loaded: refuse a sheet spanning more than ``MAX_SHEET_CELLS`` cells, or a formula without a value.
    Returns the cells of a date style that store a negative number, by (row, column) from 0, as days from 30
    December 1899: dates before 1900 (:mod:`.sheet_dates`)."""
    rows, columns = [1 << 30, 0], [1 << 30, 0]
    negative, dates = {}, xlsx_date_styles(archive)
    shift = xlsx_days_shift(archive) if dates else 0
    carry = b""
    try:
        with archive.open(member) as handle:
            while True:
                block = handle.read(_SCAN_BYTES)
                data = carry + block
                cut = data.rfind(b"</row>") + len(b"</row>") if block else len(data)
                cut = max(cut, 0)
                part, carry = data[:cut], data[cut:]
                numbers = [int(r) for r in _ROW_NUMBER.findall(part)]  # one per row, not per cell
                if numbers:
                    rows = [min(rows[0], min(numbers)), max(rows[1], max(numbers))]
                letters = set(_CELL_COLUMN.findall(part))
                if letters:
                    cols = [_column_number(c) for c in letters]
                    columns = [min(columns[0], min(cols)), max(columns[1], max(cols))]
                if b"<f" in part:
                    _check_formulas(part, sheet, name)
                if dates and b"<v>-" in part:
                    for attributes, value in _NEGATIVE.findall(part):
                        style, reference = _STYLE.search(attributes), _REFERENCE.search(attributes)
                        if style and reference and style.group(1) in dates:
                            letters, row = reference.groups()
                            negative[int(row) - 1, _column_number(letters) - 1] = float(value) + shift
                if not block:
                    break
    except (zipfile.BadZipFile, OSError, EOFError) as problem:
        raise DataError(f"{name} is a damaged workbook ({problem})") from None
    _check_size(rows[1] - rows[0] + 1 if rows[1] else 0, columns[1] - columns[0] + 1 if columns[1] else 0, sheet, name)
    return negative


def _check_formulas(part: bytes, sheet: str, name: str) -> None:
    for attributes, body in _CELL.findall(part):
        if body and b"<f" in body and not re.search(rb"<v>[^<]", body):
            ref = re.search(rb'\sr="([A-Z]+[0-9]+)"', attributes)
            where = f"cell {ref.group(1).decode()}" if ref else "a cell"
            raise DataError(
                f"{where} of sheet '{sheet}' in {name} holds a formula with no saved value (the file was "
                "written by a program that does not calculate): open it in Excel or LibreOffice and save it again"
            )


def _check_size(rows: int, columns: int, sheet: str, name: str) -> None:
    if rows * columns > constraints.MAX_SHEET_CELLS:
        raise DataError(
            f"sheet '{sheet}' of {name} spans {rows:,} rows by {columns:,} columns ({rows * columns:,} cells), "
            f"more than the {constraints.MAX_SHEET_CELLS:,} cells a sheet may have here: save it as CSV or "
            "Parquet (read in chunks)"
        )


def _open(raw: bytes, name: str):
    import python_calamine as calamine

    _check_encrypted(raw, name)
    archive = _zip(raw, name)
    if archive is not None:  # calamine unpacks members whole: what they really unpack to is counted first
        check_unzipped(raw, archive, name)
    extents = ods_extents(archive, name) if archive is not None and _is_ods(archive) else xls_extents(raw, name)
    for sheet, (rows, columns) in extents.items():  # an .ods or .xls: calamine loads every sheet on opening
        _check_size(rows, columns, sheet, name)
    try:
        book = calamine.CalamineWorkbook.from_filelike(io.BytesIO(raw))
    except calamine.PasswordError:
        raise DataError(
            f"{name} is protected with a password: open it, remove the password and save it again"
        ) from None
    except Exception as problem:  # calamine's own errors (a damaged or unknown file)
        raise DataError(f"{name} cannot be read as a spreadsheet ({_first_line(problem)})") from None
    return book, archive


def _first_line(problem: Exception) -> str:
    text = str(problem).strip().splitlines()
    return text[0][:200] if text else type(problem).__name__


def sheet_names(raw: bytes, name: str) -> list[str]:
    """The workbook's worksheets, in order, from its directory alone (no cell is read)."""
    book, _ = _open(raw, name)
    with book:
        return _worksheets(book)


def _worksheets(book) -> list[str]:
    import python_calamine as calamine

    return [s.name for s in book.sheets_metadata if s.typ == calamine.SheetTypeEnum.WorkSheet] or list(book.sheet_names)


def read_sheet(
    raw: bytes,
    *,
    name: str,
    sheet: str | None = None,
    header_row: int | None = None,
    header_rows: int | None = None,
    names: tuple[str, ...] | None = None,
):
    """``(frame, info)`` of one sheet, as the module docstring says: every cell canonical text.

    ``sheet``: its name (None: the first worksheet); ``header_row``: the header's row number in the
    spreadsheet (None: the first row that holds anything); ``header_rows``: how many rows the header spans from
    there (None: one; the names joined by :func:`~dpsynth_core.data.header_names.join_header_rows`; 0: none, the
    columns named ``column_1``, ... (or ``names``, the publisher's, one per column) and that row a record). ``info``:
    ``format``, ``sheet``, ``sheets``, ``header_row``, ``rows``, ``record_row`` (the sheet's row of the first record),
    ``columns``, ``bytes`` and ``lines`` (empty: no per-line rule applies).
    """
    book, archive = _open(raw, name)
    with book:
        sheets = _worksheets(book)
        if not sheets:
            raise DataError(f"{name} holds no worksheet")
        sheet = sheets[0] if sheet in (None, "") else sheet
        if sheet not in sheets:
            raise DataError(f"{name} has no sheet named '{sheet}'; its sheets: {', '.join(sheets)}")
        member = _sheet_member(archive, sheet) if archive is not None else None
        if member is not None:
            negative = _scan_sheet(archive, member, sheet, name)
        else:  # an .xls's dates before 1900 from its records; an .ods stores its dates as text
            negative = xls_negative_dates(raw, sheet) if archive is None else {}
        try:
            cells = book.get_sheet_by_name(sheet)
        except Exception as problem:
            raise DataError(f"sheet '{sheet}' of {name} cannot be read ({_first_line(problem)})") from None
        _check_size(cells.height, cells.width, sheet, name)
        if cells.start is None:
            raise DataError(f"sheet '{sheet}' of {name} is empty")
        first_row, first_column = cells.start
        grid = cells.to_python(skip_empty_area=True)
        restore_dates(grid, negative, first_row, first_column)
        merged = cells.merged_cell_ranges or []
    top = first_row if header_row is None else int(header_row) - 1
    if header_row is not None and not (1 <= int(header_row) <= first_row + len(grid)):
        last = first_row + len(grid)
        raise DataError(f"header row ({header_row}) must be a row of sheet '{sheet}' that holds cells, 1 to {last:,}")
    at = top - first_row
    if at < 0:
        raise DataError(
            f"header row {header_row} of sheet '{sheet}' in {name} is empty (the sheet starts at row {first_row + 1})"
        )
    width = len(grid[0]) if grid else 0
    rows = 1 if header_rows is None else header_rows
    if at + rows > len(grid):
        raise DataError(f"sheet '{sheet}' of {name} ends before its header's {rows} rows")
    header_cells = []
    for row in range(at, at + rows):  # each row of the header, a merged cell naming every column it spans
        header = list(grid[row])
        for (r0, c0), (r1, c1) in merged:
            if r0 <= first_row + row <= r1 and 0 <= c0 - first_column < width:
                for c in range(max(c0, first_column), min(c1, first_column + width - 1) + 1):
                    header[c - first_column] = header[c0 - first_column]
        header_cells.append([re.sub(r"\s*[\r\n]+\s*", " ", t) for t in cells_text(header).fillna("").tolist()])
    if rows == NO_HEADER:  # no header row: named by position, the first row a record
        columns = numbered_columns(width, name, names)
    else:
        columns = name_columns(join_header_rows(header_cells) if rows > 1 else header_cells[0], name)
    body = grid[at + rows :]
    if not body:
        raise DataError(f"sheet '{sheet}' of {name} has a header but no data rows")
    table = pd.DataFrame(body, dtype=object)
    del grid, body
    frame, skipped, lead = drop_empty_rows(pd.DataFrame({c: cells_text(table[i]) for i, c in enumerate(columns)}))
    if len(frame) == 0:
        raise DataError(f"sheet '{sheet}' of {name} has a header but no data rows")
    frame = frame.astype(TEXT_DTYPE)
    info = {
        "format": "spreadsheet",
        "sheet": sheet,
        "sheets": sheets,
        "header_row": top + 1,
        **({"header_rows": header_rows} if header_rows is not None else {}),
        **({"names": "given"} if names is not None and rows == NO_HEADER else {}),
        "rows": len(frame),
        "record_row": first_row + at + rows + lead + 1,  # the sheet's row of the first record (a header below a title)
        "columns": columns,
        "bytes": len(raw),
        "lines": {"empty rows": skipped} if skipped else {},  # told to the publisher (line_report_text)
    }
    return frame, info


#: A sheet read with at most this many rows, or a single column, holds a note or a title page more likely than the
#: table, when the workbook has other sheets (:func:`sheet_hint`).
SMALL_SHEET_ROWS = 5


def sheet_hint(info: dict) -> str:
    """For the publisher: a sentence when the sheet read (``info``: :func:`read_spreadsheet`'s ``sheet``, ``sheets``,
    ``rows`` and ``columns``) holds so little that the table is likely on another sheet, naming those (a workbook whose
    first sheet is a README above the data's sheet), else empty. Its size and the sheets' names only, no cell.

    >>> said = sheet_hint({"format": "spreadsheet", "sheet": "README", "sheets": ["README", "patients"], "rows": 2,
    ...                    "columns": ["A"]})
    >>> said.split(":")[0], "('patients')" in said
    ("Sheet 'README' holds 2 rows and 1 column, as a note or a title page would", True)
    """
    others = [name for name in info.get("sheets", []) if name != info.get("sheet")]
    rows, columns = int(info.get("rows", 0)), len(info.get("columns", []))
    if info.get("format") != "spreadsheet" or not others or (rows > SMALL_SHEET_ROWS and columns > 1):
        return ""
    named = ", ".join(f"'{name}'" for name in others[:5]) + (
        f" and {len(others) - 5:,} more" if len(others) > 5 else ""
    )
    sized = f"{counted(rows, 'row')} and {counted(columns, 'column')}"
    return (
        f"Sheet '{info['sheet']}' holds {sized}, as a note or a title page would: if the table is on another sheet "
        f"({named}), choose it under Sheet above."
    )
