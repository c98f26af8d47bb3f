"""The public-bin histogram: every cell noised, integers, and its privacy audit."""

import numpy as np
import pytest

from dpsynth_core.privacy.histogram import noisy_count, noisy_histogram, to_probabilities
from dpsynth_core.privacy.noise import make_noise_source
from tests.audit import audit

EPS = 0.5


def _mechanism(counts, seed, broken=None):
    noise = make_noise_source(seed)
    counts = np.asarray(counts)
    if broken == "active only":
        out = counts.copy()
        present = counts > 0
        out[present] = noisy_histogram(counts[present], epsilon=EPS, noise=noise)
        return out
    if broken == "half noise":
        return noisy_histogram(counts, epsilon=2 * EPS, noise=noise)
    return noisy_histogram(counts, epsilon=EPS, noise=noise)


# D' adds one record at an extreme value (the last, empty bin).
D = [40, 12, 3, 0, 0]
D_EXTREME = [40, 12, 3, 0, 1]
EVENTS = {
    f"last bin {op} {t}": (lambda t, op: (lambda out: out[-1] >= t) if op == ">=" else (lambda out: out[-1] != t))(
        t, op
    )
    for t in (1, 2, 3)
    for op in (">=",)
} | {"last bin != 0": lambda out: out[-1] != 0}


def test_every_cell_is_noised_and_integer():
    out = noisy_histogram(np.zeros(1000, dtype=int), epsilon=1.0, noise=make_noise_source(0))
    assert out.dtype == np.int64 and (out != 0).mean() > 0.4


def test_audit_passes():
    result = audit(_mechanism, D, D_EXTREME, EVENTS, trials=20_000, seed=1)
    assert not result.violates(EPS), result


def test_audit_catches_active_only_variant():
    result = audit(lambda c, s: _mechanism(c, s, "active only"), D, D_EXTREME, EVENTS, trials=4000, seed=2)
    assert result.violates(EPS), result


def test_audit_catches_half_noise_variant():
    result = audit(lambda c, s: _mechanism(c, s, "half noise"), D, D_EXTREME, EVENTS, trials=20_000, seed=3)
    assert result.violates(EPS), result


def test_probabilities_clip_and_fall_back_to_uniform():
    assert to_probabilities(np.array([3, -2, 1])) == pytest.approx([0.75, 0, 0.25])
    assert to_probabilities(np.array([-1, -5])) == pytest.approx([0.5, 0.5])


def test_noisy_count_is_at_least_one():
    assert all(noisy_count(0, epsilon=0.1, noise=make_noise_source(s)) >= 1 for s in range(50))
