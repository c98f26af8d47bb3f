r"""Data-adaptive bins for numeric and date columns, paid for with differential privacy.

A column declared with a public range and no bins (no ``edges``, ``bin_width``, ``bins`` or
date ``unit``) gets bins that follow its data inside that range, so that a value held by
many records (0 in a capital-gain column, 40 hours a week, a code such as -1 or 999) comes
out as a bin of its own and keeps its exact value, while empty stretches of the range do
not cost cells. Every method then works over these bins without knowing where they came
from. Per column, one or two measurements, all counted by the accountant:

1. **Leaves** (:mod:`.leaves`). An integer or date range of at most :data:`.leaves.SHORT_LIMIT` values has one leaf
   per value (public). So does a range of at most :data:`.leaves.UNIT_LIMIT` values when the table is
   *dense*: at least :data:`.leaves.DENSE_RECORDS` records per value per unit of epsilon by the release's
   DP row count (a public or noisy count, never the true one unless it is public); its counts are
   then measured twice at half the epsilon each and pooled, which costs what the tree and its leaf
   counts would (and in zCDP as much as one count at the column's epsilon over :math:`\sqrt 2`),
   so the plan is the same either way. A table too *sparse* for the tree (its DP row count would not take even
   all its records :data:`.leaves.SPARSE_LEVELS` levels deep, whatever the data: the depth bias alone stops it)
   counts the range's 4 equal pieces (public), then 8 equal pieces of those whose counts stand clear of empty, at
   the same two epsilons (:func:`.leaves.nested_leaves`); the pieces keep weight only there. Otherwise the range, or
   a real one, is split by **PrivTree** (Zhang, Xiao and Xie, "PrivTree: a differentially private algorithm for
   hierarchical decompositions", SIGMOD 2016, section 3): the range is halved, and each half again, while a node's
   *biased* noisy count clears a threshold. A node at depth ``d`` holding ``c`` records scores ``max(c - d * delta,
   theta - delta)`` and splits when the score plus Laplace noise of scale ``lambda`` exceeds ``theta`` (``-delta``,
   one level free, on a table too small for the bias: :func:`.leaves.tree_threshold`). With fanout 2, ``lambda = 3 /
   epsilon`` and ``delta = lambda * ln 2``, the released tree (which nodes split) is ``epsilon``-DP under adding or
   removing one record, however deep it grows: the bias ``d * delta`` pays for the depth. A node that cannot split by
   a public rule (one integer or one day; a real interval at the depth limit) is not tested, which only removes terms
   from the privacy loss. Noise: :func:`dpsynth_core.privacy.noise.real_laplace` (OpenDP's float Laplace on the
   secure path; its rounding is charged by scaling ``lambda`` up by a factor ``1 + 1e-9``).
2. **Leaf counts.** The leaves partition the range, so their counts form one histogram of
   L1 and L2 sensitivity 1, released with discrete Laplace noise of scale ``1 / epsilon``
   (:mod:`dpsynth_core.privacy.histogram`), or, when the release's method composes in zCDP, discrete Gaussian noise
   of deviation ``1 / epsilon``: the same ``epsilon**2 / 2`` of rho as the pure count, at ``sqrt 2`` less noise
   (:func:`.leaves.counted`; a dense table's second count per value and a sparse one's fine pieces too). A range's
   named points (a real range's two ends, 0 inside a range) are leaves of their own among PrivTree's (and among a
   sparse table's fine pieces), counted
   back into the leaf they were cut from when their noisy count looks empty, and bins of their own when it is
   above that but not clear of the noise, so that the method's counts keep or cut them (:mod:`.points`).

The rest is post-processing of these DP outputs (:mod:`.bin_weights`), using the unclipped noisy
counts (their noise cancels on average when neighbours are summed):

* the leaves are the *pieces*, merged only down to :data:`FINE_MAX_BINS`;
* neighbouring pieces are merged into *bins*, the pair with the smallest mass (noisy total
  floored at 0: :func:`.bin_weights.merge_small_bins`) first, while there are more than
  :data:`~dpsynth_core.constraints.ADAPTIVE_MAX_BINS` bins or a pair holds less than 1 / (2 x that cap) of the
  noisy total. The bins keep the tables a method measures small; they are released as the column's ``edges``;
* a leaf of at most :data:`.leaf_cuts.SPLIT_NARROW` whole numbers (or :data:`.leaf_cuts.SPLIT_WIDE`) whose
  noisy count is at least a share of the noisy total inside the kept leaves (1/12, or half) and stands clear of
  the noise (:func:`.tails.clear_level`; a leaf of :data:`.leaf_cuts.SPLIT_PAIR` values need not, nor a
  short one at an edge of the data, :data:`.leaf_cuts.SPLIT_EDGE`) is then cut into a bin per value,
  the heaviest first while the column keeps at most :data:`~dpsynth_core.constraints.FITTED_MAX_BINS` bins:
  PrivTree stopped there for its depth bias, not for want of records, and nothing it measured says how they lie
  among those values; as bins, the method's own counts (at the release's main budget) place them (the pieces are
  cut where these bins start, :func:`.bin_weights.cut_at`: decoding draws a bin's values from its own pieces), and a
  wider leaf holding most of the column (of a real range too) into equal bins (:func:`.leaf_cuts.split_most`);
* inside each bin, the pieces get non-negative weights with the bin's noisy total (the
  noisy counts shifted down by one amount per bin and clipped at zero, a projection that
  does not give every empty piece made-up mass as clipping alone would). Decoding places
  a value in its bin through these weights (the domain's ``spread``), so values keep the
  shape of the data inside a bin and a one-value piece (a spike) stays exact; inside a piece, the
  density slopes toward its denser neighbour (:func:`.bin_weights.sloped_pieces`);
* counts of one value each are smoothed where that lowers their error (:func:`.bin_weights.smoothed_counts`); the
  range's tails that the counts cannot tell from empty (:func:`.tails.quiet_ends`: a tail narrower than the
  rest only within the tail bound), or islands beyond an empty stretch (:func:`.tails.without_islands`), get
  no weight, and in a bin wholly beyond the kept leaves (once the bins are split:
  :func:`.tails.beyond_split`) the weights fall away from the data (:func:`.tails.hug_data`); the model's
  support cuts such a bin more readily (``FittedBins.kept``).

The release card lists the bins, the pieces and their weights (all DP output) and the cost.
Public ``special`` values are taken out before anything is counted (their records fall in
their own bins, which the declaration fixes) and always keep one-value bins. Integers and
dates split at whole numbers (days, or a date and time's steps), so bins are integer ranges and decoding draws whole
numbers; real numbers split at midpoints down to 2**-24 of the range.

Budget: the adaptive columns together get at most :data:`~dpsynth_core.constraints.BINNING_SHARE` of epsilon, split
equally over ``max(adaptive columns, 3)``; a PrivTree column spends half on the tree and half on the leaf counts.
Under the substitution relation (one record replaced) every measurement runs at half its epsilon, since a
substitution is one removal and one addition. The data is read only through exact interval counts
(:class:`~dpsynth_core.data.counting.SortedValues`).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from .. import constraints
from ..data.counting import SortedValues
from ..data.encoding import numeric_value_counts, numeric_values
from ..domain import RANGE_KINDS, DateDomain, FloatDomain, TableDomain
from . import bin_counts, bin_weights, leaf_cuts, tails
from .bin_weights import cut_special, merge_small_bins, sloped_pieces, usable_weights
from .fitted_bins import FittedBins, bins_label
from .leaves import below_noise, bias_levels, binning_events, measure_leaves
from .noise import NoiseSource
from .points import named_points, point_ends

#: Most finer pieces kept to place values inside the bins.
FINE_MAX_BINS = 256
#: Each piece is cut into up to this many sub-pieces that follow the slope of the density
#: (:func:`.bin_weights.sloped_pieces`); a noisy weight below SLOPE_FLOOR records counts as that many there.
SLOPE_PARTS = 8
SLOPE_FLOOR = 5.0
#: Ablations of the post-processing in the module docstring (each True in releases): tails that the leaf counts
#: cannot tell from empty get no weight inside their bins (:func:`.tails.quiet_ends`), short tails cut only
#: within the tail bound, weights beyond the kept leaves falling away from the data, one-value counts smoothed.
QUIET_ENDS = SHORT_TAILS = HUG_DATA = SMOOTH = True
#: How a column's leaves were found (:class:`.leaves.Leaves`) for a short kept range to become a bin per value
#: (:func:`.leaf_cuts.split_short`): PrivTree's, and the coarse and fine pieces of a table too sparse for the tree;
#: not a short range's leaf per value nor a dense table's counts per value, which already count each value. An empty
#: list: never (the ablation).
SHORT_PATHS = ["tree", "nested"]
#: The binning share is split over at least this many columns, so one or two adaptive columns
#: never take all of it.
MIN_SPLIT = 3


def adaptive_columns(domain) -> list[str]:
    """Kept columns whose bins the release fits to the data: public range, no declared bins."""
    return [name for name, col in domain.kept.items() if getattr(col, "adaptive", False) and col.complete]


def wide_bin_columns(domain) -> list[str]:
    """Kept numeric and date columns with declared bins, some holding more than one value: the release
    learns how values spread inside them (:func:`fit_column`), so a spike such as 0 in a wide bin stays."""
    out = []
    for name, col in domain.kept.items():
        if col.kind not in RANGE_KINDS or not col.complete or getattr(col, "adaptive", False):
            continue
        if col.wide_bins:
            out.append(name)
    return out


def binning_budget(domain, epsilon: float, *, rho: float | None = None) -> dict[str, float]:
    """Epsilon each fitted column costs: ``BINNING_SHARE * epsilon / max(adaptive columns, 3)`` for the bins of
    an adaptive column, ``INSIDE_SHARE * epsilon / max(wide-bin columns, 3)`` for the inside of declared bins.

    ``rho``: the release's whole budget when its method composes in zero-concentrated DP (``marginals``), where
    a pure ``e``-DP measurement costs ``e**2 / 2`` of rho, so the rule above gives a table of many adaptive
    columns a small share of rho (9% for ten columns at epsilon 1) and a table of three a large one (31%). Each
    adaptive column then gets at least the epsilon whose measurements cost ``BINNING_RHO_SHARE * rho`` over
    ``max(adaptive columns, 3)``. Public: the declaration, epsilon and rho only.
    """
    out, adaptive = {}, adaptive_columns(domain)
    for names, share in ((adaptive, constraints.BINNING_SHARE), (wide_bin_columns(domain), constraints.INSIDE_SHARE)):
        out.update({name: epsilon * share / max(len(names), MIN_SPLIT) for name in names})
    if rho is not None and adaptive:
        each = constraints.BINNING_RHO_SHARE * rho / max(len(adaptive), MIN_SPLIT)
        for name in adaptive:  # m measurements of e / m each cost e**2 / (2 m) of rho
            measurements = len(binning_events(domain.columns[name], 1.0))
            out[name] = max(out[name], math.sqrt(2 * measurements * each))
    return out


def binning_label(column) -> str:
    """How the plan, the ledger and the card name a column's binning measurements (:func:`.fitted_bins.bins_label`)."""
    return bins_label(column.name, adaptive=getattr(column, "adaptive", False))


def _two(events: list[float]) -> tuple[float, float]:
    """A column's binning epsilons as (first measurement, counts): the first is 0 when there is one."""
    return (0.0, events[0]) if len(events) == 1 else (events[0], events[1])


def fit_column(
    column,
    values: SortedValues,
    *,
    epsilon: float,
    noise: NoiseSource,
    substitution: bool = False,
    records: float | None = None,
    gaussian: bool = False,
    short_ranges: bool = False,
) -> FittedBins:
    """One column's bins with DP: an adaptive column's bins and how values spread inside them
    (:func:`_merged_bins`), or how values spread inside a column's declared bins, which stay as declared.

    Special values are taken out first: their one-value bins are declared and need no measurement.
    Leaves (:func:`.leaves.measure_leaves`): one per value of a short integer or date range (or of a dense
    table's, :func:`.leaves.dense`), the range's coarse then fine equal pieces on a table too sparse for the tree
    (:func:`.leaves.nested_leaves`), else PrivTree's (:func:`~.privtree.privtree`), rooted at the whole range or at the
    declared bins wider than one value; their noisy counts (one histogram, sensitivity 1) become
    non-negative weights (:func:`usable_weights`).

    ``epsilon``-DP under adding or removing one record (the whole of ``values`` is one
    column of the table); under substitution when ``substitution`` is True (each measurement at half
    its epsilon). With ``gaussian`` (a method composing in zCDP, add or remove only) the counts that place the bins
    carry discrete Gaussian noise (:func:`.leaves.counted`): ``count epsilon**2 / 2``-zCDP, the rho their pure
    event is priced at. With ``short_ranges`` a whole-number column's short kept range becomes a bin per value
    (:func:`.leaf_cuts.split_short`).
    """
    if gaussian and substitution:
        raise ValueError("Gaussian bin counts are priced under adding or removing one record only")
    integer, dated = not isinstance(column, FloatDomain), isinstance(column, DateDomain)  # dates: days, no points
    if integer:
        bin_lows, bin_highs = column.lows.astype(np.int64), column.highs.astype(np.int64)
        top = int(bin_highs[-1])
        special = np.asarray(
            [column.number(d) for d in column.special] if isinstance(column, DateDomain) else column.special,
            dtype=np.int64,
        )
    else:
        edges = column.all_edges
        bin_lows, bin_highs, top, special = edges[:-1], edges[1:], float(column.max), column.special_values
    if len(special):
        values = values.without(special)
    adaptive = getattr(column, "adaptive", False)
    if adaptive:  # one root: the whole range
        roots_low, roots_high = (int(bin_lows[0]) if integer else float(column.min)), top
    else:  # a root per declared bin wider than one value
        roots = bin_highs > bin_lows if not integer else np.ones(len(bin_lows), dtype=bool)
        roots_low, roots_high = bin_lows[roots], bin_highs[roots]
    events, factor = binning_events(column, epsilon), 2.0 if substitution else 1.0
    # how deep the tree's bias lets the records go (its epsilon, when it runs); no row count known: not deep
    depth = 0.0 if records is None else bias_levels(records, events[0] / factor)
    points = named_points(column, roots_low, top, integer=integer, levels=depth)
    measured = measure_leaves(
        column,
        values,
        roots_low,
        roots_high,
        top,
        integer=integer,
        events=events,
        factor=factor,
        records=records,
        noise=noise,
        label=binning_label(column),
        points=points,
        levels=depth,
        gaussian=gaussian,
    )
    lows, noisy, std, how = measured.lows, measured.noisy, measured.std, measured.found_by
    if how == "values" and below_noise(column, records, events[0]):  # every count at the noise: no tail is cut
        kept = (lows[0], top + 1)
    else:
        kept = _kept_range(lows, noisy, std, top, integer, adaptive and SHORT_TAILS, dense=how == "dense")
    model_kept = kept
    if measured.span is not None:  # the coarse count already cut the tails it cannot tell from empty: the pieces keep
        kept = measured.span  # weight there, where the fine pieces' tails are too noisy to cut the data's own
        model_kept = (max(model_kept[0], kept[0]), min(model_kept[1], kept[1]))  # but the model may cut them
    if adaptive:
        if SMOOTH and integer and lows.size > 1 and bool(np.all(np.diff(lows) == 1)):
            noisy = bin_weights.smoothed_inside(lows, noisy, std, *kept)  # one count per value: less noise
        own = tuple(p for p in measured.unclear if kept[0] <= p < kept[1])  # points the model's counts keep or cut
        short = short_ranges and how in SHORT_PATHS  # a short kept range: a bin per value (the tree's or coarse span)
        bin_lows, spread = _merged_bins(lows, noisy, special, top, integer, kept, std, own, dated, short)
    else:
        weights = usable_weights(lows, noisy.astype(float), roots_low, top, integer)
        if QUIET_ENDS:
            weights = tails.keep_between(lows, weights, roots_low, *kept)
        spread = (tuple(lows.tolist()), tuple(float(w) for w in weights))
    # the named points cut as leaves: all on the tree's path, those inside the kept span on a sparse table's
    cut_points = points if how == "tree" else tuple(p for p in points if how == "nested" and kept[0] <= p < kept[1])
    return FittedBins(
        column.name,
        _edges(column, bin_lows, top),
        int(lows.size),
        *_two(events),
        spread,
        inside=not adaptive,
        found_by=how,
        kept=tuple(float(v) for v in model_kept) if adaptive else None,
        points=cut_points,
        moment=column.value_at if isinstance(column, DateDomain) else None,
        counted=bin_counts.counted(measured) if adaptive else None,
        gaussian=gaussian,
    )


def _kept_range(lows, noisy, std: float, top, integer: bool, by_width: bool = False, dense: bool = False) -> tuple:
    """The values a column's pieces may place records at: from the first kept leaf's low end up to (not
    including) the end of the last kept leaf (:func:`.tails.quiet_ends`, at most ``TAIL_SHARE`` of the
    noisy total lost per tail, or one noise deviation; a long tail's walk at ``DENSE_WALK`` on a dense table's
    counts per value). Post-processing."""
    widths = np.diff(np.append(lows, top + 1 if integer else top)) if by_width else None  # a long tail or not
    limit, walk = tails.tail_limit(noisy), tails.DENSE_WALK if dense else None
    first, last = tails.quiet_ends(noisy, std, limit=limit, widths=widths, walk=walk)
    first, last = tails.without_islands(noisy, widths, first, last, std) if by_width else (first, last)
    end = lows[last + 1] if last + 1 < len(lows) else (top + 1 if integer else np.inf)
    return lows[first], end


def _merged_bins(
    lows, noisy, special, top, integer: bool, kept: tuple, std: float, own=(), dated=False, short=False
) -> tuple:
    """An adaptive column's bins (their lower ends) and pieces, from its leaves' noisy counts.

    Post-processing. Merging sums the unclipped noisy counts, whose noise cancels on average, and
    weighs a merged stretch by that sum floored at 0: first the finer pieces (how values spread
    inside a bin), then the bins.
    """
    pieces = merge_small_bins(noisy, cap=FINE_MAX_BINS, min_mass=0.0)
    piece_counts = np.add.reduceat(noisy, pieces).astype(float)
    leaves = np.diff(np.append(pieces, len(noisy)))  # each piece's leaves
    ends = point_ends(lows, own)  # a bin of its own for each point the model's counts are to keep or cut
    cut_tails = tails.kept_ends(lows, noisy, std, *kept, top, integer)  # a bin for a cut tail holding records
    ends = np.union1d(ends, cut_tails).astype(lows.dtype)
    chosen = merge_small_bins(
        piece_counts,
        cap=max(constraints.ADAPTIVE_MAX_BINS - len(ends), 1),  # within the planned bins with them
        min_mass=piece_counts.sum() / (2 * constraints.ADAPTIVE_MAX_BINS),
    )
    piece_lows, bin_lows = lows[pieces], lows[pieces][chosen]
    weights = usable_weights(piece_lows, piece_counts, bin_lows, top, integer, by_width=False)
    if QUIET_ENDS:  # an empty tail of the range keeps no weight, and the edge piece slopes down toward it
        weights = tails.keep_between(piece_lows, weights, bin_lows, *kept)
    merged = bin_lows
    bin_lows = np.union1d(bin_lows, ends).astype(bin_lows.dtype)
    if integer and leaf_cuts.SPLIT_NARROW:  # a narrow leaf holding many records: a bin per value
        bin_lows = leaf_cuts.split_narrow(bin_lows, piece_lows, piece_counts, leaves, top, std, kept)
    if leaf_cuts.SPLIT_MOST:  # a wide leaf holding most of the column: equal bins
        bin_lows = leaf_cuts.split_most(bin_lows, piece_lows, piece_counts, leaves, top, std, kept, integer, not dated)
    if integer and not dated:  # a heavy first leaf: the range's low end a bin of its own (no point of a date)
        bin_lows = leaf_cuts.split_end(bin_lows, piece_lows, piece_counts, leaves, top, std, kept)
        bin_lows = leaf_cuts.split_beside_zero(bin_lows, piece_lows, piece_counts, leaves, top, std, kept)
        bin_lows = leaf_cuts.split_top_codes(bin_lows, piece_lows, piece_counts, leaves, top, std, kept)
    if integer and not dated and short:  # a short kept range: a bin per value
        bin_lows = leaf_cuts.split_short(bin_lows, top, kept)
    if QUIET_ENDS and HUG_DATA:  # inside a bin beyond them (as split), no weight spread up to the end by noise alone
        weights = tails.beyond_split(piece_lows, weights, piece_counts, merged, bin_lows, kept, top, integer)
        weights = tails.hug_data(piece_lows, weights, piece_counts, leaves, bin_lows, *kept, std, top, integer)
    clear = bin_weights.EDGE_CLEAR_Z * std  # a piece packed against its denser neighbour stands clear of the noise
    slope = {"parts": SLOPE_PARTS, "floor": SLOPE_FLOOR, "clear": clear}
    piece_lows, weights = sloped_pieces(piece_lows, weights, top, integer, **slope)
    piece_lows, weights = bin_weights.cut_at(piece_lows, weights, bin_lows, top, integer)  # the split's bins
    if len(special):
        piece_lows, weights = cut_special(piece_lows, weights, special, top, integer)
    return bin_lows, (tuple(piece_lows.tolist()), tuple(float(w) for w in weights))


def _edges(column, bin_lows, top) -> tuple:
    """A column's ``edges`` in its own type (public): the bins' first days or whole numbers, or every
    boundary of real ones up to ``top``."""
    if isinstance(column, DateDomain):
        return tuple(column.value_at(v) for v in bin_lows)
    if isinstance(column, FloatDomain):
        return tuple(float(v) for v in bin_lows) + (top,)
    return tuple(int(v) for v in bin_lows)


def fit_bins(
    data,
    domain: TableDomain,
    *,
    epsilon: float,
    noise: NoiseSource,
    substitution: bool = False,
    rho: float | None = None,
    records: float | None = None,
    gaussian: bool = False,
    short_ranges: bool = False,
) -> tuple[TableDomain, list[FittedBins]]:
    """Fit the bins of every adaptive column of ``domain`` (see the module docstring).

    Args:
        data: the table (its columns match ``domain``): a DataFrame, or a counting source
            (:mod:`dpsynth_core.engines`) read through its ``raw_values`` (each distinct raw
            value with its record count: the same interval counts, hence the same bins).
        domain: the declaration; columns with declared bins are left as they are.
        epsilon: the release's total epsilon (each column gets its share, :func:`binning_budget`).
        noise: the release's noise source.
        substitution: True under the substitution relation (each measurement at half its epsilon).
        rho: the release's zCDP budget when its method composes in rho (:func:`binning_budget`).
        records: the release's DP or public row count (None: none is known), which says whether the table
            is dense enough for counts per value (:func:`.leaves.dense`).
        gaussian: True when the counts that place the bins carry discrete Gaussian noise (the release's method
            composes in zCDP, add or remove one record: :func:`~dpsynth_core.synthesizers.charges.gaussian_bin_counts`
            says when, for the plan and the release alike; :func:`.leaves.counted`).
        short_ranges: True when a whole-number column's short kept range becomes a bin per value
            (:func:`.leaf_cuts.split_short`; the default method's, ``Synthesizer.short_ranges``).

    Returns:
        The declaration with DP ``edges`` on every adaptive column, and what was found and spent.
    """
    fitted = []
    for name, column_epsilon in binning_budget(domain, epsilon, rho=rho).items():
        column = domain.columns[name]
        if isinstance(data, pd.DataFrame):
            values = SortedValues(numeric_values(column, data[name], domain.missing_markers))
        else:
            raw, counts = data.raw_values(name)
            values = (
                SortedValues(numeric_values(column, raw, domain.missing_markers))
                if counts is None
                else SortedValues(*numeric_value_counts(column, raw, counts, domain.missing_markers))
            )
        found = fit_column(
            column,
            values,
            epsilon=column_epsilon,
            noise=noise,
            substitution=substitution,
            records=records,
            gaussian=gaussian,
            short_ranges=short_ranges,
        )
        fitted.append(found)
        domain = domain.with_column(
            replace(column, spread=found.spread)
            if found.inside
            else replace(column, edges=found.edges, spread=found.spread)
        )
    return domain, fitted
