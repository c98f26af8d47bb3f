"""A workbook's real size, found before python-calamine loads it: members inflated and counted, an .ods's
sheets from its streamed XML, an .xls's from its DIMENSIONS records; refused in one line with the size."""

from __future__ import annotations

import io
import struct
import zipfile

import pandas as pd
import pytest

from dpsynth_core import constraints
from dpsynth_core.cli import main
from dpsynth_core.data.formats import list_sheets, read_data
from dpsynth_core.data.sheet_sizes import ods_extents, xls_extents
from dpsynth_core.errors import DataError
from tests.conftest import shared_path
from tests.publisher_files import ods_bytes, typed, xls_bytes, xlsx_bytes

#: LibreOffice ends a sheet with a run of empty rows repeated to the sheet's last row: it spans nothing.
LIBREOFFICE_TAIL = (
    '<table:table-row table:number-rows-repeated="1047580">'
    '<table:table-cell table:number-columns-repeated="1024"/></table:table-row>'
)


@pytest.fixture
def ce():
    return typed(pd.read_csv(shared_path("ce.csv"), dtype=str))


@pytest.fixture
def never_loaded(monkeypatch):
    """calamine must not open the workbook: the check comes first."""
    import python_calamine

    def refuse(*_, **__):
        raise AssertionError("calamine opened the workbook before its size was checked")

    monkeypatch.setattr(python_calamine.CalamineWorkbook, "from_filelike", refuse)


def _understated(raw: bytes, member: str, content: bytes, said: int) -> bytes:
    """``raw`` (a zip) with ``member`` replaced by ``content``, deflated, its directories saying ``said`` bytes."""
    source, sink = zipfile.ZipFile(io.BytesIO(raw)), io.BytesIO()
    with zipfile.ZipFile(sink, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            out.writestr(info.filename, content if info.filename == member else source.read(info))
    data, name = bytearray(sink.getvalue()), member.encode()
    at = 0
    while (at := data.find(b"PK\x03\x04", at)) >= 0:  # the local header: size at +22
        if data[at + 30 : at + 30 + len(name)] == name:
            struct.pack_into("<I", data, at + 22, said)
        at += 4
    at = 0
    while (at := data.find(b"PK\x01\x02", at)) >= 0:  # the central directory: size at +24
        if data[at + 46 : at + 46 + len(name)] == name:
            struct.pack_into("<I", data, at + 24, said)
        at += 4
    return bytes(data)


def test_a_zip_bomb_whose_directory_understates_is_refused_by_what_it_unpacks_to(
    ce, monkeypatch, never_loaded, tmp_path, capsys
):
    monkeypatch.setattr(constraints, "MAX_UNZIPPED_BYTES", 1 << 20)
    content = b"<worksheet>" + b" " * (3 << 20) + b"</worksheet>"
    bomb = _understated(xlsx_bytes(ce), "xl/worksheets/sheet1.xml", content, said=2_000)
    assert sum(i.file_size for i in zipfile.ZipFile(io.BytesIO(bomb)).infolist()) < 1 << 20  # the directory lies
    for reader in (read_data, list_sheets):
        with pytest.raises(DataError, match=r"^bomb.xlsx unpacks to more than 1 MB \(its zip directory says 0.0 MB\)"):
            reader(bomb, name="bomb.xlsx")
    (tmp_path / "bomb.xlsx").write_bytes(bomb)
    assert main(["declare", str(tmp_path / "bomb.xlsx"), "--list-sheets"]) == 2
    err = capsys.readouterr().err.strip()
    assert "unpacks to more than 1 MB" in err and len(err.splitlines()) == 1


def test_an_ods_is_measured_from_its_streamed_xml_before_it_is_loaded(ce, monkeypatch):
    """The CE survey's sheet spans its 995 rows (header included) by 4 columns, LibreOffice's empty tail
    nothing; one repeated row of values spanning 1,000,000 rows by 100 columns (a few bytes) is refused
    with that size before calamine allocates it."""
    with_tail = ods_bytes(ce, tail=LIBREOFFICE_TAIL)
    assert ods_extents(zipfile.ZipFile(io.BytesIO(with_tail)), "ce.ods") == {"data": (995, 4)}
    frame, info = read_data(with_tail, name="ce.ods")
    assert (info["rows"], info["columns"]) == (994, list(ce.columns))
    assert info["lines"] == {}  # the empty rows after the last record are the sheet's end, not skipped records
    bomb = ods_bytes(
        ce.head(2),
        tail='<table:table-row table:number-rows-repeated="1000000"><table:table-cell office:value-type="float" '
        'office:value="1" table:number-columns-repeated="100"/></table:table-row>',
    )
    import python_calamine

    monkeypatch.setattr(python_calamine.CalamineWorkbook, "from_filelike", None)  # never reached
    with pytest.raises(DataError, match=r"sheet 'data' of bomb.ods spans 1,000,003 rows by 100 columns"):
        list_sheets(bomb, "bomb.ods")


def test_an_xls_is_measured_from_its_dimensions_records_before_it_is_loaded(ce, never_loaded):
    """The DIMENSIONS record of each sheet, read along the compound file's sector chain: the CE survey's 995
    rows by 4 columns, a three-row sheet's, and a sheet with two cells at its corners, 65,536 rows by 256
    columns, refused with that size."""
    assert xls_extents(xls_bytes(ce), "ce.xls") == {"data": (995, 4)}
    assert xls_extents(xls_bytes(ce.head(3), "small"), "s.xls") == {"small": (4, 4)}
    import xlwt

    book = xlwt.Workbook()
    page = book.add_sheet("corners")
    page.write(0, 0, 1)
    page.write(65535, 255, 2)
    sink = io.BytesIO()
    book.save(sink)
    with pytest.raises(DataError, match=r"sheet 'corners' of far.xls spans 65,536 rows by 256 columns"):
        read_data(sink.getvalue(), name="far.xls")
