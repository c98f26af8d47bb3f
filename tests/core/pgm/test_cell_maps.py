"""Measurements over merged cells (:mod:`dpsynth_core.pgm.cell_maps`): the merge and its adjoint, the loss's
gradient, the fit, the warm start and the support's pooling (the fast loop's agreement: ``test_descent``)."""

from __future__ import annotations

import numpy as np
import pytest

from dpsynth_core.pgm import GraphicalModel, Measurement, absorb, estimate
from dpsynth_core.pgm.cell_maps import merge_cells, spread_cells
from dpsynth_core.pgm.estimation import _Loss
from dpsynth_core.pgm.support import pooled_counts
from tests.core.pgm.pgm_common import CELLS, EXP_REL, joint_counts, marginal

MAP_D = np.array([0, 0, 1, 2, 2])  # d's 5 cells merged into 3
MAP_B = np.array([0, 1, 1, 1])  # b's 4 into 2


def test_spreading_is_the_adjoint_of_merging():
    """<merge(x), y> = <x, spread(y)>: the gradient of a merged measurement reaches every cell of a merged one."""
    rng = np.random.default_rng(0)
    for maps in [(MAP_B, None), (None, MAP_D), (MAP_B, MAP_D)]:
        x = rng.normal(size=(4, 5))
        merged = merge_cells(x, maps)
        y = rng.normal(size=merged.shape)
        assert np.vdot(merged, y) == pytest.approx(np.vdot(x, spread_cells(y, maps)))
        assert merged.sum() == pytest.approx(x.sum())  # a partition of the cells


def test_a_merge_is_the_sum_over_each_merged_cell_for_any_map_each_time_it_is_asked():
    """Maps in runs in order (summed by reduceat) and in any order (one-hot), of two integer types, merged twice
    (the second time from the remembered plan) and after an equal map at another address: each the plain sum."""
    rng = np.random.default_rng(3)
    for trial in range(40):
        cells = int(rng.integers(1, 12))
        merged = int(rng.integers(1, cells + 1))
        cell_map = np.sort(rng.integers(0, merged, size=cells)) if trial % 2 else rng.integers(0, merged, size=cells)
        cell_map = np.unique(cell_map, return_inverse=True)[1].astype(np.int64 if trial % 3 else np.int32)
        x = rng.normal(size=(cells, 3))
        plain = np.array([x[cell_map == k].sum(axis=0) for k in range(cell_map.max() + 1)])
        for again in (cell_map, cell_map.copy()):
            assert np.allclose(merge_cells(x, (again, None)), plain)
            assert np.allclose(merge_cells(x.T, (None, again)), plain.T)


def test_the_loss_gradient_of_a_merged_measurement_matches_finite_differences():
    """``1/2 w |Q mu - y|^2`` and its gradient ``Q^T w (Q mu - y)``, against central differences on the fine cells."""
    joint = joint_counts(5)
    truth = marginal(joint, ("b", "d"))
    noisy = merge_cells(truth, (MAP_B, MAP_D)) + np.array([[3.0, -2.0, 1.0], [-4.0, 5.0, 0.5]])
    objective = _Loss([Measurement(("b", "d"), noisy, 2.0, (MAP_B, MAP_D))])
    marginals = {("b", "d"): truth * 1.01}
    _, gradient = objective.merged_terms(marginals)
    step = 1e-3
    for index in [(0, 0), (1, 2), (3, 4)]:
        up, down = truth * 1.01, truth * 1.01
        up[index] += step
        down[index] -= step
        numeric = (objective.merged_terms({("b", "d"): up})[0] - objective.merged_terms({("b", "d"): down})[0]) / (
            2 * step
        )
        assert numeric == pytest.approx(gradient[("b", "d")][index], rel=1e-5)


def test_a_merged_measurement_is_fitted_on_its_merged_cells():
    """Exact 1-ways of b and d and their pair measured over merged cells: the fitted model's pair, merged, is the
    measured one, and its 1-ways stay exact; the pair's cells inside a merged cell are not constrained apart."""
    joint = joint_counts(6)
    pair = marginal(joint, ("b", "d"))
    maps = (MAP_B, MAP_D)
    measurements = [
        Measurement(("b",), marginal(joint, ("b",)), 1.0),
        Measurement(("d",), marginal(joint, ("d",)), 1.0),
        Measurement(("b", "d"), merge_cells(pair, maps), 1.0, maps),
    ]
    model, _ = estimate(CELLS, measurements, 10_000.0, iterations=500)
    assert merge_cells(model.project(("b", "d")), maps) == pytest.approx(merge_cells(pair, maps), abs=1.0)
    assert model.project(("b",)) == pytest.approx(marginal(joint, ("b",)), abs=1.0)
    independent = np.outer(marginal(joint, ("b",)), marginal(joint, ("d",))) / 10_000.0
    # between the independent model and the truth on the merged cells: closer to the truth than independence
    assert (
        np.abs(merge_cells(model.project(("b", "d")) - pair, maps)).sum()
        < 0.1 * np.abs(merge_cells(independent - pair, maps)).sum()
    )


def test_a_group_measured_only_over_merged_cells_is_fitted():
    joint = joint_counts(7)
    pair, maps = marginal(joint, ("b", "d")), (None, MAP_D)
    measurements = [Measurement(("b", "d"), merge_cells(pair, maps), 1.0, maps)]
    model, _ = estimate(CELLS, measurements, 10_000.0, iterations=400)
    assert merge_cells(model.project(("b", "d")), maps) == pytest.approx(merge_cells(pair, maps), abs=1.0)


def test_absorb_matches_the_merged_cells_in_one_step():
    joint = joint_counts(8)
    groups = [("a", "b"), ("c", "d")]
    model, _ = estimate(CELLS, [Measurement(g, marginal(joint, g), 1.0) for g in groups], 10_000.0, iterations=300)
    maps = (MAP_B, None)
    new = Measurement(("b", "c"), merge_cells(marginal(joint, ("b", "c")), maps), 1.0, maps)
    full = GraphicalModel(CELLS, groups + [new.group], 10_000.0, absorb(model, new, 1.0))
    assert merge_cells(full.project(new.group), maps) == pytest.approx(new.noisy, rel=EXP_REL)


def test_the_support_pools_only_the_axes_a_merged_measurement_keeps():
    """A pair merged on b says nothing of b's own cells: pooled counts for b come from its 1-way alone, and d's
    from both (the merged pair summed over b's merged cells)."""
    cells = {"b": 4, "d": 5}
    one = Measurement(("b",), np.array([10.0, 20.0, 30.0, 40.0]), 2.0)
    pair = Measurement(("b", "d"), np.full((2, 5), 10.0), 2.0, (MAP_B, None))
    found = pooled_counts(cells, [one, pair])
    assert found["b"][0].tolist() == [10.0, 20.0, 30.0, 40.0] and found["b"][1] == pytest.approx(2.0)
    assert found["d"][0].tolist() == [20.0] * 5 and found["d"][1] == pytest.approx(2.0 * np.sqrt(2))
