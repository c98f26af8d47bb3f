"""A person unit counted by the engines for large tables: DuckDB and Spark keep the rows the in-memory path keeps.

The in-memory bounding is audited on neighbouring tables (tests/core/synthesizers/test_person_audit.py); an
engine's guarantee rests on keeping exactly the same rows for the same generator, which these tests hold on
real data: compas's defendants grouped by surname (a family as the unit: the repository's 1,000 rows, 782
surnames, 36 of them past the bound of 2 with 184 rows, one with 14), and REDCap's longitudinal example (3
patients, 6 events each).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpsynth_core.domain import PersonUnit, TableDomain
from dpsynth_core.engines import duckdb_source, open_source
from dpsynth_core.engines.duckdb_source import DuckDBSource
from dpsynth_core.engines.memory import MemorySource
from dpsynth_core.engines.persons import identifiers
from dpsynth_core.errors import DataError
from dpsynth_core.privacy.persons import bound_rows, kept_ranks, person_codes, rows_per_person
from dpsynth_core.release import synthesize
from tests.conftest import complete_domain, keyword_spy, shared_path, spark_available, timeless

KEPT = ["last", "sex", "age", "race", "priors_count", "c_charge_degree", "two_year_recid"]


@pytest.fixture(scope="module")
def families():
    frame = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)[KEPT]
    spec = complete_domain("compas")
    spec["columns"] = {name: spec["columns"][name] for name in KEPT} | {"last": {"type": "drop"}}
    spec["person"] = {"column": "last", "max_rows": 2, "name": "family", "ignore_case": True}
    return frame, TableDomain.from_json(spec)


def _one_ways(source) -> dict:
    return {name: source.marginal((name,)).tolist() for name in source.cells}


def _same_rows_as_memory(frame, domain, data, seed: int, **settings) -> bool:
    """Whether the engine's bounded table counts exactly as the in-memory bounded table, every column."""
    unit = domain.person
    kept = bound_rows(frame, unit.column, unit.max_rows, np.random.default_rng(seed), ignore_case=unit.ignore_case)
    with open_source(data, domain, **settings) as source:
        bounded = source.bound_persons(unit, np.random.default_rng(seed))
        memory = MemorySource(kept, domain)
        return bounded.n_rows == len(kept) and _one_ways(bounded) == _one_ways(memory)


def test_duckdb_keeps_the_rows_memory_keeps_from_a_csv_parquet_parts_and_a_frame(tmp_path, families):
    frame, domain = families
    frame.to_csv(tmp_path / "families.csv", index=False)
    (tmp_path / "parts").mkdir()
    for i, start in enumerate(range(0, len(frame), 2500)):  # a person's rows spread over several files
        part = pa.Table.from_pandas(frame.iloc[start : start + 2500], preserve_index=False)
        pq.write_table(part, tmp_path / "parts" / f"part-{i}.parquet")
    for data in (tmp_path / "families.csv", tmp_path / "parts", frame):
        for seed in (0, 1):
            assert _same_rows_as_memory(frame, domain, data, seed, engine="duckdb"), (data, seed)


def test_the_check_catches_an_engine_that_does_not_bound(monkeypatch, tmp_path, families):
    """The deliberately broken engine: it keeps every row (or the first K of each person, not a random K)."""
    frame, domain = families
    monkeypatch.setattr(DuckDBSource, "_bound", lambda self, *args: None)
    assert not _same_rows_as_memory(frame, domain, frame, 0, engine="duckdb")
    monkeypatch.undo()

    bound = DuckDBSource._bound

    def first_rows(self, column, raw, codes, persons, ranks):  # each person's first two rows (K = 2)
        return bound(self, column, raw, codes, persons, np.arange(len(ranks)) % 2)

    monkeypatch.setattr(DuckDBSource, "_bound", first_rows)
    assert not _same_rows_as_memory(frame, domain, frame, 0, engine="duckdb")


def test_a_person_release_through_duckdb_is_the_in_memory_release(tmp_path, families):
    frame, domain = families
    frame.to_csv(tmp_path / "families.csv", index=False)
    memory = synthesize(frame, domain, 1.0, random_state=4, engine="pandas", out=tmp_path / "memory.csv")
    engine = synthesize(tmp_path / "families.csv", domain, 1.0, random_state=4, engine="duckdb", out=tmp_path / "e.csv")
    assert (tmp_path / "e.csv").read_bytes() == (tmp_path / "memory.csv").read_bytes()
    assert timeless(engine.card) == timeless(memory.card)
    assert engine.card["privacy_unit"]["in_words"].startswith("each family, up to 2 rows")


def test_redcap_events_bounded_per_record_alike(tmp_path):
    """REDCap's longitudinal export: 18 rows, 6 events for each of 3 records, numeric identifiers."""
    path = shared_path("redcap/longitudinal.csv")
    frame = pd.read_csv(path)
    spec = {
        "columns": {name: {"type": "drop"} for name in frame.columns}
        | {"redcap_event_name": {"type": "categorical", "values": sorted(set(frame["redcap_event_name"]))}},
        "person": {"column": "study_id", "max_rows": 4, "name": "patient"},
    }
    domain = TableDomain.from_json(spec)
    for seed in range(3):
        assert _same_rows_as_memory(frame, domain, path, seed, engine="duckdb")
    with open_source(path, domain, engine="duckdb") as source:
        assert source.bound_persons(domain.person, np.random.default_rng(0)).n_rows == 12  # 3 patients, 4 rows each


def test_every_identifier_spelling_of_one_person_is_one_person_in_duckdb():
    """' P9 ', 'P9' and 'p9' (letter case ignored), and the missing identifiers together, as in memory."""
    frame = pd.DataFrame({"pid": ["P9", " P9 ", "p9", None, "", "Q1"] * 5, "c": list("abcabc") * 5})
    spec = {"columns": {"pid": {"type": "drop"}, "c": {"type": "categorical", "values": ["a", "b", "c"]}}}
    domain = TableDomain.from_json(spec | {"person": {"column": "pid", "max_rows": 2, "ignore_case": True}})
    with open_source(frame, domain, engine="duckdb") as source:
        assert source.bound_persons(domain.person, np.random.default_rng(0)).n_rows == 6  # P9, missing, Q1
    assert _same_rows_as_memory(frame, domain, frame, 3, engine="duckdb")


@pytest.mark.spark
@pytest.mark.skipif(not spark_available(), reason="Spark needs PySpark and a Java runtime (CI installs both)")
def test_spark_keeps_the_rows_memory_keeps(monkeypatch, tmp_path, families, spark):
    frame, domain = families
    frame.to_csv(tmp_path / "families.csv", index=False)
    synthesize(frame, domain, 1.0, random_state=6, engine="pandas", out=tmp_path / "memory.csv")
    limits = keyword_spy(monkeypatch, duckdb_source, "keep_rows_of_files", "memory_limit")
    synthesize(
        tmp_path / "families.csv",
        domain,
        1.0,
        random_state=6,
        engine="spark",
        out=tmp_path / "e.csv",
        memory_limit="1GB",
    )
    assert (tmp_path / "e.csv").read_bytes() == (tmp_path / "memory.csv").read_bytes()
    assert limits == ["1GB"]  # --memory-limit reaches the DuckDB query that keeps each person's rows
    with open_source(spark.createDataFrame(frame), domain, engine="spark", spark=spark) as source:
        with pytest.raises(DataError, match="local files only"):
            source.bound_persons(PersonUnit("last", 2), np.random.default_rng(0))


def test_the_duckdb_query_that_keeps_a_persons_rows_for_spark_takes_a_memory_limit(monkeypatch, tmp_path, families):
    """The Spark engine keeps each person's rows by a DuckDB query over its local files: ``--memory-limit`` caps that
    query's memory as it caps the DuckDB engine's (DuckDB's default is 80% of the machine), and the rows kept are
    the same with it."""
    frame, domain = families
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "families.parquet")
    configs, connect = [], duckdb_source.duckdb.connect
    monkeypatch.setattr(
        duckdb_source.duckdb, "connect", lambda *a, config: configs.append(config) or connect(*a, config=config)
    )
    kept = []
    for limit in (None, "300MB"):
        with DuckDBSource(tmp_path / "families.parquet", domain) as source:
            raw, counts = source._person_values("last")
        codes = person_codes(identifiers(raw), ignore_case=True)
        per_person = rows_per_person(codes, counts)
        persons, ranks = kept_ranks(per_person, 2, np.random.default_rng(3))
        past = np.flatnonzero(per_person[codes] > 2)
        folder = tmp_path / f"kept-{limit}"
        folder.mkdir()
        files = duckdb_source.keep_rows_of_files(
            [tmp_path / "families.parquet"],
            "last",
            raw.take(pa.array(past)),
            codes[past],
            persons,
            ranks,
            str(folder),
            memory_limit=limit,
        )
        kept.append(pq.read_table(files[0]).to_pandas().sort_values(KEPT).reset_index(drop=True))
    queries = configs[1::2]  # each DuckDBSource's connection, then the query's
    assert "memory_limit" not in queries[0] and queries[1]["memory_limit"] == "300MB"
    pd.testing.assert_frame_equal(kept[0], kept[1])
    assert len(kept[0]) < len(frame)
