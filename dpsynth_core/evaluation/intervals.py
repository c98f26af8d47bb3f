"""The report's intervals from the known noise laws alone, and the noise of its value-level statistics.

Every interval holds with probability at least :data:`CONFIDENCE`: each noise it depends on stays
within a margin that it exceeds with a stated probability, and those probabilities add up (union
bound) to at most ``1 - CONFIDENCE``. Used by :mod:`.report`; the statistics are
:func:`.values.report_statistics`.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy.histogram import nonnegative_projection
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
    if a == 0.0:  # so little noise (epsilon in the thousands) that P(|Z| >= 1) is below any float
        return 0
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


def contained(value, low, high) -> tuple:
    """``(value, low, high)`` with each interval widened just enough to hold its figure.

    Used after a figure was post-processed (:func:`capped_shares`, :func:`isotonic`): an interval only
    gets wider, so wherever it held the exact value it still does and its coverage is unchanged."""
    return value, np.minimum(low, value), np.maximum(high, value)


def capped_shares(shares) -> np.ndarray:
    """Shares of disjoint cells made possible together: each at least 0 and their sum at most 1.

    The closest such shares (least squares, along the last axis): the shares clipped at 0 when those add up
    to at most 1, else their projection onto the simplex (the same amount taken off each, none below 0).
    Post-processing of noisy figures, so free; see :func:`contained` for the intervals."""
    shares = np.asarray(shares, dtype=float)
    clipped = np.maximum(shares, 0.0)
    over = clipped.sum(axis=-1) > 1.0
    if not over.any():
        return clipped
    return np.where(over[..., None], nonnegative_projection(clipped, 1.0), clipped)


def isotonic(values) -> np.ndarray:
    """The closest non-decreasing sequence (least squares) along the last axis, for short sequences.

    ``out[j] = max over i <= j of min over k >= j of mean(values[i..k])``: the pool-adjacent-violators
    fit written out (its cost grows as the cube of the length; a report has at most three quartiles).
    Each result is a mean of the values, so it lies between their least and greatest (kept so against
    rounding: values in [0, 1] stay in [0, 1])."""
    values = np.asarray(values, dtype=float)
    length = values.shape[-1]
    sums = np.concatenate([np.zeros((*values.shape[:-1], 1)), np.cumsum(values, axis=-1)], axis=-1)
    out = np.empty_like(values)
    for j in range(length):
        out[..., j] = np.max(
            [
                np.min([(sums[..., k + 1] - sums[..., i]) / (k - i + 1) for k in range(j, length)], axis=0)
                for i in range(j + 1)
            ],
            axis=0,
        )
    return np.clip(out, values.min(axis=-1, keepdims=True), values.max(axis=-1, keepdims=True))


def value_noise(found: dict, *, scale: float, rows, rows_margin: int, noise, runs: int, name: str, family: int = 1):
    """The noisy value-level statistics of one numeric or date column, ``runs`` times, with intervals:
    ``(gap, shares, mean, quartiles, clamped, claims)``, each ``(value, low, high)`` but ``claims``.

    * ``gap`` and ``shares``: over the noisy row count (:func:`ratio_interval`, each margin at
      ``(1 - CONFIDENCE) / 2``; ``scale``: each statistic's noise scale for sensitivity 1 (rows per person
      included);
    * ``quartiles``: the share of the real values at or below each public synthetic quartile, from a
      discrete Laplace histogram of the real values in the cells those points cut (sensitivity 1); the
      numerator sums ``j + 1`` cells and the denominator (the values present) all ``c`` cells, each cell's
      noise within its margin at ``(1 - CONFIDENCE) / (2 c)``, so all hold together at ``CONFIDENCE / 2``
      or better and the interval at ``CONFIDENCE``;
    * ``clamped``: the share of the values present that lie outside the declared range (the public rule
      counts them at its ends), from two more cells of the same histogram (below, above), the numerator's
      two cells and the denominator's ``c`` within the same margins; None for a report made before;
    * ``mean``: the clipped sum of ``value - low end`` with Laplace noise (sensitivity: the declared width
      times that of a count) over the same noisy number of values present, its margin at
      ``(1 - CONFIDENCE) / 2``; the mean's ``(value, low, high)`` are back on the column's scale;
    * ``claims``: ``(gap, shares, mean)`` again, from the same noise, with every margin at
      ``(1 - CONFIDENCE) / (2 family)``: the wider intervals the report's statements of change are checked
      against. ``family`` is the number of figures statements are drawn from, over all columns; by the union
      bound all ``family`` such intervals hold together with probability at least ``CONFIDENCE`` (Bonferroni).

    The figures are then made consistent, which is post-processing of the noisy statistics (free): the exact
    values' shares (of disjoint values) are each at least 0 and add up to at most 1 (:func:`capped_shares`),
    and the shares at or below the quartiles never go down (:func:`isotonic`: the noisy cells can be below
    0, so their running sums could), nor fall below the exact values' shares at or below the same point
    (a share of the values present is at least their share of all rows; raising a non-decreasing sequence to
    another keeps it non-decreasing, and the exact values' shares add up to at most 1). Every interval is
    then widened just enough to hold its figure (:func:`contained`): it only gets wider, so each coverage
    above is unchanged.
    """
    gap = real_laplace(noise, np.full(runs, found["gap"]), scale, label=f"report: value gap of {name}")
    counts = np.asarray(found["counts"], dtype=np.int64)
    drawn = noise.discrete_laplace(runs * counts.size, scale, label=f"report: exact values of {name}")
    noisy_counts = counts + drawn.reshape(runs, counts.size)
    inside = np.asarray(found["quartile_counts"], dtype=np.int64)
    clamped = found.get("clamped_counts")  # None in reports made before the clamped values were counted
    cells = inside if clamped is None else np.concatenate([inside, np.asarray(clamped, dtype=np.int64)])
    drawn = noise.discrete_laplace(runs * cells.size, scale, label=f"report: values around the quartiles of {name}")
    every = cells + drawn.reshape(runs, cells.size)
    noisy, extra = every[:, : inside.size].copy(), cells.size - inside.size  # the clamped cells, into their place
    for j, at in enumerate(found.get("clamped_cells", ()) if extra else ()):
        noisy[:, at] += every[:, inside.size + j]
    present, steps = every.sum(axis=1), np.arange(1, inside.size) + extra
    width = float(found["width"])
    sum_scale = scale * max(width, 1e-9)  # one record moves the clipped sum by at most the width
    total = real_laplace(noise, np.full(runs, float(found["sum"])), sum_scale, label=f"report: sum of {name}")
    low_end = float(found["low_end"])

    def intervals(level: float, rows_margin: int) -> tuple:
        cell_margin = discrete_laplace_margin(scale, level / cells.size)
        value, low, high = ratio_interval(
            total, present, laplace_margin(sum_scale, level), cells.size * cell_margin, top=width
        )
        shares, shares_low, shares_high = ratio_interval(
            noisy_counts, rows[:, None], discrete_laplace_margin(scale, level), rows_margin
        )
        below, below_low, below_high = ratio_interval(
            np.cumsum(noisy, axis=1)[:, :-1], present[:, None], steps * cell_margin, cells.size * cell_margin
        )
        shares = capped_shares(shares)
        below = isotonic(below)
        out_of_range = None
        if extra:
            outside = every[:, inside.size :].sum(axis=1)
            out_of_range = contained(*ratio_interval(outside, present, extra * cell_margin, cells.size * cell_margin))
        if found.get("values_below") is not None and below.shape[1]:  # at least the exact values at or below
            held = np.asarray(found["values_below"], dtype=float).reshape(below.shape[1], -1)
            below = np.maximum(below, np.minimum(shares @ held.T, 1.0))  # (at most 1 but for rounding)
        return (
            ratio_interval(gap, rows, laplace_margin(scale, level), rows_margin),
            contained(shares, shares_low, shares_high),
            (low_end + value, low_end + low, low_end + high),
            contained(below, below_low, below_high),
            out_of_range,
        )

    claim_level = (1 - CONFIDENCE) / (2 * max(family, 1))
    claims = intervals(claim_level, discrete_laplace_margin(scale, claim_level))[:3]
    return (*intervals((1 - CONFIDENCE) / 2, rows_margin), claims)
