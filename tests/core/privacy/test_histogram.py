"""The public-bin histogram: every cell noised, integers, and its privacy audit."""

import numpy as np
import pytest

from dpsynth_core.privacy.histogram import noisy_count, noisy_histogram, nonnegative_projection, to_probabilities
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


def test_nonnegative_projection_keeps_each_rows_total_with_one_shift():
    # [5, -1, 2], total 6: shift 0.5 -> [4.5, 0, 1.5] (by hand); a row with total <= 0 -> zeros
    out = nonnegative_projection([[5, -1, 2], [-3, 1, 1]])
    np.testing.assert_allclose(out, [[4.5, 0.0, 1.5], [0.0, 0.0, 0.0]])
    rng = np.random.default_rng(0)
    rows = rng.integers(-20, 40, size=(500, 7)).astype(float)
    out = nonnegative_projection(rows)
    positive = rows.sum(axis=1) > 0
    assert (out >= 0).all()
    np.testing.assert_allclose(out[positive].sum(axis=1), rows[positive].sum(axis=1))
    # the closest such counts (least squares): one shift t >= 0 for the cells kept, and every cell set
    # to zero holds at most t
    for row, got in zip(rows[positive], out[positive], strict=True):
        kept = got > 0
        shift = (row - got)[kept]
        np.testing.assert_allclose(shift, shift[0])
        assert shift[0] >= -1e-9 and (row[~kept] <= shift[0] + 1e-9).all()
