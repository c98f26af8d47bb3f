"""The range kinds: their shared base :class:`RangeDomain`, and integer and real ranges split into
public bins with public special values kept exact (dates: :mod:`.dates`, on the same base)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .. import constraints
from ..wording import counted, noun, value_text
from .column import ColumnDomain
from .multiples import multiples_in, on_multiples


def nice_width(span: float, target_bins: int, integer: bool) -> float:
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


def with_special(lows: np.ndarray, special, top: int) -> np.ndarray:
    """Bin lows (integers) with a one-value bin cut out for every special value in range.

    >>> with_special(np.array([0, 10, 20]), (12, 20), top=29).tolist()
    [0, 10, 12, 13, 20, 21]
    """
    if not special:
        return lows
    cuts = np.unique(np.asarray([int(v) for v in special] + [int(v) + 1 for v in special if int(v) < top], np.int64))
    lows = np.asarray(lows, dtype=np.int64)
    if len(lows) == 0 or np.any(np.diff(lows) <= 0):  # not the strictly increasing lows of a checked declaration
        return np.unique(np.concatenate([lows, cuts]))
    # The few cuts inserted where they fall (linear in the bins: a sort of millions of bins took seconds).
    at = np.searchsorted(lows, cuts)
    new = lows[np.minimum(at, len(lows) - 1)] != cuts
    return np.insert(lows, at[new], cuts[new])


@dataclass(frozen=True)
class RangeDomain(ColumnDomain):
    """The base of the range kinds (integer, float, date, datetime): values from a public ``min`` to a public
    ``max`` in public bins, with public ``special`` values kept exact.

    It holds what the kinds share: the checks (:meth:`problems`, in the order a publisher fixes
    them), whether the release fits the bins (:attr:`adaptive`), the words (:meth:`describe`) and
    the JSON (:meth:`to_json`). A kind states what differs: its value type (``min``, ``max``,
    ``edges`` and ``special`` hold ints, floats or dates), its bin keys, how its values are
    written, and how many bins its declaration makes.

    ``edges``: the first value of every bin, from ``min`` (or, with :attr:`edges_are_boundaries`,
    the boundaries from ``min`` to ``max``). ``spread`` (set only by a release's adaptive binning,
    never declared): how values spread inside the bins, as ``(lows, weights)`` of finer pieces
    (see :func:`dpsynth_core.data.decoding.decode_codes`).
    """

    min: Any = None
    max: Any = None
    edges: tuple | None = None
    special: tuple = ()
    spread: tuple | None = field(default=None, repr=False)
    #: How the data file writes the values, when not in the form always read (``day first``, ``thousands comma``,
    #: ...: the kind's ``written`` key): a parsing choice of the publisher's (:mod:`dpsynth_core.data.cell_values`).
    written: str | None = None
    #: A public step the values come in (numbers only: incomes in brackets of 2,500): the release rounds to its
    #: multiples (:mod:`.multiples`); None: not rounded.
    multiple_of: Any = None

    #: The attributes besides ``edges`` that declare the bins.
    bin_keys: ClassVar[tuple] = ()
    #: The kind's values in words (``whole numbers``), and how a bound is written in them.
    values_words: ClassVar[str] = ""
    bound_format: ClassVar[str] = ""
    #: How a value is written in a problem and after "kept exact".
    shown_format: ClassVar[str] = ""
    #: What a missing ``min`` and ``max`` are called, and what to enter instead.
    missing_bound_words: ClassVar[dict] = {
        "min": ("minimum", "smallest possible value from documentation or policy"),
        "max": ("maximum", "largest possible value from documentation or policy"),
    }
    #: How ``min`` must stand to ``max``, in words.
    order_rule: ClassVar[str] = "<="
    #: What ``edges`` must be, in words (``{min}`` and ``{max}`` filled in).
    edges_rule: ClassVar[str] = "increase strictly, start at min ({min}) and not pass max ({max})"
    #: True when ``edges`` are the bins' boundaries from ``min`` to ``max`` (at least two), not the
    #: first value of every bin.
    edges_are_boundaries: ClassVar[bool] = False
    #: True when a small range gets one bin per value (whole numbers, days) rather than fitted bins.
    countable: ClassVar[bool] = True

    # --- the checks -------------------------------------------------------------------------

    def problems(self) -> list[str]:
        """What the publisher must still fix: the first of these checks that fails (both bounds declared,
        their order, the kind's bin keys, the edges, the number of bins, the special values)."""
        out = self._missing_bounds()
        if out:
            return out
        if not self._bounds_in_order():
            return [f"column '{self.name}': min ({self.min}) must be {self.order_rule} max ({self.max})"]
        out = self._bin_key_problems()
        if out:
            return out
        if self.multiple_of is not None and multiples_in(self.multiple_of, *self._multiples_range()) is None:
            return [f"column '{self.name}': no multiple of {self.multiple_of} lies in {self.min} to {self.max}"]
        if self.edges is not None and not self._edges_fit(list(self.edges)):
            return [f"column '{self.name}': edges must {self.edges_rule.format(min=self.min, max=self.max)}"]
        # the declared bins first (counted, never built), then the special values cut into them
        out = self._too_many_bins(self._declared_bins()) or self._special_problems()
        return out or self._too_many_bins(self._bins_with_special())

    def _missing_bounds(self) -> list[str]:
        """A public ``min`` or ``max`` not declared: named, never taken from the data."""
        return [
            f"column '{self.name}': no public {self.missing_bound_words[bound][0]} is declared; "
            f"enter the {self.missing_bound_words[bound][1]} (it is never taken from the data)"
            for bound in ("min", "max")
            if getattr(self, bound) is None
        ]

    def _bounds_in_order(self) -> bool:
        return self.min <= self.max

    def _bin_key_problems(self) -> list[str]:
        """Problems with the kind's own bin keys (a width, a count, a unit)."""
        return []

    def _edges_fit(self, edges: list) -> bool:
        """Edges increase strictly from ``min`` and end at ``max`` (boundaries) or not after it."""
        if not edges or edges != sorted(set(edges)) or edges[0] != self.min:
            return False
        if self.edges_are_boundaries:
            return len(edges) >= 2 and edges[-1] == self.max
        return edges[-1] <= self.max

    def _special_problems(self) -> list[str]:
        if len(set(self.special)) != len(self.special):
            return [f"column '{self.name}': the special values contain duplicates"]
        outside = [self._shown(v) for v in self.special if not self.min <= v <= self.max]
        if outside:
            return [
                f"column '{self.name}': special {noun(len(outside), 'value')} {', '.join(outside)} outside the "
                "declared range "
                f"{self._shown(self.min)} to {self._shown(self.max)}"
            ]
        return []

    def _declared_bins(self) -> float:
        """Number of bins from the declaration alone, before special values, counted without building
        them (may be huge, or infinite for a bad declaration)."""
        raise NotImplementedError

    def _bins_with_special(self) -> float:
        """Number of bins once the special values are cut into them."""
        return self.bins

    def _shown(self, value) -> str:
        return format(value, self.shown_format)

    # --- what the declaration says ----------------------------------------------------------

    @property
    def declares_bins(self) -> bool:
        """True when the publisher declared the bins (``edges`` or one of :attr:`bin_keys`)."""
        return any(getattr(self, key) is not None for key in ("edges", *self.bin_keys))

    @property
    def adaptive(self) -> bool:
        """True when the release fits this column's bins to the data (paid for with DP): a public range and no
        declared bins; a countable one also needs more possible values than
        :data:`~dpsynth_core.constraints.ADAPTIVE_MAX_BINS` (fewer get one bin per value, exact and free)."""
        return (
            not self.declares_bins
            and self.min is not None
            and self.max is not None
            and (not self.countable or self.size > constraints.ADAPTIVE_MAX_BINS)
        )

    @property
    def wide_bins(self) -> bool:
        """True when some bin can hold more than one value (as the file writes it): how they spread is measured."""
        return not self.countable or bool((self.highs > self.lows).any())

    def most_bins(self, short_ranges: bool = True) -> int:
        """Most bins this column ends with when its bins are fitted to the data
        (:func:`~dpsynth_core.constraints.most_fitted_bins`): a whole-number column's short kept range is cut into
        values under a method with ``short_ranges`` (``Synthesizer.short_ranges``, the default method's)."""
        return constraints.most_fitted_bins(self.countable, short_ranges and self.kind == "integer")

    def describe(self) -> str:
        if self.min is None or self.max is None:
            return self._bounds_missing_words()
        stepped = f"; synthetic values rounded to {self._multiples_words()}" if self.multiple_of is not None else ""
        if self.derived is not None:  # computed or drawn past another: its rule, not bins (and its step)
            return self._range_words() + self._derived_words() + stepped
        special = (f"; {', '.join(self._shown(v) for v in self.special)} kept exact" if self.special else "") + stepped
        if self.adaptive:  # the default method's bound
            fitted = f"in up to {self.most_bins()} bins fitted to the data with DP when released"
            return f"{self._range_words()}, {fitted}{special}"
        return f"{self._range_words()}{self._bins_words()}{special}"

    def on_multiples(self, values: np.ndarray, least=None) -> np.ndarray:
        """``values`` on the multiples of :attr:`multiple_of` in the range (:func:`.multiples.on_multiples`), none
        rounded below ``least`` where given (a column past another: its source's value plus the least gap)."""
        if self.multiple_of is None:
            return values
        out = on_multiples(values, self.multiple_of, *self._multiples_range(), self.special, least)
        return out.astype(values.dtype) if values.dtype.kind in "iu" else out

    def _multiples_range(self) -> tuple:  # in the units ``multiple_of`` counts (a date and time's: its steps)
        return self.min, self.max

    def _multiples_words(self) -> str:
        return f"multiples of {self._bound(self.multiple_of)}"

    def _bounds_missing_words(self) -> str:
        low, high = ("?" if v is None else v for v in (self.min, self.max))
        return f"{self.values_words} from {low} to {high} (bound missing)"

    def _range_words(self) -> str:
        return f"{self.values_words} from {self._bound(self.min)} to {self._bound(self.max)}"

    def _bound(self, value) -> str:
        """A bound in words (:attr:`bound_format`); a large real one written out as typed (10000000, not 1e+07)."""
        text = format(value, self.bound_format)
        return np.format_float_positional(float(value), 6, False, False, trim="-") if "e+" in text else text

    def _bins_words(self) -> str:
        """The declared bins in words, after the range (``" in 4 bins"``)."""
        return f" in {counted(self.bins, 'bin')}"

    def to_json(self) -> dict:
        out = self._base_json()
        if self.min is not None:
            out["min"] = self._json_value(self.min)
        if self.max is not None:
            out["max"] = self._json_value(self.max)
        if self.edges is not None:
            out["edges"] = [self._json_value(v) for v in self.edges]
        else:
            out.update(self._bin_keys_json())
        if self.special:
            out["special"] = [self._json_value(v) for v in self.special]
        if self.written:
            out["written"] = self.written
        if self.multiple_of is not None:
            out["multiple_of"] = self._json_value(self.multiple_of)
        return out

    @staticmethod
    def _json_value(value):
        return value

    def _bin_keys_json(self) -> dict:
        """The declared bin key that wins when no ``edges`` are given, in its JSON form."""
        return {}


@dataclass(frozen=True)
class IntegerDomain(RangeDomain):
    """Whole numbers in ``min..max`` in public bins; out-of-range values are clamped. Bins: ``edges`` (the first
    value of every bin, from ``min``), else ``bin_width``, else fitted to the data with DP when released
    (:attr:`adaptive`), or one bin per value when the range holds few values. ``special`` values always get a bin of
    their own. ``spread``: as for :class:`RangeDomain`."""

    bin_width: int | None = None
    kind = "integer"
    bin_keys = ("bin_width",)
    values_words = "whole numbers"

    def _bound(self, value) -> str:
        """Grouped by thousands from five digits on only (:func:`~dpsynth_core.wording.value_text`): years 2007
        to 2009, counts 0 to 10,000."""
        return value_text(int(value))

    def _bin_key_problems(self) -> list[str]:
        if self.bin_width is not None and self.bin_width < 1:
            return [f"column '{self.name}': bin_width ({self.bin_width}) must be >= 1"]
        return []

    @property
    def size(self) -> int:
        return int(self.max) - int(self.min) + 1

    @property
    def width(self) -> int:
        if self.bin_width is not None:
            return int(self.bin_width)
        if self.size <= constraints.MAX_UNIT_BINS:
            return 1
        return int(nice_width(self.size, constraints.DEFAULT_TARGET_BINS, integer=True))

    @property
    def lows(self) -> np.ndarray:
        """Lower end (inclusive) of every bin."""
        if self.edges is not None:
            lows = np.asarray(self.edges, dtype=np.int64)
        else:
            lows = np.arange(int(self.min), int(self.max) + 1, self.width, dtype=np.int64)
        return with_special(lows, self.special, int(self.max))

    @property
    def highs(self) -> np.ndarray:
        """Upper end (inclusive) of every bin."""
        lows = self.lows
        return np.append(lows[1:] - 1, int(self.max)).astype(np.int64)

    def _declared_bins(self) -> int:
        if self.edges is not None:
            return len(self.edges)
        return -(-self.size // self.width)

    @property
    def bins(self) -> int:
        """Number of bins (built only when special values cut into them)."""
        return len(self.lows) if self.special else self._declared_bins()

    def _bins_words(self) -> str:
        if self.edges is not None:
            width = ""
        else:
            width = " (one bin per value)" if self.width == 1 else f" in bins of {self.width}"
        return f"{width}, {counted(self.bins, 'bin')}"

    @staticmethod
    def _json_value(value):
        return int(value)

    def _bin_keys_json(self) -> dict:
        return {"bin_width": int(self.bin_width)} if self.bin_width is not None else {}

    def bin_labels(self) -> list[str]:
        return [str(lo) if lo == hi else f"{lo}-{hi}" for lo, hi in zip(self.lows, self.highs)]


@dataclass(frozen=True)
class FloatDomain(RangeDomain):
    """Real numbers in ``[min, max]`` in public bins; out-of-range values are clamped.

    Bins: ``edges`` (from ``min`` to ``max``), else ``bin_width``, else ``bins`` equal bins,
    else fitted to the data with DP when released (:attr:`adaptive`). Every ``special``
    value gets a bin holding that value alone (a zero-width bin: its edge appears twice in
    :attr:`all_edges`), so it stays exact. ``spread``: as for :class:`RangeDomain`.
    """

    bins_requested: int | None = None
    bin_width: float | None = None
    #: Decimal places the synthetic values are rounded to (public, as the documentation gives
    #: them: cents for money, 1 for a measurement read to a tenth); None: not rounded.
    decimals: int | None = None
    kind = "float"
    bin_keys = ("bin_width", "bins_requested")
    values_words = "real numbers"
    bound_format = "g"
    shown_format = "g"
    order_rule = "<"
    edges_rule = "increase strictly from min ({min}) to max ({max})"
    edges_are_boundaries = True
    countable = False

    def _bounds_in_order(self) -> bool:
        return math.isfinite(self.min) and math.isfinite(self.max) and self.min < self.max

    def _bin_key_problems(self) -> list[str]:
        if self.bins_requested is not None and self.bins_requested < 1:
            return [f"column '{self.name}': bins ({self.bins_requested}) must be >= 1"]
        if self.bin_width is not None and not (math.isfinite(self.bin_width) and self.bin_width > 0):
            return [f"column '{self.name}': bin_width ({self.bin_width}) must be > 0"]
        return []

    def _declared_bins(self) -> float:
        if self.edges is not None:
            return len(self.edges) - 1
        if self.bin_width is not None:
            ratio = (self.max - self.min) / self.bin_width - 1e-9
            return max(1, math.ceil(ratio)) if math.isfinite(ratio) else math.inf
        return self.bins_requested or 20

    def _bins_with_special(self) -> float:
        """At most two more bins for every special value (counted, never built)."""
        return self._declared_bins() + 2 * len(self.special)

    def in_decimals(self, values: np.ndarray) -> np.ndarray:
        """``values`` rounded to :attr:`decimals` and kept within ``min..max``, special values exact (post-processing
        of drawn values with public settings only).

        >>> FloatDomain("x", min=0.0, max=10.0, decimals=1, special=(2.25,)).in_decimals(np.array([2.25, 3.14, 9.99]))
        array([ 2.25,  3.1 , 10.  ])
        """
        if self.decimals is None:
            return values
        rounded = np.clip(np.round(values, self.decimals), self.min, self.max)
        return np.where(np.isin(values, self.special_values), values, rounded)

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
        return len(self.all_edges) - 1 if self.special else int(self._declared_bins())

    @property
    def size(self) -> int:
        return self.bins

    def _bin_keys_json(self) -> dict:
        if self.bin_width is not None:
            return {"bin_width": self.bin_width}
        return {"bins": self.bins_requested} if self.bins_requested is not None else {}

    def to_json(self) -> dict:
        return super().to_json() | ({"decimals": self.decimals} if self.decimals is not None else {})

    def describe(self) -> str:
        places = f"{self.decimals} decimal place{'s' * (self.decimals != 1)}" if self.decimals is not None else ""
        return super().describe() + (f"; synthetic values rounded to {places}" if places else "")

    def bin_labels(self) -> list[str]:
        e = self.all_edges
        return [f"{a:g}" if a == b else f"{a:g}-{b:g}" for a, b in zip(e[:-1], e[1:])]
