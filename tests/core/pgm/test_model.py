"""The graphical model: exact marginals within and across cliques, clique potentials, no mass outside the
support, and sums and exponentials with the very bits of numpy's."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpsynth_core.pgm import GraphicalModel, Measurement, estimate, generate
from tests.core.pgm.pgm_common import CELLS, EXP_REL, joint_counts, marginal


def test_pair_marginals_across_many_cliques():
    cells = {"a": 3, "b": 4, "c": 2, "d": 5, "e": 3, "f": 2, "g": 4}
    rng = np.random.default_rng(5)
    groups = [("a", "b"), ("b", "c"), ("c", "d", "e"), ("e", "f"), ("d", "g"), ("a", "f")]
    potentials = {g: rng.normal(0, 1, [cells[x] for x in g]) for g in groups}
    model = GraphicalModel(cells, groups, 1000.0, potentials)
    # the exact joint, by brute force over all 2,880 cells
    names = list(cells)
    log_joint = np.zeros([cells[x] for x in names])
    for g, value in potentials.items():
        log_joint = log_joint + value.reshape([cells[x] if x in g else 1 for x in names])
    joint = np.exp(log_joint - log_joint.max())
    joint *= 1000.0 / joint.sum()
    pairs = list(itertools.combinations(cells, 2))
    across = [p for p in pairs if model.tree.home(p) is None]
    assert len(model.tree.cliques) >= 4 and len(across) >= 8
    many = model.project_many(pairs)
    for pair in pairs:
        exact = joint.sum(axis=tuple(i for i, x in enumerate(names) if x not in pair))
        # exact inference, but with exp in single precision (model.exp_into): relative error about 1e-7
        assert many[pair] == pytest.approx(exact, rel=EXP_REL, abs=1e-9), pair
        assert model.project(pair) == pytest.approx(exact, rel=EXP_REL, abs=1e-9), pair


def test_marginals_of_many_groups_inside_one_clique():
    cells = {"a": 3, "b": 4, "c": 2, "d": 5, "e": 3}
    rng = np.random.default_rng(8)
    potentials = {tuple(cells): rng.normal(0, 1, list(cells.values()))}
    model = GraphicalModel(cells, list(potentials), 500.0, potentials)
    groups = [g for size in (1, 2, 3, 4) for g in itertools.combinations(cells, size)]
    joint = model.beliefs[0]
    got = model.marginals(groups)
    assert list(got) == groups  # exactly the groups asked for, no intermediate sums
    for group in groups:
        exact = joint.sum(axis=tuple(i for i, x in enumerate(cells) if x not in group))
        assert got[group] == pytest.approx(exact, rel=1e-12), group


def test_clique_potentials_add_every_group_once():
    cells = {"a": 3, "b": 4, "c": 2, "d": 5, "e": 3}
    rng = np.random.default_rng(9)
    groups = [("a", "b", "c"), ("a", "b"), ("b", "c"), ("a", "c"), ("a",), ("c", "d"), ("d", "e"), ("e",)]
    potentials = {g: rng.normal(0, 1, [cells[x] for x in g]) for g in groups}
    model = GraphicalModel(cells, groups, 100.0, potentials)
    before = {g: v.copy() for g, v in potentials.items()}
    got = model.clique_potentials(potentials)
    for i, clique in enumerate(model.tree.cliques):
        naive = np.zeros([cells[x] for x in clique])
        for g in groups:
            if model.home[g] == i:
                naive = naive + potentials[g].reshape([cells[x] if x in g else 1 for x in clique])
        assert got[i] == pytest.approx(naive, rel=1e-12), clique
    for g in groups:  # the inputs are left as they were
        assert np.array_equal(potentials[g], before[g])


def test_model_outside_its_support_has_no_mass_and_draws_no_records():
    joint = joint_counts(3)
    groups = [("a", "b"), ("b", "c"), ("c", "d")]
    measurements = [Measurement(g, marginal(joint, g), 1.0) for g in groups]
    support = {"b": np.array([True, False, True, True]), "d": np.array([False, True, True, True, False])}
    model, _ = estimate(CELLS, measurements, 10_000.0, iterations=100, support=support)
    assert np.all(model.project(("b",))[1] == 0) and np.all(model.project(("d",))[[0, 4]] == 0)
    assert model.project(("a", "d"))[:, [0, 4]].sum() == 0  # across cliques too
    assert model.project(("b",)).sum() == pytest.approx(10_000.0)
    warm, _ = estimate(CELLS, measurements, 10_000.0, iterations=5, warm=model)  # a warm model keeps it
    assert warm.project(("b",))[1] == 0
    for method in ("matched", "iid"):
        codes = generate(model, 5000, np.random.default_rng(0), method=method)
        assert not np.any(codes["b"] == 1) and not np.any(np.isin(codes["d"], [0, 4]))


def test_a_groups_support_gives_its_cells_no_mass_whatever_the_cliques_order_of_columns():
    joint = joint_counts(4)
    groups = [("a", "b"), ("b", "c"), ("c", "d")]
    measurements = [Measurement(g, marginal(joint, g), 1.0) for g in groups]
    keep = np.ones((CELLS["c"], CELLS["b"]), dtype=bool)  # given in the order (c, b): the clique holds (b, c)
    keep[0, 1:] = False
    model, _ = estimate(CELLS, measurements, 10_000.0, iterations=100, support={("c", "b"): keep})
    pair = model.project(("b", "c"))
    assert pair[1:, 0].sum() == 0 and pair[0, 0] > 0 and pair[1:, 1:].min() > 0
    assert model.project(("a", "c"))[:, 0].sum() == pytest.approx(pair[0, 0])  # across cliques too
    again, _ = estimate(CELLS, measurements, 10_000.0, iterations=5, warm=model)  # a warm model keeps it
    assert again.project(("b", "c"))[1:, 0].sum() == 0
    codes = generate(model, 5000, np.random.default_rng(0))
    assert not np.any((codes["c"] == 0) & (codes["b"] > 0))


def test_fast_sums_are_those_of_add_reduce_bit_for_bit():
    # the fast sums (pgm.arrays._sum and summer, the descent's compiled sums) must add the same numbers
    # in the same order as np.add.reduce: any other order changes the last bits, the descent's choices
    # and so releases
    from dpsynth_core.pgm.arrays import _rows, _sum, _summing, summer

    rng = np.random.default_rng(21)
    einsum = rows = 0
    for k in range(400):
        shape = tuple(int(n) if rng.random() > 0.15 else 1 for n in rng.integers(1, 19, rng.integers(1, 6)))
        if k % 2 and shape[-1] > 7:  # half with a short innermost axis (summed row by row on large arrays)
            shape = shape[:-1] + (int(rng.integers(2, 8)),)
        array = rng.gamma(0.5, size=shape) * 1000
        for r in range(1, len(shape) + 1):
            for axes in itertools.combinations(range(len(shape)), r):
                expected = np.asarray(np.add.reduce(array, axis=axes)).tobytes()
                assert np.asarray(_sum(array, axes)).tobytes() == expected, (shape, axes)
                if r < len(shape):
                    out = np.empty([n for i, n in enumerate(shape) if i not in axes])
                    add, more = summer(shape, axes)
                    add(array, *more, out=out)
                    assert out.tobytes() == expected, (shape, axes)
                einsum += _summing(shape, axes) is not None
                rows += _rows(shape, axes) is not None
    assert einsum > 1000 and rows > 100  # the fast paths are taken, not only numpy's reduction


def test_exp_in_single_precision_is_within_its_error_and_keeps_zeros():
    from dpsynth_core.pgm.arrays import exp_into

    theta = np.concatenate([-np.linspace(0, 86, 100_001), [-np.inf, -110.0, -700.0]])
    got = exp_into(theta.copy())
    assert got.dtype == np.float64
    exact = np.exp(theta[:-3])
    eps = float(np.finfo(np.float32).eps)
    assert np.max(np.abs(got[:-3] - exact)) < 2 * eps  # against the largest cell, 1: a unit in the last place
    # each cell: theta itself rounded to single precision (a relative error of |theta| eps / 2), then exp
    assert np.all(np.abs(got[:-3] / exact - 1) < (np.abs(theta[:-3]) / 2 + 2) * eps)
    assert got[-3:].tolist() == [0.0, 0.0, 0.0]  # outside the support, and cells under 1e-38 of the largest
    buffer = np.empty((7, 3), dtype=np.float32)
    again = -np.random.default_rng(0).exponential(5, (7, 3))
    assert np.array_equal(exp_into(again.copy(), buffer), exp_into(again.copy()))  # the same bits with a buffer
