"""Date ranges split into public bins (days, months, years or declared edges), with public special
days kept exact; dates with a time of day in ranges split by minutes, hours, days, months or years."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import constraints
from ..wording import counted
from .kinds import DATE_UNITS, DATETIME_STEPS, DATETIME_UNITS, TIME_UNITS
from .multiples import on_multiples
from .ranges import RangeDomain, with_special

EPOCH = dt.date(1970, 1, 1)
EPOCH_TIME = dt.datetime(1970, 1, 1)


@dataclass(frozen=True)
class DateDomain(RangeDomain):
    """Calendar days in ``min..max``; released as YYYY-MM-DD.

    Bins: ``edges`` (the first day of every bin, from ``min``), else by ``unit`` (day, month,
    quarter or year), else fitted to the data with DP when released (:attr:`adaptive`), or one bin
    per day when the range holds few days. ``special`` days always get a bin of their own.
    ``spread``: as for :class:`RangeDomain` (pieces' lows in days since 1970-01-01).
    """

    unit: str | None = None
    kind = "date"
    bin_keys = ("unit",)
    values_words = "dates"
    missing_bound_words = {"min": ("first date", "first possible date"), "max": ("last date", "last possible date")}
    order_rule = "on or before"
    edges_rule = "be dates in increasing order, start at min ({min}) and not pass max ({max})"

    def number(self, value: dt.date) -> int:
        """A date as the release counts it: days since 1970-01-01."""
        return (value - EPOCH).days

    def value_at(self, number) -> dt.date:
        """The date :meth:`number` gives ``number`` for."""
        return EPOCH + dt.timedelta(days=int(number))

    def texts(self, numbers: np.ndarray) -> np.ndarray:
        """Numbers (:meth:`number`) as the synthetic file writes them: YYYY-MM-DD, or YYYY-MM when the file writes
        a year and a month (``written``), or YYYY-Qn a year and a quarter, as it was read."""
        days = np.datetime64("1970-01-01", "D") + np.asarray(numbers).astype("timedelta64[D]")
        if self.written == "year and quarter":
            return quarter_texts(days.astype("datetime64[M]").astype(np.int64))
        return days.astype("datetime64[M]").astype(str) if self.written == "year and month" else days.astype(str)

    def _bin_key_problems(self) -> list[str]:
        if self.unit is not None and self.unit not in DATE_UNITS:
            return [f"column '{self.name}': unit ({self.unit!r}) must be one of {', '.join(DATE_UNITS)}"]
        return []

    @property
    def written_unit(self) -> str | None:
        """The period a value read from the file stands for when the file writes no day (``written`` a year and a
        month, or a year and a quarter: each value is read as its period's first day), else None."""
        return {"year and month": "month", "year and quarter": "quarter"}.get(self.written or "")

    def periods_in(self, lows, highs) -> np.ndarray:
        """How many values a file written by :attr:`written_unit` can hold in each of the bins ``lows..highs``
        (days since 1970-01-01): the first days of its periods there, at least one (a first bin from a ``min``
        inside a period holds its period's values, clamped to ``min``)."""
        months = 3 if self.written_unit == "quarter" else 1
        day = np.datetime64("1970-01-01", "D")
        starts = [(np.asarray(ends, np.int64) + day).astype("datetime64[M]").astype(np.int64) for ends in (lows, highs)]
        first = -(-(starts[0] + (np.asarray(lows) != _month_start_days(starts[0]))) // months)  # first period start
        return np.maximum(starts[1] // months - first + 1, 1)

    @property
    def wide_bins(self) -> bool:
        """A bin of a file written by month or quarter holds one value per period start in it: month bins of a file
        written by month hold one value each, and nothing inside them is left to measure."""
        if self.written_unit is None:
            return super().wide_bins
        return bool((self.periods_in(self.lows, self.highs) > 1).any())

    @property
    def adaptive(self) -> bool:
        """As for :class:`RangeDomain`, counting a file written by month or quarter in its periods: a year of months
        gets one bin a month, exact (its days were 365 values to fit bins to, all but twelve impossible)."""
        if self.written_unit is None or self.declares_bins or self.min is None or self.max is None:
            return super().adaptive
        return self._periods(self.written_unit) > constraints.ADAPTIVE_MAX_BINS

    def _periods(self, unit: str) -> int:
        """How many months, quarters or years ``min`` to ``max`` touch, counted without building them."""
        years = self.max.year - self.min.year
        if unit == "quarter":
            return years * 4 + (self.max.month - 1) // 3 - (self.min.month - 1) // 3 + 1
        return years + 1 if unit == "year" else years * 12 + self.max.month - self.min.month + 1

    @property
    def bin_unit(self) -> str:
        if self.unit:
            return self.unit
        if self.written_unit is not None and self._periods(self.written_unit) <= AUTO_UNIT_BINS:
            return self.written_unit
        days = (self.max - self.min).days + 1
        if days <= 400:
            return "day"
        if days <= 31 * 600:
            return "month"
        return "year"

    @property
    def lows(self) -> np.ndarray:
        """First day of every bin, as days since 1970-01-01 (the first bin starts at ``min``)."""
        first, last = self.number(self.min), self.number(self.max)
        if self.edges is not None:
            lows = np.array([self.number(d) for d in self.edges], dtype=np.int64)
        elif self.bin_unit == "day":
            lows = np.arange(first, last + 1, dtype=np.int64)
        else:
            step = {"month": "M", "quarter": "M", "year": "Y"}[self.bin_unit]
            start, stop = np.datetime64(self.min, step), np.datetime64(self.max, step) + 1
            if self.bin_unit == "quarter":  # from the first month of min's quarter, three months a bin
                start -= start.astype(np.int64) % 3
            periods = np.arange(start, stop, 3 if self.bin_unit == "quarter" else 1)
            lows = (periods.astype("datetime64[D]") - np.datetime64("1970-01-01", "D")).astype(np.int64)
            lows[0] = first
        return with_special(lows, [self.number(d) for d in self.special], last)

    @property
    def highs(self) -> np.ndarray:
        lows = self.lows
        return np.append(lows[1:] - 1, self.number(self.max)).astype(np.int64)

    def _declared_bins(self) -> int:
        """Number of bins before special days are cut out, counted without building them."""
        if self.edges is not None:
            return len(self.edges)
        return self.size if self.bin_unit == "day" else self._periods(self.bin_unit)

    @property
    def bins(self) -> int:
        """Number of bins (built only when special days cut into them)."""
        return len(self.lows) if self.special else self._declared_bins()

    @property
    def size(self) -> int:
        return self.number(self.max) - self.number(self.min) + 1

    def _bounds_missing_words(self) -> str:
        return "dates (range missing)"

    def _bins_words(self) -> str:
        if self.edges is not None:
            return f" in {counted(self.bins, 'bin')}"
        return f" by {self.bin_unit}, {counted(self.bins, 'bin')}"

    @staticmethod
    def _json_value(value):
        return value.isoformat()

    def _bin_keys_json(self) -> dict:
        return {"unit": self.unit} if self.unit is not None else {}

    def bin_labels(self) -> list[str]:
        def day(d):
            return (EPOCH + dt.timedelta(days=int(d))).isoformat()

        if self.edges is not None or self.special:
            return [day(lo) if lo == hi else f"{day(lo)} to {day(hi)}" for lo, hi in zip(self.lows, self.highs)]
        if self.bin_unit == "quarter":
            months = (np.datetime64("1970-01-01", "D") + self.lows.astype("timedelta64[D]")).astype("datetime64[M]")
            return quarter_texts(months.astype(np.int64)).tolist()
        width = {"day": 10, "month": 7, "year": 4}[self.bin_unit]
        return [(EPOCH + dt.timedelta(days=int(d))).isoformat()[:width] for d in self.lows]


def _month_start_days(months: np.ndarray) -> np.ndarray:
    """The first day of months since 1970-01, in days since 1970-01-01."""
    return (
        np.asarray(months).astype("datetime64[M]").astype("datetime64[D]") - np.datetime64("1970-01-01", "D")
    ).astype(np.int64)


def quarter_texts(months: np.ndarray) -> np.ndarray:
    """Months since 1970-01 as their year and quarter, YYYY-Qn (how a date column written ``year and quarter`` is
    written back).

    >>> quarter_texts(np.array([0, 2, 3, 11, 12 * 42 + 7])).tolist()
    ['1970-Q1', '1970-Q1', '1970-Q2', '1970-Q4', '2012-Q3']
    """
    months = np.asarray(months, dtype=np.int64)
    years, quarters = (1970 + months // 12).astype(str), (months % 12 // 3 + 1).astype(str)
    return np.char.add(np.char.add(years, "-Q"), quarters)


#: A date and time with no declared unit is grouped by the finest unit giving at most this many bins (as a date's
#: bins are days up to 400, then months up to 600), unless its bins are fitted to the data.
AUTO_UNIT_BINS = 600
#: numpy's name of each unit of a date and time.
_NUMPY_UNITS = {"second": "s", "minute": "m", "hour": "h", "day": "D", "month": "M", "year": "Y"}


@dataclass(frozen=True)
class DateTimeDomain(DateDomain):
    """Dates with a time of day in ``min..max``; released as YYYY-MM-DD HH:MM:SS (HH:MM at a step of a minute or
    an hour).

    Values are counted in steps (``step``: second, the default, minute or hour) since 1970-01-01 00:00: each cell's
    time is read down to its step (a public rule). Bins: by ``unit`` (minute, hour, day, month or year, no finer than
    the step), else fitted to the data with DP when released (:attr:`adaptive`), or one bin per step when the range
    holds few steps. The time is read as the file writes it; a time zone after it is not applied.
    """

    step: str | None = None
    kind = "datetime"
    bin_keys = ("unit",)
    values_words = "dates and times"
    missing_bound_words = {
        "min": ("first date and time", "first possible date and time"),
        "max": ("last date and time", "last possible date and time"),
    }
    edges_rule = "be dates and times in increasing order, start at min ({min}) and not pass max ({max})"
    #: The units the kind's bins may group by.
    unit_choices = DATETIME_UNITS

    @property
    def finest(self) -> str:
        """The step its values are kept to: the declared ``step``, else the second."""
        return self.step or "second"

    @property
    def seconds(self) -> int:
        """Seconds in one step of the column's values."""
        return DATETIME_STEPS[self.finest]

    @staticmethod
    def _moment(value) -> dt.datetime:
        """A value as a date and time (a time of day: on 1970-01-01)."""
        return dt.datetime.combine(EPOCH, value) if isinstance(value, dt.time) else value

    def number(self, value: dt.datetime) -> int:
        """A date and time as the release counts it: whole steps since 1970-01-01 00:00."""
        return int((self._moment(value) - EPOCH_TIME) // dt.timedelta(seconds=self.seconds))

    def value_at(self, number) -> dt.datetime:
        return EPOCH_TIME + dt.timedelta(seconds=int(number) * self.seconds)

    def texts(self, numbers: np.ndarray) -> np.ndarray:
        """Numbers (:meth:`number`) as the synthetic file writes them: YYYY-MM-DD HH:MM:SS (HH:MM at a step of a
        minute or an hour)."""
        numbers = np.asarray(numbers, dtype=np.int64)
        if numbers.size == 0:  # a draw of no rows (numpy's string functions refuse an empty array)
            return np.array([], dtype=str)
        stamps = np.datetime64("1970-01-01T00:00:00", "s") + (numbers * self.seconds).astype("timedelta64[s]")
        return np.char.replace(np.datetime_as_string(stamps, unit="s" if self.seconds == 1 else "m"), "T", " ")

    def _bin_key_problems(self) -> list[str]:
        if self.step is not None and self.step not in DATETIME_STEPS:
            return [f"column '{self.name}': step ({self.step!r}) must be one of {', '.join(DATETIME_STEPS)}"]
        if self.unit is not None and self.unit not in self.unit_choices:
            return [f"column '{self.name}': unit ({self.unit!r}) must be one of {', '.join(self.unit_choices)}"]
        if self.unit is not None and self.unit not in self.units:
            return [f"column '{self.name}': unit ({self.unit}) must not be finer than the step ({self.step})"]
        return []

    @property
    def units(self) -> tuple:
        """The units its bins may group by: the kind's, none finer than its step."""
        order = list(_NUMPY_UNITS)
        return tuple(u for u in self.unit_choices if order.index(u) >= order.index(self.finest))

    def _edges_fit(self, edges: list) -> bool:
        """As for any range, on the steps the edges fall in (a fitted bin starts at ``min``'s step)."""
        steps = [self.number(e) for e in edges]
        return (
            bool(steps)
            and steps == sorted(set(steps))
            and steps[0] == self.number(self.min)
            and steps[-1] <= self.number(self.max)
        )

    @property
    def bin_unit(self) -> str:
        """The declared ``unit``; else one bin per step when the range holds few steps, else the finest unit (no
        finer than the step) giving at most :data:`AUTO_UNIT_BINS` bins, as a date's day, month or year."""
        if self.unit:
            return self.unit
        step = self.finest
        if self.min is None or self.max is None or self.size <= constraints.ADAPTIVE_MAX_BINS:
            return step
        return next((u for u in (step, *self.units) if self._periods_in(u) <= AUTO_UNIT_BINS), self.units[-1])

    def _periods_in(self, unit: str) -> int:
        code = _NUMPY_UNITS[unit]
        low, high = (np.datetime64(self._moment(v), code) for v in (self.min, self.max))
        return int((high - low).astype(np.int64)) + 1

    def _periods(self) -> np.ndarray:
        """The first moment of every bin of :attr:`bin_unit` from ``min`` to ``max``, as numpy datetimes."""
        code = _NUMPY_UNITS[self.bin_unit]
        return np.arange(np.datetime64(self._moment(self.min), code), np.datetime64(self._moment(self.max), code) + 1)

    @property
    def lows(self) -> np.ndarray:
        """First step of every bin, in steps since 1970-01-01 00:00 (the first bin starts at ``min``)."""
        first, last = self.number(self.min), self.number(self.max)
        if self.edges is not None:
            lows = np.array([self.number(d) for d in self.edges], dtype=np.int64)
        elif self.bin_unit == self.finest:
            lows = np.arange(first, last + 1, dtype=np.int64)
        else:
            seconds = (self._periods().astype("datetime64[s]") - np.datetime64("1970-01-01T00:00:00", "s")).astype(
                np.int64
            )
            lows = seconds // self.seconds
            lows[0] = first
        return with_special(lows, [self.number(d) for d in self.special], last)

    def _declared_bins(self) -> int:
        return len(self.edges) if self.edges is not None else self._periods_in(self.bin_unit)

    def _bound(self, value) -> str:
        return value.isoformat(sep=" ")

    def _range_words(self) -> str:
        return super()._range_words() + (f", kept to the {self.step}" if self.step else "")

    def _bins_words(self) -> str:
        words = super()._bins_words()
        return f",{words}" if self.step and words.startswith(" by") else words

    def _shown(self, value) -> str:
        return value.isoformat(sep=" ")

    @staticmethod
    def _json_value(value):  # a moment, or the whole number of steps of ``multiple_of``
        return value if isinstance(value, int) else value.isoformat(sep=" ")

    def to_json(self) -> dict:
        out = super().to_json()
        if self.step is not None:
            out["step"] = self.step
        return out

    def on_multiples(self, values: np.ndarray, least=None) -> np.ndarray:
        """``values`` (steps since 1970-01-01 00:00, or midnight) on every ``multiple_of``-th step: half-hourly
        readings kept to the minute come out at :00 and :30 (public, post-processing); special moments exact; none
        rounded below ``least`` where given (:meth:`RangeDomain.on_multiples`)."""
        if self.multiple_of is None:
            return values
        special = [self.number(v) for v in self.special]
        return on_multiples(values, self.multiple_of, *self._multiples_range(), special, least).astype(np.int64)

    def _multiples_range(self) -> tuple:
        return self.number(self.min), self.number(self.max)

    def _multiples_words(self) -> str:
        return f"every {counted(int(self.multiple_of), self.finest)}"

    def bin_labels(self) -> list[str]:
        width = {"second": 19, "minute": 16, "hour": 16, "day": 10, "month": 7, "year": 4}[self.bin_unit]
        texts = [self.value_at(lo).isoformat(sep=" ") for lo in self.lows]
        if self.edges is not None or self.special:
            highs = [self.value_at(hi).isoformat(sep=" ") for hi in self.highs]
            return [lo if lo == hi else f"{lo} to {hi}" for lo, hi in zip(texts, highs)]
        return [t[:width] for t in texts]


@dataclass(frozen=True)
class TimeDomain(DateTimeDomain):
    """Times of day in ``min..max`` (by default the whole day, 00:00 to 23:59:59: its range by definition); released
    as HH:MM:SS (HH:MM at a step of a minute or an hour), or as the file writes them with ``written``: ``HHMM`` (517
    for 05:17, 2400 read as midnight).

    Values are counted in steps since midnight, read down to the step as for :class:`DateTimeDomain`; bins by
    ``unit`` (minute or hour), else fitted to the data with DP when released. A date before the time is read past.
    """

    min: Any = dt.time(0, 0)
    max: Any = dt.time(23, 59, 59)
    kind = "time"
    values_words = "times of day"
    missing_bound_words = {"min": ("first time", "first possible time"), "max": ("last time", "last possible time")}
    edges_rule = "be times in increasing order, start at min ({min}) and not pass max ({max})"
    unit_choices = TIME_UNITS

    @property
    def finest(self) -> str:
        """The declared ``step``, else the second; a minute for times the file writes as digits (``HHMM``: 517),
        which hold no seconds to keep, and which the release writes so."""
        return self.step or ("minute" if self.written == "HHMM" else "second")

    def value_at(self, number) -> dt.time:
        return super().value_at(number).time()

    def texts(self, numbers: np.ndarray) -> np.ndarray:
        """Numbers as the synthetic file writes them: HH:MM:SS (HH:MM at a step of a minute or an hour), or HHMM."""
        if self.written == "HHMM":  # hours and minutes as one number: 517 for 05:17
            of_day = np.asarray(numbers, dtype=np.int64) * self.seconds % 86_400
            return (of_day // 3600 * 100 + of_day % 3600 // 60).astype(str)
        moments = super().texts(numbers)
        return moments if moments.size == 0 else np.char.partition(moments, " ")[:, 2]

    def _bound(self, value) -> str:
        return value.isoformat()

    def _shown(self, value) -> str:
        return value.isoformat()

    @staticmethod
    def _json_value(value):
        return value if isinstance(value, int) else value.isoformat()

    def bin_labels(self) -> list[str]:
        width = {"second": 8, "minute": 5, "hour": 5}[self.bin_unit]
        texts = [self.value_at(lo).isoformat() for lo in self.lows]
        if self.edges is not None or self.special:
            highs = [self.value_at(hi).isoformat() for hi in self.highs]
            return [lo if lo == hi else f"{lo} to {hi}" for lo, hi in zip(texts, highs)]
        return [t[:width] for t in texts]
