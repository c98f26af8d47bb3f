"""Junction trees: triangulate the graph of the measured column groups and join its cliques.

Columns are named; every clique is a tuple of names in the columns' global order, so a
clique's array axes and any sub-group's axes line up without transposition. Triangulation
eliminates, at each step, the column whose elimination clique has the fewest cells
(greedy); the maximal elimination cliques joined by a maximum-weight spanning tree (weight:
shared columns) satisfy the running-intersection property.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache


class _Sizes:
    """Cells of any set of columns given as a bit mask, by tables over 8-bit chunks (exact integers)."""

    def __init__(self, cells: list):
        self.tables = []
        for start in range(0, len(cells), 8):
            chunk = cells[start : start + 8]
            table = [1] * (1 << len(chunk))
            for mask in range(1, 1 << len(chunk)):
                low = mask & -mask
                table[mask] = table[mask ^ low] * chunk[low.bit_length() - 1]
            self.tables.append(table)

    def __call__(self, mask: int) -> int:
        size = 1
        for table in self.tables:
            size *= table[mask & 0xFF]
            mask >>= 8
        return size


def _elimination_cliques(cells: dict, cliques) -> list[tuple]:
    names = list(cells)
    return [
        tuple(name for i, name in enumerate(names) if clique >> i & 1) for clique in _elimination_masks(cells, cliques)
    ]


def _elimination_masks(cells: dict, cliques) -> list[int]:
    """The maximal cliques of a greedy (least new cells first) elimination, as bit masks over ``cells``."""
    names = list(cells)
    index = {name: i for i, name in enumerate(names)}
    neighbours = [1 << i for i in range(len(names))]  # bit masks, each column its own neighbour
    for clique in cliques:
        mask = 0
        for a in clique:
            mask |= 1 << index[a]
        for a in clique:
            neighbours[index[a]] |= mask
    size = _sizes(tuple(cells.values()))
    remaining = (1 << len(names)) - 1
    left = list(range(len(names)))
    cost = [size(mask) for mask in neighbours]
    found: list[int] = []
    eliminated: list[int] = []
    while left:
        best = min(left, key=cost.__getitem__)  # ties: the first column
        group = neighbours[best] & remaining
        remaining &= ~(1 << best)
        left.remove(best)
        found.append(group)
        eliminated.append(best)
        touched = group & remaining
        while touched:  # only the eliminated column's neighbours change
            low = touched & -touched
            u = low.bit_length() - 1
            neighbours[u] |= group
            cost[u] = size(neighbours[u] & remaining)
            touched ^= low
    # The clique of the column eliminated at step j lies inside another one exactly when some
    # column eliminated earlier had, as its other neighbours, that very clique; the first of those
    # to go is then column j (maximal cliques of a perfect elimination order: Blair and Peyton 1993).
    step = {v: j for j, v in enumerate(eliminated)}
    inside = [False] * len(found)
    for j, clique in enumerate(found):
        others = clique & ~(1 << eliminated[j])
        first, bits = None, others
        while bits:
            low = bits & -bits
            v = low.bit_length() - 1
            if first is None or step[v] < step[first]:
                first = v
            bits ^= low
        if first is not None and found[step[first]] == others:
            inside[step[first]] = True
    return [clique for j, clique in enumerate(found) if not inside[j]]


@lru_cache(maxsize=8)
def _sizes(cells: tuple) -> _Sizes:
    return _Sizes(list(cells))


def model_cells(cells: dict, cliques) -> int:
    """Total cells of the junction tree's cliques for these column groups (the model's size)."""
    size = _sizes(tuple(cells.values()))
    return sum(size(mask) for mask in _elimination_masks(cells, cliques))


def model_cells_with(cells: dict, groups, candidates) -> dict:
    """``model_cells(cells, groups + [c])`` for every candidate group ``c``, exactly, faster.

    The greedy elimination treats the connected components of the groups' graph independently
    (a column's cost depends only on its own component, and the first column of the global order
    wins ties in both), so only the components a candidate joins are eliminated again.
    """
    groups = [tuple(g) for g in groups] + [(name,) for name in cells]
    parent = {name: name for name in cells}

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for group in groups:
        for a in group[1:]:
            parent[find(a)] = find(group[0])
    members: dict = {}
    for name in cells:
        members.setdefault(find(name), []).append(name)
    inside: dict = {}
    for group in groups:
        inside.setdefault(find(group[0]), []).append(group)

    def eliminate(roots, extra=()):
        columns = {a for r in roots for a in members[r]}
        sub = {a: cells[a] for a in cells if a in columns}  # the global order, so the same ties
        return model_cells(sub, [g for r in roots for g in inside[r]] + list(extra))

    alone = {root: eliminate([root]) for root in members}
    total = sum(alone.values())
    out = {}
    for candidate in candidates:
        roots = list(dict.fromkeys(find(a) for a in candidate))
        out[tuple(candidate)] = total - sum(alone[r] for r in roots) + eliminate(roots, [tuple(candidate)])
    return out


@dataclass
class JunctionTree:
    """Maximal cliques, a rooted spanning tree over them, and each clique's separator with its parent.

    Attributes:
        cells: column -> number of cells, in the global column order.
        cliques: maximal cliques (tuples of columns in global order).
        order: clique indices in breadth-first order from the root (``order[0]``).
        parent: clique index -> parent index (None for roots; a forest is joined by empty separators).
        separator: clique index -> columns shared with its parent (global order).
    """

    cells: dict
    cliques: list
    order: list
    parent: list
    separator: list

    @classmethod
    def build(cls, cells: dict, groups) -> JunctionTree:
        groups = [tuple(g) for g in groups] + [(name,) for name in cells]
        cliques = _elimination_cliques(cells, groups)
        cliques.sort(key=lambda c: -math.prod(cells[a] for a in c))
        k = len(cliques)
        # Prim's maximum spanning tree on shared-column counts (ties: the larger separator first).
        parent: list = [None] * k
        in_tree = [False] * k
        in_tree[0] = True
        order = [0]
        best = [(len(set(cliques[0]) & set(c)), 0) for c in cliques]
        for _ in range(k - 1):
            candidates = [(best[j][0], -j) for j in range(k) if not in_tree[j]]
            _, negative = max(candidates)
            j = -negative
            in_tree[j] = True
            parent[j] = best[j][1]
            order.append(j)
            for m in range(k):
                if not in_tree[m]:
                    shared = len(set(cliques[j]) & set(cliques[m]))
                    if shared > best[m][0]:
                        best[m] = (shared, j)
        # breadth-first order from the root so that parents always come first
        children = {i: [j for j in range(k) if parent[j] == i] for i in range(k)}
        bfs, queue = [], [0]
        while queue:
            node = queue.pop(0)
            bfs.append(node)
            queue.extend(children[node])
        separator = [
            () if parent[i] is None else tuple(a for a in cliques[i] if a in cliques[parent[i]]) for i in range(k)
        ]
        return cls(cells=dict(cells), cliques=cliques, order=bfs, parent=parent, separator=separator)

    def size(self) -> int:
        return sum(math.prod(self.cells[a] for a in c) for c in self.cliques)

    def home(self, group) -> int | None:
        """The smallest clique containing every column of ``group``, or None."""
        group = set(group)
        best = None
        for i, clique in enumerate(self.cliques):
            if group <= set(clique) and (best is None or len(clique) < len(self.cliques[best])):
                best = i
        return best

    def path(self, a: int, b: int) -> list:
        """Clique indices on the tree path from ``a`` to ``b``."""
        up_a, node = [a], a
        while self.parent[node] is not None:
            node = self.parent[node]
            up_a.append(node)
        up_b, node = [b], b
        while node not in up_a:
            node = self.parent[node]
            up_b.append(node)
        meet = up_b[-1]
        return up_a[: up_a.index(meet) + 1] + up_b[-2::-1]
