"""Dates with a time of day, and times of day: the declarations, their bins and how their values are read and
written."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.data.cell_values import datetime_steps
from dpsynth_core.data.decoding import decode_codes
from dpsynth_core.data.encoding import encode_column
from dpsynth_core.domain import DateTimeDomain, TableDomain, TimeDomain, column_from_json
from dpsynth_core.domain.schema import column_problems
from dpsynth_core.errors import DomainError
from dpsynth_core.privacy.noise import make_noise_source

YEAR = {"type": "datetime", "min": "2010-01-01", "max": "2010-12-31 23:59:59"}


def test_a_declaration_round_trips_and_reads_a_date_alone_as_its_midnight():
    column = column_from_json("t", {**YEAR, "step": "minute", "unit": "hour"})
    assert isinstance(column, DateTimeDomain) and column.kind == "datetime"
    assert column.min == dt.datetime(2010, 1, 1) and column.max == dt.datetime(2010, 12, 31, 23, 59, 59)
    assert column.to_json() == {
        "type": "datetime",
        "min": "2010-01-01 00:00:00",
        "max": "2010-12-31 23:59:59",
        "unit": "hour",
        "step": "minute",
    }
    assert column_from_json("t", column.to_json()) == column
    assert column.bins == 365 * 24 and column.describe().endswith("by hour, 8,760 bins")


@pytest.mark.parametrize(
    "spec, words",
    [
        ({**YEAR, "min": "2010-01-01 24:00"}, "must be a date and time written YYYY-MM-DD HH:MM"),
        ({**YEAR, "min": "2010-02-30"}, "must be a date and time"),
        ({**YEAR, "step": "day"}, "step"),
        ({**YEAR, "unit": "week"}, "unit"),
    ],
)
def test_a_wrong_bound_step_or_unit_is_named(spec, words):
    assert any(words in p for p in column_problems("t", spec)), column_problems("t", spec)


def test_a_unit_finer_than_the_step_and_bounds_out_of_order_are_problems():
    assert column_from_json("t", {**YEAR, "step": "hour", "unit": "minute"}).problems() == [
        "column 't': unit (minute) must not be finer than the step (hour)"
    ]
    backwards = column_from_json("t", {**YEAR, "min": "2011-01-01 00:00"})
    assert "must be on or before max" in backwards.problems()[0]
    with pytest.raises(DomainError, match="bins is more than the"):
        TableDomain.from_json({"columns": {"t": {**YEAR, "min": "1900-01-01", "unit": "minute"}}}).validate()


def test_bins_by_each_unit_start_at_min_and_cover_the_range():
    for unit, bins in (("hour", 8760 - 6), ("day", 365), ("month", 12), ("year", 1)):
        column = column_from_json("t", {**YEAR, "min": "2010-01-01 06:30", "unit": unit})
        lows, highs = column.lows, column.highs
        assert len(lows) == bins and lows[0] == column.number(column.min) and highs[-1] == column.number(column.max)
        assert np.all(lows[1:] == highs[:-1] + 1), unit
    monthly = column_from_json("t", {**YEAR, "unit": "month", "step": "hour"})
    assert monthly.bin_labels()[:2] == ["2010-01", "2010-02"]
    assert monthly.value_at(monthly.lows[1]) == dt.datetime(2010, 2, 1)


def test_a_short_range_gets_one_bin_per_step_and_a_long_one_is_fitted():
    few = column_from_json(
        "t", {"type": "datetime", "min": "2010-01-01 10:00", "max": "2010-01-01 10:05", "step": "minute"}
    )
    assert not few.adaptive and few.bins == 6
    assert few.bin_labels() == [f"2010-01-01 10:0{m}" for m in range(6)]
    assert column_from_json("t", YEAR).adaptive


def test_cells_are_read_down_to_the_step_by_the_date_rule_then_the_time():
    cells = pd.Series(
        [
            "2010-01-01 13:47:21",
            "2010/01/01",
            "01/02/2010 08:00",
            "Jan 1 2010 7:05 ",
            "2010-01-01T13:00Z",
            "2010-01-01 24:00",
        ]
    )
    steps, readable = datetime_steps(cells, "day first", 60)
    base = 14610 * 1440  # 2010-01-01 in minutes since 1970
    assert readable.tolist() == [True, True, True, True, True, False]
    assert steps[:5].tolist() == [base + 827, base, base + 31 * 1440 + 480, base + 425, base + 780]
    hours, _ = datetime_steps(cells[:1], None, 3600)
    assert hours.tolist() == [14610 * 24 + 13]
    # a 12-hour clock, as a spreadsheet in the United States writes it: 12 AM is midnight, 12 PM noon
    twelve = pd.Series(["1/31/2012 12:30:00 AM", "1/31/2012 12:30:00 PM", "1/31/2012 1:05 pm", "1/31/2012 13:05 PM"])
    steps, readable = datetime_steps(twelve, "month first", 60)
    midnight = 15370 * 1440  # 2012-01-31 in minutes since 1970
    assert readable.tolist() == [True, True, True, False] and steps[:3].tolist() == [
        midnight + 30,
        midnight + 750,
        midnight + 785,
    ]


def test_values_are_encoded_in_their_bins_and_written_back_on_the_step():
    column = column_from_json("t", {**YEAR, "step": "minute", "unit": "hour", "missing": True})
    cells = pd.Series(["2010-03-04 05:06:59", "2010-03-04 05:59", "", "not a time", "2009-12-31 23:00"])
    encoded = encode_column(column, cells)
    hour = (dt.datetime(2010, 3, 4, 5) - dt.datetime(2010, 1, 1)) // dt.timedelta(hours=1)
    assert encoded.codes.tolist() == [hour, hour, column.bins, column.bins, 0]  # unreadable: missing; early: clamped
    out = decode_codes(column, encoded.codes, make_noise_source(0))
    assert out[:2].str.match(r"^2010-03-04 05:[0-5][0-9]$").all() and out[2:4].isna().all()
    assert out[4].startswith("2010-01-01 00:")
    seconds = column_from_json("t", {**YEAR, "unit": "day"})
    assert decode_codes(seconds, np.array([0]), make_noise_source(0))[0].startswith("2010-01-01 ")
    assert len(decode_codes(seconds, np.array([0]), make_noise_source(0))[0]) == 19  # to the second


# --- times of day -----------------------------------------------------------------------------------------


def test_a_time_of_day_spans_the_whole_day_unless_narrowed_and_groups_by_minute_or_hour():
    whole = column_from_json("t", {"type": "time"})
    assert isinstance(whole, TimeDomain) and (whole.min, whole.max) == (dt.time(0, 0), dt.time(23, 59, 59))
    assert (
        whole.problems() == []
        and whole.adaptive
        and whole.to_json() == {"type": "time", "min": "00:00:00", "max": "23:59:59"}
    )
    hourly = column_from_json("t", {"type": "time", "step": "minute", "unit": "hour", "min": "9:00", "max": "17:30"})
    assert hourly.describe() == "times of day from 09:00:00 to 17:30:00, kept to the minute, by hour, 9 bins"
    assert hourly.bin_labels()[:2] == ["09:00", "10:00"] and hourly.value_at(hourly.lows[1]) == dt.time(10, 0)
    assert column_from_json("t", hourly.to_json()) == hourly
    assert any("unit" in p for p in column_problems("t", {"type": "time", "unit": "day"}))
    assert any("must be a time of day" in p for p in column_problems("t", {"type": "time", "max": "24:30"}))


def test_times_are_read_as_a_clock_or_as_declared_digits_and_written_back_the_same_way():
    clock = column_from_json("t", {"type": "time", "step": "minute", "unit": "minute"})
    cells = pd.Series(["13:47:21", "1:05 PM", "2010-01-01 07:30", "12:00 AM", "517", "25:00", ""])
    encoded = encode_column(clock, cells)
    assert encoded.codes[:4].tolist() == [827, 785, 450, 0] and (encoded.codes[4:] == clock.bins).all()
    assert decode_codes(clock, encoded.codes[:4], make_noise_source(0)).tolist() == ["13:47", "13:05", "07:30", "00:00"]
    digits = column_from_json("t", {"type": "time", "step": "minute", "unit": "minute", "written": "HHMM"})
    encoded = encode_column(digits, pd.Series(["517", "2400", "1345", "1375", "13:45"]))
    assert encoded.codes.tolist() == [317, 0, 825, digits.bins, 825]  # 1375 is no time: missing
    assert decode_codes(digits, encoded.codes[:3], make_noise_source(0)).tolist() == ["517", "0", "1345"]
    assert decode_codes(digits, np.array([], dtype=np.int64), make_noise_source(0)).tolist() == []  # a draw of no rows
    assert decode_codes(clock, np.array([], dtype=np.int64), make_noise_source(0)).tolist() == []


def test_times_written_as_digits_are_kept_to_the_minute_they_hold():
    """A file that writes its times as digits (nycflights' dep_time: 940, 1216) holds no seconds, and the release
    writes them back so: declared with no step, such a column is kept to the minute (1,440 steps a day, not 86,400),
    and the note on times written more coarsely than kept says nothing of times on the minute; an explicit step
    stays as declared."""
    from dpsynth_core.data.file_notes import step_columns

    digits = column_from_json("t", {"type": "time", "written": "HHMM"})
    assert digits.finest == "minute" and digits.seconds == 60 and digits.size == 1440
    assert column_from_json("t", {"type": "time"}).finest == "second"
    assert column_from_json("t", {"type": "time", "written": "HHMM", "step": "hour"}).finest == "hour"
    assert digits.bin_unit == "hour" and encode_column(digits, pd.Series(["940", "2359", "5"])).codes.tolist() == [
        9,
        23,
        0,
    ]
    minutes = np.array([580, 736, 1439, 5])  # steps since midnight
    assert digits.texts(minutes).tolist() == ["940", "1216", "2359", "5"] and digits.texts(minutes[:0]).size == 0
    assert [digits.number(digits.value_at(m)) for m in minutes] == minutes.tolist()
    domain = TableDomain.from_json({"columns": {"t": {"type": "time", "written": "HHMM"}}})
    assert step_columns(pd.DataFrame({"t": ["940", "1216", "2359", "5"]}), domain) == []
    hourly = pd.DataFrame({"t": ["900", "1200", "2300", "0"]})
    assert step_columns(hourly, domain) == [
        "Column 't': all 4 of its times are on the hour, where they are kept to the minute."
    ]


def test_a_year_written_by_month_is_twelve_exact_bins_with_nothing_to_fit_or_spread():
    """Lending Club's loans (openintro) write the month of issue as ``Mar-2018``. Declared as the documentation has
    it, a date in 2018 written by month, the column was 365 days to fit bins to (or, with ``unit`` month, twelve
    bins whose days a histogram measured at four times a numeric column's share of the budget), though every value
    read is a month's first day. Its values are now counted in months: twelve bins, one value each, exact and free."""
    from dpsynth_core.synthesizers.planning import budget_split

    spec = {"type": "date", "min": "2018-01-01", "max": "2018-12-31", "written": "year and month"}
    for declared in (spec, {**spec, "unit": "month"}):
        column = TableDomain.from_json({"columns": {"issued": declared}}).kept["issued"]
        assert (column.adaptive, column.bin_unit, column.bins, column.wide_bins) == (False, "month", 12, False)
        assert list(budget_split({"columns": {"issued": declared}}, 1.0)) == [
            "row count",
            "1-way marginals (every column)",
            "choosing marginals (exponential mechanism, each round)",
            "measuring the chosen marginals (noise on every cell)",
        ]
    quarters = TableDomain.from_json({"columns": {"issued": {**spec, "unit": "quarter"}}}).kept["issued"]
    assert quarters.wide_bins and quarters.periods_in(quarters.lows, quarters.highs).tolist() == [3, 3, 3, 3]
    by_quarter = {**spec, "min": "2018-02-10", "max": "2020-12-31", "written": "year and quarter"}
    column = TableDomain.from_json({"columns": {"q": by_quarter}}).kept["q"]
    assert (column.adaptive, column.bins, column.wide_bins) == (False, 12, False)  # from 2018-Q1, clamped to min
    days = TableDomain.from_json({"columns": {"d": {k: v for k, v in spec.items() if k != "written"}}}).kept["d"]
    assert days.adaptive and days.size == 365  # a file that writes its days: bins fitted to its days, as before
    decade = TableDomain.from_json({"columns": {"m": {**spec, "min": "2010-01-01"}}}).kept["m"]
    assert decade.adaptive  # 108 months: bins fitted to the data, as a whole-number range that long


def test_times_every_so_many_steps_are_declared_said_and_saved():
    """``multiple_of`` on a date and time or a time of day counts its steps (30 at a step of a minute: every half
    hour); the header says so, the saved declaration keeps it, a range holding none of them is refused in one line,
    and a date (its days) is not offered it."""
    spec = {"type": "datetime", "min": "2012-01-01 00:00", "max": "2014-12-31 23:59", "step": "minute"}
    domain = TableDomain.from_json({"columns": {"at": {**spec, "multiple_of": 30}}})
    assert domain.kept["at"].describe().endswith("synthetic values rounded to every 30 minutes")
    assert domain.to_json()["columns"]["at"]["multiple_of"] == 30
    assert TableDomain.from_json(domain.to_json()).to_json() == domain.to_json()
    clock = TableDomain.from_json({"columns": {"t": {"type": "time", "step": "hour", "multiple_of": 6}}}).kept["t"]
    assert clock.describe().endswith("every 6 hours") and clock.texts(
        clock.on_multiples(np.array([4, 8]))
    ).tolist() == ["06:00", "06:00"]
    narrow = {**spec, "min": "2012-01-01 00:10", "max": "2012-01-01 00:20", "multiple_of": 30}
    [said] = TableDomain.from_json({"columns": {"at": narrow}}).problems()
    assert said.startswith("column 'at': no multiple of 30 lies in")
    with pytest.raises(DomainError, match="multiple_of"):
        TableDomain.from_json(
            {"columns": {"d": {"type": "date", "min": "2012-01-01", "max": "2012-12-31", "multiple_of": 7}}}
        )
