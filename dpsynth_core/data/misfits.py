"""Columns whose declaration does not fit the data file: most filled cells would become missing.

A date column whose file writes 31/01/2012, a number column that holds text, a list of country names
for a file that writes USA: the public rule (:mod:`.encoding`) turns every such cell into missing, and
the release then says nothing about the column. This check says so before any draw, so a declaration of
the wrong kind or format costs no budget. It reads the data, so its words are for the publisher only and
never enter a release (as the Preview's counts of changed cells); it names no value and flags a column only
when at least :data:`MISFIT_SHARE` of its filled cells do not fit, so it tells a wrong kind or format,
never which rare value a list leaves out (the declaration stays the publisher's, from documentation).
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from ..domain import TableDomain
from .encoding import encode_column

#: A column is flagged when at least this share of its filled cells cannot be read as its kind or lies
#: outside its declared values.
MISFIT_SHARE = 0.5

_NUMBERS = (
    "are not numbers the release can read (numbers are read written plainly, such as 1234.5, unless the Domain "
    "page says the file writes them with thousands commas or a decimal comma)"
)
_WHAT = {
    "date": "are not dates the release can read (dates are read year first, such as 2012-01-31, unless the "
    "Domain page says the file writes them day or month first)",
    "integer": _NUMBERS,
    "float": _NUMBERS,
    "categorical": "are none of its declared values",
    "text": "do not fit its declared kind of text",
}


def unfit_cells(column, series: pd.Series, markers=("",)) -> tuple[int, int]:
    """A column's filled cells (not missing by the declaration's markers) and how many of them the public rule
    turns into missing (or the column's ``other`` value): unreadable as its kind, or outside its values.
    Numbers outside the range are clamped, not counted."""
    allowing = replace(column, missing=True)  # a column declared without missing values: its misfits still show
    encoded = encode_column(allowing, series, markers)
    filled = len(series) - _missing_cells(series, markers)
    if column.kind in ("categorical", "text"):
        return filled, int(encoded.out_of_domain)
    return filled, int(encoded.missing) - (len(series) - filled)


def _missing_cells(series: pd.Series, markers) -> int:
    """Cells missing by the declaration: NaN, or text equal to a missing marker once stripped."""
    text = series.astype("string").str.strip()
    return int((series.isna() | text.isin(list(markers)).fillna(False)).sum())


def misfit_columns(data: pd.DataFrame, domain: TableDomain) -> list[str]:
    """For the publisher only (it reads the data): each kept column at least :data:`MISFIT_SHARE` of whose
    filled cells would become missing, in one line naming the column, the counts and what to check."""
    out = []
    for name, column in domain.kept.items():
        if name not in data or column.kind not in _WHAT:
            continue
        filled, unfit = unfit_cells(column, data[name], domain.missing_markers)
        if filled and unfit >= MISFIT_SHARE * filled:
            out.append(
                f"Column '{name}': {unfit:,} of its {filled:,} filled cells {_WHAT[column.kind]}, so a release would "
                "hold them as missing. Check its declaration on the Domain page."
            )
    return out
