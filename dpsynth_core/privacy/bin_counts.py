"""An adaptive column's bins counted a second time, for free: the sums of its leaves' noisy counts.

The leaf counts that found a column's bins (:mod:`.binning`) are one DP histogram over a partition of its range;
a bin that is a union of whole leaves has, in the sum of their noisy counts, an unbiased estimate of its count whose
noise variance is the sum of theirs. The method's own 1-way marginal counts the same bins again at its budget;
pooled by precision, the two estimates tell the bin's count with less noise than either, at no further cost
(post-processing of DP outputs). A bin that cuts a leaf (a narrow leaf cut into values, a wide one into equal bins:
:mod:`.leaf_cuts`), a special value's bin and the missing cell have no such sum: they get none.

The leaf sums of bins that the leaf counts themselves chose are not independent of that choice (a bin kept as its
own because its leaves looked heavy), a small selection effect that pooling with the method's independent count
halves; the benchmarks measure the trade (docs/benchmarks/history.md).
"""

from __future__ import annotations

import numpy as np

from ..domain import FloatDomain


def counted(leaves) -> tuple:
    """A column's leaves (:class:`.leaves.Leaves`) as :func:`bin_counts` reads them: ``(lows, noisy counts,
    variances)``, but a named point kept as a leaf for its count (:attr:`.leaves.Leaves.unclear`) has no variance
    (``inf``): its count was kept for being high, and the model's own counts keep or cut it."""
    variances = np.where(np.isin(leaves.lows, leaves.unclear), np.inf, leaves.variances)
    return leaves.lows, leaves.noisy.astype(float), variances


def bin_counts(column, counted) -> tuple[np.ndarray, np.ndarray] | None:
    """For each of ``column``'s bins (its cells in code order, the missing cell left out): the sum of the noisy
    counts of the leaves that tile it exactly, and that sum's noise variance; ``nan`` and ``inf`` for a bin no whole
    leaves tile. ``counted``: the column's leaves ``(lows, noisy counts, variances)``
    (:attr:`.binning.FittedBins.counted`); None: no leaves, no sums.

    >>> from dpsynth_core.domain import IntegerDomain
    >>> column = IntegerDomain("x", min=0, max=9, edges=(0, 4, 6))
    >>> sums, variances = bin_counts(column, (np.array([0, 2, 4, 8]), np.array([5.0, 7.0, 1.0, 2.0]), np.ones(4)))
    >>> sums.tolist(), variances.tolist()  # 0-3 is two leaves; 4-5 cuts the leaf 4-7; 6-9 starts inside it
    ([12.0, nan, nan], [2.0, inf, inf])
    """
    if counted is None:
        return None
    lows, noisy, variances = (np.asarray(a, dtype=float) for a in counted)
    starts, ends = bin_spans(column)
    if isinstance(column, FloatDomain):
        empty = ends <= starts  # a special value's bin: no leaf counts it
    else:
        special = getattr(column, "special", ())
        empty = np.isin(starts, [column.number(d) for d in special] if hasattr(column, "number") else special)
        empty &= ends == starts + 1
    bounds = np.append(lows, ends[-1])  # leaf i covers bounds[i] .. bounds[i + 1]
    first = np.minimum(np.searchsorted(bounds, starts), bounds.size - 1)
    last = np.minimum(np.searchsorted(bounds, ends), bounds.size - 1)
    usable = np.isfinite(variances)  # a leaf without a usable count (variance inf) leaves its bins without a sum
    unusable = np.concatenate([[0], np.cumsum(~usable)])
    exact = (bounds[first] == starts) & (bounds[last] == ends) & (last > first) & ~empty
    exact &= unusable[last] == unusable[first]
    cumulative = np.concatenate([[0.0], np.cumsum(noisy)])
    cumulative_variance = np.concatenate([[0.0], np.cumsum(np.where(usable, variances, 0.0))])
    sums = np.where(exact, cumulative[last] - cumulative[first], np.nan)
    return sums, np.where(exact, cumulative_variance[last] - cumulative_variance[first], np.inf)


def bin_spans(column) -> tuple[np.ndarray, np.ndarray]:
    """Each of a numeric or date column's bins as a half-open span ``[start, end)`` of its numbers (floats): whole
    numbers and days closed at both ends, ``end`` one past the last; a real range's bins between its edges (a
    special value's bin empty, ``start == end``)."""
    if isinstance(column, FloatDomain):
        edges = np.asarray(column.all_edges, dtype=float)
        return edges[:-1], edges[1:]
    return np.asarray(column.lows, dtype=float), np.asarray(column.highs, dtype=float) + 1
