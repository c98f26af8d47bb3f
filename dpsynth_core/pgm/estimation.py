"""Private-PGM estimation: the potentials of a :class:`~.model.GraphicalModel` from noisy marginals.

Estimation (McKenna, Sheldon and Miklau, ICML 2019, Algorithm 1) finds the potentials whose
marginals minimise

    L(mu) = 1/2 * sum over measurements i of |mu_{r_i} - y_i|^2 / sigma_i^2

by entropic mirror descent, ``theta <- theta - alpha * dL/dmu``, accelerated, with the step
``alpha`` halved whenever the loss would go up. Starting from the previous potentials, moved
toward a new measurement by one proportional-fitting step (:func:`absorb`), makes each
adaptive round cheap. All of it is post-processing: only noisy measurements go in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cell_maps import merge_cells, spread_cells
from .descent import Descent
from .model import GraphicalModel


@dataclass(frozen=True)
class Measurement:
    """A noisy marginal: the column group (global order), its noisy counts (shaped by the group's
    cells) and the noise's standard deviation: one for every cell, or one per cell (an array of the counts'
    shape; ``inf`` where a cell is not measured, its count then ignored). With ``maps`` (per axis, each cell's
    merged cell, or None: :mod:`.cell_maps`) the counts are over the merged cells."""

    group: tuple
    noisy: np.ndarray
    sigma: float | np.ndarray
    maps: tuple | None = None


class _Loss:
    """``L(mu) = 1/2 sum_i |mu_{r_i} - y_i|^2 / sigma_i^2``, with the measurements of one group pooled:
    ``1/2 P_r |mu_r - b_r / P_r|^2 + c_r`` (``P_r = sum 1/sigma_i^2``, ``b_r = sum y_i / sigma_i^2``)."""

    def __init__(self, measurements):
        self.precision: dict = {}
        self.weighted: dict = {}
        self.merged: list = []  # measurements over merged cells: (group, maps, 1 / sigma**2, noisy), each a term
        self.constant = 0.0
        for m in measurements:
            w = 1.0 / np.asarray(m.sigma, dtype=float) ** 2
            noisy = np.where(w > 0, m.noisy, 0.0)  # a cell not measured (sigma inf) adds nothing
            if m.maps is not None:
                self.merged.append((m.group, m.maps, np.broadcast_to(w, noisy.shape), noisy))
                self.precision.setdefault(m.group, 0.0)
                self.weighted.setdefault(m.group, 0.0)
                continue
            self.precision[m.group] = self.precision.get(m.group, 0.0) + (float(w) if w.ndim == 0 else w)
            self.weighted[m.group] = self.weighted.get(m.group, 0.0) + w * noisy
            self.constant += 0.5 * float(np.sum(w * noisy * noisy))
        # as residuals from the pooled target b / p: no cancellation between large terms
        self.target = {
            g: (self.weighted[g] / p if np.any(np.asarray(p) > 0) else np.zeros(1)) for g, p in self.precision.items()
        }
        for group, p in self.precision.items():
            self.constant -= 0.5 * float(np.sum(p * self.target[group] * self.target[group]))
        self.groups = list(self.precision)

    def merged_terms(self, marginals: dict) -> tuple[float, dict]:
        """The measurements over merged cells: their loss ``1/2 sum w |Q mu - y|^2`` and its gradient on each group's
        marginal, ``Q^T w (Q mu - y)`` (``Q``: :func:`.cell_maps.merge_cells`)."""
        loss, gradient = 0.0, {}
        for group, maps, w, noisy in self.merged:
            residual = merge_cells(marginals[group], maps) - noisy
            g = w * residual
            loss += 0.5 * float(np.vdot(g, residual))
            g = spread_cells(g, maps)
            gradient[group] = gradient[group] + g if group in gradient else g
        return loss, gradient

    def __call__(self, model: GraphicalModel, beliefs) -> tuple[float, dict, dict]:
        """The loss, its gradient with respect to each group's marginal, and those marginals."""
        marginals = model.marginals(self.groups, beliefs)
        loss, gradient = self.constant, {}
        for group in self.groups:
            p, residual = self.precision[group], marginals[group] - self.target[group]
            gradient[group] = p * residual
            loss += 0.5 * float(np.vdot(gradient[group], residual))
        extra, more = self.merged_terms(marginals)
        for group, g in more.items():
            gradient[group] = gradient[group] + g
        return loss + extra, gradient, marginals


def absorb(model: GraphicalModel, measurement: Measurement, share: float, *, floor: float = 1.0) -> dict:
    """Potentials that move ``model`` toward a new measurement of group ``r``: a warm start for :func:`estimate`.

    ``theta_r += share * log(y_r / mu_r)``, with ``mu_r`` the model's marginal, ``y_r`` the noisy
    counts raised to at least ``floor`` records and rescaled to the model's total. With
    ``share = 1`` this is one step of iterative proportional fitting (the joint times a function
    of ``x_r``): the new model's marginal on ``r`` is exactly ``y_r``. ``share`` below 1 moves it
    part of the way, geometrically: the new measurement's share of the precision of every
    measurement of ``r`` (``1 / sigma**2`` over their sum) pools it with the earlier ones.
    Post-processing only: the noisy counts are the only input.
    """
    fine = model.project(measurement.group)
    current = merge_cells(fine, measurement.maps)
    target = np.maximum(measurement.noisy, floor)
    target = target * (current.sum() / target.sum())
    potentials = dict(model.potentials)
    with np.errstate(divide="ignore", invalid="ignore"):  # a group the model gives no mass: outside the support
        ratio = spread_cells(np.where(current > 0, target / np.maximum(current, 1e-300), 1.0), measurement.maps)
        update = np.where(fine > 0, share * np.log(ratio), 0.0)
    group = measurement.group
    potentials[group] = potentials[group] + update if group in potentials else update
    return potentials


def estimate(
    cells: dict,
    measurements: list,
    total: float,
    *,
    iterations: int = 200,
    warm: GraphicalModel | dict | None = None,
    step: float | None = None,
    support: dict | None = None,
) -> tuple[GraphicalModel, float]:
    """Fit the potentials to the measurements; returns the model and the step size reached.

    Mirror descent with momentum, one belief propagation per iteration: from the last iterate
    ``theta_k``, the trial ``theta_k - step * grad L(theta_k) + beta_k * (theta_k - theta_{k-1})``
    (``beta_k = (k - 1) / (k + 2)``, Nesterov's schedule with the gradient taken at the iterate:
    the heavy-ball form) is kept only if the loss does not go up; otherwise the momentum restarts
    (O'Donoghue and Candes 2015) and, without momentum, the step is halved. So the loss never
    rises and the scheme falls back to plain mirror descent with backtracking. Evaluating the
    gradient at the iterate instead of at an extrapolated point halves the propagations per
    iteration; on adult it reaches a lower loss in 75 iterations than the extrapolated form in
    150 (``docs/benchmarks/history.md``). ``warm``: a previous model (or potentials, such as
    :func:`absorb` gives) that starts the descent (its groups keep their values).
    ``support``: the cells each column may use (:class:`GraphicalModel`); None: a warm model's.
    """
    groups = [m.group for m in measurements]
    start = warm.potentials if isinstance(warm, GraphicalModel) else warm
    if support is None and isinstance(warm, GraphicalModel):
        support = warm.support
    elif isinstance(warm, GraphicalModel):
        start = reseat(start, warm.support, support)
    model = GraphicalModel(cells, groups, total, start, support, calibrated=False)
    objective = _Loss(measurements)
    if step is None:
        largest = max(float(np.max(p)) for p in objective.precision.values())  # else the merged measurements'
        largest = largest if largest > 0 else max(float(np.max(w)) for _, _, w, _ in objective.merged)
        step = 1.0 / (largest * max(total, 1.0))
    descent = Descent(model, objective)
    loss = descent.start(model.potentials)
    momentum, moved = 0, False
    for _ in range(iterations):
        beta = (momentum - 1) / (momentum + 2) if momentum else 0.0
        descent.step(step, beta)
        descent.propagate()
        trial_loss = descent.loss()
        if not trial_loss <= loss:  # worse (or not a number): drop the momentum; without momentum, halve the step
            if beta > 0:
                momentum = 0
            else:
                step *= 0.5
            continue
        step *= 1.02
        momentum += 1
        descent.accept()
        moved = True
        loss = trial_loss
    if moved:
        model.potentials = descent.potentials()
    model.beliefs = descent.beliefs()
    model.loss = loss
    return model, step


def reseat(potentials: dict, before: dict, after: dict) -> dict:
    """Warm-start potentials for a support that grew from ``before`` to ``after`` (column -> boolean cells).

    A cell outside a model's support has probability 0 whatever its potentials, and the descent keeps
    raising them toward the cell's noisy counts without ever meeting a model count there, so they drift
    far above the rest; let back in, such a cell would take most of the records and the descent cannot
    bring it down in its few steps. Along each column whose support grew, the cells let back in start
    at the smallest potential of the cells allowed before (entry by entry over the other columns of
    the group). Post-processing: only potentials and supports go in.
    """
    out = dict(potentials)
    for a, keep in before.items():
        if isinstance(a, tuple):  # a group's public structure: the same in every fit
            continue
        now = after.get(a) if after is not None else None
        new = ~keep if now is None else (np.asarray(now, dtype=bool) & ~keep)
        if not new.any() or not keep.any():
            continue
        for group, theta in out.items():
            if a not in group:
                continue
            axis = group.index(a)
            theta = np.array(theta, dtype=float)
            low = np.min(np.compress(keep, theta, axis=axis), axis=axis, keepdims=True)
            index = [slice(None)] * theta.ndim
            index[axis] = new
            theta[tuple(index)] = np.broadcast_to(low, theta[tuple(index)].shape)
            out[group] = theta
    return out
