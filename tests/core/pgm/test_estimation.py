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
