"""benchmarks.robustness.unseen: a non-expert's declaration that the real table fits, a check that finds what a
release puts outside it, and the three doors run on a checkout laid out as Rdatasets' (the repository's copy of
palmerpenguins' table, with Rdatasets' row names), a crash counted as one."""

import json
import random

import numpy as np
import pandas as pd
import pytest

from benchmarks import common
from benchmarks.robustness import unseen
from dpsynth_core.domain import TableDomain
from tests.benchmarks.checkouts import penguins_checkout


def _table(rows: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, rows),
            "kids": rng.integers(0, 4, rows),
            "share": rng.random(rows).round(3),
            "town": rng.choice(["Leeds", "York", "Hull"], rows),
            "name": [f"person{i}" for i in range(rows)],  # many values: free text
            "day": pd.date_range("1994-03-01", periods=rows, freq="7D").strftime("%Y-%m-%d"),
            "smoker": rng.random(rows) < 0.3,
            "empty": [np.nan] * rows,
        }
    )


@pytest.mark.parametrize("seed", range(6))
def test_a_loose_declaration_is_valid_and_the_real_table_lies_inside_it(seed):
    frame = _table()
    spec = unseen.declare_loosely(frame, random.Random(seed))
    TableDomain.from_json(spec)
    columns = spec["columns"]
    assert columns["empty"] == {"type": "drop"} and columns["day"]["type"] == "date"
    assert columns["name"]["type"] == "text" and columns["smoker"]["values"] == ["False", "True"]
    assert columns["age"]["min"] <= 18 and columns["age"]["max"] >= 89
    assert unseen.outside_declaration(frame.assign(smoker=frame["smoker"].astype(str)), spec) == []


def test_the_check_names_every_value_outside_the_declaration():
    spec = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 100, "missing": False},
            "share": {"type": "float", "min": 0.0, "max": 1.0},
            "town": {"type": "categorical", "values": ["Leeds", "York"]},
            "day": {"type": "date", "min": "1990-01-01", "max": "1999-12-31"},
            "gone": {"type": "drop"},
        }
    }
    fits = pd.DataFrame({"age": [3, 40], "share": [0.5, np.nan], "town": ["York", None], "day": ["1994-01-02", None]})
    assert unseen.outside_declaration(fits, spec) == []
    broken = pd.DataFrame(
        {"age": [3.5, np.nan], "share": [1.5, 0], "town": ["Hull", "York"], "day": ["2004-01-02", None]}
    )
    found = unseen.outside_declaration(broken, spec)
    assert [line.split(":")[0] for line in found] == ["age", "age", "share", "town", "day"], found
    assert "missing cells where none are declared" in found[1]


def test_every_door_runs_on_a_checkout_and_writes_one_line_per_run(tmp_path, monkeypatch):
    monkeypatch.setattr(common, "RESULTS", tmp_path / "results")
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(tmp_path / "workspace"))
    argv = [
        "--root",
        str(penguins_checkout(tmp_path)),
        "--seed",
        "3",
        "--count",
        "1",
        "--methods",
        "marginals",
        "cathist",
    ]
    table = unseen.main(argv + ["--doors", "library", "app", "--epsilon", "0.05", "--out", "try"])  # cli: the next test
    assert list(table.index) == ["library", "app"]
    assert (table["crash"] == 0).all() and (table["outside"] == 0).all() and (table["ok"] >= 1).all(), table
    lines = [json.loads(line) for line in (tmp_path / "results" / "try.jsonl").read_text().splitlines()]
    assert len(lines) == table["runs"].sum() and {r["table"] for r in lines} == {"palmerpenguins/penguins"}
    assert [r["what"].split(":")[0] for r in lines if r["door"] == "library"] == ["marginals", "cathist"]
    assert [r["what"].split(":")[1] for r in lines if r["door"] == "app"] != []  # the upload kind, the method
    assert {r["epsilon"] for r in lines} == {0.05}
    assert [r["message"] for r in lines if r["door"] == "app" and "at epsilon 0.05" in r["message"]], lines


def test_the_command_line_door_draws_its_method_and_engine_from_those_asked(tmp_path, monkeypatch):
    """``--cli-methods`` and ``--engines`` choose what ``synth`` runs (the Spark hunt: ``--engines spark``), and every
    command of the door runs as a real process, ``synth``'s release checked against the declaration."""
    monkeypatch.setattr(common, "RESULTS", tmp_path / "results")
    root = str(penguins_checkout(tmp_path))
    argv = ["--root", root, "--seed", "3", "--count", "1", "--doors", "cli", "--out", "cli"]
    table = unseen.main(argv + ["--cli-methods", "cathist", "--engines", "duckdb", "--epsilon", "0.5"])
    lines = [json.loads(line) for line in (tmp_path / "results" / "cli.jsonl").read_text().splitlines()]
    synth = [r for r in lines if r["what"].startswith("synth")]
    assert [r["what"].split(":")[:3] for r in synth] == [["synth", "cathist", "duckdb"]], lines
    assert synth[0]["status"] == "ok" and synth[0]["outside"] == [], synth
    steps = [r["what"] for r in lines]
    assert {"declare", "check-declaration", "report", "compare", "ledger"} <= set(steps), steps
    assert table.loc["cli", "crash"] == 0


def test_a_command_is_a_crash_unless_it_ends_or_refuses_in_one_error_line():
    assert unseen.cli_outcome(0, "note: 3 columns still need their values") == ("ok", "")
    refused = unseen.cli_outcome(2, "For you only...\nerror: 1 column does not fit")
    assert refused == ("refused", "error: 1 column does not fit")
    assert unseen.cli_outcome(1, "Traceback (most recent call last):\n  KeyError: 'age'")[0] == "crash"
    assert unseen.cli_outcome(1, "")[0] == "crash"  # an exit status no command gives
    assert unseen.cli_outcome(2, "something went wrong")[0] == "crash"  # a refusal that does not say error:
    assert unseen.cli_outcome(0, "error: but it went on")[0] == "crash"


def test_a_crash_and_a_value_outside_are_counted(tmp_path, monkeypatch):
    """The hunt can fail: a library that raises something other than a one-line refusal is a crash, and one that
    releases a value outside the declaration is listed."""
    import dpsynth_core

    frame = _table(60).drop(columns=["empty"])
    spec = unseen.declare_loosely(frame, random.Random(1))

    def broken(*args, **kwargs):
        raise KeyError("age")

    monkeypatch.setattr(dpsynth_core, "synthesize", broken)
    crashed = unseen.library_door("t", frame, spec, ["marginals"], random.Random(0))
    assert crashed[0]["status"] == "crash" and "KeyError" in crashed[0]["message"]

    class Loose:
        data = frame.assign(age=frame["age"] + 1000, smoker=frame["smoker"].astype(str))

    monkeypatch.setattr(dpsynth_core, "synthesize", lambda *a, **k: Loose())
    loose = unseen.library_door("t", frame, spec, ["marginals"], random.Random(0))
    assert loose[0]["status"] == "ok" and [line.split(":")[0] for line in loose[0]["outside"]] == ["age"]
    assert unseen.summary(crashed + loose)[["crash", "outside"]].iloc[0].tolist() == [1, 1]

    def noisy(*args, **kwargs):  # a release that prints a warning on a publisher's terminal (deniability's overflow)
        import warnings

        warnings.warn("overflow encountered in reduce", RuntimeWarning, stacklevel=1)
        return Loose()

    monkeypatch.setattr(dpsynth_core, "synthesize", noisy)
    warned = unseen.library_door("t", frame, spec, ["marginals"], random.Random(0))
    assert warned[0]["message"] == "warning: RuntimeWarning: overflow encountered in reduce"
    assert unseen.summary(crashed + loose + warned)["warned"].iloc[0] == 1
    said = "/x/deniability.py:113: RuntimeWarning: overflow encountered in reduce\n  if float(np.prod(r)) < 2**62:\n"
    assert unseen.cli_outcome(0, said) == (
        "ok",
        "warning: /x/deniability.py:113: RuntimeWarning: overflow encountered in reduce",
    )


def test_a_declaration_kept_as_loaded_is_compared_as_the_domain_page_keeps_it():
    """The page leaves out ``missing: true`` (the default) and reads categories without the spaces around them;
    anything else it drops or changes is a change the app door reports."""
    loaded = {"type": "categorical", "values": [" Male", "Female "], "missing": True}
    assert unseen._as_kept(loaded) == unseen._as_kept({"type": "categorical", "values": ["Male", "Female"]})
    letters = {"type": "text", "generator": "letters", "max_length": 60, "alphabet": "ab"}
    assert unseen._as_kept({k: v for k, v in letters.items() if k != "max_length"}) != unseen._as_kept(letters)
    assert unseen._as_kept({"type": "float", "min": 0, "max": 1, "missing": False}) != unseen._as_kept(
        {"type": "float", "min": 0, "max": 1}
    )


def test_a_column_whose_values_repeat_as_a_persons_rows_is_taken_for_a_person_half_the_time(tmp_path):
    frame = pd.DataFrame({"firm": np.repeat(np.arange(10), 20), "year": np.tile(np.arange(1935, 1955), 10)})
    frame["value"] = np.arange(200) * 1.5  # every value once: no person
    chosen = [unseen.person_column(frame, random.Random(seed)) for seed in range(40)]
    assert set(chosen) == {"firm", "year", None} and 10 <= chosen.count(None) <= 30
    assert unseen.person_column(frame[["value"]], random.Random(0)) is None
    check = tmp_path / "check.json"
    check.write_text(json.dumps({"check": {"noisy": [0] * 15 + [10], "epsilon": 0.1, "cap": 16}}))
    assert unseen._bound(check) == 3  # 160 rows against a typical error of 547: the check cannot tell
    check.write_text(json.dumps({"check": {"noisy": [5000, 0, 0, 0] + [0] * 12, "epsilon": 1.0, "cap": 16}}))
    assert unseen._bound(check) == 1


def test_a_table_released_per_person_drops_the_identifier_and_bounds_its_rows():
    spec = unseen.per_person({"columns": {"firm": {"type": "integer", "min": 0, "max": 9}}}, "firm")
    assert spec["columns"]["firm"] == {"type": "drop"} and spec["person"] == {"column": "firm", "max_rows": 3}


def test_tables_are_drawn_by_their_size(tmp_path):
    root = penguins_checkout(tmp_path)  # penguins: 344 rows
    assert [name for name, _, _ in unseen.tables(root, 0, 5)] == ["palmerpenguins/penguins"]
    assert list(unseen.tables(root, 0, 5, rows=(1000, 60_000))) == []
    assert list(unseen.tables(root, 0, 5, columns=(41, 1000))) == []  # penguins: 8 columns, not a wide table
    assert len(list(unseen.tables(root, 0, 5, columns=(8, 8)))) == 1


@pytest.mark.parametrize("seed", range(8))
def test_categories_are_declared_as_a_documentation_lists_them(seed):
    """Without a file's padding, blank cells or repeats, and 'Unknown' never twice (medicaldata's opt, ames)."""
    frame = pd.DataFrame({"answer": ["No ", "No", "Yes", "   ", "Unknown"] * 10, "n": range(50)})
    spec = unseen.declare_loosely(frame, random.Random(seed))
    assert spec["columns"]["answer"]["values"] == ["No", "Unknown", "Yes"]
    TableDomain.from_json(spec)


@pytest.mark.parametrize("kind", ["dta", "sav", "xpt"])
def test_a_table_goes_to_the_app_as_a_statistical_packages_file_that_reads_back(kind):
    """The app door uploads Stata, SPSS and SAS transport files: names the packages allow, kept distinct, and the
    cells the library reads back from them."""
    from dpsynth_core.data.formats import read_data

    frame = _table(40).drop(columns=["empty", "smoker"]).rename(columns={"share": "1st share", "town": "town.name"})
    frame["town_name"] = frame["town.name"]
    renamed = unseen.package_names(frame.columns)
    assert renamed["1st share"] == "v1st_share" and renamed["town_name"] != renamed["town.name"]
    read, _ = read_data(unseen._upload_bytes(frame.rename(columns=renamed), kind), name=f"t.{kind}")
    assert list(read.columns) == list(renamed.values())
    assert read["age"].astype(float).tolist() == frame["age"].astype(float).tolist()
    assert read[renamed["town.name"]].tolist() == frame["town.name"].tolist()


def test_a_declaration_the_schema_refuses_is_a_refusal_at_the_app_door_not_a_change(monkeypatch, tmp_path):
    """A loose range beyond 10^15 (physical constants declared ten times wider) is refused by the Domain page in one
    line, as by the library and the command line: a refusal, where the door had counted the page's start kept in its
    place as a changed declaration."""
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(tmp_path))
    frame = pd.DataFrame({"value": [6.6e-27, 7294.3, 1.5e20] * 10, "kind": ["a", "b", "c"] * 10})
    value, kind = {"type": "float", "min": -5e49, "max": 1.5e50}, {"type": "categorical", "values": ["a", "b", "c"]}
    spec = {"columns": {"value": value, "kind": kind}}
    found = unseen.app_door("constants", frame, spec, random.Random(0))
    assert found[0]["status"] == "refused" and found[0]["message"].startswith("That declaration cannot be used")


def test_the_files_door_reads_a_table_alike_in_every_format_and_catches_a_reader_that_does_not(monkeypatch):
    """The files door: the same records as a workbook, a Parquet, a Stata, an SPSS and a SAS file encode as their
    CSV text does (dates before 1900 and true-or-false columns included); a reader that loses a date is ``differs``,
    naming the column and its first cell; a table whose CSV text breaks a line is not compared."""
    from dpsynth_core.data import formats

    frame = _table(50).drop(columns=["empty"])
    frame["day"] = pd.date_range("1880-03-01", periods=50, freq="400D").strftime("%Y-%m-%d")
    spec = unseen.declare_loosely(frame, random.Random(3))
    spec["columns"]["day"] = {"type": "date", "min": "1880-01-01", "max": "1960-12-31"}
    found = unseen.files_door(
        "t", pd.concat([frame, pd.DataFrame({c: [None] for c in frame.columns}), frame.iloc[1:2]]), spec
    )
    assert (
        [r["what"] for r in found] == list(unseen.FILE_KINDS) == ["xlsx", "xls", "ods", "parquet", "dta", "sav", "xpt"]
    )
    assert {r["status"] for r in found} == {"ok"}, [r["message"] for r in found]
    skipped = "1 record(s) with every value missing read as the sheet's empty rows (1 said); "
    assert [r["message"] for r in found[:3]] == [skipped] * 3  # a sheet's empty row; the packages keep the record
    last = unseen.files_door("t", pd.concat([frame, pd.DataFrame({c: [None] for c in frame.columns})]), spec)
    assert [r["message"] for r in last[:3]] == [skipped.replace("1 said", "0 said")] * 3  # the sheet's end: unsaid
    assert {r["status"] for r in last} == {"ok"}
    real = formats.read_data

    def losing(source, *, name=None, **options):  # a reader that loses every date, as calamine lost those before 1900
        frame, info = real(source, name=name, **options)
        return (frame.assign(day="00:00:00") if not str(name).endswith(".csv") else frame), info

    monkeypatch.setattr(formats, "read_data", losing)
    lost = unseen.files_door("t", frame, spec)
    assert {r["status"] for r in lost} == {"differs"}
    assert lost[0]["message"] == "day: 50 cells, first '1880-03-01' read as '00:00:00'"
    assert unseen.summary(lost)["differs"].iloc[0] == len(unseen.FILE_KINDS)
    monkeypatch.setattr(formats, "read_data", real)
    broken = unseen.files_door("t", frame.assign(name=frame["name"] + "\nsecond line"), spec)
    assert {r["status"] for r in broken} == {"ok"}
    assert broken[0]["message"] == "not compared: the CSV text breaks 100 lines (a line break in a cell)"
