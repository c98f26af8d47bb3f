"""Estimation's inner loop: one propagation per iteration, a loss that never rises, and the reference
code's numbers to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from dpsynth_core.pgm import GraphicalModel, Measurement, estimate
from dpsynth_core.pgm.descent import Descent
from tests.core.pgm.pgm_common import CELLS, joint_counts, marginal


def test_descent_propagates_once_per_iteration_and_never_raises_the_loss(monkeypatch):
    joint = joint_counts(3)
    rng = np.random.default_rng(4)
    groups = [("a",), ("b",), ("a", "b"), ("b", "c"), ("c", "d")]
    measurements = [
        Measurement(g, marginal(joint, g) + rng.normal(0, 20.0, marginal(joint, g).shape), 20.0) for g in groups
    ]
    losses, calls = [], [0]
    calibrate, propagate = GraphicalModel.calibrate, Descent.propagate

    def counted(self, potentials):
        calls[0] += 1
        return calibrate(self, potentials)

    def counted_descent(self):
        calls[0] += 1
        return propagate(self)

    monkeypatch.setattr(GraphicalModel, "calibrate", counted)
    monkeypatch.setattr(Descent, "propagate", counted_descent)
    model = None
    for iterations in (0, 5, 20, 60, 400):
        calls[0] = 0
        model, _ = estimate(CELLS, measurements, 10_000.0, iterations=iterations)
        assert calls[0] == iterations + 1  # the start, then one belief propagation per iteration
        losses.append(model.loss)
    assert all(b <= a + 1e-9 for a, b in zip(losses, losses[1:]))
    # converged: the gradient of the loss vanishes, so a longer run changes nothing
    longer, _ = estimate(CELLS, measurements, 10_000.0, iterations=300, warm=model)
    assert longer.loss == pytest.approx(model.loss, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("merged", [False, True], ids=["cells", "and merged cells"])
def test_descent_repeats_calibrate_and_loss_bit_for_bit(merged):
    # the estimation's fast loop must give the very numbers of the reference code: the descent
    # keeps or rejects steps by comparing losses, so a last-bit difference would change releases;
    # a measurement over merged cells (pgm.cell_maps) adds its own terms, in both alike
    from dpsynth_core.pgm.estimation import _Loss

    cells = {"a": 3, "b": 4, "c": 2, "d": 5, "e": 3}
    rng = np.random.default_rng(11)
    groups = [("a", "b", "c"), ("a", "b"), ("b", "c"), ("a",), ("c", "d"), ("d", "e"), ("e",), ("b", "e")]
    measurements = [Measurement(g, rng.gamma(2.0, 50.0, [cells[x] for x in g]), 3.0) for g in groups]
    if merged:
        maps = (np.array([0, 1, 1, 1]), None)
        measurements.append(Measurement(("b", "e"), rng.gamma(2.0, 100.0, (2, 3)), 2.0, maps))
    support = {"d": np.array([True, True, False, True, False])}  # zero cells: messages with zeros
    model = GraphicalModel(cells, groups, 1000.0, support=support)
    objective = _Loss(measurements)
    descent = Descent(model, objective)
    assert descent.start(model.potentials) == objective(model, model.beliefs)[0]
    for k in range(6):
        trial = {g: rng.normal(0, 1, [cells[x] for x in g]) for g in groups}
        for g, (a, b) in zip(descent.groups, descent.bounds, strict=True):
            descent.trial[a:b] = trial[g].ravel()
        beliefs = descent.propagate()
        loss = descent.loss()
        reference = model.calibrate(trial)
        expected_loss, expected_gradient, _ = objective(model, reference)
        assert all(x.tobytes() == y.tobytes() for x, y in zip(beliefs, reference, strict=True))
        assert loss == expected_loss
        flat = np.concatenate([expected_gradient[g].ravel() for g in descent.groups])
        assert descent.trial_gradient.tobytes() == flat.tobytes()
        if k % 2:
            descent.accept()  # the belief sets alternate
