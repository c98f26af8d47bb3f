"""Where a real column's point masses come out: the records of a value many records share (the 0 of an amount most
people do not have, 40 hours a week, a count's 2 in a column declared as real numbers) are decoded at the simplest
number inside the piece that holds them (:func:`point_of_pieces`), not spread uniformly over it. Post-processing of DP
pieces and public bounds: nothing here reads data."""

from __future__ import annotations

import math

import numpy as np

from .. import constraints


def shortest_decimal(low: float, high: float, *, closed: bool = False) -> float | None:
    """The number in ``[low, high)`` (``[low, high]`` when ``closed``) written with the fewest decimals (the
    coarsest power of ten first), or None when none is shorter than 17 digits: 0 in ``[0, 1.2e-6)``, 2.5 in
    ``[2.49999, 2.50001)``, 100 in ``[99.999997, 100]``.

    >>> shortest_decimal(0.0, 1.2e-6), shortest_decimal(2.4999976, 2.5000012), shortest_decimal(-3.02, -2.97)
    (0.0, 2.5, -3.0)
    >>> shortest_decimal(99.999997, 100.0), shortest_decimal(99.999997, 100.0, closed=True)
    (99.999997, 100.0)
    """
    for digits in range(-15, 17):
        step = 10.0**-digits
        value = math.ceil(low / step) * step
        value = round(value, digits) if digits > 0 else value
        if low <= value < high or (closed and value == high):
            return float(value) + 0.0  # no -0.0
    return None


def point_width(span: float) -> float:
    """The width of PrivTree's deepest leaf of a real range ``span`` wide (``span * 2**-FLOAT_MAX_DEPTH``, with a
    hair for rounding): a piece no wider holds a point mass, a value many records share."""
    return span * 2.0**-constraints.FLOAT_MAX_DEPTH * (1 + 1e-9)


#: A piece of a real range at most ``2**-POINT_SPIKE_DEPTH`` of it wide is decoded at its simplest number too
#: (:func:`point_of_pieces`) when its records stand :data:`POINT_SPIKE_RATIO` times denser than both its neighbours':
#: a value many records share that PrivTree reached short of its deepest leaf (a count's 2 in a column declared as
#: real numbers, 3,106 of Vietnam's 27,765 people in a piece 2**-20 of the range wide, came out as 1.999992 and the
#: like, none at 2). The piece must also hold most of its bin's weight, as a point mass decoded into a bin of its own
#: does (a noisy sliver of a wide bin does not). Moved at most that width (1.5e-5 of the range), no binned figure
#: can tell. A run of narrow pieces no wider in all (a point mass's leaf cut into pieces: adult's 35 hours a week,
#: declared 0-168, came out as 35, 35.00001, 35.00002 and five more values) is decoded at one value.
POINT_SPIKE_DEPTH = 16
POINT_SPIKE_RATIO = 20.0
#: Narrow spikes decoded at their simplest number (False: only pieces as narrow as PrivTree's deepest, an ablation).
POINT_SPIKES = True


def point_of_pieces(
    piece_lows: np.ndarray,
    piece_highs: np.ndarray,
    span: float,
    weights: np.ndarray | None = None,
    bin_totals: np.ndarray | None = None,
) -> np.ndarray:
    """Per piece of a real column's spread: the point its values are decoded at when the piece is no wider than
    PrivTree's deepest leaf (:func:`point_width`: a point mass, such as the 0 of a zero-inflated amount), or, given
    the pieces' ``weights`` and their bins' (``bin_totals``, per piece), a narrow spike (:data:`POINT_SPIKE_DEPTH`)
    holding most of its bin, its :func:`shortest_decimal`, the last piece closed at the range's top (a top code);
    NaN for a wider piece (values drawn uniformly inside it). Post-processing of DP pieces and public bounds.

    >>> lows, highs = np.array([0.0, 1.99999, 2.00001]), np.array([1.99999, 2.00001, 9.0])
    >>> point_of_pieces(lows, highs, 9.0, np.array([5.0, 3106.0, 40.0]), np.array([5.0, 3106.0, 40.0])).tolist()[1]
    2.0
    >>> lows, highs = np.array([0.0, 1.99999, 2.00001, 2.00003]), np.array([1.99999, 2.00001, 2.00003, 9.0])
    >>> weights = np.array([5.0, 3106.0, 3000.0, 40.0])  # records as dense beside it: no spike
    >>> bool(np.isnan(point_of_pieces(lows, highs, 9.0, weights, np.array([5.0, 6106.0, 6106.0, 40.0]))[1]))
    True
    """
    widths = piece_highs - piece_lows
    narrow = (widths <= point_width(span)) & (widths > 0)
    if weights is not None and POINT_SPIKES and len(widths) > 1:
        density = np.where(widths > 0, np.maximum(weights, 0.0) / np.where(widths > 0, widths, 1.0), 0.0)
        beside = np.maximum(np.r_[0.0, density[:-1]], np.r_[density[1:], 0.0])
        spike = (widths > 0) & (widths <= span * 2.0**-POINT_SPIKE_DEPTH) & (weights > 0.5 * bin_totals)
        narrow |= spike & (density >= POINT_SPIKE_RATIO * beside)
    points = np.full(len(piece_lows), np.nan)
    starts = np.flatnonzero(narrow & ~np.r_[False, narrow[:-1]])  # a run of narrow pieces holds one point mass
    ends = np.flatnonzero(narrow & ~np.r_[narrow[1:], False])  # (a leaf at it cut into pieces): one value
    for first, last in zip(starts, ends):  # a few runs at most
        low, high = float(piece_lows[first]), float(piece_highs[last])
        runs = (
            [(first, last)]
            if high - low <= span * 2.0**-POINT_SPIKE_DEPTH
            else [(i, i) for i in range(first, last + 1)]
        )
        for a, b in runs:
            closed = b == len(piece_lows) - 1
            found = shortest_decimal(float(piece_lows[a]), float(piece_highs[b]), closed=closed)
            points[a : b + 1] = np.nan if found is None else found
    return points
