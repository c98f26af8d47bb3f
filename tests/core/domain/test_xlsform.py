"""An XLSForm (KoboToolbox, ODK) read as a starting declaration: pyxform's example forms (BSD-2-Clause), and a small
form written here for the rules the examples do not hold (constraints, ranges, repeats, a multiple choice)."""

from __future__ import annotations

import io
import json

import openpyxl
import pytest

from dpsynth_core.cli import main
from dpsynth_core.domain import TableDomain
from dpsynth_core.domain.declaration import parse_declaration, read_declaration_bytes
from dpsynth_core.domain.editing import load_for
from dpsynth_core.errors import DomainError
from tests.conftest import shared_path


def _form(survey: list, choices: list | None = None, survey_name: str = "survey") -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = survey_name
    for row in survey:
        sheet.append(row)
    if choices is not None:
        listed = book.create_sheet("choices")
        for row in choices:
            listed.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


HOUSEHOLD = _form(
    [
        ["type", "name", "label::English (en)", "constraint", "parameters"],
        ["start", "start", None, None, None],
        ["deviceid", "deviceid", None, None, None],
        ["begin group", "household", "Household", None, None],
        ["integer", "age", "Age", ". >= 0 and . <= 120", None],
        ["integer", "members", "Members", ". > 0", None],
        ["decimal", "income", "Income", ". >= 0", None],
        ["range", "satisfaction", "Satisfied?", None, "start=1 end=5 step=1"],
        ["select_one yes_no", "owns_home", "Own home?", None, None],
        ["select_multiple fruit", "fruit", "Fruit eaten", None, None],
        ["geopoint", "location", "Where", None, None],
        ["note", "thanks", "Thank you", None, None],
        ["end group", None, None, None, None],
        ["begin repeat", "children", "Children", None, None],
        ["integer", "child_age", "Age", ". <= 18", None],
        ["end repeat", None, None, None, None],
        ["text", "comment", "Anything else?", None, None],
    ],
    [
        ["list_name", "name", "label::English (en)"],
        ["yes_no", "1", "Yes"],
        ["yes_no", "0", "No"],
        ["fruit", "apple", "Apple"],
        ["fruit", "banana", "Banana"],
    ],
)


def test_a_form_declares_what_its_questions_say_and_nothing_from_data():
    columns = parse_declaration(HOUSEHOLD, "household_survey.xlsx")["columns"]
    assert parse_declaration(_form([["type", "name"], ["end group"], ["integer", "n"]]), "f.xlsx")["columns"] == {
        "n": {"type": "integer"}
    }  # a first row without a name is still a form
    assert columns["age"] == {"type": "integer", "min": 0, "max": 120}
    assert columns["members"] == {"type": "integer", "min": 1}  # a range still to close, never from the data
    assert columns["income"] == {"type": "float", "min": 0}
    assert columns["satisfaction"] == {"type": "integer", "min": 1, "max": 5}
    assert columns["owns_home"] == {"type": "categorical", "values": ["1", "0"], "labels": {"1": "Yes", "0": "No"}}
    assert columns["fruit"] == {"type": "drop"} and columns["fruit/apple"]["values"] == ["1", "0"]
    assert columns["fruit/banana"]["labels"]["1"] == "Banana"
    assert columns["start"] == {"type": "datetime"}
    assert {columns[c]["type"] for c in ("deviceid", "location")} == {"drop"}
    assert "thanks" not in columns and "child_age" not in columns  # a note writes nothing; a repeat has its own file
    assert list(columns)[-1] == "comment"


def test_pyxforms_example_forms_read_as_declarations_every_column_valid():
    """The XLSForm specification's test form: each type of the specification, two languages' labels."""
    spec = parse_declaration(read_declaration_bytes(shared_path("xlsform/xlsform_spec_test.xlsx")), "spec.xlsx")
    columns = spec["columns"]
    assert columns["skip_to_end"]["labels"] == {"yes": "Yes", "no": "No"}
    assert (columns["a_integer"]["type"], columns["a_decimal"]["type"], columns["date_test"]["type"]) == (
        "integer",
        "float",
        "date",
    )
    assert {columns[c]["type"] for c in ("geopoint_test", "image_test", "deviceid", "phonenumber")} == {"drop"}
    older = parse_declaration(read_declaration_bytes(shared_path("xlsform/loop.xlsx")), "loop.xlsx")["columns"]
    assert "available_toilet_types/bucket_system" in older and "number" not in older  # "select all that apply from"
    widgets = parse_declaration(read_declaration_bytes(shared_path("xlsform/widgets.xls")), "widgets.xls")["columns"]
    assert widgets["my_int"] == {"type": "integer", "max": 9}  # an .xls form (an "int" of constraint ". < 10")
    assert widgets["my_decimal"] == {"type": "float", "min": 10.51, "max": 18.39}
    assert widgets["my_select/a"]["labels"]["1"] == "option a" and widgets["my_select1"]["values"][0] == "1"
    sexes = parse_declaration(read_declaration_bytes(shared_path("xlsform/specify_other.xlsx")), "s.xlsx")["columns"]
    assert sexes["sex"]["values"] == ["male", "female"]  # "select one from", a "list name" column


def test_declare_from_a_kobo_export_with_groups_in_its_headers(tmp_path, capsys):
    """KoboToolbox's export with "include groups in headers": ``father/age`` is the form's ``age``."""
    export = tmp_path / "export.csv"
    export.write_text(
        "family_name,father/phone_number,father/age,_id,_uuid,_submission_time,_submitted_by\n"
        "Smith,555,61,1,ab,2024-05-01T10:00:00,enumerator7\n"
    )
    out = tmp_path / "declared.json"
    form = shared_path("xlsform/group.xlsx")
    assert main(["declare", str(export), "--dictionary", str(form), "--out", str(out)]) == 0
    columns = json.loads(out.read_text())["columns"]
    assert columns["father/age"] == {"type": "integer"} and columns["father/phone_number"] == {"type": "drop"}
    assert columns["family_name"] == {"type": "drop"}  # a person's name, by its name's template
    assert [columns[c]["type"] for c in ("_id", "_uuid", "_submission_time", "_submitted_by")] == [
        "drop",
        "drop",
        "datetime",
        "drop",
    ]  # KoboToolbox's own columns, by their names
    loaded = load_for(form.read_bytes(), "group.xlsx", ["family_name", "father/phone_number", "father/age"])
    assert loaded.fits and TableDomain.from_json(loaded.spec).columns["father/age"].kind == "integer"


@pytest.mark.parametrize(
    "made, message",
    [
        (lambda: _form([["type", "name"], ["integer", "age"]], survey_name="questions"), "without a 'survey' sheet"),
        (lambda: _form([["question", "label"], ["age", "Age"]]), "no 'type' and 'name' columns"),
        (lambda: _form([["type", "name"]] + [["integer", f"q{i}"] for i in range(20_001)]), "more than 20,000 rows"),
        (lambda: b"PK\x03\x04 not really a spreadsheet", "not a readable spreadsheet"),
    ],
    ids=["no survey sheet", "no type column", "too long", "no spreadsheet"],
)
def test_a_spreadsheet_that_is_no_form_is_one_line(made, message):
    with pytest.raises(DomainError, match=message) as caught:
        parse_declaration(made(), "form.xlsx")
    assert len(str(caught.value).splitlines()) == 1
