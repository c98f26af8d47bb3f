"""The accountant: immutable events, basic and advanced composition, no mixed relations."""

import dataclasses
import math

import pytest

from dpsynth_core.accounting import ADD_REMOVE, SUBSTITUTE, Accountant, PrivacyEvent, split_budget


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
