"""Reading tables: encodings, delimiters, and clear messages for files that cannot be read."""

import pytest

from dpsynth_core.errors import DataError
from dpsynth_core.tables import read_table
from tests.conftest import FIXTURES, shared_path


def test_reads_adult_as_text():
    frame, info = read_table(shared_path("adult.csv"))
    assert frame.shape == (32_561, 15) and info["delimiter"] == "," and info["encoding"] == "utf-8"
    assert frame["age"].iloc[0] == "39"


def test_keeps_duplicate_header_names_as_pandas_does():
    frame, _ = read_table(shared_path("compas.csv"))
    assert "decile_score.1" in frame.columns and "priors_count.1" in frame.columns


def test_detects_semicolons_and_tabs(tmp_path):
    frame, info = read_table(FIXTURES / "semicolon.csv")
    assert list(frame.columns) == ["a", "b", "c"] and info["delimiter"] == ";"
    tsv = tmp_path / "t.tsv"
    tsv.write_text("x\ty\n1\t2\n")
    assert read_table(tsv)[1]["delimiter"] == "tab"


def test_windows_1252_is_read_and_reported():
    frame, info = read_table(FIXTURES / "latin1.csv")
    assert info["encoding"] == "cp1252" and frame["name"].iloc[0] == "José"


def test_utf16_with_bom(tmp_path):
    path = tmp_path / "u.csv"
    path.write_bytes("a,b\n1,é\n".encode("utf-16"))
    assert read_table(path)[0]["b"].iloc[0] == "é"


@pytest.mark.parametrize("content,message", [
    (b"", "empty"),
    (b"a,b\n", "no data rows"),
    (b"PK\x03\x04rest-of-zip", "spreadsheet"),
    (b"a,b\x00\x01\x02", "binary"),
])
def test_clear_messages(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(DataError, match=message):
        read_table(path)


def test_malformed_csv_message():
    with pytest.raises(DataError, match="not a well-formed CSV"):
        read_table(FIXTURES / "malformed.csv")


def test_missing_file():
    with pytest.raises(DataError, match="not found"):
        read_table("/no/such/file.csv")
