"""Junction trees: triangulate the graph of the measured column groups and join its cliques.

Columns are named; every clique is a tuple of names in the columns' global order, so a
clique's array axes and any sub-group's axes line up without transposition. Triangulation
eliminates, at each step, the column whose elimination clique has the fewest cells
(greedy); the maximal elimination cliques joined by a maximum-weight spanning tree (weight:
shared columns) satisfy the running-intersection property.
"""

from __future__ import annotations

import collections
import heapq
import math
import weakref
from dataclasses import dataclass
from functools import cached_property, lru_cache


class _Sizes:
    """Cells of any set of columns given as a bit mask, by tables over 8-bit chunks (exact integers), each mask's
    size kept once worked out (a candidate's elimination meets most of its cliques' masks again in the next one's:
    a wide model's sizes were most of the time a round's candidates took). Every table's kept sizes together are at
    most ``KEPT`` (all forgotten when full): a mask of 1,500 columns and its size take about 300 bytes, so at most
    some 300 MB in the widest case, a few MB for a table of tens of columns."""

    KEPT = 1_000_000
    kept = 0  # the sizes kept by every table (those of tables no longer held still counted: forgotten sooner)
    tables_alive: weakref.WeakSet = weakref.WeakSet()

    def __init__(self, cells: list):
        self.known: dict = {}
        _Sizes.tables_alive.add(self)
        self.tables = []
        for start in range(0, len(cells), 8):
            chunk = cells[start : start + 8]
            table = [1] * (1 << len(chunk))
            for mask in range(1, 1 << len(chunk)):
                low = mask & -mask
                table[mask] = table[mask ^ low] * chunk[low.bit_length() - 1]
            self.tables.append(table)

    def __call__(self, mask: int) -> int:
        size = self.known.get(mask)
        if size is not None:
            return size
        if _Sizes.kept >= self.KEPT:
            for table in list(_Sizes.tables_alive):
                table.known.clear()
            _Sizes.kept = 0
        size, key = 1, mask
        for table in self.tables:
            size *= table[mask & 0xFF]
            mask >>= 8
        self.known[key] = size
        _Sizes.kept += 1
        return size


def _elimination_cliques(cells: dict, cliques) -> list[tuple]:
    return [_columns(list(cells), clique) for clique in _elimination_masks(cells, cliques)]


def _columns(names: list, mask: int) -> tuple:
    """The names of the bits set in ``mask``, in ascending bit order (the columns' global order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(names[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def _elimination_masks(cells: dict, cliques) -> list[int]:
    """The maximal cliques of a greedy (least new cells first) elimination, as bit masks over ``cells``."""
    return _eliminate(_sizes(tuple(cells.values())), _neighbours(cells, cliques))


def _neighbours(cells: dict, cliques) -> list[int]:
    """Each column's neighbours (itself included) in the graph of ``cliques``, as bit masks over ``cells``."""
    index = {name: i for i, name in enumerate(cells)}
    neighbours = [1 << i for i in range(len(index))]
    for clique in cliques:
        mask = 0
        for a in clique:
            mask |= 1 << index[a]
        for a in clique:
            neighbours[index[a]] |= mask
    return neighbours


def _eliminate(size, neighbours: list, state: tuple | None = None, snapshots: list | None = None) -> list[int]:
    """:func:`_elimination_masks` from the columns' neighbour masks (changed in place). ``state``: resume
    from ``(cost, remaining, left, found, eliminated)`` of an elimination stopped between steps;
    ``snapshots``: a list that receives the state (``neighbours`` first) before every step."""
    if state is None:
        remaining = (1 << len(neighbours)) - 1
        left = list(range(len(neighbours)))
        cost = [size(mask) for mask in neighbours]
        found: list[int] = []
        eliminated: list[int] = []
    else:
        cost, remaining, left, found, eliminated = state
    # ties: the first column. The columns left in a heap of (cost, column), a changed cost pushed anew and a stale
    # entry skipped when it comes up: the least (cost, column) left, as a scan of them in order would find
    heap = [(cost[v], v) for v in left]
    heapq.heapify(heap)
    while left:
        if snapshots is not None:
            snapshots.append((tuple(neighbours), tuple(cost), remaining, tuple(left), tuple(found), tuple(eliminated)))
        while True:
            worth, best = heapq.heappop(heap)
            if remaining >> best & 1 and cost[best] == worth:
                break
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
            heapq.heappush(heap, (cost[u], u))
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


@lru_cache(maxsize=1024)  # one per component or union of components a candidate joins
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

    bases: dict = {}  # roots -> (the size function, column -> bit, the neighbour masks of their groups)
    # A component's own elimination, step by step: adding a candidate inside it changes only the
    # candidate's columns' neighbours, whose costs can only grow, so the greedy elimination makes
    # the same choices until it first takes one of them; the candidate's resumes from there.
    snapshots: dict = {}

    def eliminate(roots, extra=None):
        key = frozenset(roots)
        if key not in bases:
            columns = {a for r in roots for a in members[r]}
            sub = {a: cells[a] for a in cells if a in columns}  # the global order, so the same ties
            bit = {a: 1 << i for i, a in enumerate(sub)}
            bases[key] = (_sizes(tuple(sub.values())), bit, _neighbours(sub, [g for r in roots for g in inside[r]]))
        size, bit, neighbours = bases[key]
        if extra is None:  # a component alone: recorded step by step
            steps: list = []
            cliques = _eliminate(size, list(neighbours), snapshots=steps)
            taken = {}  # column -> the step that eliminates it
            for j, step in enumerate(steps):
                for v in step[3]:
                    taken[v] = j
            snapshots[key] = (steps, taken)
            return sum(size(mask) for mask in cliques)
        mask = 0
        for a in extra:
            mask |= bit[a]
        if key not in snapshots:  # the same masks as building the graph with the group among the others
            neighbours = list(neighbours)
            for a in extra:
                neighbours[bit[a].bit_length() - 1] |= mask
            return sum(size(m) for m in _eliminate(size, neighbours))
        steps, taken = snapshots[key]
        first = min(taken[bit[a].bit_length() - 1] for a in extra)
        masks, cost, remaining, left, found, eliminated = steps[first]
        masks, cost = list(masks), list(cost)
        for a in extra:
            u = bit[a].bit_length() - 1
            masks[u] |= mask
            cost[u] = size(masks[u] & remaining)
        state = (cost, remaining, list(left), list(found), list(eliminated))
        return sum(size(m) for m in _eliminate(size, masks, state=state))

    alone = {root: eliminate([root]) for root in members}
    total = sum(alone.values())
    rooted = [(tuple(c), list(dict.fromkeys(find(a) for a in c))) for c in candidates]
    joined = collections.Counter(frozenset(roots) for _, roots in rooted)  # the unions candidates make
    out = {}
    for candidate, roots in rooted:
        if len(roots) > 1 and joined[frozenset(roots)] > 1 and frozenset(roots) not in snapshots:
            eliminate(roots)  # a union several candidates make: its steps recorded once, each candidate resumes
        out[candidate] = total - sum(alone[r] for r in roots) + eliminate(roots, candidate)
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
        # Prim's maximum spanning tree on shared-column counts (ties: the clique of the lowest index first).
        # Only the cliques sharing a column with the one just joined can gain, so only they are compared with
        # it; the next clique is the top of a heap of (-shared, index) holding each clique's best offer (older,
        # smaller offers are skipped when they surface): a few milliseconds for the 300 cliques of a 300-column
        # table, where scanning every clique for the next took a tenth of a second a build.
        sets = [set(c) for c in cliques]
        holding: dict = {}
        for i, clique in enumerate(cliques):
            for a in clique:
                holding.setdefault(a, []).append(i)
        parent: list = [None] * k
        in_tree = [False] * k
        in_tree[0] = True
        order = [0]
        best = [(len(sets[0] & c), 0) for c in sets]
        heap = [(-best[m][0], m) for m in range(1, k)]
        heapq.heapify(heap)
        while heap:
            shared, j = heapq.heappop(heap)
            if in_tree[j] or -shared != best[j][0]:
                continue
            in_tree[j] = True
            parent[j] = best[j][1]
            order.append(j)
            for m in sorted({m for a in cliques[j] for m in holding[a]}):
                if not in_tree[m]:
                    shared = len(sets[j] & sets[m])
                    if shared > best[m][0]:
                        best[m] = (shared, j)
                        heapq.heappush(heap, (-shared, m))
        # breadth-first order from the root so that parents always come first
        children: dict = {i: [] for i in range(k)}
        for j in range(k):
            if parent[j] is not None:
                children[parent[j]].append(j)
        bfs = [0]
        for node in bfs:
            bfs.extend(children[node])
        separator = [
            () if parent[i] is None else tuple(a for a in cliques[i] if a in cliques[parent[i]]) for i in range(k)
        ]
        return cls(cells=dict(cells), cliques=cliques, order=bfs, parent=parent, separator=separator)

    def size(self) -> int:
        return sum(math.prod(self.cells[a] for a in c) for c in self.cliques)

    def home(self, group) -> int | None:
        """The smallest clique containing every column of ``group``, or None."""
        key = tuple(group)
        if key not in self._homes:  # the tree does not change once built
            sets, group, best = self._clique_sets, set(key), None
            for i in self.holding(key[0]) if key else range(len(sets)):  # only the cliques of its first column
                if group <= sets[i] and (best is None or len(sets[i]) < len(sets[best])):
                    best = i
            self._homes[key] = best
        return self._homes[key]

    def holding(self, column) -> list:
        """The indices of the cliques that hold ``column``, ascending."""
        return self._holding.get(column, [])

    @cached_property
    def _holding(self) -> dict:
        out: dict = {}
        for i, clique in enumerate(self.cliques):
            for a in clique:
                out.setdefault(a, []).append(i)
        return out

    @cached_property
    def _clique_sets(self) -> list:
        return [frozenset(c) for c in self.cliques]

    @cached_property
    def _homes(self) -> dict:
        return {}

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
