"""Junction trees: every group in one clique, the running intersection, the maximal elimination cliques and
the model sizes candidate groups would make."""

from __future__ import annotations

import numpy as np

from dpsynth_core.pgm import JunctionTree, model_cells, model_cells_with
from tests.core.pgm.pgm_common import CELLS


def test_junction_tree_covers_groups_and_has_running_intersection():
    groups = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")]  # a 4-cycle: triangulation adds a chord
    tree = JunctionTree.build(CELLS, groups)
    for group in groups:
        assert tree.home(group) is not None
    for name in CELLS:  # the cliques holding a column form a connected subtree
        holding = {i for i, c in enumerate(tree.cliques) if name in c}
        connected = {i for i in holding if tree.parent[i] is None or tree.parent[i] not in holding}
        assert len(connected) == 1, name
    assert model_cells(CELLS, groups) == tree.size()


def _random_cells(rng, low: int, high: int, sizes: list) -> dict:
    """From ``low`` to ``high - 1`` columns ``c0, c1, ...``, each with a size drawn from ``sizes``."""
    return {f"c{i}": int(rng.choice(sizes)) for i in range(int(rng.integers(low, high)))}


def _random_group(rng, names: list, size: int | None = None) -> tuple:
    """``size`` distinct columns (default: 1 to 3 of them), in the order drawn."""
    size = int(rng.integers(1, min(3, len(names)) + 1)) if size is None else size
    return tuple(rng.choice(names, size=size, replace=False))


def test_elimination_keeps_exactly_the_maximal_cliques():
    from dpsynth_core.pgm.junction_tree import _elimination_masks

    rng = np.random.default_rng(11)
    for _ in range(300):
        cells = _random_cells(rng, 1, 16, [2, 3, 5, 16])
        names, n = list(cells), len(cells)
        groups = [_random_group(rng, names) for _ in range(int(rng.integers(0, 2 * n + 1)))]
        masks = _elimination_masks(cells, groups)
        covered = 0
        for mask in masks:
            covered |= mask
            assert not any(mask != other and mask & other == mask for other in masks)  # none inside another
        assert covered == (1 << n) - 1
        for group in groups:  # every group inside one clique
            bits = sum(1 << names.index(a) for a in group)
            assert any(bits & mask == bits for mask in masks)


def test_model_cells_with_candidates_matches_one_elimination_each():
    rng = np.random.default_rng(12)
    for _ in range(200):
        cells = _random_cells(rng, 2, 14, [2, 3, 7, 16])
        names = list(cells)

        def group(size=None, names=names):
            return tuple(sorted(_random_group(rng, names, size), key=names.index))

        groups = [group() for _ in range(int(rng.integers(0, len(names))))]
        candidates = [group(2) for _ in range(4)]
        got = model_cells_with(cells, groups, candidates)
        for candidate in candidates:
            assert got[candidate] == model_cells(cells, groups + [candidate])
