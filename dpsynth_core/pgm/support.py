"""The cells a model may use: those the noisy measurements can tell from empty (post-processing only)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


def support_from(
    cells: dict,
    measurements: list,
    z: float,
    *,
    ordered: dict | None = None,
    limit: float = 0.0,
    protected: dict | None = None,
) -> dict:
    """Each column's cells that the measurements can tell from empty: column -> boolean array.

    Every measurement holding the column gives an unbiased estimate of the column's counts (its
    noisy counts summed over the other columns: standard deviation ``sigma * sqrt(k)`` per cell,
    ``k`` the cells summed); the estimates are pooled by precision, with standard deviation ``s``
    per cell. Then:

    * a column of ``ordered`` (column -> how many leading cells follow an order, such as the bins
      of a numeric range; the rest, such as "missing", is always kept) loses only its tails: from
      each end, the longest run of ``j`` cells whose pooled counts, plus ``z * s * sqrt(j)``, stay
      at most ``limit`` records, or whose pooled count cannot be told from empty (at most
      ``z * s * sqrt(j)``, no cell of it reaching ``z * s``) and is at most ``limit``. So at most
      about ``limit`` real records are lost per tail, and an empty tail of ``j`` cells is cut
      whenever its noise stays below ``min(z * s * sqrt(j), limit)`` (probability at least
      ``Phi(min(z, limit / (s sqrt(j))))`` less the chance that one cell's noise reaches ``z * s``).
      A cell of ``protected`` (column -> boolean per ordered cell: a declared special value such as
      99999, a spike the publisher named) is never cut for looking empty, only by the first test;
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
                named = np.asarray((protected or {}).get(a, np.zeros(k, bool)), dtype=bool)[:k]
                left = np.flatnonzero(_cuttable(pooled[:k], margin, z * s, limit, named))
                right = np.flatnonzero(_cuttable(pooled[:k][::-1], margin, z * s, limit, named[::-1]))
                low = left[-1] + 1 if left.size else 0  # the first cell kept
                high = k - 2 - right[-1] if right.size else k - 1  # the last cell kept
                if low <= high:
                    keep[:low] = False
                    keep[high + 1 : k] = False
        else:
            keep = pooled >= z * s
        keep[int(np.argmax(pooled))] = True
        support[a] = keep
    return support


def special_cells(domain, ordered: int) -> np.ndarray:
    """Which of a range column's first ``ordered`` cells hold a declared special value (public: the
    declaration's values put through the column's own encoding)."""
    from ..data.encoding import encode_column

    out = np.zeros(ordered, dtype=bool)
    special = list(getattr(domain, "special", ()) or ())
    if special:
        codes = np.asarray(encode_column(domain, pd.Series([str(v) for v in special], dtype=object), ()).codes)
        out[codes[(codes >= 0) & (codes < ordered)]] = True
    return out


def _cuttable(
    pooled: np.ndarray, margin: np.ndarray, cell_margin: float, limit: float, named: np.ndarray
) -> np.ndarray:
    """For each tail length ``j`` (cells from one end): whether that tail may be cut. Either it holds at
    most ``limit`` records at ``z`` standard deviations (estimate plus ``margin``), or it cannot be told
    from empty (estimate at most ``margin``, and no cell of it reaching ``cell_margin`` on its own) while
    its estimate is at most ``limit``: empty wide bins at the end of a range (capital-loss above its
    largest value) are cut, instead of their positive noise becoming rows with large values."""
    total = np.cumsum(pooled)
    quiet = np.cumsum((pooled >= cell_margin) | named) == 0
    return (total + margin <= limit) | (quiet & (total <= np.minimum(margin, limit)))
