"""Integer and real ranges split into public bins, with public special values kept exact (dates:
:mod:`.dates`, which shares the helpers here)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from .. import constraints
from .column import ColumnDomain


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
    """Bin lows (integers) with a one-value bin cut out for every special value in range."""
    if not special:
        return lows
    cuts = [int(v) for v in special] + [int(v) + 1 for v in special if int(v) < top]
    return np.unique(np.concatenate([lows, np.asarray(cuts, dtype=np.int64)]))


def special_problems(name: str, special, low, high, shown=str) -> list[str]:
    if len(set(special)) != len(special):
        return [f"column '{name}': the special values contain duplicates"]
    outside = [shown(v) for v in special if not low <= v <= high]
    if outside:
        return [
            f"column '{name}': special value(s) {', '.join(outside)} outside the declared range "
            f"{shown(low)} to {shown(high)}"
        ]
    return []


@dataclass(frozen=True)
class IntegerDomain(ColumnDomain):
    """Whole numbers in ``min..max`` in public bins; out-of-range values are clamped.

    Bins: ``edges`` (the first value of every bin, from ``min``), else ``bin_width``, else
    fitted to the data with DP when released (:attr:`adaptive`), or one bin per value when
    the range holds few values. ``special`` values always get a bin of their own.

    ``spread`` (set only by a release's adaptive binning, never declared): how values spread
    inside the bins, as ``(lows, weights)`` of finer pieces (see :func:`dpsynth_core.data.encoding.decode_codes`).
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
                return [
                    f"column '{self.name}': edges must increase strictly, start at min "
                    f"({self.min}) and not pass max ({self.max})"
                ]
        # the declared bins first (counted, never built), then the special values cut into them
        out = self._too_many_bins(self._declared_bins()) or special_problems(
            self.name, self.special, self.min, self.max
        )
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
        return (
            not self.declares_bins
            and self.min is not None
            and self.max is not None
            and self.size > constraints.ADAPTIVE_MAX_BINS
        )

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
            return (
                f"whole numbers from {self.min if self.min is not None else '?'} to "
                f"{self.max if self.max is not None else '?'} (bound missing)"
            )
        special = f"; {', '.join(str(v) for v in self.special)} kept exact" if self.special else ""
        if self.adaptive:
            return (
                f"whole numbers from {self.min:,} to {self.max:,}, in up to {constraints.ADAPTIVE_MAX_BINS} "
                f"bins fitted to the data with DP when released{special}"
            )
        w = (
            ""
            if self.edges is not None
            else (" (one bin per value)" if self.width == 1 else f" in bins of {self.width}")
        )
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
                return [f"column '{self.name}': edges must increase strictly from min ({self.min}) to max ({self.max})"]
        out = self._too_many_bins(self._bin_count()) or special_problems(
            self.name, self.special, self.min, self.max, shown=lambda v: f"{v:g}"
        )
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
            return (
                f"real numbers from {self.min if self.min is not None else '?'} to "
                f"{self.max if self.max is not None else '?'} (bound missing)"
            )
        special = f"; {', '.join(f'{v:g}' for v in self.special)} kept exact" if self.special else ""
        if self.adaptive:
            return (
                f"real numbers from {self.min:g} to {self.max:g}, in up to {constraints.ADAPTIVE_MAX_BINS} "
                f"bins fitted to the data with DP when released{special}"
            )
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
