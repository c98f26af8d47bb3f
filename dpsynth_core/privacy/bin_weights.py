"""Post-processing of the noisy counts of :mod:`dpsynth_core.privacy.binning`: merging leaves into bins,
and the non-negative weights that place values inside a bin (the domain's ``spread``).

Every function here reads only DP outputs (noisy counts, public bounds); nothing touches the data.
"""

from __future__ import annotations

import heapq

import numpy as np

from .. import constraints
from ..data.decoding import decay_for
from ..domain.point_masses import narrow_spikes, point_width
from .histogram import nonnegative_projection


def merge_small_bins(weights, *, cap: int, min_mass: float) -> np.ndarray:
    """Indices of the first leaf of every merged bin (post-processing of noisy leaf weights).

    Neighbouring bins are merged, the pair with the smallest combined mass first, while there
    are more than ``cap`` bins or some pair holds less than ``min_mass``. A bin's noisy total is
    the plain sum of its leaves' weights (their noise cancels on average), and its *mass* is
    that total floored at 0: a stretch of empty leaves whose noise happens to sum below zero is
    no mass, not a debt that the real records beside it must pay off. (Summed as they are, the
    -255 of 14 empty values 7-20 once swallowed the 275 records holding 5 and 6 rooms, and the
    merged bin spread them evenly over 5-20.)
    """
    weight = [float(w) for w in weights]
    count = len(weight)
    if count <= 1:
        return np.zeros(count, dtype=np.int64)
    nxt = list(range(1, count)) + [-1]
    prv = [-1] + list(range(count - 1))
    alive = [True] * count

    def pair(left: int, right: int) -> float:
        return max(weight[left], 0.0) + max(weight[right], 0.0)

    heap = [(pair(i, i + 1), i, i + 1) for i in range(count - 1)]
    heapq.heapify(heap)
    bins = count
    while heap and bins > 1:
        mass, left, right = heap[0]
        if bins <= cap and mass >= min_mass:
            break
        heapq.heappop(heap)
        if not (alive[left] and alive[right] and nxt[left] == right and pair(left, right) == mass):
            continue  # a stale pair: one side was merged since
        weight[left] += weight[right]
        alive[right] = False
        nxt[left] = nxt[right]
        if nxt[right] >= 0:
            prv[nxt[right]] = left
            heapq.heappush(heap, (pair(left, nxt[left]), left, nxt[left]))
        if prv[left] >= 0:
            heapq.heappush(heap, (pair(prv[left], left), prv[left], left))
        bins -= 1
    return np.flatnonzero(alive)


def piece_widths(piece_lows: np.ndarray, high, integer: bool) -> np.ndarray:
    """How wide each piece starting at ``piece_lows`` is, the last one up to ``high`` (whole numbers: values)."""
    ends = np.append(piece_lows[1:], high + 1 if integer else high)
    return (ends - piece_lows).astype(float)


#: In a bin whose noisy total is not positive, each piece further from the records weighs this much of the
#: one before it (:func:`usable_weights`): rows the model gives such a bin stay near the data (a count of 0-36
#: declared 0-100 in a bin 7-100 put 7% of a 1,000-row release above 36 at 1/2).
EMPTY_DECAY = 0.25


def usable_weights(piece_lows, piece_counts, bin_lows, high, integer: bool, *, by_width: bool = True) -> np.ndarray:
    """Non-negative piece weights that keep each bin's noisy total (post-processing).

    Clipping every noisy count at zero would give every empty piece about half a noise level
    of made-up mass; instead, within each bin, the noisy counts are projected onto the
    non-negative weights with the same total (``max(count - t, 0)`` with one shift ``t`` per
    bin). A bin whose total is not positive spreads by width, or with ``by_width=False`` by pieces
    rather than width: the piece beside a neighbouring bin of positive total weighs 1, the next 1/2,
    and so on (the nearer neighbour counts; every piece 1 when neither is positive). Records the model
    places in such a bin most likely continue the data beside it, and PrivTree's leaves are narrow
    where its nodes split, which is where records are, so a wide empty-looking leaf is not the
    likeliest place.
    """
    owner = np.searchsorted(bin_lows, piece_lows, side="right") - 1
    weights = np.zeros(len(piece_lows))
    widths = piece_widths(piece_lows, high, integer)
    totals = np.bincount(owner, weights=piece_counts, minlength=len(bin_lows))
    for code in range(len(bin_lows)):
        inside = np.flatnonzero(owner == code)
        counts = piece_counts[inside]
        total = counts.sum()
        if total <= 0:
            if by_width:
                weights[inside] = widths[inside]
                continue
            step = np.arange(len(inside), dtype=float)  # pieces from the bin's low end, and below from its high end
            left = step if (totals[:code] > 0).any() else np.inf
            right = step[::-1] if (totals[code + 1 :] > 0).any() else np.inf
            away = np.minimum(left, right)  # pieces from the side that holds records (inf: neither side has)
            weights[inside] = 1.0 if np.isinf(away).all() else EMPTY_DECAY**away
            continue
        weights[inside] = nonnegative_projection(counts)
    return weights


def cut_special(piece_lows, weights, special, high, integer: bool):
    """Cut the pieces at every special value (integers: also after it); a cut piece's weight splits by width.

    So no piece straddles a special value's own bin, and decoding never places a value of a
    neighbouring bin on the far side of it.
    """
    cuts = np.union1d(special, special[special < high] + 1) if integer else np.asarray(special, dtype=float)
    return cut_at(piece_lows, weights, cuts, high, integer)


def cut_at(piece_lows, weights, cuts, high, integer: bool):
    """The pieces cut at ``cuts`` (each the low end of a new piece); a cut piece's weight splits by width.

    Decoding draws a bin's values from the pieces that start in it, so every bin's low end must start a piece:
    a piece running on into the next bin would place that bin's share of its values there.
    """
    widths = piece_widths(piece_lows, high, integer)
    lows = np.union1d(piece_lows, cuts)
    parent = np.searchsorted(piece_lows, lows, side="right") - 1
    share = piece_widths(lows, high, integer) / widths[parent]
    return lows, weights[parent] * share


#: A piece between two neighbours below the floor keeps a flat density (:func:`sloped_pieces`; False: an ablation).
FLAT_BETWEEN_EMPTY = True
#: A range's narrow spike (:func:`~dpsynth_core.domain.point_masses.narrow_spikes`) stays whole and flat, and tilts no
#: neighbour, as a one-value piece does (:func:`sloped_pieces`; False: an ablation), so that decoding can place it at
#: its round number (:func:`~dpsynth_core.domain.point_masses.point_of_pieces`); in whole numbers too, since the
#: sixty-second round (stevedata's chile88, 48% of its records at 250,000 in a piece 61 values wide). Cut into sloped
#: sub-pieces, none of which held most of the bin, AER's DoctorVisits' `age` 0.22 (23% of its 5,190 records, in a
#: piece 2**-14 of the range 0-1 wide) came out spread over it at one seed of 12 (docs/benchmarks/history.md, the
#: sixty-first round).
FLAT_SPIKES = True


#: A real range's narrow end piece slopes on past the declared end as a whole-number range's does (True: an
#: ablation). A real range's ends are named points measured as leaves of their own (:mod:`.points`), so a pile at
#: the end is found there; the narrow piece beside it only says the tree went deep where records are, not that
#: they crowd toward the end: AER's CreditCard at 1,000 rows, income in $10,000s declared 0-100, its lowest leaf
#: 0-3.1 (the real minimum 0.21) put 6.0% of rows below the real minimum, level 5.1% (5 seeds); on the
#: benchmark's tables, 3 seeds, 2-way TVD diabetes 0.2489 to 0.2460, randhie at 1,000 rows 0.1525 to 0.1495,
#: nyc_weather at 5,000 0.1221 to 0.1218, the rest unchanged, no table worse.
NARROW_REAL = False


#: A piece at the data's edge meets its denser neighbour's density at their common end (:func:`_edge_meets`; False:
#: the log-halfway slope, an ablation). Codes declared 0-100 on 21 tables (20 seeds): rows outside their real range
#: 8.20% to 6.95%; publisher's declarations: 2-way TVD level, rows outside 6.14% to 5.62% (history, fifty-sixth round).
EDGE_MEETS = True
#: ... a piece whose weight stands this many deviations of its leaf counts' noise clear of zero (0: any above the
#: floor: the publisher's declarations' largest share at a value no record holds 1.41% to 1.49%, noise packed on
#: one value beside the data, where one deviation keeps it level; two: codes 8.14% outside, against 7.51%).
EDGE_CLEAR_Z = 1.0
#: ... the range's declared ends counting as quiet sides (False: an ablation; codes 7.94% outside, against 7.50%).
EDGE_ENDS_QUIET = True
#: A one-value neighbour is the dense side only within this factor of its own other neighbour (else a spike).
RUN_FACTOR = constraints.RUN_FACTOR


def _edge_meets(rise, log_density, weights, widths, floor: float, integer: bool, least: float | None = None):
    """Slopes of the pieces at the data's edge: a piece whose neighbour on one side weighs less than ``floor`` (or
    is the range's end) and on the other is denser takes the exponential density that meets that denser neighbour's
    at their common end and holds the piece's own weight: its records placed against the data, as a run of values
    resolved beside it says they lie, rather than a log-halfway slope spreading them toward the quiet side (an age
    24-34 declared 0-100: a leaf 13-25 holding the 250 at 24 and 25 beside one-value leaves of 120 from 26 put
    four fifths of them at 13-23). A one-value neighbour is a denser side only inside a run (its other neighbour
    within :data:`RUN_FACTOR`): a spike such as a count's 0 says nothing of the values beside it. Only a piece
    weighing ``least`` or more (default ``floor``) is packed so: one that may be noise alone would pile it on one
    value. Post-processing of noisy weights."""
    rise = np.array(rise, dtype=float)
    n, least = len(weights), floor if least is None else least
    spike = (widths == 1) if integer else np.zeros(n, dtype=bool)
    quiet = np.r_[EDGE_ENDS_QUIET, weights < floor, EDGE_ENDS_QUIET]  # the range's ends: quiet sides
    padded = np.r_[-np.inf, log_density, -np.inf]
    for i in range(n):
        if weights[i] < least:
            continue
        for side in (-1, 1):  # the denser neighbour on this side, the quiet one on the other
            j = i + side
            if not (0 <= j < n and quiet[i - side + 1] and log_density[j] > log_density[i]):
                continue
            if spike[j] and padded[j + side + 1] < log_density[j] - np.log(RUN_FACTOR):
                continue
            ratio = np.exp(log_density[i] - log_density[j])  # the piece's mass over what the neighbour's density holds
            rise[i] = side * decay_for(ratio)
    return rise


def sloped_pieces(piece_lows, weights, high, integer: bool, *, parts: int, floor: float, clear: float = 0.0):
    """Each piece cut into up to ``parts`` equal sub-pieces whose weights follow a slope (post-processing).

    Inside a piece the density is taken log-linear rather than flat: a piece's log density (its weight,
    floored at ``floor``, over its width) and its neighbour's meet halfway at their common end. So the
    piece at the edge of the data, beside an emptier one, puts its values near the data rather than evenly
    up to the end (a bin 151-300 beside a dense 114-150 holds glucose values that stop at 199). Past a
    declared end the slope goes on where the density falls toward that end, or where the end piece spans
    at most 1/8 of the range in whole numbers (the tree split toward that end: records pile there, as at 0 in a
    count; a real range's end is a point of its own, :data:`NARROW_REAL`);
    a wide end piece denser than its neighbour keeps its own density at the end (ratings 51-100 beside a
    sparse 0-50 do not pile up at 100). A one-value piece (an integer spike) tilts no neighbour, and a piece
    whose neighbours both weigh less than ``floor`` stays flat: nothing measured says which way it leans (a
    narrow empty neighbour's floor is not a denser side than a wide one's: compas's days from screening to
    arrest, real values at -1 and 0, went to -77..-41 in their leaf -77..0). A piece at the data's edge weighing
    ``clear`` or more meets its denser neighbour's density instead (:func:`_edge_meets`). Each piece keeps its weight.
    Reads only noisy weights and public bounds.
    """
    piece_lows = np.asarray(piece_lows)
    weights = np.asarray(weights, dtype=float)
    widths = piece_widths(piece_lows, high, integer)
    log_density = np.log(np.maximum(weights, floor) / widths)
    flat = narrow_spikes(weights, widths, widths.sum()) if FLAT_SPIKES else np.zeros(len(widths), bool)
    left, right = log_density.copy(), log_density.copy()
    if len(piece_lows) > 1:
        halfway = (log_density[1:] + log_density[:-1]) / 2
        spike = ((widths == 1) if integer else (widths <= point_width(widths.sum()))) | flat
        left[1:] = np.where(spike[:-1], log_density[1:], halfway)
        right[:-1] = np.where(spike[1:], log_density[:-1], halfway)
        # past a declared end: the slope goes on where it falls outward or the end piece is narrow, else level
        narrow = (widths <= widths.sum() / 8) & (integer or NARROW_REAL)
        on = (right[0] > log_density[0]) | narrow[0]
        left[0] = 2 * log_density[0] - right[0] if on else log_density[0]
        on = (left[-1] > log_density[-1]) | narrow[-1]
        right[-1] = 2 * log_density[-1] - left[-1] if on else log_density[-1]
        if FLAT_BETWEEN_EMPTY:  # no records measured on either side: nothing says which way the density leans
            empty = weights < floor
            between = np.zeros(len(piece_lows), dtype=bool)
            between[1:-1] = empty[:-2] & empty[2:]
            left[between], right[between] = log_density[between], log_density[between]
    rises = right - left
    if EDGE_MEETS and len(piece_lows) > 2:
        rises = _edge_meets(rises, log_density, weights, widths, floor, integer, least=max(floor, clear))
    rises = np.where(flat, 0.0, rises)  # a narrow spike stays whole and flat
    out_lows, out_weights = [], []
    point = point_width(widths.sum())  # a real point mass: not cut
    for low, width, weight, rise in zip(piece_lows, widths, weights, rises, strict=True):
        count = int(min(parts, width)) if integer else 1 if width <= point else parts
        if weight <= 0 or count < 2 or abs(rise) < 1e-9:
            out_lows.append([low])
            out_weights.append([weight])
            continue
        cuts = (
            np.unique(np.floor(np.arange(count + 1) * width / count))
            if integer
            else np.arange(count + 1) * width / count
        )
        mass = np.diff(np.exp(rise * (cuts / width - 0.5)))  # the integral of exp(rise * x) over each sub-piece
        out_lows.append(low + (cuts[:-1].astype(np.int64) if integer else cuts[:-1]))
        out_weights.append(weight * mass / mass.sum())
    return np.concatenate(out_lows), np.concatenate(out_weights)


#: Half-widths (in values) that :func:`smoothed_counts` chooses among; 0 keeps the noisy counts as they are.
SMOOTH_WIDTHS = (0, 1, 2, 3, 5, 8, 13, 21)
#: A value stands out of its neighbours as a spike (kept as counted, left out of the smoothing) when its
#: count exceeds their median by this many noise deviations of the difference.
SPIKE_Z = 3.0


def smoothed_inside(lows, noisy, std: float, low, high) -> np.ndarray:
    """One-value leaves' noisy counts (their lower ends ``lows``) smoothed by :func:`smoothed_counts` inside
    the kept range ``[low, high)`` (:func:`quiet_ends`) only, so a fit never carries the data's counts across
    its edge into a tail the counts cannot tell from empty. Post-processing."""
    inside = (np.asarray(lows) >= low) & (np.asarray(lows) < high)
    out = np.asarray(noisy, dtype=float).copy()
    out[inside] = smoothed_counts(out[inside], std)[0]
    return out


def _local_linear(size: int, half_width: int, mask: np.ndarray) -> np.ndarray:
    """The matrix of a local linear smoother over ``size`` consecutive values (triangular kernel of
    ``half_width``), fitting only the values where ``mask`` is True; a row that cannot be fitted (too few
    values) is the identity row."""
    offset = np.arange(size)[None, :] - np.arange(size)[:, None]
    kernel = np.clip(1.0 - np.abs(offset) / (half_width + 1.0), 0.0, None) * mask[None, :]
    s0, s1, s2 = (np.sum(kernel * offset**k, axis=1, keepdims=True) for k in range(3))
    determinant = s0 * s2 - s1**2
    ok = determinant > 1e-9 * np.maximum(s0 * s2, 1e-12)
    rows = kernel * (s2 - s1 * offset) / np.where(ok, determinant, 1.0)
    return np.where(ok, rows, np.eye(size))


def smoothed_counts(noisy, std: float) -> tuple[np.ndarray, np.ndarray]:
    """Noisy counts of consecutive values (one leaf per value), smoothed where that lowers their error
    (post-processing of ``noisy``, counts of independent noise of standard deviation ``std``).

    The noise on one value's count (about 30 records for a column's share of epsilon 1 on Adult) blurs the
    shape of the data inside a bin, which decoding follows. Counts of neighbouring values mostly differ by
    less, so a local linear fit over neighbours (Fan and Gijbels, *Local polynomial modelling*, 1996) keeps the
    shape with less noise. Its half-width is chosen among :data:`SMOOTH_WIDTHS` by Mallows' Cp, the unbiased
    estimate of the squared error of a linear smoother when the noise level is known (it is: public):
    ``|noisy - fit|^2 + 2 std^2 trace(S) - n std^2``; 0 (no smoothing) when the counts vary faster than
    their noise. Values that stand ``SPIKE_Z`` noise deviations above the median of their 6 neighbours
    (40 hours a week, a code such as 0) keep their own count and are left out of their neighbours' fits.
    Returns the smoothed counts and each one's noise standard deviation (``std`` times the norm of its row
    of the smoother: ``std`` where nothing is smoothed).

    >>> counts = np.array([400.0, 430, 395, 460, 420, 9000, 445, 410, 470, 430])
    >>> smoothed, deviation = smoothed_counts(counts, 30.0)
    >>> float(smoothed[5]), float(deviation[5]), bool(np.ptp(smoothed[:5]) < np.ptp(counts[:5]))
    (9000.0, 30.0, True)
    >>> bool(deviation[0] < 30.0)
    True
    """
    counts = np.asarray(noisy, dtype=float)
    size = counts.size
    if size < 5 or std <= 0:
        return counts, np.full(size, float(std))
    padded = np.pad(counts, 3, mode="edge")
    windows = np.lib.stride_tricks.sliding_window_view(padded, 7)
    neighbours = np.median(np.delete(windows, 3, axis=1), axis=1)
    spike = counts - neighbours > SPIKE_Z * std * np.sqrt(2.0)
    best, best_risk, rows = counts, size * std**2, np.eye(size)
    for half_width in SMOOTH_WIDTHS[1:]:
        if half_width >= size:
            break
        matrix = _local_linear(size, half_width, ~spike)
        matrix[spike] = np.eye(size)[spike]
        fit = matrix @ counts
        risk = float(np.sum((counts - fit) ** 2) + 2 * std**2 * np.trace(matrix) - size * std**2)
        if risk < best_risk:
            best, best_risk, rows = fit, risk, matrix
    return best, std * np.sqrt(np.sum(rows**2, axis=1))
