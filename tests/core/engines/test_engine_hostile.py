"""The engines meet hostile input: no message quotes a cell, column names that differ only in case
and time-zone timestamps work or fail in one line on every engine, a wide Parquet file stays within
memory through DuckDB, and a run ended by SIGTERM leaves nothing behind."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import QUICK_JVM, ROOT, run_cli_synth, synth_argv

#: A cell value that must never appear in any message.
SECRET = "SECRET-CELL-8d1f"
HAS_SPARK = shutil.which("java") is not None or bool(os.environ.get("CI"))
spark_only = pytest.mark.skipif(not HAS_SPARK, reason="Spark needs a Java runtime (CI installs one)")
#: Spark runs in this process: on the worker that holds the shared session (tests/conftest.py).
SPARK = pytest.param("spark", marks=[spark_only, pytest.mark.spark])
ENGINES = ["duckdb", SPARK]
#: How the tests here run ``synth`` (tests.conftest.synth_argv): a seeded cathist release, no ledger.
_FLAGS = {"method": "cathist", "no_ledger": True, "seed": 4}


def _synth(capsys, data, spec, engine, tmp_path, *extra) -> tuple[int, str]:
    domain = tmp_path / "d.json"
    domain.write_text(json.dumps(spec))
    capsys.readouterr()
    status = run_cli_synth(data, domain, *extra, **_FLAGS, engine=engine, out=tmp_path / "o.csv")
    seen = capsys.readouterr()
    return status, seen.out + seen.err


def _hostile_tables(tmp_path) -> list:
    """Tables whose one odd cell is the secret: in a number, a category, a date, a text column, as
    bytes that are not UTF-8, as a CSV and as Parquet."""
    n = 200
    base = {"age": [str(i % 90) for i in range(n)], "c": ["a", "b"] * (n // 2), "day": ["2020-03-01"] * n}
    spec = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 120, "bin_width": 10},
            "c": {"type": "categorical", "values": ["a", "b"]},
            "day": {"type": "date", "min": "2020-01-01", "max": "2020-12-31", "unit": "month"},
        }
    }
    cases = []
    for column in ("age", "c", "day"):
        frame = pd.DataFrame(base)
        frame.loc[7, column] = SECRET
        frame.to_csv(tmp_path / f"{column}.csv", index=False)
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / f"{column}.parquet")
        cases += [(tmp_path / f"{column}.csv", spec), (tmp_path / f"{column}.parquet", spec)]
    raw = pa.table(
        {
            "age": pa.array([str(i % 90).encode() for i in range(n - 1)] + [SECRET.encode() + b"\xff"], pa.binary()),
            "c": base["c"],
            "day": base["day"],
        }
    )
    pq.write_table(raw, tmp_path / "binary.parquet")
    cases.append((tmp_path / "binary.parquet", spec))
    text = {"columns": {**spec["columns"], "c": {"type": "text", "generator": "letters", "max_length": 3}}}
    cases.append((tmp_path / "c.parquet", text))
    return cases


@pytest.mark.parametrize("engine", ENGINES)
def test_no_message_quotes_a_cell_on_hostile_tables(engine, tmp_path, capsys):
    for data, spec in _hostile_tables(tmp_path):
        if engine == "spark" and data.name not in ("age.csv", "day.parquet", "binary.parquet"):
            continue  # Spark reads a CSV through the same Parquet copy as DuckDB, and each run is slow
        status, said = _synth(capsys, data, spec, engine, tmp_path)
        assert status in (0, 2), (data.name, said)
        assert SECRET not in said, (data.name, said)
        if status == 2:
            assert said.count("error:") == 1 and "internal" not in said, said


@pytest.mark.parametrize("engine", ENGINES)
def test_an_engine_error_quoting_a_cell_is_named_by_its_kind_and_columns(engine, tmp_path, capsys, monkeypatch):
    """The engines' own messages may quote a value they could not convert: shown only with DPSYNTH_DEBUG."""
    frame = pd.DataFrame({"age": [str(i % 90) for i in range(100)], "c": ["a", "b"] * 50})
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "t.parquet")
    spec = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 120, "bin_width": 10},
            "c": {"type": "categorical", "values": ["a", "b"]},
        }
    }
    quoted = f"Could not convert string '{SECRET}' to INT32"
    if engine == "duckdb":
        import duckdb

        from dpsynth_core.engines.duckdb_source import DuckDBSource

        def fail(self, names):
            return self._run(lambda: (_ for _ in ()).throw(duckdb.ConversionException(quoted)))

        monkeypatch.setattr(DuckDBSource, "_distinct", fail)
    else:
        from pyspark.errors import PySparkException

        from dpsynth_core.engines import spark_source

        def fail(self, frame, names=()):
            try:
                raise PySparkException(message=quoted)
            except Exception as exc:
                raise self._fail(exc, names) from None

        monkeypatch.setattr(spark_source.SparkSource, "_collect", fail)
    monkeypatch.delenv("DPSYNTH_DEBUG", raising=False)
    status, said = _synth(capsys, tmp_path / "t.parquet", spec, engine, tmp_path)
    assert status == 2 and SECRET not in said and said.count("error:") == 1, said
    assert "could not be read" in said and "DPSYNTH_DEBUG" in said
    if engine == "spark":
        assert "'age'" in said  # the columns it was reading
    monkeypatch.setenv("DPSYNTH_DEBUG", "1")  # the publisher asked: the engine's own message
    status, said = _synth(capsys, tmp_path / "t.parquet", spec, engine, tmp_path)
    assert status == 2 and SECRET in said


@spark_only
@pytest.mark.spark
def test_a_spark_error_while_reading_is_one_line_without_its_message(tmp_path, capsys, monkeypatch):
    from pyspark.errors.exceptions.captured import AnalysisException

    from dpsynth_core.engines import spark_source

    def fail(self, *args):
        raise AnalysisException(desc=f"[CAST_INVALID_INPUT] The value '{SECRET}' cannot be cast", stackTrace="")

    monkeypatch.setattr(spark_source.SparkSource, "_read", fail)
    monkeypatch.delenv("DPSYNTH_DEBUG", raising=False)
    frame = pd.DataFrame({"c": ["a", "b"] * 50})
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "t.parquet")
    status, said = _synth(
        capsys,
        tmp_path / "t.parquet",
        {"columns": {"c": {"type": "categorical", "values": ["a", "b"]}}},
        "spark",
        tmp_path,
    )
    assert status == 2 and SECRET not in said and said.count("error:") == 1 and "could not be read" in said, said


@pytest.mark.parametrize("engine", ["pandas", "duckdb", SPARK])
def test_columns_named_race_and_Race_work_in_memory_and_are_refused_in_one_line_by_the_engines(
    engine, tmp_path, capsys
):
    frame = pd.DataFrame({"Race": ["a", "b"] * 50, "race": ["x", "y", "y", "x"] * 25})
    frame.to_csv(tmp_path / "t.csv", index=False)
    spec = {
        "columns": {
            "Race": {"type": "categorical", "values": ["a", "b"]},
            "race": {"type": "categorical", "values": ["x", "y"]},
        }
    }
    status, said = _synth(capsys, tmp_path / "t.csv", spec, engine, tmp_path)
    if engine == "pandas":
        assert status == 0, said
        assert list(pd.read_csv(tmp_path / "o.csv").columns) == ["Race", "race"]
    else:
        assert status == 2 and said.count("error:") == 1 and "'Race' and 'race' differ only in case" in said, said
        assert not (tmp_path / "o.csv").exists()


def _timestamps(path, stamps, *, first: str, unit: str) -> dict:
    """Write the time-zone timestamps ``stamps`` and a small category to Parquet; their declaration, the
    dates from ``first`` to the end of 2020 in bins of one ``unit``."""
    pq.write_table(pa.table({"when": pa.array(stamps), "c": ["a", "b", "c"] * 100}), path)
    date = {"type": "date", "min": first, "max": "2020-12-31", "unit": unit}
    return {"columns": {"when": date, "c": {"type": "categorical", "values": ["a", "b", "c"]}}}


@pytest.mark.spark
def test_time_zone_timestamps_give_the_same_release_on_duckdb_and_spark(tmp_path, capsys):
    """Read as their UTC wall-clock time on both engines (and by the records' fingerprint)."""
    stamps = pd.date_range("2020-01-01", periods=300, freq="D", tz="Europe/Paris")
    spec = _timestamps(tmp_path / "tz.parquet", stamps, first="2020-01-01", unit="month")
    written = {}
    for engine in ["duckdb"] + (["spark"] if HAS_SPARK else []):
        status, said = _synth(capsys, tmp_path / "tz.parquet", spec, engine, tmp_path)
        assert status == 0, said
        assert "column 'when': 1 cell did not fit" in said  # 2020-01-01 00:00 in Paris is 2019-12-31 in UTC
        written[engine] = (tmp_path / "o.csv").read_bytes()
        (tmp_path / "o.csv").unlink()
    assert len(set(written.values())) == 1
    # the same instants as text with their offsets, in memory: one line or a release, never an internal error
    pd.DataFrame({"when": stamps.strftime("%Y-%m-%dT%H:%M:%S%z"), "c": ["a", "b", "c"] * 100}).to_csv(
        tmp_path / "tz.csv", index=False
    )
    status, said = _synth(capsys, tmp_path / "tz.csv", spec, "pandas", tmp_path)
    assert status in (0, 2) and "internal" not in said, said


def test_duckdb_reads_time_zone_timestamps_as_utc_whatever_the_machines_zone(tmp_path, capsys):
    """DuckDB casts a time-zone timestamp to the machine's local time unless told otherwise: the same
    file would give another release in New York than in UTC. The engine sets UTC, so a run whose local
    zone is New York writes the bytes of a run in UTC."""
    stamps = pd.date_range("2020-01-01", periods=300, freq="13h", tz="UTC")
    spec = _timestamps(tmp_path / "tz.parquet", stamps, first="2019-12-01", unit="day")
    status, said = _synth(capsys, tmp_path / "tz.parquet", spec, "duckdb", tmp_path)
    assert status == 0, said
    here = (tmp_path / "o.csv").read_bytes()
    argv = synth_argv(tmp_path / "tz.parquet", tmp_path / "d.json", **_FLAGS, engine="duckdb", out=tmp_path / "ny.csv")
    command = [sys.executable, "-m", "dpsynth_core", *argv]
    env = {**os.environ, "TZ": "America/New_York"}
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "ny.csv").read_bytes() == here


def test_a_wide_parquet_file_stays_within_memory_through_duckdb(tmp_path):
    """600 columns of 300 small integers (1.4 MB as 64-bit numbers). DuckDB counts each column's
    distinct values with GROUPING SETS, one hash table per set: over all 600 columns at once that took
    1.15 GB (3.5 GB for 1,500). In parts of ``DISTINCT_COLUMNS`` sets the call's own memory (peak
    resident size minus the interpreter's, measured in a fresh process) stays below 180 MB: DuckDB's
    buffers for 32 sets, plus 100 times the table itself (90 MB measured, 4 December 2026)."""
    columns, rows = 600, 300
    rng = np.random.default_rng(0)
    pq.write_table(pa.table({f"c{i}": rng.integers(0, 4, rows) for i in range(columns)}), tmp_path / "w.parquet")
    (tmp_path / "w.json").write_text(
        json.dumps({"columns": {f"c{i}": {"type": "categorical", "values": [0, 1, 2, 3]} for i in range(columns)}})
    )
    code = (
        "import resource, sys; from dpsynth_core import synthesize; import duckdb, pyarrow; "
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
        f"release = synthesize({str(tmp_path / 'w.parquet')!r}, {str(tmp_path / 'w.json')!r}, 1.0, "
        f"method='cathist', engine='duckdb', out={str(tmp_path / 'o.csv')!r}); "
        "print(release.rows, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    released, megabytes = map(int, done.stdout.split())
    limit = 100 * columns * rows * 8 / 2**20 + 40  # 100 times the table (137 MB) and DuckDB's own buffers
    assert released > 0 and megabytes < limit, megabytes


# --- SIGTERM mid-way: nothing left behind -------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_sigterm_while_the_engine_holds_a_parquet_copy_leaves_nothing_behind(engine, tmp_path):
    """Signalled while the engine's Parquet copy of the CSV exists (the raw records, in the temporary
    folder): afterwards no copy, no spill folder, and nothing beside the output (no empty file)."""
    rng = np.random.default_rng(1)
    rows = 600_000
    frame = pd.DataFrame(
        {"age": rng.integers(0, 90, rows), "c": rng.choice(["a", "b", "c"], rows), "x": rng.integers(0, 1000, rows)}
    )
    frame.to_csv(tmp_path / "big.csv", index=False)
    (tmp_path / "d.json").write_text(
        json.dumps(
            {
                "columns": {
                    "age": {"type": "integer", "min": 0, "max": 120, "bin_width": 10},
                    "c": {"type": "categorical", "values": ["a", "b", "c"]},
                    "x": {"type": "integer", "min": 0, "max": 999, "bin_width": 1},
                }
            }
        )
    )
    temp, out = tmp_path / "tmp", tmp_path / "out"
    temp.mkdir()
    out.mkdir()
    env = dict(os.environ, TMPDIR=str(temp), PYTHONWARNINGS="ignore")
    env.pop("DPSYNTH_DEBUG", None)
    if engine == "spark":  # the JVM the run starts, as the tests' own session starts it (QUICK_JVM)
        env["JAVA_TOOL_OPTIONS"] = QUICK_JVM
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dpsynth_core",
            *synth_argv(
                tmp_path / "big.csv",
                tmp_path / "d.json",
                engine=engine,
                method="cathist",
                no_ledger=True,
                rows=2_000_000,
                out=out / "o.csv",
            ),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 240
    copy = []
    while not copy and run.poll() is None and time.monotonic() < deadline:
        copy = list(temp.glob("dpsynth-csv-*.parquet"))  # the raw records' copy, being written or read
        time.sleep(0.02)
    assert copy, "the run ended before its Parquet copy of the CSV appeared"
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=240)
    assert run.returncode == 143 and "terminated" in err, err[-2000:]
    assert list(temp.rglob("dpsynth-*")) == [], list(temp.rglob("*"))
    assert list(out.iterdir()) == [], list(out.iterdir())  # no table, no temporary, no empty file
