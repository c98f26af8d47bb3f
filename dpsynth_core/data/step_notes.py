"""Dates and times written more coarsely than their columns keep them, told before a draw (for the publisher only):
hourly readings kept to the second, readings every 30 minutes at any minute, a monthly series on any day."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..domain import TableDomain
from .cell_counts import DECIMALS_SHARE, distinct_cells

#: How a date column may be written as its months or quarters (a day read as its period's first, written back so).
_PERIODS = ("year and month", "year and quarter")
#: The steps a time may be kept to, coarsest first, with their seconds (``kinds.DATETIME_STEPS``'s, as words).
_COARSER_STEPS = (("day", 86400), ("hour", 3600), ("minute", 60))


def step_columns(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """For the publisher only (it reads the data): each kept column of dates with a time, or of times of day, kept to
    a finer step than at least :data:`DECIMALS_SHARE` of its filled times are written to (hourly readings kept to the
    second), and each column of dates nearly all on a month's or a quarter's first day (a monthly series), one line
    each naming the column, the step or period they fit and the counts (no value). Such a release writes 13:47:21
    where the file writes 13:00, and any day of a month; the step or the period declared rounds the draw
    (post-processing), as decimals do."""
    from .encoding import numeric_value_counts

    lines = []
    for name, column in domain.kept.items():
        if name not in data or column.kind not in ("date", "datetime", "time") or column.written in _PERIODS:
            continue
        distinct = distinct_cells(data, name, counts)  # for the publisher's eyes only; nothing declared comes from it
        values, weights = numeric_value_counts(
            column, distinct.index.to_series(), distinct.to_numpy(), domain.missing_markers
        )
        total = int(weights.sum())
        if not total:
            continue
        if column.kind == "date":  # days since 1970-01-01: a monthly or quarterly series on its periods' first days
            days = values.astype("datetime64[D]")
            months = days.astype("datetime64[M]")
            first = months.astype("datetime64[D]") == days
            for period, on in (("quarter", first & (months.astype(np.int64) % 3 == 0)), ("month", first)):
                held = int(weights[on].sum())
                if held >= DECIMALS_SHARE * total:
                    share = f"all {total:,} of its" if held == total else f"{held:,} of its {total:,}"
                    share += " dates are"
                    lines.append(f"Column '{name}': {share} a {period}'s first day, where every day is kept.")
                    break
            continue
        seconds = values.astype(np.int64) * column.seconds
        every = _every(seconds, weights, total, column)
        if every:
            lines.append(f"Column '{name}': {every}.")
            continue
        for step, width in _COARSER_STEPS[column.kind == "time" :]:  # a time of day has no day to be on
            if width <= column.seconds:
                break
            held = int(weights[seconds % width == 0].sum())
            if held >= DECIMALS_SHARE * total:
                share = f"all {total:,} of its times are" if held == total else f"{held:,} of its {total:,} times are"
                on = f"on the {step}" if step != "day" else "midnight (dates with no time: declare them as dates)"
                lines.append(f"Column '{name}': {share} {on}, where they are kept to the {column.finest}.")
                break
    return lines


#: The minutes readings often come every (half-hourly meters, quarter-hourly sensors), coarsest first.
EVERY_MINUTES = (30, 15, 10, 5)


def _every(seconds: np.ndarray, weights: np.ndarray, total: int, column) -> str | None:
    """Times nearly all every 30, 15, 10 or 5 minutes but not on the hour (tsibbledata's half-hourly electricity
    demand), in a column kept to the minute or finer with no ``multiple_of``: the words of their line, else None."""
    if (
        column.multiple_of is not None
        or column.seconds > 60
        or weights[seconds % 3600 == 0].sum() >= DECIMALS_SHARE * total
    ):
        return None
    for minutes in EVERY_MINUTES:
        held = int(weights[seconds % (60 * minutes) == 0].sum())
        if held >= DECIMALS_SHARE * total:
            share = f"all {total:,} of its times are" if held == total else f"{held:,} of its {total:,} times are"
            how = f"every {minutes} steps" if column.seconds == 60 else f"kept to the minute, every {minutes} steps"
            return f"{share} every {minutes} minutes, where they may come at any {column.finest} (declare them {how})"
    return None
