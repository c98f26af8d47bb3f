"""AIM's selection: the score and the private choice, audited."""

import math

import numpy as np

from dpsynth_core.data.counting import CodedTable
from dpsynth_core.privacy.noise import make_noise_source
from dpsynth_core.synthesizers.marginals.selection import choose, score
from tests.audit import audit

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
