"""A graphical model over a junction tree, and Private-PGM estimation from noisy marginals.

The model is ``P(x) proportional to exp(sum over measured groups r of theta_r(x_r))``. Its
clique marginals come from one pass of sum-product belief propagation up and down the
junction tree (linear space, messages normalised). Estimation (McKenna, Sheldon and Miklau,
ICML 2019, Algorithm 1) finds the potentials whose marginals minimise

    L(mu) = 1/2 * sum over measurements i of |mu_{r_i} - y_i|^2 / sigma_i^2

by entropic mirror descent, ``theta <- theta - alpha * dL/dmu``, with an Armijo line search
on ``alpha``. Starting from the previous potentials (a warm start) makes each adaptive
round cheap. All of it is post-processing: only noisy measurements go in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .junction_tree import JunctionTree


@dataclass(frozen=True)
class Measurement:
    """A noisy marginal: the column group (global order), its noisy counts (shaped by the group's
    cells) and the noise's standard deviation."""

    group: tuple
    noisy: np.ndarray
    sigma: float


def _shape(cells: dict, clique, group) -> tuple:
    """Shape that broadcasts an array over ``group`` onto an array over ``clique``."""
    members = set(group)
    return tuple(cells[a] if a in members else 1 for a in clique)


def _axes_outside(clique, group) -> tuple:
    members = set(group)
    return tuple(i for i, a in enumerate(clique) if a not in members)


class GraphicalModel:
    """Potentials on column groups, calibrated over a junction tree to clique marginals (in records).

    Attributes:
        tree: the junction tree of the potentials' groups.
        potentials: group -> log-potential array (axes in the group's order).
        total: the number of records the marginals add up to.
        beliefs: clique index -> marginal counts over the clique (after :meth:`calibrate`).
    """

    def __init__(self, cells: dict, groups, total: float, potentials: dict | None = None):
        self.cells = dict(cells)
        groups = list(dict.fromkeys(tuple(g) for g in groups))
        self.tree = JunctionTree.build(self.cells, groups)
        self.total = float(total)
        self.potentials = {g: np.zeros([self.cells[a] for a in g]) for g in groups}
        for group, value in (potentials or {}).items():
            if group in self.potentials:
                self.potentials[group] = value
        self.home = {g: self.tree.home(g) for g in self.potentials}
        self._plan()
        self.beliefs = self.calibrate(self.potentials)

    def _plan(self) -> None:
        tree, cells = self.tree, self.cells
        self._clique_shape = [tuple(cells[a] for a in c) for c in tree.cliques]
        self._children = {i: [j for j in tree.order if tree.parent[j] == i] for i in range(len(tree.cliques))}
        self._up_axes, self._up_shape, self._parent_axes, self._parent_shape = {}, {}, {}, {}
        for i, parent in enumerate(tree.parent):
            if parent is None:
                continue
            sep = tree.separator[i]
            self._up_axes[i] = _axes_outside(tree.cliques[i], sep)
            self._up_shape[i] = _shape(cells, tree.cliques[i], sep)
            self._parent_axes[i] = _axes_outside(tree.cliques[parent], sep)
            self._parent_shape[i] = _shape(cells, tree.cliques[parent], sep)

    # --- inference ---------------------------------------------------------------------

    def calibrate(self, potentials: dict) -> list:
        """Clique marginals (in records) of the model with these potentials."""
        tree = self.tree
        theta = [np.zeros(shape) for shape in self._clique_shape]
        for group, value in potentials.items():
            i = self.home[group]
            theta[i] = theta[i] + value.reshape(_shape(self.cells, tree.cliques[i], group))
        partial = [np.exp(t - t.max()) for t in theta]
        up: dict = {}
        for i in reversed(tree.order):
            for child in self._children[i]:
                partial[i] = partial[i] * up[child].reshape(self._parent_shape[child])
            if tree.parent[i] is not None:
                message = partial[i].sum(axis=self._up_axes[i]) if self._up_axes[i] else partial[i].copy()
                up[i] = message / max(message.sum(), 1e-300)
        beliefs = [None] * len(theta)
        for i in tree.order:
            full = partial[i]
            beliefs[i] = full * (self.total / max(full.sum(), 1e-300))
            for child in self._children[i]:
                axes = self._parent_axes[child]
                summed = full.sum(axis=axes) if axes else full
                message = np.divide(summed, up[child], out=np.zeros_like(summed), where=up[child] > 0)
                message /= max(message.sum(), 1e-300)
                partial[child] = partial[child] * message.reshape(self._up_shape[child])
        return beliefs

    def project(self, group, beliefs: list | None = None) -> np.ndarray:
        """The model's marginal counts over ``group`` (columns in global order), from any cliques."""
        beliefs = self.beliefs if beliefs is None else beliefs
        group = tuple(group)
        tree = self.tree
        home = tree.home(group)
        if home is not None:
            axes = _axes_outside(tree.cliques[home], group)
            return beliefs[home].sum(axis=axes) if axes else beliefs[home]
        # the smallest set of cliques joined on the tree that covers the group
        homes = []
        for a in group:
            homes.append(min((i for i, c in enumerate(tree.cliques) if a in c),
                             key=lambda i: (-len(set(tree.cliques[i]) & set(group)), i)))
        nodes = {homes[0]}
        for other in homes[1:]:
            nodes.update(tree.path(homes[0], other))
        letters: dict = {}
        operands: list = []
        for i in nodes:
            clique = tree.cliques[i]
            operands += [beliefs[i] / self.total, [letters.setdefault(a, len(letters)) for a in clique]]
            parent = tree.parent[i]
            if parent is not None and parent in nodes and tree.separator[i]:
                sep = tree.separator[i]
                axes = _axes_outside(clique, sep)
                marginal = (beliefs[i].sum(axis=axes) if axes else beliefs[i]) / self.total
                inverse = np.divide(1.0, marginal, out=np.zeros_like(marginal), where=marginal > 0)
                operands += [inverse, [letters[a] for a in sep]]
        out = np.einsum(*operands, [letters[a] for a in group], optimize="greedy")
        return out * self.total


    def project_many(self, groups) -> dict:
        """:meth:`project` for many groups at once (group -> counts).

        Groups inside one clique are sums of its belief. For the others, one column ``a`` of
        the group is carried down the tree: ``P(a, C)`` for a clique ``C`` without ``a`` is
        ``P(a, S) * P(C) / P(S)`` for its separator ``S`` towards ``a``'s clique, so one pass
        per carried column gives its joint with every clique on the way.
        """
        out, carried = {}, {}
        for group in groups:
            group = tuple(group)
            if self.tree.home(group) is not None:
                out[group] = self.project(group)
            elif len(group) == 2:
                carried.setdefault(group[0], []).append(group)
            else:
                out[group] = self.project(group)
        for column, pairs in carried.items():
            joints = self._carry(column, [p[1] for p in pairs])
            for pair in pairs:
                out[pair] = joints[pair[1]]
        return out

    def _carry(self, column: str, targets) -> dict:
        """``P(column, b)`` (counts) for every ``b`` in ``targets``, by carrying ``column`` along the tree."""
        tree, beliefs = self.tree, self.beliefs
        root = tree.home((column,))
        neighbours: dict = {i: [] for i in range(len(tree.cliques))}
        for i, parent in enumerate(tree.parent):
            if parent is not None:
                neighbours[i].append(parent)
                neighbours[parent].append(i)
        reach: dict = {root: None}
        queue = [root]
        while queue:
            node = queue.pop(0)
            for other in neighbours[node]:
                if other not in reach:
                    reach[other] = node
                    queue.append(other)
        wanted = {}
        for b in targets:
            wanted[b] = min((i for i, c in enumerate(tree.cliques) if b in c), key=lambda i: self._depth(reach, i))
        needed = set()
        for home in wanted.values():
            node = home
            while node is not None and node not in needed:
                needed.add(node)
                node = reach[node]
        joint: dict = {}
        for node in [n for n in reach if n in needed]:  # breadth-first from the root
            clique = tree.cliques[node]
            if column in clique:
                continue
            source = reach[node]
            sep = tuple(a for a in clique if a in tree.cliques[source])
            source_clique = tree.cliques[source]
            if column in source_clique:
                keep = (column,) + sep
                axes = _axes_outside(source_clique, keep)
                summed = beliefs[source].sum(axis=axes) if axes else beliefs[source]
                order = [a for a in source_clique if a in keep]
                summed = np.moveaxis(summed, order.index(column), 0)
            else:
                axes = tuple(1 + i for i in _axes_outside(source_clique, sep))
                summed = joint[source].sum(axis=axes) if axes else joint[source]
            sep_axes = _axes_outside(clique, sep)
            sep_marginal = beliefs[node].sum(axis=sep_axes) if sep_axes else beliefs[node]
            ratio = np.divide(summed, sep_marginal[None], out=np.zeros_like(summed), where=sep_marginal[None] > 0)
            joint[node] = ratio.reshape((self.cells[column],) + _shape(self.cells, clique, sep)) * beliefs[node][None]
        out = {}
        for b, home in wanted.items():
            clique = tree.cliques[home]
            if column in clique:
                pair = tuple(sorted((column, b), key=clique.index))
                value = self.project(pair)
                out[b] = value if pair[0] == column else value.T
            else:
                axes = tuple(1 + i for i in _axes_outside(clique, (b,)))
                out[b] = joint[home].sum(axis=axes)
        return out

    def _depth(self, reach: dict, node: int) -> int:
        depth = 0
        while reach[node] is not None:
            node = reach[node]
            depth += 1
        return depth


def _evaluate(model: GraphicalModel, beliefs, measurements, plan) -> tuple[float, dict, dict]:
    """The loss, its gradient with respect to each group's marginal, and those marginals."""
    loss = 0.0
    gradient = {g: np.zeros_like(v) for g, v in model.potentials.items()}
    marginals: dict = {}
    for m, (home, axes) in zip(measurements, plan):
        if m.group not in marginals:
            marginals[m.group] = beliefs[home].sum(axis=axes) if axes else beliefs[home]
        diff = marginals[m.group] - m.noisy
        loss += 0.5 * float(np.vdot(diff, diff)) / m.sigma**2
        gradient[m.group] += diff / m.sigma**2
    return loss, gradient, marginals


def estimate(cells: dict, measurements: list, total: float, *, iterations: int = 200,
             warm: GraphicalModel | None = None, step: float | None = None) -> tuple[GraphicalModel, float]:
    """Fit the potentials to the measurements; returns the model and the step size reached.

    Accelerated mirror descent: a gradient step on the potentials from an extrapolated
    point (Nesterov momentum ``(k - 1) / (k + 2)``), an Armijo test on the step size, and an
    adaptive restart of the momentum whenever the loss goes up (O'Donoghue and Candes 2015).
    ``warm``: a previous model whose potentials start the descent (its groups keep their values).
    """
    groups = [m.group for m in measurements]
    model = GraphicalModel(cells, groups, total, warm.potentials if warm is not None else None)
    plan = []
    for m in measurements:
        home = model.home[m.group]
        plan.append((home, _axes_outside(model.tree.cliques[home], m.group)))
    if step is None:
        precision: dict = {}
        for m in measurements:
            precision[m.group] = precision.get(m.group, 0.0) + 1.0 / m.sigma**2
        step = 1.0 / (max(precision.values()) * max(total, 1.0))
    current = model.potentials
    current_beliefs = model.beliefs
    current_loss, _, _ = _evaluate(model, current_beliefs, measurements, plan)
    point, (loss, gradient, marginals) = current, _evaluate(model, current_beliefs, measurements, plan)
    momentum = 0
    for _ in range(iterations):
        trial = {g: point[g] - step * gradient[g] for g in point}
        trial_beliefs = model.calibrate(trial)
        trial_loss, trial_gradient, trial_marginals = _evaluate(model, trial_beliefs, measurements, plan)
        decrease = sum(float(np.vdot(gradient[g], marginals[g] - trial_marginals[g])) for g in gradient)
        if loss - trial_loss < 0.5 * step * decrease:
            step *= 0.5
            continue
        step *= 1.02
        if trial_loss > current_loss:  # restart: drop the momentum, step again from the last iterate
            momentum = 0
            point = current
            loss, gradient, marginals = _evaluate(model, current_beliefs, measurements, plan)
            continue
        momentum += 1
        beta = (momentum - 1) / (momentum + 2)
        previous = current
        current, current_beliefs, current_loss = trial, trial_beliefs, trial_loss
        if beta > 0:
            point = {g: current[g] + beta * (current[g] - previous[g]) for g in current}
            loss, gradient, marginals = _evaluate(model, model.calibrate(point), measurements, plan)
        else:
            point, loss, gradient, marginals = current, trial_loss, trial_gradient, trial_marginals
    model.potentials = current
    model.beliefs = current_beliefs
    model.loss = current_loss
    return model, step
