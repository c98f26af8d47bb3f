"""Numbers given in steps: a column declared ``multiple_of`` (incomes recorded in brackets of 2,500, firm sizes in
tens, a score in halves) comes out on multiples of that public step, as a column declared with ``decimals`` comes
out to its places. Post-processing of drawn values with public settings only: nothing here reads data."""

from __future__ import annotations

import math

import numpy as np


def multiples_in(step: float, low: float, high: float) -> tuple[float, float] | None:
    """The smallest and the largest multiple of ``step`` in ``low..high``, or None when none lies there.

    >>> multiples_in(2500, 0, 200000), multiples_in(0.5, 0.2, 3.9), multiples_in(25, 1, 20)
    ((0.0, 200000.0), (0.5, 3.5), None)
    """
    first, last = math.ceil(low / step - 1e-9) * step, math.floor(high / step + 1e-9) * step
    if first > last:
        return None
    return float(_tidy(first, step)), float(_tidy(last, step))


def on_multiples(values: np.ndarray, step: float, low: float, high: float, special=(), least=None) -> np.ndarray:
    """``values`` rounded to the nearest multiple of ``step`` inside ``low..high`` (the nearest one there where the
    rounding would pass an end), the declared ``special`` values exact. ``least`` (an array beside ``values``, NaN
    where none): where the nearest multiple lies below it, the first multiple at or above it, as far as ``high``
    allows (an end drawn past its start by a least gap stays past it when rounded).

    >>> on_multiples(np.array([3.9, 126.0, 137.6, 251.0, 999.0]), 25, 0, 300, special=(999,)).tolist()
    [0.0, 125.0, 150.0, 250.0, 999.0]
    >>> on_multiples(np.array([0.74, 1.3, 3.81]), 0.5, 0.2, 3.9).tolist()
    [0.5, 1.5, 3.5]
    >>> ends, least = np.array([1340.0, 1340.0, 5000.0]), np.array([1200.0, np.nan, 5100.0])
    >>> on_multiples(ends, 1000, 0, 5000, least=least).tolist()
    [2000.0, 1000.0, 5000.0]
    """
    first, last = multiples_in(step, low, high)
    rounded = np.clip(np.round(np.asarray(values, dtype=float) / step) * step, first, last)
    if least is not None:
        least = np.asarray(least, dtype=float)
        above = np.clip(np.ceil(np.nan_to_num(least, nan=first) / step - 1e-9) * step, first, last)
        rounded = np.where(rounded < least, above, rounded)
    rounded = _tidy(rounded, step)
    return np.where(np.isin(values, np.asarray(special, dtype=float)), values, rounded)


def _tidy(values, step: float):
    """Multiples of a step with a decimal point written as the step writes them (0.3, not 0.30000000000000004)."""
    places = max(0, -math.floor(math.log10(step)) + 3) if step < 1 else 0
    return np.round(values, places) if places else values
