"""Dropped identifiers that repeat while a release protects rows, told before a draw
(``dpsynth_core.data.person_notes``)."""

from __future__ import annotations

import pandas as pd

from dpsynth_core.data.misfits import fit_notes
from dpsynth_core.data.person_notes import repeated_identifiers
from dpsynth_core.domain import TableDomain
from dpsynth_core.domain.table import PersonUnit
from tests.conftest import complete_domain, shared_path

#: lme4's sleepstudy as its help page describes it: 18 subjects, days 0-9 of sleep deprivation, a reaction time in
#: milliseconds (no range given: the test's).
SLEEP = {
    "rownames": {"type": "drop"},
    "Reaction": {"type": "float", "min": 0, "max": 2000},
    "Days": {"type": "integer", "min": 0, "max": 9},
    "Subject": {"type": "drop"},
}


def _sleep() -> pd.DataFrame:
    return pd.read_csv(shared_path("sleepstudy.csv"), dtype=str, keep_default_na=False)


def test_a_subject_number_on_every_row_is_told_while_the_release_protects_rows():
    """sleepstudy's 18 subjects have 10 rows each; dropped as an identifier and no person declared, the release
    would protect each row, a subject's ten as ten records: the check says so (counts, no value) with what to
    declare; the row numbers (each once) are not told."""
    frame = _sleep()
    domain = TableDomain.from_json({"columns": SLEEP})
    said = repeated_identifiers(frame, domain)
    assert said == [
        "Column 'Subject' (dropped): 180 of its 180 filled cells hold a value another row holds too (18 values in 2 "
        "rows or more)."
    ]
    notes = fit_notes(frame, domain)
    assert notes.repeated == said
    [how] = [how for which, _, _, how in notes.advice() if which == "repeated"]
    assert "the column that identifies a person" in how and "--person" in how
    assert not any(value in " ".join(said) for value in frame["Subject"].unique())


def test_nothing_is_told_once_a_person_is_declared_or_when_nothing_repeats():
    """With the subjects declared the privacy unit, nothing; one row a subject (the first day), nothing; a column of
    few values (the days, dropped) is no identifier, nor one of names (COMPAS's, whose ids never repeat)."""
    frame = _sleep()
    domain = TableDomain.from_json({"columns": SLEEP})
    assert repeated_identifiers(frame, domain.with_person(PersonUnit("Subject", 10, "subject"))) == []
    assert repeated_identifiers(frame[frame["Days"] == "0"], domain) == []
    few = TableDomain.from_json({"columns": {**SLEEP, "Days": {"type": "drop"}}})
    assert repeated_identifiers(frame.assign(Subject=frame["rownames"]), few) == []
    reactions = TableDomain.from_json({"columns": {**SLEEP, "Reaction": {"type": "drop"}}})  # a measurement
    assert repeated_identifiers(frame.assign(Reaction=frame["Reaction"].str[:5]), reactions) == [
        repeated_identifiers(frame, reactions)[0]  # the subjects only: 249.5 and 258.7, repeated, are no codes
    ]
    compas = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)
    names = compas.assign(first=compas["first"].where(compas.index % 3 > 0, compas["first"].iloc[0]))
    assert repeated_identifiers(names, TableDomain.from_json(complete_domain("compas"))) == []


def test_a_few_repeats_are_not_told_and_missing_cells_never_repeat():
    """Fewer than 1% of the filled cells in a repeated value: nothing (a typing slip, not people with several rows);
    empty cells and the declared missing markers are not values."""
    frame = pd.DataFrame({"id": [f"P{i:04d}" for i in range(1000)], "x": ["1"] * 1000})
    domain = TableDomain.from_json({"columns": {"id": {"type": "drop"}, "x": {"type": "integer", "min": 0, "max": 9}}})
    few = frame.assign(id=frame["id"].where(frame.index >= 8, "P0999"))  # 9 cells hold one value
    assert repeated_identifiers(few, domain) == []
    empty = frame.assign(id=frame["id"].where(frame.index >= 500, ""))
    assert repeated_identifiers(empty, domain) == []
    marked = TableDomain.from_json({"columns": domain.to_json()["columns"], "missing_values": {"markers": ["NA"]}})
    assert repeated_identifiers(frame.assign(id=frame["id"].where(frame.index >= 500, "NA")), marked) == []
    assert repeated_identifiers(frame.assign(id=frame["id"].where(frame.index >= 20, "P0999")), domain) != []


def test_the_bundled_examples_dropped_weight_is_no_identifier():
    """adult's fnlwgt, dropped by the bundled declaration, holds numbers that repeat (17,231 of its 32,561 cells) as
    a subject's number does: its name is a survey weight's, not an identifier's, so the example's Preview says
    nothing of it; the same column named as an identifier would be told."""
    from dpsynth_core.data.examples import example_csv, example_declaration

    frame = pd.read_csv(example_csv("adult"), dtype=str, keep_default_na=False)
    spec = example_declaration("adult")
    assert spec["columns"]["fnlwgt"] == {"type": "drop"}
    assert repeated_identifiers(frame, TableDomain.from_json(spec)) == []
    renamed = frame.rename(columns={"fnlwgt": "respondent_id"})
    spec["columns"] = {("respondent_id" if n == "fnlwgt" else n): c for n, c in spec["columns"].items()}
    assert [line.split(":")[0] for line in repeated_identifiers(renamed, TableDomain.from_json(spec))] == [
        "Column 'respondent_id' (dropped)"
    ]
