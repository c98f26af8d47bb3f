"""A column declared to lie past another one (``"derived": {"from": ..., "gap": [least, most]}``,
:mod:`dpsynth_core.domain.derived`) is read as its gap: its value minus its source's (days between two dates).

A release measures each column with its own noise and draws each row from those measurements, so a date that follows
another in every record comes out before it in many synthetic rows (the European Social Survey's interview end
before its start in 798 of 1,902 rows at ε = 1, where 26 of 1,905 records have it so). Read as its gap, the column
is measured like any number column (the same noise, the same budget as the column itself), and the release draws it
as its source's synthetic value plus the drawn gap (:func:`~dpsynth_core.data.decoding.derived_values`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..domain import TableDomain
from .encoding import numeric_cells


def with_gaps(frame: pd.DataFrame, domain: TableDomain) -> pd.DataFrame:
    """``frame`` with each gap column's cells replaced by the difference between its value and its source's, each
    read and clamped by its column's public rule (dates in days): whole numbers (real ones for a ``float`` column),
    missing where either is missing or unreadable. The frame itself when the declaration has no gap column. The
    result is what :meth:`~dpsynth_core.domain.TableDomain.measured` declares; it is data, counted only with noise.
    The engines for large tables read the same numbers (:func:`gap_readings`)."""
    gaps = {n: c for n, c in domain.gaps.items() if n in frame}
    if not gaps:
        return frame
    markers, changed = domain.missing_markers, {}
    for name, column in gaps.items():
        source = domain.kept[column.derived.source]
        start, started = numeric_cells(source, frame[source.name], markers)
        end, ended = numeric_cells(column, frame[name], markers)
        both = started & ended
        difference = np.where(both, end.astype(float) - start.astype(float), 0.0)
        if column.kind != "float":  # whole numbers, or days (a date and time's steps) between two dates
            difference = np.rint(difference).astype(np.int64)
        changed[name] = pd.Series(difference, index=frame.index).astype(object).where(both, None)
    return frame.assign(**changed)


def gap_read_columns(domain: TableDomain) -> list:
    """The columns a gap is read from: each gap column of ``domain`` and its source, once each, in that order (the
    distinct values :func:`gap_readings` needs)."""
    return list(dict.fromkeys(n for gap, c in domain.gaps.items() for n in (gap, c.derived.source)))


def gap_readings(domain: TableDomain, distinct: dict) -> dict:
    """What an engine joins to its rows to read the gap columns of ``domain`` as :func:`with_gaps` does:
    ``{column: (raw values, numbers, readable)}`` for each gap column and each source, ``distinct`` holding each
    one's distinct raw values (``{column: (values, counts)}``, as
    :meth:`~dpsynth_core.engines.base.EngineSource._distinct` gives them): real numbers for a ``float`` gap and its
    source, whole ones otherwise, and whether each cell is readable (not missing). The engine subtracts a row's
    source number from its column's, and leaves the gap missing where either is not readable."""
    real = {n for n, c in domain.gaps.items() if c.kind == "float"}
    real |= {c.derived.source for n, c in domain.gaps.items() if n in real}
    out = {}
    for name in gap_read_columns(domain):
        values = distinct[name][0]
        numbers, readable = numeric_cells(domain.kept[name], pd.Series(values, dtype=object), domain.missing_markers)
        numbers = numbers.astype(float if name in real else np.int64)
        out[name] = (values, numbers, readable)
    return out


def gap_engine_refusal(gaps: dict, engine: str, able: str) -> str:
    """Why a declaration with gap columns is not counted by ``engine``, which counts each column by itself;
    ``able``: the engines that read gaps, in words."""
    names = ", ".join(f"'{n}'" for n in gaps)
    return (
        f"the {engine} engine counts each column by itself, and {names} is read as its gap past another column: "
        f"count this table with engine {able}, or declare the column without its 'gap'"
    )


def gap_named(entry: dict, domain: TableDomain) -> dict:
    """A release card's entry on a column (``entry["column"]``) named as what was measured when it is a gap column:
    ``endintrvw (days past 'stintrvw')``, so that its fitted bins (0, 1) are not read as dates."""
    column = domain.gaps.get(entry["column"])
    if column is None:
        return entry
    unit = {"date": "days", "datetime": f"{getattr(column, 'finest', '')}s"}.get(column.kind, "amount")
    return {**entry, "column": f"{entry['column']} ({unit} past '{column.derived.source}')"}
