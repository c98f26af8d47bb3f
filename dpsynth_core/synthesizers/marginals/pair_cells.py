"""Pairs measured over fewer cells than the 1-ways: a range's bins merged for the rounds' pairs where the noise
would drown them.

A numeric or date column keeps up to 12 fitted bins (36 for a short whole-number range) for its own 1-way, and a pair
of it measured in a round has as many cells times the other column's. On a small table a round's noise reaches the
records a cell holds, and the pair mostly measures noise. Here such a pair is measured over the column's bins merged
into at most :data:`PAIR_CELLS` runs of about equal weight (the model still holds every bin: the merged counts
constrain the bins' sums, :mod:`dpsynth_core.pgm.cell_maps`), when its cells the model may use hold fewer records on
average than :data:`PAIR_SIGNAL` deviations of the round's noise. AIM's score counts the merged cells too (the
records' error on them, the noise on fewer cells).

A column of categories (or text) with more than :data:`PAIR_FROM` cells in the support is grouped the same way, its
cells taken heaviest first (:func:`heaviest_groups`), but used only in a pair with no merged range (merging both
columns of a pair loses what the pair is for: a state's latitudes) whose cells hold fewer records on average than
:data:`CATEGORY_SIGNAL` deviations (measured in the sixty-seventh round).

Guarantee: the merged cells partition the pair's cells, so the merged histogram has the pair's sensitivity (no more)
and is charged as the pair would be; a record moves the merged score's L1 term by at most 1, as before. The maps are
post-processing of the first 1-ways' noisy counts and the model's support; the rule for using them reads the
release's DP record count and the round's public noise. Nothing else is read. Measured in the sixty-fourth round
(docs/benchmarks/history.md).
"""

from __future__ import annotations

import numpy as np

from ...pgm.cell_maps import merge_cells
from ...pgm.support import pooled_counts, range_cells
from ...privacy.noise import discrete_laplace_std
from . import selection

#: Most merged cells of a range's bins in a pair (0: pairs over every bin, the ablation).
PAIR_CELLS = 6
#: Merged only when the column keeps more bins than this in the model's support.
PAIR_FROM = 9
#: ... and the pair's usable cells hold fewer records on average than this many deviations of the round's noise
#: (0: whenever the column has a map).
PAIR_SIGNAL = 4.0
#: Whether a column of categories (or text) with more than :data:`PAIR_FROM` cells in the support is merged too:
#: its cells in groups of about equal weight, heaviest first (False: ranges only, the ablation).
PAIR_CATEGORIES = True
#: ... in a pair whose usable cells hold fewer records on average than this many deviations of the round's noise
#: (categories merged lose more than a range's neighbouring bins: a state's latitudes, not a few degrees; at 1
#: airports' expert release at full size went from 0.101 to 0.134 in 2-way TVD).
CATEGORY_SIGNAL = 0.25


class ColumnMaps(dict):
    """Column -> each cell's merged cell (:func:`range_maps`), with ``ranges``: the mapped columns that are ranges
    (their pairs keep the other column whole), decided once per fit."""

    def __init__(self, maps: dict | None = None, ranges=()):
        super().__init__(maps or {})
        self.ranges = frozenset(ranges)


def range_maps(columns: dict, measurements: list, cells: dict, support: dict) -> ColumnMaps:
    """Column -> each cell's merged cell, for every range column with more than :data:`PAIR_FROM` bins in
    ``support``: its bins in runs of about equal weight by its pooled noisy 1-way counts (``measurements``, the kept
    ones; at most :data:`PAIR_CELLS` runs), each cell past the range (the missing cell) a merged cell of its own;
    and, with :data:`PAIR_CATEGORIES`, for every other column with more than :data:`PAIR_FROM` cells in ``support``:
    :func:`heaviest_groups` of its pooled counts. Post-processing of noisy counts."""
    if not PAIR_CELLS or len(columns) > selection.BATCH_FROM:  # a wide table's rounds choose in batches: as before
        return ColumnMaps()
    ordered, _ = range_cells(columns)
    pooled = pooled_counts(cells, measurements)

    def kept(name: str, upto: int | None = None) -> np.ndarray | None:
        """The column's pooled counts (up to ``upto`` cells) with cells outside the support at 0; None when the
        column has no pooled counts or keeps no more than :data:`PAIR_FROM` cells."""
        keep = np.asarray(support.get(name, np.ones(cells[name], dtype=bool)), dtype=bool)[:upto]
        if name not in pooled or int(np.count_nonzero(keep)) <= PAIR_FROM:
            return None
        return np.clip(pooled[name][0][:upto], 0, None) * keep

    out = {}
    for name, k in ordered.items():
        if (weights := kept(name, k)) is not None:
            out[name] = equal_runs(weights, cells[name] - k)
    ranges = set(out)
    for name in cells if PAIR_CATEGORIES else ():
        if name not in ordered and (weights := kept(name)) is not None:
            out[name] = heaviest_groups(weights)
    return ColumnMaps(out, ranges)


def heaviest_groups(weights: np.ndarray) -> np.ndarray:
    """Each unordered cell's group: the cells by weight, heaviest first, in runs of about equal weight
    (:func:`equal_runs`: a run closes where the running total crosses a sixth), so a heavy cell is mostly a group of
    its own, and the light ones share the last group with the cells that take the total past five sixths (a group
    from each cell's running total at its start instead kept more groups and gained less: the sixty-seventh round).

    >>> heaviest_groups(np.array([1.0, 50, 2, 30, 0, 3, 14])).tolist()
    [2, 0, 2, 1, 2, 2, 2]
    """
    weights = np.asarray(weights, dtype=float)
    order = np.argsort(-weights, kind="stable")
    groups = np.empty(len(order), dtype=np.int64)
    groups[order] = equal_runs(weights[order], 0)
    return groups


def equal_runs(weights: np.ndarray, extra: int) -> np.ndarray:
    """Each of the ordered cells' run (at most :data:`PAIR_CELLS` runs of about equal ``weights``), then ``extra``
    cells each its own.

    >>> equal_runs(np.array([5.0, 5, 0, 10, 10, 0, 30, 0, 0, 40]), 1).tolist()
    [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 4]
    """
    share = np.cumsum(weights) / max(float(weights.sum()), 1e-12)
    runs = np.clip((share * PAIR_CELLS - 1e-9).astype(int), 0, PAIR_CELLS - 1)
    _, runs = np.unique(np.maximum.accumulate(runs), return_inverse=True)
    return np.concatenate([runs, runs.max() + 1 + np.arange(extra)]).astype(np.int64)


def pair_maps(synth, group: tuple, noise_param: float):
    """The maps ``group`` is measured and scored over in a round of noise ``noise_param`` (None: its own cells): a
    pair holding a mapped column (:func:`range_maps`), not a survey block's, whose usable cells hold fewer records on
    average than :data:`PAIR_SIGNAL` deviations. A mapped range's pair keeps its other column whole; a mapped
    category beside no mapped range (another category, or a range whose bins stay whole) is merged only below
    :data:`CATEGORY_SIGNAL` deviations. Public: the maps, the DP record count and the round's noise."""
    maps = synth.maps_
    if len(group) != 2 or group in synth.blocks_.structure or not any(a in maps for a in group):
        return None
    cells = selection.used_cells(group, synth.cells_, synth.support_)
    deviation = noise_param if synth.zcdp_ else discrete_laplace_std(noise_param)
    per_cell = synth.total_ / max(cells, 1)
    if PAIR_SIGNAL and per_cell >= PAIR_SIGNAL * deviation:
        return None
    if any(a in maps.ranges for a in group):  # a range merged: its pair keeps the categories whole
        return tuple(maps.get(a) if a in maps.ranges else None for a in group)
    if per_cell >= CATEGORY_SIGNAL * deviation:
        return None
    return tuple(maps.get(a) for a in group)


def merged_counts(counts: np.ndarray, maps) -> np.ndarray:
    """A marginal's exact counts over its merged cells (``maps`` None: its own): a partition of its cells, so one
    record still moves one count by one."""
    return np.rint(merge_cells(counts, maps)).astype(np.int64)


def movement(model, chosen: list, before: list, maps: dict) -> float:
    """How far a round's refit moved its ``chosen`` marginals from ``before`` (L1), each over the cells it was
    measured on (``maps``, candidate -> maps or None): the annealing compares it with the noise on those cells."""
    return sum(float(np.abs(merge_cells(model.project(c) - b, maps[c])).sum()) for c, b in zip(chosen, before))
