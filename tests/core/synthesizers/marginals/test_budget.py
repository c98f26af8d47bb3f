"""The default method's budget: the 1-ways' shares, the plan before any data, and what a release then spends."""

import math

import numpy as np
import pytest

from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer
from tests.core.synthesizers.methods_common import adult_small


def first_one_way_sigmas(model) -> dict:
    """Each column's first 1-way measurement's noise (a later round may measure a column again)."""
    first = {}
    for m in model.measured_:
        if len(m["marginal"]) == 1:
            first.setdefault(m["marginal"][0], m["sigma"])
    return first


def test_plan_states_the_one_way_share_the_release_spends():
    """The plan's 1-way part (from the publisher's row count) is what a release spends on them (by a
    DP count: equal up to its noise); a small table's 1-ways get more than AIM's share."""
    from dpsynth_core.synthesizers.marginals.budget import one_way_share, planned_rounds
    from dpsynth_core.synthesizers.planning import budget_split

    rho = 0.01
    assert one_way_share(6, 1000, budget=rho) > one_way_share(6, 100_000, budget=rho) > one_way_share(6, None)
    assert planned_rounds(6, None) == planned_rounds(6, 4000) == 96 and planned_rounds(6, 32_561) == 48
    for rows in (1500, 4000):
        frame, spec = adult_small(rows)
        model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(frame, spec)
        names = list(model.domain_.kept)
        first = {}  # each column's first measurement (a later round may measure a column again)
        for e in model.accountant_.events:
            if e.label in {f"marginal {n}" for n in names}:
                first.setdefault(e.label, e.rho)
        spent = sum(first.values())
        planned = budget_split(spec, 1.0, expected_rows=rows)["1-way marginals (every column)"]
        assert spent / model.accountant_.rho() == pytest.approx(planned, rel=0.05)


def test_an_ordered_columns_first_one_way_gets_more_budget_and_the_plan_says_so():
    """A numeric or date column's first 1-way marginal gets ORDERED_ONE_WAY times AIM's per-column budget
    (its mean and quantiles rest on it): its noise is 1 / sqrt(ORDERED_ONE_WAY) of a categorical column's,
    in the release as in the plan's per-column noise. A small table's 1-ways, which get more than that
    anyway, share theirs by cells alone (:func:`cell_weights`), whatever the kind."""
    from dpsynth_core.synthesizers.marginals.budget import ORDERED_ONE_WAY, column_one_way

    assert column_one_way(6, 1000, ordered=True, budget=0.01) == column_one_way(6, 1000, budget=0.01)  # small
    frame, spec = adult_small(4000)
    model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(frame, spec, rows=4000)  # no DP count: AIM's
    first = first_one_way_sigmas(model)
    kinds = {n: c.kind for n, c in model.domain_.kept.items()}
    ordered = [n for n in first if kinds[n] in ("integer", "float", "date")]
    other = [n for n in first if n not in ordered]
    assert ordered and other
    for n in ordered:
        assert first[n] == pytest.approx(first[other[0]] / math.sqrt(ORDERED_ONE_WAY))
    plan = MarginalsSynthesizer.column_noise(spec, 1.0, rows=4000)
    assert plan[ordered[0]]["sigma"] == pytest.approx(plan[other[0]]["sigma"] / math.sqrt(ORDERED_ONE_WAY))
    assert plan[ordered[0]]["sigma"] == pytest.approx(first[ordered[0]], rel=0.01)


def test_a_public_row_count_still_gives_a_small_tables_one_ways_their_share():
    """With a public row count there is no DP count, yet a small table's first 1-ways get the small-table
    share: each column is measured again by the first 1-ways' own noisy total (post-processing), so its
    pooled noise is the plan's for that many records, not AIM's (compas at epsilon 0.5, 1,000 records:
    mean 2-way TVD 0.340 with AIM's share)."""
    from dpsynth_core.synthesizers.marginals.budget import CELL_POWER, column_one_way

    rows = 1500
    frame, spec = adult_small(rows)
    model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(frame, spec, rows=rows)
    names = list(model.domain_.kept)
    precision = dict.fromkeys(names, 0.0)  # 1 / sigma**2 pooled over each column's measurements before the rounds
    events = model.accountant_.events
    start = next(i for i, e in enumerate(events) if e.label.startswith("choice of marginal"))
    for e in events[:start]:
        if e.label.removeprefix("marginal ") in precision:
            precision[e.label.removeprefix("marginal ")] += 2 * e.rho
    plan = MarginalsSynthesizer.column_noise(spec, 1.0, rows=rows, expected_rows=rows)
    aim = MarginalsSynthesizer.column_noise(spec, 1.0, rows=rows)
    for name in names:
        assert plan[name]["sigma"] < 0.8 * aim[name]["sigma"]  # the small-table share is well above AIM's
        assert 1 / math.sqrt(precision[name]) == pytest.approx(plan[name]["sigma"], rel=0.05)
    assert column_one_way(len(names), rows, budget=0.01) > column_one_way(len(names), None)
    # split by cells ** CELL_POWER, not equally (every column here is above AIM's floor): education (17 cells)
    # gets (17 / 3) ** (2 / 3) = 3.2 times the precision of sex (3 cells)
    assert (model.cells_["education"], model.cells_["sex"]) == (17, 3)
    assert precision["education"] / precision["sex"] == pytest.approx((17 / 3) ** CELL_POWER, rel=0.02)


def test_the_plans_one_way_noise_is_the_releases_and_says_about_where_a_text_vocabulary_weighs_in():
    """Without free text the plan's per-column 1-way noise is the one the release card records (the plan
    given the release's DP count). A text column's cells are its vocabulary, known only after the release:
    the plan weighs it as the other columns' geometric mean (:func:`cell_weights`), so it marks the others
    ``estimated``, and their shares differ from the card's by exactly the ratio that guess explains, the
    total of the 1-ways being the same."""
    from dpsynth_core.synthesizers.marginals.budget import CELL_POWER

    frame, spec = adult_small(1000)
    words = np.random.default_rng(0).choice(["apple", "banana", "cherry"], len(frame), p=[0.6, 0.3, 0.1])
    with_text = {"columns": {**spec["columns"], "word": {"type": "text", "generator": "english_word"}}}
    for declared, data in ((spec, frame), (with_text, frame.assign(word=words))):
        model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(data, declared)
        first = first_one_way_sigmas(model)
        plan = MarginalsSynthesizer.column_noise(declared, 1.0, expected_rows=model._dp_count())
        others = [n for n in first if n != "word"]
        if declared is spec:
            assert all(not plan[n].get("estimated") for n in others)
            assert [plan[n]["sigma"] for n in others] == pytest.approx([first[n] for n in others], rel=1e-9)
            continue
        known = [model.cells_[n] ** CELL_POWER for n in others]
        guess = math.exp(sum(math.log(model.cells_[n]) for n in others) / len(others)) ** CELL_POWER
        explained = (sum(known) + guess) / (sum(known) + model.cells_["word"] ** CELL_POWER)
        assert explained > 1.01  # 4 cells against a guess of about 8: the others get more than planned
        for n in others:
            assert plan[n]["estimated"]
            assert (plan[n]["sigma"] / first[n]) ** 2 == pytest.approx(explained, rel=1e-9), n
    assert not MarginalsSynthesizer.column_noise(with_text, 1.0, rows=1000)["age"].get("estimated")  # AIM's share


def test_where_bins_are_fitted_the_plans_one_way_noise_says_about_and_is_near_the_releases():
    """Numeric columns declared by min and max only (their bins fitted with DP): a small table's 1-ways are split
    by cells (:func:`cell_weights`), and the release counts the bins it fitted, which the plan cannot know; so
    every column's figure reads "about", the plan counting a fitted column at its most bins
    (:func:`planned_cells`: 21 for hours-per-week, 1 to 99 with "missing", not its 100 cells of one value each).
    hours-per-week fitted 16 cells: its noise 1.06 times the plan's and the categories' 0.97 (with discrete Laplace
    leaf counts it fitted 8: 1.26 and 0.91; counted by its values, 1.62 and 0.70; hotel bookings, 19 fitted columns:
    0.75 to 1.87 times then, 0.89 to 1.39 with 8). The total is exact, and a large table (AIM's share for every
    column) reads no "about"."""
    from dpsynth_core.domain import TableDomain
    from dpsynth_core.synthesizers.marginals.budget import planned_cells

    frame, spec = adult_small(1000)
    for name in ("age", "hours-per-week"):
        spec["columns"][name] = {k: spec["columns"][name][k] for k in ("type", "min", "max")}  # min and max only
    model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(frame, spec)
    first = first_one_way_sigmas(model)
    plan = MarginalsSynthesizer.column_noise(spec, 1.0, expected_rows=model._dp_count())
    assert all(plan[n].get("estimated") for n in first)
    ratios = {n: first[n] / plan[n]["sigma"] for n in first}
    assert model.cells_["hours-per-week"] == 16 and 1.0 < ratios["hours-per-week"] < 1.1, ratios
    assert all(0.9 < r < 1.1 for r in ratios.values()), ratios
    declared = TableDomain.from_json(spec).columns
    assert planned_cells(declared["hours-per-week"]) == 21 and planned_cells(declared["sex"]) == 3
    assert not any(
        r.get("estimated") for r in MarginalsSynthesizer.column_noise(spec, 1.0, expected_rows=500_000).values()
    )


def test_a_small_tables_one_ways_get_the_share_that_brings_their_noise_to_a_fixed_part_of_the_records():
    """small_one_way: the share whose noise (per cell, Gaussian sigma**2 = 1 / (2 rho); Laplace sqrt(2) / eps)
    is ONE_WAY_NOISE times the records, capped at an equal part of SMALL_ONE_WAY_SHARE; AIM's share when
    that is more (a few columns at a large budget), so a large epsilon does not pour budget into 1-ways."""
    from dpsynth_core.synthesizers.marginals.budget import (
        ONE_WAY_NOISE,
        SMALL_ONE_WAY_SHARE,
        column_one_way,
        small_one_way,
    )

    rho, n = 0.31, 1000  # about epsilon 5 at delta 1e-9
    share = small_one_way(26, n, rho)
    assert share < SMALL_ONE_WAY_SHARE / 26
    assert math.sqrt(1 / (2 * share * rho)) == pytest.approx(ONE_WAY_NOISE * n)
    eps = 5.0
    assert math.sqrt(2) / (small_one_way(26, n, eps, zcdp=False) * eps) == pytest.approx(ONE_WAY_NOISE * n)
    assert small_one_way(26, n, 0.003) == SMALL_ONE_WAY_SHARE / 26  # epsilon 0.5: capped
    assert small_one_way(26, 4 * n, rho) == pytest.approx(share / 16)  # four times the records: a 16th
    assert small_one_way(26, None, rho) == small_one_way(26, n, 0) == 0
    aim = column_one_way(6, None)
    assert column_one_way(6, n, budget=rho) == aim > small_one_way(6, n, rho)  # 6 columns at epsilon 5: AIM's
    assert column_one_way(6, n, budget=0.012) == SMALL_ONE_WAY_SHARE / 6 > aim  # at epsilon 1: the cap


def test_cell_weights_split_the_small_share_by_cells_to_the_two_thirds():
    """cell_weights: ``cells ** CELL_POWER`` normalised to a mean of 1 (so the small-table total stays the
    same); a column whose cells are not known before the data counts as the others' geometric mean."""
    from dpsynth_core.synthesizers.marginals.budget import CELL_POWER, cell_weights

    weights = cell_weights([3, 24, None])
    assert sum(weights) == pytest.approx(3)
    assert weights[1] / weights[0] == pytest.approx(8**CELL_POWER) == pytest.approx(4)
    assert weights[2] / weights[0] == pytest.approx(math.sqrt(8) ** CELL_POWER)  # geometric mean of 3 and 24
    assert cell_weights([5, 5]) == [1.0, 1.0] and cell_weights([None]) == [1.0]
