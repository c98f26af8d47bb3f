"""The DP Bayesian network's conditional tables: drawn from the noisy counts, and sampled from.

:func:`conditional_table` turns an attribute's noisy table (configurations of its parents x its cells)
into ``P(child | parents)`` on the cells :func:`column_support` keeps; a :class:`Factor` is that
distribution stored as sparse weights over the flat (parent, child) index, and
:func:`sample_children` draws from it, vectorised. All of it is post-processing of noisy statistics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...pgm import Measurement, support_from
from ...pgm.support import EMPTY_Z, TAIL_SHARE, range_cells  # a range column's cut: the marginals model's rule
from ...privacy.histogram import nonnegative_projection
from ..finite import FiniteColumn


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


def column_support(column: FiniteColumn, grid: np.ndarray, sigma: float) -> np.ndarray:
    """The child's cells that its noisy table (parent configurations x cells, noise ``sigma`` per cell)
    does not show to be empty, by the rule of the ``marginals`` model
    (:func:`dpsynth_core.pgm.support_from` on the counts summed over the configurations): a range
    column loses the empty tails and gaps of its range and its "missing" cell unless that cell reaches
    ``EMPTY_Z`` standard deviations; any other column keeps every cell. Post-processing."""
    ordered, protected = range_cells({"child": column})
    if not ordered:
        return np.ones(grid.shape[1], dtype=bool)
    found = support_from(
        {"parents": grid.shape[0], "child": grid.shape[1]},
        [Measurement(("parents", "child"), np.asarray(grid, dtype=float), sigma)],
        EMPTY_Z,
        ordered=ordered,
        limit=TAIL_SHARE * max(float(grid.sum()), 1.0),
        protected=protected,
    )
    return found["child"]


def conditional_table(grid: np.ndarray, keep: np.ndarray, rng) -> np.ndarray:
    """``P(child | parent configuration)`` from a noisy table (configurations x cells), on the cells ``keep``.

    Each configuration's noisy counts are projected onto the non-negative counts with the same total
    (:func:`dpsynth_core.privacy.histogram.nonnegative_projection`; a configuration whose total is not
    positive gets none), and so are their sums over the configurations, the child's 1-way counts,
    normalised to ``p``. The parameters are then drawn, as in the paper, from a Dirichlet: here
    ``Dirichlet(projected + k p)`` over the ``k`` cells kept, a prior as heavy as the paper's one
    pseudo-count per cell but centred on the child's distribution instead of spread evenly over every
    declared cell. So an empty cell (a "missing" that never occurs) gets neither half a noise level of
    clipped noise nor a pseudo-count in every configuration, and a configuration with few records follows
    the child's distribution rather than the uniform one. Cells outside ``keep`` get no mass.
    Post-processing of the noisy table.
    """
    counts = np.asarray(grid, dtype=float)[:, keep]
    k = counts.shape[1]
    pooled = nonnegative_projection(counts.sum(axis=0))
    p = pooled / pooled.sum() if pooled.sum() > 0 else np.full(k, 1.0 / k)
    concentration = nonnegative_projection(counts) + k * p
    draws = np.where(concentration > 0, rng.standard_gamma(np.maximum(concentration, 1e-300)), 0.0)
    totals = draws.sum(axis=1, keepdims=True)
    theta = np.zeros(np.shape(grid))
    theta[:, keep] = np.where(totals > 0, draws / np.where(totals > 0, totals, 1.0), p)
    return theta
