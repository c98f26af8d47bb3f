"""Date ranges split into public bins (days, months, years or declared edges), with public special
days kept exact."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from .. import constraints
from .column import ColumnDomain
from .kinds import DATE_UNITS
from .ranges import special_problems, with_special

EPOCH = dt.date(1970, 1, 1)


@dataclass(frozen=True)
class DateDomain(ColumnDomain):
    """Calendar days in ``min..max``; released as YYYY-MM-DD.

    Bins: ``edges`` (the first day of every bin, from ``min``), else by ``unit`` (day, month
    or year), else fitted to the data with DP when released (:attr:`adaptive`), or one bin
    per day when the range holds few days. ``special`` days always get a bin of their own.
    ``spread``: as for :class:`IntegerDomain` (pieces' lows in days since 1970-01-01).
    """

    min: dt.date | None = None
    max: dt.date | None = None
    unit: str | None = None
    edges: tuple | None = None
    special: tuple = ()
    spread: tuple | None = field(default=None, repr=False)
    kind: ClassVar[str] = "date"

    def problems(self) -> list[str]:
        out = [
            f"column '{self.name}': no public {'first' if b == 'min' else 'last'} date is declared; "
            f"enter the {'first' if b == 'min' else 'last'} possible date (it is never taken from the data)"
            for b in ("min", "max")
            if getattr(self, b) is None
        ]
        if out:
            return out
        if self.min > self.max:
            return [f"column '{self.name}': min ({self.min}) must be on or before max ({self.max})"]
        if self.unit is not None and self.unit not in DATE_UNITS:
            return [f"column '{self.name}': unit ({self.unit!r}) must be one of {', '.join(DATE_UNITS)}"]
        if self.edges is not None:
            e = list(self.edges)
            if not e or e != sorted(set(e)) or e[0] != self.min or e[-1] > self.max:
                return [
                    f"column '{self.name}': edges must be dates in increasing order, start at min "
                    f"({self.min}) and not pass max ({self.max})"
                ]
        out = self._too_many_bins(self._declared_bins()) or special_problems(
            self.name, self.special, self.min, self.max, shown=lambda v: v.isoformat()
        )
        return out or self._too_many_bins(self.bins)

    @property
    def declares_bins(self) -> bool:
        """True when the publisher declared the bins (``edges`` or ``unit``)."""
        return self.edges is not None or self.unit is not None

    @property
    def adaptive(self) -> bool:
        """True when the release fits this column's bins to the data (paid for with DP)."""
        return (
            not self.declares_bins
            and self.min is not None
            and self.max is not None
            and self.size > constraints.ADAPTIVE_MAX_BINS
        )

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

    def describe(self) -> str:
        if self.min is None or self.max is None:
            return "dates (range missing)"
        special = f"; {', '.join(d.isoformat() for d in self.special)} kept exact" if self.special else ""
        if self.adaptive:
            return (
                f"dates from {self.min} to {self.max}, in up to {constraints.ADAPTIVE_MAX_BINS} bins "
                f"fitted to the data with DP when released{special}"
            )
        if self.edges is not None:
            return f"dates from {self.min} to {self.max} in {self.bins} bins{special}"
        return f"dates from {self.min} to {self.max} by {self.bin_unit}, {self.bins} bins{special}"

    def to_json(self) -> dict:
        out = self._base_json()
        if self.min is not None:
            out["min"] = self.min.isoformat()
        if self.max is not None:
            out["max"] = self.max.isoformat()
        if self.edges is not None:
            out["edges"] = [d.isoformat() for d in self.edges]
        elif self.unit is not None:
            out["unit"] = self.unit
        if self.special:
            out["special"] = [d.isoformat() for d in self.special]
        return out

    def bin_labels(self) -> list[str]:
        def day(d):
            return (EPOCH + dt.timedelta(days=int(d))).isoformat()

        if self.edges is not None or self.special:
            return [day(lo) if lo == hi else f"{day(lo)} to {day(hi)}" for lo, hi in zip(self.lows, self.highs)]
        width = {"day": 10, "month": 7, "year": 4}[self.bin_unit]
        return [(EPOCH + dt.timedelta(days=int(d))).isoformat()[:width] for d in self.lows]
