"""Noise sources: the law of discrete Laplace, integer outputs, secure vs seeded."""

import math

import numpy as np
import pytest
from scipy import stats

from dpsynth_core.noise import (NoiseSource, discrete_laplace_pmf, discrete_laplace_survival,
                                make_noise_source)


@pytest.mark.parametrize("secure", [False, True])
def test_discrete_laplace_law(secure):
    source = make_noise_source(None if secure else 7)
    draws = source.discrete_laplace(40_000 if secure else 200_000, 2.0)
    assert draws.dtype == np.int64
    eps = 0.5
    values = np.arange(-6, 7)
    observed = np.array([(draws == v).sum() for v in values] + [(np.abs(draws) > 6).sum()])
    probs = np.array([discrete_laplace_pmf(int(v), eps) for v in values])
    probs = np.append(probs, 1 - probs.sum())
    assert stats.chisquare(observed, probs * len(draws)).pvalue > 1e-3


def test_survival_and_pmf_agree():
    eps = 0.8
    for m in range(-5, 6):
        tail = sum(discrete_laplace_pmf(v, eps) for v in range(m, 200))
        assert discrete_laplace_survival(m, eps) == pytest.approx(tail, rel=1e-9)


def test_seeded_runs_repeat_and_secure_runs_differ():
    a = make_noise_source(11).discrete_laplace(50, 1.0)
    b = make_noise_source(11).discrete_laplace(50, 1.0)
    assert np.array_equal(a, b)
    c = make_noise_source(None).discrete_laplace(50, 1.0)
    d = make_noise_source(None).discrete_laplace(50, 1.0)
    assert not np.array_equal(c, d)


def test_source_describes_itself_without_seed():
    assert "OpenDP" in make_noise_source(None).describe()
    text = make_noise_source(123456).describe()
    assert "123456" not in text and "not for real releases" in text


def test_log_records_every_draw():
    source = make_noise_source(1)
    source.discrete_laplace(3, 2.0, label="x")
    source.discrete_laplace(5, 4.0, label="y")
    assert source.log == [("x", 2.0, 3), ("y", 4.0, 5)]


def test_binomial_huge_trials_and_uniform_indices_beyond_int64():
    source = make_noise_source(2)
    n = 10**30
    p = -math.expm1(math.log(0.5) / n)
    draws = [source.binomial(n, p) for _ in range(4000)]
    assert np.mean(draws) == pytest.approx(math.log(2), abs=0.05)
    idx = source.uniform_indices(n, 2000)
    assert all(0 <= i < n for i in idx)
    assert max(idx) > n // 2 > min(idx)  # spans the range


def test_rejects_bad_random_state():
    with pytest.raises(TypeError):
        make_noise_source("seed")
    assert isinstance(make_noise_source(np.random.default_rng(1)), NoiseSource)
