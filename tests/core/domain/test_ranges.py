"""The range kinds' shared base: one set of checks, words and JSON for integer, float and date
columns, each kind stating only what differs (its value type, its bin keys, its words)."""

import datetime as dt

import pytest

from dpsynth_core import constraints
from dpsynth_core.domain import DateDomain, FloatDomain, IntegerDomain, RangeDomain, column_from_json

D = dt.date
JAN1, DEC31 = D(2020, 1, 1), D(2020, 12, 31)
WHOLE_BOUNDS = "enter the {} possible value from documentation or policy (it is never taken from the data)"
INT_EDGES = "column 'x': edges must increase strictly, start at min (0) and not pass max (9)"
FLOAT_EDGES = "column 'x': edges must increase strictly from min (0.0) to max (1.0)"
DATE_EDGES = (
    "column 'x': edges must be dates in increasing order, start at min (2020-01-01) and not pass max (2020-12-31)"
)


def _too_many(count: str) -> str:
    return f"column 'x': {count} bins is more than the 2,000,000 a column may have; declare wider bins"


@pytest.mark.parametrize(
    "column,expected",
    [
        (
            IntegerDomain(name="x"),
            [
                "column 'x': no public minimum is declared; " + WHOLE_BOUNDS.format("smallest"),
                "column 'x': no public maximum is declared; " + WHOLE_BOUNDS.format("largest"),
            ],
        ),
        (IntegerDomain(name="x", min=5, max=3), ["column 'x': min (5) must be <= max (3)"]),
        (IntegerDomain(name="x", min=0, max=9, bin_width=0), ["column 'x': bin_width (0) must be >= 1"]),
        (IntegerDomain(name="x", min=0, max=9, edges=()), [INT_EDGES]),
        (IntegerDomain(name="x", min=0, max=9, edges=(0, 5, 3)), [INT_EDGES]),
        (IntegerDomain(name="x", min=0, max=9, edges=(0, 5, 5)), [INT_EDGES]),
        (IntegerDomain(name="x", min=0, max=9, edges=(1, 5)), [INT_EDGES]),
        (IntegerDomain(name="x", min=0, max=9, edges=(0, 10)), [INT_EDGES]),
        (IntegerDomain(name="x", min=0, max=9, special=(1, 1)), ["column 'x': the special values contain duplicates"]),
        (
            IntegerDomain(name="x", min=0, max=9, special=(-1, 4, 12)),
            ["column 'x': special values -1, 12 outside the declared range 0 to 9"],
        ),
        (IntegerDomain(name="x", min=0, max=10**12, bin_width=1), [_too_many("1,000,000,000,001")]),
        (IntegerDomain(name="x", min=0, max=3_999_999, bin_width=2, special=(1,)), [_too_many("2,000,001")]),
        (IntegerDomain(name="x", min=0, max=9, edges=(0, 5), special=(9,)), []),
        (
            FloatDomain(name="x", max=1.0),
            ["column 'x': no public minimum is declared; " + WHOLE_BOUNDS.format("smallest")],
        ),
        (FloatDomain(name="x", min=1.0, max=1.0), ["column 'x': min (1.0) must be < max (1.0)"]),
        (FloatDomain(name="x", min=0.0, max=float("inf")), ["column 'x': min (0.0) must be < max (inf)"]),
        (FloatDomain(name="x", min=0.0, max=1.0, bins_requested=0), ["column 'x': bins (0) must be >= 1"]),
        (FloatDomain(name="x", min=0.0, max=1.0, bin_width=-0.5), ["column 'x': bin_width (-0.5) must be > 0"]),
        (FloatDomain(name="x", min=0.0, max=1.0, bin_width=float("nan")), ["column 'x': bin_width (nan) must be > 0"]),
        (FloatDomain(name="x", min=0.0, max=1.0, edges=(0.0,)), [FLOAT_EDGES]),
        (FloatDomain(name="x", min=0.0, max=1.0, edges=(0.0, 0.5)), [FLOAT_EDGES]),
        (FloatDomain(name="x", min=0.0, max=1.0, edges=(0.0, 0.7, 0.5, 1.0)), [FLOAT_EDGES]),
        (
            FloatDomain(name="x", min=0.0, max=1.0, special=(0.5, 0.5)),
            ["column 'x': the special values contain duplicates"],
        ),
        (
            FloatDomain(name="x", min=0.0, max=1.0, special=(1.5, -0.25)),
            ["column 'x': special values 1.5, -0.25 outside the declared range 0 to 1"],
        ),
        (FloatDomain(name="x", min=0.0, max=1.0, bin_width=1e-300), [_too_many("more than 10^18")]),
        # counted, not built: each special value may add two bins
        (FloatDomain(name="x", min=0.0, max=1.0, bins_requested=2_000_000, special=(0.5,)), [_too_many("2,000,002")]),
        (FloatDomain(name="x", min=0.0, max=1.0, edges=(0.0, 0.5, 1.0), special=(0.25,)), []),
        (
            DateDomain(name="x"),
            [
                "column 'x': no public first date is declared; "
                "enter the first possible date (it is never taken from the data)",
                "column 'x': no public last date is declared; "
                "enter the last possible date (it is never taken from the data)",
            ],
        ),
        (
            DateDomain(name="x", min=D(2020, 1, 2), max=JAN1),
            ["column 'x': min (2020-01-02) must be on or before max (2020-01-01)"],
        ),
        (
            DateDomain(name="x", min=JAN1, max=DEC31, unit="week"),
            ["column 'x': unit ('week') must be one of day, month, quarter, year"],
        ),
        (DateDomain(name="x", min=JAN1, max=DEC31, edges=()), [DATE_EDGES]),
        (DateDomain(name="x", min=JAN1, max=DEC31, edges=(D(2020, 2, 1),)), [DATE_EDGES]),
        (DateDomain(name="x", min=JAN1, max=DEC31, edges=(JAN1, D(2021, 1, 1))), [DATE_EDGES]),
        (
            DateDomain(name="x", min=JAN1, max=DEC31, special=(D(2020, 5, 1), D(2020, 5, 1))),
            ["column 'x': the special values contain duplicates"],
        ),
        (
            DateDomain(name="x", min=JAN1, max=DEC31, special=(D(2019, 5, 1),)),
            ["column 'x': special value 2019-05-01 outside the declared range 2020-01-01 to 2020-12-31"],
        ),
        (DateDomain(name="x", min=D(1, 1, 1), max=D(9999, 12, 31), unit="day"), [_too_many("3,652,059")]),
        (DateDomain(name="x", min=JAN1, max=DEC31, unit="month", special=(D(2020, 2, 29),)), []),
    ],
)
def test_every_range_kind_names_its_problems_in_the_shared_order(column, expected):
    assert isinstance(column, RangeDomain)
    assert column.problems() == expected
    assert column.complete == (not expected)


def test_the_bins_special_values_cut_in_are_counted_against_the_limit(monkeypatch):
    monkeypatch.setattr(constraints, "MAX_COLUMN_CELLS", 10)
    assert IntegerDomain(name="x", min=0, max=9, special=(3,)).problems() == []  # one bin per value already
    over = "column 'x': {} bins is more than the 10 a column may have; declare wider bins"
    assert IntegerDomain(name="x", min=0, max=19, bin_width=2, special=(3,)).problems() == [over.format(11)]
    assert FloatDomain(name="x", min=0.0, max=1.0, bins_requested=10, special=(0.5,)).problems() == [over.format(12)]
    monthly = DateDomain(name="x", min=JAN1, max=D(2020, 10, 1), unit="month", special=(D(2020, 5, 5),))
    assert monthly.problems() == [over.format(12)]


@pytest.mark.parametrize(
    "column,words",
    [
        (IntegerDomain(name="x"), "whole numbers from ? to ? (bound missing)"),
        (FloatDomain(name="x", min=1.0), "real numbers from 1.0 to ? (bound missing)"),
        (DateDomain(name="x"), "dates (range missing)"),
        (
            IntegerDomain(name="a", min=0, max=10**6, special=(7,)),
            "whole numbers from 0 to 1,000,000, in up to 36 bins fitted to the data with DP when released; 7 kept exact",
        ),
        (
            FloatDomain(name="f", min=0.0, max=2.0, special=(0.5,)),
            "real numbers from 0 to 2, in up to 12 bins fitted to the data with DP when released; 0.5 kept exact",
        ),
        (
            DateDomain(name="d", min=D(2000, 1, 1), max=D(2020, 1, 1)),
            "dates from 2000-01-01 to 2020-01-01, in up to 20 bins fitted to the data with DP when released",
        ),
        (IntegerDomain(name="x", min=0, max=100, bin_width=10), "whole numbers from 0 to 100 in bins of 10, 11 bins"),
        (IntegerDomain(name="x", min=0, max=9), "whole numbers from 0 to 9 (one bin per value), 10 bins"),
        (IntegerDomain(name="x", min=2007, max=2009), "whole numbers from 2007 to 2009 (one bin per value), 3 bins"),
        (
            IntegerDomain(name="x", min=0, max=9, edges=(0, 5), special=(9,)),
            "whole numbers from 0 to 9, 3 bins; 9 kept exact",
        ),
        (FloatDomain(name="x", min=0, max=1, bin_width=0.3), "real numbers from 0 to 1 in 4 bins"),
        (FloatDomain(name="x", min=0, max=1e7, bin_width=1e6), "real numbers from 0 to 10000000 in 10 bins"),
        (
            FloatDomain(name="x", min=-0.5, max=1234567.8),
            "real numbers from -0.5 to 1234570, in up to 12 bins fitted to the data with DP when released",
        ),
        (
            FloatDomain(name="x", min=0.0, max=1.0, edges=(0.0, 0.5, 1.0), special=(0.25,)),
            "real numbers from 0 to 1 in 4 bins; 0.25 kept exact",
        ),
        (
            DateDomain(name="x", min=JAN1, max=DEC31, unit="month", special=(D(2020, 2, 29),)),
            "dates from 2020-01-01 to 2020-12-31 by month, 13 bins; 2020-02-29 kept exact",
        ),
        (
            DateDomain(name="d", min=D(2000, 1, 1), max=D(2020, 1, 1), edges=(D(2000, 1, 1), D(2010, 1, 1))),
            "dates from 2000-01-01 to 2020-01-01 in 2 bins",
        ),
    ],
)
def test_every_range_kind_describes_itself_in_the_shared_words(column, words):
    assert column.describe() == words


def test_a_small_countable_range_gets_a_bin_per_value_and_a_real_one_is_always_fitted():
    assert not IntegerDomain(name="x", min=0, max=constraints.ADAPTIVE_MAX_BINS - 1).adaptive
    assert IntegerDomain(name="x", min=0, max=constraints.ADAPTIVE_MAX_BINS).adaptive
    assert not DateDomain(name="x", min=JAN1, max=D(2020, 1, 12)).adaptive
    assert FloatDomain(name="x", min=0.0, max=1e-9).adaptive
    assert not FloatDomain(name="x", min=0.0, max=1.0, bins_requested=3).adaptive
    assert not DateDomain(name="x", min=JAN1, max=DEC31, unit="day").adaptive
    assert not IntegerDomain(name="x", min=0, max=10**6, bin_width=10).adaptive


@pytest.mark.parametrize(
    "spec",
    [
        {"type": "integer", "min": 0, "max": 9, "edges": [0, 5], "special": [9]},
        {"type": "integer", "min": -5, "max": 100, "bin_width": 10, "missing": False},
        {"type": "integer", "min": 0},
        {"type": "float", "min": 0.0, "max": 1.0, "edges": [0.0, 0.5, 1.0], "special": [0.25]},
        {"type": "float", "min": 0.0, "max": 1.0, "bin_width": 0.3},
        {"type": "float", "min": 0.0, "max": 1.0, "bins": 4},
        {"type": "date", "min": "2020-01-01", "max": "2020-12-31", "unit": "month", "special": ["2020-02-29"]},
        {"type": "date", "min": "2000-01-01", "max": "2020-01-01", "edges": ["2000-01-01", "2010-01-01"]},
        {"type": "date", "max": "2020-01-01"},
    ],
)
def test_every_range_kind_writes_the_json_it_reads(spec):
    assert column_from_json("x", spec).to_json() == spec
