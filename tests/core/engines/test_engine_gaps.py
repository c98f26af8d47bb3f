"""A column declared past another one, counted by DuckDB and Spark as its gap, exactly as in memory.

The in-memory path reads such a column as its gap (:func:`dpsynth_core.data.gaps.with_gaps`); DuckDB reads each
column's distinct cells by the same rule and subtracts them row by row in SQL
(:meth:`~dpsynth_core.engines.duckdb_source.DuckDBSource._read_gaps`), Spark in its tasks
(:func:`~dpsynth_core.engines.spark_fold.gapped`). Their counts must be equal, from a CSV, typed Parquet or a frame,
folded or not, and over the rows a person unit keeps; an engine listed without ``reads_gaps`` refuses such a
declaration in one line before anything is read.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpsynth_core.domain import TableDomain
from dpsynth_core.engines import duckdb_source, get_engine, open_source
from dpsynth_core.engines.memory import MemorySource
from dpsynth_core.errors import ParameterError
from dpsynth_core.privacy.persons import bound_rows
from tests.conftest import complete_domain, shared_path, spark_available
from tests.core.engines.engine_checks import assert_same_counts


def _survey(**person) -> tuple[pd.DataFrame, TableDomain]:
    """The European Social Survey's British interviews, the end declared 0 to 30 days past the start (26 records
    end before they start, 9 more than 30 days after, 4 have no end: each read as the in-memory path reads it)."""
    frame = pd.read_csv(shared_path("ess9gb.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("ess9gb")
    spec["columns"]["endintrvw"]["derived"] = {"from": "stintrvw", "gap": [0, 30]}
    if person:
        frame = frame.assign(family=(frame["idno"].astype(int) // 7).astype(str))
        spec["columns"]["family"] = {"type": "drop"}
        spec["person"] = {"column": "family", **person}
    return frame, TableDomain.from_json(spec)


@pytest.mark.parametrize("fold", [0, 1e-9], ids=["rows", "folded"])
def test_duckdb_counts_a_gap_column_as_memory_does(tmp_path, fold, monkeypatch):
    monkeypatch.setattr(duckdb_source, "AGGREGATE_BELOW", fold)
    frame, domain = _survey()
    frame.to_csv(tmp_path / "ess.csv", index=False)
    reference = MemorySource(frame, domain)
    assert reference.report()["endintrvw"] == {"out_of_domain": 35, "missing": 4}
    with open_source(tmp_path / "ess.csv", domain, engine="duckdb", threads=1) as engine:
        assert engine.cells["endintrvw"] == 32  # 0 to 30 days, and missing
        assert_same_counts(reference, engine)
        raw, counts = engine.raw_values("endintrvw")
        assert dict(zip(raw, counts))[0] == 1811  # the same day, as the records say
        assert pd.Series(np.repeat(raw.to_numpy(object), counts)).value_counts().to_dict() == (
            reference.raw_values("endintrvw")[0].value_counts().to_dict()
        )


def test_duckdb_reads_gaps_over_the_rows_a_person_unit_keeps():
    """Families of up to 7 interviews, at most 2 kept each: the engine's bounded table reads its gaps anew and
    counts as memory's bounded one, for the same generator."""
    frame, domain = _survey(max_rows=2, name="family")
    unit = domain.person
    for seed in (0, 1):
        kept = bound_rows(frame, unit.column, unit.max_rows, np.random.default_rng(seed))
        with open_source(frame, domain, engine="duckdb") as engine:
            bounded = engine.bound_persons(unit, np.random.default_rng(seed))
            assert bounded.n_rows == len(kept) < len(frame)
            assert_same_counts(MemorySource(kept, domain), bounded)


def _typed() -> tuple[pd.DataFrame, TableDomain]:
    """A date and time kept to the minute 0 to 2 days past another (its gap in minutes) and a real number 0 to 5
    past another, typed, with missing cells and gaps outside the declared ones."""
    rng = np.random.default_rng(4)
    start = pd.Timestamp("2015-01-01") + pd.to_timedelta(rng.integers(0, 300 * 1440, 3000), unit="min")
    low = rng.uniform(0, 50, 3000)
    frame = pd.DataFrame(
        {
            "start": start,
            "end": start + pd.to_timedelta(rng.integers(-60, 3 * 1440, 3000), unit="min"),
            "low": low,
            "high": low + rng.uniform(-1, 6, 3000),
        }
    )
    frame.loc[::9, "start"] = pd.NaT
    frame.loc[::13, "high"] = np.nan
    moments = {"type": "datetime", "min": "2015-01-01 00:00", "max": "2015-12-31 23:59", "step": "minute"}
    spec = {
        "columns": {
            "start": dict(moments),
            "end": {**moments, "derived": {"from": "start", "gap": [0, 2]}},
            "low": {"type": "float", "min": 0, "max": 50, "bins": 10},
            "high": {"type": "float", "min": 0, "max": 60, "derived": {"from": "low", "gap": [0, 5]}},
        }
    }
    return frame, TableDomain.from_json(spec)


def test_typed_moments_and_real_numbers_past_others_count_as_their_text(tmp_path):
    """Typed in Parquet and in a frame: the same counts as memory reading the frame."""
    frame, domain = _typed()
    reference = MemorySource(frame, domain)
    assert reference.report()["end"]["out_of_domain"] > 0 and reference.report()["high"]["out_of_domain"] > 0
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "t.parquet")
    for data in (tmp_path / "t.parquet", frame):
        with open_source(data, domain, engine="duckdb") as engine:
            assert_same_counts(reference, engine)
            assert sorted(engine.raw_values("high")[0].dropna()) == sorted(reference.raw_values("high")[0].dropna())


def test_an_engine_that_counts_each_column_by_itself_refuses_a_gap_column_in_one_line_before_anything_is_read(
    tmp_path, monkeypatch
):
    from dataclasses import replace

    from dpsynth_core.engines import registry

    _, domain = _survey()
    monkeypatch.setitem(registry.ENGINES, "spark", replace(registry.ENGINES["spark"], reads_gaps=False))
    message = "the spark engine counts each column by itself, and 'endintrvw' is read as its gap past another"
    with pytest.raises(ParameterError, match=message) as refused:
        get_engine("spark").check_domain(domain)
    assert "engine 'pandas' or 'duckdb'" in str(refused.value)
    with pytest.raises(ParameterError, match=message):
        open_source(tmp_path / "absent.csv", domain, engine="spark")  # no file, no session: refused first
    get_engine("spark").check_domain(domain.measured())  # nothing past another once measured


@pytest.mark.spark
@pytest.mark.skipif(not spark_available(), reason="Spark needs PySpark and a Java runtime (CI installs both)")
def test_spark_counts_a_gap_column_as_memory_does_from_a_file_a_frame_and_a_person_units_rows(tmp_path, spark):
    """The survey's end past its start from a CSV (folded by Spark) and from a Spark DataFrame, and its seeded release
    byte for byte memory's; typed moments and real numbers past others from Parquet; families of interviews bounded
    to 2 each: every count memory's."""
    frame, domain = _survey()
    frame.to_csv(tmp_path / "ess.csv", index=False)
    reference = MemorySource(frame, domain)
    for data in (tmp_path / "ess.csv", spark.createDataFrame(frame)):
        with open_source(data, domain, engine="spark", spark=spark) as engine:
            assert_same_counts(reference, engine, pairs=False)
            assert (
                engine.marginal(("endintrvw", "stintrvw")).tolist()
                == reference.marginal(("endintrvw", "stintrvw")).tolist()
            )
    typed, typed_domain = _typed()
    pq.write_table(pa.Table.from_pandas(typed, preserve_index=False), tmp_path / "t.parquet")
    with open_source(tmp_path / "t.parquet", typed_domain, engine="spark", spark=spark) as engine:
        assert_same_counts(MemorySource(typed, typed_domain), engine)
    from dpsynth_core.release import synthesize

    released = [
        synthesize(tmp_path / "ess.csv", domain, 1.0, engine=engine, random_state=2, out=tmp_path / f"{engine}.csv")
        for engine in ("pandas", "spark")
    ]
    assert released[1].settings["engine"] == "spark"
    assert (tmp_path / "spark.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()  # the same release
    frame, domain = _survey(max_rows=2, name="family")
    frame.to_csv(tmp_path / "families.csv", index=False)
    kept = bound_rows(frame, "family", 2, np.random.default_rng(3))
    with open_source(tmp_path / "families.csv", domain, engine="spark", spark=spark) as engine:
        bounded = engine.bound_persons(domain.person, np.random.default_rng(3))
        assert_same_counts(MemorySource(kept, domain), bounded, pairs=False)
