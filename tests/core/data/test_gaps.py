"""A column declared past another one is read as its gap (``dpsynth_core.data.gaps``)."""

from __future__ import annotations

import pandas as pd

from dpsynth_core.data.gaps import with_gaps
from dpsynth_core.data.misfits import fit_notes
from dpsynth_core.domain import TableDomain


def _domain(**end) -> TableDomain:
    return TableDomain.from_json(
        {
            "columns": {
                "start": {"type": "date", "min": "2020-01-01", "max": "2020-12-31"},
                "end": {"type": "date", "min": "2020-01-01", "max": "2021-06-30", **end},
                "n": {"type": "integer", "min": 0, "max": 10},
            },
            "missing_values": {"markers": ["NA"]},
        }
    )


def test_a_gap_column_is_read_as_its_days_past_its_source_and_missing_where_either_is():
    """Each cell read by its column's rule (clamped: the end after the declared last day counts from that day) and
    the difference written as whole days; a missing or unreadable cell on either side is missing; other columns and
    a declaration without a gap are left as they are."""
    frame = pd.DataFrame(
        {
            "start": ["2020-03-01", "2020-03-01", "NA", "2020-12-30", "2020-05-05"],
            "end": ["2020-03-01", "2020-03-11", "2020-03-11", "2022-01-01", "soon"],
            "n": ["1", "2", "3", "4", "5"],
        }
    )
    assert with_gaps(frame, _domain()) is frame
    read = with_gaps(frame, _domain(derived={"from": "start", "gap": [0, 30]}))
    assert read["end"].tolist() == ["0", "10", "", "182", ""]
    assert read["start"].equals(frame["start"]) and read["n"].equals(frame["n"])


def test_the_check_before_a_draw_reads_the_gap_and_says_so():
    """An end declared 0 to 30 days past its start: the check reads its gap, not its dates (which would be no
    numbers), and names the rows whose gap lies outside it as the gap's."""
    frame = pd.DataFrame({"start": ["2020-03-01"] * 30, "end": ["2020-03-02"] * 29 + ["2020-06-01"], "n": ["1"] * 30})
    notes = fit_notes(frame, _domain(derived={"from": "start", "gap": [0, 30]}))
    assert not notes.missing
    assert notes.changed == [
        "Column 'end' (its gap past 'start'): 1 of its 30 filled cells lies outside the declared range or is a fraction."
    ]
