"""DuckDB keys the ledger in its own pass (DuckDBSource.records_identity): the same identity as the
file's (dpsynth_core.data.fingerprint), from the records it folded as it opened them, or streamed."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from dpsynth_core.data.fingerprint import RecordSums, records_identity
from dpsynth_core.domain import TableDomain
from dpsynth_core.engines.duckdb_source import DuckDBSource
from tests.conftest import ROOT

KEY = bytes(range(32))


@pytest.mark.parametrize("form", ["a.csv", "c.tsv", "d.parquet", "parts"])
def test_the_identity_of_mostly_distinct_records_is_streamed_and_is_the_files(record_forms, form):
    domain = TableDomain.from_json(json.loads((record_forms / "d.json").read_text()))
    with DuckDBSource(str(record_forms / form), domain) as source:
        assert not source._folded
        assert source.records_identity(KEY) == records_identity(str(record_forms / form), KEY)


def test_the_identity_of_folded_records_is_the_files(tmp_path):
    """Adult's six columns repeated: few distinct records, folded once as the source opens; each hashed
    once with its count gives the file's identity (and the kept columns' counts are made from the fold)."""
    columns = ["age", "workclass", "sex", "race", "income", "hours-per-week"]
    frame = pd.read_csv(ROOT / "assets/examples/adult.csv", usecols=columns, dtype=str)
    big = pd.concat([frame] * 4, ignore_index=True).assign(extra="same")  # a dropped column too
    big.to_parquet(tmp_path / "t.parquet", index=False)
    spec = json.loads((ROOT / "assets/examples/adult.policy.json").read_text())
    spec["columns"] = {k: v for k, v in spec["columns"].items() if k in columns[:-1]}
    spec["columns"].update({"hours-per-week": {"type": "drop"}, "extra": {"type": "drop"}})  # in every record
    domain = TableDomain.from_json(spec)
    with DuckDBSource(str(tmp_path / "t.parquet"), domain) as source:
        assert source._folded
        assert source.records_identity(KEY) == records_identity(str(tmp_path / "t.parquet"), KEY)
        assert source.n_rows == len(big) and source.value_counts("sex").sum() == len(big)


def test_a_folded_table_with_its_counts_sums_as_the_table():
    frame = pd.read_csv(ROOT / "assets/examples/adult.csv", dtype=str, keep_default_na=False)
    whole = RecordSums(KEY)
    whole.add(frame)
    folded = frame.groupby(list(frame.columns), sort=False).size().reset_index(name="n")
    weighted = RecordSums(KEY)
    weighted.add(folded.drop(columns="n"), folded["n"].to_numpy())
    assert len(folded) < len(frame) and weighted.identity() == whole.identity()
