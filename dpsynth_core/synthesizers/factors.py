"""Conditional tables and vectorised sampling from them: the building block of network-shaped models.

A :class:`Factor` is a child column's distribution given the configuration of its parents,
stored as sparse weights over the flat (parent, child) index. Sampling from it is
post-processing of noisy statistics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Factor:
    """A child column and its parents, with the noisy joint table as sparse entries."""

    child: str
    parents: tuple
    parent_cells: tuple
    child_cells: int
    keys: np.ndarray  # flat index: parent_index * child_cells + child_code
    weights: np.ndarray  # non-negative weights per entry (the network's: P(child | parents))


def sample_children(parent_index: np.ndarray, factor: Factor, fallback: np.ndarray, rng) -> np.ndarray:
    """Draw each row's child code from the factor's row for its parent value.

    Vectorised: entries are sorted by parent; each row searches ``segment + u`` in the
    concatenated, per-segment normalised cumulative weights. Rows whose parent value has
    no mass fall back to the child's 1-way distribution.
    """
    parents = factor.keys // factor.child_cells
    children = factor.keys % factor.child_cells
    order = np.lexsort((children, parents))
    parents, children, weights = parents[order], children[order], factor.weights[order]
    unique, starts = np.unique(parents, return_index=True)
    totals = np.add.reduceat(weights, starts) if len(weights) else np.zeros(0)
    segment = np.repeat(np.arange(len(unique)), np.diff(np.append(starts, len(weights))))
    before = np.concatenate([[0.0], np.cumsum(weights)])[starts]
    safe_totals = np.where(totals > 0, totals, 1.0)
    cumulative = segment + (np.cumsum(weights) - before[segment]) / safe_totals[segment]
    out = np.empty(len(parent_index), dtype=np.int64)
    position = np.searchsorted(unique, parent_index)
    position_clipped = np.minimum(position, max(len(unique) - 1, 0))
    found = (position < len(unique)) & (len(unique) > 0)
    if len(unique):
        found &= (unique[position_clipped] == parent_index) & (totals[position_clipped] > 0)
    rows = np.flatnonzero(found)
    if rows.size:
        target = position_clipped[rows] + rng.random(rows.size)
        pick = np.searchsorted(cumulative, target, side="right")
        out[rows] = children[np.minimum(pick, len(children) - 1)]
    rest = np.flatnonzero(~found)
    if rest.size:
        out[rest] = rng.choice(len(fallback), size=rest.size, p=fallback)
    return out
