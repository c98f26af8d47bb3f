"""Decoding synthetic codes back to values: a category, or a value drawn inside its bin (through the bin's finer
pieces when the domain carries a DP ``spread``); the reverse of :mod:`.encoding`. Nothing here reads data: the codes
are a method's synthetic output and the domain is public or DP output.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from ..domain import CategoricalDomain, ColumnDomain, DateDomain, FloatDomain, IntegerDomain
from ..domain.point_masses import point_of_pieces
from .arrow_chunks import moment_array, moment_type


def _draw_in_bins(lows, highs, spread, codes: np.ndarray, noise, integer: bool) -> np.ndarray:
    """A value inside each code's bin: uniform, or through the bin's finer pieces when ``spread`` is given.

    ``spread = (piece_lows, weights)``: pieces tiling the range (every bin's low is a piece's low); a value picks
    a piece of its bin by weight, then a uniform value inside it, or a real point mass's own value
    (:func:`~dpsynth_core.domain.point_masses.point_of_pieces`). Bins without pieces or weight draw uniformly."""
    if spread is None or codes.size == 0:
        return noise.integers(lows[codes], highs[codes]) if integer else noise.uniform(lows[codes], highs[codes])
    piece_lows, weights = np.asarray(spread[0], dtype=np.int64 if integer else float), np.asarray(spread[1], float)
    top = highs[-1]
    piece_highs = np.append(piece_lows[1:] - 1, top) if integer else np.append(piece_lows[1:], top)
    owner = np.searchsorted(lows, piece_lows, side="right") - 1
    totals = np.bincount(owner, weights=weights, minlength=len(lows))
    within = np.zeros_like(weights)
    positive = totals[owner] > 0
    within[positive] = weights[positive] / totals[owner][positive]
    # cumulative share of every piece within its bin, shifted by the bin's code: bin c's pieces
    # cover (c, c + 1], so c + u with u uniform in [0, 1) lands on a piece of bin c
    first = np.r_[0, np.flatnonzero(owner[1:] != owner[:-1]) + 1]
    last = np.r_[first[1:] - 1, len(owner) - 1]
    running = np.cumsum(within)
    before = np.repeat(np.r_[0.0, running[last[:-1]]], last - first + 1)
    cumulative = owner + np.minimum(running - before, 1.0)
    cumulative[last] = owner[last] + 1.0
    # (the uniforms ``uniform(0, 1)`` draws elementwise, the same numbers without its arrays of bounds)
    piece = np.minimum(_search(cumulative, codes + noise.rng.random(codes.size)), len(piece_lows) - 1)
    low, high = piece_lows[piece], piece_highs[piece]
    uniform = totals[codes] <= 0
    low, high = np.where(uniform, lows[codes], low), np.where(uniform, highs[codes], high)
    if integer:
        return noise.integers(low, high)
    span = float(top - piece_lows[0])
    points = point_of_pieces(piece_lows, piece_highs, span, weights, totals[owner])[piece]  # a point mass's value
    return np.where(np.isnan(points) | uniform, noise.uniform(low, high), points)


#: :func:`_search`'s cells per unit: a power of two, so a point's cell and the cells' ends are exact.
_CELLS_PER_UNIT = 1024


def _search(cumulative: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``np.searchsorted(cumulative, points, side="right")`` for points in ``[0, len)`` (``cumulative``
    ascending), the same numbers, through a table over cells of ``1 / 1024``: a point takes its cell's
    answer when no value of ``cumulative`` falls inside the cell, and is searched only otherwise
    (a few in a thousand): the binary search of a million unsorted points is most of a decode."""
    cells = int(np.ceil(points.max() + 1)) * _CELLS_PER_UNIT if points.size else 0
    if cells > 2**24 or cells <= 0:
        return np.searchsorted(cumulative, points, side="right")
    ends = np.arange(cells + 1) / _CELLS_PER_UNIT
    at_start = np.searchsorted(cumulative, ends[:-1], side="right")
    exact = at_start == np.searchsorted(cumulative, ends[1:], side="left")  # nothing in [start, end)
    cell = (points * _CELLS_PER_UNIT).astype(np.int64)
    found = at_start[cell]
    ask = np.flatnonzero(~exact[cell])
    found[ask] = np.searchsorted(cumulative, points[ask], side="right")
    return found


@dataclass
class Decoded:
    """A column's synthetic values, as :func:`decode_codes` draws them, before they become a pandas Series
    (:meth:`series`) or an Arrow array (:meth:`arrow`): the same values either way, from the same draws.

    Either ``labels`` (the possible values) with ``indices`` into them, or ``values`` with ``dtype``
    (``"Int64"``, ``"float"`` or ``"object"``), or ``values`` the numbers a date, date-and-time or time-of-day
    column ``moments`` counts by (its text for a Series, typed for Arrow: :func:`~.arrow_chunks.moment_array`);
    ``missing`` marks missing cells.
    """

    missing: np.ndarray
    labels: np.ndarray | None = None
    indices: np.ndarray | None = None
    values: np.ndarray | None = None
    dtype: str = "object"
    moments: DateDomain | None = None

    def series(self) -> pd.Series:
        """The values as a pandas Series: text as objects (None missing), integers ``Int64``, floats (NaN)."""
        if self.labels is not None:
            values = self.labels[self.indices]
            values[self.missing] = None
            return pd.Series(values, dtype=object)
        if self.dtype == "Int64":
            return pd.Series(pd.array(np.where(self.missing, 0, self.values), dtype="Int64")).mask(self.missing)
        if self.dtype == "float":
            return pd.Series(np.where(self.missing, np.nan, self.values), dtype=float)
        values = self.moments.texts(self.values).astype(object) if self.moments is not None else self.values.copy()
        values[self.missing] = None
        return pd.Series(values, dtype=object)

    def arrow(self) -> pa.Array:
        """The values as Arrow, the types :meth:`series` gets from Arrow (string, int64, double; missing as
        null), labels as a dictionary array over them (no string is built per record), dates and times typed
        (:func:`~.arrow_chunks.moment_type`; a form with no type, such as a year and a month, as its text)."""
        mask = self.missing if self.missing.any() else None
        if self.moments is not None:
            if moment_type(self.moments) is not None:
                return moment_array(self.moments, self.values, self.missing)
            return pa.array(self.moments.texts(self.values).astype(object), mask=mask, type=pa.string())
        if self.labels is not None:
            indices = pa.array(self.indices.astype(np.int32, copy=False), mask=mask)
            return pa.DictionaryArray.from_arrays(indices, pa.array(self.labels, type=pa.string()))
        if self.dtype == "Int64":
            return pa.array(self.values.astype(np.int64, copy=False), mask=mask, type=pa.int64())
        if self.dtype == "float":
            return pa.array(np.where(self.missing, np.nan, self.values), from_pandas=True, type=pa.float64())
        return pa.array(self.values, mask=mask, type=pa.string())


def decode_codes(domain: ColumnDomain, codes: np.ndarray, noise) -> pd.Series:
    """Turn synthetic cell codes into values: a category, or a value drawn inside its bin.

    Integers stay integers (pandas ``Int64`` whether or not any value is missing, so the
    dtype reveals nothing), dates are written YYYY-MM-DD, code ``bins`` is missing. Inside a
    bin, values are uniform, or follow the bin's finer pieces when the domain carries a
    ``spread`` (DP output of adaptive binning, :mod:`dpsynth_core.privacy.binning`).
    """
    return decoded_codes(domain, codes, noise).series()


def decoded_codes(domain: ColumnDomain, codes: np.ndarray, noise) -> Decoded:
    """:func:`decode_codes`'s values, as a :class:`Decoded` (for a Series or an Arrow array)."""
    codes = np.asarray(codes, dtype=np.int64)
    missing = codes >= domain.bins
    safe = np.where(missing, 0, codes)
    if isinstance(domain, CategoricalDomain):
        if domain.integer_codes:
            return Decoded(missing, values=np.asarray(domain.values, dtype=np.int64)[safe], dtype="Int64")
        return Decoded(missing, labels=np.asarray(domain.values, dtype=object), indices=safe)
    if isinstance(domain, IntegerDomain):
        values = _draw_in_bins(domain.lows, domain.highs, domain.spread, safe, noise, integer=True)
        return Decoded(missing, values=values, dtype="Int64")
    if isinstance(domain, FloatDomain):
        edges = domain.all_edges
        values = domain.in_decimals(_draw_in_bins(edges[:-1], edges[1:], domain.spread, safe, noise, integer=False))
        return Decoded(missing, values=values, dtype="float")
    if isinstance(domain, DateDomain):
        steps = _draw_in_bins(domain.lows, domain.highs, domain.spread, safe, noise, integer=True)
        return Decoded(missing, values=steps, moments=domain)
    raise TypeError(domain.kind)  # pragma: no cover
