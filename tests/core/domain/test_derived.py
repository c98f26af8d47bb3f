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
