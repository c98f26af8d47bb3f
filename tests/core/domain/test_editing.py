"""A declaration being edited for one table: a file loaded against its columns, columns applied, status in words."""

import json

import pytest

from dpsynth_core import DomainError
from dpsynth_core.domain import TableDomain, editing


def test_a_declaration_file_is_loaded_for_a_table():
    spec = {"columns": {"a": {"type": "integer", "min": 0, "max": 9}, "b": {"type": "drop"}}}
    assert editing.load_for(json.dumps(spec).encode(), "x.json", ["a", "b"]).fits
    partial = editing.load_for(json.dumps(spec).encode(), "x.json", ["a", "c"])
    assert not partial.fits and partial.matching == ("a",) and "lacks" in partial.problem
    with pytest.raises(DomainError):
        editing.load_for(json.dumps(spec).encode(), "x.json", ["c"])
    with pytest.raises(DomainError, match="not valid JSON"):
        editing.load_for(b"{", "x.json", ["a"])
    numbered = editing.load_for(json.dumps(spec).encode(), "x.json", ["column_1", "column_2"])  # no header line
    assert not numbered.fits and numbered.matching == () and numbered.names == ("a", "b")
    with pytest.raises(DomainError):  # three fields: not the declaration's two
        editing.load_for(json.dumps(spec).encode(), "x.json", ["column_1", "column_2", "column_3"])
    # a data package whose dialect says how its file is written: kept with its reading, to read the file again so
    package = {"resources": [{"dialect": {"delimiter": "|"}, "schema": {"fields": [{"name": "a", "type": "integer"}]}}]}
    read = editing.load_for(json.dumps(package).encode(), "datapackage.json", ["a|b"])
    assert not read.fits and read.matching == () and read.reading == {"delimiter": "|"}
    assert editing.load_for(json.dumps(package).encode(), "datapackage.json", ["a"]).reading == {"delimiter": "|"}
    merged = editing.apply_columns({"dataset": "t", "columns": {"c": {"type": "drop"}}}, spec, ["a"], ["c", "a", "d"])
    assert merged["dataset"] == "t" and list(merged["columns"]) == ["c", "a", "d"]
    assert merged["columns"]["a"]["max"] == 9 and merged["columns"]["d"] == editing.UNDECLARED


def test_status_and_readiness_in_words():
    assert editing.column_status("a", {"type": "integer", "min": 0})[0][0].startswith("column 'a': no public maximum")
    found, column = editing.column_status("a", {"type": "integer", "min": "0"})
    assert found and column is None
    assert editing.readiness({}, ["a", "b"]) == "All 2 columns are declared."
    assert editing.readiness({"b": ["x"]}, ["a", "b"]).startswith("1 of 2 columns is ready. Still to do: **b**")
    assert editing.readiness({}, ["a"]) == "The column is declared."
    assert editing.policy_file_name({"dataset": "adult.csv"}) == "adult.domain.json"


def test_columns_declared_alike_get_a_copy_each_and_a_codebook_column_is_confirmed():
    """A survey's questions on one scale declared once (FiveThirtyEight's non-voters poll, Q2_1 to Q2_10): each
    column given the declaration gets a copy of its own, the others stay, and a column the file's codebook started
    counts as confirmed (the publisher's word)."""
    from dpsynth_core.domain.editing import declare_alike

    scale = {"type": "categorical", "values": ["1", "2", "3", "4"], "labels": {"1": "Very important"}}
    declaration = {
        "columns": {"Q2_1": scale, "Q2_2": {"type": "text"}, "age": {"type": "integer", "min": 18, "max": 99}},
        "notes": {"codebook": {"columns": {"Q2_3": {"confirmed": False, "label": "Q2 item 3"}}}},
    }
    out = declare_alike(declaration, "Q2_1", ["Q2_2", "Q2_3", "Q2_1"], ["Q2_1", "Q2_2", "Q2_3", "age"])
    assert out["columns"]["Q2_2"] == out["columns"]["Q2_3"] == scale and out["columns"]["age"]["min"] == 18
    out["columns"]["Q2_2"]["values"].append("9")
    assert out["columns"]["Q2_3"]["values"] == ["1", "2", "3", "4"] and scale["values"] == ["1", "2", "3", "4"]
    assert out["notes"]["codebook"]["columns"]["Q2_3"] == {"confirmed": True, "label": "Q2 item 3"}
    assert declaration["notes"]["codebook"]["columns"]["Q2_3"]["confirmed"] is False  # the input is left as it was
    assert TableDomain.from_json(out).problems() == []
