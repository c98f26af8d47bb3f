"""The publisher's own files, written at test time by the libraries' own writers (openpyxl, xlwt, pyreadstat).

Each function takes a table of public records (the corpus's, or one of ``tests/datasets``) and returns
the bytes of the same records as a spreadsheet or a statistical package's file; the hostile ones
change one thing (a password, a formula with no saved value, a sheet of 1,048,576 rows, a zip
directory that promises 4 GB, an old Stata format, a name that lies). :func:`file_cases` makes them
cases of the hostile-input corpus (``tests/corpus.py``), run in their own processes under its time
and memory limits.
"""

from __future__ import annotations

import functools
import io
import struct
import tempfile
import zipfile
from pathlib import Path

import pandas as pd

from benchmarks.robustness.sheets import ods_bytes  # noqa: F401 - a LibreOffice spreadsheet, typed cells


def typed(frame: pd.DataFrame) -> pd.DataFrame:
    """A text table's columns as numbers where every cell reads as one (as a spreadsheet stores them)."""
    out = {}
    for name in frame.columns:
        numbers = pd.to_numeric(frame[name], errors="coerce")
        keeps_text = frame[name].astype(str).str.match(r"^0\d")  # a code such as 00123 stays text
        out[name] = numbers if numbers.notna().all() and not keeps_text.any() else frame[name]
    return pd.DataFrame(out)


def qualtrics_export(frame: pd.DataFrame, id_column: str) -> bytes:
    """A survey's records laid out as Qualtrics' own CSV export: its response fields first (``ResponseId`` from
    ``id_column``; ``Status``, ``Progress``, ``Finished``, ``DistributionChannel`` and ``UserLanguage`` as an
    anonymous link fills them for a finished response), then each question as ``Qn`` or, one answer a column,
    ``Qn_k``; a line of names, a line of texts (a question, or ``question - answer``) and a line of import ids.
    ``frame`` is named ``question | answer`` (a header read over two rows; ``Response``: the question alone)."""
    import csv
    import json

    fields = {"Status": "Response Type", "Progress": "Progress", "Finished": "Finished", "ResponseId": "Response ID"}
    fields |= {"DistributionChannel": "Distribution Channel", "UserLanguage": "User Language"}
    n = len(frame)
    out = {"Status": ["IP Address"] * n, "Progress": ["100"] * n, "Finished": ["True"] * n}
    out["ResponseId"] = [f"R_{v}" for v in frame[id_column]]
    out |= {"DistributionChannel": ["anonymous"] * n, "UserLanguage": ["EN"] * n}
    texts, ids, questions = dict(fields), {f: f[0].lower() + f[1:] for f in fields}, {}
    for name in frame.columns.drop(id_column):
        question, _, answer = name.partition(" | ")
        questions.setdefault(question, []).append((name, answer))
    for q, (question, answers) in enumerate(questions.items(), start=1):
        for k, (name, answer) in enumerate(answers, start=1):
            code = f"Q{q}" if len(answers) == 1 else f"Q{q}_{k}"
            texts[code] = question if answer in ("", "Response") else f"{question} - {answer}"
            ids[code] = f"QID{code[1:]}"
            out[code] = frame[name].fillna("").astype(str).tolist()
    sink = io.StringIO()
    writer = csv.writer(sink, lineterminator="\n")
    writer.writerow(list(out))
    writer.writerow([texts[c] for c in out])
    writer.writerow([json.dumps({"ImportId": ids[c]}, separators=(",", ":")) for c in out])
    writer.writerows(zip(*out.values()))
    return sink.getvalue().encode()


def xlsx_bytes(frame: pd.DataFrame, sheet: str = "data", **others: pd.DataFrame) -> bytes:
    """The table on a sheet of an Excel workbook (openpyxl), numbers as numbers; ``others``: more sheets."""
    sink = io.BytesIO()
    with pd.ExcelWriter(sink, engine="openpyxl") as book:
        frame.to_excel(book, sheet_name=sheet, index=False)
        for name, other in others.items():
            other.to_excel(book, sheet_name=name, index=False)
    return sink.getvalue()


def xls_bytes(frame: pd.DataFrame, sheet: str = "data") -> bytes:
    """The table as a legacy Excel workbook (.xls, BIFF8, by xlwt): numbers as number cells, the rest as text."""
    import xlwt

    book = xlwt.Workbook()
    page = book.add_sheet(sheet)
    for j, name in enumerate(frame.columns):
        page.write(0, j, str(name))
        for i, value in enumerate(frame[name].tolist(), start=1):
            if not (isinstance(value, float) and value != value):  # NaN: an empty cell
                page.write(i, j, value.item() if hasattr(value, "item") else value)
    sink = io.BytesIO()
    book.save(sink)
    return sink.getvalue()


def package_bytes(frame: pd.DataFrame, suffix: str, **metadata) -> bytes:
    """The table as an SPSS, Stata or SAS file written by pyreadstat (``metadata``: its writer's keywords)."""
    import pyreadstat

    writer = {".sav": "write_sav", ".zsav": "write_sav", ".por": "write_por", ".dta": "write_dta"}
    writer[".xpt"] = "write_xport"
    if suffix == ".zsav":
        metadata["compress"] = True
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"table{suffix}"
        getattr(pyreadstat, writer[suffix])(frame, str(path), **metadata)
        return path.read_bytes()


def encrypted_workbook() -> bytes:
    """The start of what Excel writes for a workbook with a password: an OLE container holding an
    ``EncryptedPackage`` stream (the directory entry's name, in UTF-16)."""
    head = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    entry = "EncryptedPackage".encode("utf-16-le").ljust(64, b"\x00")
    return head + entry + bytes(4096)


def formula_without_value(frame: pd.DataFrame) -> bytes:
    """A workbook whose last cell is a formula openpyxl wrote without a saved value (it never calculates)."""
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(xlsx_bytes(frame)))
    sheet = book.active
    sheet.cell(row=sheet.max_row, column=sheet.max_column, value="=1+1")
    sink = io.BytesIO()
    book.save(sink)
    return sink.getvalue()


def sheet_of_all_rows(columns: list[str]) -> bytes:
    """A workbook with a header and one cell on row 1,048,576 (Excel's last row): a sheet that spans
    1,048,576 rows by the header's width, in a few kilobytes."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(columns)
    sheet.cell(row=1_048_576, column=len(columns), value=1)
    sink = io.BytesIO()
    book.save(sink)
    return sink.getvalue()


def zip_promising(raw: bytes, size: int = 0xFFFF_FFF0) -> bytes:
    """A workbook whose zip directory says its sheet unpacks to ``size`` bytes (a zip bomb's directory)."""
    archive = zipfile.ZipFile(io.BytesIO(raw))
    member = next(i for i in archive.infolist() if i.filename.startswith("xl/worksheets/"))
    out, at = bytearray(raw), 0
    while True:  # the central directory's entry of that member: patch its uncompressed size
        at = out.find(b"PK\x01\x02", at)
        length = struct.unpack_from("<H", out, at + 28)[0]
        if out[at + 46 : at + 46 + length].decode() == member.filename:
            struct.pack_into("<I", out, at + 24, size)
            return bytes(out)
        at += 4


def old_stata(version: int = 103) -> bytes:
    """The start of a .dta of a Stata format older than 104 (Stata 5): its version byte, byte order, header."""
    return bytes([version, 2, 1, 0]) + struct.pack("<HI", 5, 300) + bytes(200)


def file_cases(case, good_csv, good_domain) -> list:
    """The corpus's cases of the publisher's files: ``case(name, expect, data, data_name, **kw)``, each
    ``data`` a function that writes the file's bytes when the case runs (not when the corpus is listed)."""

    @functools.cache
    def records() -> tuple[pd.DataFrame, pd.DataFrame]:
        frame = pd.read_csv(io.BytesIO(good_csv()), dtype=str, keep_default_na=False)
        numbers = typed(frame)
        numbers["day"] = pd.to_datetime(frame["day"])
        return frame, numbers

    def workbook() -> bytes:
        return xlsx_bytes(records()[1])

    def sav() -> bytes:
        return package_bytes(records()[1], ".sav")

    return [
        case("a typed Excel workbook", "ok", workbook, "data.xlsx", cli=True),
        case(
            "a workbook's second sheet, by name",
            "ok",
            lambda: xlsx_bytes(records()[0].head(0), "notes", data=records()[1]),
            "d.xlsx",
            options=(("--sheet", "data"),),
        ),
        case("a sheet that does not exist", "error", workbook, "data.xlsx", options=(("--sheet", "Sheet9"),), cli=True),
        case("an SPSS file", "ok", sav, "data.sav", cli=True),
        case("a Stata file", "ok", lambda: package_bytes(records()[1], ".dta"), "data.dta"),
        case("a workbook with a password", "error", encrypted_workbook, "data.xlsx", cli=True),
        case(
            "a formula with no saved value", "error", lambda: formula_without_value(records()[1]), "data.xlsx", cli=True
        ),
        case(
            "a sheet of 1,048,576 rows",
            "error",
            lambda: sheet_of_all_rows(list(records()[0].columns)),
            "data.xlsx",
            cli=True,
        ),
        case("a zip directory promising 4 GB", "error", lambda: zip_promising(workbook()), "data.xlsx", cli=True),
        case("a Stata file of format 103", "error", old_stata, "data.dta", cli=True),
        case("an SPSS file named .dta", "error", sav, "data.dta"),
        case("CSV text named .xlsx", "error", good_csv, "data.xlsx", cli=True),
        case(
            "a workbook through the duckdb engine",
            "error",
            workbook,
            "data.xlsx",
            options=(("--engine", "duckdb"),),
            cli=True,
        ),
    ]
