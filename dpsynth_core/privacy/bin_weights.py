"""Post-processing of the noisy counts of :mod:`dpsynth_core.privacy.binning`: merging leaves into bins,
and the non-negative weights that place values inside a bin (the domain's ``spread``).

Every function here reads only DP outputs (noisy counts, public bounds); nothing touches the data.
"""

from __future__ import annotations

import heapq

import numpy as np

from .. import constraints
from ..domain.ranges import point_width
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
#: A real range's narrow end piece slopes on past the declared end as a whole-number range's does (True: an
#: ablation). A real range's ends are named points measured as leaves of their own (:mod:`.points`), so a pile at
#: the end is found there; the narrow piece beside it only says the tree went deep where records are, not that
#: they crowd toward the end: AER's CreditCard at 1,000 rows, income in $10,000s declared 0-100, its lowest leaf
#: 0-3.1 (the real minimum 0.21) put 6.0% of rows below the real minimum, level 5.1% (5 seeds); on the
#: benchmark's tables, 3 seeds, 2-way TVD diabetes 0.2489 to 0.2460, randhie at 1,000 rows 0.1525 to 0.1495,
#: nyc_weather at 5,000 0.1221 to 0.1218, the rest unchanged, no table worse.
NARROW_REAL = False


def sloped_pieces(piece_lows, weights, high, integer: bool, *, parts: int, floor: float):
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
    arrest, real values at -1 and 0, went to -77..-41 in their leaf -77..0). Each piece keeps its weight.
    Reads only noisy weights and public bounds.
    """
    piece_lows = np.asarray(piece_lows)
    weights = np.asarray(weights, dtype=float)
    widths = piece_widths(piece_lows, high, integer)
    log_density = np.log(np.maximum(weights, floor) / widths)
    left, right = log_density.copy(), log_density.copy()
    if len(piece_lows) > 1:
        halfway = (log_density[1:] + log_density[:-1]) / 2
        spike = widths == 1 if integer else widths <= point_width(widths.sum())
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
    out_lows, out_weights = [], []
    point = point_width(widths.sum())  # a real point mass: not cut
    for low, width, weight, rise in zip(piece_lows, widths, weights, right - left, strict=True):
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


#: A quiet tail of ``j`` leaves is cut while its count is at most ``max(limit, std)`` plus this many times
#: its noise's deviation ``std * sqrt(j)`` (:func:`quiet_ends`; 0: the bound alone, an ablation).
WALK = 1.0
#: The same on a dense table, one count per value each standing above the noise (:func:`.leaves.dense`): the
#: 2.3% level (``EMPTY_Z``) of the column's other tests, where the data's own edge values stand clear. adult_wide at
#: 45,000 rows (ranges declared ten times wider), 40 seeds: rows above the real maximum 0.105% to 0.046%
#: (education-num's 135 empty values, noise deviation 48 each, kept at 4 seeds, now at one), 2-way TVD level;
#: every other benchmark table identical. For every table (``WALK`` 2) it cut real thin tails: nyc_weather at 1,000
#: rows 0.258 to 0.271 (history, nineteenth round).
DENSE_WALK = constraints.EMPTY_Z


def clear_level(std: float, k: int) -> float:
    """The count at which one of ``k`` leaves stands clear of empty (:func:`quiet_ends`): the level that
    Laplace noise of standard deviation ``std`` passes with chance ``alpha / k``, ``alpha = Phi(-EMPTY_Z)``.

    >>> round(clear_level(10.0, 1), 2), round(clear_level(10.0, 100), 2)
    (21.85, 54.41)
    """
    from scipy.special import ndtr

    return float(std / np.sqrt(2) * np.log(max(k, 1) / (2 * ndtr(-constraints.EMPTY_Z))))


def quiet_ends(noisy, std: float, *, limit: float, widths=None, walk: float | None = None) -> tuple[int, int]:
    """The first and last leaf of a numeric column to keep: its tails that the noisy leaf counts cannot tell
    from empty are cut, by the rule :func:`dpsynth_core.pgm.support_from` applies to a range's bins, here on
    the leaves (post-processing of ``noisy``, counts of noise standard deviation ``std`` each).

    A leaf stands clear of empty when its count reaches ``t``, the level that Laplace noise of that
    deviation passes with chance ``alpha / k`` over the ``k`` leaves (``alpha = Phi(-EMPTY_Z)``, 2.3%:
    ``t = std / sqrt(2) * ln(k / (2 alpha))``). From each end, the longest run of ``j`` leaves is cut that
    holds at most ``limit`` records at ``t * sqrt(j)`` above its count, or that has no clear leaf and a count
    at most ``min(t * sqrt(j), max(limit, std) + w * std * sqrt(j))`` (``w``: ``walk``, else :data:`WALK`, 1;
    on a dense table :data:`DENSE_WALK`, 2, so that an empty long tail stays with chance about ``alpha``
    there): the second term lets an empty tail of many leaves (a range declared ten times wider than the data,
    counted value by value) be cut although the random walk of its noise passes ``max(limit, std)``. So such a
    tail is kept with chance about ``alpha`` plus that of its summed noise exceeding about ``w`` deviations of its
    own (one: about 8% for 135 empty values beside 45,000 records), and a real tail spread
    so thin that no leaf of it stands clear loses at most about ``max(limit, std) + std * sqrt(j)`` records.
    The leaf of largest count is always kept. With ``widths`` (each leaf's width in values), the walk's term
    applies only to a *long* tail, one at least as wide as the rest of the range (a range declared wider than
    the data: ten times, or 0-100 for counts of 0-36); a shorter quiet tail is cut only while its count is at
    most ``max(limit, std)``, since a data's own thin tail (Adult's ages 73-90, 229 of 16,281 records spread
    over 18 values) looks as quiet as an empty one at this noise and the walk's term cut it whole.

    >>> quiet_ends(np.array([3.0, -8.0, 900.0, 40.0, 700.0, 12.0, -5.0, 9.0]), 10.0, limit=20.0)
    (2, 4)
    """
    counts = np.asarray(noisy, dtype=float)
    k = counts.size
    if k < 2 or std <= 0:
        return 0, k - 1
    clear = clear_level(std, k)
    root = np.sqrt(np.arange(1, k + 1))
    margin = clear * root
    tail_limit = max(limit, std)

    span = np.ones(k) if widths is None else np.asarray(widths, dtype=float)

    def cut(values: np.ndarray, width: np.ndarray) -> int:
        total = np.cumsum(values)
        quiet = np.cumsum(values >= clear) == 0
        tail = np.cumsum(width)  # a tail as wide as the rest of the range or wider is long
        allowance = (WALK if walk is None else walk) * std * root
        allowance = allowance * ((tail >= width.sum() - tail) if widths is not None else 1.0)
        ok = (total + margin <= limit) | (quiet & (total <= np.minimum(margin, tail_limit + allowance)))
        return int(np.flatnonzero(ok)[-1] + 1) if ok.any() else 0

    top = int(np.argmax(counts))
    return min(cut(counts, span), top), max(k - 1 - cut(counts[::-1], span[::-1]), top)


#: An island at an end of the kept leaves, cut off from the data by an empty stretch at least as wide as itself, is
#: cut (:func:`without_islands`; False: never, an ablation) ...
ISLANDS = True
#: ... when the empty stretch is a tenth of the range at least (adult's ages 86-89 before its 43 records at 90 are
#: not: adult_test at full size +0.0007 +/- 0.0003 2-way TVD without it), and the island at most ISLAND_LEAVES leaves.
ISLAND_GAP = 0.1
ISLAND_LEAVES = 64


def without_islands(noisy, widths, first: int, last: int, std: float) -> tuple[int, int]:
    """``(first, last)`` (:func:`quiet_ends`' kept leaves) past each end's *island*: a run of leaves that does not stand
    clear of the noise (its count below :func:`clear_level` times the square root of its length; at most
    :data:`ISLAND_LEAVES` leaves) followed, toward the data, by a stretch whose noisy counts sum to 0 or less and that
    is at least as wide (in values) as the island and :data:`ISLAND_GAP` of the range.
    A data's thin tail lies against the data; positive noise beyond an empty stretch, where nothing was counted
    between, does not (nlsw88's ages, 34-46, declared 0-120: leaves 0-7 and 8-11 drew 50 and 70 records of noise,
    12-30 drew -15, and 3.8% of a release's rows came out aged 8-11). The leaf of largest count is always kept.
    Post-processing."""
    counts, span = np.asarray(noisy, dtype=float), np.asarray(widths, dtype=float)
    top, clear = int(np.argmax(counts)), clear_level(std, counts.size)

    def cut(c: np.ndarray, w: np.ndarray, start: int, stop: int) -> int:  # the first leaf kept from ``start``
        counted, wide = np.cumsum(np.r_[0.0, c[start:stop]]), np.cumsum(np.r_[0.0, w[start:stop]])  # sums from start
        for k in range(1, min(stop - start, ISLAND_LEAVES + 1)):  # the island: leaves start .. start + k - 1
            if counted[k] >= clear * np.sqrt(k):
                return start
            gap, room = counted[k + 1 :] - counted[k], wide[k + 1 :] - wide[k]  # the stretch after it, growing
            empty = np.flatnonzero((gap <= 0) & (room >= max(wide[k], ISLAND_GAP * w.sum())))
            if empty.size:
                return start + k + int(empty[0]) + 1
        return start

    if not ISLANDS or counts.size < 3:
        return first, last
    low = cut(counts, span, first, top)
    high = counts.size - 1 - cut(counts[::-1], span[::-1], counts.size - 1 - last, counts.size - 1 - top)
    return min(low, top), max(high, top)


def keep_between(piece_lows, weights, bin_lows, low, high) -> np.ndarray:
    """``weights`` with every piece that starts below ``low`` or at or above ``high`` (the kept leaves' range,
    :func:`quiet_ends`) set to 0, except in a bin that would keep no weight (the model's own support decides
    whether such a bin holds records; its pieces keep their weights). Post-processing."""
    piece_lows, weights = np.asarray(piece_lows), np.asarray(weights, dtype=float)
    outside = (piece_lows < low) | (piece_lows >= high)
    owner = np.searchsorted(np.asarray(bin_lows), piece_lows, side="right") - 1
    inside_weight = np.bincount(owner, weights=np.where(outside, 0.0, weights), minlength=len(bin_lows))
    drop = outside & (inside_weight[owner] > 0)
    return np.where(drop, 0.0, weights)


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


#: In a bin beyond the kept leaves (:func:`hug_data`), a piece whose noisy count exceeds this many noise
#: deviations of its count keeps its weight, and so do the pieces between it and the data; past an empty stretch
#: (:func:`_last_clear`), only a piece standing clear of the noise over the bin's pieces (:func:`clear_level`).
CLEAR_PIECE_Z = 1.0
#: Whether a piece past an empty stretch of a bin beyond the kept leaves must stand clear over the bin's pieces
#: (False: at ``CLEAR_PIECE_Z`` as any other, an ablation). A loans table of 10,000 rows and 38 numeric columns
#: declared loosely (each column's leaf counts at a noise deviation of 176 records): mortgage accounts 0-14 declared
#: 0-200 put 2% of a release's rows at 39-183, a leaf 39-50 having drawn 355 records of noise past 26 values whose
#: counts summed below 0 (docs/benchmarks/history.md, the thirty-third round).
ISLANDS_IN_BINS = True


def _last_clear(counts: np.ndarray, stds: np.ndarray, widths: np.ndarray, gap: float) -> int:
    """The index of the last piece, counted outward from the data, that keeps its weight in :func:`hug_data` (-1:
    none): one whose noisy count exceeds ``CLEAR_PIECE_Z`` of its noise deviation ``stds``, unless the stretch
    between it and the last such piece (or the data) is *empty*: its counts sum to 0 or less and it is at least
    as wide as the piece and as ``gap`` (in values, as ``widths``), the rule :func:`without_islands` applies to the
    leaves. Past an empty stretch a piece must clear :func:`clear_level` over the ``counts``' pieces. A data's thin
    tail lies against the data; noise beyond an empty stretch, where nothing was counted between, does not. A
    narrow stretch does not count as empty: the records a spike at 0 leaves beside it lie further out (adult's
    capital losses of 1,500 to 2,500). Post-processing.

    >>> _last_clear(np.array([212.0, 56, -21, -128, 355, -93, -51]), np.full(7, 176.0),
    ...             np.array([6, 7, 6, 13, 12, 50, 100]), 20.1)
    0
    >>> _last_clear(np.array([212.0, 56, -21, -128, 355, -93, -51]), np.full(7, 176.0),
    ...             np.array([6, 7, 6, 13, 12, 50, 100]), 30.0)
    4
    """
    last, total, width = -1, 0.0, 0.0
    crossed = False
    for i, (count, std) in enumerate(zip(counts, stds)):
        empty = ISLANDS_IN_BINS and total <= 0 and width >= max(gap, widths[i]) and i > last + 1
        crossed = crossed or empty
        if count > (clear_level(float(std), counts.size) if crossed else CLEAR_PIECE_Z * std):
            last, total, width, crossed = i, 0.0, 0.0, False
        else:
            total, width = total + count, width + widths[i]
    return last


def hug_data(
    piece_lows, weights, piece_counts, piece_leaves, bin_lows, low, high, std: float, *, top, integer: bool
) -> np.ndarray:
    """``weights`` (after :func:`keep_between`) where, in each bin that lies wholly beyond the kept leaves
    (``low``/``high``: :func:`quiet_ends`), the pieces past the last one whose noisy count exceeds
    ``CLEAR_PIECE_Z`` deviations (``std`` times the square root of its ``piece_leaves``) weigh
    ``EMPTY_DECAY`` of the piece before them, counted from the data's side. Post-processing.

    Such a bin is kept whole by :func:`keep_between` (the model's marginals, more precise, decide whether it
    holds records), but inside it the noisy weights of pieces that cannot be told from empty spread its rows
    up to the declared end: a count of 0-36 declared 0-100 in a bin 4-100 put 10% of that bin at 51-100.

    >>> hug_data(np.array([0, 4, 7, 13, 51]), np.array([400.0, 164, 24, 35, 26]), np.array([400.0, 164, 24, 35, 26]),
    ...          np.array([1, 1, 1, 1, 1]), np.array([0, 4]), 0, 4, 91.0, top=100, integer=True).round(2).tolist()
    [400.0, 164.0, 41.0, 10.25, 2.56]
    """
    piece_lows = np.asarray(piece_lows)
    out = np.asarray(weights, dtype=float).copy()
    counts, leaves = np.asarray(piece_counts, dtype=float), np.asarray(piece_leaves, dtype=float)
    owner = np.searchsorted(np.asarray(bin_lows), piece_lows, side="right") - 1
    outside = (piece_lows < low) | (piece_lows >= high)
    widths = piece_widths(piece_lows, top, integer).astype(float)
    for code in np.unique(owner):
        inside = np.flatnonzero(owner == code)
        if not outside[inside].all():
            continue
        order = inside if piece_lows[inside[0]] >= high else inside[::-1]  # from the data's side outward
        last = _last_clear(counts[order], std * np.sqrt(leaves[order]), widths[order], ISLAND_GAP * widths.sum())
        start = out[order[last]] if last >= 0 else 1.0
        steps = np.arange(order.size) - last
        out[order[last + 1 :]] = start * EMPTY_DECAY ** steps[last + 1 :]
    return out
