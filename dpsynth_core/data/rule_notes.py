"""What the public rule (:mod:`.encoding`) does to cells that do not fit their declaration, in the publisher's words
(:mod:`.misfits` tells which columns hold such cells), and the check of missing cells in columns declared without
them.

The rule reads a missing cell of a column declared ``"missing": false`` as the column's first value (its first
category, its range's first bin), so a column whose file leaves cells empty comes out with too many of that value:
20% of ages read as the range's minimum come out as ages no record holds. :func:`empty_in_required` says so before
a draw, for the publisher only (it reads the data; it names columns and counts, never a value), a note of
:func:`.misfits.fit_notes` that does not stop a release.
"""

from __future__ import annotations

import pandas as pd

from ..domain import TableDomain
from ..domain.keys import MISSING
from .encoding import missing_cells

#: What the public rule does with the columns :func:`.misfits.changed_columns` finds ``mostly`` moved, and what
#: to check.
CLAMPED_HOW = (
    "A number or date outside the declared range is clamped to its nearer end, and a fraction in a whole-number column "
    "rounded: when most of a column's cells are, its range or kind is not the file's. Check it against the "
    "documentation (the unit, the column meant, fractions declared as whole numbers)."
)
#: What the public rule does with the cells of :func:`.misfits.changed_columns`, and what a publisher may declare
#: instead.
CHANGED_HOW = (
    "A release holds a cell that is none of its column's declared values (or not of its kind) as missing, or as the "
    "column's 'other' value; a number or date outside the declared range is clamped to it, and a fraction in a "
    "whole-number column rounded. Where the documentation writes a value another way than the file (other capitals, "
    "another spelling), declare it as the file writes it; a value the documentation does not list stays out, since "
    "a declaration comes from the documentation, never from the data."
)

#: What the public rule does with missing cells where none are declared, and what to declare instead.
EMPTY_HOW = (
    "A column declared without missing values reads a missing cell as its first value (its first category, or the "
    "low end of its range), so a release holds too many of that value. Unless the documentation says the column is "
    "never missing (then the file is not the one it describes), declare that it can be missing (the Domain page's "
    f"'{MISSING.label}'; \"missing\": true in a declaration)."
)


def empty_in_required(data: pd.DataFrame, domain: TableDomain) -> list[str]:
    """For the publisher only (it reads the data): each kept column declared without missing values whose cells
    are missing by the declaration's markers (or empty), one line with the counts."""
    markers = domain.missing_markers  # as the rule reads them (encoding.py): an empty cell is missing unless told
    lines = []
    for name, column in domain.kept.items():
        if name not in data or column.missing:
            continue
        empty = missing_cells(data[name], markers)  # for the publisher's eyes only; nothing declared comes from it
        if empty:
            verb = "is" if empty == 1 else "are"
            lines.append(
                f"Column '{name}': {empty:,} of its {len(data):,} cells {verb} missing, and it is declared without "
                "missing values."
            )
    return lines
