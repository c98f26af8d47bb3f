"""A numeric or date column's leaves: the finest pieces its bins are made of, and how they are measured.

The first of the two steps of :mod:`.binning` (see its docstring for the whole): which leaves a column
gets, a public rule of its declaration, epsilon and the release's DP or public row count, and their noisy
counts. One count per value for a short range; two counts per value, pooled, on a table *dense* enough for them
(:func:`dense`); on a table too *sparse* for PrivTree (:func:`sparse`), a count of the range's few equal pieces
and one of equal pieces of those that stand clear of empty (:func:`nested_leaves`); else PrivTree's leaves, with
the range's named points as leaves of their own (:mod:`.points`: a real range's ends, 0 inside a range, a wide
whole-number range's ends on a small table), and one
count of them. Every path of a column costs the same
(:func:`binning_events`), so the plan made before any data holds whichever the row count picks. Each count is
one histogram of sensitivity 1 over leaves that partition the range (:func:`.histogram.noisy_histogram`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import constraints
from ..domain import FloatDomain
from .histogram import noisy_histogram
from .noise import NoiseSource, discrete_laplace_std
from .points import round_points, settled_points, tree_input, whole_ends, with_points
from .privtree import THRESHOLD, depth_bias, privtree
from .tails import quiet_ends

#: Integer and date ranges of at most this many values skip the tree: one noisy count per value.
SHORT_LIMIT = 32
#: Ranges of at most this many values skip the tree on a dense table (:func:`dense`): counts per value.
UNIT_LIMIT = 256
#: A table is dense for a column when its DP row count times the column's epsilon over the range's size
#: is at least this: each value's count then stands above the count noise (standard deviation about
#: 2.8 / epsilon at half the epsilon) with about this many records per unit of epsilon. On a sparse table
#: one count per value puts noise of tens of records on every value, most of them empty (benchmarks).
DENSE_RECORDS = 4.0

#: Share of a PrivTree column's binning epsilon spent on the tree (the rest on the leaf counts).
TREE_SHARE = 0.5


def binning_events(column, epsilon: float) -> list[float]:
    """The epsilons of a column's binning measurements: one noisy count per value for a short
    integer or date range, else two: the tree and the leaf counts, or two counts per value on a dense table
    (:func:`either_path`), or two of the range's equal pieces on one too sparse for the tree (:func:`sparse`).
    A public rule, known before any data."""
    if not isinstance(column, FloatDomain) and column.size <= SHORT_LIMIT:
        return [epsilon]
    return [epsilon * TREE_SHARE, epsilon * (1 - TREE_SHARE)]


def either_path(column) -> bool:
    """True when the column's first binning measurement may be a count per value (on a dense table,
    :func:`dense`) as well as PrivTree or the range's equal pieces: an integer or date range of more than
    SHORT_LIMIT and at most UNIT_LIMIT values."""
    return not isinstance(column, FloatDomain) and SHORT_LIMIT < column.size <= UNIT_LIMIT


def dense(column, records: float | None, epsilon: float) -> bool:
    """Whether a count per value suits this table better than PrivTree's leaves (:data:`DENSE_RECORDS`):
    ``records`` is the release's DP or public row count (None: unknown, so not dense). Post-processing of
    DP or public values only."""
    return either_path(column) and records is not None and _per_value(column, records, epsilon) >= DENSE_RECORDS


def below_noise(column, records: float | None, epsilon: float) -> bool:
    """Whether a short range's counts per value (one measurement at ``epsilon``, :func:`binning_events`) stand below
    their noise on this table: its DP or public row count times ``epsilon`` over the range's size under
    :data:`DENSE_RECORDS` (None: unknown, so not below). Then no tail of them can be told from empty, and the
    tail rule (:func:`.tails.quiet_ends`) would cut real values: nyc_weather's days at 1,000 rows, about 32
    records a value under noise of deviation 67, kept one day of 31 (the one with the largest noise) at a seed.
    Post-processing of DP or public values only."""
    return records is not None and _per_value(column, records, epsilon) < DENSE_RECORDS


def _per_value(column, records: float, epsilon: float) -> float:
    """Records per value of the range and unit of epsilon: what :data:`DENSE_RECORDS` is compared with."""
    return records * epsilon / column.size


#: PrivTree's depth bias is ``3 ln 2 / epsilon`` records a level: where the DP row count would not take even all
#: the records this many levels deep (:func:`sparse`; 0: never, an ablation), the range's equal pieces are counted
#: instead: the first count of the range's ``2 ** COARSE_LEVELS`` equal pieces, the second of ``2 ** FINE_LEVELS``
#: equal pieces of those that stand clear of empty (:func:`nested_leaves`). Modechoice per traveller (840 rows, at
#: most 4 per person: 2.2 levels), 10 seeds: 2-way TVD 0.50 to 0.26 with 32 equal pieces counted twice and pooled
#: (the eighth round), off the expert's cells 0.57 to 0.29, rows above the real maximum 97% to 23%. Coarse then fine
#: in place of the 32 pooled pieces, publisher's declarations, paired seeds: modechoice 0.264 to 0.230 (100 seeds),
#: penguins 0.288 to 0.285 (100), ISLR's College 0.252 to 0.206, Credit 0.249 to 0.214, BrainCancer 0.507 to 0.502
#: (20); codes declared 0-100 on 21 unseen tables at 1,000 rows, rows outside the real range 6.8% to 6.6%
#: (docs/benchmarks/history.md, the twenty-third round). At this noise 32 pieces carry several times their records
#: each (modechoice: 182 records a piece, pooled, against about 26), so the tails' walk over them stopped at a noise
#: piece; one of 4 pieces at half the epsilon carries 257 against 210 to 840 records a quarter.
SPARSE_LEVELS = 5
#: The sparse path's first count is of ``2 ** COARSE_LEVELS`` equal pieces of the range, its second of
#: ``2 ** FINE_LEVELS`` of those kept. Against 4 and 8 (paired seeds, 2-way TVD): 16 fine pieces, penguins +0.008
#: +- 0.003 and College +0.014 +- 0.004; 8 coarse ones, penguins +0.008 +- 0.003 and Carseats +0.022 +- 0.009.
COARSE_LEVELS = 2
FINE_LEVELS = 3
#: The named points (:func:`.points.named_points`) inside the sparse path's kept span are leaves of their own there,
#: as on the tree's path (False: none, an ablation). DAAG's nsw74demo (445 rows, 10 columns, too sparse for the
#: tree): earnings in 1974, 73% of them 0, declared 0-400,000, came out with no 0 in two of three draws (a first
#: piece 0-3,125 or 0-12,500 drawn evenly).
NESTED_POINTS = True


def bias_levels(records: float | None, epsilon: float) -> float:
    """How many levels deep PrivTree's depth bias at ``epsilon`` (:func:`.privtree.depth_bias`) lets a node holding
    all the release's ``records`` (a DP or public row count) go; infinite with no count."""
    return math.inf if records is None else records / depth_bias(epsilon)


def sparse(records: float | None, epsilon: float) -> bool:
    """Whether PrivTree at ``epsilon`` could not take the release's ``records`` (a DP or public row count)
    :data:`SPARSE_LEVELS` levels deep, whatever the data: the depth bias alone stops it sooner."""
    return bias_levels(records, epsilon) < SPARSE_LEVELS


#: On a table whose DP (or public) row count would not take the records ``FREE_BELOW`` levels deep by PrivTree's
#: bias alone, the tree's threshold theta is minus ``FREE_LEVELS`` levels of that bias (:func:`tree_threshold`; 0
#: elsewhere): a node splits when its biased noisy count clears theta, so the records go one level deeper, as if
#: every count were larger by one level's bias. Any theta keeps the guarantee: the tree at ``theta - k`` on counts
#: ``c`` is the tree at ``theta`` on counts ``c + k``, and PrivTree's proof follows one record's path, where the
#: neighbours' counts differ by 1 whatever ``k``; an empty node deeper than one level still splits with chance
#: 1/4. At a column's 0.01 to 0.03 of epsilon the bias is 100 to 300 records a level, so on a 1,000-row table the
#: tree stops short of the values, or by chance at a leaf holding the whole column (0 levels / 1, publisher's
#: declarations, 20 seeds, 2-way TVD): randhie at 1,000 rows 0.155 / 0.149, modechoice 0.261 / 0.249,
#: nyc_weather at 1,000 rows 0.273 / 0.263, diabetes 0.242 / 0.233, ISLR's Carseats 0.235 / 0.203, College
#: 0.257 / 0.247; adult at 1,000 rows 0.189 / 0.191; codes declared 0-100 on 21 unseen tables: rows with a code
#: outside its real range 15.5% / 10.6%. On larger tables the free level only adds leaves (12 seeds: adult at
#: 5,000 rows 0.0852 / 0.0890, randhie 0.0391 / 0.0432, nyc_weather 0.0924 / 0.0955), hence ``FREE_BELOW``
#: (docs/benchmarks/history.md, the sixteenth round).
FREE_LEVELS = 1
FREE_BELOW = 10


def tree_threshold(records: float | None, epsilon: float) -> float:
    """PrivTree's threshold theta at ``epsilon`` (:data:`FREE_LEVELS`): minus that many levels of its bias where
    ``records`` (a DP or public row count) would not go :data:`FREE_BELOW` levels deep by the bias alone, else 0.
    A public rule; any theta keeps the tree's guarantee (:data:`.privtree.THRESHOLD` is the 0)."""
    return -FREE_LEVELS * depth_bias(epsilon) if bias_levels(records, epsilon) < FREE_BELOW else THRESHOLD


def even_pieces(low, top, integer: bool, levels: int) -> np.ndarray:
    """The lower ends of ``2 ** levels`` equal pieces of ``low``..``top`` (public; fewer on a range of fewer whole
    numbers)."""
    pieces = 2**levels
    if integer:
        return np.unique(np.floor(np.linspace(low, top + 1, pieces + 1)[:-1]).astype(np.int64))
    return np.linspace(float(low), float(top), pieces + 1)[:-1]


#: Under zCDP (a release whose method composes in rho, add or remove one record) the counts that place the bins carry
#: discrete Gaussian noise of deviation ``1 / epsilon``: the ``epsilon**2 / 2`` of rho their pure event would cost, at
#: a deviation ``sqrt 2`` times smaller than discrete Laplace noise's of scale ``1 / epsilon`` (False: Laplace always,
#: an ablation; :func:`~dpsynth_core.synthesizers.charges.gaussian_bin_counts` reads it for the plan and the release).
#: The tree, and a first count per value or of equal pieces, stay pure epsilon-DP. Publisher's declarations, 5 seeds:
#: mean 2-way TVD 0.13554 to 0.13076, within 10% of the expert on 23 of 34 table sizes (from 21); Rdatasets' 60
#: (6 seeds) -0.0030 +/- 0.0009 (docs/benchmarks/history.md, the forty-first round).
GAUSSIAN_COUNTS = True


def counted(counts, epsilon: float, *, gaussian: bool, noise: NoiseSource, label: str) -> tuple[np.ndarray, float]:
    """A histogram of ``counts`` (sensitivity 1 under adding or removing a record: the pieces are disjoint) with
    noise, and the noise's standard deviation: discrete Laplace of scale ``1 / epsilon`` (``epsilon``-DP), or with
    ``gaussian`` (:data:`GAUSSIAN_COUNTS`) discrete Gaussian of deviation ``1 / epsilon`` (``epsilon**2 / 2``
    -zCDP, as the pure event is priced in rho)."""
    if gaussian:
        sigma = 1.0 / epsilon
        drawn = noise.discrete_gaussian(np.size(counts), sigma, label=label).reshape(np.shape(counts))
        return np.asarray(counts, dtype=np.int64) + drawn, sigma
    return noisy_histogram(counts, epsilon=epsilon, noise=noise, label=label), discrete_laplace_std(epsilon)


def pooled_counts(counts, events, factor, noise, label, gaussian: bool = False) -> tuple[np.ndarray, float]:
    """Two noisy histograms of ``counts`` (one per event; the second :func:`counted`'s, Gaussian under zCDP),
    pooled by precision (together the sum of their costs by composition), and the pooled counts' noise
    standard deviation."""
    first = noisy_histogram(counts, epsilon=events[0] / factor, noise=noise, label=label + " (counts 1 of 2)")
    second, second_std = counted(
        counts, events[1] / factor, gaussian=gaussian, noise=noise, label=label + " (counts 2 of 2)"
    )
    variances = [discrete_laplace_std(events[0] / factor) ** 2, second_std**2]
    weight = variances[1] / (variances[0] + variances[1])
    std = math.sqrt(weight**2 * variances[0] + (1 - weight) ** 2 * variances[1])
    return weight * first.astype(float) + (1 - weight) * second.astype(float), std


def _piece_highs(lows, top, integer: bool) -> np.ndarray:
    """The upper ends of pieces (their lower ends ``lows``) that tile ``lows[0]``..``top``."""
    return np.append(lows[1:] - 1, top) if integer else np.append(lows[1:], top)


class Leaves(NamedTuple):
    """A column's leaves as :func:`measure_leaves` finds them."""

    #: The leaves' lower ends (they tile the range).
    lows: np.ndarray
    #: Their noisy counts (DP).
    noisy: np.ndarray
    #: The counts' noise standard deviation.
    std: float
    #: How they were found: ``"values"``, ``"dense"``, ``"nested"`` or ``"tree"``.
    found_by: str
    #: The named points kept as leaves whose counts are not clear of the noise (the tree's and the sparse path's,
    #: :func:`.points.settled_points`).
    unclear: tuple = ()
    #: The stretch ``(low, high)``, ``low <= v < high``, that the fine pieces tile (the nested path only): the
    #: coarse pieces that stand clear of empty, where the column's pieces keep their weights.
    span: tuple | None = None
    #: Each leaf's noise variance (None: ``std ** 2`` each): the tree's leaves a named point was counted back into
    #: hold two counts or more, a sparse table's coarse and fine pieces were counted at two epsilons.
    variance: np.ndarray | None = None

    @property
    def variances(self) -> np.ndarray:
        """Each leaf's noise variance."""
        return np.full(self.lows.size, self.std**2) if self.variance is None else np.asarray(self.variance, float)


def nested_leaves(values, low, top, *, integer, events, factor, noise, label, gaussian=False, points=()) -> Leaves:
    """A sparse column's leaves (:func:`sparse`): the first event counts the range's ``2 ** COARSE_LEVELS``
    equal pieces, whose tails that cannot be told from empty are cut (:func:`.tails.quiet_ends`,
    post-processing); the second counts the ``2 ** FINE_LEVELS`` equal pieces of what is left, the kept
    ``span``, with each of the named ``points`` inside it cut as a leaf of its own (:data:`NESTED_POINTS`,
    :func:`.points.with_points`) and counted back unless its noisy count stands clear of the noise
    (:func:`.points.settled_points`): at this noise a point kept short of that, as on the tree's path, is a bin
    whose noise the model may keep (OncoDataSets' ChildCancer_df, 406 rows: a 0 no record holds in 16% of a
    release's rows). The leaves are those fine pieces and the coarse pieces beside them, each with its own noisy
    count. Each count is one histogram of sensitivity 1 over disjoint pieces (the second's pieces a public function
    of the first's DP output and the declaration), at its event's epsilon over ``factor``: together the events'
    sum."""
    coarse = even_pieces(low, top, integer, COARSE_LEVELS)
    coarse_highs = _piece_highs(coarse, top, integer)
    first_epsilon, second_epsilon = (e / factor for e in events)
    first = noisy_histogram(
        values.count_pieces(coarse, coarse_highs, top=top, integer=integer),
        epsilon=first_epsilon,
        noise=noise,
        label=label + " (counts 1 of 2)",
    ).astype(float)
    std = discrete_laplace_std(first_epsilon)
    start, end = quiet_ends(first, std, limit=constraints.TAIL_SHARE * max(float(first.sum()), 1.0))
    high = coarse[end + 1] if end + 1 < coarse.size else (top + 1 if integer else np.inf)
    fine = even_pieces(coarse[start], coarse_highs[end], integer, FINE_LEVELS)
    lows = np.concatenate([coarse[:start], fine, coarse[end + 1 :]])
    inside = tuple(p for p in points if coarse[start] <= p < high) if NESTED_POINTS else ()
    lows, highs, cuts = with_points(lows, _piece_highs(lows, top, integer), inside, top=top, integer=integer)
    spanned = (lows >= coarse[start]) & (lows < high)  # the fine pieces and the points cut from them
    second, fine_std = counted(
        values.count_pieces(lows[spanned], highs[spanned], top=top, integer=integer),
        second_epsilon,
        gaussian=gaussian,
        noise=noise,
        label=label + " (counts 2 of 2)",
    )
    noisy = np.concatenate([first[:start], second.astype(float), first[end + 1 :]])
    variance = np.where(spanned, fine_std**2, std**2)
    cut_lows = lows
    lows, noisy, unclear = settled_points(lows, noisy, fine_std, cuts, bin_z=math.inf)  # kept only when clear
    variance = np.add.reduceat(variance, np.searchsorted(cut_lows, lows))  # a point counted back: both counts'
    return Leaves(lows, noisy, max(std, fine_std), "nested", unclear, span=(coarse[start], high), variance=variance)


def measure_leaves(
    column,
    values,
    low,
    high,
    top,
    *,
    integer,
    events,
    factor,
    records,
    noise,
    label,
    points=(),
    levels=0.0,
    gaussian=False,
) -> Leaves:
    """A column's leaves (:class:`Leaves`: their lower ends, noisy counts and how they were found): one
    count per value (one event), two pooled counts per value on a dense table (:func:`dense`), coarse equal pieces
    then fine ones on a table too sparse for the tree (:func:`nested_leaves`, :func:`sparse`; one root: an adaptive
    column), else PrivTree's
    leaves (``low``/``high``: its roots) and their counts, with ``points`` (:func:`.points.named_points`) cut as
    leaves of their own and counted back where their noisy count looks empty (on a large table, ``levels`` of
    PrivTree's bias deep as :func:`bias_levels` puts it, the tree splits the records off the points only:
    :func:`.points.tree_input`). Each measurement at its event's epsilon over ``factor``."""
    epsilon = events[0] / factor  # the first measurement's
    if len(events) == 1 or dense(column, records, sum(events)):
        lows = np.arange(np.min(low), top + 1, dtype=np.int64)
        counts = values.count(lows, lows, closed=True)
        if len(events) == 2:
            return Leaves(lows, *pooled_counts(counts, events, factor, noise, label, gaussian), "dense")
        return Leaves(lows, *counted(counts, epsilon, gaussian=gaussian, noise=noise, label=label), "values")
    if SPARSE_LEVELS and np.ndim(low) == 0 and sparse(records, epsilon):
        return nested_leaves(
            values,
            low,
            top,
            integer=integer,
            events=events,
            factor=factor,
            noise=noise,
            label=label,
            gaussian=gaussian,
            points=points,
        )
    threshold = tree_threshold(records, epsilon)
    lows, highs = privtree(
        tree_input(values, points, levels),
        low,
        high,
        epsilon=epsilon,
        integer=integer,
        noise=noise,
        label=label + " (tree)",
        threshold=threshold,
    )
    lows, highs, cuts = with_points(lows, highs, points, top=top, integer=integer)
    counts = values.count_pieces(lows, highs, top=top, integer=integer)
    noisy, std = counted(counts, events[1] / factor, gaussian=gaussian, noise=noise, label=label + " (leaf counts)")
    cut_lows = lows
    strict = whole_ends(low, top, levels) + round_points(low, top, levels) if integer and np.ndim(low) == 0 else ()
    lows, noisy, unclear = settled_points(lows, noisy, std, cuts, strict=strict)
    parts = np.diff(np.append(np.searchsorted(cut_lows, lows), cut_lows.size))  # counts summed into each leaf
    return Leaves(lows, noisy, std, "tree", unclear, variance=parts * std**2)
