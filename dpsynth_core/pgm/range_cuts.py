"""The cuts of an ordered column's cells (a numeric or date range's bins) that the noise cannot tell from empty: its
tails, the gaps inside it and the islands those gaps leave at its ends (the ordered bullet of
:func:`dpsynth_core.pgm.support.support_from`). Post-processing of pooled noisy counts only."""

from __future__ import annotations

import numpy as np

#: A run of an ordered column's kept cells beyond a cut interior gap, at an end, that the noise cannot tell from empty
#: is cut (:func:`end_islands`); False: kept (an ablation).
END_ISLANDS = True


def cuttable_tails(
    pooled: np.ndarray, margin: np.ndarray, cell_margin: float, limit: float, named: np.ndarray, extra=0.0
) -> np.ndarray:
    """For each tail length ``j`` (cells from one end): whether that tail may be cut. Either it holds at
    most ``limit`` records at ``z`` standard deviations (estimate plus ``margin``), or it cannot be told
    from empty (estimate at most ``margin``, and no cell of it reaching ``cell_margin`` on its own) while
    its estimate is at most ``limit``: empty wide bins at the end of a range (capital-loss above its
    largest value) are cut, instead of their positive noise becoming rows with large values. ``extra`` (per
    tail length) is added to ``limit`` in the second test only."""
    total = np.cumsum(pooled)
    quiet = np.cumsum((pooled >= cell_margin) | named) == 0
    return (total + margin <= limit) | (quiet & (total <= np.minimum(margin, limit + extra)))


def runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The maximal runs of True in ``mask``: their first cells and the cells just past them.

    >>> [a.tolist() for a in runs(np.array([1, 1, 0, 0, 1, 0, 1], bool))]
    [[0, 4, 6], [2, 5, 7]]
    """
    step = np.diff(np.concatenate([[0], np.asarray(mask, dtype=np.int8), [0]]))
    return np.flatnonzero(step == 1), np.flatnonzero(step == -1)


def run_totals(pooled: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Each run's pooled count (the runs from :func:`runs`)."""
    sums = np.concatenate([[0.0], np.cumsum(pooled)])
    return sums[ends] - sums[starts]


def interior_gaps(pooled: np.ndarray, keep: np.ndarray, cell_margin: float, limit: float, named: np.ndarray):
    """Which ordered cells lie in an interior gap that may be cut (see
    :func:`~dpsynth_core.pgm.support.support_from`): maximal runs of quiet cells (pooled count below ``cell_margin =
    z * s``, not ``named``) strictly inside the kept range, each run's pooled count at most ``cell_margin *
    sqrt(j)`` for its ``j`` cells, taken by increasing pooled count while the positive ones add up to at most
    ``limit``."""
    inside = np.flatnonzero(keep)
    cut = np.zeros(pooled.size, dtype=bool)
    if inside.size < 3:
        return cut
    quiet = (pooled < cell_margin) & ~named & keep
    quiet[: inside[0] + 1] = quiet[inside[-1] :] = False  # a run touching an end is a tail: the tail rule's
    starts, ends = runs(quiet)
    totals = run_totals(pooled, starts, ends)
    empty = totals <= cell_margin * np.sqrt(ends - starts)
    order = np.argsort(totals[empty], kind="stable")
    chosen = order[np.cumsum(np.maximum(totals[empty][order], 0.0)) <= limit]
    for start, end in zip(starts[empty][chosen], ends[empty][chosen], strict=True):
        cut[start:end] = True
    return cut


def end_islands(pooled: np.ndarray, keep: np.ndarray, cell_margin: float, named: np.ndarray) -> np.ndarray:
    """Which ordered cells are in an *end island* to cut (see :func:`~dpsynth_core.pgm.support.support_from`): from
    each end of the kept cells inward, while the outermost run of kept cells lies apart from the rest (cells cut
    between) and cannot be told from empty (no cell reaching ``cell_margin = zk * s`` or named, its pooled count at
    most ``cell_margin * sqrt(j)`` for its ``j`` cells), that run. The run holding the largest pooled count is never
    one.

    A thin tail lies against the data; a run beyond an interior gap cut for looking empty does not, and a tail
    holding it could not be cut whole while its noise summed above ``max(limit, s)`` (AER's CreditCard, 1,319
    applicants, their count of major cards, 0 or 1, declared 0-10: value 10 at 65 records of noise, deviation 26,
    behind values 2-9 summing to -2; 3.7% of that release's rows came out above 1). Post-processing of the pooled
    noisy counts.

    >>> end_islands(np.array([5.0, 900.0, 300.0, -9.0, 4.0, -6.0, 40.0]), np.array([1, 1, 1, 0, 0, 0, 1], bool),
    ...              60.0, np.zeros(7, bool)).astype(int).tolist()
    [0, 0, 0, 0, 0, 0, 1]
    """
    cut = np.zeros(pooled.size, dtype=bool)
    if not END_ISLANDS:
        return cut
    starts, ends = runs(keep)  # the runs of kept cells
    if starts.size < 2:
        return cut
    body = int(np.searchsorted(starts, int(np.argmax(np.where(keep, pooled, -np.inf))), side="right")) - 1
    loud = np.cumsum(np.r_[0, (pooled >= cell_margin) | named])  # cells reaching the margin or named, so far
    quiet = (loud[ends] == loud[starts]) & (run_totals(pooled, starts, ends) <= cell_margin * np.sqrt(ends - starts))
    for order in (range(starts.size - 1, body, -1), range(body)):  # from the high end down, then the low end up
        for run in order:
            if not quiet[run]:
                break
            cut[starts[run] : ends[run]] = True
    return cut
