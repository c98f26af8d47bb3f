"""The chunked writer: a large synthetic table goes to CSV or Parquet one chunk at a time."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from dpsynth_core.data.parts import PARQUET_SUFFIXES
from dpsynth_core.errors import ParameterError
from dpsynth_core.release.own_formats import (
    SAME_FORMAT,
    WHOLE_FORMAT_HELP,
    WHOLE_FORMAT_NAMES,
    check_whole_format,
    same_format,
    whole_file_bytes,
)
from dpsynth_core.release.writer import csv_pieces, csv_text, output_format, write_synthetic


class Sampler:
    """A stand-in for a fitted model's ``sample(n)``: records every chunk size it was asked for."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.asked = []

    def __call__(self, n):
        self.asked.append(n)
        city = self.rng.choice(["Paris", "Lyon", None], n).astype(object)
        if len(self.asked) == 1:
            city[:] = None  # a column that is all missing in the first chunk
        return pd.DataFrame(
            {
                "age": pd.array(self.rng.integers(0, 90, n), dtype="Int64").astype("Int64"),
                "score": self.rng.random(n),
                "city": city,
            }
        )


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_chunks_make_one_table_and_never_more_than_a_chunk_is_asked_for(tmp_path, fmt):
    sampler = Sampler()
    path = tmp_path / f"out.{fmt}"
    assert write_synthetic(path, 25_001, sampler, chunk_rows=10_000) == 25_001
    assert sampler.asked == [10_000, 10_000, 5_001]
    back = pd.read_csv(path, keep_default_na=False, dtype=str) if fmt == "csv" else pq.read_table(path).to_pandas()
    assert len(back) == 25_001 and list(back.columns) == ["age", "score", "city"]
    if fmt == "parquet":
        assert pq.ParquetFile(path).metadata.num_row_groups == 3
        assert str(pq.read_schema(path).field("city").type) == "string"
    assert list(tmp_path.iterdir()) == [path]  # no partial file left beside it


def test_csv_in_chunks_is_byte_identical_to_one_write(tmp_path):
    whole = Sampler(seed=4)(9)
    parts = iter([whole.iloc[:4], whole.iloc[4:8], whole.iloc[8:]])
    write_synthetic(tmp_path / "chunked.csv", 9, lambda n: next(parts).reset_index(drop=True), chunk_rows=4)
    whole.to_csv(tmp_path / "whole.csv", index=False)
    assert (tmp_path / "chunked.csv").read_bytes() == (tmp_path / "whole.csv").read_bytes()


def test_empty_release_has_a_header_and_failures_leave_nothing(tmp_path):
    write_synthetic(tmp_path / "empty.csv", 0, Sampler())
    assert (tmp_path / "empty.csv").read_text().strip() == "age,score,city"

    def broken(n):
        if broken.calls:
            raise RuntimeError("model failed")
        broken.calls += 1
        return Sampler()(n)

    broken.calls = 0
    with pytest.raises(RuntimeError):
        write_synthetic(tmp_path / "out.parquet", 20, broken, chunk_rows=10)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.csv"]
    with pytest.raises(ValueError, match="must return a DataFrame of 10 rows"):
        write_synthetic(tmp_path / "x.csv", 10, lambda n: Sampler()(n + 1))
    with pytest.raises(ParameterError, match="names a spreadsheet"):
        write_synthetic(tmp_path / "out.ods", 5, Sampler())
    with pytest.raises(ParameterError, match="written whole"):
        write_synthetic(tmp_path / "out.xlsx", 5, Sampler())
    with pytest.raises(ParameterError, match="does not exist"):
        write_synthetic(tmp_path / "no" / "out.csv", 5, Sampler())


def test_one_rule_names_the_format_from_the_file_name(tmp_path):
    # Parquet for the engines' Parquet suffixes (any case); CSV for any other name, as the CLI
    # always wrote; refused for a suffix that promises another format (a CSV there would not open).
    for name in [f"out{suffix}" for suffix in PARQUET_SUFFIXES] + ["OUT.PARQUET", "out.Pq"]:
        assert output_format(name) == "parquet"
    for name in ("out.csv", "out.txt", "out.tsv", "out.dat", "out", "out.parquet.csv", "archive.2026"):
        assert output_format(name) == "csv"
    for name, kind in (
        ("out.csv.gz", "a compressed file"),
        ("out.zip", "a compressed file"),
        ("out.ODS", "a spreadsheet"),
        ("out.por", "another table format"),
        ("out.sas7bdat", "another table format"),
        ("out.json", "another table format"),
        ("synthetic.HTML", "a page or a script"),
        ("synthetic.pdf", "a page or a script"),
        ("synthetic.py", "a page or a script"),
    ):
        with pytest.raises(ParameterError, match=f"names {kind}"):
            output_format(name)
    assert [output_format(f"out{s}") for s in (".XLSX", ".sav", ".dta", ".xpt")] == ["xlsx", "sav", "dta", "xpt"]
    assert output_format("out.gz", "csv") == "csv"  # an explicit format is the caller's choice
    write_synthetic(tmp_path / "synthetic", 3, Sampler())
    write_synthetic(tmp_path / "synthetic.parq", 3, Sampler())
    assert (tmp_path / "synthetic").read_text().startswith("age,score,city\n")
    assert pq.read_table(tmp_path / "synthetic.parq").num_rows == 3


@pytest.mark.parametrize(
    "table",
    [
        pd.DataFrame({"a": ["x", None, "", "y"], "b": pd.array([1, None, -3, 2**40], dtype="Int64")}),
        pd.DataFrame({"a": ["x", None, 'say "hi"', "c,d"], "b": [1, 2, 3, 4]}),  # quoted by the csv writer
        pd.DataFrame({"a": ["x", None, "line\nbreak", "cr\rx"], "b": np.array([0, 1, 2, 3], dtype=np.uint8)}),
        pd.DataFrame({"a": ["x", None, "", "y"]}),  # one column: an empty field is written ""
        pd.DataFrame({"a col,": [" sp", "t "], 'b"': ["ü", "日本"]}),
        pd.DataFrame({"a": pd.Series([], dtype=object), "b": pd.Series([], dtype="Int64")}),
        pd.DataFrame({"a": [np.nan, None], "b": ["u", "v"]}, dtype=object),
        # left to pandas: floats, booleans, dates, mixed objects, pandas' own strings
        pd.DataFrame({"a": [1.5, None, 1e-20], "b": ["a", "b", "c"]}),
        pd.DataFrame({"a": [True, False, True], "b": ["a", "b", "c"]}),
        pd.DataFrame({"a": pd.to_datetime(["2020-01-01", None, "2021-02-03"]), "b": ["a", "b", "c"]}),
        pd.DataFrame({"a": ["x", 1, None], "b": ["a", "b", "c"]}),
        pd.DataFrame({"a": pd.array(["x", None, "z"], dtype="string"), "b": ["a", "b", "c"]}),
    ],
)
def test_csv_text_is_pandas_to_csv(table):
    """The workspace stores a release's file with csv_text: the bytes pandas would write, nothing else; and
    the writer's pieces (of one row here), with or without the header, join to the same."""
    assert csv_text(table) == table.to_csv(index=False)
    for header in (True, False):
        assert "".join(csv_pieces(table, header=header, piece_rows=1)) == table.to_csv(index=False, header=header)


def test_csv_text_of_a_release_is_pandas_to_csv():
    """A release-like table (whole numbers with missing cells, text with missing cells) in the fast path."""
    rng = np.random.default_rng(3)
    n = 5000
    table = pd.DataFrame(
        {
            "age": pd.array(np.where(rng.random(n) < 0.01, None, rng.integers(17, 90, n)), dtype="Int64"),
            "workclass": np.where(rng.random(n) < 0.05, None, rng.choice(["Private", "State-gov", "?"], n)).astype(
                object
            ),
            "hours": rng.integers(1, 99, n),
        }
    )
    assert csv_text(table) == table.to_csv(index=False)


def test_a_publishers_format_is_typed_by_the_declaration_and_names_are_checked_before_the_draw(tmp_path):
    import io

    import openpyxl

    from dpsynth_core.release import prepare
    from tests.conftest import complete_domain, shared_path

    declaration = {
        "columns": {
            "day": {"type": "date", "min": "2020-01-01", "max": "2020-12-31"},
            "n": {"type": "integer", "min": 0, "max": 9},
            "city": {"type": "categorical", "values": ["Lyon", "Paris"]},
        }
    }
    table = pd.DataFrame({"day": ["2020-03-01", None], "n": pd.array([3, None], dtype="Int64"), "city": ["Lyon", None]})
    card = {"title": "t", "guarantee": {"epsilon": None}, "notes": ["a note"], "domain": {"columns": []}}
    sheet = openpyxl.load_workbook(io.BytesIO(whole_file_bytes(table, "xlsx", card=card, declaration=declaration)))
    cells = [[c.value for c in row] for row in sheet["synthetic"].iter_rows()]
    assert cells[0] == ["day", "n", "city"] and cells[1][1:] == [3, "Lyon"] and cells[1][0].year == 2020
    assert cells[2] == [None, None, None]  # missing cells stay empty
    assert ["Note", "a note"] in [[c.value for c in r] for r in sheet["about this release"].iter_rows()]
    with pytest.raises(ParameterError, match="column 'my city' is not an SPSS variable name"):
        check_whole_format("sav", ["age", "my city"])
    with pytest.raises(ParameterError, match="is not a Stata variable name"):
        check_whole_format("dta", ["capital-gain"])
    # the refusal comes from prepare, before anything is read or priced
    with pytest.raises(ParameterError, match="column 'education-num' is not a Stata variable name"):
        prepare(shared_path("adult_test.csv"), complete_domain("adult_test"), 1.0, out=tmp_path / "a.dta")


def test_numbers_codes_and_days_are_shown_as_the_declaration_says_in_spss_stata_and_excel():
    """Whole numbers and whole-number codes without decimals (SPSS showed 74.00), an SPSS decimal column wide
    enough for its declared range (F8.2 shows 100,000 and more in E notation), days as dates (not midnights)."""
    import io

    import openpyxl

    from dpsynth_core.data.formats import codebook

    declaration = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 120},
            "pay": {"type": "float", "min": -5, "max": 1_000_000},
            "share": {"type": "float", "min": 0, "max": 1, "decimals": 3},
            "region": {"type": "categorical", "values": ["1", "2", "10"]},
            "day": {"type": "date", "min": "2020-01-01", "max": "2020-12-31"},
            "clock": {"type": "time"},
        }
    }
    table = pd.DataFrame(
        {
            "age": ["74", None],
            "pay": ["250000.5", "3"],
            "share": ["0.125", "1"],
            "region": ["10", "1"],
            "day": ["2020-03-01", None],
            "clock": [None, "21:35:34"],
        }
    )
    formats = {
        fmt: {
            c: e["format"]
            for c, e in codebook(whole_file_bytes(table, fmt, card={}, declaration=declaration), f"s.{fmt}")[
                "columns"
            ].items()
        }
        for fmt in ("sav", "dta", "xpt")
    }
    assert formats["sav"] == {
        **{"age": "F4.0", "pay": "F11.2", "share": "F6.3", "region": "F3.0", "day": "DATE11", "clock": "TIME8"}
    }
    assert formats["dta"] == {
        **{"age": "%4.0f", "pay": "%10.0g", "share": "%10.0g", "region": "%3.0f", "day": "%td"},
        "clock": "%tcHH:MM:SS",  # a time of day, as each package keeps one
    }
    assert formats["xpt"] == {"age": "4", "pay": "11.2", "share": "6.3", "region": "3", "day": "DATE", "clock": "TIME"}
    card = {"title": "t", "guarantee": {"epsilon": None}, "domain": {"columns": []}}
    sheet = openpyxl.load_workbook(io.BytesIO(whole_file_bytes(table, "xlsx", card=card, declaration=declaration)))
    day = sheet["synthetic"]["E2"]
    assert day.value.date().isoformat() == "2020-03-01" and day.number_format.upper() == "YYYY-MM-DD"
    clock = sheet["synthetic"]["F3"]  # a time, not its text (pandas writes one as text)
    assert clock.value.isoformat() == "21:35:34" and clock.number_format == "hh:mm:ss"
    assert sheet["synthetic"]["F2"].value is None


def test_a_parquet_copy_holds_typed_columns_and_reads_back_as_the_same_cells():
    """The app's Parquet download (for a Parquet upload): whole numbers as 64-bit integers, decimals as doubles, days
    as dates, categories as text, missing cells null; read back by the project's own reader, every cell is the text
    the stored release holds."""
    import io

    import pyarrow.parquet as pq

    from dpsynth_core.data.formats import read_data

    declaration = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 120},
            "pay": {"type": "float", "min": -5, "max": 1_000_000},
            "region": {"type": "categorical", "values": ["1", "2", "10"]},
            "day": {"type": "date", "min": "2020-01-01", "max": "2020-12-31"},
            "clock": {"type": "time", "step": "minute"},
        }
    }
    table = pd.DataFrame(
        {
            **{"age": ["74", None], "pay": ["250000.5", "3"], "region": ["10", ""], "day": ["2020-03-01", None]},
            "clock": ["09:05", None],
        }
    )
    raw = whole_file_bytes(table, "parquet", card={}, declaration=declaration)
    assert pq.read_table(io.BytesIO(raw)).column("region").null_count == 1  # missing, as the stored release has it
    table.loc[1, "region"] = "1"
    raw = whole_file_bytes(table, "parquet", card={}, declaration=declaration)
    schema = pq.read_schema(io.BytesIO(raw))
    assert [str(schema.field(c).type).replace("large_", "") for c in table] == [
        "int64",
        "double",
        "string",
        "date32[day]",
        "time64[us]",
    ]
    back, _ = read_data(raw, name="synthetic.parquet")
    assert back.to_dict("list") == {
        "age": ["74", ""],
        "pay": ["250000.5", "3"],
        "region": ["10", "1"],
        "day": ["2020-03-01", ""],
        "clock": ["09:05:00", ""],  # the same time, read back to the second
    }


def _codebook_out(fmt: str, source: bytes, suffix: str, table: pd.DataFrame):
    """The codebook of ``source`` (a package's file), the declaration it starts, confirmed, and the codebook
    of ``table`` written back as ``fmt`` with that declaration."""
    from dpsynth_core.data.formats import codebook
    from dpsynth_core.domain.templates import declaration_from_names

    found = codebook(source, f"table{suffix}")
    declaration = declaration_from_names(list(table.columns), codebook=found)
    back = whole_file_bytes(table, fmt, card={}, declaration=declaration)
    return found, declaration, codebook(back, f"synthetic.{fmt}")


def test_a_sas_file_is_answered_with_a_transport_file_that_reads_back_as_the_same_cells(tmp_path):
    """A SAS transport file (.xpt) of the synthetic table: numbers, codes as numbers, days as dates, times as
    times, text as text, the codebook's variable labels; version 5 when its names, labels and text fit, so SAS's
    XPORT engine reads it, else version 8 (a name of 9 characters or more)."""
    import pyreadstat

    from dpsynth_core.data.formats import read_data

    declaration = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 120},
            "sex": {"type": "categorical", "values": ["1", "2"], "labels": {"1": "Male", "2": "Female"}},
            "city": {"type": "categorical", "values": ["Lyon", "Paris"]},
            "day": {"type": "date", "min": "2020-01-01", "max": "2020-12-31"},
            "seen": {"type": "datetime", "min": "2020-01-01", "max": "2020-12-31"},
        },
        "notes": {"codebook": {"columns": {"age": {"label": "Age in years"}}}},
    }
    table = pd.DataFrame(
        {
            "age": ["74", None, "3"],
            "sex": ["2", "1", None],
            "city": ["Lyon", None, "Paris"],
            "day": ["2020-03-01", None, "2020-12-31"],
            "seen": ["2020-03-01 10:30:05", "2020-05-01 00:00:00", None],
        }
    )
    raw = whole_file_bytes(table, "xpt", card={}, declaration=declaration)
    assert raw.startswith(b"HEADER RECORD*******LIBRARY HEADER RECORD")  # version 5's header (8 says LIBV8)
    back, _ = read_data(raw, name="synthetic.xpt")  # read as the app reads an upload: cells as text
    assert back.to_dict("list") == {
        "age": ["74", "", "3"],
        "sex": ["2", "1", ""],  # codes, as SAS keeps them
        "city": ["Lyon", "", "Paris"],
        "day": ["2020-03-01", "", "2020-12-31"],
        "seen": ["2020-03-01 10:30:05", "2020-05-01", ""],
    }
    (tmp_path / "s.xpt").write_bytes(raw)
    _, meta = pyreadstat.read_xport(str(tmp_path / "s.xpt"))
    assert meta.column_names_to_labels["age"] == "Age in years"
    long = whole_file_bytes(table.rename(columns={"age": "age_in_years"}), "xpt", card={}, declaration=declaration)
    assert b"LIBV8" in long[:80] and read_data(long, name="s.xpt")[0].columns[0] == "age_in_years"
    wordy = table.assign(city=["Lyon", None, "P" * 250])  # text past version 5's 200 bytes
    assert read_data(whole_file_bytes(wordy, "xpt", card={}, declaration={}), name="s.xpt")[0]["city"][2] == "P" * 250
    with pytest.raises(ParameterError, match="is not a SAS variable name"):
        check_whole_format("xpt", ["capital-gain"])
    assert same_format("survey.sas7bdat") == same_format("survey.XPT") == "xpt"
    assert set(WHOLE_FORMAT_NAMES) == set(WHOLE_FORMAT_HELP) == set(SAME_FORMAT.values())  # each named and explained


def test_declared_missing_codes_and_their_labels_come_back_in_spss_and_stata():
    """SPSS's declared codes (a code, a range) and Stata's labelled extended missing values (.a-.z) are
    read as missing, kept out of the categories, and declared again, with their labels, in the file written."""
    from dpsynth_core.data.formats import read_data
    from tests.publisher_files import package_bytes

    sex = pd.Series([1.0, 2.0, "a", 2.0, "b"], dtype=object)
    stata = package_bytes(
        pd.DataFrame({"sex": sex, "age": [30.0, 41.0, 52.0, "a", 18.0]}).astype(object),
        ".dta",
        missing_user_values={"sex": ["a", "b"], "age": ["a"]},
        variable_value_labels={"sex": {1: "Male", 2: "Female", "a": "Refused"}},
    )
    frame, _ = read_data(stata, name="table.dta")
    assert frame["sex"].tolist() == ["1", "2", "", "2", ""] and frame["age"].tolist()[3] == ""
    synthetic = pd.DataFrame({"sex": ["2", None, "1"], "age": ["30", "40", None]})
    found, declaration, back = _codebook_out("dta", stata, ".dta", synthetic)
    assert found["columns"]["sex"]["missing"] == [".a"]  # the labelled one: .b is used, not declared
    assert declaration["columns"]["sex"] == {
        "type": "categorical",
        "values": ["1", "2"],
        "labels": {"1": "Male", "2": "Female"},
    }
    assert back["columns"]["sex"]["value_labels"] == {"1": "Male", "2": "Female", ".a": "Refused"}
    assert back["columns"]["sex"]["missing"] == [".a"]

    spss = package_bytes(
        pd.DataFrame({"race": [1.0, 2.0, 9.0, 97.0], "note": ["x", "NA", "y", "z"]}),
        ".sav",
        missing_ranges={"race": [9.0, {"lo": 97.0, "hi": 99.0}], "note": ["NA"]},
        variable_value_labels={"race": {1: "White", 2: "Black", 9: "DK", 98: "Refused"}},
    )
    synthetic = pd.DataFrame({"race": ["1", None], "note": ["x", None]})
    found, _, back = _codebook_out("sav", spss, ".sav", synthetic)
    assert sorted(found["columns"]["race"]["missing"], key=str) == ["9", ["97", "99"]]
    for column in ("race", "note"):
        for key in ("missing", "value_labels"):
            assert back["columns"][column][key] == found["columns"][column][key], (column, key)
    # a Stata code is not an SPSS one (and the other way round): left out, never an error
    _, _, other = _codebook_out("sav", stata, ".dta", pd.DataFrame({"sex": ["1"], "age": ["3"]}))
    assert other["columns"]["sex"]["missing"] == [] and other["columns"]["sex"]["value_labels"] == {
        "1": "Male",
        "2": "Female",
    }


def test_chunks_drawn_as_arrow_make_the_file_their_dataframes_make():
    """Chunks as Arrow tables (``Model.chunk_sampler(arrow=True)``: text as dictionary arrays, numbers with
    missing cells) read back as the file their DataFrames (the same values, ``Decoded.series``) make, with
    the same types (text as text), and the numbers' statistics (the text's are left out)."""
    from dpsynth_core.data.arrow_chunks import arrow_table
    from dpsynth_core.data.decoding import Decoded

    rng = np.random.default_rng(4)

    def chunk(n):
        missing = rng.random(n) < 0.2
        return {
            "age": Decoded(missing, values=rng.integers(0, 90, n), dtype="Int64"),
            "city": Decoded(~missing, labels=np.array(["Paris", "Lyon"], dtype=object), indices=rng.integers(0, 2, n)),
            "score": Decoded(missing, values=rng.random(n), dtype="float"),
        }

    chunks = [chunk(n) for n in (400, 400, 150)]
    frames, tables = iter([{c: d.series() for c, d in k.items()} for k in chunks]), iter(chunks)
    with tempfile.TemporaryDirectory() as folder:
        written = {}
        for name, sample in (
            ("frames", lambda n: pd.DataFrame(next(frames))),
            ("arrow", lambda n: arrow_table({c: d.arrow() for c, d in next(tables).items()})),
        ):
            path = Path(folder) / f"{name}.parquet"
            assert write_synthetic(path, 950, sample, chunk_rows=400) == 950
            written[name] = pd.read_parquet(path)
        pd.testing.assert_frame_equal(written["arrow"], written["frames"])
        assert written["arrow"]["city"].isna().sum() > 100 and written["arrow"]["age"].isna().sum() > 100
        schemas = [pq.read_schema(Path(folder) / f"{name}.parquet").remove_metadata() for name in written]
        assert schemas[0] == schemas[1] and str(schemas[0].field("city").type) == "string"
        metadata = pq.read_metadata(Path(folder) / "arrow.parquet")
        statistics = [metadata.row_group(0).column(k).is_stats_set for k in range(3)]
        assert statistics == [True, False, True]


#: How the CSV writes a typed Parquet cell of each column of the moments' test below.
AS_TEXT = {"day": str, "moment": lambda m: m.strftime("%Y-%m-%d %H:%M"), "clock": lambda t: t.strftime("%H:%M")}


def test_every_parquet_writer_types_days_moments_and_times_of_day_alike(tmp_path):
    """nyc_weather's hourly readings, with a day, a month (written 2013-01), a time of day and an HHMM time taken
    from its moment: written as Parquet by the chunked writer (``marginals``, drawn as Arrow), from a table in
    memory (``dirichlet``, drawn in one piece) and as the app's download, the days are dates, the moments
    timestamps, the times of day times (microseconds, as Spark writes them), and the month and the HHMM time
    stay as written. Read back, every cell is the text the same release writes in a CSV."""
    import io

    import pyarrow as pa

    from dpsynth_core import synthesize
    from dpsynth_core.domain import as_table_domain

    nyc = Path(__file__).resolve().parents[3] / "benchmarks" / "datasets" / "nyc_weather.csv"
    moment = pd.to_datetime(pd.read_csv(nyc)["time_hour"]).iloc[:1000]
    real = pd.DataFrame(
        {
            "day": moment.dt.strftime("%Y-%m-%d"),
            "month": moment.dt.strftime("%Y-%m"),
            "moment": moment.dt.strftime("%Y-%m-%d %H:%M").where(moment.dt.hour >= 6),  # a quarter missing
            "clock": moment.dt.strftime("%H:%M"),
            "hhmm": (moment.dt.hour * 100).astype(str),
        }
    )
    declaration = {
        "columns": {
            "day": {"type": "date", "min": "2013-01-01", "max": "2013-12-31"},
            "month": {"type": "date", "min": "2013-01-01", "max": "2013-12-31", "written": "year and month"},
            "moment": {"type": "datetime", "min": "2013-01-01 00:00", "max": "2013-12-31 23:00", "step": "hour"},
            "clock": {"type": "time", "step": "minute"},
            "hhmm": {"type": "time", "step": "minute", "written": "HHMM"},
        }
    }
    expected = ["date32[day]", "string", "timestamp[us]", "time64[us]", "string"]
    for method in ("marginals", "dirichlet"):
        kept = synthesize(real, declaration, 1.0, method=method, random_state=3, chunk_rows=400)
        synthesize(real, declaration, 1.0, method=method, random_state=3, chunk_rows=400, out=tmp_path / "r.parquet")
        schema = pq.read_schema(tmp_path / "r.parquet")
        assert [str(schema.field(c).type).replace("large_", "") for c in real] == expected, method
        back = pq.read_table(tmp_path / "r.parquet").to_pandas()
        assert back["moment"].isna().sum() == kept.data["moment"].isna().sum() > 0
        shown = back.apply(lambda c: c.map(AS_TEXT.get(c.name, str), na_action="ignore").astype(object))
        pd.testing.assert_frame_equal(
            shown.where(back.notna(), None), kept.data.astype(object).where(kept.data.notna(), None)
        )
        raw = whole_file_bytes(kept.data, "parquet", card={}, declaration=declaration)
        assert pq.read_schema(io.BytesIO(raw)).remove_metadata() == schema.remove_metadata()
    # a method drawing text (a DataFrame) is typed by the same rule, text read as its type
    from dpsynth_core.data.arrow_chunks import typed

    as_text = pa.table({c: [v] for c, v in zip(real, ["2013-05-02", "2013-05", "2013-05-02 07:00", "07:30", "730"])})
    retyped = typed(as_text, as_table_domain(declaration))
    assert [str(t) for t in retyped.schema.types] == expected
    assert retyped.to_pylist()[0]["clock"].isoformat() == "07:30:00"
