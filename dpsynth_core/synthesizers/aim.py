"""AIM's building blocks (McKenna et al., VLDB 2022): measure a marginal with noise, score the
candidate marginals, choose one privately. Used by :mod:`.marginals`; no data-dependent state."""

from __future__ import annotations

import math

import numpy as np

from ..privacy.histogram import noisy_histogram
from ..privacy.noise import discrete_laplace_std, exponential_mechanism_zcdp, report_noisy_max

#: Expected |noise| of a discrete Gaussian of scale sigma, per cell: sqrt(2 / pi) * sigma.
GAUSSIAN_MEAN_ABS = math.sqrt(2 / math.pi)


def measure(noise, counts: np.ndarray, noise_param: float, *, zcdp: bool, label: str = "") -> tuple:
    """A marginal's counts plus noise on every cell, and the noise's standard deviation.

    zCDP: discrete Gaussian of scale ``sigma = noise_param`` (``1 / (2 sigma**2)``-zCDP, L2
    sensitivity 1). Pure DP: discrete Laplace of scale ``1 / noise_param`` (``noise_param``-DP).
    """
    counts = np.asarray(counts, dtype=np.int64)
    if zcdp:
        noisy = counts + noise.discrete_gaussian(counts.size, noise_param, label=label).reshape(counts.shape)
        return noisy, noise_param
    return noisy_histogram(counts, epsilon=noise_param, noise=noise, label=label), discrete_laplace_std(noise_param)


def score(candidates, truth: dict, answers: dict, weights: dict, penalty: float) -> list:
    """AIM's quality score of each candidate marginal ``r``:
    ``w_r * (|M_r(data) - M_r(model)|_1 - penalty * cells_r)``; adding or removing a record moves
    it by at most ``w_r`` (the L1 term by 1, the rest is public)."""
    return [weights[c] * (float(np.abs(truth[c] - answers[c]).sum()) - penalty * truth[c].size) for c in candidates]


def choose(noise, scores, budget: float, sensitivity: float, *, zcdp: bool) -> int:
    """The exponential mechanism on the scores: ``budget`` is rho (zCDP, ``eps = sqrt(8 rho)``) or epsilon."""
    if zcdp:
        return exponential_mechanism_zcdp(noise, scores, budget, sensitivity)
    return report_noisy_max(noise, scores, budget, sensitivity)
