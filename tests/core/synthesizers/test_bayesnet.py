"""The DP Bayesian network: entropy bound, acyclic structure within the cost limit, budget, audit."""

import math

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.synthesizers.bayesnet import BayesNet
from dpsynth_core.synthesizers.network import (cfs_merit, count_lower_bound, entropy, entropy_sensitivity,
                                               symmetrical_uncertainty)
from dpsynth_core.noise import make_noise_source
from tests.audit import HalfNoise, audit
from tests.core.synthesizers.methods_common import adult_small, assert_in_domain


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


def test_structure_is_acyclic_and_respects_cost_limit():
    frame, spec = adult_small(4000)
    model = BayesNet(epsilon=5.0, random_state=0, max_cost=300).fit(frame, spec)
    seen = set()
    for name in model.order_:
        assert set(model.parents_[name]) <= seen
        seen.add(name)
        cost = model.columns_[name].cells * int(np.prod([model.scored_cells_[p] for p in model.parents_[name]]))
        assert cost <= 300
    assert any(model.parents_.values())  # some dependency found at epsilon 5


def test_output_and_budget():
    frame, spec = adult_small(3000)
    model = BayesNet(epsilon=1.0, random_state=1).fit(frame, spec)
    out = model.sample(800)
    assert len(out) == 800
    assert_in_domain(out, spec)
    total = model.accountant_.total(1e-6)
    assert total["epsilon"] <= 1.0 + 1e-9 and total["delta"] <= 2e-6


# --- audit: the parameter tables (structure fixed: a single column has no parents) ---------

_SPEC = {"columns": {"c": {"type": "categorical", "values": ["a", "b", "rare"], "missing": False}}}
_D = pd.DataFrame({"c": ["a"] * 14 + ["b"] * 6})
_D_PRIME = pd.concat([_D, pd.DataFrame({"c": ["rare"]})], ignore_index=True)



def _rare_count(frame, seed, broken=False):
    source = make_noise_source(seed)
    if broken:
        source = HalfNoise(secure=False, rng=source.rng)
    return BayesNet(epsilon=1.0, random_state=source).fit(frame, _SPEC).noisy_counts_["c"][2]


def _table_epsilon() -> float:
    model = BayesNet(epsilon=1.0, random_state=0).fit(_D, _SPEC)
    return next(e.epsilon for e in model.accountant_.events if e.label.startswith("table c"))


_EVENTS = {f"noisy rare count >= {t}": (lambda t: lambda v: v >= t)(t) for t in (1, 2, 3)}


def test_audit_parameter_table_passes_at_its_own_epsilon():
    result = audit(_rare_count, _D, _D_PRIME, _EVENTS, trials=4000, seed=1)
    assert not result.violates(_table_epsilon()), result


def test_audit_catches_half_noise():
    result = audit(lambda f, s: _rare_count(f, s, True), _D, _D_PRIME, _EVENTS, trials=4000, seed=2)
    assert result.violates(_table_epsilon()), result
