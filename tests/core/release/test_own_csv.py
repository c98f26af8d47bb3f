"""A CSV written as the publisher's CSV was read: its delimiter, its encoding, its decimal commas and percent signs
(post-processing of the stored synthetic table)."""

from __future__ import annotations

import pandas as pd

from dpsynth_core.data.cell_values import read_numbers
from dpsynth_core.data.formats import read_data
from dpsynth_core.release.own_csv import csv_as_read_bytes, csv_dialect, describe
from tests.conftest import complete_domain, shared_path

#: A European spreadsheet's export of ce: semicolons, decimal commas, Windows-1252 (a name with an umlaut).
DECLARATION = {
    "columns": {
        "city": {"type": "categorical", "values": ["Zürich", "Genève"]},
        "pay": {"type": "float", "min": 0, "max": 10000, "decimals": 2, "written": "decimal comma"},
        "rate": {"type": "float", "min": 0, "max": 100, "decimals": 1, "written": "percent"},
        "n": {"type": "integer", "min": 0, "max": 100},
    }
}


def _read(raw: bytes, tmp_path, name="t.csv"):
    (tmp_path / name).write_bytes(raw)
    return read_data(tmp_path / name)


def test_a_semicolon_file_in_windows_1252_is_answered_in_its_dialect_and_reads_back_as_the_same_values(tmp_path):
    raw = "city;pay;rate;n\nZürich;1.234,50;12,5%;3\nGenève;12,25;97%;\n".encode("cp1252")
    _, info = _read(raw, tmp_path)
    dialect = csv_dialect(info, DECLARATION)
    written = {"pay": "decimal comma", "rate": "percent"}
    assert dialect == {"encoding": "cp1252", "delimiter": ";", "written": written, "header": True}
    assert describe(dialect) == (
        "Written as your file was read: fields separated by ';', text in Windows-1252, decimal commas in 'pay', "
        "percent signs in 'rate'."
    )
    synthetic = pd.DataFrame(  # the release's stored cells: text, numbers written plainly, missing cells empty
        {
            "city": ["Zürich", "Genève", ""],
            "pay": ["1234.5", "12.25", ""],
            "rate": ["12.5", "97", "3"],
            "n": ["3", "", "7"],
        }
    )
    out = csv_as_read_bytes(synthetic, dialect)
    assert out.decode("cp1252").splitlines()[:2] == ["city;pay;rate;n", "Zürich;1234,5;12.5%;3"]
    frame, again = _read(out, tmp_path, "back.csv")
    assert again["delimiter"] == ";" and "windows-1252" in again["encoding"]
    for name, values in {"pay": [1234.5, 12.25, None], "rate": [12.5, 97.0, 3.0]}.items():  # as the release reads
        got = read_numbers(frame[name], DECLARATION["columns"][name]["written"]).tolist()
        assert [None if pd.isna(v) else v for v in got] == values, name
    assert frame["city"].tolist() == ["Zürich", "Genève", ""]


def test_a_file_read_with_the_encoding_an_auto_choice_named_is_written_back_in_it(tmp_path):
    """Lines read as Windows-1250 under ``auto:cp1250`` (a data package's label): the copy is Windows-1250."""
    raw = "city;n\nŁódź;3\n".encode("cp1250")
    (tmp_path / "pl.csv").write_bytes(raw)
    _, info = read_data(tmp_path / "pl.csv", encoding="auto:cp1250")
    dialect = csv_dialect(info, {"columns": {"city": {"type": "categorical", "values": ["Łódź"]}}})
    assert dialect["encoding"] == "cp1250" and "text in Windows-1250" in describe(dialect)
    out = csv_as_read_bytes(pd.DataFrame({"city": ["Łódź"], "n": ["3"]}), dialect)
    assert out.decode("cp1250").splitlines() == ["city;n", "Łódź;3"]


def test_a_plain_csv_needs_no_second_copy_and_a_value_the_encoding_cannot_hold_keeps_the_file_whole(tmp_path):
    _, info = _read(shared_path("ce.csv").read_bytes(), tmp_path)
    assert csv_dialect(info, complete_domain("ce")) is None  # commas, UTF-8, numbers plain: the CSV itself
    assert csv_dialect({"encoding": None, "delimiter": None}, complete_domain("ce")) is None  # a spreadsheet
    _, tabs = _read("a\tb\nx\t1\n".encode("utf-16"), tmp_path, "tabs.csv")
    dialect = csv_dialect(tabs, {"columns": {}})
    assert dialect == {"encoding": "utf-16", "delimiter": "\t", "written": {}, "header": True}
    assert csv_as_read_bytes(pd.DataFrame({"a": ["x"], "b": ["1"]}), dialect).decode("utf-16") == "a\tb\r\nx\t1\r\n"
    far = {"encoding": "cp1252", "delimiter": ";", "written": {}}  # a declared value of another script
    out = csv_as_read_bytes(pd.DataFrame({"city": ["Zürich", "東京"]}), far)
    assert out.startswith(b"\xef\xbb\xbf") and "東京" in out.decode("utf-8-sig")


def test_a_file_without_a_header_line_is_answered_without_one(tmp_path):
    """UCI's adult.data (commas, UTF-8, no header line), read with the names adult.names lists: the copy as the file
    was read has no header line either, each field in its place (a column the release drops left empty there, so a
    reader of the file's layout reads the others where they were), and reads back as the same cells."""
    adult = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False).head(50)
    names = tuple(adult.columns)
    (tmp_path / "adult.data").write_bytes(adult.to_csv(index=False, header=False).encode())
    frame, info = read_data(tmp_path / "adult.data", header_rows=0, names=names)
    dialect = csv_dialect(info, complete_domain("adult"))
    assert dialect == {"encoding": "utf-8", "delimiter": ",", "written": {}, "header": False, "columns": list(names)}
    assert describe(dialect).endswith("no header line (each field in its place).")
    out = csv_as_read_bytes(frame, dialect)
    assert out.decode().splitlines()[0] == ",".join(adult.iloc[0])
    again, _ = read_data(out, name="back.data", header_rows=0, names=names)
    pd.testing.assert_frame_equal(again, frame)
    released = frame.drop(columns=["fnlwgt", "education-num"])  # dropped by the declaration: empty in their place
    again, _ = read_data(csv_as_read_bytes(released, dialect), name="back.data", header_rows=0, names=names)
    assert again["fnlwgt"].eq("").all() and again.drop(columns=["fnlwgt", "education-num"]).equals(released)
