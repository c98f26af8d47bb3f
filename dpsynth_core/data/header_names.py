"""A table's column names from its header's cells, for every format alike (CSV, spreadsheet, statistical
package): a cell left empty named by its position, a repeated name numbered, and a header over several rows (a
survey tool's question above its answers) joined into one name per column. Only the header is read, never a
record.
"""

from __future__ import annotations

import json

from .. import constraints
from ..domain.header import HEADER_JOIN, NUMBERED_NAME
from ..errors import DataError


def join_header_rows(rows: list[list[str]]) -> list[str]:
    """One name per column from a header over several rows (``rows``: each row's cells, top first), as survey
    tools export one (SurveyMonkey: a question above each of its answers; a spreadsheet: a merged title above
    its columns): each column's non-empty cells joined by :data:`HEADER_JOIN`, top first, a part repeated
    from the row above kept once; a cell holding a JSON object (Qualtrics' import ids) names nothing. An empty
    cell of an upper row takes the cell to its left in that row when the
    column has a name below it (a question's name spans its answers, as a merged cell does). Only the header's
    cells are read, never a record.

    >>> join_header_rows([["id", "Seen which films?", "", "Age"], ["", "Episode I", "Episode II", "Response"]])
    ['id', 'Seen which films? | Episode I', 'Seen which films? | Episode II', 'Age | Response']
    >>> join_header_rows([["Q1", "Q2_1"], ["How old are you?", "Rate it - Taste"], ['{"ImportId":"QID1"}', '{"x":1}']])
    ['Q1 | How old are you?', 'Q2_1 | Rate it - Taste']
    """
    width = max(len(row) for row in rows)
    grid = [[_name_part(c) for c in row] + [""] * (width - len(row)) for row in rows]
    for r, row in enumerate(grid[:-1]):
        for c in range(1, width):
            if not row[c] and any(below[c] for below in grid[r + 1 :]):
                row[c] = row[c - 1]
    names = []
    for c in range(width):
        parts: list[str] = []
        for row in grid:
            if row[c] and (not parts or parts[-1] != row[c]):
                parts.append(row[c])
        names.append(HEADER_JOIN.join(parts))
    return names


def _name_part(cell) -> str:
    """A header cell as a part of a column's name: its text, or nothing for a JSON object (Qualtrics writes each
    question's import id, ``{"ImportId":"QID1"}``, on its export's third header row: metadata, not a name)."""
    text = str(cell or "").strip()
    if text.startswith("{") and text.endswith("}"):
        try:
            if isinstance(json.loads(text), dict):
                return ""
        except ValueError:
            pass
    return text


#: ``header_rows`` for a file with no header line: its first row or line is a record, and its columns are named
#: by position (:func:`numbered_columns`), so no record's values become names.
NO_HEADER = 0


def numbered_columns(count: int, name: str, names: tuple[str, ...] | None = None) -> list[str]:
    """The names of a table without a header line, from the number of its fields only: the publisher's ``names``
    (typed from the table's documentation, one per field, in order), else ``column_1``, ``column_2``, ....

    >>> numbered_columns(3, "data.csv")
    ['column_1', 'column_2', 'column_3']
    >>> numbered_columns(2, "adult.data", ("age", "workclass"))
    ['age', 'workclass']
    """
    if names is None:
        return name_columns([NUMBERED_NAME.format(i) for i in range(1, count + 1)], name)
    if len(names) != count:
        raise DataError(
            f"{name}: {len(names):,} column names are given, but its first record has {count:,} fields; give one "
            "name per field, in the file's order"
        )
    return name_columns(list(names), name)


def name_columns(names: list[str], name: str) -> list[str]:
    """The columns' names from a header's cells, named plainly, for every format alike: a column
    without a name (the row index R's write.csv and pandas' to_csv write, an empty or merged header
    cell of a spreadsheet) is named by its position, ``Unnamed: 0``, as pandas names it, so that it
    can be declared (and dropped); spaces at either end of a name are dropped (a header typed ``age, sex``
    names ``sex``, as its cells are read without them); duplicates become ``name.1``, ``name.2``."""
    if len(names) > constraints.MAX_COLUMNS:
        raise DataError(f"{name} has {len(names):,} columns, more than the {constraints.MAX_COLUMNS:,} allowed")
    names = [n.strip() or f"Unnamed: {i}" for i, n in enumerate(names)]
    seen: dict = {}
    out = []
    for column in names:
        label, k = column, seen.get(column, 0)
        while label in seen:
            k += 1
            label = f"{column}.{k}"
        seen[column] = k
        seen[label] = 0
        out.append(label)
    return out
