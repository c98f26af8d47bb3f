"""A graphical model over a junction tree: ``P(x) proportional to exp(sum over measured groups r of
theta_r(x_r))``. Its clique marginals come from one pass of sum-product belief propagation up and
down the junction tree (linear space, messages normalised); the marginals of any column group
follow. Fitting the potentials to noisy marginals is :mod:`.estimation`'s.

A model may carry each column's *support* (:mod:`.support`): outside it, probability exactly 0
(the potentials times 0/1 indicators), so cells the noise cannot tell from empty make no records.
"""

from __future__ import annotations

import math

import numpy as np

from .arrays import _sum, exp_into
from .junction_tree import JunctionTree

_PATHS: dict = {}  # einsum contraction paths of project(), by subscripts and shapes


def _shape(cells: dict, clique, group) -> tuple:
    """Shape that broadcasts an array over ``group`` onto an array over ``clique``."""
    members = set(group)
    return tuple(cells[a] if a in members else 1 for a in clique)


def _sum_plan(cells: dict, clique: int, columns: tuple, source, groups: list, fixed: tuple, plan: list) -> None:
    """Append to ``plan`` the steps ``(key, source, axes)`` that sum the array ``source`` (over
    ``columns``, inside clique ``clique``) down to each group (subsets of ``columns`` holding every
    column of ``fixed``). A step's key is its group, or ``(clique, columns)`` for an intermediate sum."""
    groups = list(groups)
    while groups:
        free = [c for c in columns if c not in fixed]
        best = max(free, key=lambda c: (sum(c not in g for g in groups), cells[c]), default=None)
        rest = [g for g in groups if best is not None and best not in g]
        if len(groups) == 1 or not rest:  # no column to sum out first: each group directly
            plan.extend((g, source, _axes_outside(columns, g)) for g in groups)
            return
        if len(rest) == 1:  # one group without ``best``: directly
            plan.append((rest[0], source, _axes_outside(columns, rest[0])))
        else:  # ``best`` summed out once for every group without it
            smaller = tuple(c for c in columns if c != best)
            key = smaller if smaller in rest else (clique, smaller)
            plan.append((key, source, (columns.index(best),)))
            _sum_plan(cells, clique, smaller, key, [g for g in rest if g != smaller], fixed, plan)
        groups = [g for g in groups if best in g]
        fixed = fixed + (best,)


def _group(key) -> tuple:
    """A support's key as a group: a column name alone, or a tuple of names."""
    return key if isinstance(key, tuple) else (key,)


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
        support: column -> boolean array over its cells (True: the cell may hold records);
            a column not named may use every cell. A key may also be a measured group of columns
            (a tuple), with a boolean array over the group's cells: a public structure, such as a
            survey block's (:mod:`dpsynth_core.synthesizers.marginals.blocks`).
    """

    def __init__(
        self,
        cells: dict,
        groups,
        total: float,
        potentials: dict | None = None,
        support: dict | None = None,
        *,
        calibrated: bool = True,
    ):
        self.cells = dict(cells)
        groups = list(dict.fromkeys(tuple(g) for g in groups))
        self.tree = JunctionTree.build(self.cells, groups)
        self.total = float(total)
        self.support = {
            a: np.asarray(v, dtype=bool)
            for a, v in (support or {}).items()
            if all(c in self.cells for c in _group(a)) and not np.all(v)
        }
        self.potentials = {g: np.zeros([self.cells[a] for a in g]) for g in groups}
        for group, value in (potentials or {}).items():
            if group in self.potentials:
                self.potentials[group] = value
        self.home = {g: self.tree.home(g) for g in self.potentials}
        self._plan()
        self.beliefs = self.calibrate(self.potentials) if calibrated else None  # None: the caller's to set

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
        self._marginal_plans: dict = {}
        self._adjoint = None
        self._reaches: dict = {}  # clique -> the tree searched from it (:meth:`_reach`)
        # each column's (or group's) support enters once, in the clique that holds it (log 0 = -inf outside)
        self._log_support: list = [None] * len(tree.cliques)
        for a, keep in self.support.items():
            group, i = _group(a), tree.home(_group(a))
            keep = np.transpose(keep, sorted(range(len(group)), key=lambda k: tree.cliques[i].index(group[k])))
            mask = np.where(keep, 0.0, -np.inf).reshape(_shape(cells, tree.cliques[i], group))
            self._log_support[i] = mask if self._log_support[i] is None else self._log_support[i] + mask

    def marginal_plan(self, groups) -> list:
        """How to sum the beliefs down to each group: ``(key, source, axes)`` steps, ``source`` a
        clique's index or the key of an earlier step (see :func:`_sum_plan`). Within a clique, a
        column is summed out first whenever that serves two groups or more (one pass over the
        large array, the rest from the smaller one)."""
        key = tuple(groups)
        if key not in self._marginal_plans:
            by_home: dict = {}
            for group in dict.fromkeys(groups):
                by_home.setdefault(self.tree.home(group), []).append(group)
            plan: list = []
            for i, members in by_home.items():
                _sum_plan(self.cells, i, self.tree.cliques[i], i, members, (), plan)
            self._marginal_plans[key] = plan
        return self._marginal_plans[key]

    def marginals(self, groups, beliefs: list | None = None) -> dict:
        """The marginal counts of every group inside one clique (group -> array), computed together."""
        beliefs = self.beliefs if beliefs is None else beliefs
        out: dict = {}
        for key, source, axes in self.marginal_plan(groups):
            array = beliefs[source] if isinstance(source, int) else out[source]
            out[key] = _sum(array, axes) if axes else array
        return {tuple(g): out[tuple(g)] for g in groups}

    # --- inference ---------------------------------------------------------------------

    def clique_potentials(self, potentials: dict) -> list:
        """Each clique's log-potential: the sum of its groups' potentials broadcast onto it (None if it
        has none). The adjoint of :meth:`marginals`: groups are added up along the same plan, the
        small ones into the intermediate arrays first, so each clique-sized array is added once
        per step of the plan rather than once per group."""
        acc: dict = dict(potentials)
        owned: set = set()
        out: list = [None] * len(self.tree.cliques)
        for key, source, kept, shape in self._adjoint_plan():
            value = acc.pop(key).reshape(kept)
            if isinstance(source, int):
                if out[source] is None:
                    out[source] = np.broadcast_to(value, shape).copy()
                else:
                    out[source] += value
            elif source in owned:
                acc[source] += value
            else:
                acc[source] = value + acc[source] if source in acc else np.broadcast_to(value, shape).copy()
                owned.add(source)
        return out

    def _adjoint_plan(self) -> list:
        """The marginal plan of the potentials' groups, reversed, with each step's shapes:
        ``(key, source, shape of the key's array broadcastable onto the source, source's shape)``."""
        if self._adjoint is None:

            def columns(key):
                if isinstance(key, int):
                    return self.tree.cliques[key]
                return key[1] if isinstance(key[0], int) else key

            self._adjoint = []
            for key, source, axes in reversed(self.marginal_plan(list(self.potentials))):
                shape = tuple(self.cells[a] for a in columns(source))
                kept = tuple(1 if i in axes else n for i, n in enumerate(shape))
                self._adjoint.append((key, source, kept, shape))
        return self._adjoint

    def calibrate(self, potentials: dict) -> list:
        """Clique marginals (in records) of the model with these potentials."""
        tree = self.tree
        partial = []
        for i, theta in enumerate(self.clique_potentials(potentials)):
            outside = self._log_support[i]
            if theta is None and outside is None:
                partial.append(np.ones(self._clique_shape[i]))
                continue
            theta = np.zeros(self._clique_shape[i]) if theta is None else theta
            if outside is not None:
                theta += outside
            theta -= theta.max()
            partial.append(exp_into(theta))
        up: dict = {}
        total = self.total
        for i in reversed(tree.order):
            for child in self._children[i]:
                partial[i] *= up[child].reshape(self._parent_shape[child])
            if tree.parent[i] is not None:
                axes = self._up_axes[i]
                message = np.asarray(_sum(partial[i], axes)) if axes else partial[i].copy()
                message /= max(float(message.sum()), 1e-300)
                up[i] = message
        beliefs = [None] * len(partial)
        for i in tree.order:
            full = partial[i]
            full *= total / max(float(full.sum()), 1e-300)
            beliefs[i] = full
            for child in self._children[i]:
                axes = self._parent_axes[child]
                summed = np.asarray(_sum(full, axes)) if axes else full.copy()
                positive = up[child] > 0
                message = np.divide(summed, up[child], out=summed, where=positive)
                message[~positive] = 0.0
                message /= max(float(message.sum()), 1e-300)
                partial[child] *= message.reshape(self._up_shape[child])
        return beliefs

    def project(self, group, beliefs: list | None = None) -> np.ndarray:
        """The model's marginal counts over ``group`` (columns in global order), from any cliques."""
        beliefs = self.beliefs if beliefs is None else beliefs
        group = tuple(group)
        tree = self.tree
        home = tree.home(group)
        if home is not None:
            axes = _axes_outside(tree.cliques[home], group)
            return _sum(beliefs[home], axes) if axes else beliefs[home]
        # the smallest set of cliques joined on the tree that covers the group
        homes = []
        for a in group:
            homes.append(
                min(
                    (i for i, c in enumerate(tree.cliques) if a in c),
                    key=lambda i: (-len(set(tree.cliques[i]) & set(group)), i),
                )
            )
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
                marginal = (_sum(beliefs[i], axes) if axes else beliefs[i]) / self.total
                inverse = np.divide(1.0, marginal, out=np.zeros_like(marginal), where=marginal > 0)
                operands += [inverse, [letters[a] for a in sep]]
        operands.append([letters[a] for a in group])
        key = tuple(x.shape if isinstance(x, np.ndarray) else tuple(x) for x in operands)
        if key not in _PATHS:  # greedy's contraction order depends only on the subscripts and shapes
            if len(_PATHS) > 4096:
                _PATHS.clear()
            _PATHS[key] = np.einsum_path(*operands, optimize="greedy")[0]
        out = np.einsum(*operands, optimize=_PATHS[key])
        return out * self.total

    def project_many(self, groups) -> dict:
        """:meth:`project` for many groups at once (group -> counts).

        Groups inside one clique are sums of its belief. For a pair ``(a, b)`` across cliques,
        the column with fewer cells, say ``a``, is carried along the tree from its clique:
        entering a clique ``C`` through separator ``S``, ``P(a, S)`` becomes ``P(a, S')`` for
        the separator ``S'`` of the next clique, and ``P(a, b)`` for ``b`` in ``C``, as
        ``sum over S of P(a, S) * P(S, X) / P(S)`` with ``P(S, X)`` a small marginal of
        ``C``'s belief. One pass per carried column serves every pair it is in.
        """
        out, carried, inside = {}, {}, []
        for group in groups:
            group = tuple(group)
            if self.tree.home(group) is not None:
                inside.append(group)
            elif len(group) == 2:
                a, b = group
                if self.cells[b] < self.cells[a]:
                    a, b = b, a
                carried.setdefault(a, []).append((b, group))
            else:
                out[group] = self.project(group)
        out.update(self.marginals(inside))
        sums: dict = {}  # (clique, columns) -> marginal of the clique's belief, shared by the passes
        for column, targets in carried.items():
            joints = self._carry(column, [b for b, _ in targets], sums)
            for b, group in targets:
                out[group] = joints[b] if group[0] == column else joints[b].T
        return out

    def _clique_sum(self, node: int, columns, sums: dict) -> np.ndarray:
        """Marginal counts of clique ``node``'s belief over ``columns`` (in the clique's order)."""
        key = (node, columns)
        if key not in sums:
            axes = _axes_outside(self.tree.cliques[node], columns)
            sums[key] = _sum(self.beliefs[node], axes) if axes else self.beliefs[node]
        return sums[key]

    def _carry(self, column: str, targets, sums: dict) -> dict:
        """``P(column, b)`` (counts, axes ``(column, b)``) for every ``b`` in ``targets``: no ``b``
        shares a clique with ``column``."""
        tree = self.tree
        reach, depth = self._reach(tree.home((column,)))
        wanted = {b: min(tree.holding(b), key=depth.__getitem__) for b in targets}
        needed: set = set()
        for home in wanted.values():
            node = home
            while node is not None and node not in needed:
                needed.add(node)
                node = reach[node]
        carried: dict = {}  # node -> (P(column, S) for S its separator towards the root, S)
        size = self.cells[column]

        def through(node, separator, keep):
            """P(column, keep) from the carried P(column, separator) of ``node``'s entry: a matrix product over
            the separator's columns not kept, batched over those kept (BLAS: 30% faster than einsum's loops).
            The matrix and the axes' orders are worked out once per (node, separator, keep), for every carried
            column that passes."""
            key = ("conditional", node, separator, keep)
            if key not in sums:
                sums[key] = self._conditional(node, separator, keep, sums)
            matrix, rows, batch, shape, out = sums[key]
            joint = carried[node][0].transpose(rows).reshape(batch, size, matrix.shape[1])
            return np.matmul(joint, matrix).reshape(shape[0] + (size,) + shape[1]).transpose(out)

        for node in sorted(needed, key=depth.__getitem__):  # breadth-first: each node after the one it enters from
            if column in tree.cliques[node]:  # the root holds the column itself
                continue
            source = reach[node]
            separator = tuple(a for a in tree.cliques[node] if a in tree.cliques[source])
            if column in tree.cliques[source]:
                keep = tuple(a for a in tree.cliques[source] if a == column or a in separator)
                joint = np.moveaxis(self._clique_sum(source, keep, sums), keep.index(column), 0)
            else:
                joint = through(source, carried[source][1], separator)
            carried[node] = (joint, separator)
        out = {}
        for b, home in wanted.items():
            separator = carried[home][1]
            if b in separator:
                joint = carried[home][0]
                axes = tuple(1 + i for i, a in enumerate(separator) if a != b)
                out[b] = _sum(joint, axes) if axes else joint
            else:
                out[b] = through(home, separator, (b,))
        return out

    def _reach(self, root: int) -> tuple[dict, dict]:
        """The tree searched breadth-first from clique ``root``: each clique's neighbour towards the root, and its
        depth (kept per root: the carried columns of one clique share it)."""
        if root not in self._reaches:
            tree = self.tree
            reach, depth, queue = {root: None}, {root: 0}, [root]
            for node in queue:
                parent = tree.parent[node]
                for other in self._children[node] + ([] if parent is None else [parent]):
                    if other not in reach:
                        reach[other], depth[other] = node, depth[node] + 1
                        queue.append(other)
            self._reaches[root] = (reach, depth)
        return self._reaches[root]

    def _conditional(self, node: int, separator: tuple, keep: tuple, sums: dict) -> tuple:
        """For :meth:`_carry`'s step through ``node`` (entered by ``separator``, leaving with ``keep``): the
        conditional ``P(S, X) / P(S)`` of ``node``'s belief as a batch of matrices (batch: the separator's
        columns kept; rows: those summed; columns: ``keep``'s others), the carried joint's axis order and
        batch size for it, the product's shape around the carried column, and the axis order out."""
        cells = self.cells
        batch = tuple(a for a in separator if a in keep)
        summed = tuple(a for a in separator if a not in keep)
        free = tuple(a for a in keep if a not in separator)
        order = tuple(a for a in self.tree.cliques[node] if a in separator or a in keep)
        entry = self._clique_sum(node, separator, sums)
        inverse = np.divide(1.0, entry, out=np.zeros_like(entry), where=entry > 0)
        conditional = self._clique_sum(node, order, sums) * inverse.reshape(_shape(cells, order, separator))
        arranged = conditional.transpose([order.index(a) for a in batch + summed + free])
        matrix = np.ascontiguousarray(arranged).reshape(
            math.prod(cells[a] for a in batch), math.prod(cells[a] for a in summed), -1
        )
        rows = [1 + separator.index(a) for a in batch] + [0] + [1 + separator.index(a) for a in summed]
        axes = batch + (None,) + free  # None: the carried column
        out = [axes.index(None)] + [axes.index(a) for a in keep]
        shape = (tuple(cells[a] for a in batch), tuple(cells[a] for a in free))
        return matrix, rows, matrix.shape[0], shape, out
