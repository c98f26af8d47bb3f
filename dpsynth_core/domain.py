"""Declared domains: what values each column may take, fixed from public knowledge.

A domain is never read off the data. Every column has a *kind*:

* ``categorical``: an explicit list of values (strings or integer codes);
* ``integer``: a range ``min..max`` split into public bins (``bin_width`` or ``edges``);
* ``float``: a range ``[min, max]`` split into public bins (``bins``, ``bin_width`` or ``edges``);
* ``date``: a range of days ``min..max`` binned by ``unit`` (day, month or year) or ``edges``;
* ``text``: a weakly constrained domain of exact size from a generator (``letters``,
  ``english_word``, ``word_pair``, ``digits``, ``any``);
* ``drop``: an identifier or anything else left out of the release.

A numeric or date column may list public ``special`` values (codes such as -1 or 999) that
always get a bin of their own, so they stay exact. A numeric or date column declared with a
range and no bins gets bins fitted to the data when it is released, paid for with DP (see
:mod:`dpsynth_core.binning`); before that, the default bins below describe it.

Each column also says whether missing values may occur (``missing``, default true). When
they may, "missing" is one more cell of the column's histogram whether or not the data
has any, so its presence in a release reveals nothing.

A declaration may be *incomplete* (a numeric range with no public bound, a text column
with no generator): it loads, and :meth:`TableDomain.problems` names what the publisher
must still supply. Nothing here ever fills a gap from the data.

Domain sizes are exact Python integers and may exceed 10**12.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

import numpy as np

from . import constraints
from .errors import DomainError
from .public_lists import english_word_set, public_list
from .schema import DATE_UNITS, column_problems, declaration_problems

TEXT_GENERATORS = ("letters", "english_word", "word_pair", "digits", "any")
DEFAULT_ALPHABET = "abcdefghijklmnopqrstuvwxyz"

_EPOCH = dt.date(1970, 1, 1)


def size_in_words(size: int) -> str:
    """Say a domain size the way a person would: ``29400000000`` -> ``"about 29 billion"``."""
    if size < 10_000:
        return f"{size:,}"
    names = [(10**15, "quadrillion"), (10**12, "trillion"), (10**9, "billion"),
             (10**6, "million"), (10**3, "thousand")]
    if size >= 10**18:
        return f"about 10^{len(str(size)) - 1}"
    for scale, name in names:
        if size >= scale:
            value = size / scale
            shown = f"{value:.0f}" if value >= 10 else f"{value:.1f}".rstrip("0").rstrip(".")
            return f"about {shown} {name}"
    return f"{size:,}"  # pragma: no cover


def _nice_width(span: float, target_bins: int, integer: bool) -> float:
    """Smallest width of the form 1, 2 or 5 times a power of ten giving at most target bins."""
    raw = span / target_bins
    if raw <= 0:
        return 1
    exponent = math.floor(math.log10(raw))
    for step in (1, 2, 5, 10):
        width = step * 10.0**exponent
        if width >= raw:
            break
    if integer:
        return max(1, int(round(width)))
    return width


def _with_special(lows: np.ndarray, special, top: int) -> np.ndarray:
    """Bin lows (integers) with a one-value bin cut out for every special value in range."""
    if not special:
        return lows
    cuts = [int(v) for v in special] + [int(v) + 1 for v in special if int(v) < top]
    return np.unique(np.concatenate([lows, np.asarray(cuts, dtype=np.int64)]))


def _special_problems(name: str, special, low, high, shown=str) -> list[str]:
    if len(set(special)) != len(special):
        return [f"column '{name}': the special values contain duplicates"]
    outside = [shown(v) for v in special if not low <= v <= high]
    if outside:
        return [f"column '{name}': special value(s) {', '.join(outside)} outside the declared range "
                f"{shown(low)} to {shown(high)}"]
    return []


@dataclass(frozen=True)
class ColumnDomain:
    """Base class of a column's declared domain."""

    name: str
    missing: bool = True
    kind: ClassVar[str] = ""
    #: True when values fall into a small, fixed set of histogram cells (codes 0..bins-1).
    binned: ClassVar[bool] = True

    def problems(self) -> list[str]:
        """What the publisher must still supply before this column can be used."""
        return []

    @property
    def complete(self) -> bool:
        return not self.problems()

    def _require_complete(self):
        found = self.problems()
        if found:
            raise DomainError.from_problems(found)

    def _too_many_bins(self, count) -> list[str]:
        """The resource limit on one column's cells, checked from the count alone (nothing allocated)."""
        if count > constraints.MAX_COLUMN_CELLS:
            shown = f"{count:,.0f}" if count < 1e18 else "more than 10^18"
            return [f"column '{self.name}': {shown} bins is more than the {constraints.MAX_COLUMN_CELLS:,} "
                    "a column may have; declare wider bins"]
        return []

    def _missing_bounds(self) -> list[str]:
        """Messages for a range column whose public ``min`` or ``max`` is not declared."""
        return [f"column '{self.name}': no public {'minimum' if bound == 'min' else 'maximum'} is declared; "
                f"supply '{bound}' from documentation or policy (it is never taken from the data)"
                for bound in ("min", "max") if getattr(self, bound, None) is None]

    def _base_json(self) -> dict:
        out = {"type": self.kind}
        if not self.missing:
            out["missing"] = False
        return out

    def summary(self) -> dict:
        """A short, public description for release cards and the app."""
        return {"column": self.name, "kind": self.kind, "description": self.describe(),
                "missing_allowed": self.missing}


@dataclass(frozen=True)
class DropDomain(ColumnDomain):
    """A column left out of the release (identifiers, free text nobody declared)."""

    kind: ClassVar[str] = "drop"

    def describe(self) -> str:
        return "dropped (not released)"

    def to_json(self) -> dict:
        return {"type": "drop"}


@dataclass(frozen=True)
class CategoricalDomain(ColumnDomain):
    """An explicit list of values, typed or taken from a public code list.

    Values that are not in the list map to ``other`` when one is declared, else to missing.
    """

    values: tuple = ()
    labels: dict | None = None
    other: object = None
    kind: ClassVar[str] = "categorical"

    def problems(self) -> list[str]:
        if not self.values:
            return [f"column '{self.name}': a categorical domain needs at least one value"]
        out = []
        if len(set(map(str, self.values))) != len(self.values):
            out.append(f"column '{self.name}': the declared values contain duplicates")
        if self.other is not None and self.other not in self.values:
            out.append(f"column '{self.name}': 'other' ({self.other!r}) must be one of the declared values")
        return out + self._too_many_bins(len(self.values))

    @property
    def integer_codes(self) -> bool:
        return bool(self.values) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                         for v in self.values)

    @property
    def size(self) -> int:
        return len(self.values)

    @property
    def bins(self) -> int:
        return len(self.values)

    def describe(self) -> str:
        shown = ", ".join(self.bin_labels(self.values[:6]))  # codes with their labels, e.g. "1 (Urban)"
        more = f", ... ({len(self.values)} values)" if len(self.values) > 6 else ""
        return f"one of {shown}{more}"

    def to_json(self) -> dict:
        out = self._base_json()
        out["values"] = [int(v) if isinstance(v, np.integer) else v for v in self.values]
        if self.labels:
            out["labels"] = dict(self.labels)
        if self.other is not None:
            out["other"] = self.other
        return out

    def bin_labels(self, values=None) -> list[str]:
        """Each value with its label when it has one: ``"1 (Urban)"``."""
        values = self.values if values is None else values
        if self.labels:
            return [f"{v} ({self.labels.get(str(v), v)})" if str(self.labels.get(str(v), v)) != str(v)
                    else str(v) for v in values]
        return [str(v) for v in values]


@dataclass(frozen=True)
class IntegerDomain(ColumnDomain):
    """Whole numbers in ``min..max`` in public bins; out-of-range values are clamped.

    Bins: ``edges`` (the first value of every bin, from ``min``), else ``bin_width``, else
    fitted to the data with DP when released (:attr:`adaptive`), or one bin per value when
    the range holds few values. ``special`` values always get a bin of their own.

    ``spread`` (set only by a release's adaptive binning, never declared): how values spread
    inside the bins, as ``(lows, weights)`` of finer pieces (see :func:`dpsynth_core.encoding.decode_codes`).
    """

    min: int | None = None
    max: int | None = None
    bin_width: int | None = None
    edges: tuple | None = None
    special: tuple = ()
    spread: tuple | None = field(default=None, repr=False)
    kind: ClassVar[str] = "integer"

    def problems(self) -> list[str]:
        out = self._missing_bounds()
        if out:
            return out
        if self.min > self.max:
            return [f"column '{self.name}': min ({self.min}) must be <= max ({self.max})"]
        if self.bin_width is not None and self.bin_width < 1:
            return [f"column '{self.name}': bin_width ({self.bin_width}) must be >= 1"]
        if self.edges is not None:
            e = list(self.edges)
            if not e or e != sorted(set(e)) or e[0] != self.min or e[-1] > self.max:
                return [f"column '{self.name}': edges must increase strictly, start at min "
                        f"({self.min}) and not pass max ({self.max})"]
        # the declared bins first (counted, never built), then the special values cut into them
        out = self._too_many_bins(self._declared_bins()) or _special_problems(self.name, self.special, self.min,
                                                                                self.max)
        return out or self._too_many_bins(self.bins)

    @property
    def size(self) -> int:
        return int(self.max) - int(self.min) + 1

    @property
    def declares_bins(self) -> bool:
        """True when the publisher declared the bins (``edges`` or ``bin_width``)."""
        return self.edges is not None or self.bin_width is not None

    @property
    def adaptive(self) -> bool:
        """True when the release fits this column's bins to the data (paid for with DP).

        That is a column with a public range, no declared bins, and more possible values
        than :data:`~dpsynth_core.constraints.ADAPTIVE_MAX_BINS` (fewer get one bin per value, exact and free).
        """
        return (not self.declares_bins and self.min is not None and self.max is not None
                and self.size > constraints.ADAPTIVE_MAX_BINS)

    @property
    def width(self) -> int:
        if self.bin_width is not None:
            return int(self.bin_width)
        if self.size <= constraints.MAX_UNIT_BINS:
            return 1
        return int(_nice_width(self.size, constraints.DEFAULT_TARGET_BINS, integer=True))

    @property
    def lows(self) -> np.ndarray:
        """Lower end (inclusive) of every bin."""
        if self.edges is not None:
            lows = np.asarray(self.edges, dtype=np.int64)
        else:
            lows = np.arange(int(self.min), int(self.max) + 1, self.width, dtype=np.int64)
        return _with_special(lows, self.special, int(self.max))

    @property
    def highs(self) -> np.ndarray:
        """Upper end (inclusive) of every bin."""
        lows = self.lows
        return np.append(lows[1:] - 1, int(self.max)).astype(np.int64)

    def _declared_bins(self) -> int:
        """Number of bins before special values are cut out, counted without building them."""
        if self.edges is not None:
            return len(self.edges)
        return -(-self.size // self.width)

    @property
    def bins(self) -> int:
        """Number of bins (built only when special values cut into them)."""
        return len(self.lows) if self.special else self._declared_bins()

    def describe(self) -> str:
        if self.min is None or self.max is None:
            return f"whole numbers from {self.min if self.min is not None else '?'} to " \
                   f"{self.max if self.max is not None else '?'} (bound missing)"
        special = f"; {', '.join(str(v) for v in self.special)} kept exact" if self.special else ""
        if self.adaptive:
            return (f"whole numbers from {self.min:,} to {self.max:,}, in up to {constraints.ADAPTIVE_MAX_BINS} "
                    f"bins fitted to the data with DP when released{special}")
        w = "" if self.edges is not None else (" (one bin per value)" if self.width == 1
                                               else f" in bins of {self.width}")
        return f"whole numbers from {self.min:,} to {self.max:,}{w}, {self.bins} bins{special}"

    def to_json(self) -> dict:
        out = self._base_json()
        if self.min is not None:
            out["min"] = int(self.min)
        if self.max is not None:
            out["max"] = int(self.max)
        if self.edges is not None:
            out["edges"] = [int(v) for v in self.edges]
        elif self.bin_width is not None:
            out["bin_width"] = int(self.bin_width)
        if self.special:
            out["special"] = [int(v) for v in self.special]
        return out

    def bin_labels(self) -> list[str]:
        return [str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in zip(self.lows, self.highs)]


@dataclass(frozen=True)
class FloatDomain(ColumnDomain):
    """Real numbers in ``[min, max]`` in public bins; out-of-range values are clamped.

    Bins: ``edges`` (from ``min`` to ``max``), else ``bin_width``, else ``bins`` equal bins,
    else fitted to the data with DP when released (:attr:`adaptive`). Every ``special``
    value gets a bin holding that value alone (a zero-width bin: its edge appears twice in
    :attr:`all_edges`), so it stays exact. ``spread``: as for :class:`IntegerDomain`.
    """

    min: float | None = None
    max: float | None = None
    bins_requested: int | None = None
    bin_width: float | None = None
    edges: tuple | None = None
    special: tuple = ()
    spread: tuple | None = field(default=None, repr=False)
    kind: ClassVar[str] = "float"

    def problems(self) -> list[str]:
        out = self._missing_bounds()
        if out:
            return out
        if not (math.isfinite(self.min) and math.isfinite(self.max)) or self.min >= self.max:
            return [f"column '{self.name}': min ({self.min}) must be < max ({self.max})"]
        if self.bins_requested is not None and self.bins_requested < 1:
            return [f"column '{self.name}': bins ({self.bins_requested}) must be >= 1"]
        if self.bin_width is not None and not (math.isfinite(self.bin_width) and self.bin_width > 0):
            return [f"column '{self.name}': bin_width ({self.bin_width}) must be > 0"]
        if self.edges is not None:
            e = list(self.edges)
            if e != sorted(set(e)) or len(e) < 2 or e[0] != self.min or e[-1] != self.max:
                return [f"column '{self.name}': edges must increase strictly from min ({self.min}) "
                        f"to max ({self.max})"]
        out = self._too_many_bins(self._bin_count()) or _special_problems(
            self.name, self.special, self.min, self.max, shown=lambda v: f"{v:g}")
        return out or self._too_many_bins(self._bin_count() + 2 * len(self.special))

    def _bin_count(self) -> float:
        """Number of bins from the declaration alone, before special values (may be huge or infinite
        for a bad one)."""
        if self.edges is not None:
            return len(self.edges) - 1
        if self.bin_width is not None:
            ratio = (self.max - self.min) / self.bin_width - 1e-9
            return max(1, math.ceil(ratio)) if math.isfinite(ratio) else math.inf
        return self.bins_requested or 20

    @property
    def declares_bins(self) -> bool:
        """True when the publisher declared the bins (``edges``, ``bin_width`` or ``bins``)."""
        return self.edges is not None or self.bin_width is not None or self.bins_requested is not None

    @property
    def adaptive(self) -> bool:
        """True when the release fits this column's bins to the data (paid for with DP)."""
        return not self.declares_bins and self.min is not None and self.max is not None

    @property
    def all_edges(self) -> np.ndarray:
        """Bin boundaries from min to max (length bins + 1); a special value's edge appears twice."""
        if self.edges is not None:
            edges = np.asarray(self.edges, dtype=float)
        elif self.bin_width is not None:
            count = max(1, math.ceil((self.max - self.min) / self.bin_width - 1e-9))
            edges = self.min + self.bin_width * np.arange(count + 1)
            edges[-1] = self.max
        else:
            edges = np.linspace(self.min, self.max, (self.bins_requested or 20) + 1)
        if not self.special:
            return edges
        points = self.special_values
        inner = np.union1d(edges, points)
        return np.sort(np.concatenate([inner, points]))

    @property
    def special_values(self) -> np.ndarray:
        """The special values, sorted (float)."""
        return np.asarray(sorted(float(v) for v in self.special), dtype=float)

    @property
    def bins(self) -> int:
        return len(self.all_edges) - 1 if self.special else int(self._bin_count())

    @property
    def size(self) -> int:
        return self.bins

    def describe(self) -> str:
        if self.min is None or self.max is None:
            return f"real numbers from {self.min if self.min is not None else '?'} to " \
                   f"{self.max if self.max is not None else '?'} (bound missing)"
        special = f"; {', '.join(f'{v:g}' for v in self.special)} kept exact" if self.special else ""
        if self.adaptive:
            return (f"real numbers from {self.min:g} to {self.max:g}, in up to {constraints.ADAPTIVE_MAX_BINS} "
                    f"bins fitted to the data with DP when released{special}")
        return f"real numbers from {self.min:g} to {self.max:g} in {self.bins} bins{special}"

    def to_json(self) -> dict:
        out = self._base_json()
        if self.min is not None:
            out["min"] = self.min
        if self.max is not None:
            out["max"] = self.max
        if self.edges is not None:
            out["edges"] = list(self.edges)
        elif self.bin_width is not None:
            out["bin_width"] = self.bin_width
        elif self.bins_requested is not None:
            out["bins"] = self.bins_requested
        if self.special:
            out["special"] = list(self.special)
        return out

    def bin_labels(self) -> list[str]:
        e = self.all_edges
        return [f"{a:g}" if a == b else f"{a:g}-{b:g}" for a, b in zip(e[:-1], e[1:])]


def _parse_date(value) -> dt.date | None:
    """A date the schema has checked: None, a ``datetime.date`` or text starting YYYY-MM-DD."""
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


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
        out = [f"column '{self.name}': no public {'first' if b == 'min' else 'last'} date is declared; "
               f"supply '{b}' (it is never taken from the data)"
               for b in ("min", "max") if getattr(self, b) is None]
        if out:
            return out
        if self.min > self.max:
            return [f"column '{self.name}': min ({self.min}) must be on or before max ({self.max})"]
        if self.unit is not None and self.unit not in DATE_UNITS:
            return [f"column '{self.name}': unit ({self.unit!r}) must be one of {', '.join(DATE_UNITS)}"]
        if self.edges is not None:
            e = list(self.edges)
            if not e or e != sorted(set(e)) or e[0] != self.min or e[-1] > self.max:
                return [f"column '{self.name}': edges must be dates in increasing order, start at min "
                        f"({self.min}) and not pass max ({self.max})"]
        out = self._too_many_bins(self._declared_bins()) or _special_problems(
            self.name, self.special, self.min, self.max, shown=lambda v: v.isoformat())
        return out or self._too_many_bins(self.bins)

    @property
    def declares_bins(self) -> bool:
        """True when the publisher declared the bins (``edges`` or ``unit``)."""
        return self.edges is not None or self.unit is not None

    @property
    def adaptive(self) -> bool:
        """True when the release fits this column's bins to the data (paid for with DP)."""
        return (not self.declares_bins and self.min is not None and self.max is not None
                and self.size > constraints.ADAPTIVE_MAX_BINS)

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
        first, last = (self.min - _EPOCH).days, (self.max - _EPOCH).days
        if self.edges is not None:
            lows = np.array([(d - _EPOCH).days for d in self.edges], dtype=np.int64)
        elif self.bin_unit == "day":
            lows = np.arange(first, last + 1, dtype=np.int64)
        else:
            step = {"month": "M", "year": "Y"}[self.bin_unit]
            periods = np.arange(np.datetime64(self.min, step), np.datetime64(self.max, step) + 1)
            lows = (periods.astype("datetime64[D]") - np.datetime64("1970-01-01", "D")).astype(np.int64)
            lows[0] = first
        return _with_special(lows, [(d - _EPOCH).days for d in self.special], last)

    @property
    def highs(self) -> np.ndarray:
        lows = self.lows
        return np.append(lows[1:] - 1, (self.max - _EPOCH).days).astype(np.int64)

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
            return (f"dates from {self.min} to {self.max}, in up to {constraints.ADAPTIVE_MAX_BINS} bins "
                    f"fitted to the data with DP when released{special}")
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
            return (_EPOCH + dt.timedelta(days=int(d))).isoformat()

        if self.edges is not None or self.special:
            return [day(lo) if lo == hi else f"{day(lo)} to {day(hi)}" for lo, hi in zip(self.lows, self.highs)]
        width = {"day": 10, "month": 7, "year": 4}[self.bin_unit]
        return [(_EPOCH + dt.timedelta(days=int(d))).isoformat()[:width] for d in self.lows]


@dataclass(frozen=True)
class TextDomain(ColumnDomain):
    """A weakly constrained domain of exact size, listed by a public generator.

    Generators and their sizes:

    * ``letters``: strings of 1 to ``max_length`` characters from ``alphabet``
      (sum of ``len(alphabet)**l``);
    * ``english_word``: any word of the bundled English word list, matched ignoring case
      and released in lower case;
    * ``word_pair``: two such words separated by a space (size ``W**2``);
    * ``digits``: codes of exactly ``length`` digits such as ZIP codes (size ``10**length``);
    * ``any``: any value, released as one of ``size`` public pseudonyms ``value-N``; a value
      is mapped to its pseudonym by a fixed public hash, so the original strings never
      appear in a release (printing them could not be DP: see the "bad bins" theorem).

    Values outside the domain become missing.
    """

    generator: str | None = None
    max_length: int | None = None
    alphabet: str = DEFAULT_ALPHABET
    length: int | None = None
    declared_size: int | None = None
    kind: ClassVar[str] = "text"
    binned: ClassVar[bool] = False

    def problems(self) -> list[str]:
        if self.generator is None:
            return [f"column '{self.name}': free text needs a declared domain; choose a generator "
                    f"({', '.join(TEXT_GENERATORS)}) or drop the column"]
        if self.generator not in TEXT_GENERATORS:
            return [f"column '{self.name}': generator ({self.generator!r}) must be one of "
                    f"{', '.join(TEXT_GENERATORS)}"]
        if self.generator == "letters":
            if not self.max_length or self.max_length < 1:
                return [f"column '{self.name}': 'letters' needs max_length >= 1"]
            if not self.alphabet or len(set(self.alphabet)) != len(self.alphabet):
                return [f"column '{self.name}': the alphabet must be non-empty without repeats"]
        if self.generator == "digits" and (not self.length or self.length < 1):
            return [f"column '{self.name}': 'digits' needs length >= 1"]
        if self.generator == "any" and (not self.declared_size or self.declared_size < 1):
            return [f"column '{self.name}': 'any' needs a declared size >= 1"]
        if self._count() > constraints.MAX_TEXT_DOMAIN_SIZE:
            return [f"column '{self.name}': the domain has about 10^{len(str(self._count())) - 1} values, more than "
                    f"10^{len(str(constraints.MAX_TEXT_DOMAIN_SIZE)) - 1}; declare a shorter length"]
        return []

    @property
    def size(self) -> int:
        self._require_complete()
        return self._count()

    def _count(self) -> int:
        """The exact number of values of a complete declaration."""
        if self.generator == "letters":
            a = len(self.alphabet)
            return sum(a**length for length in range(1, self.max_length + 1))
        if self.generator == "english_word":
            return len(english_word_set())
        if self.generator == "word_pair":
            return len(english_word_set()) ** 2
        if self.generator == "digits":
            return 10**self.length
        return int(self.declared_size)

    def describe(self) -> str:
        if not self.complete:
            return "free text (domain not declared yet)"
        what = {
            "letters": f"strings of 1 to {self.max_length} characters from '{self.alphabet}'",
            "english_word": "any English word (bundled word list)",
            "word_pair": "any pair of English words",
            "digits": f"any {self.length}-digit code",
            "any": "any value, released as public pseudonyms",
        }[self.generator]
        return f"{what}: {size_in_words(self.size)} possible values"

    def to_json(self) -> dict:
        out = self._base_json()
        if self.generator is not None:
            out["generator"] = self.generator
        if self.generator == "letters":
            out["max_length"] = self.max_length
            if self.alphabet != DEFAULT_ALPHABET:
                out["alphabet"] = self.alphabet
        if self.generator == "digits":
            out["length"] = self.length
        if self.generator == "any":
            out["size"] = int(self.declared_size)
        return out

    # --- listing the domain -------------------------------------------------------------

    def label_at(self, index: int) -> str:
        """The value with position ``index`` in the domain's public enumeration."""
        if not 0 <= index < self.size:
            raise IndexError(index)
        if self.generator == "letters":
            a = len(self.alphabet)
            length = 1
            while index >= a**length:
                index -= a**length
                length += 1
            chars = []
            for _ in range(length):
                index, r = divmod(index, a)
                chars.append(self.alphabet[r])
            return "".join(reversed(chars))
        if self.generator == "english_word":
            return _sorted_words()[index]
        if self.generator == "word_pair":
            words = _sorted_words()
            first, second = divmod(index, len(words))
            return f"{words[first]} {words[second]}"
        if self.generator == "digits":
            return f"{index:0{self.length}d}"
        return self._pseudonym(index)

    def index_of(self, label) -> int:
        """The position of ``label`` in the public enumeration: the exact inverse of :meth:`label_at`.

        Codes built on a text column follow these positions, never the data's frequencies.
        Raises ``ValueError`` for a value outside the domain.
        """
        index = self._position(label) if isinstance(label, str) else None
        if index is None or not 0 <= index < self.size or self.label_at(index) != label:
            raise ValueError(f"column '{self.name}': {label!r} is not in the domain")
        return index

    def _position(self, label: str) -> int | None:
        if self.generator == "letters":
            a = len(self.alphabet)
            if not 1 <= len(label) <= self.max_length or any(ch not in self.alphabet for ch in label):
                return None
            offset = sum(a**length for length in range(1, len(label)))
            value = 0
            for ch in label:
                value = value * a + self.alphabet.index(ch)
            return offset + value
        if self.generator == "english_word":
            return _word_positions().get(label)
        if self.generator == "word_pair":
            parts = label.split(" ")
            positions = [_word_positions().get(p) for p in parts]
            if len(parts) != 2 or None in positions:
                return None
            return positions[0] * len(_sorted_words()) + positions[1]
        if self.generator == "digits":
            return int(label) if len(label) == self.length and label.isascii() and label.isdigit() else None
        digits = label[len("value-"):]
        if not label.startswith("value-") or not (digits.isascii() and digits.isdigit()):
            return None
        return int(digits)

    def _pseudonym(self, index: int) -> str:
        return f"value-{index:0{len(str(self.declared_size - 1))}d}"

    def normalise(self, values) -> list:
        """Map raw strings to domain labels; ``None`` for anything outside the domain."""
        import hashlib

        out = []
        if self.generator == "letters":
            pattern = re.compile(f"[{re.escape(self.alphabet)}]{{1,{self.max_length}}}")
            return [v if v is not None and pattern.fullmatch(v) else None for v in values]
        if self.generator == "english_word":
            words = english_word_set()
            return [v.lower() if v is not None and v.lower() in words else None for v in values]
        if self.generator == "word_pair":
            words = english_word_set()
            for v in values:
                parts = v.lower().split() if v is not None else []
                ok = len(parts) == 2 and parts[0] in words and parts[1] in words
                out.append(" ".join(parts) if ok else None)
            return out
        if self.generator == "digits":
            pattern = re.compile(f"[0-9]{{{self.length}}}")
            return [v if v is not None and pattern.fullmatch(v) else None for v in values]
        for v in values:
            if v is None:
                out.append(None)
                continue
            digest = hashlib.blake2b(v.encode("utf-8"), digest_size=16, person=b"dpsynth-any").digest()
            out.append(self._pseudonym(int.from_bytes(digest, "big") % self.declared_size))
        return out


def _sorted_words() -> tuple[str, ...]:
    """The bundled word list, which is stored sorted: position i is the i-th word."""
    return public_list("english_words")


@lru_cache(maxsize=1)
def _word_positions() -> dict:
    """Word -> its position in the bundled (sorted) list."""
    return {word: i for i, word in enumerate(_sorted_words())}


KINDS = {cls.kind: cls for cls in (CategoricalDomain, IntegerDomain, FloatDomain, DateDomain,
                                    TextDomain, DropDomain)}


def column_from_json(name: str, spec: dict) -> ColumnDomain:
    """Build one column's domain from its JSON form (the format in the README).

    The form is checked first (:func:`~dpsynth_core.schema.column_problems`): a wrong type,
    an unknown key or a value out of range raises :class:`DomainError` naming every problem.
    """
    found = column_problems(name, spec)
    if found:
        raise DomainError.from_problems(found)
    return _build_column(name, spec)


def _build_column(name: str, spec: dict) -> ColumnDomain:
    """Build a column from a declaration whose form has been checked."""
    kind = spec["type"]
    missing = spec.get("missing", True)
    if kind == "drop":
        return DropDomain(name=name)
    if kind == "categorical":
        values = spec.get("values")
        if values is None and spec.get("list") is not None:
            values = public_list(spec["list"])
        labels = spec.get("labels")
        return CategoricalDomain(name=name, missing=missing, values=tuple(values or ()),
                                 labels={str(k): v for k, v in labels.items()} if labels else None,
                                 other=spec.get("other"))
    if kind == "integer":
        edges = spec.get("edges")
        return IntegerDomain(name=name, missing=missing, min=spec.get("min"), max=spec.get("max"),
                             bin_width=spec.get("bin_width"), edges=tuple(edges) if edges else None,
                             special=tuple(spec.get("special") or ()))
    if kind == "float":
        edges, low, high, width = spec.get("edges"), spec.get("min"), spec.get("max"), spec.get("bin_width")
        return FloatDomain(name=name, missing=missing, min=None if low is None else float(low),
                           max=None if high is None else float(high), bins_requested=spec.get("bins"),
                           bin_width=None if width is None else float(width),
                           edges=tuple(float(e) for e in edges) if edges else None,
                           special=tuple(float(v) for v in spec.get("special") or ()))
    if kind == "date":
        edges = spec.get("edges")
        return DateDomain(name=name, missing=missing, min=_parse_date(spec.get("min")),
                          max=_parse_date(spec.get("max")), unit=spec.get("unit"),
                          edges=tuple(_parse_date(d) for d in edges) if edges else None,
                          special=tuple(_parse_date(d) for d in spec.get("special") or ()))
    return TextDomain(name=name, missing=missing, generator=spec.get("generator"),
                      max_length=spec.get("max_length"), alphabet=spec.get("alphabet") or DEFAULT_ALPHABET,
                      length=spec.get("length"), declared_size=spec.get("size"))


@dataclass(frozen=True)
class TableDomain:
    """The declared domain of a whole table: one :class:`ColumnDomain` per column, in order.

    Attributes:
        columns: column name -> domain, in the CSV's order.
        missing_markers: cell texts that mean "missing" (default: the empty cell).
        dataset, documentation, notes: free text carried along into the release card.
    """

    columns: dict
    missing_markers: tuple = ("",)
    dataset: str = ""
    documentation: str = ""
    notes: dict = field(default_factory=dict)

    @property
    def kept(self) -> dict:
        """Columns that go into the release (everything but ``drop``)."""
        return {n: c for n, c in self.columns.items() if c.kind != "drop"}

    def problems(self) -> list[str]:
        """Everything the publisher must still supply or fix, one message per problem (all of them)."""
        out = [p for c in self.columns.values() for p in c.problems()]
        if not self.kept:
            out.append("every column is dropped: keep at least one column")
        if not out:
            cells = sum(c.bins + 1 for c in self.kept.values() if c.binned)
            if cells > constraints.MAX_TABLE_CELLS:
                out.append(f"the declared columns have {cells:,} bins in all, more than the "
                           f"{constraints.MAX_TABLE_CELLS:,} a table may have; declare wider bins")
        return out

    def validate(self) -> "TableDomain":
        """Return self, or raise :class:`DomainError` naming every thing to fix."""
        found = self.problems()
        if found:
            raise DomainError.from_problems(found)
        return self

    def with_column(self, column: ColumnDomain) -> "TableDomain":
        columns = dict(self.columns)
        columns[column.name] = column
        return replace(self, columns=columns)

    def check_matches(self, column_names) -> None:
        """Raise when the data's columns and the declaration's columns differ."""
        names = list(column_names)
        missing_in_data = [c for c in self.columns if c not in names]
        undeclared = [c for c in names if c not in self.columns]
        if missing_in_data:
            raise DomainError(f"the domain declares column(s) the data lacks: {', '.join(missing_in_data)}")
        if undeclared:
            raise DomainError(f"the data has column(s) the domain does not declare: {', '.join(undeclared)} "
                              "(declare them, or declare them as 'drop')")

    # --- JSON ---------------------------------------------------------------------------

    @classmethod
    def from_json(cls, spec: dict) -> "TableDomain":
        """Build a declaration from its JSON form, after checking the form of every key
        (:func:`~dpsynth_core.schema.declaration_problems`); raises :class:`DomainError`
        naming every problem found. A declaration may still be incomplete: see :meth:`problems`."""
        found = declaration_problems(spec)
        if found:
            raise DomainError.from_problems(found)
        columns = {name: _build_column(name, col) for name, col in spec["columns"].items()}
        mv = spec.get("missing_values") or {}
        markers = mv.get("markers")
        if markers is None:
            marker = mv.get("marker", "empty cell")
            markers = [""] if marker in ("empty cell", "", None) else ["", marker]
        return cls(columns=columns, missing_markers=tuple(markers), dataset=spec.get("dataset") or "",
                   documentation=spec.get("documentation") or "", notes=dict(spec.get("notes") or {}))

    def to_json(self) -> dict:
        out = {"dataset": self.dataset, "documentation": self.documentation,
               "columns": {n: c.to_json() for n, c in self.columns.items()},
               "missing_values": {"markers": list(self.missing_markers)}}
        if self.notes:
            out["notes"] = self.notes
        return out

    @classmethod
    def load(cls, path) -> "TableDomain":
        """Read a declaration file (UTF-8 JSON, at most ``MAX_DECLARATION_BYTES``)."""
        return cls.from_json(parse_declaration(read_declaration_bytes(path), str(path)))

    def save(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    def summary(self) -> list[dict]:
        return [c.summary() for c in self.columns.values()]


def read_declaration_bytes(path) -> bytes:
    """The bytes of a declaration file, read with a cap (a device or a huge file is refused early)."""
    path = Path(path)
    limit = constraints.MAX_DECLARATION_BYTES
    try:
        if path.is_dir():
            raise DomainError(f"domain file {path} is a folder, not a file")
        if path.is_char_device() or path.is_block_device():
            raise DomainError(f"domain file {path} is a device, not a file")
        with path.open("rb") as handle:
            raw = handle.read(constraints.BINARY_SNIFF_BYTES)
            if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                raise DomainError(f"domain file {path} is not UTF-8 text (it is UTF-16): save it as UTF-8")
            if b"\x00" in raw:
                raise DomainError(f"domain file {path} holds binary data (NUL bytes), not JSON text")
            if len(raw) <= limit:
                raw += handle.read(limit + 1 - len(raw))
    except FileNotFoundError:
        raise DomainError(f"domain file not found: {path}") from None
    except OSError as exc:
        raise DomainError(f"domain file {path} cannot be read: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise DomainError(f"domain file {path} is larger than {limit >> 20} MB: is it a domain declaration?")
    return raw


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _no_duplicate_keys(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def parse_declaration(raw: bytes, name: str = "the declaration") -> dict:
    """Parse a declaration's JSON text strictly: UTF-8 (a BOM is allowed), no NaN or Infinity,
    no key twice in one object, no nesting deeper than ``MAX_JSON_DEPTH``."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DomainError(f"domain file {name} is not UTF-8 text") from None
    try:
        return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise DomainError(f"domain file {name} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except ValueError as exc:
        raise DomainError(f"domain file {name} is not valid JSON: {exc}") from None
    except RecursionError:  # deeper than the parser's own limit; shallower nesting is refused by the schema
        raise DomainError(f"domain file {name} is nested more than {constraints.MAX_JSON_DEPTH} levels deep") from None


def as_table_domain(domain) -> TableDomain:
    """Accept a :class:`TableDomain`, its JSON form as a dict, or a path to the JSON file."""
    if isinstance(domain, TableDomain):
        return domain
    if isinstance(domain, dict):
        return TableDomain.from_json(domain)
    if isinstance(domain, (str, Path)):
        return TableDomain.load(domain)
    raise DomainError(f"domain must be a TableDomain, a dict or a path, got {type(domain).__name__}")
