"""The network's structure from noisy entropies: the entropy bound, the count's lower bound, SU and CFS merit, audits."""

import math

import numpy as np
import pytest

from dpsynth_core.privacy.noise import make_noise_source
from dpsynth_core.synthesizers.network.structure import (
    cfs_merit,
    count_lower_bound,
    entropy,
    entropy_sensitivity,
    symmetrical_uncertainty,
)
from tests.audit import audit


def test_entropy_sensitivity_bounds_every_added_record():
    # Worst case over small tables: adding one record to any cell of any histogram of n records.
    rng = np.random.default_rng(0)
    for n in (1, 2, 5, 20, 100):
        bound = entropy_sensitivity(n)
        for _ in range(200):
            counts = np.bincount(rng.integers(0, rng.integers(1, 6), size=n), minlength=6)
            base = entropy(counts)
            for cell in range(6):
                added = counts.copy()
                added[cell] += 1
                assert abs(entropy(added) - base) <= bound + 1e-12


def test_count_lower_bound_fails_rarely():
    eps = 0.05
    low = [count_lower_bound(1000 + int(z), eps) for z in make_noise_source(1).discrete_laplace(20_000, 1 / eps)]
    assert max(low) <= 1000  # failure probability 1e-9 per draw


def test_symmetrical_uncertainty_and_merit_hand_computed():
    # H(X) = H(Y) = ln 2, independent: H(X, Y) = 2 ln 2 -> SU 0; identical: H(X, Y) = ln 2 -> SU 1
    assert symmetrical_uncertainty(math.log(2), math.log(2), 2 * math.log(2)) == pytest.approx(0)
    assert symmetrical_uncertainty(math.log(2), math.log(2), math.log(2)) == pytest.approx(1)
    su = {frozenset(("t", "a")): 0.6, frozenset(("t", "b")): 0.4, frozenset(("a", "b")): 0.5}
    # k = 2: 2 * 0.5 / sqrt(2 + 2 * 0.5) = 1 / sqrt(3)
    assert cfs_merit("t", ["a", "b"], su) == pytest.approx(1 / math.sqrt(3))
    assert cfs_merit("t", ["a"], su) == pytest.approx(0.6)


def _entropy(codes, seed, sensitivity_factor=1.0):
    from dpsynth_core.data.counting import CodedTable
    from dpsynth_core.privacy.histogram import noisy_count
    from dpsynth_core.synthesizers.network import structure

    noise = make_noise_source(seed)
    n_low = structure.count_lower_bound(noisy_count(len(codes), epsilon=1.0, noise=noise), 1.0)
    n_low = int(n_low / sensitivity_factor) if sensitivity_factor != 1.0 else n_low
    table = CodedTable({"c": codes}, {"c": 2}, len(codes))
    return structure.noisy_entropies(table, [("c",)], buckets={}, n_low=n_low, epsilon=1.0, noise=noise)[0]


# One record of a second value joins 20,000 identical ones: the entropy moves by
# (ln(n + 1) + 1) / n to first order, the bound the noise is scaled to (epsilon 1 here).
_SAME = np.zeros(20_000, dtype=np.int64)


_ONE_MORE = np.append(_SAME, 1)


_SENS = entropy_sensitivity(20_000)


_H_EVENTS = {f"H >= {k} x sensitivity": (lambda t: lambda h: h >= t)(k * _SENS) for k in (0.5, 1, 2, 3)}


def test_audit_entropies_pass_at_their_epsilon():
    result = audit(_entropy, _SAME, _ONE_MORE, _H_EVENTS, trials=5000, seed=3)
    assert not result.violates(1.0), result


def test_audit_entropies_catch_a_sensitivity_too_small():
    # Broken: the bound computed for a table 4 times larger than the noisy count allows.
    result = audit(
        lambda c, s: _entropy(c, s, sensitivity_factor=0.25), _SAME, _ONE_MORE, _H_EVENTS, trials=5000, seed=4
    )
    assert result.violates(1.0), result
