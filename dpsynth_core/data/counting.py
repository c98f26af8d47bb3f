"""Counting: the one place where a method's reads of the data become numbers.

Every synthesizer touches the data only to count records in declared cells: 1-way
histograms, joint tables over a product of declared cells, counts in coarser public
buckets. Noise, selection, estimation and sampling then work on these exact counts
alone. Keeping the counting here gives one seam behind which an engine for large tables
can stand, and one place to review for what leaves the data.

A :class:`CodedTable` holds every kept column as integer codes over a small public set of
cells (declared bins, categories plus "missing", or a text column's DP vocabulary).
The in-memory :class:`CodedTable` and the engines for large tables (``dpsynth_core.engines``:
DuckDB, Spark; their interface is :class:`~dpsynth_core.engines.CountingSource`) answer the same
questions, with identical counts.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: The most cells of a block of four columns whose pairs :meth:`CodedTable.marginals` counts in one pass.
PAIR_BLOCK_CELLS = 1 << 18


def flat_index(codes, cells, rows: int) -> np.ndarray:
    """Mixed-radix index of several code columns: each row's cell in their product domain."""
    index = np.zeros(rows, dtype=np.int64)
    for column, size in zip(codes, cells):
        index = index * int(size) + np.asarray(column, dtype=np.int64)
    return index


def cell_index(codes, cells, rows: int) -> np.ndarray:
    """:func:`flat_index` for counting: in 32-bit integers, in place, when the product of ``cells`` fits (a
    third faster on the 100,000 records of a wide table's pairs, counted by the ten thousand)."""
    if math.prod(int(c) for c in cells) >= 2**31:
        return flat_index(codes, cells, rows)
    index = np.zeros(rows, dtype=np.int32)
    for column, size in zip(codes, cells):
        index *= int(size)
        np.add(index, np.asarray(column), out=index, casting="unsafe")  # a code is below its size: it fits
    return index


def coarsen(codes: np.ndarray, cells: int, buckets: int) -> tuple[np.ndarray, int]:
    """Merge consecutive cells into at most ``buckets`` public buckets.

    Only meaningful when the cell order is public (the declared order, or the domain's
    public enumeration for a text vocabulary): then the bucket of a cell is public too.
    """
    if cells <= buckets:
        return codes, cells
    return (np.asarray(codes, dtype=np.int64) * buckets) // cells, buckets


def coarsen_counts(counts: np.ndarray, axis: int, cells: int, buckets: int) -> np.ndarray:
    """Merge the cells of one axis of a dense marginal as :func:`coarsen` merges codes (same buckets)."""
    if cells <= buckets:
        return counts
    target = (np.arange(cells, dtype=np.int64) * buckets) // cells
    moved = np.moveaxis(counts, axis, 0)
    out = np.zeros((buckets,) + moved.shape[1:], dtype=np.int64)
    np.add.at(out, target, moved)
    return np.moveaxis(out, 0, axis)


@dataclass
class CodedTable:
    """Kept columns as codes over public cells, and the true row count (which only noise may read).

    Attributes:
        codes: column name -> int64 codes in ``0..cells[name]-1``, one per record.
        cells: column name -> the number of public cells of the column.
        n_rows: the true number of records.
    """

    codes: dict
    cells: dict
    n_rows: int
    #: couple -> the joint code of its columns (:meth:`_couple`), made when a block of pairs first needs it;
    #: and the columns' order ("names", "position")
    _couples: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def marginal(self, group, *, buckets: dict | None = None) -> np.ndarray:
        """Exact counts of every cell of the product of ``group``'s cells (shape: their cells).

        ``buckets``: optional column -> number of public buckets to merge its cells into first.
        """
        group = tuple(group)
        codes, cells = [], []
        for name in group:
            column, size = self.codes[name], self.cells[name]
            if buckets and name in buckets:
                column, size = coarsen(column, size, buckets[name])
            codes.append(column)
            cells.append(size)
        size = int(np.prod(cells)) if cells else 1
        counts = np.bincount(cell_index(codes, cells, self.n_rows), minlength=size).astype(np.int64)
        return counts.reshape(cells) if cells else counts

    def sparse_marginal(self, group) -> tuple[np.ndarray, np.ndarray]:
        """The cells of ``group``'s product that hold records (flat indices, ascending) and their counts.

        For products too large to hold densely; the present cells are what CatHist needs.
        """
        group = tuple(group)
        index = flat_index([self.codes[n] for n in group], [self.cells[n] for n in group], self.n_rows)
        present, counts = np.unique(index, return_counts=True)
        return present, counts.astype(np.int64)

    def marginals(self, groups, *, buckets: dict | None = None) -> list[np.ndarray]:
        """:meth:`marginal` for several groups. Column pairs that fall in one block (:meth:`block_of`) are
        counted together, the block's joint once and each pair as its sum: one pass over the records for up
        to six pairs, which a wide table's selection asks for by the thousand."""
        groups = [tuple(g) for g in groups]
        found: dict = {}
        if not buckets:
            blocks: dict = {}
            for group in groups:
                couples = self.block_of(group)
                if couples is not None:
                    blocks.setdefault(couples, []).append(group)
            names = self._names()
            for couples, members in blocks.items():
                if len(members) < 2:
                    continue
                block = [n for c in couples for n in names[2 * c : 2 * c + 2]]
                joint = self._block(couples, names).reshape([self.cells[n] for n in block])
                for a, b in members:
                    other = tuple(i for i, n in enumerate(block) if n not in (a, b))
                    pair = joint.sum(axis=other) if other else joint
                    found[(a, b)] = pair if block.index(a) < block.index(b) else pair.T
        return [found[g] if g in found else self.marginal(g, buckets=buckets) for g in groups]

    def block_of(self, group) -> tuple | None:
        """The block :meth:`marginals` counts a column pair in: the one or two *couples* holding its columns
        (couple ``c``: the columns at positions ``2c`` and ``2c + 1`` of the table's order, which is public),
        when their joint has at most ``PAIR_BLOCK_CELLS`` cells; None for any other group."""
        if len(group) != 2 or group[0] == group[1]:
            return None
        position = self._position()
        couples = tuple(sorted({position[group[0]] // 2, position[group[1]] // 2}))
        names = self._names()
        if math.prod(self.cells[n] for c in couples for n in names[2 * c : 2 * c + 2]) > PAIR_BLOCK_CELLS:
            return None
        return couples

    def companions(self, group) -> list[tuple]:
        """The column pairs counted in the same pass as ``group`` (:meth:`block_of`; in the table's order),
        ``group`` among them; just ``group`` when it is counted alone."""
        couples = self.block_of(group)
        if couples is None:
            return [tuple(group)]
        names = self._names()
        return list(itertools.combinations([n for c in couples for n in names[2 * c : 2 * c + 2]], 2))

    def _names(self) -> list:
        if "names" not in self._couples:
            self._couples["names"] = list(self.codes)
            self._couples["position"] = {n: i for i, n in enumerate(self.codes)}
        return self._couples["names"]

    def _position(self) -> dict:
        self._names()
        return self._couples["position"]

    def _couple(self, couple: int, names: list) -> tuple[np.ndarray, int]:
        """The joint code of the columns of ``couple`` (``names[2 * couple : 2 * couple + 2]``) as 16-bit
        integers (32 when more cells), kept for the next block that holds it (a wide table's 150 couples of
        100,000 records: 30 MB), and its number of cells."""
        if couple not in self._couples:
            columns = names[2 * couple : 2 * couple + 2]
            cells = [self.cells[n] for n in columns]
            index = cell_index([self.codes[n] for n in columns], cells, self.n_rows)
            self._couples[couple] = (index.astype(np.int16) if math.prod(cells) <= 2**15 else index, math.prod(cells))
        return self._couples[couple]

    def _block(self, couples: tuple, names: list) -> np.ndarray:
        """Flat counts of the block of one or two ``couples`` (at most ``PAIR_BLOCK_CELLS`` cells): from their
        joint codes, one multiplication and one addition over the records before the count, not one per column."""
        first, size = self._couple(couples[0], names)
        if len(couples) == 1:
            return np.bincount(first, minlength=size).astype(np.int64)
        second, inner = self._couple(couples[1], names)
        index = np.multiply(first, inner, dtype=np.int32)
        np.add(index, second, out=index)
        return np.bincount(index, minlength=size * inner).astype(np.int64)

    def value_counts(self, name: str) -> pd.Series:
        """Counts of the codes of ``name`` present in the data (index: code)."""
        counts = np.bincount(np.asarray(self.codes[name], dtype=np.int64), minlength=self.cells[name])
        present = np.flatnonzero(counts)
        return pd.Series(counts[present].astype(np.int64), index=present)

    def records(self, columns) -> np.ndarray:
        """The coded records themselves (rows x columns), for the methods that need them."""
        return np.column_stack([self.codes[name] for name in columns])


class SortedValues:
    """One numeric column's true values in order (missing cells left out), for exact interval counts.

    ``weights`` (optional): how many records hold each value (an engine passes a column's
    distinct values with their counts); the counts are then the same as for the values
    repeated. Data-adaptive binning reads a column only through :meth:`count` (and :meth:`count_pieces`); the
    counts get noise before anything depends on them (see :mod:`dpsynth_core.privacy.binning`).
    """

    def __init__(self, values, weights=None):
        values = np.asarray(values)
        if weights is None:
            self._values, self._weights, self._cumulative = np.sort(values), None, None
            return
        order = np.argsort(values, kind="stable")
        self._values = values[order]
        self._weights = np.asarray(weights, dtype=np.int64)[order]
        self._cumulative = np.concatenate([[0], np.cumsum(self._weights)])

    def __len__(self) -> int:
        return int(self._values.size if self._cumulative is None else self._cumulative[-1])

    def count(self, lows, highs, *, closed) -> np.ndarray:
        """Exact number of values ``v`` with ``low <= v < high`` per interval (``v <= high`` where ``closed``)."""
        lows = np.asarray(lows)
        highs = np.asarray(highs)
        closed = np.broadcast_to(np.asarray(closed, dtype=bool), highs.shape)
        start = np.searchsorted(self._values, lows, side="left")
        end = np.where(
            closed,
            np.searchsorted(self._values, highs, side="right"),
            np.searchsorted(self._values, highs, side="left"),
        )
        if self._cumulative is not None:
            return (self._cumulative[end] - self._cumulative[start]).astype(np.int64)
        return (end - start).astype(np.int64)

    def count_pieces(self, lows, highs, *, top, integer: bool) -> np.ndarray:
        """Exact number of values per piece of a range that ends at ``top``: whole numbers (and days) in the
        closed ``low..high``; real numbers in ``[low, high)``, the piece that ends at ``top`` closed there."""
        highs = np.asarray(highs)
        return self.count(lows, highs, closed=True if integer else highs >= top)

    def without(self, excluded) -> SortedValues:
        """The values other than ``excluded`` (public special values, counted in their own bins)."""
        kept = ~np.isin(self._values, np.asarray(list(excluded)))
        return SortedValues(self._values[kept], None if self._weights is None else self._weights[kept])
