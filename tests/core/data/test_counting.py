"""Counting: exact counts over declared cells, the one home every method reads the data through."""

import numpy as np
import pandas as pd

from dpsynth_core.data.counting import CodedTable, SortedValues, coarsen, flat_index


def _table(rows: int = 500, seed: int = 0) -> CodedTable:
    rng = np.random.default_rng(seed)
    cells = {"a": 3, "b": 4, "c": 10}
    codes = {n: rng.integers(0, k, size=rows) for n, k in cells.items()}
    return CodedTable(codes, cells, rows)


def test_marginal_matches_a_crosstab_over_every_declared_cell():
    table = _table()
    counts = table.marginal(("a", "b"))
    assert counts.shape == (3, 4) and counts.sum() == table.n_rows
    expected = pd.crosstab(table.codes["a"], table.codes["b"]).reindex(index=range(3), columns=range(4), fill_value=0)
    assert (counts == expected.to_numpy()).all()


def test_empty_cells_are_counted_as_zero():
    table = CodedTable({"a": np.array([0, 0, 2])}, {"a": 5}, 3)
    assert table.marginal(("a",)).tolist() == [2, 0, 1, 0, 0]


def test_buckets_merge_consecutive_cells():
    table = _table()
    merged = table.marginal(("c",), buckets={"c": 4})
    codes, cells = coarsen(table.codes["c"], 10, 4)
    assert cells == 4 and merged.tolist() == np.bincount(codes, minlength=4).tolist()
    assert merged.sum() == table.n_rows


def test_sparse_marginal_lists_only_present_cells():
    table = _table()
    present, counts = table.sparse_marginal(("a", "b", "c"))
    dense = table.marginal(("a", "b", "c")).ravel()
    assert (dense[present] == counts).all() and counts.sum() == table.n_rows
    assert (np.diff(present) > 0).all()


def test_flat_index_is_mixed_radix():
    assert flat_index([np.array([1, 2]), np.array([3, 0])], [3, 4], 2).tolist() == [1 * 4 + 3, 2 * 4 + 0]


def test_pieces_of_a_range_hold_every_value_once():
    whole = SortedValues(np.array([0, 1, 1, 4, 5, 9]))
    assert whole.count_pieces([0, 2, 5], [1, 4, 9], top=9, integer=True).tolist() == [3, 1, 2]
    real = SortedValues(np.array([0.0, 0.5, 1.0, 1.5, 2.0]))
    # half-open pieces, the last one closed at the range's top: 1.0 and 2.0 are counted once each
    assert real.count_pieces([0.0, 1.0], [1.0, 2.0], top=2.0, integer=False).tolist() == [2, 3]
