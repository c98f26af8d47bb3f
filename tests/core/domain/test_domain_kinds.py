"""The one statement of each column kind (schema, parser and page built from it) and the editing helpers."""

import dataclasses
import json

import pytest

from dpsynth_core import DomainError
from dpsynth_core.domain import KIND_STATEMENTS, KINDS, column_from_json, editing, kinds, typed_values
from dpsynth_core.domain.schema import COLUMN_MODELS


@pytest.mark.parametrize("name", list(KIND_STATEMENTS))
def test_schema_and_parser_are_built_from_the_statement(name):
    statement, model, cls = KIND_STATEMENTS[name], COLUMN_MODELS[name], KINDS[name]
    assert set(model.model_fields) == {"type"} | {k.name for k in statement.keys}
    assert all(model.model_fields[k.name].description == k.rule for k in statement.keys)
    fields = {f.name for f in dataclasses.fields(cls)}
    assert all(k.field in fields for k in statement.keys), "every key sets an attribute of the kind's class"
    assert all(k.label for k in statement.keys if k.widget), "every widget has a label"
    assert all(k.when is None or k.when[0] in {x.name for x in statement.keys} for k in statement.keys)


def test_keys_with_another_attribute_name_reach_it():
    column = column_from_json("x", {"type": "float", "min": 0, "max": 1, "bins": 4})
    assert column.bins_requested == 4 and column.bins == 4 and isinstance(column.min, float)
    text = column_from_json("t", {"type": "text", "generator": "any", "size": 7})
    assert text.declared_size == 7 and text.alphabet == kinds.DEFAULT_ALPHABET
    listed = column_from_json("s", {"type": "categorical", "list": "us_states"})
    assert len(listed.values) == 51
    day = column_from_json("d", {"type": "date", "min": "2020-01-01", "max": "2020-12-31", "special": ["2020-02-29"]})
    assert day.special[0].isoformat() == "2020-02-29" and day.min.year == 2020


def test_typed_text_is_parsed_in_the_core():
    assert typed_values.parse_values("1\n2\n 3 ") == [1, 2, 3]
    assert typed_values.parse_values("a, b,,c") == ["a", "b", "c"]
    assert typed_values.parse_values("01, 2") == ["01", "2"]  # a leading zero stays text
    assert typed_values.parse_numbers("17, 25;40 65", "integer") == ([17, 25, 40, 65], [])
    assert typed_values.parse_numbers("40, 99, forty", "integer") == ([40, 99], ["'forty' is not a whole number"])
    assert typed_values.parse_numbers("  ", "float") == (None, [])
    assert typed_values.parse_numbers("2020-01-01 2020-13-01", "date")[0] == ["2020-01-01"]
    assert typed_values.list_text([0.5, 1.0, 2]) == "0.5, 1, 2"


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


@pytest.mark.parametrize("name", list(KIND_STATEMENTS))
def test_a_key_shown_on_a_condition_sits_below_the_key_it_depends_on(name):
    """The page draws one row at a time: a key's condition must be decided in an earlier row."""
    statement = KIND_STATEMENTS[name]
    assert all(k.row > statement.key(k.when[0]).row for k in statement.keys if k.when)
