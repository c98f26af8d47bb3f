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


def test_a_date_after_another_in_nearly_every_row_is_told_once_and_not_when_declared_past_it():
    """The survey's interview end is on or after its start in 1,875 of the 1,901 records holding both (1,811 the
    same day): told once, the later column named (no date), and nothing once it is declared past the start; two
    dates in no order are not told."""
    from dpsynth_core.data.banded import ordered_dates
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("ess9gb.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("ess9gb")
    said = ordered_dates(frame, TableDomain.from_json(spec))
    assert said == ["Column 'endintrvw' is on or after 'stintrvw' in 1,875 of the 1,901 rows that hold both."]
    assert said[0] in fit_notes(frame, TableDomain.from_json(spec)).banded
    spec["columns"]["endintrvw"]["derived"] = {"from": "stintrvw", "gap": [0, 30]}
    assert ordered_dates(frame, TableDomain.from_json(spec)) == []
    days = pd.date_range("2020-01-01", periods=40).strftime("%Y-%m-%d")
    crossed = pd.DataFrame({"start": days, "end": days[::-1], "n": ["1"] * 40})
    assert ordered_dates(crossed, _domain()) == []


def test_compas_dates_are_each_told_past_the_nearest_date_they_follow():
    """COMPAS declares its 14 dates over one wide range, so a release could put any before another: each date that
    follows another in nearly every record is told once, past the nearest one (a jail exit past its entry, not past
    the birth date), and a chain so declared is accepted (see tests/core/domain/test_derived.py)."""
    from dpsynth_core.data.banded import ordered_dates
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)
    said = ordered_dates(frame, TableDomain.from_json(complete_domain("compas")))
    assert len(said) == 13
    assert "Column 'c_jail_out' is on or after 'c_jail_in' in 961 of the 961 rows that hold both." in said
    assert "Column 'r_jail_out' is on or after 'r_jail_in' in 328 of the 328 rows that hold both." in said
