"""DP histograms over a small declared set of cells (public numeric bins, or a product domain).

Guarantee: epsilon-DP under adding or removing one record. Adding or removing a record
changes one cell by one, so the L1 sensitivity is 1 and every cell, empty or not, gets
discrete Laplace noise of scale ``1/epsilon`` (book chapter 6, section 6.3, with the
whole declared domain noised rather than only the cells that occur). Must be declared in
advance: the cells (the bins), never read off the data.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_epsilon
from .noise import NoiseSource


def noisy_histogram(counts: np.ndarray, *, epsilon: float, noise: NoiseSource, label: str = "") -> np.ndarray:
    """True cell counts plus discrete Laplace noise of scale ``1/epsilon`` (int64, may be negative)."""
    epsilon = check_epsilon(epsilon)
    counts = np.asarray(counts, dtype=np.int64)
    return counts + noise.discrete_laplace(counts.size, 1.0 / epsilon, label=label).reshape(counts.shape)


def to_probabilities(noisy_counts: np.ndarray) -> np.ndarray:
    """Clip negative counts to zero and normalise; uniform if nothing is left (post-processing)."""
    clipped = np.clip(np.asarray(noisy_counts, dtype=float), 0, None)
    total = clipped.sum()
    if total <= 0:
        return np.full(clipped.shape, 1.0 / clipped.size)
    return clipped / total


def nonnegative_projection(noisy_counts, total=None) -> np.ndarray:
    """The closest non-negative counts with the same total (least squares), along the last axis.

    ``max(count - t, 0)`` with one shift ``t`` per row, so the row keeps its noisy total (or ``total``,
    when given); a row whose total is not positive becomes zeros. Unlike clipping at zero, an empty cell
    does not keep its positive noise (about half a noise level of made-up mass per cell). Post-processing.
    """
    counts = np.asarray(noisy_counts, dtype=float)
    total = counts.sum(axis=-1, keepdims=True) if total is None else np.asarray(total, dtype=float)
    ordered = -np.sort(-counts, axis=-1)
    shifts = (np.cumsum(ordered, axis=-1) - total) / np.arange(1, counts.shape[-1] + 1)
    kept = np.sum(ordered - shifts > 0, axis=-1, keepdims=True)  # the cells left positive: a prefix of ``ordered``
    shift = np.take_along_axis(shifts, np.maximum(kept - 1, 0), axis=-1)
    return np.where(total > 0, np.clip(counts - shift, 0, None), 0.0)


def noisy_count(true_count: int, *, epsilon: float, noise: NoiseSource, label: str = "row count") -> int:
    """A count of L1 sensitivity 1 with discrete Laplace noise, floored at 1 (post-processing)."""
    value = int(true_count) + int(noise.discrete_laplace(1, 1.0 / check_epsilon(epsilon), label=label)[0])
    return max(1, value)
