"""Columns that are another column in bands, told before a draw (``dpsynth_core.data.banded``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpsynth_core.data.banded import banded_columns
from dpsynth_core.data.misfits import fit_notes
from dpsynth_core.domain import TableDomain
from tests.conftest import complete_domain, shared_path


def _compas_spec() -> dict:
    """COMPAS's declaration without its dates (which follow one another: told apart, tests/core/data/test_gaps.py)."""
    spec = complete_domain("compas")
    spec["columns"] = {n: c if c["type"] != "date" else {"type": "drop"} for n, c in spec["columns"].items()}
    return spec


def _compas() -> tuple[pd.DataFrame, TableDomain]:
    frame = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)
    return frame, TableDomain.from_json(_compas_spec())


def test_compas_age_category_is_told_as_the_age_in_bands_and_nothing_else_is():
    """COMPAS's ``age_cat`` (Less than 25, 25 - 45, Greater than 45) is ``age`` in three bands in every record; the
    release draws them apart, which the check says before a draw, naming columns and counts, never a value."""
    frame, domain = _compas()
    said = banded_columns(frame, domain)
    assert said == [f"Column 'age_cat' is 'age' in 3 bands in all {len(frame):,} rows that hold both."]
    notes = fit_notes(frame, domain)
    assert notes.banded == said and "banded" in [which for which, *_ in notes.advice()]
    [how] = [how for which, _, _, how in notes.advice() if which == "banded"]
    assert '"derived": {"from": "age", "edges"' in how
    spec = _compas_spec()
    spec["columns"]["age_cat"]["derived"] = {"from": "age", "edges": [25, 46]}  # computed from the age: told nothing
    assert banded_columns(frame, TableDomain.from_json(spec)) == []


def test_a_category_that_is_not_a_function_of_the_number_in_runs_is_no_band():
    """The same columns with the categories shuffled over the records, one record's age in another band, or the
    bands out of order along the ages (a band in two runs) are not bands; a category with as many values as the
    number (a code and its label) is not told either."""
    frame, domain = _compas()
    shuffled = frame.assign(age_cat=frame["age_cat"].sample(frac=1, random_state=np.random.default_rng(3)).to_numpy())
    assert banded_columns(shuffled, domain) == []
    one_off = frame.copy()
    young = one_off.index[one_off["age_cat"] == "Less than 25"][0]
    one_off.loc[young, "age_cat"] = "Greater than 45"
    assert banded_columns(one_off, domain) == []
    ages = pd.to_numeric(frame["age"])
    twice = frame.assign(age_cat=np.where((ages < 25) | (ages > 60), "Less than 25", frame["age_cat"]))
    assert banded_columns(twice, domain) == []  # the youngest and the oldest in one category: two runs
    small = frame[ages.isin([20, 30, 50])]  # three ages in three categories: a recoding, not bands
    assert banded_columns(small, domain) == []


def test_every_note_before_a_draw_has_its_icon_on_the_preview():
    from app_support.gates import _ADVICE_ICONS
    from dpsynth_core.data.misfits import FitNotes

    notes = FitNotes(*([["a line"]] * 7), *([["a line"]] * 7))
    assert {which for which, *_ in notes.advice()} <= set(_ADVICE_ICONS)


def test_a_list_that_groups_a_finer_one_is_told_and_one_row_outside_its_group_is_not():
    """Lending Club's grade is its sub-grade in seven groups (A1-A5 are A), which a release drew apart in 9% to 11%
    of its rows. Here adult's marital status grouped by a public rule into married or not, beside it: told; with one
    record in the other group, or on adult as it is (no list there groups another), nothing."""
    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("adult")
    assert banded_columns(frame, TableDomain.from_json(spec)) == []
    married = frame["marital-status"].str.startswith("Married").map({True: "married", False: "not married"})
    grouped = frame.assign(married=married)
    spec["columns"]["married"] = {"type": "categorical", "values": ["married", "not married"]}
    domain = TableDomain.from_json(spec)
    assert banded_columns(grouped, domain) == [
        f"Column 'married' is 'marital-status' in 2 groups in all {len(frame):,} rows that hold both."
    ]
    grouped.loc[grouped.index[grouped["married"] == "married"][0], "married"] = "not married"
    assert banded_columns(grouped, domain) == []


def test_a_total_beside_its_parts_is_told_and_nothing_that_only_looks_like_one_is():
    """The European Social Survey's sentiment is the sum of the three questions before it in all 1,850 records that
    hold them: told, naming columns and counts (no value), unless declared their sum. One record's total changed (a
    typing slip) is told with its count of rows; a fiftieth of them, or parts that are bits (one of them 1 where the
    total is), is no sum."""
    from dpsynth_core.data.banded import summed_columns

    frame = pd.read_csv(shared_path("ess9gb.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("ess9gb")
    rule = spec["columns"]["immigsent"].pop("derived")
    said = "Column 'immigsent' is the sum of 'imbgeco', 'imueclt', 'imwbcnt' in all 1,850 rows that hold them."
    assert summed_columns(frame, TableDomain.from_json(spec)) == [said]
    assert said in fit_notes(frame, TableDomain.from_json(spec)).banded
    at = frame.index[frame["immigsent"] == "15"][0]
    slip = frame.assign(immigsent=frame["immigsent"].mask(frame.index == at, "16"))
    assert summed_columns(slip, TableDomain.from_json(spec)) == [said.replace("all 1,850", "1,849 of the 1,850")]
    many = frame.index[frame["immigsent"] == "15"][:37]  # 2% of the rows
    slips = frame.assign(immigsent=frame["immigsent"].mask(frame.index.isin(many), "16"))
    assert summed_columns(slips, TableDomain.from_json(spec)) == []
    spec["columns"]["immigsent"]["derived"] = rule
    assert summed_columns(frame, TableDomain.from_json(spec)) == []
    bits = pd.DataFrame({"a": ["1", "0", "0"] * 30, "b": ["0", "1", "0"] * 30, "c": ["1", "1", "0"] * 30})
    columns = {n: {"type": "integer", "min": 0, "max": 2} for n in "abc"}
    assert summed_columns(bits, TableDomain.from_json({"columns": columns})) == []
    both = bits.assign(a=["1", "1", "0"] * 30, b=["1", "0", "0"] * 30, c=["2", "1", "0"] * 30)
    assert summed_columns(both, TableDomain.from_json({"columns": columns})) == [
        "Column 'c' is the sum of 'a', 'b' in all 90 rows that hold them."
    ]


def test_a_column_that_is_the_sum_of_two_others_anywhere_is_told():
    """asaur's ChanningHouse: a resident's age at exit is the age at entry plus the months at risk, three columns of
    which the total sits between its parts. Built here from the European Social Survey's own answers (a column that
    is two questions far apart added up, placed first): told as their sum, though its parts are not beside it."""
    from dpsynth_core.data.banded import summed_columns

    frame = pd.read_csv(shared_path("ess9gb.csv"), dtype=str, keep_default_na=False)
    held = frame["imbgeco"].ne("") & frame["lrscale"].ne("")
    frame = frame[held].copy()
    frame.insert(0, "added", (frame["imbgeco"].astype(int) + frame["lrscale"].astype(int)).astype(str))
    spec = complete_domain("ess9gb")
    spec["columns"] = {"added": {"type": "integer", "min": 0, "max": 20}, **spec["columns"]}
    said = summed_columns(frame, TableDomain.from_json(spec))
    assert f"Column 'added' is the sum of 'imbgeco', 'lrscale' in all {len(frame):,} rows that hold them." in said
