"""Generation: records whose counts match the model, i.i.d. or matched by stratified quantiles (drawn as counts)."""

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


def _per_record_counts(probabilities, size, rng, repeats):
    """The counts of the rule as stated: ``size`` records in random order, the ``k``-th at the
    conditional quantile ``(k + u_k) / size`` (a uniform per record), ``repeats`` times."""
    cdf = np.cumsum(probabilities)
    cdf[-1] = 1.0
    points = (np.arange(size) + rng.random((repeats, size))) / size
    values = np.minimum(np.searchsorted(cdf, points.ravel(), side="right"), len(cdf) - 1).reshape(repeats, size)
    return np.stack([np.bincount(v, minlength=len(cdf)) for v in values])


def _outcomes(counts, size) -> dict:
    """How often each vector of counts came out (a vector as one number, its counts in base ``size + 1``)."""
    keys, seen = np.unique(counts.dot((size + 1) ** np.arange(counts.shape[1])), return_counts=True)
    return dict(zip(keys.tolist(), seen.tolist()))


def test_stratified_counts_have_the_law_of_a_quantile_per_record():
    """Counts from the table (one uniform per stratum holding a boundary, shared by the boundaries in
    it) against the per-record rule they replace: each count within 2 records of ``size * p`` (within
    1 of each cumulative boundary), adding up to the group's size, and the same distribution of
    outcomes (the frequency of every outcome within 5 standard deviations of the per-record rule's,
    over 20,000 draws of each)."""
    from dpsynth_core.pgm.generate import _stratified_counts

    rng = np.random.default_rng(5)
    repeats = 20_000
    # two boundaries in one stratum (0.3 and 0.35 of 3 records: both in stratum 0), an empty value,
    # and a value past a boundary exactly on a stratum (0.5 of 4 records)
    for probabilities, size in (([0.1, 0.05, 0.0, 0.5, 0.35], 3), ([0.25, 0.25, 0.5], 4), ([0.2, 0.3, 0.5], 7)):
        p = np.asarray(probabilities)
        table = np.tile(p, (repeats, 1))
        counts = _stratified_counts(table, np.full(repeats, size), rng)
        assert (counts.sum(axis=1) == size).all() and (counts >= 0).all()
        assert (np.abs(counts - size * p) < 2).all()
        assert (np.abs(np.cumsum(counts, axis=1) - size * np.cumsum(p)) < 1).all()
        reference = _per_record_counts(p, size, rng, repeats)
        mine, theirs = _outcomes(counts, size), _outcomes(reference, size)
        for outcome in set(mine) | set(theirs):
            share = theirs.get(outcome, 0) / repeats
            sd = np.sqrt(2 * max(share, 1 / repeats) * (1 - share) / repeats)
            assert abs(mine.get(outcome, 0) / repeats - share) <= 5 * sd + 1e-12, (probabilities, outcome)


def test_columns_drawn_in_different_cliques_are_independent_given_their_separator():
    """Cliques (a, b), (b, c), (b, d): c and d are each drawn given b along a random order of b's
    groups; were the order not random (or shared between cliques), c and d would move together
    within b's groups. Their joint counts are the model's within a few binomial standard deviations."""
    joint = joint_counts(4)
    groups = [("a", "b"), ("b", "c"), ("b", "d")]
    model, _ = estimate(CELLS, [Measurement(g, marginal(joint, g), 1.0) for g in groups], 10_000.0, iterations=300)
    assert len(model.tree.cliques) == 3
    rows = 40_000
    codes = generate(model, rows, np.random.default_rng(8), method="matched")
    for pair in (("c", "d"), ("a", "d"), ("a", "c")):
        index = np.ravel_multi_index([codes[x] for x in pair], [CELLS[x] for x in pair])
        counts = np.bincount(index, minlength=CELLS[pair[0]] * CELLS[pair[1]])
        expected = model.project(pair).ravel() / model.total * rows
        assert (np.abs(counts - expected) <= 5 * np.sqrt(expected * (1 - expected / rows)) + 2).all(), pair


def test_the_records_come_in_random_order():
    """The root clique's records are put in random order too: the file's rows are not sorted."""
    joint = joint_counts(3)
    model, _ = estimate(CELLS, [Measurement(("a", "b"), marginal(joint, ("a", "b")), 1.0)], 10_000.0, iterations=100)
    first = generate(model, 1000, np.random.default_rng(1))
    again = generate(model, 1000, np.random.default_rng(2))
    for column in ("a", "b"):
        assert (np.diff(first[column]) < 0).sum() > 100  # sorted codes would never go down
        assert not np.array_equal(first[column], again[column])


@pytest.mark.parametrize("top", [7, 5000, 70_000, 5_000_000_000])
def test_the_group_order_sorts_by_group_in_a_uniform_random_order_within(top, monkeypatch):
    """_group_order: the records by group, each group in a uniformly random order (each of the 6
    orderings of a group of 3 within 5 standard deviations of 1/6 over 3,000 draws), for each way it
    has: few groups each shuffled (7), else a permutation sorted in one, two or three radix passes."""
    import importlib
    import itertools

    module = importlib.import_module("dpsynth_core.pgm.generate")  # the module (the package names the function)

    monkeypatch.setattr(module, "SHUFFLED_GROUPS", 100)
    rng = np.random.default_rng(top % 1000)
    groups = rng.integers(0, top, 20_000)
    sizes = np.unique(groups, return_counts=True)[1]
    order = module._group_order(groups, sizes, rng)
    assert np.array_equal(np.sort(order), np.arange(len(groups)))
    assert np.array_equal(groups[order], np.sort(groups, kind="stable"))
    # a group of three records (the largest key, so last) among others: how its records come out
    small = np.r_[np.arange(min(top, 200)) * max(1, top // 200), [top] * 3]
    sizes = np.unique(small, return_counts=True)[1]
    orderings = {p: k for k, p in enumerate(itertools.permutations(range(len(small) - 3, len(small))))}
    seen = np.zeros(6)
    for _ in range(3000):
        seen[orderings[tuple(module._group_order(small, sizes, rng)[-3:].tolist())]] += 1
    assert (np.abs(seen / 3000 - 1 / 6) <= 5 * np.sqrt(1 / 6 * 5 / 6 / 3000)).all(), seen
