"""The default engine (AIM over a graphical model): domain, budget, accuracy, groups, text, audits."""

import math

import numpy as np
import pandas as pd
import pytest

from dpsynth_core import constraints, synthesize
from dpsynth_core.data.counting import CodedTable
from dpsynth_core.errors import ParameterError
from dpsynth_core.evaluation.metrics import paired_codes, two_way_distances
from dpsynth_core.privacy.accounting import zcdp_to_epsilon
from dpsynth_core.privacy.noise import make_noise_source
from dpsynth_core.synthesizers.charges import BIN_COUNTS_MECHANISM
from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer, choose, measure, score
from tests.audit import HalfGaussian, HalfNoise, audit
from tests.conftest import stated
from tests.core.synthesizers.methods_common import adult_small, assert_in_domain


def _mean_two_way(frame, out, spec):
    matrix = two_way_distances(paired_codes(frame, out, spec)).to_numpy()
    return matrix[np.triu_indices(len(matrix), 1)].mean()


def test_output_in_domain_with_row_count():
    frame, spec = adult_small()
    model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(frame, spec)
    out = model.sample()
    assert len(out) == model.rows_
    assert abs(model.rows_ - len(frame)) < 200  # the model's estimate of the count (noise sd about 20 here)
    assert_in_domain(out, spec)
    assert len(model.sample(123)) == 123


def test_budget_is_spent_exactly_and_matches_the_noise_drawn():
    frame, spec = adult_small()
    model = MarginalsSynthesizer(epsilon=0.8, random_state=3).fit(frame, spec)
    total = model.accountant_.total()
    # the default delta: a public constant (never a function of the data), so the charge is known in advance
    assert model.delta_ == constraints.DELTA_DEFAULT == 1e-10
    assert total["delta"] == 1e-10 and total["composition"] == "zCDP"
    assert total["epsilon"] == pytest.approx(0.8, rel=1e-6) and total["epsilon"] <= 0.8
    # every zCDP cost in the ledger was drawn, and the pure spends are the logged Laplace draws
    drawn_rho = sum(rho for _, rho, _ in model.noise_.zcdp_log)
    pure = [e for e in model.accountant_.events if not e.is_zcdp]
    assert drawn_rho + sum(e.epsilon**2 / 2 for e in pure) == pytest.approx(model.accountant_.rho())
    # PrivTree draws Laplace noise of scale 3 / epsilon at every level of its tree (its proof pays for the depth);
    # every other pure draw is one measurement at scale 1 / epsilon
    trees = {label.removesuffix(" (tree)"): s for label, s, _ in model.noise_.log if label.endswith(" (tree)")}
    first = {e.label: e.epsilon for e in pure if e.label in trees and e.mechanism != BIN_COUNTS_MECHANISM}
    assert trees and set(first) == set(trees)  # adult's age and hours are trees on this small table
    assert all(trees[label] == pytest.approx(3 / first[label]) for label in trees)
    counts = sum(1 / s for label, s, _ in model.noise_.log if not label.endswith(" (tree)"))
    assert counts == pytest.approx(sum(e.epsilon for e in pure) - sum(first.values()))
    assert zcdp_to_epsilon(model.accountant_.rho(), 1e-8) <= 0.8


def test_pure_mode_uses_basic_composition():
    frame, spec = adult_small(2000)
    release = synthesize(frame, spec, 1.0, method="marginals", random_state=1, delta=0)
    g = stated(release.card)
    assert g["delta"] == 0 and g["composition"] == "basic" and g["epsilon"] == pytest.approx(1.0)
    assert not any(e["mechanism"].startswith("discrete Gaussian") for e in release.card["spends"])
    with pytest.raises(ParameterError, match="delta"):
        MarginalsSynthesizer(epsilon=1.0, random_state=0, delta=0.5).fit(frame, spec)


def test_card_states_the_chosen_epsilon_and_explains_delta():
    frame, spec = adult_small(2000)
    card = synthesize(frame, spec, 1.0, method="marginals", random_state=2).card
    g = stated(card)
    assert f"{g['epsilon']:.4g}" == "1" and "rho" in g and "chance" in g["delta_in_plain_words"]
    assert sum(card["budget_split"].values()) == pytest.approx(1.0, rel=1e-6)
    assert "delta_rule" in card["method_details"] and card["method_details"]["measured_marginals"]


def test_near_noise_free_run_reproduces_two_way_marginals():
    frame, spec = adult_small(4000)
    model = MarginalsSynthesizer(epsilon=20.0, delta=1e-6, random_state=2).fit(frame, spec)
    out = model.sample(len(frame))
    # with negligible noise the model answers every 2-way marginal well (sampling error only)
    assert _mean_two_way(frame, out, spec) < 0.03


def test_beats_independent_columns_on_two_way_distance():
    frame, spec = adult_small(8000)
    mean2 = {}
    for method in ("cathist", "marginals"):
        mean2[method] = np.mean(
            [
                _mean_two_way(frame, synthesize(frame, spec, 1.0, method=method, random_state=seed).data, spec)
                for seed in range(2)
            ]
        )
    assert mean2["marginals"] < 0.6 * mean2["cathist"]


def test_publisher_groups_are_measured_and_checked():
    frame, spec = adult_small()
    model = MarginalsSynthesizer(epsilon=1.0, random_state=4, groups=[("age", "sex", "income")]).fit(frame, spec)
    measured = [tuple(m["marginal"]) for m in model.card_details()["measured_marginals"]]
    assert ("age", "sex", "income") in measured
    assert model.model_.tree.home(("age", "sex", "income")) is not None
    with pytest.raises(ParameterError, match="not in the release"):
        MarginalsSynthesizer(epsilon=1.0, random_state=0, groups=[("sex", "nope")]).fit(frame, spec)
    with pytest.raises(ParameterError, match="2 or 3"):
        MarginalsSynthesizer(epsilon=1.0, random_state=0, groups=[("sex",)]).fit(frame, spec)
    with pytest.raises(ParameterError, match="cells"):
        MarginalsSynthesizer(epsilon=1.0, random_state=0, groups=[("age", "education")], max_cells=50).fit(frame, spec)


def test_text_columns_enter_through_a_cathist_vocabulary():
    spec = {
        "columns": {
            "word": {"type": "text", "generator": "english_word"},
            "code": {"type": "integer", "min": 0, "max": 9},
        }
    }
    frame = pd.DataFrame({"word": ["apple"] * 600 + ["banana"] * 400, "code": [str(i % 10) for i in range(1000)]})
    model = MarginalsSynthesizer(epsilon=5.0, random_state=0).fit(frame, spec)
    labels = [e.label for e in model.accountant_.events]
    assert any("vocabulary word" in lab for lab in labels)
    out = model.sample(500)
    assert_in_domain(out, spec)
    assert {"apple", "banana"} <= set(out["word"].dropna())


def test_single_column_table():
    spec = {"columns": {"sex": {"type": "categorical", "values": ["F", "M"], "missing": False}}}
    frame = pd.DataFrame({"sex": ["F"] * 70 + ["M"] * 30})
    release = synthesize(frame, spec, 1.0, method="marginals", random_state=0)
    assert set(release.data["sex"]) <= {"F", "M"}
    assert stated(release.card)["epsilon"] == pytest.approx(1.0, rel=1e-6)


# --- privacy audits: one measurement, one selection step ---------------------------------

_A = CodedTable({"a": np.array([0] * 12 + [1] * 8)}, {"a": 3}, 20)
_B = CodedTable({"a": np.array([0] * 12 + [1] * 8 + [2])}, {"a": 3}, 21)  # one added record, a new cell
SIGMA, DELTA = 1.5, 0.05  # rho = 1 / (2 sigma^2); audited as (epsilon(rho, delta), delta)-DP
_GAUSS_EVENTS = {f"cell 2 >= {t}": (lambda t: lambda out: out[2] >= t)(t) for t in (1, 2, 3)}


def _measurement(table, seed, broken=False):
    source = make_noise_source(seed)
    if broken:
        source = HalfGaussian(secure=False, rng=source.rng)
    return measure(source, table.marginal(("a",)), SIGMA, zcdp=True)[0]


def test_audit_gaussian_measurement_passes():
    eps = zcdp_to_epsilon(1 / (2 * SIGMA**2), DELTA)
    result = audit(_measurement, _A, _B, _GAUSS_EVENTS, trials=3000, seed=1, delta=DELTA)
    assert not result.violates(eps), result


def test_audit_catches_half_gaussian_noise():
    eps = zcdp_to_epsilon(1 / (2 * SIGMA**2), DELTA)
    result = audit(
        lambda t, s: _measurement(t, s, broken=True), _A, _B, _GAUSS_EVENTS, trials=3000, seed=2, delta=DELTA
    )
    assert result.violates(eps), result


def _laplace_measurement(table, seed, broken=False):
    source = make_noise_source(seed)
    if broken:
        source = HalfNoise(secure=False, rng=source.rng)
    return measure(source, table.marginal(("a",)), 1.0, zcdp=False)[0]


_LAPLACE_EVENTS = {f"cell 2 >= {t}": (lambda t: lambda out: out[2] >= t)(t) for t in (1, 2)}


def test_audit_pure_measurement_passes_and_catches_half_noise():
    assert not audit(_laplace_measurement, _A, _B, _LAPLACE_EVENTS, trials=3000, seed=3).violates(1.0)
    assert audit(lambda t, s: _laplace_measurement(t, s, True), _A, _B, _LAPLACE_EVENTS, trials=3000, seed=4).violates(
        1.0
    )


# Selection: two candidate pairs scored against a fixed public model (2 per cell). On D the
# pair (a, c) is worse answered; the added record makes both equally bad.
_ROWS = [(0, 0, 0), (0, 0, 0), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)]
_D = CodedTable({k: np.array([r[i] for r in _ROWS]) for i, k in enumerate("abc")}, dict.fromkeys("abc", 2), 8)
_ROWS2 = _ROWS + [(0, 0, 1)]
_D2 = CodedTable({k: np.array([r[i] for r in _ROWS2]) for i, k in enumerate("abc")}, dict.fromkeys("abc", 2), 9)
_CANDIDATES = [("a", "b"), ("a", "c")]
SELECT_RHO = 1 / 8  # exponential mechanism with eps = sqrt(8 rho) = 1: (1, 0)-DP as well


def _selection(table, seed, broken=False):
    truth = {c: table.marginal(c) for c in _CANDIDATES}
    answers = {c: np.full((2, 2), 2.0) for c in _CANDIDATES}
    weights = {c: 3.0 for c in _CANDIDATES}
    scores = score(_CANDIDATES, truth, answers, weights, penalty=0.0)
    if broken:
        return int(np.argmax(scores))  # the true best, no noise
    return choose(make_noise_source(seed), scores, SELECT_RHO, sensitivity=3.0, zcdp=True)


_SELECT_EVENTS = {"(a, b) chosen": lambda i: i == 0, "(a, c) chosen": lambda i: i == 1}


def test_audit_selection_passes():
    eps = math.sqrt(8 * SELECT_RHO)
    assert not audit(_selection, _D, _D2, _SELECT_EVENTS, trials=3000, seed=5).violates(eps)


def test_audit_catches_selection_without_noise():
    eps = math.sqrt(8 * SELECT_RHO)
    assert audit(lambda t, s: _selection(t, s, True), _D, _D2, _SELECT_EVENTS, trials=300, seed=6).violates(eps)


# --- empty tails of a declared range -------------------------------------------------------


def _tail_table(rows: int, seed: int):
    """x declared 0-99 in ten public bins, every record in 40-59; g follows x."""
    rng = make_noise_source(seed).rng
    x = rng.integers(40, 60, rows)
    g = np.where(x < 50, "low", "high")
    spec = {
        "columns": {
            "x": {"type": "integer", "min": 0, "max": 99, "bin_width": 10, "missing": False},
            "g": {"type": "categorical", "values": ["low", "high"], "missing": False},
        }
    }
    return pd.DataFrame({"x": x.astype(str), "g": g}), spec


def test_empty_tails_of_a_declared_range_stay_empty(monkeypatch):
    """x's eight empty bins form two tails of four cells. A tail is cut when its pooled noisy count
    plus z * s * sqrt(4) is at most TAIL_SHARE of the estimated records (here 250 of 50,000, while
    z * s * sqrt(4) is about 75): it stays only if the noise of its sum (standard deviation 2 s,
    about 40) exceeds 175, a chance below 1e-5 per release. Without the support the same releases
    put rows there (noise in empty cells becomes rows)."""
    from dpsynth_core.synthesizers import marginals

    z0 = marginals.EMPTY_Z
    assert z0 is not None
    leaks = {}
    for z in (z0, None):
        monkeypatch.setattr(marginals, "EMPTY_Z", z)
        leaks[z] = 0
        for seed in range(3):
            frame, spec = _tail_table(50_000, seed)
            model = MarginalsSynthesizer(epsilon=1.0, random_state=seed).fit(frame, spec)
            x = model.sample(50_000)["x"].astype(int)
            leaks[z] += int(((x < 40) | (x > 59)).sum())
            if z is not None:
                assert not model.support_["x"][:4].any() and not model.support_["x"][6:].any()
                assert model.support_["x"][4:6].all()
    assert leaks[z0] == 0 and leaks[None] > 0


def test_an_empty_region_inside_a_declared_range_stays_nearly_empty(monkeypatch):
    """x holds records in 0-19 and 80-99 of ten declared bins: 20-79 is an empty gap of six cells inside
    the range, which the tail rule cannot reach. A gap whose cells and pooled count cannot be told from
    empty (below z * s and z * s * sqrt(j), s about 10-20 records here) is cut; a gap cell whose noise
    reaches z * s stays and the model gives it about its measured count, under 2 z s. So three releases
    put at most 6 z s (about 200) rows in the gap; here none or one, against 57 without the support."""
    from dpsynth_core.synthesizers import marginals

    z0 = marginals.EMPTY_Z
    leaks = {}
    for z in (z0, None):
        monkeypatch.setattr(marginals, "EMPTY_Z", z)
        leaks[z] = 0
        for seed in range(3):
            rng = make_noise_source(seed).rng
            x = np.where(rng.random(50_000) < 0.5, rng.integers(0, 20, 50_000), rng.integers(80, 100, 50_000))
            frame, spec = _tail_table(50_000, seed)
            frame = frame.assign(x=x.astype(str), g=np.where(x < 50, "low", "high"))
            model = MarginalsSynthesizer(epsilon=1.0, random_state=seed).fit(frame, spec)
            drawn = model.sample(50_000)["x"].astype(int)
            leaks[z] += int(((drawn >= 20) & (drawn < 80)).sum())
    assert leaks[z0] <= 5 and leaks[None] > 30


def test_plan_states_the_one_way_share_the_release_spends():
    """The plan's 1-way part (from the publisher's row count) is what a release spends on them (by a
    DP count: equal up to its noise); a small table's 1-ways get more than AIM's share."""
    from dpsynth_core.synthesizers.marginals import one_way_share, planned_rounds
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
    from dpsynth_core.synthesizers.marginals import ORDERED_ONE_WAY, column_one_way

    assert column_one_way(6, 1000, ordered=True, budget=0.01) == column_one_way(6, 1000, budget=0.01)  # small
    frame, spec = adult_small(4000)
    model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(frame, spec, rows=4000)  # no DP count: AIM's
    first = {}
    for m in model.measured_:
        if len(m["marginal"]) == 1:
            first.setdefault(m["marginal"][0], m["sigma"])
    kinds = {n: c.kind for n, c in model.domain_.kept.items()}
    ordered = [n for n in first if kinds[n] in ("integer", "float", "date")]
    other = [n for n in first if n not in ordered]
    assert ordered and other
    for n in ordered:
        assert first[n] == pytest.approx(first[other[0]] / math.sqrt(ORDERED_ONE_WAY))
    plan = MarginalsSynthesizer.column_noise(spec, 1.0, rows=4000)
    assert plan[ordered[0]]["sigma"] == pytest.approx(plan[other[0]]["sigma"] / math.sqrt(ORDERED_ONE_WAY))
    assert plan[ordered[0]]["sigma"] == pytest.approx(first[ordered[0]], rel=0.01)


def test_the_adult_example_keeps_the_zeros_and_means_of_capital_gain_and_loss():
    """Issue 20 point 2, on the bundled example at epsilon 1 with the default method: shares of 0 within 5
    points and means within 25%. Empty bins at the top of capital-loss's range (a tail) and capital-gain's
    empty 50,000-99,998 bin (a gap below the declared top code 99,999) are cut from the model's support
    instead of their noise becoming rows at large values, at a threshold familywise over the column's bins
    (one empty bin at +2.4 noise deviations gave capital-loss +84% at seed 7 with a per-bin z = 2). What is left of capital-gain's error is the
    noise on its 159 records at 99,999, which carry 45% of its mean: with its first 1-way marginal at
    ORDERED_ONE_WAY = 3 times a categorical column's budget, pooled noise s of about 39 records gives its
    mean a standard deviation of 99,999 s / (32,561 x 1,078), about 11% (16% before); here -12%, +19%,
    -10%, +6% (capital-loss within 7%)."""
    from dpsynth_core.data.examples import example_csv, example_declaration
    from dpsynth_core.release import synthesize

    real = pd.read_csv(example_csv("adult"), skipinitialspace=True)
    for seed in range(4):
        synthetic = synthesize(example_csv("adult"), example_declaration("adult"), 1.0, random_state=seed).data
        for column, mean_error in (("capital-gain", 0.25), ("capital-loss", 0.25)):
            r, s = (pd.to_numeric(t[column], errors="coerce") for t in (real, synthetic))
            assert abs((s == 0).mean() - (r == 0).mean()) < 0.05, (seed, column)
            assert abs(s.mean() / r.mean() - 1) < mean_error, (seed, column, s.mean(), r.mean())


def test_a_public_row_count_still_gives_a_small_tables_one_ways_their_share():
    """With a public row count there is no DP count, yet a small table's first 1-ways get the small-table
    share: each column is measured again by the first 1-ways' own noisy total (post-processing), so its
    pooled noise is the plan's for that many records, not AIM's (compas at epsilon 0.5, 1,000 records:
    mean 2-way TVD 0.340 with AIM's share)."""
    from dpsynth_core.synthesizers.marginals_budget import CELL_POWER, column_one_way

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
    from dpsynth_core.synthesizers.marginals_budget import CELL_POWER

    frame, spec = adult_small(1000)
    words = np.random.default_rng(0).choice(["apple", "banana", "cherry"], len(frame), p=[0.6, 0.3, 0.1])
    with_text = {"columns": {**spec["columns"], "word": {"type": "text", "generator": "english_word"}}}
    for declared, data in ((spec, frame), (with_text, frame.assign(word=words))):
        model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(data, declared)
        first = {}
        for m in model.measured_:
            if len(m["marginal"]) == 1:
                first.setdefault(m["marginal"][0], m["sigma"])
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


def test_a_small_tables_one_ways_get_the_share_that_brings_their_noise_to_a_fixed_part_of_the_records():
    """small_one_way: the share whose noise (per cell, Gaussian sigma**2 = 1 / (2 rho); Laplace sqrt(2) / eps)
    is ONE_WAY_NOISE times the records, capped at an equal part of SMALL_ONE_WAY_SHARE; AIM's share when
    that is more (a few columns at a large budget), so a large epsilon does not pour budget into 1-ways."""
    from dpsynth_core.synthesizers.marginals_budget import (
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
    from dpsynth_core.synthesizers.marginals_budget import CELL_POWER, cell_weights

    weights = cell_weights([3, 24, None])
    assert sum(weights) == pytest.approx(3)
    assert weights[1] / weights[0] == pytest.approx(8**CELL_POWER) == pytest.approx(4)
    assert weights[2] / weights[0] == pytest.approx(math.sqrt(8) ** CELL_POWER)  # geometric mean of 3 and 24
    assert cell_weights([5, 5]) == [1.0, 1.0] and cell_weights([None]) == [1.0]


def test_the_fit_stops_sooner_only_where_the_noise_is_large_for_the_tables_size(monkeypatch):
    """Records at most FINE_FIT_SIGNAL times a round's mean |noise|: 5 iterations per round and 40 at the
    end; above it (little noise for the table's size), 10 and 75."""
    from dpsynth_core.synthesizers import marginals as module

    calls = []

    def recorded(*args, **kwargs):
        calls.append(kwargs["iterations"])
        return estimate(*args, **kwargs)

    estimate = module.estimate
    monkeypatch.setattr(module, "estimate", recorded)
    runs = {}
    for rows, epsilon in ((1000, 1.0), (30000, 10.0)):  # records / noise: about 25 and 8,000
        frame, spec = adult_small(rows)
        calls.clear()
        MarginalsSynthesizer(epsilon=epsilon, delta=1e-6, random_state=0).fit(frame, spec)
        runs[epsilon] = list(calls)
    noisy, fine = runs[1.0], runs[10.0]
    assert noisy[0] == module.NOISY_FINAL_ITERATIONS // 3 and noisy[-1] == module.NOISY_FINAL_ITERATIONS
    assert set(noisy[1:-1]) == {module.NOISY_ROUND_ITERATIONS}
    assert fine[0] == module.FINAL_ITERATIONS // 3 and fine[-1] == module.FINAL_ITERATIONS
    assert set(fine[1:-1]) == {module.ROUND_ITERATIONS}
