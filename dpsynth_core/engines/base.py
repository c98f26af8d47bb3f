"""What every counting back end answers, and the shared logic of the engines for large tables.

A :class:`CountingSource` is a table over its declared domain that answers, exactly:

* ``n_rows``: the true number of records (only noise may read it);
* ``marginal(group)`` / ``marginals(groups)``: counts over the product of declared cells
  (``sparse_marginal(group)``: only the cells that hold records, for huge products);
* ``value_counts(name)``: the count of each distinct in-domain value of a text column (what
  CatHist needs, in the domain's public order), or of each present cell of a binned column;
* ``raw_values(name)``: a column's raw values with the number of records holding each (None:
  one record each), what DP adaptive binning counts intervals over;
* ``recode({name: Vocabulary | Rebin | Merge})``: the same table with some columns on new
  public codes (a text column's DP vocabulary, DP bin edges), countable as above;
* ``report()``: cells changed by the public out-of-domain rule (publisher-only).

How the engines stay identical to the in-memory path: the public rule of
:mod:`dpsynth_core.data.encoding` looks at one cell at a time, so a column's code is a function
of its raw value. An engine first finds every column's *distinct raw values* with their
counts (one pass, GROUPING SETS), maps those values to codes with
:func:`~dpsynth_core.data.encoding.encode_column` itself (so the rule is the same code, not a
translation), registers each map as a small engine table, joins it to the data to build a
compact table of codes (one pass, spilled to disk when large), and counts that table with
GROUP BY. Nothing per row ever runs in Python. The cost is one map entry per distinct raw
value: a column with as many distinct values as rows (an untruncated float) makes its map
as large as the column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd
import pyarrow as pa

from ..data.counting import coarsen_counts
from ..data.encoding import EncodedColumn, changed_cells_report, encode_column
from ..domain import ColumnDomain, TableDomain
from ..errors import DataError, DomainError
from .recodings import Rebin, Vocabulary, check_recodings, merge_codes

#: A block of columns counted in one query holds at most this many cells (a dense int64 array of 2 MiB).
BLOCK_CELLS = 1 << 18
#: More requested groups than this are each a block of their own (:func:`plan_blocks`' greedy packing takes
#: time quadratic in the groups: minutes for the 2,000 pairs a round of a wide table's selection offers).
GREEDY_GROUPS = 256
#: A block joins at most this many columns (wider GROUP BYs cost more per row than they save).
BLOCK_COLUMNS = 3


@runtime_checkable
class CountingSource(Protocol):
    """A table over its declared domain, counted exactly by some engine (see the module docstring)."""

    domain: TableDomain
    n_rows: int
    cells: dict

    def marginal(self, group, *, buckets: dict | None = None) -> np.ndarray: ...

    def marginals(self, groups, *, buckets: dict | None = None) -> list[np.ndarray]: ...

    def sparse_marginal(self, group) -> tuple[np.ndarray, np.ndarray]: ...

    def value_counts(self, name: str) -> pd.Series: ...

    def raw_values(self, name: str) -> tuple[pd.Series, np.ndarray | None]: ...

    def recode(self, recodings: dict) -> CountingSource: ...

    def report(self) -> dict: ...

    def close(self) -> None: ...


# --- one column over its distinct raw values --------------------------------------------


@dataclass
class ColumnMap:
    """A column's distinct raw values, their true counts, and their encoding by the public rule.

    ``codes`` (binned columns) or ``labels`` (text columns) hold one entry per distinct raw
    value, computed by :func:`encode_column` on those values, so they are the in-memory
    path's by construction. ``current``/``cells`` is the coding counted now (declared, or re-coded).
    """

    domain: ColumnDomain
    raw: pd.Series
    counts: np.ndarray
    markers: tuple
    codes: np.ndarray | None = None
    labels: np.ndarray | None = None
    current: np.ndarray | None = None
    cells: int | None = None
    out_of_domain: int = 0
    missing: int = 0
    empty: int = 0
    merged: int = 0

    @classmethod
    def build(cls, domain: ColumnDomain, raw: list, counts, markers) -> ColumnMap:
        series = pd.Series(raw, dtype=object)
        counts = np.asarray(counts, dtype=np.int64)
        encoded = encode_column(domain, series, markers)
        out = cls(domain, series, counts, tuple(markers))
        if domain.binned:
            out.codes = np.asarray(encoded.codes, dtype=np.int64)
            out.current, out.cells = out.codes, encoded.cells
            out.missing = int(counts[out.codes == domain.bins].sum()) if domain.missing else 0
        else:
            out.labels = np.asarray(encoded.labels, dtype=object)
            out.missing = int(counts[pd.isna(out.labels)].sum())
            out.merged = encoded.merged  # distinct values sharing a pseudonym: the same on distinct values
        out.out_of_domain, out.empty = _weighted_changes(domain, series, counts, markers, encoded)
        return out

    def value_counts(self) -> pd.Series:
        """As ``EncodedColumn.label_counts`` (text: every in-domain value, whatever its coding) or
        the counts of the present codes of the current coding (binned)."""
        if self.domain.binned:
            counts = self.one_way
            present = np.flatnonzero(counts)
            return pd.Series(counts[present], index=present)
        present = ~pd.isna(self.labels)
        counts = pd.Series(self.counts[present]).groupby(self.labels[present].astype(object)).sum()
        keys = sorted(counts.index, key=self.domain.index_of)  # the domain's public order, as in memory
        values = counts[keys].tolist()
        if self.missing and self.domain.missing:
            keys, values = keys + [None], values + [self.missing]
        return pd.Series(values, index=pd.Index(keys, dtype=object), dtype=np.int64)

    def recoded(self, recoding) -> ColumnMap:
        out = ColumnMap(**{k: getattr(self, k) for k in self.__dataclass_fields__})
        if isinstance(recoding, Vocabulary):
            out.current, out.cells = recoding.codes(self.labels), recoding.cells
        elif isinstance(recoding, Rebin):
            encoded = encode_column(recoding.domain, self.raw, self.markers)
            out.current, out.cells = np.asarray(encoded.codes, dtype=np.int64), recoding.cells
        else:
            out.current = merge_codes(self.domain.name, recoding, self.current, self.cells)
            out.cells = int(recoding.cells)
        return out

    @property
    def one_way(self) -> np.ndarray:
        """The column's marginal under the current coding, from the distinct values alone (no pass)."""
        return np.bincount(self.current, weights=self.counts, minlength=self.cells).astype(np.int64)


def _weighted_changes(domain, raw: pd.Series, counts: np.ndarray, markers, distinct: EncodedColumn) -> tuple:
    """Records changed by the rule, and of them the missing cells of a column declared without missing values
    (:class:`EncodedColumn`'s ``out_of_domain`` and ``empty``), from per-distinct-value calls of
    :func:`encode_column`.

    ``encode_column`` counts changed cells, not which ones; each distinct value appears once,
    so a call on the values whose count has bit ``b`` set returns how many of them changed,
    and the weighted total is the sum over bits. No second copy of the rule.
    """
    if distinct.out_of_domain == 0:
        return 0, 0
    if distinct.out_of_domain == len(raw) and distinct.empty in (0, len(raw)):
        total = int(counts.sum())
        return total, total if distinct.empty else 0
    changed = empty = 0
    for bit in range(int(counts.max()).bit_length()):
        chosen = ((counts >> bit) & 1).astype(bool)
        if chosen.any():
            encoded = encode_column(domain, raw[chosen].reset_index(drop=True), markers)
            changed += encoded.out_of_domain << bit
            empty += encoded.empty << bit
    return changed, empty


# --- planning and assembling counts ----------------------------------------------------------


def plan_blocks(groups: list, cells: dict, limit: int = BLOCK_CELLS, width: int = BLOCK_COLUMNS) -> list:
    """Cover the requested groups with blocks of columns, each counted by one GROUP BY.

    A group of more than ``width`` columns, or of more than ``limit`` cells, is a block of
    its own; smaller groups are packed greedily into blocks of at most ``width`` columns and
    ``limit`` cells, choosing each time the group whose union covers most pending groups.
    Uses public cell counts only.
    """
    pending = list(dict.fromkeys(tuple(sorted(g)) for g in groups if len(g) > 1))
    if len(pending) > GREEDY_GROUPS:  # each choice compares every pending group with every other: a wide
        return pending  # table's thousands of pairs are counted as they are, planned in one pass
    blocks = []

    def size(columns):
        return math.prod(cells[c] for c in columns)

    while pending:
        block = set(pending[0])
        if len(block) <= width and size(block) <= limit:
            while True:
                best, best_gain = None, 0
                for group in pending:
                    union = block | set(group)
                    if union == block or len(union) > width or size(union) > limit:
                        continue
                    gain = sum(set(g) <= union for g in pending)
                    if gain > best_gain:
                        best, best_gain = union, gain
                if best is None:
                    break
                block = best
        blocks.append(tuple(sorted(block)))
        pending = [g for g in pending if not set(g) <= block]
    return blocks


def dense(columns: list, codes: list, counts: np.ndarray, cells: dict) -> np.ndarray:
    """A sparse GROUP BY result (one code array per column, and counts) as a dense array over all cells."""
    shape = [cells[c] for c in columns]
    index = np.zeros(len(counts), dtype=np.int64)
    for column, size in zip(codes, shape):
        index = index * size + np.asarray(column, dtype=np.int64)
    flat = np.bincount(index, weights=np.asarray(counts, dtype=np.float64), minlength=math.prod(shape))
    return np.rint(flat).astype(np.int64).reshape(shape)


def project(block: tuple, counts: np.ndarray, group: tuple, cells: dict, buckets: dict | None) -> np.ndarray:
    """The marginal of ``group`` (in its own order) from a block's dense counts, with optional buckets."""
    drop = tuple(i for i, c in enumerate(block) if c not in group)
    out = counts.sum(axis=drop) if drop else counts
    kept = [c for c in block if c in group]
    out = np.transpose(out, [kept.index(c) for c in group])
    for axis, name in enumerate(group):
        if buckets and name in buckets:
            out = coarsen_counts(out, axis, cells[name], buckets[name])
    return out.astype(np.int64)


class EngineSource:
    """The shared half of the DuckDB and Spark sources: maps, planning, projections.

    A subclass implements three primitives over its engine (and may ``_prepare`` the table
    first, e.g. fold identical records into one weighted row): ``_distinct(names)`` (the row
    count and every column's distinct raw values with counts, in one pass),
    ``_materialize(maps)`` (a table of the current codes) and ``_block_counts(blocks)``
    (for each block of columns, a sparse GROUP BY over that table: codes and counts).
    """

    engine = ""
    #: The CSV file read by ``read_table``'s rule, chunk by chunk (:mod:`dpsynth_core.data.csvfile`);
    #: None for other inputs.
    _csv = None

    @property
    def lines_read(self) -> dict | None:
        """How many lines of a CSV the per-record rule touched while the source read it (the
        ``info["lines"]`` of :func:`~dpsynth_core.data.tables.read_table`, summed over the chunks
        read), or None when the source did not read a CSV file. Publisher-only."""
        return dict(self._csv.lines) if self._csv is not None else None

    def _setup(self, domain: TableDomain, column_names) -> None:
        """Count ``domain`` (the declaration as given, like the in-memory source's) over its measured columns
        (:meth:`~dpsynth_core.domain.TableDomain.measured`): a derived column is never read, and a gap column is
        read as its gap past its source (:meth:`_read_gaps`) before anything is folded or counted."""
        self.domain = domain
        domain.check_matches(column_names)
        domain.validate()
        measured = domain.measured()
        if domain.gaps:
            self._read_gaps(domain)
        self._prepare(list(measured.kept))
        self.n_rows, distinct = self._distinct(list(measured.kept))
        self.maps = {}
        for name, col in measured.kept.items():
            try:
                self.maps[name] = ColumnMap.build(col, *distinct[name], domain.missing_markers)
            except (TypeError, UnicodeDecodeError):  # a list, map or structure, or bytes that are not UTF-8
                raise DataError(
                    f"column '{name}' holds values that are not plain text, numbers or dates (lists, "
                    "maps, structures, or binary data that is not UTF-8 text)"
                ) from None
        self._built = False

    @property
    def cells(self) -> dict:
        return {n: m.cells for n, m in self.maps.items() if m.cells is not None}

    def report(self) -> dict:
        """Cells changed by the public rule, per column (publisher-only diagnostics)."""
        return changed_cells_report(self.maps)

    def value_counts(self, name: str) -> pd.Series:
        column = self.maps[name]
        return column.value_counts()  # exact counts: only a DP mechanism (CatHist) may read them

    def raw_values(self, name: str) -> tuple[pd.Series, np.ndarray]:
        """A column's distinct raw values and how many records hold each (exact: only noise may read them)."""
        column = self.maps[name]
        return column.raw, column.counts

    def marginal(self, group, *, buckets: dict | None = None) -> np.ndarray:
        return self.marginals([group], buckets=buckets)[0]

    def marginals(self, groups, *, buckets: dict | None = None) -> list[np.ndarray]:
        groups = [tuple(g) for g in groups]
        cells = self.cells
        for group in groups:
            self._check(group)
        blocks = plan_blocks(groups, cells)
        if blocks:
            self._build()
        counted = {
            block: dense(list(block), codes, counts, cells)
            for block, (codes, counts) in zip(blocks, self._block_counts(blocks))
        }
        out = []
        for group in groups:
            if len(group) == 0:
                out.append(np.array(self.n_rows, dtype=np.int64))
            elif len(group) == 1:
                out.append(project(group, self.maps[group[0]].one_way, group, cells, buckets))
            else:
                block = next(b for b in counted if set(group) <= set(b))
                out.append(project(block, counted[block], group, cells, buckets))
        return out

    def sparse_marginal(self, group) -> tuple[np.ndarray, np.ndarray]:
        """The cells of ``group``'s product that hold records (flat indices, ascending) and their
        counts: for products too large to hold densely (as ``CodedTable.sparse_marginal``)."""
        group = tuple(group)
        self._check(group)
        self._build()
        cells = self.cells
        if len(group) == 1:
            counts = self.maps[group[0]].one_way
            present = np.flatnonzero(counts)
            return present.astype(np.int64), counts[present]
        ((codes, counts),) = self._block_counts([group])
        index = np.zeros(len(counts), dtype=np.int64)
        for column, name in zip(codes, group):
            index = index * cells[name] + column
        order = np.argsort(index, kind="stable")
        return index[order], counts[order]

    def _build(self) -> None:
        """Materialize the table of current codes, once per coding."""
        if not self._built:
            self._materialize({n: m for n, m in self.maps.items() if m.current is not None})
            self._built = True

    def _check(self, group) -> None:
        cells = self.cells
        for name in group:
            if name not in cells:
                raise DomainError(
                    f"column '{name}' is text: re-code it over a vocabulary before counting it in a marginal"
                    if name in self.maps
                    else f"unknown column '{name}'"
                )

    def recode(self, recodings: dict) -> EngineSource:
        """The same table with the given columns on new codes (one new pass when next counted)."""
        check_recodings(recodings, self.domain)
        twin = self._twin()
        twin.maps = dict(self.maps)
        for name, recoding in recodings.items():
            twin.maps[name] = self.maps[name].recoded(recoding)
        twin._built = False
        return twin

    def bound_persons(self, unit, rng) -> EngineSource:
        """The same table with at most ``unit.max_rows`` rows per person (a
        :class:`~dpsynth_core.domain.PersonUnit`): exactly the rows the in-memory path keeps for the same
        generator ``rng`` (:func:`.persons.bound_persons`). Its maps are counted anew over the kept rows; the
        ledger's identity of the records stays the whole table's (this source's)."""
        from .persons import bound_persons

        return bound_persons(self, unit, rng)

    # --- engine primitives ------------------------------------------------------------------

    def _twin(self) -> EngineSource:
        """A source sharing this one's engine state (connection, spilled data), with its own maps;
        the owner alone closes what they share."""
        twin = object.__new__(type(self))
        twin.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("maps", "_codes", "_built")})
        twin._owner = self
        return twin

    def _prepare(self, names: list) -> None:
        """Optionally fold the records over the kept columns ``names`` before the first pass (a speed choice)."""

    def _read_gaps(self, domain: TableDomain) -> None:
        """From now on, read each gap column of ``domain`` as its gap past its source, as the in-memory path
        does (:func:`~dpsynth_core.data.gaps.with_gaps`): each cell read by its own column's rule on the two
        columns' distinct values (:func:`~dpsynth_core.data.gaps.gap_readings`), then subtracted by the engine,
        row by row. An engine that cannot is listed without ``reads_gaps`` (:mod:`.registry`), and refuses."""
        from .registry import get_engine

        get_engine(self.engine).check_domain(domain)
        raise NotImplementedError(f"the {self.engine} engine lists reads_gaps but does not read gaps")

    def _distinct(self, names: list) -> tuple[int, dict]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _column_names(self) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def _person_values(self, column: str) -> tuple[pa.Array, np.ndarray]:  # pragma: no cover - abstract
        """The identifier column's distinct raw values (null for missing) and how many rows hold each."""
        raise NotImplementedError

    def _bound(self, column: str, raw: pa.Array, codes, persons, ranks) -> None:  # pragma: no cover - abstract
        """Count only the kept rows from now on: of the persons whose identifiers are ``raw`` (coded ``codes``,
        every one of them past the bound), the rows at the ``(persons, ranks)`` pairs, ranked in the table's
        order; every other row."""
        raise NotImplementedError

    def _materialize(self, maps: dict) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _block_counts(self, blocks: list) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - overridden
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
