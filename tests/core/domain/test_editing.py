"""A declaration being edited for one table: a file loaded against its columns, columns applied, status in words."""

import json

import pytest

from dpsynth_core import DomainError
from dpsynth_core.domain import editing


def test_a_declaration_file_is_loaded_for_a_table():
    spec = {"columns": {"a": {"type": "integer", "min": 0, "max": 9}, "b": {"type": "drop"}}}
    assert editing.load_for(json.dumps(spec).encode(), "x.json", ["a", "b"]).fits
    partial = editing.load_for(json.dumps(spec).encode(), "x.json", ["a", "c"])
    assert not partial.fits and partial.matching == ("a",) and "lacks" in partial.problem
    with pytest.raises(DomainError):
        editing.load_for(json.dumps(spec).encode(), "x.json", ["c"])
    with pytest.raises(DomainError, match="not valid JSON"):
        editing.load_for(b"{", "x.json", ["a"])
    merged = editing.apply_columns({"dataset": "t", "columns": {"c": {"type": "drop"}}}, spec, ["a"], ["c", "a", "d"])
    assert merged["dataset"] == "t" and list(merged["columns"]) == ["c", "a", "d"]
    assert merged["columns"]["a"]["max"] == 9 and merged["columns"]["d"] == editing.UNDECLARED


def test_status_and_readiness_in_words():
    assert editing.column_status("a", {"type": "integer", "min": 0})[0][0].startswith("column 'a': no public maximum")
    found, column = editing.column_status("a", {"type": "integer", "min": "0"})
    assert found and column is None
    assert editing.readiness({}, ["a", "b"]) == "All 2 columns are declared."
    assert editing.readiness({"b": ["x"]}, ["a", "b"]).startswith("1 of 2 columns are ready. Still to do: **b**")
    assert editing.policy_file_name({"dataset": "adult.csv"}) == "adult.domain.json"
