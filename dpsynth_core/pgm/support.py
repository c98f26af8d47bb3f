"""The cells a model may use: those the noisy measurements can tell from empty (post-processing only)."""

from __future__ import annotations

import math

import numpy as np


def support_from(cells: dict, measurements: list, z: float, *, ordered: dict | None = None,
                 limit: float = 0.0) -> dict:
    """Each column's cells that the measurements can tell from empty: column -> boolean array.

    Every measurement holding the column gives an unbiased estimate of the column's counts (its
    noisy counts summed over the other columns: standard deviation ``sigma * sqrt(k)`` per cell,
    ``k`` the cells summed); the estimates are pooled by precision, with standard deviation ``s``
    per cell. Then:

    * a column of ``ordered`` (column -> how many leading cells follow an order, such as the bins
      of a numeric range; the rest, such as "missing", is always kept) loses only its tails: from
      each end, the longest run of ``j`` cells whose pooled counts, plus ``z * s * sqrt(j)``, stay
      at most ``limit`` records. So a tail is cut only when, at ``z`` standard deviations, it holds
      fewer than ``limit`` records: at most about ``limit`` real records are lost per tail, and
      an empty tail of ``j`` cells is cut whenever its noise stays below
      ``limit - z * s * sqrt(j)`` (probability ``Phi(limit / (s sqrt(j)) - z)``);
    * any other column keeps each cell whose pooled estimate reaches ``z * s``: a cell holding
      no record is kept with probability ``Phi(-z)`` (about 2.3% for ``z = 2``).

    The column's largest cell is always kept. Post-processing of noisy measurements only.
    """
    ordered = ordered or {}
    weighted = {a: np.zeros(n) for a, n in cells.items()}
    precision = dict.fromkeys(cells, 0.0)
    for m in measurements:
        for i, a in enumerate(m.group):
            others = tuple(j for j in range(len(m.group)) if j != i)
            summed = m.noisy.sum(axis=others) if others else m.noisy
            variance = m.sigma**2 * (m.noisy.size // cells[a])
            weighted[a] += summed / variance
            precision[a] += 1 / variance
    support = {}
    for a, p in precision.items():
        if p == 0:
            continue
        pooled, s = weighted[a] / p, 1 / math.sqrt(p)
        if a in ordered:
            k = ordered[a]
            keep = np.ones(cells[a], dtype=bool)
            if k:
                margin = z * s * np.sqrt(np.arange(1, k + 1))
                left = np.flatnonzero(np.cumsum(pooled[:k]) + margin <= limit)
                right = np.flatnonzero(np.cumsum(pooled[:k][::-1]) + margin <= limit)
                low = left[-1] + 1 if left.size else 0  # the first cell kept
                high = k - 2 - right[-1] if right.size else k - 1  # the last cell kept
                if low <= high:
                    keep[:low] = False
                    keep[high + 1:k] = False
        else:
            keep = pooled >= z * s
        keep[int(np.argmax(pooled))] = True
        support[a] = keep
    return support
