"""Pairs measured over fewer cells than the 1-ways: a range's bins merged for the rounds' pairs where the noise
would drown them.

A numeric or date column keeps up to 12 fitted bins (36 for a short whole-number range) for its own 1-way, and a pair
of it measured in a round has as many cells times the other column's. On a small table a round's noise reaches the
records a cell holds, and the pair mostly measures noise. Here such a pair is measured over the column's bins merged
into at most :data:`PAIR_CELLS` runs of about equal weight (the model still holds every bin: the merged counts
constrain the bins' sums, :mod:`dpsynth_core.pgm.cell_maps`), when its cells the model may use hold fewer records on
average than :data:`PAIR_SIGNAL` deviations of the round's noise. AIM's score counts the merged cells too (the
records' error on them, the noise on fewer cells).

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


def range_maps(columns: dict, measurements: list, cells: dict, support: dict) -> dict:
    """Column -> each cell's merged cell, for every range column with more than :data:`PAIR_FROM` bins in
    ``support``: its bins in runs of about equal weight by its pooled noisy 1-way counts (``measurements``, the kept
    ones; at most :data:`PAIR_CELLS` runs), each cell past the range (the missing cell) a merged cell of its own.
    Post-processing of noisy counts."""
    if not PAIR_CELLS or len(columns) > selection.BATCH_FROM:  # a wide table's rounds choose in batches: as before
        return {}
    ordered, _ = range_cells(columns)
    pooled = pooled_counts(cells, measurements)
    out = {}
    for name, k in ordered.items():
        keep = np.asarray(support.get(name, np.ones(cells[name], dtype=bool)), dtype=bool)
        if name not in pooled or int(np.count_nonzero(keep[:k])) <= PAIR_FROM:
            continue
        out[name] = equal_runs(np.clip(pooled[name][0][:k], 0, None) * keep[:k], cells[name] - k)
    return out


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
    average than :data:`PAIR_SIGNAL` deviations."""
    maps = synth.maps_
    if len(group) != 2 or group in synth.blocks_.structure or not any(a in maps for a in group):
        return None
    cells = selection.used_cells(group, synth.cells_, synth.support_)
    deviation = noise_param if synth.zcdp_ else discrete_laplace_std(noise_param)
    if PAIR_SIGNAL and synth.total_ / max(cells, 1) >= PAIR_SIGNAL * deviation:
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
