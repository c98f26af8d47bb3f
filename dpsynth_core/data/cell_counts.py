"""The distinct cells a pre-draw check reads, counted once for all of them, and the share of a column's cells a
note on how they are written needs (:mod:`.file_notes`, :mod:`.step_notes`). For the publisher's eyes only."""

from __future__ import annotations

import pandas as pd

#: A real-number column that declares no decimal places, or more than its numbers have, is told when at least this
#: share of its filled numbers have at most :data:`MOST_DECIMALS` (:func:`decimal_columns`): a count stored as a real
#: number (a Stata or SPSS file writes most numbers so), or a reading to a tenth.
DECIMALS_SHARE = 0.99


def distinct_cells(data: pd.DataFrame, name, counts: dict | None) -> pd.Series:
    """Each distinct cell of a column with its count (read for the publisher's eyes only), kept in ``counts`` when
    given so that the checks of one :func:`fit_notes` count each column once."""
    if counts is not None and name in counts:
        return counts[name]
    series = data[name]  # counted for the publisher's eyes only: nothing declared comes from it
    distinct = series.value_counts()
    if counts is not None:
        counts[name] = distinct
    return distinct
