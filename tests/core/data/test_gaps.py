"""A column declared past another one is read as its gap (``dpsynth_core.data.gaps``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

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
    the difference as whole days; a missing or unreadable cell on either side is missing (whatever the declared
    markers); other columns and a declaration without a gap are left as they are."""
    frame = pd.DataFrame(
        {
            "start": ["2020-03-01", "2020-03-01", "NA", "2020-12-30", "2020-05-05"],
            "end": ["2020-03-01", "2020-03-11", "2020-03-11", "2022-01-01", "soon"],
            "n": ["1", "2", "3", "4", "5"],
        }
    )
    assert with_gaps(frame, _domain()) is frame
    read = with_gaps(frame, _domain(derived={"from": "start", "gap": [0, 30]}))
    assert read["end"].tolist() == [0, 10, None, 182, None]
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


def test_a_date_and_time_past_another_is_measured_in_its_steps_and_drawn_in_order():
    """Times kept to the minute, an end 0 to 2 days past its start: measured as 0 to 2,880 minutes, told before the
    draw when declared apart, and drawn in order (a start and its end from a theft report, as New York City's vehicle
    thefts give them: 0 of 35,737 synthetic rows out of order with the gap, 17,981 without)."""
    from dpsynth_core import synthesize
    from dpsynth_core.data.banded import ordered_dates

    rng = np.random.default_rng(0)
    start = pd.Timestamp("2015-01-01") + pd.to_timedelta(rng.integers(0, 300 * 1440, 600), unit="min")
    end = start + pd.to_timedelta(rng.integers(0, 2 * 1440, 600), unit="min")
    frame = pd.DataFrame({"start": start.strftime("%Y-%m-%d %H:%M"), "end": end.strftime("%Y-%m-%d %H:%M")})
    moments = {"type": "datetime", "min": "2015-01-01 00:00", "max": "2015-12-31 23:59", "step": "minute"}
    spec = {"columns": {"start": dict(moments), "end": dict(moments)}}
    assert ordered_dates(frame, TableDomain.from_json(spec)) == [
        "Column 'end' is on or after 'start' in 600 of the 600 rows that hold both."
    ]
    spec["columns"]["end"]["derived"] = {"from": "start", "gap": [0, 2]}
    domain = TableDomain.from_json(spec).validate()
    measured = domain.measured().columns["end"]
    assert (measured.kind, measured.min, measured.max) == ("integer", 0, 2880)
    assert "drawn as 'start' plus 0 to 2 days" in domain.columns["end"].describe()
    out = synthesize(frame, spec, 1.0, method="marginals", random_state=2).data
    minutes = (pd.to_datetime(out["end"]) - pd.to_datetime(out["start"])).dt.total_seconds() / 60
    assert minutes.notna().sum() > 300 and minutes.min() >= 0 and minutes.max() <= 2880
    assert (minutes % 1 == 0).all()  # on the minute, as the column is kept


def test_a_year_beside_its_date_is_told_and_one_off_year_is_not():
    """The survey's start with its year beside it: told as the date's year (no value named); one record's year
    changed, or the year declared the date's part, is not told."""
    from dpsynth_core.data.banded import date_parts
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("ess9gb.csv"), dtype=str, keep_default_na=False)
    start = pd.to_datetime(frame["stintrvw"], errors="coerce")
    frame = frame.assign(year=start.dt.year.astype("Int64").astype(str).replace("<NA>", ""))
    spec = complete_domain("ess9gb")
    spec["columns"]["year"] = {"type": "integer", "min": 2018, "max": 2019}
    assert date_parts(frame, TableDomain.from_json(spec)) == [
        "Column 'year' is the year of 'stintrvw' in all 1,905 rows that hold both."
    ]
    off = frame.assign(year=frame["year"].mask(frame.index == 0, "2017"))
    assert date_parts(off, TableDomain.from_json(spec)) == []
    spec["columns"]["year"]["derived"] = {"from": "stintrvw", "part": "year"}
    assert date_parts(frame, TableDomain.from_json(spec)) == []


def test_the_advice_on_columns_computed_from_others_says_only_the_rules_of_the_kinds_found():
    """ESS's sum and its dates in order: the note says what to declare for a sum and for a gap, not for bands,
    groups or a date's part (it said all five, a paragraph a newcomer had to sift)."""
    from dpsynth_core.data.banded import banded_how
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("ess9gb.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("ess9gb")
    del spec["columns"]["immigsent"]["derived"]
    notes = fit_notes(frame, TableDomain.from_json(spec))
    [how] = [how for which, _, _, how in notes.advice() if which == "banded"]
    assert how == banded_how(notes.banded)
    assert '"sum": ["q1", "q2", "q3"]' in how and '"gap": [0, 30]' in how
    assert '"edges"' not in how and '"prefix"' not in how and '"part"' not in how


def test_a_maximum_beside_its_minimum_is_told_and_not_a_pair_its_names_do_not_make():
    """MASS's cpus: a machine's maximum memory and channels are at least their minimums in all 209 records, the
    names pair them: told once each, past the paired column (nothing for the performance beside its estimate, nor
    for memory beside channels), and nothing once declared past it; a pair out of order in one row is not told."""
    from dpsynth_core.data.banded import ordered_numbers
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("cpus.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("cpus")
    said = ordered_numbers(frame, TableDomain.from_json(spec))
    assert said == [
        "Column 'mmax' is at least 'mmin' in all 209 rows that hold both.",
        "Column 'chmax' is at least 'chmin' in all 209 rows that hold both.",
    ]
    assert said[0] in fit_notes(frame, TableDomain.from_json(spec)).banded
    spec["columns"]["chmax"]["derived"] = {"from": "chmin", "gap": [0, 256]}
    assert ordered_numbers(frame, TableDomain.from_json(spec)) == [said[0]]
    crossed = frame.assign(mmax=frame["mmax"].mask(frame.index == 5, "0"))
    assert ordered_numbers(crossed, TableDomain.from_json(spec)) == []


def test_a_total_told_as_a_sum_is_not_told_again_as_at_least_a_part():
    """A total named 'max' beside its part 'min' and another part: told as their sum only."""
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("cpus.csv"), dtype=str, keep_default_na=False)
    frame = frame.assign(chmax=(frame["chmin"].astype(int) + frame["cach"].astype(int)).astype(str))
    spec = complete_domain("cpus")
    spec["columns"]["chmax"]["max"] = 1000
    banded = fit_notes(frame, TableDomain.from_json(spec)).banded
    assert "Column 'chmax' is the sum of 'cach', 'chmin' in all 209 rows that hold them." in banded
    assert not any(line.startswith("Column 'chmax' is at least") for line in banded)


def test_a_maximum_declared_past_its_minimum_comes_out_at_least_it():
    """cpus at ε = 1, seeded: measured apart, a maximum comes out below its minimum (at seed 3, 9 and 95 of 194
    rows); declared past it, in no row, with every column's range kept."""
    from dpsynth_core import synthesize
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("cpus.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("cpus")

    def below(out, high, low):
        return int((pd.to_numeric(out[high]) < pd.to_numeric(out[low])).sum())

    apart = synthesize(frame, spec, 1.0, random_state=3).data
    assert below(apart, "chmax", "chmin") > 20
    spec["columns"]["mmax"]["derived"] = {"from": "mmin", "gap": [0, 65536]}
    spec["columns"]["chmax"]["derived"] = {"from": "chmin", "gap": [0, 256]}
    assert "drawn as 'mmin' plus 0 to 65,536, the difference" in TableDomain.from_json(spec).columns["mmax"].describe()
    for seed in range(4):
        out = synthesize(frame, spec, 1.0, random_state=seed).data
        assert below(out, "mmax", "mmin") == 0 and below(out, "chmax", "chmin") == 0
        assert pd.to_numeric(out["mmax"]).between(0, 65536).all() and pd.to_numeric(out["chmax"]).max() <= 256


def test_a_number_is_never_compared_with_a_date_declared_past_another():
    """A date declared past another one is measured as whole days, yet it is no number column to the check: a number
    column whose name pairs with it ('stop' beside 'start') is compared with no date, and a number pair is told."""
    from dpsynth_core.data.banded import ordered_numbers

    frame = pd.DataFrame(
        {
            "admit": ["2020-03-01"] * 30,
            "start": ["2020-03-02"] * 30,
            "stop": [str(i % 5 + 3) for i in range(30)],
            "max_n": [str(i % 5 + i % 3) for i in range(30)],
            "min_n": [str(i % 5) for i in range(30)],
        }
    )
    day = {"type": "date", "min": "2020-01-01", "max": "2020-12-31"}
    number = {"type": "integer", "min": 0, "max": 10}
    spec = {
        "columns": {
            "admit": day,
            "start": {**day, "derived": {"from": "admit", "gap": [0, 30]}},
            "stop": number,
            "max_n": number,
            "min_n": number,
        }
    }
    said = ordered_numbers(frame, TableDomain.from_json(spec))
    assert said == ["Column 'max_n' is at least 'min_n' in all 30 rows that hold both."]


def test_a_drawn_gap_is_missing_where_its_source_is_present_only_as_often_as_the_draw_says():
    """Half the drawn sources present, three quarters of the drawn gaps missing, drawn apart: a quarter of the gaps'
    missing share is the source's, so half of the started rows keep a gap, each filled from another started row's
    drawn gap; a draw that holds them together (a gap missing just where its source is) is left as it is."""
    from dpsynth_core.data.decoding import gaps_where_started

    rng = np.random.default_rng(0)
    starts = np.where(rng.random(4000) < 0.5, 10.0, np.nan)
    gaps = np.where(rng.random(4000) < 0.75, np.nan, rng.integers(0, 30, 4000).astype(float))
    out = gaps_where_started(starts, gaps, np.random.default_rng(1))
    started = ~np.isnan(starts)
    share = (np.isnan(gaps).mean() - np.isnan(starts).mean()) / started.mean()
    assert np.isnan(out[started]).sum() == round(share * started.sum())
    assert np.array_equal(out[~started], gaps[~started], equal_nan=True)  # never where the source is missing
    assert set(out[~np.isnan(out)]) <= set(gaps[started & ~np.isnan(gaps)])  # drawn gaps of started rows
    together = np.where(started, gaps[0] if not np.isnan(gaps[0]) else 3.0, np.nan)
    assert np.array_equal(gaps_where_started(starts, together, np.random.default_rng(1)), together, equal_nan=True)


@pytest.mark.parametrize("method", ["cathist", "bayesnet", "copula"])
def test_a_stop_past_its_start_comes_out_wherever_a_start_does(method):
    """survival's rhDNase: an IV course's stop past its start, both missing in the 52% of records with no course. Drawn
    by a method that keeps the stop's gap apart from the start (each column by itself, or a network or copula that
    did not tie them), the stops came out in 0.42 to 0.64 times as many rows as the starts (the gap missing again,
    at its own share, where a start came out); now where the starts do but for the gap's own missing share beyond
    the start's, which only the noise of the two measured shares makes more than 0 (at epsilon 1 a 1-way count's
    noise is some 30 to 75 rows of 767: at most a fifth of the starts), and each at or after its start."""
    from dpsynth_core import synthesize
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("rhdnase.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("rhdnase")
    spec["columns"]["ivstop"]["derived"] = {"from": "ivstart", "gap": [0, 200]}
    for seed in range(3):
        out = synthesize(frame, spec, 1.0, method=method, random_state=seed).data
        start, stop = pd.to_numeric(out["ivstart"]), pd.to_numeric(out["ivstop"])
        assert start.notna().mean() > 0.3 and stop.notna().sum() >= 0.8 * start.notna().sum()
        assert (stop.notna() <= start.notna()).all() and (stop >= start).where(stop.notna(), True).all()


def test_a_number_declared_past_another_is_told_nothing_when_the_check_reads_its_gap():
    """Before a draw the check reads a column declared past another as its gap: a high twice its low plus one is
    above the low in every row, and so is its gap; declared past the low, neither the high nor its gap is told."""
    low = [str(i % 11) for i in range(60)]
    frame = pd.DataFrame({"low": low, "high": [str(2 * int(v) + 1) for v in low]})
    number = {"type": "integer", "min": 0, "max": 30}
    spec = {"columns": {"low": dict(number), "high": dict(number)}}
    assert fit_notes(frame, TableDomain.from_json(spec)).banded == [
        "Column 'high' is at least 'low' in all 60 rows that hold both."
    ]
    spec["columns"]["high"]["derived"] = {"from": "low", "gap": [0, 30]}
    assert fit_notes(frame, TableDomain.from_json(spec)).banded == []


def test_a_column_past_another_comes_out_on_its_declared_step_and_never_below_its_least():
    """cpus's memory sizes: the maximum declared past the minimum and in steps of 1,000, the minimum too (as a
    publisher following the check's advice would). The step was ignored on the column past another (its values came
    out as 4340 and 7859: measured as a gap, drawn as the minimum plus it, never rounded); now every maximum is a
    multiple of 1,000 and at least its minimum plus the least gap, 2,000, at four seeds."""
    from dpsynth_core import synthesize
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("cpus.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("cpus")
    spec["columns"]["mmin"].update(multiple_of=1000, max=60_000)  # room for the least gap below the maximum's end
    spec["columns"]["mmax"].update(multiple_of=1000, derived={"from": "mmin", "gap": [2000, 65536]})
    said = TableDomain.from_json(spec).columns["mmax"].describe()
    assert said.endswith("; synthetic values rounded to multiples of 1000"), said
    for seed in range(4):
        out = synthesize(frame, spec, 1.0, random_state=seed).data
        low, high = pd.to_numeric(out["mmin"]), pd.to_numeric(out["mmax"])
        assert (high % 1000 == 0).all() and (high >= low + 2000).all() and high.max() <= 65536


def test_the_check_reads_a_column_past_another_as_its_own_numbers_for_its_places_and_step():
    """A high in steps of 500 past a low in single units: the gaps are in no step, the highs in steps of 500. The
    note on steps read the gap (told nothing, or a step the column does not have); it reads the column, whose step
    the declaration rounds."""
    low = [str(i % 7 + 1) for i in range(60)]
    frame = pd.DataFrame({"low": low, "high": [str(500 * (i % 4 + 1)) for i in range(60)]})
    spec = {
        "columns": {
            "low": {"type": "integer", "min": 0, "max": 10},
            "high": {"type": "integer", "min": 0, "max": 5000, "derived": {"from": "low", "gap": [0, 5000]}},
        }
    }
    assert fit_notes(frame, TableDomain.from_json(spec)).decimals == [
        "Column 'high': all 60 of its numbers are multiples of 500."
    ]
    assert with_gaps(frame, TableDomain.from_json(spec))["high"].iloc[0] == 499  # what it read before
