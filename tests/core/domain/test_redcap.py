"""A REDCap data dictionary read as a starting declaration (dpsynth_core.domain.redcap): REDCap's own files, from
REDCapR's test projects (tests/datasets/redcap), never a record."""

from __future__ import annotations

import json

import pytest

from dpsynth_core.cli import main
from dpsynth_core.data.formats import read_data
from dpsynth_core.domain import TableDomain
from dpsynth_core.domain.declaration import parse_declaration, read_declaration_bytes
from dpsynth_core.errors import DomainError
from dpsynth_core.release import synthesize
from tests.conftest import shared_path

CHECKED = {"type": "categorical", "values": ["0", "1"], "labels": {"0": "Unchecked", "1": "Checked"}}


def _dictionary(name: str) -> dict:
    path = shared_path(f"redcap/{name}.dictionary.csv")
    return parse_declaration(read_declaration_bytes(path), str(path))


def test_every_field_type_and_validation_starts_as_redcap_documents_it():
    """REDCap's menu of field types and text validations, one field each: the columns come in the export's order
    (a checkbox a column per choice, the instrument's status last, a descriptive field none), the identifiers and
    files dropped, numbers and dates by their validation, a bound the dictionary leaves out still to declare."""
    spec = _dictionary("validation_types")
    columns = spec["columns"]
    assert list(columns) == read_data(shared_path("redcap/validation_types.csv"))[1]["columns"]
    assert spec["documentation"].startswith("started from the REDCap data dictionary validation_types.dictionary.csv")
    dropped = [n for n, c in columns.items() if c["type"] == "drop"]
    assert dropped == ["record_id", "f_file_upload", "f_signature", "v_email", "v_mrn_10d", "v_mrn_generic"] + [
        "v_phone",
        "v_phone_australia",
        "v_ssn",
        "v_vmrn",
    ]
    assert columns["f_checkbox___2"] == CHECKED
    assert (
        columns["f_radio"]
        == columns["f_dropdown"]
        == {"type": "categorical", "values": ["0", "1", "2"], "labels": {"0": "Zero", "1": "One", "2": "Two"}}
    )
    assert columns["f_yes_no"]["labels"] == {"1": "Yes", "0": "No"} and columns["f_true_false"]["values"] == ["1", "0"]
    assert columns["f_slider"] == {"type": "integer", "min": -1, "max": 101} and columns["f_calculated"] == {
        "type": "float"
    }
    assert columns["v_integer"] == {"type": "integer"} and columns["v_number_2dp_comma_decimal"] == {
        "type": "float",
        "decimals": 2,
        "written": "decimal comma",
    }
    assert columns["v_date_mdy"] == {"type": "date"} and columns["v_datetime_seconds_dmy"] == {"type": "datetime"}
    assert columns["v_time_hh_mm"] == {"type": "time"} and columns["v_time_mm_ss"] == {"type": "text"}
    assert columns["v_zipcode"] == {"type": "text", "generator": "digits", "length": 5}
    assert columns["v_postalcode_australia"]["length"] == 4 and columns["v_postalcode_canada"] == {"type": "text"}
    assert columns["form_1_complete"]["labels"] == {"0": "Incomplete", "1": "Unverified", "2": "Complete"}
    problems = " ".join(TableDomain.from_json(spec).problems())
    assert "'v_integer'" in problems and "never taken from the data" in problems  # the bounds to supply


def test_a_dictionary_with_its_ranges_declares_the_export_whole_and_releases_it():
    """A clinical trial's dictionary gives every field's codes or range: loaded as the declaration (as the app's
    Domain page and ``--domain`` load it), it fits the export, nothing is left to declare, and the release keeps
    each category to its codes and each number in its validated range."""
    spec = _dictionary("clinical_trial")
    frame, info = read_data(shared_path("redcap/clinical_trial.csv"))
    domain = TableDomain.from_json(spec)
    domain.check_matches(info["columns"])
    assert domain.problems() == []
    assert list(domain.kept) == ["ethnicity", "race", "gender", "height", "weight", "demographics_complete"]
    assert spec["columns"]["dob"] == spec["columns"]["email"] == {"type": "drop"}  # an identifier; a name's template
    assert spec["columns"]["height"] == {"type": "float", "min": 0, "max": 250}
    assert spec["dataset"] == "clinical_trial"  # the card's title, from the dictionary file's name
    release = synthesize(frame, spec, 1.0, random_state=0).data
    assert set(release["race"].dropna()) <= {"1", "2", "3", "4", "5", "6"}
    assert release["weight"].dropna().astype(int).between(0, 300).all()


def test_a_longitudinal_export_starts_from_its_dictionary_and_is_told_its_rows_per_record(tmp_path, capsys):
    """REDCap's longitudinal example: ``declare --dictionary`` declares every field the dictionary documents, starts
    the export's own ``redcap_event_name`` from its name, and says that a record has a row per event, so its id
    names a person to declare as the privacy unit with a bound from the project's design."""
    out = tmp_path / "d.json"
    data, dictionary = shared_path("redcap/longitudinal.csv"), shared_path("redcap/longitudinal.dictionary.csv")
    assert main(["declare", str(data), "--dictionary", str(dictionary), "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert "a record ('study_id') may have several rows" in said.err and '"column": "study_id"' in said.err
    assert "from longitudinal.dictionary.csv and its column names" in said.out
    columns = json.loads(out.read_text())["columns"]
    assert list(columns) == read_data(data)[1]["columns"]
    assert columns["redcap_event_name"] == {"type": "text"} and columns["gym___4"] == CHECKED
    assert columns["specify_mood"] == {"type": "integer", "min": 0, "max": 100}  # a slider's default range
    assert columns["age"] == {"type": "integer", "min": 0, "max": 120}  # free text: its name's template
    assert columns["first_name"] == columns["patient_document"] == {"type": "drop"}
    assert columns["height"] == {"type": "float", "min": 130, "max": 215}
    assert columns["race"]["labels"]["5"] == "More Than One Race"


def test_a_dictionary_with_older_column_names_reads_as_todays():
    """REDCap 4's dictionaries (and tools that write them) name the choices "Choices OR Calculations", the
    validation "Text Validation Type" and its bounds "Min" and "Max": read as today's names, the same fields
    start alike (the choices and a date's range were lost)."""
    today = (
        "Variable / Field Name,Form Name,Section Header,Field Type,Field Label,"
        '"Choices, Calculations, OR Slider Labels",Field Note,Text Validation Type OR Show Slider Number,'
        "Text Validation Min,Text Validation Max,Identifier?\n"
    )
    older = (
        "Variable / Field Name,Form Name,Section Header,Field Type,Field Label,Choices OR Calculations,Field Note,"
        "Text Validation Type,Min,Max,Identifier\n"
    )
    rows = (
        "record_id,intake,,text,Record ID,,,,,,y\n"
        "weight,intake,,text,Weight (kg),,,number,2.5,300,\n"
        'sex,intake,,radio,Sex,"1, Male | 2, Female",,,,,\n'
        "seen,intake,,text,Visit,,,date_ymd,2020-01-01,2025-12-31,\n"
    )
    read = [parse_declaration((header + rows).encode(), "dictionary.csv")["columns"] for header in (today, older)]
    assert read[0] == read[1]
    assert read[1]["sex"] == {"type": "categorical", "values": ["1", "2"], "labels": {"1": "Male", "2": "Female"}}
    assert read[1]["seen"] == {"type": "date", "min": "2020-01-01", "max": "2025-12-31"}
    assert read[1]["weight"]["min"] == 2.5 and read[1]["record_id"] == {"type": "drop"}


def test_a_csv_that_is_no_dictionary_is_no_declaration():
    with pytest.raises(DomainError, match="is not valid JSON"):
        parse_declaration(b"age,sex\n34,F\n", "table.csv")


def test_an_export_of_labels_reads_as_its_codes_and_is_told_so():
    """REDCap's *CSV (labels)* export writes each choice's label (``Female``, ``Complete``) where the raw export writes
    its code: every such cell reads as the code its declared label names (a public rule of the cell and the
    declaration), so the two exports encode alike, and the check tells the publisher how many cells were read so.
    ``Missing``, a label here, is that choice, not a missing cell."""
    from dpsynth_core.data.encoding import encode_table
    from dpsynth_core.data.misfits import fit_notes

    spec = _dictionary("clinical_trial")
    raw = read_data(shared_path("redcap/clinical_trial.csv"))[0]
    labelled = raw.copy()
    for name in ("ethnicity", "gender", "demographics_complete"):
        labelled[name] = raw[name].map(spec["columns"][name]["labels"])
    assert (labelled["ethnicity"] == "Missing").sum() == 10
    domain = TableDomain.from_json(spec)
    read, written = encode_table(labelled, domain).columns, encode_table(raw, domain).columns
    for name in ("ethnicity", "gender", "demographics_complete"):
        assert (read[name].codes == written[name].codes).all()
    notes = fit_notes(labelled, domain)
    assert notes.missing == [] and notes.spelled == []
    assert "Column 'gender': 500 cells are written as a declared value's label" in notes.renamed[1]


def test_a_malformed_dictionary_is_one_line_naming_the_problem():
    """A dictionary cut short, without its Field Type column or naming a field twice is refused in one line; a bound
    that is no number (``1e400``, ``nan``, REDCap's ``today``) is no bound: it stays to declare."""
    header = (shared_path("redcap/validation_types.dictionary.csv").read_text().splitlines()[0]) + "\n"
    refused = {
        header: "describes no field",
        '"Variable / Field Name","Form Name"\nid,f\n': "without its 'Field Type' column",
        header + "id,f,,text,Id\nage,f,,text,Age\nage,f,,text,Age\n": "names the field 'age' twice",
    }
    for text, said in refused.items():
        with pytest.raises(DomainError, match=said) as found:
            parse_declaration(text.encode(), "dictionary.csv")
        assert "\n" not in str(found.value) and "dictionary.csv" in str(found.value)
    spec = parse_declaration(
        (header + "id,f,,text,Id\nx,f,,text,X,,,number,1e400,nan\nd,f,,text,D,,,date_ymd,today,2020-12-31\n").encode()
    )
    assert spec["columns"]["x"] == {"type": "float"} and spec["columns"]["d"] == {"type": "date", "max": "2020-12-31"}
