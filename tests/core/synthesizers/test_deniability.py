"""Plausible deniability: exact seed counting, the privacy test, the per-record guarantee, audit."""

import math

import numpy as np
import pytest

from dpsynth_core import synthesize
from dpsynth_core.synthesizers.deniability import PlausibleDeniability, projection_keys, record_guarantee
from tests.audit import audit
from tests.core.synthesizers.methods_common import adult_small, assert_in_domain


@pytest.fixture(scope="module")
def model():
    frame, spec = adult_small(3000)
    return PlausibleDeniability(epsilon=1.0, random_state=0, k=10).fit(frame, spec)


def test_hashed_counts_equal_a_full_scan(model):
    candidates, redraw = model.candidates(300)
    counts = model.plausible_seeds(candidates, redraw)
    for i in range(300):
        keep = ~redraw[i]
        scan = int((model.seeds_[:, keep] == candidates[i, keep]).all(axis=1).sum())
        assert counts[i] == scan
    assert (counts >= 1).all()  # the seed itself is always a plausible seed


def test_every_plausible_seed_has_the_seeds_probability(model):
    # P(y | d) = prod over redrawn a of P(y_a | parents of a in y) whenever d agrees with y on kept columns.
    candidates, redraw = model.candidates(50)
    order = model.order_
    for i in range(5):
        y = {n: candidates[i:i + 1, j] for j, n in enumerate(order)}
        prob = np.prod([model.conditional_probability(n, y)[0] for j, n in enumerate(order) if redraw[i, j]])
        assert 0 < prob <= 1


def test_projection_keys_mask_redrawn_columns():
    codes = np.array([[1, 2, 3], [1, 5, 3], [1, 2, 4]])
    keep = np.array([[True, False, True]] * 3)
    keys = projection_keys(codes, keep, np.array([6, 6, 6]))
    assert keys[0] == keys[1] != keys[2]


def test_record_guarantee_hand_computed():
    # k = 50, gamma = 2, eps0 = 1: largest t with exp(-(50 - t)) <= 1e-6 is t = 36
    eps, delta, t = record_guarantee(50, 2.0, 1.0)
    assert t == 36 and eps == pytest.approx(1 + math.log(1 + 2 / 36)) and delta == pytest.approx(math.exp(-14))


def test_deterministic_test_hand_worked(model):
    deterministic = PlausibleDeniability(epsilon=1.0, random_state=0, k=10, epsilon0=None)
    assert list(deterministic.test(np.array([9, 10, 11]))) == [False, True, True]


def test_ledger_counts_every_released_record():
    frame, spec = adult_small(3000)
    release = synthesize(frame, spec, 1.0, method="deniability", rows=1000, random_state=3, k=10)
    per_record = release.card["method_details"]["per_record_guarantee"]
    spends = {e["label"]: e for e in release.card["spends"]}
    test_spend = next(v for k, v in spends.items() if "released records" in k)
    assert test_spend["epsilon"] == pytest.approx(1000 * per_record["epsilon"])
    assert release.card["guarantee"]["epsilon"] > 1000
    assert "whole file" in release.card["method_details"]["per_record_note"]
    assert len(release.data) == 1000
    assert_in_domain(release.data, spec)
    assert 0 < release.publisher_report["columns"]["pass_rate"] < 1


def test_deterministic_test_has_no_guarantee():
    frame, spec = adult_small(2000)
    release = synthesize(frame, spec, 1.0, method="deniability", rows=200, random_state=4, k=10, epsilon0=None)
    assert release.card["guarantee"]["epsilon"] is None


# --- audit of the randomised test's release probability; the deterministic test is caught ---

K, EPS0 = 5, 0.5


def _released(count, seed, deterministic=False):
    model = PlausibleDeniability(epsilon=1.0, random_state=seed, k=K, epsilon0=None if deterministic else EPS0)
    from dpsynth_core.noise import make_noise_source
    model.noise_ = make_noise_source(seed)
    return bool(model.test(np.array([count]))[0])


_EVENTS = {"released": lambda passed: passed, "withheld": lambda passed: not passed}


def test_audit_randomised_test_passes():
    # D has 4 plausible seeds for the candidate, D' one more (an added record): ratio <= e^eps0
    result = audit(_released, 4, 5, _EVENTS, trials=6000, seed=1)
    assert not result.violates(EPS0), result


def test_audit_catches_the_deterministic_test():
    result = audit(lambda c, s: _released(c, s, True), 4, 5, _EVENTS, trials=500, seed=2)
    assert result.violates(EPS0) and result.epsilon_lower_bound > 3, result
