"""Encoding a table over its declared domain (:mod:`.decoding` turns synthetic codes back into values).

The public rule for values that do not fit the declaration (documented in the README):

* numbers and dates below ``min`` or above ``max`` are clamped to the nearest bound;
* numbers are rounded to whole numbers in ``integer`` columns (a cell changed, counted as one);
* a cell that cannot be read as the column's kind (a date: :mod:`.cell_values`), or a category or text value
  outside the domain, becomes missing (a categorical column with an ``other`` value maps it there), but a cell
  naming a declared country or US state another way (``USA``, ``United-States``, ``NEW YORK``:
  :func:`~..domain.public_lists.read_as_named`) is that place, and a cell written as a declared value's label
  (``Female`` where the code 0 is labelled so: :attr:`~..domain.CategoricalDomain.read_labels`) is that value,
  and in a column declared ``any_spelling``, so is a cell writing a declared value in other capitals, spaces or
  punctuation (``ta_to`` where ``TA/TO`` is declared: :attr:`~..domain.CategoricalDomain.read_spellings`);
* in a column declared without missing values, a missing cell takes the first value of
  the domain (the first category, the first bin, the first label), a cell the rule changed.

The rule looks at one cell at a time and never widens a domain. The counts of cells it
changed are for the publisher's eyes only and never enter a release.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..domain import CategoricalDomain, ColumnDomain, DateDomain, FloatDomain, IntegerDomain, TableDomain, TextDomain
from ..domain.public_lists import read_as_named
from ..domain.spellings import loose_key
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
    #: missing cells of a column declared without missing values, read as its first value (among ``out_of_domain``)
    empty: int = 0
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
    """Per column: records moved out of the domain, missing cells, and where there are any, the missing cells of a
    column declared without them (``read_as_first``, among those moved) and, for text declared ``any``, distinct
    values that share a pseudonym (publisher only). ``columns`` hold ``domain``, ``out_of_domain``, ``missing``,
    ``empty`` and ``merged``."""
    out = {n: {"out_of_domain": c.out_of_domain, "missing": c.missing} for n, c in columns.items()}
    for name, column in columns.items():
        if column.empty:
            out[name]["read_as_first"] = column.empty
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
    elif unmatched.any():  # a declared country's or US state's other names and spellings
        codes[unmatched] = read_as_named(tuple(keys), text[unmatched].tolist())
    unmatched = (codes < 0) & ~is_missing
    if unmatched.any() and (labels := domain.read_labels):  # a declared value's label written in its place
        codes[unmatched] = np.fromiter((labels.get(t, -1) for t in text[unmatched].tolist()), np.int64)
        unmatched = (codes < 0) & ~is_missing
    if unmatched.any() and (spellings := domain.read_spellings):  # in other capitals, spaces or punctuation
        codes[unmatched] = np.fromiter((spellings.get(loose_key(t), -1) for t in text[unmatched].tolist()), np.int64)
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
    if isinstance(domain, DateDomain):  # dates, and dates with a time of day: the rule of :mod:`.cell_values`
        years = (domain.min.year, domain.max.year) if domain.min and domain.max else None  # for 5/10/18, Aug-62
        if domain.kind == "datetime":
            return datetime_steps(text.where(~is_missing), domain.written, domain.seconds, years)
        return date_days(text.where(~is_missing), domain.written, years)
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
    values, keep = numeric_cells(domain, series, markers)
    return values[keep]


def numeric_value_counts(domain: ColumnDomain, raw: pd.Series, counts, markers=("",)) -> tuple[np.ndarray, np.ndarray]:
    """:func:`numeric_values` of a column given as its distinct raw values ``raw`` with their
    record ``counts``: the readable values and their counts (the same multiset, by the per-cell rule)."""
    values, keep = numeric_cells(domain, raw, markers)
    return values[keep], np.asarray(counts, dtype=np.int64)[keep]


def numeric_cells(domain: ColumnDomain, series: pd.Series, markers) -> tuple[np.ndarray, np.ndarray]:
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
    empty = 0 if domain.missing else int(per_row[is_missing].sum())  # read as the first value (below)
    if isinstance(domain, TextDomain):
        labels = np.asarray(domain.normalise([None if m else t for t, m in zip(text, is_missing)]), dtype=object)
        changed = pd.isna(labels) & ~is_missing
        if not domain.missing:
            labels[pd.isna(labels)] = domain.label_at(0)
            changed |= is_missing  # a missing cell where none is declared takes the first value: changed too
        row_labels = labels[index]
        used = per_row > 0
        named = used & ~pd.isna(labels)
        merged = int(len(set(text[named].tolist())) - pd.Series(labels[named], dtype=object).nunique())
        return EncodedColumn(
            domain,
            labels=row_labels,
            out_of_domain=int(per_row[changed].sum()),
            missing=int(per_row[pd.isna(labels)].sum()),
            empty=empty,
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
        changed = changed | is_missing  # a missing cell where none is declared takes the first value: changed too
    row_codes = codes[index]
    return EncodedColumn(
        domain,
        codes=row_codes,
        out_of_domain=int(per_row[changed].sum()),
        missing=int(per_row[codes == domain.bins].sum()),
        empty=empty,
    )


def encode_table(data: pd.DataFrame, domain: TableDomain) -> EncodedTable:
    """Encode every kept column of ``data`` over ``domain`` (which must match its columns)."""
    domain.check_matches(data.columns)
    domain.validate()
    columns = {name: encode_column(col, data[name], domain.missing_markers) for name, col in domain.kept.items()}
    return EncodedTable(columns=columns, n_rows=len(data))
