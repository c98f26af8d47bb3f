"""Encoding a table over its declared domain, and decoding synthetic codes back to values.

The public rule for values that do not fit the declaration (documented in the README):

* numbers and dates below ``min`` or above ``max`` are clamped to the nearest bound;
* numbers are rounded to whole numbers in ``integer`` columns (a cell changed, counted as one);
* a cell that cannot be read as the column's kind (a date: :mod:`.cell_values`), or a category or text value
  outside the domain, becomes missing (a categorical column with an ``other`` value maps it there);
* in a column declared without missing values, a missing cell takes the first value of
  the domain (the first category, the first bin, the first label).

The rule looks at one cell at a time and never widens a domain. The counts of cells it
changed are for the publisher's eyes only and never enter a release.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from ..domain import CategoricalDomain, ColumnDomain, DateDomain, FloatDomain, IntegerDomain, TableDomain, TextDomain
from ..domain.ranges import point_of_pieces
from .cell_values import date_days, datetime_steps, read_numbers, time_steps
from .counting import CodedTable


@dataclass
class EncodedColumn:
    """One column over its declared domain.

    Binned columns (categorical, integer, float, date, datetime) hold ``codes`` in ``0..cells-1``, where
    code ``bins`` is "missing". Text columns hold ``labels`` (domain values, or None).
    """

    domain: ColumnDomain
    codes: np.ndarray | None = None
    labels: np.ndarray | None = None
    out_of_domain: int = 0
    missing: int = 0
    #: text declared ``any``: distinct values in the data that share a pseudonym with another (publisher only)
    merged: int = 0
    #: a text column's labels as each record's position in ``distinct`` (``labels`` is ``distinct[index]``)
    distinct: np.ndarray | None = None
    index: np.ndarray | None = None

    def map_labels(self, rule) -> np.ndarray:
        """``rule(labels)`` for a rule mapping each label on its own (a vocabulary's codes), on the distinct labels
        once, spread to the records (a wide table's text columns: a few dozen labels, not 100,000, each)."""
        return rule(self.labels) if self.distinct is None else np.asarray(rule(self.distinct))[self.index]

    @property
    def cells(self) -> int:
        """Histogram cells of a binned column: its bins plus one for missing when allowed."""
        return self.domain.bins + (1 if self.domain.missing else 0)

    def counts(self) -> np.ndarray:
        """True count of every cell of a binned column (int64, length ``cells``)."""
        return CodedTable({self.domain.name: self.codes}, {self.domain.name: self.cells}, len(self.codes)).marginal(
            (self.domain.name,)
        )

    def label_counts(self, *, include_missing: bool = True) -> pd.Series:
        """True count of every value present in a text column, in the domain's public order.

        Missing comes last, under key None (when ``include_missing`` and the column allows it).
        The order never depends on the counts: codes and buckets built from these keys are public.
        """
        index, uniques = pd.factorize(np.asarray(self.labels, dtype=object), use_na_sentinel=True)
        counts = np.bincount(index[index >= 0], minlength=len(uniques))
        order = sorted(range(len(uniques)), key=lambda i: self.domain.index_of(uniques[i]))
        keys, values = [uniques[i] for i in order], counts[order].tolist()
        missing = int((index < 0).sum())
        if include_missing and missing and self.domain.missing:
            keys, values = keys + [None], values + [missing]
        return pd.Series(values, index=pd.Index(keys, dtype=object), dtype=np.int64)


@dataclass
class EncodedTable:
    """A table encoded over a declaration: the kept columns and the true row count."""

    columns: dict
    n_rows: int

    def coded(self) -> CodedTable:
        """The binned columns as a :class:`~dpsynth_core.data.counting.CodedTable` (text columns are not coded)."""
        binned = {n: c for n, c in self.columns.items() if c.domain.binned}
        return CodedTable(
            codes={n: c.codes for n, c in binned.items()},
            cells={n: c.cells for n, c in binned.items()},
            n_rows=self.n_rows,
        )

    def report(self) -> dict:
        """Cells changed by the public rule, per column (publisher-only diagnostics)."""
        return changed_cells_report(self.columns)


def changed_cells_report(columns: dict) -> dict:
    """Per column: records moved out of the domain, missing cells and, for text declared ``any``,
    distinct values that share a pseudonym (publisher only). ``columns`` hold ``domain``,
    ``out_of_domain``, ``missing`` and ``merged``."""
    out = {n: {"out_of_domain": c.out_of_domain, "missing": c.missing} for n, c in columns.items()}
    for name, column in columns.items():
        if getattr(column.domain, "generator", None) == "any":
            out[name]["merged_values"] = column.merged
    return out


#: Columns up to this many rows are factorized in plain Python (:func:`_distinct_small`): pandas'
#: fixed cost per call (about 2 ms) dominates small tables, such as the many tiny fits of an audit.
_SMALL = 2_000


def _distinct_cells(series: pd.Series, markers) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Factorize a column: per-row index into its distinct cells, their stripped text (an object
    array of str, one extra "" slot at the end for NaN cells), and which are missing.

    All parsing below works on the distinct cells only, so a million rows cost one pass.
    """
    small = _distinct_small(series) if len(series) <= _SMALL else None
    if small is not None:
        index, text = small
    else:
        index, uniques = pd.factorize(series, use_na_sentinel=True)
        text = pd.Series(np.asarray(uniques, dtype=object)).astype(str).str.strip().to_numpy(dtype=object)
    is_missing = np.isin(text, list(markers)) if len(markers) else np.zeros(len(text), dtype=bool)
    # NaN cells (a DataFrame passed in by a caller) get one extra "missing" slot at the end.
    index = np.where(index < 0, len(text), index)
    return index, np.append(text, np.array([""], dtype=object)), np.append(is_missing, True)


def missing_cells(series: pd.Series, markers=("",)) -> int:
    """How many cells of a column are missing by the declaration's ``markers`` (or NaN), before any rule."""
    index, _, is_missing = _distinct_cells(series, markers)
    return int(is_missing[index].sum())


def _distinct_small(series: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """What ``pd.factorize`` and the stripping above give for a short column of text and missing
    cells (None when a cell is anything else): distinct cells in order of first appearance, NA by
    pandas' own test, ``str.strip`` trimming the same whitespace as pandas' string ``strip``."""
    if not (series.dtype == object or isinstance(series.dtype, pd.StringDtype)):
        return None
    values = series.to_numpy(dtype=object)
    na = pd.isna(values)
    if not all(type(v) is str for v in values[~na]):
        return None
    first: dict = {}
    index = np.fromiter(
        (-1 if gone else first.setdefault(v, len(first)) for v, gone in zip(values.tolist(), na.tolist())),
        dtype=np.intp,
        count=len(values),
    )
    return index, np.array([v.strip() for v in first], dtype=object).reshape(-1)


def _encode_categorical(domain: CategoricalDomain, text: np.ndarray, is_missing: np.ndarray):
    keys = [str(v) for v in domain.values]
    where = {k: i for i, k in enumerate(keys)}  # declared values are distinct as text (validate)
    codes = np.fromiter((where.get(t, -1) for t in text.tolist()), dtype=np.int64, count=len(text))
    unmatched = (codes < 0) & ~is_missing
    if domain.integer_codes and unmatched.any():
        numbers = pd.to_numeric(pd.Series(text[unmatched], dtype=str), errors="coerce").to_numpy(dtype=float)
        whole = np.isfinite(numbers) & (numbers == np.round(numbers)) & (np.abs(numbers) < 2.0**63)
        as_keys = np.where(whole, np.where(whole, numbers, 0.0).astype(np.int64).astype(str), "")
        codes[unmatched] = pd.Index(keys).get_indexer(as_keys)
        unmatched = (codes < 0) & ~is_missing
    if domain.other is not None:
        codes[unmatched] = keys.index(str(domain.other))
    codes[codes < 0] = domain.bins  # missing
    return codes, unmatched


def _parse_numbers(domain, cells: np.ndarray, is_missing: np.ndarray, *, rounded=True) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct cell of a numeric or date column as a number, and whether it could be read.

    Integers are rounded to whole numbers (float64 here; unless ``rounded`` is False); dates become days
    since 1970-01-01 (int64), dates with a time steps since its midnight. Nothing is clamped yet.
    """
    text = pd.Series(cells, dtype=str)
    if domain.kind == "time":
        return time_steps(text.where(~is_missing), domain.written, domain.seconds)  # :mod:`.cell_values`' rule
    if domain.kind == "datetime":
        return datetime_steps(text.where(~is_missing), domain.written, domain.seconds)  # :mod:`.cell_values`' rule
    if isinstance(domain, DateDomain):
        return date_days(text.where(~is_missing), domain.written)  # the rule of :mod:`.cell_values`
    values = read_numbers(text.where(~is_missing), domain.written)  # the rule of :mod:`.cell_values`
    readable = np.isfinite(values)
    if rounded and isinstance(domain, IntegerDomain):
        values = np.rint(values)
    return values, readable


def numeric_values(domain: ColumnDomain, series: pd.Series, markers=("",)) -> np.ndarray:
    """The readable values of a numeric or date column under the public rule, missing cells left out.

    Values outside ``min..max`` are clamped, integers rounded; integers and dates come back
    as int64 (dates in days since 1970-01-01), floats as float64. These are true values:
    only a mechanism that counts them with noise may use them (see :mod:`dpsynth_core.privacy.binning`).
    """
    values, keep = _numeric_cells(domain, series, markers)
    return values[keep]


def numeric_value_counts(domain: ColumnDomain, raw: pd.Series, counts, markers=("",)) -> tuple[np.ndarray, np.ndarray]:
    """:func:`numeric_values` of a column given as its distinct raw values ``raw`` with their
    record ``counts``: the readable values and their counts (the same multiset, by the per-cell rule)."""
    values, keep = _numeric_cells(domain, raw, markers)
    return values[keep], np.asarray(counts, dtype=np.int64)[keep]


def _numeric_cells(domain: ColumnDomain, series: pd.Series, markers) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's value under the rule (see :func:`numeric_values`) and whether it is readable."""
    domain._require_complete()
    index, text, is_missing = _distinct_cells(series, markers)
    values, readable = _parse_numbers(domain, text, is_missing)
    low, high = _clamp_range(domain)
    if isinstance(domain, FloatDomain):
        values = np.clip(values, low, high)
    else:
        values = np.clip(np.where(readable, values, low), low, high).astype(np.int64)
    return values[index], readable[index]


def _clamp_range(domain: ColumnDomain) -> tuple:
    """The ends the public rule clamps a numeric or date column's values to (dates in days)."""
    if isinstance(domain, (FloatDomain, IntegerDomain)):
        return domain.min, domain.max
    return int(domain.lows[0]), int(domain.highs[-1])


def range_sides(domain: ColumnDomain, series: pd.Series, markers=("",)) -> np.ndarray:
    """For each readable cell of a numeric or date column, in :func:`numeric_values`' order: -1 when its
    value lies below the declared range, +1 above it, 0 inside (which values the public rule clamps).
    True values, like :func:`numeric_values`': only a mechanism that counts them with noise may use them."""
    domain._require_complete()
    index, text, is_missing = _distinct_cells(series, markers)
    values, readable = _parse_numbers(domain, text, is_missing)
    low, high = _clamp_range(domain)
    with np.errstate(invalid="ignore"):
        sides = np.where(values < low, -1, np.where(values > high, 1, 0)).astype(np.int8)
    return sides[index][readable[index]]


def _encode_ranges(lows: np.ndarray, values: np.ndarray, lo, hi, bins: int, readable: np.ndarray):
    clamped = readable & ((values < lo) | (values > hi))
    inside = np.clip(np.where(readable, values, lo), lo, hi)
    codes = np.searchsorted(lows, inside, side="right") - 1
    codes = np.clip(codes, 0, bins - 1).astype(np.int64)
    codes[~readable] = bins
    return codes, clamped


def encode_column(domain: ColumnDomain, series: pd.Series, markers=("",)) -> EncodedColumn:
    """Encode one column by the public rule in this module's docstring."""
    domain._require_complete()
    index, text, is_missing = _distinct_cells(series, markers)
    per_row = np.bincount(index, minlength=len(text))
    if isinstance(domain, TextDomain):
        labels = np.asarray(domain.normalise([None if m else t for t, m in zip(text, is_missing)]), dtype=object)
        changed = pd.isna(labels) & ~is_missing
        if not domain.missing:
            labels[pd.isna(labels)] = domain.label_at(0)
        row_labels = labels[index]
        used = per_row > 0
        named = used & ~pd.isna(labels)
        merged = int(len(set(text[named].tolist())) - pd.Series(labels[named], dtype=object).nunique())
        return EncodedColumn(
            domain,
            labels=row_labels,
            out_of_domain=int(per_row[changed].sum()),
            missing=int(per_row[pd.isna(labels)].sum()),
            merged=merged,
            distinct=labels,
            index=index.astype(np.int32),  # a record's position among the distinct cells (fewer than 2**31)
        )
    if isinstance(domain, CategoricalDomain):
        codes, changed = _encode_categorical(domain, text, is_missing)
    elif isinstance(domain, (IntegerDomain, FloatDomain, DateDomain)):
        values, readable = _parse_numbers(domain, text, is_missing, rounded=False)
        whole = np.rint(values) if isinstance(domain, IntegerDomain) else values
        fractional, values = readable & (whole != values) & np.isfinite(values), whole
        if isinstance(domain, FloatDomain):
            lows, lo, hi = domain.all_edges[:-1], domain.min, domain.max
        else:
            lows, lo, hi = domain.lows, int(domain.lows[0]), int(domain.highs[-1])
            values = np.where(readable, values, lo)
        codes, clamped = _encode_ranges(lows, values, lo, hi, domain.bins, readable)
        if isinstance(domain, FloatDomain) and domain.special:
            # a special value falls in its own zero-width bin, the first of the two equal edges
            inside = np.clip(values, lo, hi)
            point = readable & np.isin(inside, domain.special_values)
            codes[point] = np.searchsorted(lows, inside[point], side="left")
        changed = (~readable & ~is_missing) | clamped | fractional  # a whole-number column's fractions, rounded
    else:  # pragma: no cover - drop columns are never encoded
        raise TypeError(domain.kind)
    if not domain.missing:
        codes[codes == domain.bins] = 0
    row_codes = codes[index]
    return EncodedColumn(
        domain,
        codes=row_codes,
        out_of_domain=int(per_row[changed].sum()),
        missing=int(per_row[codes == domain.bins].sum()),
    )


def encode_table(data: pd.DataFrame, domain: TableDomain) -> EncodedTable:
    """Encode every kept column of ``data`` over ``domain`` (which must match its columns)."""
    domain.check_matches(data.columns)
    domain.validate()
    columns = {name: encode_column(col, data[name], domain.missing_markers) for name, col in domain.kept.items()}
    return EncodedTable(columns=columns, n_rows=len(data))


def _draw_in_bins(lows, highs, spread, codes: np.ndarray, noise, integer: bool) -> np.ndarray:
    """A value inside each code's bin: uniform, or through the bin's finer pieces when ``spread`` is given.

    ``spread = (piece_lows, weights)``: pieces tiling the range (every bin's low is a piece's low); a value picks
    a piece of its bin by weight, then a uniform value inside it, or a real point mass's own value
    (:func:`~dpsynth_core.domain.ranges.point_of_pieces`). Bins without pieces or weight draw uniformly."""
    if spread is None or codes.size == 0:
        return noise.integers(lows[codes], highs[codes]) if integer else noise.uniform(lows[codes], highs[codes])
    piece_lows, weights = np.asarray(spread[0], dtype=np.int64 if integer else float), np.asarray(spread[1], float)
    top = highs[-1]
    piece_highs = np.append(piece_lows[1:] - 1, top) if integer else np.append(piece_lows[1:], top)
    owner = np.searchsorted(lows, piece_lows, side="right") - 1
    totals = np.bincount(owner, weights=weights, minlength=len(lows))
    within = np.zeros_like(weights)
    positive = totals[owner] > 0
    within[positive] = weights[positive] / totals[owner][positive]
    # cumulative share of every piece within its bin, shifted by the bin's code: bin c's pieces
    # cover (c, c + 1], so c + u with u uniform in [0, 1) lands on a piece of bin c
    first = np.r_[0, np.flatnonzero(owner[1:] != owner[:-1]) + 1]
    last = np.r_[first[1:] - 1, len(owner) - 1]
    running = np.cumsum(within)
    before = np.repeat(np.r_[0.0, running[last[:-1]]], last - first + 1)
    cumulative = owner + np.minimum(running - before, 1.0)
    cumulative[last] = owner[last] + 1.0
    # (the uniforms ``uniform(0, 1)`` draws elementwise, the same numbers without its arrays of bounds)
    piece = np.minimum(_search(cumulative, codes + noise.rng.random(codes.size)), len(piece_lows) - 1)
    low, high = piece_lows[piece], piece_highs[piece]
    uniform = totals[codes] <= 0
    low, high = np.where(uniform, lows[codes], low), np.where(uniform, highs[codes], high)
    if integer:
        return noise.integers(low, high)
    points = point_of_pieces(piece_lows, piece_highs, float(top - piece_lows[0]))[piece]  # a point mass's value
    return np.where(np.isnan(points) | uniform, noise.uniform(low, high), points)


#: :func:`_search`'s cells per unit: a power of two, so a point's cell and the cells' ends are exact.
_CELLS_PER_UNIT = 1024


def _search(cumulative: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``np.searchsorted(cumulative, points, side="right")`` for points in ``[0, len)`` (``cumulative``
    ascending), the same numbers, through a table over cells of ``1 / 1024``: a point takes its cell's
    answer when no value of ``cumulative`` falls inside the cell, and is searched only otherwise
    (a few in a thousand): the binary search of a million unsorted points is most of a decode."""
    cells = int(np.ceil(points.max() + 1)) * _CELLS_PER_UNIT if points.size else 0
    if cells > 2**24 or cells <= 0:
        return np.searchsorted(cumulative, points, side="right")
    ends = np.arange(cells + 1) / _CELLS_PER_UNIT
    at_start = np.searchsorted(cumulative, ends[:-1], side="right")
    exact = at_start == np.searchsorted(cumulative, ends[1:], side="left")  # nothing in [start, end)
    cell = (points * _CELLS_PER_UNIT).astype(np.int64)
    found = at_start[cell]
    ask = np.flatnonzero(~exact[cell])
    found[ask] = np.searchsorted(cumulative, points[ask], side="right")
    return found


@dataclass
class Decoded:
    """A column's synthetic values, as :func:`decode_codes` draws them, before they become a pandas Series
    (:meth:`series`) or an Arrow array (:meth:`arrow`): the same values either way, from the same draws.

    Either ``labels`` (the possible values) with ``indices`` into them, or ``values`` (numbers, or dates as
    text) with ``dtype`` (``"Int64"``, ``"float"`` or ``"object"``); ``missing`` marks missing cells.
    """

    missing: np.ndarray
    labels: np.ndarray | None = None
    indices: np.ndarray | None = None
    values: np.ndarray | None = None
    dtype: str = "object"

    def series(self) -> pd.Series:
        """The values as a pandas Series: text as objects (None missing), integers ``Int64``, floats (NaN)."""
        if self.labels is not None:
            values = self.labels[self.indices]
            values[self.missing] = None
            return pd.Series(values, dtype=object)
        if self.dtype == "Int64":
            return pd.Series(pd.array(np.where(self.missing, 0, self.values), dtype="Int64")).mask(self.missing)
        if self.dtype == "float":
            return pd.Series(np.where(self.missing, np.nan, self.values), dtype=float)
        values = self.values.copy()
        values[self.missing] = None
        return pd.Series(values, dtype=object)

    def arrow(self) -> pa.Array:
        """The values as Arrow, the types :meth:`series` gets from Arrow (string, int64, double; missing as
        null), labels as a dictionary array over them (no string is built per record)."""
        mask = self.missing if self.missing.any() else None
        if self.labels is not None:
            indices = pa.array(self.indices.astype(np.int32, copy=False), mask=mask)
            return pa.DictionaryArray.from_arrays(indices, pa.array(self.labels, type=pa.string()))
        if self.dtype == "Int64":
            return pa.array(self.values.astype(np.int64, copy=False), mask=mask, type=pa.int64())
        if self.dtype == "float":
            return pa.array(np.where(self.missing, np.nan, self.values), from_pandas=True, type=pa.float64())
        return pa.array(self.values, mask=mask, type=pa.string())


def decode_codes(domain: ColumnDomain, codes: np.ndarray, noise) -> pd.Series:
    """Turn synthetic cell codes into values: a category, or a value drawn inside its bin.

    Integers stay integers (pandas ``Int64`` whether or not any value is missing, so the
    dtype reveals nothing), dates are written YYYY-MM-DD, code ``bins`` is missing. Inside a
    bin, values are uniform, or follow the bin's finer pieces when the domain carries a
    ``spread`` (DP output of adaptive binning, :mod:`dpsynth_core.privacy.binning`).
    """
    return decoded_codes(domain, codes, noise).series()


def decoded_codes(domain: ColumnDomain, codes: np.ndarray, noise) -> Decoded:
    """:func:`decode_codes`'s values, as a :class:`Decoded` (for a Series or an Arrow array)."""
    codes = np.asarray(codes, dtype=np.int64)
    missing = codes >= domain.bins
    safe = np.where(missing, 0, codes)
    if isinstance(domain, CategoricalDomain):
        if domain.integer_codes:
            return Decoded(missing, values=np.asarray(domain.values, dtype=np.int64)[safe], dtype="Int64")
        return Decoded(missing, labels=np.asarray(domain.values, dtype=object), indices=safe)
    if isinstance(domain, IntegerDomain):
        values = _draw_in_bins(domain.lows, domain.highs, domain.spread, safe, noise, integer=True)
        return Decoded(missing, values=values, dtype="Int64")
    if isinstance(domain, FloatDomain):
        edges = domain.all_edges
        values = domain.in_decimals(_draw_in_bins(edges[:-1], edges[1:], domain.spread, safe, noise, integer=False))
        return Decoded(missing, values=values, dtype="float")
    if isinstance(domain, DateDomain):
        steps = _draw_in_bins(domain.lows, domain.highs, domain.spread, safe, noise, integer=True)
        return Decoded(missing, values=domain.texts(steps).astype(object))
    raise TypeError(domain.kind)  # pragma: no cover
