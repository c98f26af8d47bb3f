"""Estimation's inner loop over preallocated arrays: the same arithmetic as
:meth:`.model.GraphicalModel.calibrate` and :class:`.estimation._Loss`, operation for operation
(so the same bits), without their per-iteration Python work.

The potentials of every group live in one flat vector (a view per group), so a trial point, the
loss's residuals and its gradient are a few operations on whole vectors instead of a few per group
(elementwise, each number meets the same operations in the same order). The clique potentials, the
messages, the beliefs and the marginals are written into arrays allocated once per estimation, by
instruction lists compiled from the model's plans: no dictionaries, broadcasts or allocations per
iteration. Two sets of beliefs alternate: the current iterate's and the trial's.
"""

from __future__ import annotations

import numpy as np

from .arrays import exp_into, summer

_add_reduce = np.add.reduce
_max_reduce = np.maximum.reduce


class Descent:
    """The buffers and compiled plans of one estimation over ``model`` with loss ``objective``."""

    def __init__(self, model, objective):
        self.model = model
        groups = list(model.potentials)
        if groups != list(objective.groups):
            raise ValueError("the loss's groups must be the model's, in the same order")
        cells, tree = model.cells, model.tree
        self.groups = groups
        self.shapes = [tuple(cells[a] for a in g) for g in groups]
        sizes = [int(np.prod(s, dtype=np.int64)) for s in self.shapes]
        self.bounds = []
        start = 0
        for size in sizes:
            self.bounds.append((start, start + size))
            start += size
        n = start
        self.constant = objective.constant
        self.precision = [objective.precision[g] for g in groups]
        self.precisions = np.concatenate(
            [
                np.broadcast_to(np.asarray(p, dtype=float), shape).ravel()
                for shape, p in zip(self.shapes, self.precision, strict=True)
            ]
        )
        targets = [np.asarray(objective.target[g], dtype=float) for g in groups]  # a group measured merged only: 0
        self.target = np.concatenate([np.broadcast_to(t, s).ravel() for t, s in zip(targets, self.shapes)])
        self.objective = objective  # its measurements over merged cells, added to the flat loss (:meth:`loss`)
        # the parameter vectors: the previous and current iterates and the trial
        self.previous, self.current, self.trial, self.scratch = (np.empty(n) for _ in range(4))
        self.marginal, self.residual = np.empty(n), np.empty(n)
        self.marginal_views = self._views(self.marginal)  # for the merged measurements' terms (:meth:`loss`)
        self.bounds_of = dict(zip(groups, self.bounds))
        self.gradient, self.trial_gradient = np.empty(n), np.empty(n)
        k = len(tree.cliques)
        shapes = model._clique_shape
        self.sets = [[np.empty(shapes[i]) for i in range(k)] for _ in range(2)]
        self.single = [np.empty(shapes[i], dtype=np.float32) for i in range(k)]  # exp_into's buffers
        self.order = list(tree.order)
        self.reverse = list(reversed(tree.order))
        self.children = [model._children[i] for i in range(k)]
        self.parent = list(tree.parent)
        # messages: up (child -> parent) and down (parent -> child), one array per edge
        self.up, self.up_view, self.down, self.down_view, self.positive, self.negative = {}, {}, {}, {}, {}, {}
        for i, parent in enumerate(tree.parent):
            if parent is None:
                continue
            sep_shape = tuple(cells[a] for a in tree.separator[i])
            self.up[i], self.down[i] = np.empty(sep_shape), np.empty(sep_shape)
            self.up_view[i] = self.up[i].reshape(model._parent_shape[i])
            self.down_view[i] = self.down[i].reshape(model._up_shape[i])
            self.positive[i] = np.empty(sep_shape, dtype=bool)
            self.negative[i] = np.empty(sep_shape, dtype=bool)
        self.up_axes = model._up_axes
        self.up_sum = {i: summer(shapes[i], axes) for i, axes in self.up_axes.items() if axes}
        # the down pass: (child, axes, shared sum or None, whether this child computes it), per clique
        self.down_plan = []
        for i in range(k):
            count: dict = {}
            for child in self.children[i]:
                count[model._parent_axes[child]] = count.get(model._parent_axes[child], 0) + 1
            steps, shared = [], {}
            for child in self.children[i]:
                axes = model._parent_axes[child]
                if count[axes] > 1 and axes:
                    first = axes not in shared
                    if first:
                        shared[axes] = np.empty(self.down[child].shape)
                    steps.append((child, axes, shared[axes], first, summer(shapes[i], axes)))
                else:
                    steps.append((child, axes, None, True, summer(shapes[i], axes) if axes else (None, ())))
            self.down_plan.append(steps)
        self.log_support = model._log_support
        self.intermediate: dict = {}  # key -> array, shared by both sets (used within one propagation)
        self.potential_code = [self._compile_potentials(s) for s in range(2)]
        self.marginal_code = [self._compile_marginals(s) for s in range(2)]

    def _buffer(self, key, shape) -> np.ndarray:
        if key not in self.intermediate:
            self.intermediate[key] = np.empty(shape)
        return self.intermediate[key]

    def _compile_potentials(self, s: int) -> tuple:
        """:meth:`.model.GraphicalModel.clique_potentials` of the trial vector into belief set ``s``."""
        acc = self._views(self.trial)
        owned: set = set()
        filled = [False] * len(self.sets[s])
        code = []
        for key, source, kept, shape in self.model._adjoint_plan():
            value = acc.pop(key).reshape(kept)
            if isinstance(source, int):
                out = self.sets[s][source]
                code.append((np.add, (out, value, out)) if filled[source] else (np.copyto, (out, value)))
                filled[source] = True
            elif source in owned:
                code.append((np.add, (acc[source], value, acc[source])))
            else:
                out = self._buffer(("potential", source), shape)
                code.append((np.add, (value, acc[source], out)) if source in acc else (np.copyto, (out, value)))
                acc[source] = out
                owned.add(source)
        return code, filled

    def _compile_marginals(self, s: int) -> list:
        """:meth:`.model.GraphicalModel.marginals` of belief set ``s`` into the flat marginal vector."""
        views = self._views(self.marginal)
        out: dict = {}
        code = []
        for key, source, axes in self.model.marginal_plan(self.groups):
            array = self.sets[s][source] if isinstance(source, int) else out[source]
            if key in views:
                target = views[key]
            else:
                target = self._buffer(("marginal", key), tuple(n for i, n in enumerate(array.shape) if i not in axes))
            code.append((array, axes, target, summer(array.shape, axes) if axes else (None, ())))
            out[key] = target
        return code

    def start(self, potentials: dict) -> float:
        """Start from these potentials (group -> array): they become the current iterate, with their
        beliefs and gradient; returns their loss."""
        for g, (a, b) in zip(self.groups, self.bounds, strict=True):
            self.trial[a:b] = np.asarray(potentials[g]).ravel()
        self.propagate()
        loss = self.loss()
        self.accept()
        np.copyto(self.previous, self.current)
        return loss

    def step(self, step: float, beta: float) -> None:
        """The trial ``current - step * gradient + beta * (current - previous)`` (the middle term only if beta > 0)."""
        trial = self.trial
        np.multiply(self.gradient, step, out=trial)
        np.subtract(self.current, trial, out=trial)
        if beta > 0:
            scratch = self.scratch
            np.subtract(self.current, self.previous, out=scratch)
            np.multiply(scratch, beta, out=scratch)
            np.add(trial, scratch, out=trial)

    def accept(self) -> None:
        """The trial becomes the current iterate (its beliefs and gradient too)."""
        np.copyto(self.previous, self.current)  # copies: the compiled code reads the trial vector
        np.copyto(self.current, self.trial)
        self.gradient, self.trial_gradient = self.trial_gradient, self.gradient
        self.sets.reverse()
        self.potential_code.reverse()
        self.marginal_code.reverse()

    def propagate(self) -> list:
        """The trial's clique marginals (records) into the trial belief set: :meth:`.model.GraphicalModel.calibrate`."""
        code, filled = self.potential_code[1]
        for function, arguments in code:
            function(*arguments)
        partial = self.sets[1]
        for i, theta in enumerate(partial):
            outside = self.log_support[i]
            if not filled[i]:
                if outside is None:
                    theta.fill(1.0)
                    continue
                theta.fill(0.0)
            if outside is not None:
                theta += outside
            theta -= _max_reduce(theta, None)
            exp_into(theta, self.single[i])
        up, up_view, down, down_view = self.up, self.up_view, self.down, self.down_view
        children, parent = self.children, self.parent
        for i in self.reverse:
            for child in children[i]:
                partial[i] *= up_view[child]
            if parent[i] is not None:
                axes, message = self.up_axes[i], up[i]
                if axes:
                    add, more = self.up_sum[i]
                    add(partial[i], *more, out=message)
                else:
                    np.copyto(message, partial[i])
                message /= max(float(_add_reduce(message, None)), 1e-300)
        total = self.model.total
        for i in self.order:
            full = partial[i]
            full *= total / max(float(_add_reduce(full, None)), 1e-300)
            for child, axes, shared, first, (add, more) in self.down_plan[i]:
                message = down[child]
                if shared is None:
                    summed = message
                    if axes:
                        add(full, *more, out=message)
                    else:
                        np.copyto(message, full)
                else:  # children with the same separator: one sum of the belief for all of them
                    summed = shared
                    if first:
                        add(full, *more, out=shared)
                positive, negative = self.positive[child], self.negative[child]
                np.greater(up[child], 0, out=positive)
                np.divide(summed, up[child], out=message, where=positive)
                np.logical_not(positive, out=negative)
                np.copyto(message, 0.0, where=negative)
                message /= max(float(_add_reduce(message, None)), 1e-300)
                partial[child] *= down_view[child]
        return partial

    def loss(self) -> float:
        """The trial's loss (:class:`.estimation._Loss`), and its gradient into ``trial_gradient``."""
        for array, axes, target, (add, more) in self.marginal_code[1]:
            if axes:
                add(array, *more, out=target)
            else:
                np.copyto(target, array)
        np.subtract(self.marginal, self.target, out=self.residual)
        np.multiply(self.precisions, self.residual, out=self.trial_gradient)
        loss = self.constant
        for a, b in self.bounds:
            loss += 0.5 * float(np.vdot(self.trial_gradient[a:b], self.residual[a:b]))
        if self.objective.merged:  # measurements over merged cells: their own terms, on the marginals' views
            extra, more = self.objective.merged_terms(self.marginal_views)
            for group, g in more.items():
                a, b = self.bounds_of[group]
                self.trial_gradient[a:b] += g.ravel()
            loss += extra
        return loss

    def potentials(self) -> dict:
        """The current iterate, group -> array (views of one vector)."""
        return self._views(self.current)

    def _views(self, flat: np.ndarray) -> dict:
        return {g: flat[a:b].reshape(shape) for g, (a, b), shape in zip(self.groups, self.bounds, self.shapes)}

    def beliefs(self) -> list:
        """The current iterate's beliefs (after at least one :meth:`accept`)."""
        return self.sets[0]
