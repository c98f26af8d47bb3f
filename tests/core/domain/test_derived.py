"""Columns computed from another column by a public rule after the draw (``dpsynth_core.domain.derived``)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.domain import TableDomain
from dpsynth_core.errors import DomainError
from tests.conftest import complete_domain

AGE_CAT = {"from": "age", "edges": [25, 46]}  # COMPAS's "Less than 25", "25 - 45", "Greater than 45"


def _compas(derived=AGE_CAT) -> dict:
    spec = complete_domain("compas")
    spec["columns"]["age_cat"]["derived"] = derived
    return spec


def test_a_derived_column_round_trips_and_is_not_measured():
    """Declared with its rule, the column reads back the same, says its rule, and the declaration a method fits
    drops it (its source stays)."""
    domain = TableDomain.from_json(_compas())
    assert domain.to_json()["columns"]["age_cat"]["derived"] == AGE_CAT
    assert TableDomain.from_json(json.loads(json.dumps(domain.to_json()))) == domain
    assert list(domain.derived) == ["age_cat"]
    assert "computed after the draw from 'age' in bands cut at 25, 46" in domain.columns["age_cat"].describe()
    measured = domain.measured()
    assert "age_cat" not in measured.kept and "age" in measured.kept and measured.columns["age_cat"].kind == "drop"
    assert TableDomain.from_json(complete_domain("compas")).measured() == TableDomain.from_json(
        complete_domain("compas")
    )


@pytest.mark.parametrize(
    "derived, said",
    [
        ({"from": "age", "edges": [25]}, "1 edges make 2 bands, one for each declared value in order; it declares 3"),
        ({"from": "age", "edges": [46, 25]}, "its edges must increase"),
        ({"from": "sex", "edges": [25, 46]}, "in bands, which needs a number column ('sex' is categorical)"),
        ({"from": "name", "edges": [25, 46]}, "which is not a kept column"),
        ({"from": "age_cat", "edges": [25, 46]}, "which is not a kept column"),
        ({"from": "age", "groups": {"Less than 25": ["1"]}}, "in groups, which needs a list of categories"),
        ({"from": "age", "edges": [25, 46], "prefix": True}, "give exactly one rule"),
        ({"from": "sex", "groups": {"Young": ["Male"]}}, "group 'Young' is none of its declared values"),
        ({"from": "sex", "groups": {"Less than 25": ["Boy"]}}, "'Boy' is none of the values of 'sex'"),
        (
            {"from": "sex", "groups": {"Less than 25": ["Male"], "25 - 45": ["Male"]}},
            "'Male' is in more than one group",
        ),
    ],
)
def test_a_rule_that_cannot_hold_is_refused_naming_why(derived, said):
    with pytest.raises(DomainError, match="is derived from") as raised:
        TableDomain.from_json(_compas(derived)).validate()
    assert said in str(raised.value)


def test_a_rule_of_the_wrong_form_is_refused_by_the_schema():
    with pytest.raises(DomainError, match="derived"):
        TableDomain.from_json(_compas({"from": "age", "edge": [25]}))
    with pytest.raises(DomainError, match="derived"):
        TableDomain.from_json(_compas({"edges": [25, 46]}))


def test_the_rules_compute_bands_groups_and_prefixes_from_the_sources_cells():
    """Bands by their edges (each band from its edge, up to the next), groups by their lists, a prefix by the
    longest declared value a cell begins with; a missing source cell, or one no rule holds, is missing (code 3)."""
    domain = TableDomain.from_json(_compas())
    rule = domain.columns["age_cat"].derived
    ages = pd.Series(["18", "24", "25", "45", "46", "90", None], dtype=object)
    assert rule.codes(domain.columns["age_cat"].values, ages).tolist() == [0, 0, 1, 1, 2, 2, 3]
    from dpsynth_core.domain.derived import DerivedRule

    grades = ("A", "B", "AB")
    prefix = DerivedRule("sub_grade", prefix=True)
    cells = pd.Series(["A1", "B5", "AB2", "C1", None], dtype=object)
    assert prefix.codes(grades, cells).tolist() == [0, 1, 2, 3, 3]
    groups = DerivedRule("sub_grade", groups={"A": ("A1", "A2"), "B": ("B5",)})
    assert groups.codes(grades, cells).tolist() == [0, 1, 3, 3, 3]
    assert np.asarray(groups.codes(grades, cells)).dtype.kind == "i"


def _ess(derived=None) -> dict:
    spec = complete_domain("ess9gb")
    if derived is not None:
        spec["columns"]["immigsent"]["derived"] = derived
    return spec


def test_a_sum_round_trips_says_its_parts_and_is_not_measured():
    """The European Social Survey's immigration sentiment, documented as the sum of its three questions: declared so,
    it reads back the same, says its parts (no bins: it is never fitted), and the declaration a method fits drops
    it while its parts stay."""
    domain = TableDomain.from_json(_ess())
    column = domain.columns["immigsent"]
    assert column.to_json()["derived"] == {"sum": ["imbgeco", "imueclt", "imwbcnt"]}
    assert TableDomain.from_json(json.loads(json.dumps(domain.to_json()))) == domain
    assert column.describe() == (
        "whole numbers from 0 to 30, computed after the draw as the sum of 'imbgeco', 'imueclt', 'imwbcnt' "
        "(no budget spent on it)"
    )
    measured = domain.measured()
    assert "immigsent" not in measured.kept and {"imbgeco", "imueclt", "imwbcnt"} <= set(measured.kept)


@pytest.mark.parametrize(
    "change, said",
    [
        ({"derived": {"sum": ["region"]}}, "of 'region', which is not a number column (it is categorical)"),
        ({"derived": {"sum": ["idno"]}}, "of 'idno', which is not another kept column"),
        ({"derived": {"sum": ["immigsent", "imbgeco"]}}, "of 'immigsent', which is not another kept column"),
        ({"derived": {"sum": ["imbgeco", "imbgeco"]}}, "'imbgeco' is named more than once"),
        ({"type": "integer", "derived": {"sum": ["imbgeco", "eduyrs_real"]}}, "which holds real numbers"),
        ({"missing": False}, "which may be missing: allow 'immigsent' to be missing too"),
    ],
)
def test_a_sum_that_cannot_hold_is_refused_naming_why(change, said):
    spec = _ess()
    spec["columns"]["eduyrs_real"] = {"type": "float", "min": 0, "max": 40}
    spec["columns"]["immigsent"].update(change)
    with pytest.raises(DomainError, match="is computed as a sum") as raised:
        TableDomain.from_json(spec).validate()
    assert said in str(raised.value)


def test_a_rule_of_the_wrong_kind_for_its_column_is_refused():
    """A list cannot be a sum, a number column cannot be bands of another, a rule names 'from' or 'sum' (the schema),
    and a sum's part is a measured column; bands of a sum are allowed."""
    spec = _ess()
    spec["columns"]["region"]["derived"] = {"sum": ["imbgeco"]}
    with pytest.raises(DomainError, match="which needs a number column"):
        TableDomain.from_json(spec).validate()
    with pytest.raises(DomainError, match="a number column's rule is 'sum'"):
        TableDomain.from_json(_ess({"from": "agea", "edges": [30]})).validate()
    with pytest.raises(DomainError, match="derived"):
        TableDomain.from_json(_ess({"from": "agea", "sum": ["imbgeco"]}))
    spec = _ess()
    spec["columns"]["total2"] = {"type": "integer", "min": 0, "max": 40, "derived": {"sum": ["immigsent", "lrscale"]}}
    with pytest.raises(DomainError, match="which is computed itself"):
        TableDomain.from_json(spec).validate()
    spec = _ess()
    spec["columns"]["mood"] = {"type": "categorical", "values": ["against", "between", "for"]}
    spec["columns"]["mood"]["derived"] = {"from": "immigsent", "edges": [10, 21]}
    assert TableDomain.from_json(spec).validate().derived.keys() == {"immigsent", "mood"}


def test_a_sum_adds_its_parts_and_is_missing_where_one_is():
    rule = TableDomain.from_json(_ess()).columns["immigsent"].derived
    cells = {
        "imbgeco": pd.Series([1, 10, None, 0], dtype="Int64"),
        "imueclt": pd.Series([2, 10, 5, 0], dtype="Int64"),
        "imwbcnt": pd.Series(["3", "10", "5", None], dtype=object),
    }
    assert rule.sources == ("imbgeco", "imueclt", "imwbcnt")
    np.testing.assert_array_equal(rule.sums(cells), [6.0, 30.0, np.nan, np.nan])


GAP = {"from": "stintrvw", "gap": [0, 30]}  # an interview ends 0 to 30 days after it starts


def test_a_gap_round_trips_says_itself_and_is_measured_as_its_gap():
    """The survey's interview end, declared 0 to 30 days past its start: it reads back the same, says so, and the
    declaration a method fits measures it as whole numbers of days 0 to 30 in its place (not dropped: it is read)."""
    spec = _ess()
    spec["columns"]["endintrvw"]["derived"] = GAP
    domain = TableDomain.from_json(spec).validate()
    assert domain.to_json()["columns"]["endintrvw"]["derived"] == GAP and list(domain.gaps) == ["endintrvw"]
    assert TableDomain.from_json(json.loads(json.dumps(domain.to_json()))) == domain
    assert domain.columns["endintrvw"].describe() == (
        "dates from 2018-08-01 to 2019-03-31, drawn as 'stintrvw' plus 0 to 30 days, the difference measured with DP "
        "in its place"
    )
    measured = domain.measured().columns["endintrvw"]
    assert (measured.kind, measured.min, measured.max, measured.missing) == ("integer", 0, 30, True)


@pytest.mark.parametrize(
    "column, derived, said",
    [
        ("endintrvw", {"from": "stintrvw", "gap": [5, 1]}, "its least gap (5) is more than its most (1)"),
        ("endintrvw", {"from": "stintrvw", "gap": [0, 0.5]}, "a gap between dates is whole"),
        ("endintrvw", {"from": "agea", "gap": [0, 30]}, "which holds integer values: a gap is between two columns"),
        ("endintrvw", {"from": "idno", "gap": [0, 30]}, "which is not another kept column"),
        ("endintrvw", {"from": "stintrvw", "edges": [1]}, "a date's rule is the 'gap'"),
        ("lrscale", {"from": "stintrvw", "gap": [0, 3]}, "which holds date values"),
        ("region", {"from": "agea", "gap": [0, 3]}, "a gap needs a date or number column"),
    ],
)
def test_a_gap_that_cannot_hold_is_refused_naming_why(column, derived, said):
    spec = _ess()
    spec["columns"][column]["derived"] = derived
    with pytest.raises(DomainError) as raised:
        TableDomain.from_json(spec).validate()
    assert said in str(raised.value)


def _refused(spec: dict) -> str:
    """The one line a declaration is refused with."""
    with pytest.raises(DomainError) as raised:
        TableDomain.from_json(spec).validate()
    return str(raised.value)


def test_a_gap_whose_range_ends_before_its_sources_is_refused_naming_both_ends():
    """A day's high declared up to 1,500 past its low declared up to 10,000 (the Rdatasets hunt's loose ranges): a
    synthetic low above 1,500 came out with its high below it (goog's highs below their lows in 65% of the rows);
    refused, naming the ends that would hold; the same range for both, or the column's reaching further, holds."""
    spec = {
        "columns": {
            "low": {"type": "float", "min": 500, "max": 10_000},
            "high": {"type": "float", "min": 500, "max": 1500, "derived": {"from": "low", "gap": [0, 100]}},
        }
    }
    assert _refused(spec) == (
        "column 'high' lies past 'low', yet its range ends at 1500 and 'low''s at 10,000: a synthetic 'low' above 1500 "
        "would come out with 'high' below it (clamped to its range); end 'high''s range at 10,000 or more, or "
        "'low''s at 1500 or less"
    )
    spec["columns"]["high"]["max"] = 10_000
    TableDomain.from_json(spec).validate()
    ess = _ess()
    ess["columns"]["endintrvw"] |= {"max": "2019-02-28", "derived": GAP}
    with pytest.raises(DomainError, match="a synthetic 'stintrvw' after 2019-02-28 would come out with 'endintrvw' "):
        TableDomain.from_json(ess).validate()


def test_a_least_gap_the_ranges_leave_no_room_for_is_refused_naming_the_ends_that_hold():
    """An end at least a day after its start, both declared to the same last day: a start drawn on that day came
    out with its end clamped onto it, in order but nearer than the least the rule declares. Refused, naming the ends
    that would hold (for dates and numbers); a least of 0, or the column's range reaching one day further, holds."""
    day = {"type": "date", "min": "2020-01-01", "max": "2020-12-31"}
    spec = {"columns": {"start": dict(day), "end": {**day, "derived": {"from": "start", "gap": [1, 30]}}}}
    assert _refused(spec) == (
        "column 'end' lies past 'start' by at least 1 day, yet its range ends at 2020-12-31 and 'start''s at "
        "2020-12-31: a synthetic 'start' after 2020-12-30 would come out with 'end' less than 1 day past it "
        "(clamped to its range); end 'end''s range at 2021-01-01 or later, or 'start''s at 2020-12-30 or earlier"
    )
    spec["columns"]["end"]["max"] = "2021-01-01"
    TableDomain.from_json(spec).validate()
    spec["columns"]["end"] |= {"max": "2020-12-31", "derived": {"from": "start", "gap": [0, 30]}}
    TableDomain.from_json(spec).validate()
    number = {"type": "integer", "min": 0, "max": 100}
    spec = {"columns": {"low": dict(number), "high": {**number, "derived": {"from": "low", "gap": [2, 50]}}}}
    with pytest.raises(DomainError, match="end 'high''s range at 102 or more, or 'low''s at 98 or less"):
        TableDomain.from_json(spec).validate()


def test_a_chain_of_gaps_is_accepted_and_a_cycle_refused():
    """A date past a date past another (a jail exit past its entry past the offence) is accepted; two dates each
    declared past the other are refused, since neither would be measured as itself."""
    spec = complete_domain("compas")
    spec["columns"]["r_jail_in"]["derived"] = {"from": "r_offense_date", "gap": [0, 400]}
    spec["columns"]["r_jail_out"]["derived"] = {"from": "r_jail_in", "gap": [0, 400]}
    assert list(TableDomain.from_json(spec).validate().gaps) == ["r_jail_in", "r_jail_out"]
    spec["columns"]["r_offense_date"]["derived"] = {"from": "r_jail_out", "gap": [0, 1]}
    with pytest.raises(DomainError, match="which lies past it in turn"):
        TableDomain.from_json(spec).validate()


def test_a_date_part_round_trips_says_itself_and_is_never_measured():
    """A year beside its date (Ecdat's breaches: the year of each breach's start): declared the date's part, it reads
    back the same, says so, and the declaration a method fits drops it; it needs a whole-number column and a date."""
    spec = _ess()
    spec["columns"]["year"] = {
        "type": "integer",
        "min": 2018,
        "max": 2019,
        "derived": {"from": "stintrvw", "part": "year"},
    }
    domain = TableDomain.from_json(spec).validate()
    assert domain.to_json()["columns"]["year"]["derived"] == {"from": "stintrvw", "part": "year"}
    assert (
        "computed after the draw as the year of 'stintrvw' (no budget spent on it)" in domain.columns["year"].describe()
    )
    assert domain.measured().columns["year"].kind == "drop"
    spec["columns"]["year"]["derived"] = {"from": "agea", "part": "month"}
    with pytest.raises(DomainError, match="is the month of 'agea', which holds integer values, not dates"):
        TableDomain.from_json(spec).validate()
    spec["columns"]["year"] = {"type": "float", "min": 0, "max": 3000, "derived": {"from": "stintrvw", "part": "year"}}
    with pytest.raises(DomainError, match="which needs a whole-number column"):
        TableDomain.from_json(spec).validate()


@pytest.mark.parametrize(
    "change, key",
    [
        ({"edges": [0, 10, 20]}, "'edges'"),
        ({"bin_width": 5}, "'bin_width'"),
        ({"special": [99]}, "'special'"),
        ({"edges": [0, 10], "special": [30]}, "'edges' and 'special'"),
    ],
)
def test_a_computed_column_declaring_its_own_bins_is_refused_naming_them(change, key):
    """A column computed by its rule (the survey's sum of its three questions) is never binned nor measured, so bins
    or exact values declared on it went unused without a word; now they are refused in one line naming them. A
    step, which rounds its values, stays (tests/core/data/test_gaps.py)."""
    spec = _ess()
    spec["columns"]["immigsent"].update(change)
    with pytest.raises(DomainError, match="is computed by its rule, so its bins and exact values go unused") as raised:
        TableDomain.from_json(spec).validate()
    assert str(raised.value).endswith(f"remove {key}")
    spec["columns"]["immigsent"] = {**_ess()["columns"]["immigsent"], "multiple_of": 3}
    TableDomain.from_json(spec).validate()
