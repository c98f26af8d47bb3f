"""The one door for table files (dpsynth_core.data.formats) and its readers (workbooks, packages, typed_cells):
the same public records as CSV, Excel, SPSS, Stata or SAS are the same table and the same ledger; a
spreadsheet's sheet, header row and header cells; hostile files refused in one line. Every file is written
at test time by the libraries' own writers (openpyxl, xlwt, pyreadstat) from the repository's public tables."""

from __future__ import annotations

import datetime as dt
import io

import numpy as np
import openpyxl
import pandas as pd
import pytest

from dpsynth_core import constraints
from dpsynth_core.data.encoding import encode_table
from dpsynth_core.data.formats import codebook, list_sheets, read_data
from dpsynth_core.data.line_report import line_report_text
from dpsynth_core.data.tables import read_table
from dpsynth_core.domain import as_table_domain
from dpsynth_core.domain.templates import template_from_codebook
from dpsynth_core.errors import DataError, ParameterError
from dpsynth_core.workspace import Workspace
from tests.conftest import ROOT, complete_domain, shared_path
from tests.publisher_files import formula_without_value, ods_bytes, package_bytes, typed, xls_bytes, xlsx_bytes

FORMATS = (".xlsx", ".xls", ".ods", ".sav", ".zsav", ".dta", ".xpt", ".parquet")


def _write(folder, table: pd.DataFrame, suffix: str, name: str = "records"):
    path = folder / f"{name}{suffix}"
    if suffix == ".parquet":  # read whole by the commands that read a table in memory (a release: an engine)
        table.to_parquet(path)
        return path
    writers = {".xlsx": xlsx_bytes, ".xls": xls_bytes, ".ods": ods_bytes}
    path.write_bytes(writers[suffix](table) if suffix in writers else package_bytes(table, suffix))
    return path


@pytest.mark.parametrize("dataset", ["ce", "diabetes"])
@pytest.mark.parametrize("suffix", FORMATS)
def test_the_same_records_in_any_format_are_the_csv_readers_table(tmp_path, dataset, suffix):
    """Typed cells (numbers as the libraries store them: doubles, Stata's integers) come back as the
    canonical text of the same numbers, so every column parses over its declaration to the very codes
    the CSV's does. The CE survey's CSV writes its numbers canonically, so its text is the same too;
    the diabetes CSV writes ``31.0`` where the number 31 comes back as ``31`` (the same number)."""
    csv = shared_path(f"{dataset}.csv")
    expected, _ = read_table(csv)
    frame, info = read_data(_write(tmp_path, typed(pd.read_csv(csv, dtype=str)), suffix))
    assert info["rows"] == len(expected) and info["columns"] == list(expected.columns)
    domain = as_table_domain(complete_domain(dataset))
    parsed, from_csv = encode_table(frame, domain), encode_table(expected, domain)
    for name, column in from_csv.columns.items():
        np.testing.assert_array_equal(parsed.columns[name].codes, column.codes, err_msg=name)
    if dataset == "ce":
        pd.testing.assert_frame_equal(frame, expected)


def test_a_parquet_files_bytes_read_as_its_path_and_misnamed_bytes_refused_in_one_line(tmp_path):
    """An upload holds a file's bytes, not its path: a Parquet file's bytes are the same table as the file read
    from disk, with no encoding, delimiter or header to choose; a CSV named .parquet, or a Parquet file named .csv,
    is refused in one line saying what the bytes are."""
    path = _write(tmp_path, typed(pd.read_csv(shared_path("ce.csv"), dtype=str)), ".parquet")
    raw = path.read_bytes()
    (frame, info), (expected, on_disk) = read_data(raw, name="ce.parquet"), read_data(path)
    pd.testing.assert_frame_equal(frame, expected)
    assert info == on_disk and info["format"] == "parquet" and info["bytes"] == len(raw)
    for name, content, said in (
        ("ce.parquet", shared_path("ce.csv").read_bytes(), "ce.parquet is named as a Parquet file but holds text"),
        ("ce.csv", raw, "ce.csv is a Parquet file, not a CSV"),
        ("ce.parquet", raw[: len(raw) // 2], "ce.parquet is not a readable Parquet file"),
    ):
        with pytest.raises(DataError, match=said) as error:
            read_data(content, name=name)
        assert "\n" not in str(error.value)
    with pytest.raises(ParameterError, match="not chosen for ce.parquet"):
        read_data(raw, name="ce.parquet", encoding="utf-8")


def test_the_ledger_finds_the_same_budget_for_the_same_records_as_csv_parquet_excel_and_spss(tmp_path):
    """The workspace keys its ledger by the records (Ledger.records_key): the CE survey's 994 records as
    CSV, typed Parquet, an Excel workbook and an SPSS file with its codebook are one dataset."""
    csv = shared_path("ce.csv")
    table = typed(pd.read_csv(csv, dtype=str))
    table.to_parquet(tmp_path / "ce.parquet")
    sav = tmp_path / "ce.sav"
    sav.write_bytes(package_bytes(table, ".sav", variable_value_labels={"UrbanRural": {1: "Urban", 2: "Rural"}}))
    ledger = Workspace(tmp_path / "ws").ledger
    keys = {
        form: ledger.records_key(path)
        for form, path in {
            "csv": csv,
            "parquet": tmp_path / "ce.parquet",
            "excel": _write(tmp_path, table, ".xlsx", "ce"),
            "spss": sav,
        }.items()
    }
    assert len(set(keys.values())) == 1, keys
    assert ledger.records_key(_write(tmp_path, table.iloc[1:], ".xlsx", "fewer")) != keys["csv"]


def _book(rows, merge: str | None = None, number_format: dict | None = None) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Survey"
    for row in rows:
        sheet.append(row)
    if merge:
        sheet.merge_cells(merge)
    for cell, fmt in (number_format or {}).items():
        sheet[cell].number_format = fmt
    book.create_sheet("Notes").append(["about", "this table"])
    sink = io.BytesIO()
    book.save(sink)
    return sink.getvalue()


def test_a_sheet_by_name_its_header_row_and_its_header_cells_named_plainly():
    raw = _book(
        [
            ["Household survey 2024"],  # a title above the header
            [],
            ["age", "Income", None, None, "age"],  # Income merged over two cells, an empty cell, a repeat
            [34, 1234.5, 7, "x", 1],
            [],  # an empty row, skipped as a CSV reader skips an empty line
            [51, 0.1, 8, "y", 2],
        ],
        merge="B3:C3",
    )
    assert list_sheets(raw, "survey.xlsx") == ["Survey", "Notes"]
    frame, info = read_data(raw, name="survey.xlsx", sheet="Survey", header_row=3)
    assert info["columns"] == ["age", "Income", "Income.1", "Unnamed: 3", "age.1"]
    assert frame.to_dict("list") == {
        "age": ["34", "51"],
        "Income": ["1234.5", "0.1"],
        "Income.1": ["7", "8"],
        "Unnamed: 3": ["x", "y"],
        "age.1": ["1", "2"],
    }
    assert (info["sheet"], info["header_row"], info["rows"]) == ("Survey", 3, 2)
    assert info["lines"] == {"empty rows": 1}  # told to the publisher: a record with every value missing looks so
    assert line_report_text(info["lines"]) == (
        "1 row of the sheet, between its header and its last record, holds no value in any column and was skipped "
        "as empty (a record whose every value is missing cannot be told from an empty row in a sheet)."
    )
    default, _ = read_data(raw, name="survey.xlsx")  # the first sheet, its first row that holds anything
    assert list(default.columns)[0] == "Household survey 2024"
    with pytest.raises(DataError, match="sheet 'Notes' of survey.xlsx has a header but no data rows"):
        read_data(raw, name="survey.xlsx", sheet="Notes")


def test_a_header_over_two_rows_names_each_column_by_both():
    """A survey tool's export names a question once, merged over its answers, and each answer below it: said to
    span two rows, the header names every column by its question and its answer, and its second row is no record;
    the same records give the same ledger key as a CSV of them with a header of one line."""
    raw = _book(
        [
            ["id", "Which films have you seen?", None, "Age"],
            [None, "Episode I", "Episode II", "Response"],
            [1, "Episode I", None, "18-29"],
            [2, None, "Episode II", "> 60"],
        ],
        merge="B1:C1",
    )
    frame, info = read_data(raw, name="survey.xlsx", header_rows=2)
    assert info["columns"] == [
        "id",
        "Which films have you seen? | Episode I",
        "Which films have you seen? | Episode II",
        "Age | Response",
    ]
    assert frame["Age | Response"].tolist() == ["18-29", "> 60"] and info["header_rows"] == 2
    one_row, _ = read_data(raw, name="survey.xlsx")  # one row: its second row is a record, two columns unnamed
    assert len(one_row) == 3 and list(one_row.columns)[2] == "Which films have you seen?.1"
    with pytest.raises(DataError, match="ends before its header's 5 rows"):
        read_data(raw, name="survey.xlsx", header_row=2, header_rows=5)


def test_typed_cells_are_read_as_values_not_as_the_sheet_displays_them():
    raw = _book(
        [["when", "amount", "moment", "flag"], [dt.date(2020, 1, 2), 1234.5, dt.datetime(2020, 1, 2, 3, 4, 5), True]],
        number_format={"A2": "DD/MM/YYYY", "B2": "#,##0.00 [$€]", "C2": "MM/DD/YY HH:MM"},
    )
    frame, _ = read_data(raw, name="typed.xlsx", sheet="Survey")
    assert frame.iloc[0].tolist() == ["2020-01-02", "1234.5", "2020-01-02 03:04:05", "True"]


def test_dates_before_1900_are_read_as_their_dates_in_a_workbook_and_in_an_ods():
    """Excel has no date before 1900; LibreOffice, Google Sheets, openpyxl and pandas store one in an .xlsx as a
    negative serial number of days from 30 December 1899, which calamine reads as the time 00:00:00. Such a cell is
    read as its date (Lahman's People: 2,203 players' debuts read as 00:00:00 before), on a sheet that starts below
    and to the right of A1 as on one that does not; a negative number that is a number stays one. An .ods stores
    the date itself, read as it is."""
    old = [dt.date(1875, 4, 26), dt.datetime(1801, 2, 3, 12, 30), dt.date(1950, 5, 5), None]
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "People"
    sheet["C3"], sheet["D3"] = "debut", "balance"
    for row, (when, amount) in enumerate(zip(old, [-1.5, -9014, 3, -0.25], strict=True), start=4):
        sheet.cell(row, 3, when)
        sheet.cell(row, 4, amount).number_format = "#,##0.00 [$€]"  # a style, but no date's
    sheet["C6"].number_format = "mm-dd-yy"  # one of Excel's own date formats (14), not the file's
    sheet["D7"].number_format = '0.0 "days"'  # letters of a date, but quoted text
    sink = io.BytesIO()
    book.save(sink)
    frame, _ = read_data(sink.getvalue(), name="people.xlsx")
    assert frame["debut"].tolist() == ["1875-04-26", "1801-02-03 12:30:00", "1950-05-05", ""]
    assert frame["balance"].tolist() == ["-1.5", "-9014", "3", "-0.25"]
    mac = openpyxl.Workbook()  # a workbook counting from 1904, as an old Mac Excel's: a negative serial is before 1904
    mac.epoch = openpyxl.utils.datetime.MAC_EPOCH
    mac.active.append(["debut"])
    mac.active.append([dt.date(1875, 4, 26)])
    mac.active.append([dt.date(1950, 5, 5)])
    sink = io.BytesIO()
    mac.save(sink)
    assert read_data(sink.getvalue(), name="mac.xlsx")[0]["debut"].tolist() == ["1875-04-26", "1950-05-05"]
    made = pd.DataFrame({"debut": pd.to_datetime(["1875-04-26", "1899-12-30", "2001-01-01"]), "n": [1, 2, 3]})
    frame, _ = read_data(xlsx_bytes(made), name="made.xlsx")  # pandas' own writer
    assert frame["debut"].tolist()[::2] == ["1875-04-26", "2001-01-01"]
    dated = pd.DataFrame(
        {"debut": pd.to_datetime(["1875-04-26", "1801-02-03 12:30:00"], format="ISO8601")}
    )  # as LibreOffice writes them
    frame, _ = read_data(ods_bytes(dated), name="people.ods")
    assert frame["debut"].tolist() == ["1875-04-26", "1801-02-03 12:30:00"]


def test_dates_before_1900_are_read_as_their_dates_in_a_legacy_xls():
    """An .xls stores a cell as a NUMBER, an RK or a run of RKs (MULRK) with its style; a date before 1900 is a
    negative serial there too (LibreOffice's, written here with xlwt), read as its date; a negative number in no
    date format stays one."""
    import xlwt

    book = xlwt.Workbook()
    page, day = book.add_sheet("people"), xlwt.easyxf(num_format_str="DD/MM/YYYY")
    for j, name in enumerate(["born", "debut", "last", "balance"]):
        page.write(1, j + 1, name)  # the table starts at B2
    serials = {(2, 1): -9014.0, (2, 2): -9013.0, (2, 3): -36123.479166666664, (3, 1): 18388.0, (3, 2): -0.5}
    for (row, column), serial in serials.items():
        page.write(row, column, serial, day)
    page.write(2, 4, -9014.0)
    page.write(3, 4, -1.25)
    sink = io.BytesIO()
    book.save(sink)
    frame, _ = read_data(sink.getvalue(), name="people.xls")
    assert frame.to_dict("list") == {
        "born": ["1875-04-26", "1950-05-05"],
        "debut": ["1875-04-27", "1899-12-29 12:00:00"],
        "last": ["1801-02-03 12:30:00", ""],
        "balance": ["-9014", "-1.25"],
    }
    book.dates_1904 = True  # a workbook counting from 1904 (its DATEMODE record): the same serials, 1,462 days later
    sink = io.BytesIO()
    book.save(sink)
    assert read_data(sink.getvalue(), name="mac.xls")[0]["born"].tolist() == ["1879-04-27", "1954-05-06"]


def test_listing_the_sheets_reads_no_cell(tmp_path):
    """A sheet whose cells cannot be read (a formula with no saved value) is still listed by name."""
    table = typed(pd.read_csv(shared_path("ce.csv"), dtype=str)).head(20)
    raw = formula_without_value(table)
    assert list_sheets(raw, "ce.xlsx") == ["data"]
    with pytest.raises(DataError, match=r"cell D21 of sheet 'data' in ce.xlsx holds a formula with no saved value"):
        read_data(raw, name="ce.xlsx")
    with pytest.raises(DataError, match="has no sheet named 'Sheet1'; its sheets: data"):
        read_data(xlsx_bytes(table), name="ce.xlsx", sheet="Sheet1")
    with pytest.raises(ParameterError, match="chosen for spreadsheets"):
        read_data(shared_path("ce.csv"), sheet="data")


def test_a_huge_file_is_refused_with_its_size_before_anything_is_read(tmp_path, monkeypatch):
    big = tmp_path / "survey.sav"
    with big.open("wb") as handle:  # a sparse file of 2 GiB: its size is known, nothing is read
        handle.write(b"$FL2")
        handle.truncate(2 << 30)
    with pytest.raises(DataError, match=r"survey.sav is 2,048 MB, larger than the 1,024 MB this tool reads"):
        read_data(big)
    sav = _write(tmp_path, typed(pd.read_csv(shared_path("ce.csv"), dtype=str)), ".sav", "ce")
    monkeypatch.setattr(constraints, "MAX_PACKAGE_CELLS", 1000)
    with pytest.raises(DataError, match=r"ce.sav holds 994 records of 4 columns \(3,976 cells\), more than the 1,000"):
        read_data(sav)
    parquet = _write(tmp_path, typed(pd.read_csv(shared_path("ce.csv"), dtype=str)), ".parquet", "ce")
    for source, name in ((parquet, None), (parquet.read_bytes(), "ce.parquet")):  # a path, or an upload's bytes
        with pytest.raises(DataError, match=r"ce.parquet holds 3,976 cells, more than the 1,000 read whole") as error:
            read_data(source, name=name)
        assert "\n" not in str(error.value) and "marginals and cathist count" in str(error.value)


def test_the_codebook_is_read_from_the_metadata_alone(tmp_path, monkeypatch):
    """Value labels (as each code's canonical text), variable labels, missing codes, storage and formats:
    pyreadstat is asked for the metadata only, never a record."""
    import pyreadstat

    table = typed(pd.read_csv(shared_path("ce.csv"), dtype=str))
    sav = tmp_path / "ce.sav"
    sav.write_bytes(
        package_bytes(
            table,
            ".sav",
            variable_value_labels={"Race": {1: "White", 2: "Black", 9: "Refused"}},
            column_labels={"Income": "Household income (USD)"},
            missing_ranges={"Race": [9], "Income": [{"lo": -9, "hi": -1}]},
            variable_format={"Income": "F8.0"},
        )
    )
    calls = []
    original = pyreadstat.read_sav
    monkeypatch.setattr(pyreadstat, "read_sav", lambda *a, **k: calls.append(k) or original(*a, **k))
    found = codebook(sav)
    assert calls and all(call.get("metadataonly") is True for call in calls)
    race, income = found["columns"]["Race"], found["columns"]["Income"]
    assert race["value_labels"] == {"1": "White", "2": "Black", "9": "Refused"} and race["missing"] == ["9"]
    assert income["label"] == "Household income (USD)" and income["missing"] == [["-9", "-1"]]
    assert (income["storage"], income["format"]) == ("number", "F8.0")
    assert "rows" not in found and "994" not in str(found)  # nothing counted from the records
    assert codebook(shared_path("ce.csv")) is None


def test_a_stata_files_months_and_quarters_since_1960_are_read_as_their_month_and_quarter(tmp_path):
    """Stata keeps a month or a quarter as a count since 1960 under a display format (``%tm``, ``%tq``), which
    pyreadstat leaves as the count (624 for 2012-01): the records read as the month's and the quarter's text, a
    missing cell stays missing, and the codebook (metadata alone) starts each column as dates written so, which a
    release reads whole (NOAA's Seattle weather, its days as months and quarters)."""
    from dpsynth_core.domain.templates import template_from_codebook

    seattle = pd.read_csv(ROOT / "benchmarks" / "datasets" / "seattle_weather.csv")
    days = pd.to_datetime(seattle["date"]).where(seattle.index != 3)
    table = pd.DataFrame({"month": days, "quarter": days, "wind": seattle["wind"]})
    path = tmp_path / "seattle.dta"
    table.to_stata(path, write_index=False, convert_dates={"month": "tm", "quarter": "tq"})
    read, _ = read_data(path)
    months, quarters = days.dt.to_period("M").astype(str), days.dt.to_period("Q").astype(str).str.replace("Q", "-Q")
    assert read["month"].tolist()[:3] == ["2012-01", "2012-01", "2012-01"] and read["quarter"].iloc[-1] == "2015-Q4"
    assert (read["month"].where(days.notna()) == months.where(days.notna())).sum() == len(days) - 1
    assert (read["quarter"].where(days.notna()) == quarters.where(days.notna())).sum() == len(days) - 1
    assert read["month"].iloc[3] == read["quarter"].iloc[3] == ""  # a missing cell, as the reader writes one
    found = codebook(path)["columns"]
    assert found["month"]["storage"] == found["quarter"]["storage"] == "date"
    assert template_from_codebook("month", found["month"]) == {"type": "date", "written": "year and month"}
    assert template_from_codebook("quarter", found["quarter"]) == {"type": "date", "written": "year and quarter"}
    declared = {"type": "date", "min": "2012-01-01", "max": "2015-12-31"}
    domain = as_table_domain(
        {
            "columns": {
                "month": {**declared, "written": "year and month"},
                "quarter": {**declared, "written": "year and quarter"},
            }
        }
    )
    encoded = encode_table(read[["month", "quarter"]], domain)
    assert sum(encoded.columns[c].out_of_domain for c in ("month", "quarter")) == 0


def test_a_sas_data_set_from_pyreadstats_own_samples():
    """pyreadstat writes no .sas7bdat, so its own sample (tests/fixtures/pyreadstat/README.md) is read and
    checked against the CSV it publishes beside it; its codebook says which columns are dates."""
    folder = ROOT / "tests" / "fixtures" / "pyreadstat"
    frame, info = read_data(folder / "sample.sas7bdat")
    published = pd.read_csv(folder / "sample.csv", dtype=str, keep_default_na=False, encoding="utf-8-sig")
    assert info["columns"] == list(published.columns) and info["format"] == "a SAS data set"
    for name in ("mychar", "mynum", "mydate", "mylabl", "myord"):
        assert frame[name].tolist() == published[name].tolist(), name
    assert frame["dtime"].tolist()[:2] == ["2018-05-06 10:10:10", "1880-05-06 10:10:10"]
    found = codebook(folder / "sample.sas7bdat")["columns"]
    assert [found[c]["storage"] for c in ("mychar", "mynum", "mydate", "dtime")] == [
        "text",
        "number",
        "date",
        "datetime",
    ]
    assert template_from_codebook("mynum", found["mynum"]) == {"type": "float"}  # BEST12 shows decimals
    assert template_from_codebook("mydate", found["mydate"]) == {"type": "date"}


def test_a_package_file_cut_short_is_refused_in_one_line_naming_the_cut():
    """A download or copy cut short: pyreadstat read a SAS transport file's records up to the cut and said nothing
    (half of spam7's rows, released as the table); its 80-byte records tell the cut. The other formats' own errors
    say that the file seems cut short."""
    table = typed(pd.read_csv(shared_path("ce.csv"), dtype=str))
    whole = package_bytes(table, ".xpt")  # version 8 (ce's names are long); version 5 is cut alike
    assert len(whole) % 80 == 0 and len(read_data(whole, name="ce.xpt")[0]) == len(table)
    with pytest.raises(DataError, match=r"^ce.xpt ends part-way through one of its 80-byte records, so it was cut"):
        read_data(whole[: len(whole) // 2 + 7], name="ce.xpt")
    for suffix in (".sav", ".zsav", ".dta"):
        raw = package_bytes(table, suffix)
        with pytest.raises(DataError, match=r"it seems cut short or damaged; save or export it again whole$"):
            read_data(raw[: int(len(raw) * 0.9)], name=f"ce{suffix}")


def test_an_spss_portable_file_gives_its_names_in_capitals_and_is_read_with_them(tmp_path, monkeypatch):
    """A portable file (.por) stores every name in capitals (at most 8 characters): pyreadstat's own sample,
    written by IBM SPSS 25, is read with the names it gives (``MYCHAR``, not the published CSV's ``mychar``),
    its values the CSV's, its codebook's value labels starting the declaration of those names, and written
    back as SPSS with them. The CE survey as a .por (written by pyreadstat) finds the CSV's ledger by its
    columns' fingerprints, and a declaration saved for the CSV follows the capitals. Its metadata says no
    number of records, so it is read up to one record past the cells allowed, and refused there."""
    from dpsynth_core.domain.templates import matched_to
    from dpsynth_core.release.own_formats import whole_file_bytes

    sample = ROOT / "tests" / "fixtures" / "pyreadstat"
    frame, info = read_data(sample / "sample.por")
    published, _ = read_table(sample / "sample.csv")
    assert info["columns"] == [c.upper() for c in published.columns]
    for name in ("mychar", "mynum", "mydate", "mylabl", "myord"):
        assert frame[name.upper()].tolist() == published[name].tolist(), name
    book = codebook(sample / "sample.por")
    assert book["columns"]["MYLABL"]["value_labels"] == {"1": "Male", "2": "Female"}
    assert template_from_codebook("MYLABL", book["columns"]["MYLABL"])["labels"] == {"1": "Male", "2": "Female"}
    from dpsynth_core.domain.templates import declaration_from_names

    declaration = declaration_from_names(info["columns"], codebook=book)
    back = whole_file_bytes(frame[["MYLABL", "MYORD"]], "sav", card={}, declaration=declaration)
    assert codebook(back, "synthetic.sav")["columns"]["MYORD"]["value_labels"] == {
        "1": "low",
        "2": "medium",
        "3": "high",
    }

    csv = shared_path("ce.csv")
    table = typed(pd.read_csv(csv, dtype=str)).set_axis(["urban", "income", "race", "expend"], axis=1)
    por = tmp_path / "ce.por"
    por.write_bytes(package_bytes(table, ".por"))
    frame, info = read_data(por)
    assert info["columns"] == ["URBAN", "INCOME", "RACE", "EXPEND"]
    expected, _ = read_table(csv)
    assert (frame.to_numpy() == expected.to_numpy()).all()
    ledger = Workspace(tmp_path / "ws").ledger
    from_csv = ledger.dataset_key(ledger.records_key(csv))
    assert ledger.dataset_key(ledger.records_key(por)) == from_csv
    monkeypatch.setattr(constraints, "MAX_PACKAGE_CELLS", 400)  # its metadata says no number of records
    with pytest.raises(DataError, match=r"^ce.por holds more than 100 records of 4 columns, more than the 400 cells"):
        read_data(por)
    saved = {"columns": {"urban": {"type": "categorical", "values": ["1", "2"]}, "race": {"type": "drop"}}}
    assert list(matched_to(saved, info["columns"])["columns"]) == ["URBAN", "RACE"]


def test_a_number_stored_with_decimals_and_named_after_a_zip_code_starts_as_a_number(tmp_path):
    """The name rules start a ``zip`` column as five digits of text; a codebook that stores it as a number shown with
    decimals says it is no code (the labor-market study's ``frac_black_emp_zip``, a share of a ZIP code's workers),
    so it starts as a decimal number; a whole number stored so, or text, keeps the ZIP code's start."""
    table = pd.DataFrame({"frac_black_emp_zip": [0.25, 0.5], "home_zip": [2134.0, 90210.0], "zip": ["02134", "90210"]})
    import pyreadstat

    pyreadstat.write_sav(table, tmp_path / "t.sav", variable_format={"home_zip": "F5.0"})
    found = codebook(tmp_path / "t.sav")["columns"]
    starts = {name: template_from_codebook(name, found[name]) for name in table.columns}
    assert starts["frac_black_emp_zip"] == {"type": "float", "decimals": 2}  # pyreadstat's F8.2
    assert starts["home_zip"] == starts["zip"] == {"type": "text", "generator": "digits", "length": 5}
