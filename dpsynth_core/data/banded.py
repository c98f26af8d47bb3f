"""Columns that are another column in bands or groups (an age group beside the age, a loan's grade beside its
sub-grade), told to the publisher before a draw.

A release measures each column and draws each row from noisy tables, so two columns one of which is the other cut
into bands by a public rule come out apart: at epsilon 1, carData's ``GSSvocab`` (the General Social Survey's
vocabulary test, 28,867 records: ``ageGroup`` is ``age`` in five bands) released 11% to 16% of its rows with an age
outside its age group. The check reads the data for the publisher's eyes only (:func:`banded_columns`), names the
columns and counts, never a value; what to do (:data:`BANDED_HOW`) is the publisher's choice.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..domain import TableDomain
from .cell_values import read_numbers

#: What a release does with a column and its bands, and what to declare instead.
BANDED_HOW = (
    "A release measures each column with its own noise and draws every row from those measurements, so a column "
    "and its bands or groups come out apart: some synthetic rows will hold a number outside its band (the General "
    "Social Survey's vocabulary file at ε = 1: an age outside its age group in 11% to 16% of the rows), or a value "
    "in another group than its own (Lending Club's loans: a sub-grade of another grade in 9% to 11%). Declare the "
    "bands or groups as drop and derive them from the released column yourself by the same public rule after the "
    "release, or drop the finer column if the groups are what your readers need: the release then spends nothing "
    "on the copy, and the two cannot disagree."
)
#: At least this many rows must hold both columns for them to be told banded.
BANDED_LEAST = 20


def _bands_like(labels) -> bool:
    """Whether most of a column's labels carry a digit, as bands are named (``18-29``, ``60+``, ``<12 yrs``,
    ``Less than 25``): a public filter that keeps the check to likely pairs on a wide table."""
    labels = [str(v) for v in labels]
    return sum(any(ch.isdigit() for ch in label) for label in labels) * 2 >= len(labels) >= 2


def banded_columns(data: pd.DataFrame, domain: TableDomain) -> list[str]:
    """For the publisher only (it reads the data): each kept list of categories (its labels mostly holding digits)
    that is, in every row holding both, a kept number column cut into contiguous bands, one band a category, with
    more distinct numbers than bands; one line each naming the two columns, the bands and the rows (no value).
    Vectorised: each number column is sorted once; a pair costs one pass over its rows."""
    markers = list(domain.missing_markers)
    bands = [n for n, c in domain.kept.items() if c.kind == "categorical" and n in data and _bands_like(c.values)]
    sources = [n for n, c in domain.kept.items() if c.kind in ("integer", "float") and n in data] if bands else []
    head = {n: _sorted_numbers(data[n].iloc[:_SAMPLE], domain.kept[n], markers) for n in sources}
    whole: dict = {}
    lines = []
    for name in bands if sources else ():
        first, codes = _codes(data[name].iloc[:_SAMPLE], markers)[0], None
        for source in sources:
            values, order = head[source]
            if _bands(values[order], first[order], least=0) is None:  # most fail on the first rows
                continue
            codes = _codes(data[name], markers)[0] if codes is None else codes
            values, order = whole.setdefault(source, _sorted_numbers(data[source], domain.kept[source], markers))
            found = _bands(values[order], codes[order])
            if found is not None:
                count, rows = found
                lines.append(f"Column '{name}' is '{source}' in {count} bands in all {rows:,} rows that hold both.")
                break
    return lines + grouped_columns(data, domain)


#: A finer list is told to group a coarser one only where it holds at least this many rows a value, on average:
#: a list of 200 countries on 300 rows would determine any column by chance.
GROUPED_ROWS_A_VALUE = 20


def grouped_columns(data: pd.DataFrame, domain: TableDomain) -> list[str]:
    """For the publisher only (it reads the data): each kept list of categories that is, in every row holding both,
    a function of a kept list of more declared values (Lending Club's ``grade`` A to G of its ``sub_grade`` A1 to G5:
    a release drew them apart in 9% to 11% of the rows at epsilon 1), the finer one declaring at most a
    :data:`GROUPED_ROWS_A_VALUE`-th as many values as the table has rows; one line each (no value). A pair is tried
    on the table's first rows, where most fail, then on all of them."""
    markers = list(domain.missing_markers)
    sizes = {
        name: len(column.values)
        for name, column in domain.kept.items()
        if column.kind == "categorical" and name in data and 2 <= len(column.values) * GROUPED_ROWS_A_VALUE <= len(data)
    }
    head = {name: _codes(data[name].iloc[:_SAMPLE], markers) for name in sizes}
    whole: dict = {}
    lines = []
    for name in sizes:
        for finer in sizes:
            if sizes[finer] <= sizes[name] or _seen(head[finer], head[name]) is None:  # most fail on the first rows
                continue
            fine, coarse = (whole.setdefault(n, _codes(data[n], markers)) for n in (finer, name))
            seen = _seen(fine, coarse)
            groups = int(seen.any(axis=0).sum()) if seen is not None else 0
            rows = int(((fine[0] >= 0) & (coarse[0] >= 0)).sum())
            if groups >= 2 and rows >= BANDED_LEAST:
                lines.append(f"Column '{name}' is '{finer}' in {groups} groups in all {rows:,} rows that hold both.")
                break
    return lines


#: A pair is first tried on the table's first rows (most pairs fail there at once), then on all of them.
_SAMPLE = 2000


def _sorted_numbers(cells: pd.Series, column, markers: list) -> tuple[np.ndarray, np.ndarray]:
    """A number column's cells as the release reads them (NaN: missing or unread) and their order, sorted."""
    text = cells.astype("string")
    values = read_numbers(text.where(~text.isin(markers)), column.written)
    return values, np.argsort(values, kind="stable")


def _codes(cells: pd.Series, markers: list) -> tuple[np.ndarray, int]:
    """A column's cells as codes (-1: missing) and how many distinct ones."""
    text = cells.astype("string")
    codes, labels = pd.factorize(text.where(~text.isin(markers)))
    return codes, len(labels)


def _seen(fine: tuple, coarse: tuple) -> np.ndarray | None:
    """Which of ``coarse``'s categories each of ``fine``'s holds, over the rows holding both (one pass); None when one
    of ``fine``'s holds two: no function of it."""
    (f, _), (c, values) = fine, coarse
    held = (c >= 0) & (f >= 0)
    seen = np.zeros((int(f[held].max(initial=-1)) + 1, max(values, 1)), dtype=bool)
    seen[f[held], c[held]] = True
    return None if (seen.sum(axis=1) > 1).any() else seen


def _bands(values: np.ndarray, codes: np.ndarray, least: int = BANDED_LEAST) -> tuple[int, int] | None:
    """``(bands, rows)`` when ``codes``, along ``values`` sorted (NaN last), are contiguous runs of one category
    each, equal numbers in one category, over more distinct numbers than categories (at least ``least`` rows holding
    both; a sample's first rows: none, and one band will do); else None."""
    held = ~np.isnan(values) & (codes >= 0)
    x, c = values[held], codes[held]
    if x.size < least:
        return None
    if not least:  # a sample's first rows: only a number in two categories, or a band in two runs, rules it out
        changed = c[1:] != c[:-1]
        return None if ((x[1:] == x[:-1]) & changed).any() or 1 + changed.sum() != len(np.unique(c)) else (0, 0)
    same = x[1:] == x[:-1]
    changed = c[1:] != c[:-1]
    if (same & changed).any():  # one number in two categories: no function of the number
        return None
    bands = len(np.unique(c))
    runs = 1 + int(changed.sum())
    if bands < 2 or runs != bands or 1 + int((~same).sum()) <= bands:
        return None
    return bands, int(x.size)
