"""Spreadsheets written as the programs that make them write them, for the hunt's files and app doors
(:mod:`benchmarks.robustness.unseen`) and the tests' publisher files: a legacy Excel workbook (.xls, by xlwt) and a
LibreOffice one (.ods, no writer of which is installed), their numbers, dates and booleans typed. Run on its own, it
writes a public CSV as either, to walk a publisher's upload by hand (a column of ISO dates as date cells):

    python -m benchmarks.robustness.sheets tests/datasets/compas.csv --out /tmp/compas.ods
"""

from __future__ import annotations

import argparse
import io
import zipfile
from xml.sax.saxutils import escape

import numpy as np
import pandas as pd

from dpsynth_core.data.sheet_dates import SERIAL_EPOCH


def _cells(frame: pd.DataFrame):
    """Each column's name and its cells as Python values (None: an empty cell), for the writers below."""
    for name in frame.columns:
        yield str(name), [None if pd.isna(v) else v for v in frame[name].tolist()]


def _serial(moment: pd.Timestamp) -> float:
    """A spreadsheet's serial number of a moment: days from 30 December 1899, but from 31 December 1899 in January
    and February 1900 (Excel's, which counts a 29 February 1900); xlwt's own writes a date before 1900 a day later
    than LibreOffice, Google Sheets and openpyxl do."""
    leap = pd.Timestamp("1900-01-01") <= moment < pd.Timestamp("1900-03-01")  # before Excel's 29 February 1900
    epoch = pd.Timestamp(SERIAL_EPOCH) + pd.Timedelta(days=int(leap))
    return (moment - epoch) / pd.Timedelta(days=1)


def xls_bytes(frame: pd.DataFrame) -> bytes:
    """The table as a legacy Excel workbook (.xls, BIFF8, by xlwt): numbers, dates and booleans typed, the rest text."""
    import xlwt

    book = xlwt.Workbook()
    page, dates = book.add_sheet("data"), xlwt.easyxf(num_format_str="YYYY-MM-DD")
    for j, (name, cells) in enumerate(_cells(frame)):
        page.write(0, j, name)
        for i, value in enumerate(cells, start=1):
            if isinstance(value, pd.Timestamp):  # its serial number as LibreOffice and openpyxl write it
                page.write(i, j, _serial(value), dates)
            elif isinstance(value, (bool, np.bool_)):
                page.write(i, j, bool(value))
            elif isinstance(value, (int, float, np.integer, np.floating)):
                page.write(i, j, float(value))
            elif value is not None:
                page.write(i, j, str(value))
    sink = io.BytesIO()
    book.save(sink)
    return sink.getvalue()


def ods_bytes(frame: pd.DataFrame, sheet: str = "data", tail: str = "") -> bytes:
    """The table as a LibreOffice spreadsheet (.ods) on the sheet ``sheet``, its cells typed as LibreOffice writes
    them (a float, a date, a boolean, a string), written to the OpenDocument format's own rules (no ODS writer is
    installed); ``tail``: rows' XML after the table's (such as the run of empty repeated rows LibreOffice writes to a
    sheet's end)."""

    def cell(value) -> str:
        if value is None:
            return "<table:table-cell/>"
        if isinstance(value, pd.Timestamp):
            at = value.strftime("%Y-%m-%d") if value == value.normalize() else value.strftime("%Y-%m-%dT%H:%M:%S")
            return f'<table:table-cell office:value-type="date" office:date-value="{at}"><text:p>{at}</text:p></table:table-cell>'
        if isinstance(value, (bool, np.bool_)):
            said = str(bool(value)).lower()
            return f'<table:table-cell office:value-type="boolean" office:boolean-value="{said}"><text:p>{said}</text:p></table:table-cell>'
        if isinstance(value, (int, float, np.integer, np.floating)):
            return f'<table:table-cell office:value-type="float" office:value="{float(value)!r}"><text:p>{value}</text:p></table:table-cell>'
        return f'<table:table-cell office:value-type="string"><text:p>{escape(str(value))}</text:p></table:table-cell>'

    columns = list(_cells(frame))
    rows = [[cell(name) for name, _ in columns]]
    rows += [[cell(cells[i]) for _, cells in columns] for i in range(len(frame))]
    body = "".join(f"<table:table-row>{''.join(row)}</table:table-row>" for row in rows) + tail
    spaces = (
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"'
    )
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {spaces}><office:body><office:spreadsheet>'
        f'<table:table table:name="{escape(sheet)}">{body}</table:table></office:spreadsheet></office:body></office:document-content>'
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
        'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
        '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>'
    )
    sink = io.BytesIO()
    with zipfile.ZipFile(sink, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet", zipfile.ZIP_STORED)
        archive.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
        archive.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
    return sink.getvalue()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", help="a CSV file")
    parser.add_argument("--out", required=True, help="the workbook to write: its name ends .xls or .ods")
    args = parser.parse_args(argv)
    writers = {".xls": xls_bytes, ".ods": ods_bytes}
    suffix = args.out[args.out.rfind(".") :].lower()
    if suffix not in writers:
        parser.error("--out must end .xls or .ods")
    frame = pd.read_csv(args.table, low_memory=False)
    for name in frame.columns[[pd.api.types.is_string_dtype(t) for t in frame.dtypes]]:
        texts = frame[name].dropna().astype(str)
        dates = pd.to_datetime(texts, errors="coerce", format="ISO8601")
        if len(texts) and dates.notna().all() and (texts.str.len() >= 10).all():
            frame[name] = pd.to_datetime(frame[name], errors="coerce", format="ISO8601")
    with open(args.out, "wb") as out:
        out.write(writers[suffix](frame))
    print(f"wrote {len(frame):,} rows to {args.out}")


if __name__ == "__main__":
    main()
