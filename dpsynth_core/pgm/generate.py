"""Synthetic records from a calibrated graphical model, clique by clique down the junction tree.

The root clique's columns are drawn from its marginal; every other clique's new columns are
drawn given the values already drawn for its separator, from the model's conditional table.
Two ways to draw, both post-processing of the model:

* ``"iid"``: every record independently (plain ancestral sampling);
* ``"matched"``: stratified. The root's counts are the model's counts rounded (largest
  remainders, ties broken at random); within each group of records sharing a separator
  value, the records are put in random order and the ``k``-th of ``g`` takes the value at
  the conditional quantile ``(k + u) / g`` (one uniform ``u`` per record), so each group's
  counts are within one record of the model's. Sampling noise then no longer adds
  spurious correlations on top of the model's (the Private-PGM maintainers' 2026 fix; our
  measurement in the README).
"""

from __future__ import annotations

import numpy as np

from .model import GraphicalModel


def _round_counts(probabilities: np.ndarray, total: int, rng) -> np.ndarray:
    """Integer counts adding up to ``total``, each the floor or ceiling of ``total * p``."""
    expected = probabilities * total
    counts = np.floor(expected).astype(np.int64)
    short = int(total - counts.sum())
    if short > 0:
        remainder = expected - counts
        weights = remainder / remainder.sum() if remainder.sum() > 0 else None
        extra = rng.choice(len(counts), size=short, replace=False, p=weights) if weights is not None \
            else rng.choice(len(counts), size=short, replace=True)
        np.add.at(counts, extra, 1)
    return counts


def _quantiles(groups: np.ndarray, matched: bool, rng) -> np.ndarray:
    """One number in [0, 1) per record: uniform, or stratified within each group of equal keys."""
    n = len(groups)
    uniform = rng.random(n)
    if not matched or n == 0:
        return uniform
    # records in random order within each group: one int64 sort key, group * n + a random
    # permutation (exact: groups are below the model's cell limit, so the key fits in int64)
    if int(groups.max()) < np.iinfo(np.int64).max // n - 1:
        order = np.argsort(groups.astype(np.int64) * n + rng.permutation(n))
    else:  # pragma: no cover - a key that would overflow
        order = np.lexsort((rng.permutation(n), groups))
    sorted_groups = groups[order]
    starts = np.flatnonzero(np.r_[True, sorted_groups[1:] != sorted_groups[:-1]])
    sizes = np.diff(np.r_[starts, n])
    first = np.repeat(starts, sizes)
    rank = np.arange(n) - first
    out = np.empty(n)
    out[order] = (rank + uniform[order]) / np.repeat(sizes, sizes)
    return out


def generate(model: GraphicalModel, rows: int, rng, *, method: str = "matched") -> dict:
    """Codes of ``rows`` synthetic records for every column (column -> int64 array)."""
    if method not in ("matched", "iid"):
        raise ValueError(f"method ({method!r}) must be 'matched' or 'iid'")
    matched = method == "matched"
    tree, cells = model.tree, model.cells
    codes: dict = {}
    for i in tree.order:
        clique = tree.cliques[i]
        sep = [a for a in tree.separator[i] if a in codes] if tree.parent[i] is not None else []
        new = [a for a in clique if a not in codes]
        if not new:
            continue
        belief = np.clip(model.beliefs[i], 0, None)
        axes = [clique.index(a) for a in sep] + [clique.index(a) for a in new]
        sep_cells = int(np.prod([cells[a] for a in sep])) if sep else 1
        new_cells = int(np.prod([cells[a] for a in new]))
        table = np.transpose(belief, axes).reshape(sep_cells, new_cells)
        if sep:
            key = np.ravel_multi_index([codes[a] for a in sep], [cells[a] for a in sep])
        else:
            key = np.zeros(rows, dtype=np.int64)
        fallback = table.sum(axis=0)
        fallback = fallback / fallback.sum() if fallback.sum() > 0 else np.full(new_cells, 1.0 / new_cells)
        mass = table.sum(axis=1, keepdims=True)
        conditional = np.where(mass > 0, table / np.where(mass > 0, mass, 1.0), fallback[None, :])
        if not sep and matched:
            counts = _round_counts(conditional[0], rows, rng)
            drawn = rng.permutation(np.repeat(np.arange(new_cells), counts))
        else:
            cdf = np.cumsum(conditional, axis=1)
            cdf[:, -1] = 1.0
            u = _quantiles(key, matched, rng)
            flat = (cdf + np.arange(sep_cells)[:, None]).ravel()
            drawn = np.searchsorted(flat, key + u, side="right") - key * new_cells
            drawn = np.minimum(drawn, new_cells - 1)
        for a, values in zip(new, np.unravel_index(drawn, [cells[a] for a in new])):
            codes[a] = values.astype(np.int64)
    return codes
