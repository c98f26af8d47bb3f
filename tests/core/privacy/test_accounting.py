"""The accountant: immutable events, basic and advanced composition, no mixed relations."""

import dataclasses
import math

import numpy as np
import pytest

from dpsynth_core.privacy.accounting import (
    ADD_REMOVE,
    SUBSTITUTE,
    Accountant,
    PrivacyEvent,
    _advanced_epsilon,
    _repeated_sum,
    expanded_events,
    fit_to_budget,
    grouped_events,
    split_budget,
)


def test_events_are_immutable():
    event = PrivacyEvent("discrete Laplace count", 0.5, label="row count")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.epsilon = 1.0


def test_basic_composition_adds_up():
    ledger = Accountant([PrivacyEvent("m", 0.2), PrivacyEvent("m", 0.3, 1e-7)])
    assert ledger.basic() == (pytest.approx(0.5), pytest.approx(1e-7))


def test_advanced_composition_formula_and_choice():
    # k = 100 events of eps 0.01: sqrt(2 k ln(1/d)) eps + k eps (e^eps - 1)
    ledger = Accountant([PrivacyEvent("m", 0.01)] * 100)
    eps, delta = ledger.advanced(1e-6)
    expected = math.sqrt(2 * 100 * math.log(1e6)) * 0.01 + 100 * 0.01 * math.expm1(0.01)
    assert eps == pytest.approx(expected) and delta == pytest.approx(1e-6)
    assert ledger.total(1e-6)["composition"] == "advanced"  # 0.535 < 1.0
    assert ledger.total(1e-6)["epsilon"] == pytest.approx(expected)
    few = Accountant([PrivacyEvent("m", 0.1)] * 10)  # advanced gives 1.67 > 1.0
    total = few.total(1e-6)
    assert total["composition"] == "basic" and total["epsilon"] == pytest.approx(1.0)
    assert total["delta"] == 0.0


def test_relations_are_never_mixed():
    ledger = Accountant([PrivacyEvent("m", 0.1, neighbouring=ADD_REMOVE)])
    with pytest.raises(ValueError, match="neighbouring"):
        ledger.spend(PrivacyEvent("m", 0.1, neighbouring=SUBSTITUTE))


def test_invalid_events_rejected():
    with pytest.raises(ValueError):
        PrivacyEvent("m", -1.0)
    with pytest.raises(ValueError):
        PrivacyEvent("m", 1.0, delta=1.5)


def test_split_budget_sums_exactly():
    parts = split_budget(1.0, {"a": 1, "b": 1, "c": 2})
    assert parts == {"a": 0.25, "b": 0.25, "c": 0.5}


def test_zcdp_conversion_reference_and_bounds():
    from dpsynth_core.privacy.zcdp import zcdp_budget, zcdp_to_epsilon

    # OpenDP 0.16's conversion (Canonne, Kamath and Steinke 2020): rho = 0.005, delta = 1e-10
    assert zcdp_to_epsilon(0.005, 1e-10) == pytest.approx(0.60354, abs=1e-4)
    for rho in (0.001, 0.05, 1.0):  # never worse than the classic rho + 2 sqrt(rho ln(1/delta))
        assert zcdp_to_epsilon(rho, 1e-9) <= rho + 2 * math.sqrt(rho * math.log(1e9))
    assert zcdp_to_epsilon(0.01, 0.0) == math.inf and zcdp_to_epsilon(0.0, 1e-9) == 0.0
    rho = zcdp_budget(1.0, 1e-10)
    assert zcdp_to_epsilon(rho, 1e-10) <= 1.0 < zcdp_to_epsilon(rho * 1.001, 1e-10)


@pytest.mark.parametrize("delta", [1e-12, 1e-6, 0.3])
@pytest.mark.parametrize("epsilon", [0.01, 0.5, 1.0, 3.0, 50.0])
def test_the_zcdp_budget_is_the_largest_rho_within_epsilon_found_in_few_conversions(epsilon, delta):
    from dpsynth_core.privacy import zcdp

    zcdp.zcdp_to_epsilon.cache_clear()
    rho = zcdp.zcdp_budget.__wrapped__(epsilon, delta)
    conversions = zcdp.zcdp_to_epsilon.cache_info().misses
    # at most epsilon, and a billionth more rho is over it: the largest rho to the promised precision
    assert zcdp.zcdp_to_epsilon(rho, delta) <= epsilon < zcdp.zcdp_to_epsilon(rho * (1 + 1e-9), delta)
    assert conversions <= 20  # halving the bracket to a billionth took 37 to 40


def test_ledger_with_zcdp_events_composes_in_rho():
    from dpsynth_core.privacy.zcdp import zcdp_to_epsilon

    ledger = Accountant([PrivacyEvent("count", 0.1), PrivacyEvent.zcdp("gauss", 0.02, "m")], delta=1e-9)
    total = ledger.total(1e-6)
    assert total["composition"] == "zCDP" and total["rho"] == pytest.approx(0.1**2 / 2 + 0.02)
    assert total["epsilon"] == pytest.approx(zcdp_to_epsilon(0.025, 1e-9)) and total["delta"] == 1e-9
    ledger.spend(PrivacyEvent("approx", 0.3, 1e-7))  # an (eps, delta) event adds on top
    assert ledger.total()["epsilon"] == pytest.approx(zcdp_to_epsilon(0.025, 1e-9) + 0.3)
    assert ledger.total()["delta"] == pytest.approx(1e-9 + 1e-7)
    with pytest.raises(ValueError):
        PrivacyEvent("m", 0.1, rho=0.2)
    assert "rho" not in PrivacyEvent("m", 0.1).as_dict()


def test_default_delta_rule():
    from dpsynth_core.privacy.accounting import default_delta

    assert default_delta(32_985, 1e-6) == 1e-10  # 1 / 32,985^2 = 9.2e-10
    assert default_delta(20, 1e-6) == 1e-6  # capped
    assert default_delta(1_000, 1.0) == pytest.approx(1e-6)


def test_running_totals_are_the_sums_of_every_event():
    """rho() and basic() keep exact running sums (a wide release asks after each of a thousand events): the
    same numbers, bit for bit, as math.fsum over every event's cost, whatever their magnitudes."""
    rng = np.random.default_rng(38)
    accountant = Accountant()
    for i in range(400):
        scale = 10.0 ** rng.integers(-12, 3)
        if i % 3:
            accountant.spend(PrivacyEvent.zcdp("discrete Gaussian histogram", float(rng.random() * scale)))
        else:
            accountant.spend(PrivacyEvent("CatHist", float(rng.random() * scale)))
        events = accountant.events
        assert accountant.rho() == math.fsum(e.rho_cost for e in events if e.rho_cost is not None)
        assert accountant.basic()[0] == math.fsum(e.epsilon for e in events)


def test_runs_of_equal_events_are_added_at_once_to_the_same_sums_and_listed_once():
    """A run of equal events (bayesnet's 206,403 entropies on 641 columns) is added as one term per power of two in
    its length: rho(), basic() and the advanced total are those of every event added one by one, bit for bit; the
    card and the ledger list the run once, with its repeats, and give back the same events."""
    rng = np.random.default_rng(40)
    for _ in range(60):
        runs = []
        for _ in range(int(rng.integers(1, 8))):
            scale, count = 10.0 ** rng.integers(-9, 2), int(rng.choice([1, 2, 3, 1000, 4097]))
            event = (
                PrivacyEvent.zcdp("discrete Gaussian", float(rng.random() * scale))
                if rng.random() < 0.5
                else PrivacyEvent("Laplace", float(rng.random() * scale), label=str(rng.integers(2)))
            )
            runs.append((event, count))
        events = [e for event, count in runs for e in [event] * count]
        one_by_one, at_once = Accountant(), Accountant(events)
        for event in events:
            one_by_one.spend(event)
        times = Accountant()
        for event, count in runs:
            times.spend(event, count)
        for ledger in (at_once, times):
            assert ledger.events == one_by_one.events
            assert ledger.rho() == one_by_one.rho() == math.fsum(e.rho_cost for e in events if e.rho_cost is not None)
            assert ledger.basic() == one_by_one.basic() and ledger.basic()[0] == math.fsum(e.epsilon for e in events)
            assert ledger.total(1e-6) == one_by_one.total(1e-6)
        listed = grouped_events(events)
        assert len(listed) <= len(runs) and sum(entry.get("repeats", 1) for entry in listed) == len(events)
        assert expanded_events(listed) == tuple(events)
    assert "repeats" not in grouped_events([PrivacyEvent("a", 1.0), PrivacyEvent("a", 1.0, label="b")])[0]
    with pytest.raises(ValueError, match="whole number of times"):
        Accountant().spend(PrivacyEvent("a", 1.0), -1)


def _composed(fixed, counts, epsilons, slack, stretch=1.0) -> float:
    """The Accountant's total of events of ``fixed`` epsilons and ``counts`` events of each of ``epsilons`` (each
    times ``stretch``)."""
    events = [PrivacyEvent("fixed", e) for e in fixed]
    events += [PrivacyEvent("m", e * stretch) for count, e in zip(counts, epsilons) for _ in range(count)]
    return Accountant(events).total(slack)["epsilon"]


def test_fitted_scales_fill_the_budget_as_the_ledger_composes_them():
    """fit_to_budget's bisection sums the epsilons as the ledger does: over 200 settings, the ledger of the fitted
    events, built and composed by the Accountant, stays within the total, and with each epsilon 2^-40 larger would
    not (the scale is the largest that fits)."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        total = float(rng.choice([0.05, 0.3, 1.0, 3.0, 20.0, 60.0]))
        fixed = tuple(rng.uniform(0, total / 20, size=rng.integers(0, 4)).tolist())
        groups = [(int(rng.integers(1, 300)), float(rng.uniform(0.001, 1))) for _ in range(rng.integers(1, 4))]
        slack = float(rng.choice([1e-9, 1e-6, 0.01]))
        fitted = fit_to_budget(total, fixed, groups, slack)
        counts = [count for count, _ in groups]
        assert _composed(fixed, counts, fitted, slack) <= total < _composed(fixed, counts, fitted, slack, 1 + 2**-40)
    with pytest.raises(ValueError, match="delta_slack"):
        fit_to_budget(1.0, (), [(3, 1.0)], 0.0)


def test_repeated_sums_are_fsum_of_every_repeat():
    """A group of equal epsilons is summed as one term (fit_to_budget's bisection, 205,761 events for 641 columns, 80
    times): the sums are math.fsum's of the whole list, bit for bit, and so is advanced composition's epsilon, over
    300 random ledgers with values repeated and mixed in size, of few distinct values (summed as fractions) or many
    (summed by fsum); every tenth is also recorded event by event in an Accountant (7 us an event), whose advanced
    composition groups its events itself."""
    rng = np.random.default_rng(11)
    for trial in range(300):
        values = rng.uniform(0, float(rng.choice([1e-6, 0.1, 3.0, 40.0])), size=int(rng.choice([5, 30, 200])))
        counts = rng.integers(0, 500 if len(values) <= 30 else 20, size=len(values))  # at most 15,000 events
        repeated = [float(v) for v, c in zip(values, counts) for _ in range(c)]
        counted = list(zip(values.tolist(), counts.tolist()))
        assert _repeated_sum(counted) == math.fsum(repeated)
        slack = float(rng.choice([1e-9, 0.01]))
        squares, drift = math.fsum(e**2 for e in repeated), math.fsum(e * math.expm1(e) for e in repeated)
        expected = math.sqrt(2 * math.log(1 / slack) * squares) + drift
        assert _advanced_epsilon(counted, slack) == expected
        if repeated and trial % 10 == 0:
            assert Accountant([PrivacyEvent("m", e) for e in repeated]).advanced(slack)[0] == expected
    assert _repeated_sum([(math.inf, 2), (1.0, 3)]) == math.inf
    assert _repeated_sum([]) == 0.0
