"""Generation: records whose counts match the model, i.i.d. or matched by stratified quantiles."""

from __future__ import annotations

import numpy as np
import pytest

from dpsynth_core.pgm import Measurement, estimate, generate
from tests.core.pgm.pgm_common import CELLS, joint_counts, marginal


def test_generation_matches_the_model():
    joint = joint_counts(3)
    groups = [("a", "b"), ("b", "c", "d")]
    model, _ = estimate(CELLS, [Measurement(g, marginal(joint, g), 1.0) for g in groups], 10_000.0, iterations=300)
    rng = np.random.default_rng(0)
    rows = 20_000
    for method in ("matched", "iid"):
        codes = generate(model, rows, rng, method=method)
        for group in groups:
            index = np.ravel_multi_index([codes[a] for a in group], [CELLS[a] for a in group])
            counts = np.bincount(index, minlength=int(np.prod([CELLS[a] for a in group])))
            expected = model.project(group).ravel() / model.total * rows
            # i.i.d.: binomial error, a few sd; matched: the root's counts are exact up to rounding
            tolerance = 5 * np.sqrt(expected + 1) if method == "iid" else 2 * np.sqrt(expected + 1)
            assert (np.abs(counts - expected) <= tolerance + 1).all(), (method, group)
    # matched, the root's columns drawn one at a time: its first k columns' counts are within k records
    # of the model's (each step is within one record per group of the columns before it)
    root = model.tree.cliques[model.tree.order[0]]
    codes = generate(model, rows, rng, method="matched")
    for k in range(1, len(root) + 1):
        prefix = root[:k]
        index = np.ravel_multi_index([codes[a] for a in prefix], [CELLS[a] for a in prefix])
        counts = np.bincount(index, minlength=int(np.prod([CELLS[a] for a in prefix])))
        assert np.abs(counts - model.project(prefix).ravel() / model.total * rows).max() <= k, prefix
    with pytest.raises(ValueError, match="matched"):
        generate(model, 10, rng, method="other")


def _per_record(groups, rng):
    from dpsynth_core.pgm.generate import _quantiles

    u, order, sorted_groups = _quantiles(groups, True, rng)
    assert (np.diff(sorted_groups + u) >= 0).all() and np.array_equal(groups[order], sorted_groups)
    out = np.empty_like(u)
    out[order] = u
    return out


def test_matched_quantiles_are_stratified_within_each_group():
    rng = np.random.default_rng(3)
    groups = rng.integers(0, 7, 5000)
    u = _per_record(groups, rng)
    assert ((u >= 0) & (u < 1)).all()
    for g in range(7):
        mine = u[groups == g]
        # the k-th of the group's records (in random order) falls in [k / size, (k + 1) / size)
        assert sorted(np.floor(mine * len(mine)).astype(int)) == list(range(len(mine)))
    again = _per_record(groups, np.random.default_rng(4))
    assert not np.array_equal(np.argsort(u), np.argsort(again))  # the order within groups is random


@pytest.mark.parametrize("top", [7, 70_000, 5_000_000_000])
def test_the_radix_order_is_the_order_of_the_int64_keys_it_replaced(top):
    """_group_order sorts by group then by the rank key, 16 bits a pass: the order argsort gave on
    ``group * n + rank`` (one pass below 65,536 groups, two and three above)."""
    from dpsynth_core.pgm.generate import _group_order

    rng = np.random.default_rng(top)
    n = 20_000
    groups, rank = rng.integers(0, top, n), rng.permutation(n)
    order, keys = _group_order(groups, rank)
    assert np.array_equal(order, np.lexsort((rank, groups))) and np.array_equal(keys, groups[order])
