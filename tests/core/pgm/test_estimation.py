"""Estimation from noisy marginals: exact measurements reproduced, noisy ones pooled, warm starts, and
the proportional-fitting step toward a new measurement."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpsynth_core.pgm import GraphicalModel, Measurement, absorb, estimate
from tests.core.pgm.pgm_common import CELLS, EXP_REL, joint_counts, marginal


def test_exact_measurements_are_reproduced_and_inference_is_exact():
    joint = joint_counts()
    groups = [("a", "b"), ("b", "c"), ("c", "d")]  # a chain: the max-entropy model has these marginals
    measurements = [Measurement(g, marginal(joint, g), 1.0) for g in groups]
    model, _ = estimate(CELLS, measurements, 10_000.0, iterations=500)
    for g in groups:
        assert model.project(g) == pytest.approx(marginal(joint, g), abs=0.5)
    # marginals across cliques: the carried pass and the generic contraction agree
    pairs = list(itertools.combinations(CELLS, 2))
    many = model.project_many(pairs)
    for pair in pairs:
        assert many[pair] == pytest.approx(model.project(pair), rel=1e-9, abs=1e-9)
        assert many[pair].sum() == pytest.approx(10_000.0)


def test_noisy_measurements_fit_better_than_each_alone():
    joint = joint_counts(1)
    rng = np.random.default_rng(2)
    groups = [("a",), ("b",), ("a", "b"), ("b", "c")]
    sigma = 30.0
    measurements = [
        Measurement(g, marginal(joint, g) + rng.normal(0, sigma, marginal(joint, g).shape), sigma) for g in groups
    ]
    model, _ = estimate(CELLS, measurements, 10_000.0, iterations=300)
    # the estimate of b's 1-way uses three measurements: its error is below one measurement's
    fitted = np.abs(model.project(("b",)) - marginal(joint, ("b",))).sum()
    alone = np.abs(measurements[1].noisy - marginal(joint, ("b",))).sum()
    assert fitted < alone
    assert (model.beliefs[0] >= 0).all()


def test_warm_start_keeps_potentials():
    joint = joint_counts(4)
    first = [Measurement(("a", "b"), marginal(joint, ("a", "b")), 1.0)]
    model, step = estimate(CELLS, first, 10_000.0, iterations=200)
    more = first + [Measurement(("c",), marginal(joint, ("c",)), 1.0)]
    warm, _ = estimate(CELLS, more, 10_000.0, iterations=0, warm=model, step=step)
    assert warm.project(("a", "b")) == pytest.approx(model.project(("a", "b")))
    assert isinstance(warm, GraphicalModel)


def test_absorb_is_one_proportional_fitting_step():
    joint = joint_counts(3)
    groups = [("a", "b"), ("c", "d")]
    model, _ = estimate(CELLS, [Measurement(g, marginal(joint, g), 1.0) for g in groups], 10_000.0, iterations=300)
    new = Measurement(("b", "c"), marginal(joint, ("b", "c")), 1.0)
    full = GraphicalModel(CELLS, groups + [new.group], 10_000.0, absorb(model, new, 1.0))
    assert full.project(new.group) == pytest.approx(
        new.noisy, rel=EXP_REL
    )  # share 1: matched (exp in single precision)
    assert full.project(("a", "b")) == pytest.approx(model.project(("a", "b")), rel=1e-6)  # b was already right
    half = GraphicalModel(CELLS, groups + [new.group], 10_000.0, absorb(model, new, 0.5))
    geometric = np.sqrt(model.project(new.group) * new.noisy)  # share 1/2: the geometric mean, renormalised
    assert half.project(new.group) / half.total == pytest.approx(geometric / geometric.sum(), rel=EXP_REL)


def test_a_deviation_per_cell_pools_each_cell_by_its_own_precision():
    """A measurement with one deviation per cell weighs each cell by it: equal deviations fit as one scalar
    does, and a cell at ``inf`` is ignored (its count may be anything)."""
    joint = joint_counts(5)
    pair = Measurement(("a", "b"), marginal(joint, ("a", "b")), 1.0)
    truth = marginal(joint, ("a",))
    scalar, _ = estimate(CELLS, [pair, Measurement(("a",), truth, 2.0)], 10_000.0, iterations=200)
    per_cell, _ = estimate(CELLS, [pair, Measurement(("a",), truth, np.full(3, 2.0))], 10_000.0, iterations=200)
    assert per_cell.project(("a",)) == pytest.approx(scalar.project(("a",)), rel=1e-9)
    assert per_cell.loss == pytest.approx(scalar.loss, rel=1e-9, abs=1e-9)
    # the a-marginal alone: a wrong count at an unmeasured cell moves nothing; at a measured one it does
    exact = Measurement(("a",), truth, 1.0)
    wrong = truth + np.array([0.0, 0.0, 3_000.0])
    ignored, _ = estimate(CELLS, [exact, Measurement(("a",), wrong, np.array([1.0, 1.0, np.inf]))], 10_000.0)
    assert ignored.project(("a",)) == pytest.approx(truth, abs=0.5)
    pooled, _ = estimate(CELLS, [exact, Measurement(("a",), wrong, np.array([1.0, 1.0, 1.0]))], 10_000.0)
    # half-way to the wrong count by precision (3,000 / 2), less what the fixed total takes back (1,500 / 3)
    assert pooled.project(("a",))[2] == pytest.approx(truth[2] + 1_000, abs=1.0)
