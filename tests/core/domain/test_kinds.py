"""The one statement of each column kind: the schema, the parser and the page built from it."""

import dataclasses

import pytest

from dpsynth_core.domain import KIND_STATEMENTS, KINDS, column_from_json, kinds
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


@pytest.mark.parametrize("name", list(KIND_STATEMENTS))
def test_a_key_shown_on_a_condition_sits_below_the_key_it_depends_on(name):
    """The page draws one row at a time: a key's condition must be decided in an earlier row."""
    statement = KIND_STATEMENTS[name]
    assert all(k.row > statement.key(k.when[0]).row for k in statement.keys if k.when)


def test_a_date_and_times_bounds_have_a_row_of_their_own():
    """Five boxes on a row left each bound's box too narrow to show how a date and time is written ("for example
    2010-01-"): the bounds sit side by side, the step, the grouping and the file's writing on the row below (a rule
    past another date has its own editor, above them)."""
    drawn = [
        k for k in KIND_STATEMENTS["datetime"].keys if k.widget not in ("", "flag", "values", "public_list", "derived")
    ]
    rows = {row: [k.name for k in drawn if k.row == row] for row in {k.row for k in drawn}}
    assert rows[0] == ["min", "max"] and {"step", "unit", "written"} <= set(rows[1]), rows
