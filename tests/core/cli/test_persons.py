"""``check-persons``: the opt-in DP count of rows per person from the command line, recorded in the ledger
before it reads, and ``synth --person-check`` putting its figures on the card of a release of the same records."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.cli import main
from dpsynth_core.workspace import Workspace

COLUMNS = {
    "pid": {"type": "drop"},
    "ward": {"type": "categorical", "values": ["a", "b", "c"]},
    "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
}


@pytest.fixture(scope="module")
def visits(tmp_path_factory):
    """1 to 5 visits for each of 600 patients (2,993 rows), and a declaration without a person unit."""
    folder = tmp_path_factory.mktemp("visits")
    rng = np.random.default_rng(2)
    pid = np.repeat(np.arange(600), rng.integers(1, 6, 600))
    frame = pd.DataFrame({"pid": [f"P{i}" for i in pid], "ward": rng.choice(list("abc"), len(pid))})
    frame["age"] = rng.integers(0, 99, len(pid))
    frame.to_csv(folder / "visits.csv", index=False)
    (folder / "domain.json").write_text(json.dumps({"columns": COLUMNS}))
    return folder, len(frame)


def _check(folder, ws, *extra):
    return main(
        ["check-persons", str(folder / "visits.csv"), "--domain", str(folder / "domain.json"), "--workspace", str(ws)]
        + ["--person", "pid", "--max-rows-per-person", "2", *extra]
    )


def test_the_check_is_recorded_then_told_and_its_figures_go_on_the_card(visits, tmp_path, capsys):
    folder, rows = visits
    ws, saved = tmp_path / "ws", tmp_path / "check.json"
    assert _check(folder, ws, "--epsilon", "0.5", "--out", str(saved)) == 0
    told = capsys.readouterr().out
    assert "Keeping at most 2 rows per person drops about" in told and "A bound of" in told
    [spend] = Workspace(ws).ledger.spends()
    assert (spend["purpose"], spend["epsilon"]) == ("rows per person", 0.5)
    check = json.loads(saved.read_text())["check"]
    # Noise of scale 1 / 0.5 on 16 counts: the rows before bounding within 6 typical errors of the truth
    before = float(np.dot(np.arange(1, 17), check["noisy"]))
    assert abs(before - rows) < 6 * np.sqrt(2 * np.exp(-0.5) / (1 - np.exp(-0.5)) ** 2 * np.sum(np.arange(1, 17) ** 2))
    release = ["synth", str(folder / "visits.csv"), "--domain", str(folder / "domain.json"), "--epsilon", "1"]
    release += ["--person", "pid", "--max-rows-per-person", "2", "--person-check", str(saved)]
    card = tmp_path / "card.json"
    assert main([*release, "--workspace", str(ws), "--out", str(tmp_path / "syn.csv"), "--card", str(card)]) == 0
    notes = json.loads(card.read_text())["notes"]
    assert any("a check with ε = 0.5, recorded apart" in n for n in notes)
    # Other records (another workspace's ledger), another person column, no ledger: refused before any draw
    capsys.readouterr()
    other = tmp_path / "ws-other"
    assert main([*release, "--workspace", str(other), "--out", str(tmp_path / "b.csv")]) == 2
    assert "the check was of other records" in capsys.readouterr().err
    assert not (tmp_path / "b.csv").exists() and Workspace(other).ledger.spends() == []
    assert main([*release, "--no-ledger", "--out", str(tmp_path / "c.csv")]) == 2
    assert "--person-check needs the ledger" in capsys.readouterr().err
    missing = [*release[:-1], str(tmp_path / "nowhere.json")]  # a path mistyped: said so, not "not a check"
    assert main([*missing, "--workspace", str(ws), "--out", str(tmp_path / "e.csv")]) == 2
    assert f"{tmp_path / 'nowhere.json'} does not exist" in capsys.readouterr().err
    renamed = [*release[:6], "--person", "ward", *release[8:]]
    assert main([*renamed, "--workspace", str(ws), "--out", str(tmp_path / "d.csv")]) == 2
    assert "counted rows per 'pid'" in capsys.readouterr().err


def test_a_check_needs_a_person_and_fits_the_lifetime_budget(visits, tmp_path, capsys):
    folder, _ = visits
    ws = tmp_path / "ws"
    argv = ["check-persons", str(folder / "visits.csv"), "--domain", str(folder / "domain.json")]
    assert main([*argv, "--workspace", str(ws)]) == 2
    assert "names no person" in capsys.readouterr().err
    assert main([*argv, "--max-rows-per-person", "2", "--workspace", str(ws)]) == 2  # a bound, but whose rows?
    assert "names no person" in capsys.readouterr().err
    assert Workspace(ws).ledger.spends() == []
    # the person column alone: the check counts, and tells the rows and a bound to consider, no bound planned
    alone = ["--person", "pid", "--epsilon", "0.05", "--workspace", str(ws / "alone"), "--seed", "5"]  # see below
    assert main([*argv, *alone]) == 0
    told = capsys.readouterr().out
    assert "people hold at least" in told and "Keeping at most" not in told
    # at epsilon 0.05 the noise (about 1,100 rows) is a third or more of the 2,993 rows: no bound suggested (a
    # seed: an unseeded check's noise put the rows three typical errors clear in 2 of 20 runs)
    assert "cannot tell how the rows lie over people" in told and "A bound of" not in told
    assert "Give --max-rows-per-person K to be told how many rows that bound drops." in told
    assert _check(folder, ws, "--epsilon", "0.1") == 0
    assert main(["ledger", str(folder / "visits.csv"), "--workspace", str(ws), "--limit", "0.15"]) == 0
    capsys.readouterr()
    assert _check(folder, ws, "--epsilon", "0.1") == 2  # the second would pass the lifetime budget
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert len(Workspace(ws).ledger.spends()) == 1


def test_a_parquet_register_is_checked_by_its_engine_as_the_csv_in_memory(visits, tmp_path, capsys):
    """A register in Parquet (``auto`` picks DuckDB): the same noisy counts as its CSV read in memory for the same
    seed, under the same ledger key, and the saved check goes on the card of the engine's release."""
    folder, _ = visits
    parquet = tmp_path / "visits.parquet"
    pd.read_csv(folder / "visits.csv").to_parquet(parquet, index=False)
    ws = tmp_path / "ws"
    domain = ["--domain", str(folder / "domain.json"), "--workspace", str(ws), "--seed", "4"]
    person = ["--person", "pid", "--max-rows-per-person", "2"]
    saved = {}
    for name, data in (("csv", folder / "visits.csv"), ("parquet", parquet)):
        saved[name] = tmp_path / f"{name}.json"
        assert main(["check-persons", str(data), *domain, *person, "--out", str(saved[name])]) == 0
    csv, engine = (json.loads(saved[name].read_text()) for name in ("csv", "parquet"))
    assert engine["check"] == csv["check"] and engine["ledger"] == csv["ledger"]
    release = ["synth", str(parquet), "--domain", str(folder / "domain.json"), "--epsilon", "1", *person]
    card = tmp_path / "card.json"
    argv = [*release, "--person-check", str(saved["parquet"]), "--workspace", str(ws), "--card", str(card)]
    assert main([*argv, "--out", str(tmp_path / "syn.parquet")]) == 0
    assert any("recorded apart" in n for n in json.loads(card.read_text())["notes"])


def test_a_register_without_a_header_line_is_checked_by_duckdb_as_in_memory(visits, tmp_path, capsys):
    """The register saved without its header line and read with its documented names (``--names``): DuckDB reads it
    in chunks as the in-memory engine does, so the same seed gives the same noisy counts under the same ledger key;
    a Parquet register, which names its own columns, refuses the names in one line."""
    folder, _ = visits
    bare = tmp_path / "visits.data"
    bare.write_bytes((folder / "visits.csv").read_bytes().split(b"\n", 1)[1])
    domain = ["--domain", str(folder / "domain.json"), "--seed", "4", "--names", "pid,ward,age"]
    person = ["--person", "pid", "--max-rows-per-person", "2"]
    checks = []
    for engine in ("pandas", "duckdb"):
        out = tmp_path / f"{engine}.json"
        argv = ["check-persons", str(bare), *domain, *person, "--engine", engine, "--workspace", str(tmp_path / "ws")]
        assert main([*argv, "--out", str(out)]) == 0, capsys.readouterr().err
        checks.append(json.loads(out.read_text()))
    assert checks[0]["check"] == checks[1]["check"] and checks[0]["ledger"] == checks[1]["ledger"]
    parquet = tmp_path / "visits.parquet"
    pd.read_csv(folder / "visits.csv").to_parquet(parquet, index=False)
    capsys.readouterr()
    argv = ["check-persons", str(parquet), *domain, *person, "--workspace", str(tmp_path / "ws")]
    assert main(argv) == 2
    assert "column names are chosen for CSV files; visits.parquet is Parquet" in capsys.readouterr().err
