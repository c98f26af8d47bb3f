"""Date ranges split into public bins (days, months, years or declared edges), with public special
days kept exact."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

from .kinds import DATE_UNITS
from .ranges import RangeDomain, with_special

EPOCH = dt.date(1970, 1, 1)


@dataclass(frozen=True)
class DateDomain(RangeDomain):
    """Calendar days in ``min..max``; released as YYYY-MM-DD.

    Bins: ``edges`` (the first day of every bin, from ``min``), else by ``unit`` (day, month
    or year), else fitted to the data with DP when released (:attr:`adaptive`), or one bin
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

    def _bin_key_problems(self) -> list[str]:
        if self.unit is not None and self.unit not in DATE_UNITS:
            return [f"column '{self.name}': unit ({self.unit!r}) must be one of {', '.join(DATE_UNITS)}"]
        return []

    @property
    def bin_unit(self) -> str:
        if self.unit:
            return self.unit
        days = (self.max - self.min).days + 1
        if days <= 400:
            return "day"
        if days <= 31 * 600:
            return "month"
        return "year"

    @property
    def lows(self) -> np.ndarray:
        """First day of every bin, as days since 1970-01-01 (the first bin starts at ``min``)."""
        first, last = (self.min - EPOCH).days, (self.max - EPOCH).days
        if self.edges is not None:
            lows = np.array([(d - EPOCH).days for d in self.edges], dtype=np.int64)
        elif self.bin_unit == "day":
            lows = np.arange(first, last + 1, dtype=np.int64)
        else:
            step = {"month": "M", "year": "Y"}[self.bin_unit]
            periods = np.arange(np.datetime64(self.min, step), np.datetime64(self.max, step) + 1)
            lows = (periods.astype("datetime64[D]") - np.datetime64("1970-01-01", "D")).astype(np.int64)
            lows[0] = first
        return with_special(lows, [(d - EPOCH).days for d in self.special], last)

    @property
    def highs(self) -> np.ndarray:
        lows = self.lows
        return np.append(lows[1:] - 1, (self.max - EPOCH).days).astype(np.int64)

    def _declared_bins(self) -> int:
        """Number of bins before special days are cut out, counted without building them."""
        if self.edges is not None:
            return len(self.edges)
        unit = self.bin_unit
        if unit == "day":
            return self.size
        years = self.max.year - self.min.year
        return years + 1 if unit == "year" else years * 12 + self.max.month - self.min.month + 1

    @property
    def bins(self) -> int:
        """Number of bins (built only when special days cut into them)."""
        return len(self.lows) if self.special else self._declared_bins()

    @property
    def size(self) -> int:
        return (self.max - self.min).days + 1

    def _bounds_missing_words(self) -> str:
        return "dates (range missing)"

    def _bins_words(self) -> str:
        if self.edges is not None:
            return f" in {self.bins} bins"
        return f" by {self.bin_unit}, {self.bins} bins"

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
        width = {"day": 10, "month": 7, "year": 4}[self.bin_unit]
        return [(EPOCH + dt.timedelta(days=int(d))).isoformat()[:width] for d in self.lows]
