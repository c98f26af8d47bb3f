"""Nothing in a release depends on which engine ran: at a fixed seed, pandas, DuckDB and Spark
write the same file on each side of every size threshold (the synthetic-row caps and the file
size at which ``auto`` takes DuckDB), with the thresholds scaled down to a small table."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from dpsynth_core import constraints, synthesize
from tests.conftest import run_cli_synth
from tests.corpus import good_csv, good_domain, good_rows

RECORDS = 600


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("thresholds")
    (folder / "t.csv").write_bytes(good_csv(good_rows(RECORDS)))
    (folder / "t.json").write_text(json.dumps(good_domain()))
    return folder


def _engines():
    engines = ["pandas", "duckdb"]
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return engines
    return engines + (["spark"] if shutil.which("java") or os.environ.get("CI") else [])


@pytest.mark.spark
@pytest.mark.parametrize("cap", [RECORDS // 2, RECORDS * 10], ids=["cap below the records", "cap above"])
def test_every_engine_writes_the_same_release_on_each_side_of_the_row_cap(table, tmp_path, monkeypatch, cap):
    monkeypatch.setattr(constraints, "MAX_ENGINE_SYNTHETIC_ROWS", cap)
    monkeypatch.setattr(constraints, "MAX_SYNTHETIC_ROWS", 10)  # the in-memory cap plays no part in a file
    written = {}
    for engine in _engines():
        out = tmp_path / f"{engine}.csv"
        release = synthesize(table / "t.csv", good_domain(), 1.0, random_state=4, engine=engine, out=out)
        written[engine] = (release.rows, out.read_bytes())
    assert len(set(written.values())) == 1, {e: r for e, (r, _) in written.items()}
    rows = written["pandas"][0]
    assert rows == cap if cap < RECORDS else abs(rows - RECORDS) < 200, rows


@pytest.mark.parametrize("threshold", [1, 10**12], ids=["auto takes duckdb", "auto stays in memory"])
def test_the_cli_writes_the_same_release_whichever_engine_auto_takes(table, tmp_path, monkeypatch, capsys, threshold):
    monkeypatch.setattr(constraints, "ENGINE_AUTO_BYTES", threshold)
    monkeypatch.setattr(constraints, "MAX_ENGINE_SYNTHETIC_ROWS", RECORDS // 2)
    monkeypatch.setattr(constraints, "MAX_SYNTHETIC_ROWS", RECORDS // 3)
    outputs = {}
    for engine in ("auto", "pandas", "duckdb"):
        out = tmp_path / f"{engine}.csv"
        status = run_cli_synth(table / "t.csv", table / "t.json", seed=4, engine=engine, no_ledger=True, out=out)
        assert status == 0, capsys.readouterr()
        outputs[engine] = out.read_bytes()
    assert len(set(outputs.values())) == 1
    assert outputs["auto"].count(b"\n") == RECORDS // 2 + 1  # the file cap, for every engine
