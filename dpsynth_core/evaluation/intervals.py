"""The report's intervals from the known noise laws alone, and the noise of its value-level statistics.

Every interval holds with probability at least :data:`CONFIDENCE`: each noise it depends on stays
within a margin that it exceeds with a stated probability, and those probabilities add up (union
bound) to at most ``1 - CONFIDENCE``. Used by :mod:`.report`; the statistics are
:func:`.values.report_statistics`.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy.noise import real_laplace

#: Confidence of the error bars.
CONFIDENCE = 0.95


def laplace_margin(scale: float, level: float) -> float:
    """``t`` with ``P(|Z| > t) = level`` for Laplace noise of ``scale``."""
    return scale * math.log(1 / level)


def discrete_laplace_margin(scale: float, level: float) -> int:
    """Smallest whole ``k`` with ``P(|Z| >= k + 1) <= level`` for discrete Laplace of ``scale``.

    ``P(|Z| >= j) = 2 a**j / (1 + a)`` with ``a = exp(-1/scale)``.
    """
    a = math.exp(-1.0 / scale)
    j = math.ceil(math.log(level * (1 + a) / 2) / math.log(a))
    return max(0, j - 1)


def ratio_interval(numerator, denominator, numerator_margin, denominator_margin, *, top=1.0):
    """Estimate and interval of ``x / n`` from noisy ``x`` and ``n`` (arrays or numbers), clipped to ``[0, top]``.

    If ``|x_noisy - x| <= numerator_margin`` and ``|n_noisy - n| <= denominator_margin`` (with
    ``n >= 1``, ``x >= 0``), the exact ratio lies inside: the low end divides the smallest possible ``x``
    by the largest possible ``n``, the high end the largest ``x`` by the smallest ``n``. Each
    margin is exceeded with probability at most ``(1 - CONFIDENCE) / 2``, so by the union
    bound the interval holds with probability at least ``CONFIDENCE``. The high end starts from
    ``max(x_noisy, 0)``: since ``x >= 0``, that only widens the interval when ``x_noisy`` is negative,
    and a noisy value below ``-numerator_margin`` (which only a noise past its margin can give) shows
    ``[0, margin / n]`` instead of ``[0, 0]``, an interval known to be wrong.
    """
    x, n = np.asarray(numerator, dtype=float), np.asarray(denominator, dtype=float)
    value = np.clip(x / np.maximum(n, 1.0), 0.0, top)
    low = np.clip(np.maximum(x - numerator_margin, 0.0) / (n + denominator_margin), 0.0, top)
    high = np.clip((np.maximum(x, 0.0) + numerator_margin) / np.maximum(1.0, n - denominator_margin), 0.0, top)
    return value, low, high


def value_noise(found: dict, *, scale: float, rows, rows_margin: int, noise, runs: int, name: str, family: int = 1):
    """The noisy value-level statistics of one numeric or date column, ``runs`` times, with intervals:
    ``(gap, shares, mean, quartiles, claims)``, each ``(value, low, high)`` but ``claims``.

    * ``gap`` and ``shares``: over the noisy row count (:func:`ratio_interval`, each margin at
      ``(1 - CONFIDENCE) / 2``; ``scale``: each statistic's noise scale for sensitivity 1 (rows per person
      included);
    * ``quartiles``: the share of the real values at or below each public synthetic quartile, from a
      discrete Laplace histogram of the real values in the cells those points cut (sensitivity 1); the
      numerator sums ``j + 1`` cells and the denominator (the values present) all ``c`` cells, each cell's
      noise within its margin at ``(1 - CONFIDENCE) / (2 c)``, so all hold together at ``CONFIDENCE / 2``
      or better and the interval at ``CONFIDENCE``;
    * ``mean``: the clipped sum of ``value - low end`` with Laplace noise (sensitivity: the declared width
      times that of a count) over the same noisy number of values present, its margin at
      ``(1 - CONFIDENCE) / 2``; the mean's ``(value, low, high)`` are back on the column's scale;
    * ``claims``: ``(gap, shares, mean)`` again, from the same noise, with every margin at
      ``(1 - CONFIDENCE) / (2 family)``: the wider intervals the report's statements of change are checked
      against. ``family`` is the number of figures statements are drawn from, over all columns; by the union
      bound all ``family`` such intervals hold together with probability at least ``CONFIDENCE`` (Bonferroni).
    """
    gap = real_laplace(noise, np.full(runs, found["gap"]), scale, label=f"report: value gap of {name}")
    counts = np.asarray(found["counts"], dtype=np.int64)
    drawn = noise.discrete_laplace(runs * counts.size, scale, label=f"report: exact values of {name}")
    noisy_counts = counts + drawn.reshape(runs, counts.size)
    cells = np.asarray(found["quartile_counts"], dtype=np.int64)
    drawn = noise.discrete_laplace(runs * cells.size, scale, label=f"report: values around the quartiles of {name}")
    noisy = cells + drawn.reshape(runs, cells.size)
    present, steps = noisy.sum(axis=1), np.arange(1, cells.size)
    width = float(found["width"])
    sum_scale = scale * max(width, 1e-9)  # one record moves the clipped sum by at most the width
    total = real_laplace(noise, np.full(runs, float(found["sum"])), sum_scale, label=f"report: sum of {name}")
    low_end = float(found["low_end"])

    def intervals(level: float, rows_margin: int) -> tuple:
        cell_margin = discrete_laplace_margin(scale, level / cells.size)
        value, low, high = ratio_interval(
            total, present, laplace_margin(sum_scale, level), cells.size * cell_margin, top=width
        )
        return (
            ratio_interval(gap, rows, laplace_margin(scale, level), rows_margin),
            ratio_interval(noisy_counts, rows[:, None], discrete_laplace_margin(scale, level), rows_margin),
            (low_end + value, low_end + low, low_end + high),
            ratio_interval(
                np.cumsum(noisy, axis=1)[:, :-1], present[:, None], steps * cell_margin, cells.size * cell_margin
            ),
        )

    claim_level = (1 - CONFIDENCE) / (2 * max(family, 1))
    claims = intervals(claim_level, discrete_laplace_margin(scale, claim_level))[:3]
    return (*intervals((1 - CONFIDENCE) / 2, rows_margin), claims)
