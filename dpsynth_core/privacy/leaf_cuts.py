"""Where a fitted whole-number or date column's bins are cut finer than its merged leaves: a leaf PrivTree stopped at
for its depth bias, not for want of records, becomes a bin per value (or, holding most of the column, equal bins;
or keeps a range's low end, the value beside its 0, or a top code, as a bin of its own), so that the method's own
counts, at the release's main budget, place its records among its values.

Post-processing of the noisy leaf counts of :mod:`.binning` (:mod:`.bin_weights` for the weights inside the bins);
nothing here touches the data.
"""

from __future__ import annotations

import numpy as np

from .. import constraints
from ..domain.point_masses import zero_named
from .bin_weights import piece_widths
from .points import top_codes
from .tails import clear_level

#: A leaf of at most SPLIT_NARROW whole numbers (the slope's own steps, :data:`.binning.SLOPE_PARTS`) holding
#: at least SPLIT_MASS of the column's noisy total, clear of the noise, becomes a bin per value
#: (:func:`split_narrow`; 0: never, an ablation). Publisher's declarations, 10 seeds, the largest share of rows
#: at a value no record holds: adult at 1,000 rows 0.079 to 0.051, adult_wide 0.076 to 0.042, compas 0.045 to
#: 0.030, anes96 0.082 to 0.019 (2-way TVD within 0.004 of before but anes96, 0.170 to 0.179, whose TVnews, 0-7
#: days declared 0-100, comes out on its values while the expert's cells are 6.25 days wide); 21 tables the
#: project had not seen at 1,000 rows, codes declared 0-100 and other numbers ten times wider, 2 seeds: 0.112 to
#: 0.042 (Workinghours' 0/1 owned, one leaf 0-6: 49% of rows at 0 and 27% at 2-6 where the data has 31% and
#: none, to 32% and 1%). 16 values at 1/12: worse 2-way TVD (pums at 1,000 rows 0.142 to 0.150); the test at one
#: leaf's level instead of the column's: worse on ISLR's small tables (Credit 0.246 to 0.273).
SPLIT_NARROW = 8
SPLIT_MASS = 1 / 12
#: ... and a leaf of at most SPLIT_WIDE holding at least SPLIT_WIDE_MASS of the total (a 0/1 column in one leaf
#: 0-12): on the same 21 tables rows with a code outside its real range 16.7% to 14.9% (DoctorAUS 23.4% to 2.4%,
#: Wages 9.9% to 4.5%; Workinghours 17.2% to 20.2%), the benchmark at 1,000 rows level but compas 0.1265 to 0.1250
#: (rows outside the real range 30.5% to 25.9%) and diabetes 0.2476 to 0.2520; ISLR's Carseats 0.226 to 0.230.
SPLIT_WIDE = 16
SPLIT_WIDE_MASS = 0.5
#: ... and a leaf of at most SPLIT_PAIR whole numbers holding SPLIT_MASS is cut even when its count does not stand
#: clear of the noise (one bin more: a code 1 of 1-4 in a leaf 0-1 otherwise put half its rows at 0). German credit
#: at 1,000 rows (19 codes declared 0-100, 6 seeds): rows with a code outside its real range 82.7% to 68.0%; the 21
#: tables 10.6% to 10.3%; benchmark (10 seeds) and ISLR's small tables (20 seeds) level. At 3 or 4 values German
#: credit reached 50%, but College 0.247 to 0.253 and Credit 0.269 to 0.277 (4: Carseats 0.203 to 0.216).
SPLIT_PAIR = 2
#: ... and a leaf of at most SPLIT_EDGE whole numbers holding SPLIT_EDGE_MASS of the total at an edge of the data (a
#: neighbouring leaf, or the range's end, below EDGE_DROP of its records per value) is cut whether clear or not: the
#: slope inside it runs from the data toward the quiet side, where a column of codes has none (1-4 with 476 records
#: at 4: leaf 4-6 sloped 248, 105, 45). German credit 68.0% to 57.0% (6 seeds), the 21 tables 10.3% to 9.8%,
#: benchmark (10 seeds) and ISLR's tables (20 seeds; Carseats 40: 0.2114 to 0.2127) level. At any share of 1/12
#: (the edge rule alone) College 0.246 to 0.252 and Credit 0.269 to 0.276; no edge, a fifth: 0.254 and 0.275.
SPLIT_EDGE = 4
SPLIT_EDGE_MASS = 0.2
EDGE_DROP = 0.25
#: ... and a leaf of at most SPLIT_NARROW whole numbers clear of the noise beside a quiet one is cut at any share
#: (False: only from SPLIT_MASS, an ablation). On a large table a code's leaf holds a small share: Ecdat's Computers
#: (6,259 rows, clock speeds 25, 33, 50, 66, 75 and 100 MHz declared 0-200, RAM 2-32 MB declared 0-128), a leaf 23-25
#: held the 566 at 25 MHz (7.9% of the column) and its slope, falling toward the empty 26-32, put 296 rows at 23 and
#: 97 at 25. Computers over 6 seeds: rows with any value outside the real range 13.4% to 7.6% (RAM 3.7% to 0); codes
#: declared 0-100 on 21 tables of 5,000 rows (3 seeds) 1.17% to 0.70%, the largest share at a code no record holds
#: 0.83% to 0.40% (18 of 21 tables at 1% or less, from 14); at 1,000 rows identical. Publisher's declarations (5
#: seeds, paired): 2-way TVD -0.00014 +/- 0.00015 (34 of 170 releases changed); Rdatasets' 60 table sizes (3 seeds)
#: +0.00007 +/- 0.00007 (10 of 180); rows outside level on both (docs/benchmarks/history.md, the forty-seventh round).
CLEAR_BESIDE_QUIET = True
#: A leaf wider than SPLIT_WIDE holding SPLIT_MOST of the column's noisy total, clear of the noise, is cut into equal
#: bins (:func:`split_most`; 0: never, an ablation). German credit (6 seeds): rows with a code outside 57.0% to
#: 38.5%; the 21 tables 9.8% to 7.2% (DoctorAUS 35.7% to 6.3%, resume 51.8% to 34.8%; lending_club 6.0% to 7.9%);
#: the benchmark at 1,000 rows (20 seeds) level or better (compas 0.1293 to 0.1265, randhie 0.1483 to 0.1462,
#: adult_test 0.1908 to 0.1895; its largest share at a value no record holds 7.3% to 6.2%); ISLR's College 0.2467
#: to 0.2435, Credit 0.2686 to 0.2656. Without the range's low end as a bin of its own, adult's capital-loss (954
#: zeros in a leaf 0-48, cut in bins of 3 or 4 values) put 15% of rows at 1 and at 2: that share 6.4% to 9.9%.
#: A real range's leaf (not yet at the tree's depth limit) holding SPLIT_MOST is cut so too, within the column's
#: ADAPTIVE_MAX_BINS (:data:`REAL_MOST`; False: never, an ablation). A hotel's average daily rate (1,000 rows, 0-304
#: declared 0-10,000, 19 fitted columns at 0.013 of epsilon each): PrivTree stopped at a leaf 0-5,000 or 0-1,250
#: holding every record, and decoding spread it over the leaf (85% and 49% of rows above 304 at two seeds of 12);
#: 40 seeds, rows above the real maximum 5.9% to 2.3% on average (8 seeds over 5% to 5, 2 over 30% to 1). 2-way TVD,
#: publisher's declarations: the benchmark's 34 table sizes (5 seeds) 30 identical, mean +0.0002, none beyond two
#: standard errors (australian and diabetes level over 30 seeds); Rdatasets' thirty (3 seeds) 48 of 60 identical,
#: mean -0.0002 (docs/benchmarks/history.md, the twenty-seventh round).
SPLIT_MOST = 0.75
REAL_MOST = True
#: Such a leaf starting at a range's 0 gets half its cuts at its halvings toward 0 (its end over 2, 4, 8, ...) and
#: half equal (:func:`split_most`; False: all equal, an ablation): an amount or a count declared from 0 with a
#: generous top holds its records near 0 at some scale the declaration does not say. Lending Club's joint income
#: (1,500 records of 10,000, 20,000-1,100,000, declared 0-10,000,000): PrivTree's root did not split, and 12 equal
#: bins put every record in 0-833,333, spread evenly (median 443,000 against 113,000; 160,000 with them). The loans
#: so declared (5 seeds): mean 1-way TVD of the 38 columns 0.0517 to 0.0494. The benchmark (publisher, 5 seeds) 25 of
#: 34 identical, mean -0.0003, none beyond two standard errors (its 1,000-row tables at 20 seeds -0.0001); Rdatasets'
#: 60, 50 identical, mean -0.0001 (docs/benchmarks/history.md, the thirty-fourth round).
HALVINGS = True
#: A whole-number range's first leaf, wider than one value, holding at least SPLIT_END_MASS of the column's noisy
#: total (short of SPLIT_MOST), clear of the noise, keeps the range's low end as a bin of its own (:func:`split_end`;
#: 0: never, an ablation): the 0 of an amount many records share (Ames housing's porch, deck and finished basement
#: areas, declared 0-5,000 or 0-10,000: 44-57% of records at 0 in a leaf 0-19, 0-78 or 0-312 came out 0 in 0.2-4%
#: of rows). Not for dates (a date range's first day is no point, as for :mod:`.points`).
SPLIT_END_MASS = 0.25


#: The rules' shares are of the noisy mass inside the column's kept leaves (:func:`.tails.quiet_ends`), not of
#: every leaf's (False: every leaf's, an ablation). The floored noise of a range's empty tail made the total up to 1.8
#: times the records at 1,000 rows (history's seventeenth round), so a leaf holding most of a column fell under a
#: share: resume's 0/1 `job_req_organization` (929 and 71 records) in a leaf 0-12 counted 719 of 1,469, 940 inside
#: the kept 0-25, and its rows were drawn evenly over 0-12. 21 tables the project had not seen, codes declared 0-100,
#: 1,000 rows, 14 seeds: rows with a code outside its real range 7.2% to 6.8% (-0.39 +- 0.15 points; 13 tables at 5%
#: or less, from 12); ISLR's College 48.7% to 29.1% (20 seeds); 2-way TVD level on the benchmark at 1,000 rows (10
#: seeds, within 1.5 standard errors) and at 5,000 rows and full size (identical but nyc_weather, -0.0001), but
#: modechoice (a quarter of epsilon a row, its kept leaves often one noisy leaf) +0.018 +/- 0.007 (40 seeds).
KEPT_SHARES = True


def _masses(piece_lows, piece_counts, top, kept=None, integer: bool = True) -> tuple[np.ndarray, float, np.ndarray]:
    """Each piece's noisy count floored at 0, the total the rules' shares are of (:data:`KEPT_SHARES`: the pieces'
    inside ``kept``, the kept leaves' range ``(low, high)``, when that is positive; else every piece's), and each
    piece's width (whole numbers: values)."""
    masses = np.maximum(np.asarray(piece_counts, dtype=float), 0.0)
    total = float(masses.sum())
    if KEPT_SHARES and kept is not None:
        lows = np.asarray(piece_lows)
        total = float(masses[(lows >= kept[0]) & (lows < kept[1])].sum()) or total
    return masses, total, piece_widths(np.asarray(piece_lows), top, integer)


def split_narrow(bin_lows, piece_lows, piece_counts, piece_leaves, top, std: float, kept=None) -> np.ndarray:
    """The bins' lower ends with narrow heavy leaves cut into one bin per whole number, the heaviest first, while
    the column keeps at most ``FITTED_MAX_BINS`` bins. Post-processing of noisy counts.

    A leaf of at most :data:`SPLIT_NARROW` whole numbers holding at least :data:`SPLIT_MASS` of the column's noisy
    total, or of at most :data:`SPLIT_WIDE` holding :data:`SPLIT_WIDE_MASS`, its count clear of the noise over the
    column's leaves (:func:`clear_level`; a leaf of at most :data:`SPLIT_PAIR` values need not be clear, nor one of
    at most :data:`SPLIT_EDGE` holding :data:`SPLIT_EDGE_MASS` at an edge of the data), or a narrow one clear of the
    noise beside a quiet leaf at any share (:data:`CLEAR_BESIDE_QUIET`): PrivTree stopped there for
    its depth bias, so nothing measured says how its records lie among its values; as a bin per value, the method's
    own counts (at the release's main budget) place them. The shares are of the noisy mass inside ``kept``, the kept
    leaves' range (:data:`KEPT_SHARES`).
    """
    bin_lows = np.asarray(bin_lows, dtype=np.int64)
    masses, total, widths = _masses(piece_lows, piece_counts, top, kept)
    clear = masses >= clear_level(std, len(masses))
    density = masses / widths  # records per value; beyond the range's ends, none
    quiet_side = np.minimum(np.r_[0.0, density[:-1]], np.r_[density[1:], 0.0]) < EDGE_DROP * density
    edge = (widths <= SPLIT_EDGE) & quiet_side & (masses >= total * SPLIT_EDGE_MASS)
    heavy = (masses >= total * SPLIT_MASS) & (clear | (widths <= SPLIT_PAIR) | edge)
    heavy |= clear & quiet_side & CLEAR_BESIDE_QUIET  # any share
    wide = (widths <= SPLIT_WIDE) & (masses >= total * SPLIT_WIDE_MASS)
    narrow = (piece_leaves == 1) & (widths > 1) & ((widths <= SPLIT_NARROW) | wide) & heavy
    lows = set(bin_lows.tolist())
    for i in sorted(np.flatnonzero(narrow), key=lambda i: -masses[i]):
        low, end = int(piece_lows[i]), int(piece_lows[i] + widths[i])  # the leaf is low..end - 1
        grown = lows | set(range(low, end)) | ({end} if end <= top else set())  # the rest of its bin starts at end
        if len(grown) <= constraints.FITTED_MAX_BINS:
            lows = grown
    return np.asarray(sorted(lows), dtype=np.int64)


def split_most(
    bin_lows, piece_lows, piece_counts, piece_leaves, top, std: float, kept=None, integer: bool = True, halvings=True
) -> np.ndarray:
    """The bins' lower ends with a wide leaf holding most of the column cut into equal bins, as many as keep the
    column within its most bins (:func:`~dpsynth_core.constraints.most_fitted_bins`: 20 for whole numbers, 12 for
    real ones), half of them at the range's halvings toward 0 inside the leaf when the range starts at 0
    (:data:`HALVINGS`; ``halvings`` False for dates, whose day 0 is no amount's 0), a whole-number range's low end a
    bin of its own when the leaf starts there (the 0 of an amount or a count many records share keeps its value), and
    the value beside a range's 0 when the leaf lies beside it (:func:`beside_zero`), and a top code it holds
    (:func:`top_code_cuts`). Post-processing of noisy counts.

    A whole-number leaf wider than :data:`SPLIT_WIDE`, or a real one the tree could still have split
    (:data:`REAL_MOST`), holding :data:`SPLIT_MOST` of the column's noisy total, clear of the noise over its leaves
    (:func:`clear_level`): PrivTree stopped near its root by chance (on a 1,000-row table at a column's 0.01 to 0.03
    of epsilon, a node one level down holding every record stops with chance 9% to 0.3%, and more deeper: German
    credit's housing, codes 1-3 declared 0-100, in one leaf 0-50), or where its bias ran out. Nothing it measured
    says where the records lie inside; as bins, the method's own counts find which part holds them, and the model's
    support cuts the rest. The share is of the noisy mass inside ``kept`` (:data:`KEPT_SHARES`).
    """
    masses, total, widths = _masses(piece_lows, piece_counts, top, kept, integer)
    if integer:
        wide = widths > SPLIT_WIDE
    else:  # a leaf at the tree's depth limit (a spike) is as narrow as the tree goes
        wide = (widths * 2.0**constraints.FLOAT_MAX_DEPTH > float(top) - float(piece_lows[0])) & REAL_MOST
    most = (piece_leaves == 1) & wide & (masses >= total * SPLIT_MOST)
    kind = np.int64 if integer else float
    lows = set(np.asarray(bin_lows, dtype=kind).tolist())
    starts = np.asarray(piece_lows, dtype=kind)
    ends = np.append(starts[1:], top + 1 if integer else top).tolist()  # each piece's end, exactly the next start
    for i in np.flatnonzero(most & (masses >= clear_level(std, len(masses)))):
        low, end = starts[i].item(), ends[i]  # the leaf is low..end (whole numbers: end - 1)
        start = low + 1 if integer and i == 0 else low  # a whole-number range's low end alone
        grown = lows | {start} | ({end} if end <= top and (integer or end < top) else set())
        if integer and BESIDE_ZERO_MASS:  # a value beside a range's 0 alone (:func:`split_beside_zero`)
            grown |= beside_zero(low, end, int(starts[0]), int(top))
        if integer and TOP_CODE_MASS:  # a top code alone (:func:`split_top_codes`)
            grown |= top_code_cuts(low, end, int(starts[0]), int(top))
        room = constraints.most_fitted_bins(integer) - len(grown)
        if room > 0:
            halved = _halvings(start, end, room // 2 if HALVINGS and halvings and starts[0] == 0 else 0, integer)
            if integer:
                cuts = np.floor(np.linspace(start, end, min(room - len(halved), end - start - 1) + 2)[:-1])
            else:
                cuts = np.linspace(start, end, room - len(halved) + 2)[:-1]
            lows = grown | set(cuts.astype(kind).tolist()) | set(halved.tolist())
    return np.asarray(sorted(lows), dtype=kind)


def _halvings(start, end, most: int, integer: bool) -> np.ndarray:
    """Up to ``most`` of a range's halvings toward its 0 (``end`` over 2, 4, 8, ...; whole numbers rounded up) that lie
    above ``start``: a leaf's cuts at every scale of an amount declared from 0 (:data:`HALVINGS`).

    >>> _halvings(1, 51, 8, True).tolist(), _halvings(40, 140, 8, True).tolist(), _halvings(0.0, 5e3, 2, False).tolist()
    ([2, 4, 7, 13, 26], [70], [1250.0, 2500.0])
    """
    halved = end / 2.0 ** np.arange(1, most + 1)
    halved = np.unique(np.ceil(halved).astype(np.int64)) if integer else np.unique(halved)
    return halved[halved > start]


def split_short(bin_lows, top, kept) -> np.ndarray:
    """The bins' lower ends with every whole number of a short kept range a bin of its own: where the column's kept
    leaves (``kept``, :func:`.binning._kept_range`, or the coarse count's span on a table too sparse for the tree)
    span 2 to :data:`~dpsynth_core.constraints.SHORT_RANGE_VALUES` values, while the column ends with at most
    :data:`~dpsynth_core.constraints.SHORT_RANGE_BINS` bins (else the bins as they are). Post-processing of the kept
    range (DP): at a column's 0.01 to 0.03 of epsilon the leaf counts carry a noise of 50 to 140 records, so a leaf
    such as 3-5 of a code whose records lie at 1-4 cannot say that 5 holds none, and spreads its rows over it; as
    bins, the method's own counts (at the release's main budget) say which values hold records, and the model's
    support cuts the rest.

    >>> split_short(np.array([0, 3, 6, 25, 50]), 100, (0, 6)).tolist()
    [0, 1, 2, 3, 4, 5, 6, 25, 50]
    >>> split_short(np.array([0, 40, 80]), 100, (0, 40)).tolist()  # 40 values: as they are
    [0, 40, 80]
    """
    lows = np.asarray(bin_lows, dtype=np.int64)
    low, end = int(kept[0]), int(kept[1])  # the kept values are low..end - 1; the rest of the range starts at end
    if not constraints.SHORT_RANGE_VALUES or not 2 <= end - low <= constraints.SHORT_RANGE_VALUES:
        return lows
    grown = np.union1d(lows, np.arange(low, min(end, top) + 1))  # each kept value, and end (within the range)
    return grown if len(grown) <= constraints.SHORT_RANGE_BINS else lows


def _heavy_leaves(piece_lows, piece_counts, piece_leaves, top, std: float, kept, share: float):
    """Which pieces are one leaf holding at least ``share`` of the column's noisy total (inside ``kept``,
    :data:`KEPT_SHARES`), clear of the noise over its leaves (:func:`clear_level`), with each piece's floored count
    and width (:func:`_masses`): the test of :func:`split_end` and :func:`split_beside_zero`."""
    masses, total, widths = _masses(piece_lows, piece_counts, top, kept)
    heavy = (np.asarray(piece_leaves) == 1) & (masses >= total * share) & (masses >= clear_level(std, len(masses)))
    return heavy, masses, widths


def split_end(bin_lows, piece_lows, piece_counts, piece_leaves, top, std: float, kept=None) -> np.ndarray:
    """The bins' lower ends with a whole-number range's low end a bin of its own when the range's first leaf holds
    :data:`SPLIT_END_MASS` of the column's noisy total (inside ``kept``), clear of the noise over its leaves
    (:func:`clear_level`), as :func:`split_most` cuts it from a leaf holding most of the column. Post-processing of
    noisy counts: PrivTree stopped in a leaf beside the declared low end, and a count or an amount declared from 0
    holds its records there as often as not; as a bin, the method's own counts say how many, and the model's support
    cuts it when none."""
    lows = set(np.asarray(bin_lows, dtype=np.int64).tolist())
    heavy, _, widths = _heavy_leaves(piece_lows, piece_counts, piece_leaves, top, std, kept, SPLIT_END_MASS)
    low = int(piece_lows[0])
    if not SPLIT_END_MASS or widths[0] <= 1 or (kept is not None and kept[0] > low):
        return np.asarray(sorted(lows), dtype=np.int64)
    if heavy[0]:
        end = int(low + widths[0])
        grown = lows | {low + 1} | ({end} if end <= top else set())
        if len(grown) <= constraints.FITTED_MAX_BINS:
            lows = grown
    return np.asarray(sorted(lows), dtype=np.int64)


#: A whole-number leaf beside a range's 0 (one across zero, whose 0 :mod:`.points` names), wider than one value and
#: holding at least this share of the column's noisy total, clear of the noise, keeps the value beside 0 (-1 or 1) as
#: a bin of its own (:func:`split_beside_zero`; :func:`split_most` does so in the leaf it cuts; 0: never, an
#: ablation), as :func:`split_end` keeps a range's low end: a difference or a change often holds its records one
#: step from its "none".
BESIDE_ZERO_MASS = SPLIT_END_MASS


def beside_zero(low: int, end: int, first: int, top: int) -> set:
    """The bins' lower ends that make the value beside 0 a bin of its own in a whole-number leaf ``low..end - 1`` of a
    range ``first..top`` holding 0 strictly inside: ``{-1}`` in a leaf ending at -1, ``{2}`` in one starting at 1 (so
    1 alone), none in any other leaf or range.

    >>> beside_zero(-311, 0, -10000, 10000), beside_zero(1, 2500, -25000, 55000), beside_zero(-5, 3, -10, 10)
    ({-1}, {2}, set())
    """
    if not zero_named(first, top) or end - low < 2:
        return set()
    return {-1} if end == 0 else {2} if low == 1 else set()


def split_beside_zero(bin_lows, piece_lows, piece_counts, piece_leaves, top, std: float, kept=None) -> np.ndarray:
    """The bins' lower ends with the value beside 0 a bin of its own (:func:`beside_zero`) in a whole-number leaf
    beside a range's 0 holding at least :data:`BESIDE_ZERO_MASS` of the column's noisy total (inside ``kept``), clear
    of the noise over its leaves (:func:`clear_level`), while the column keeps at most ``FITTED_MAX_BINS`` bins.
    PrivTree stopped there for its depth bias, and nothing it measured says where inside the records lie; as a bin,
    the method's own count (at the release's main budget) says how many lie beside 0, and the model's support cuts
    it when none. compas's days between screening and arrest (declared -10,000 to 10,000; 55% of the records at -1,
    23% at 0) at 1,000 rows: a leaf -311..-1, or -12..-1 cut into equal bins, spread them evenly (-1 in 0.6% to 17%
    of a release's rows). Post-processing of noisy counts.

    >>> split_beside_zero(np.array([-1000, 0, 1]), np.array([-1000, -31, 0, 1]), np.array([3.0, 600, 200, 10]),
    ...                   np.array([1, 1, 1, 1]), 1000, 10.0).tolist()
    [-1000, -31, -1, 0, 1]
    """
    return _split_heavy(bin_lows, piece_lows, piece_counts, piece_leaves, top, std, kept, BESIDE_ZERO_MASS, beside_zero)


#: A whole-number leaf wider than one value holding at least this share of the column's noisy total, clear of the
#: noise, keeps each of the range's top codes it holds (99, 999, ... strictly inside the range:
#: :func:`~.points.top_codes`) as a bin of its own (:func:`split_top_codes`; :func:`split_most` too; 0: never, an
#: ablation). A survey's "no limit" or "not known" code holds its records at one value, and where the table is too
#: small for :mod:`.points` to name it (:data:`~.points.TOP_CODE_LEVELS`) PrivTree stops in a leaf around it: Kakadu's
#: largest amount a person would pay (1,827 rows, 999 for 52% of them, declared 0-10,000) came out evenly over a leaf
#: 998-1,007 or 978-1,016, 999 in 1% to 5% of a release's rows; now 50% to 56% in 11 of 12 draws (the column's
#: exact-value TVD 0.90 to 0.49).
TOP_CODE_MASS = SPLIT_END_MASS
#: ... when the leaf is at most 1 / TOP_CODE_NEAR of the code wide (978-1,016 around 999), so that PrivTree went
#: down toward it: a wide leaf (1-2,500 around 999) says nothing of the code. Any width: the publisher's declarations
#: (5 seeds) 2-way TVD +0.0009 +/- 0.0007, 33 of 170 releases changed (modechoice +0.019, adult at 1,000 rows
#: +0.005, compas's value no record holds 1.8% to 3.3%: a 99 or a 999 cut from a leaf whose records lie elsewhere);
#: at 8, none changed (nor the codes; 1 of 324 and 2 of 498 of Rdatasets'); at 16 Kakadu's 999 alone in 150 of 200
#: fits at 0.04 of epsilon, at 8 in 176.
TOP_CODE_NEAR = 8


def top_code_cuts(low: int, end: int, first: int, top: int) -> set:
    """The bins' lower ends that make each top code of a range ``first..top`` (:func:`~.points.top_codes`) in a
    whole-number leaf ``low..end - 1`` wider than one value a bin of its own.

    >>> sorted(top_code_cuts(978, 1017, 0, 10000)), top_code_cuts(0, 50, 0, 100), sorted(top_code_cuts(96, 100, 0, 100))
    ([999, 1000], set(), [99])
    """
    if end - low < 2:
        return set()
    codes = [c for c in top_codes(first, top) if low <= c < end and (end - low) * TOP_CODE_NEAR <= c]
    return {v for c in codes for v in (c, c + 1) if low < v < end}


def split_top_codes(bin_lows, piece_lows, piece_counts, piece_leaves, top, std: float, kept=None) -> np.ndarray:
    """The bins' lower ends with each top code (:func:`top_code_cuts`) a bin of its own in a whole-number leaf holding
    at least :data:`TOP_CODE_MASS` of the column's noisy total (inside ``kept``), clear of the noise over its leaves,
    while the column keeps at most ``FITTED_MAX_BINS`` bins: as :func:`split_beside_zero` keeps the value beside 0.
    Post-processing of noisy counts and the declared range.

    >>> split_top_codes(np.array([0, 998, 1008]), np.array([0, 998, 1008]), np.array([100.0, 950, 3]),
    ...                 np.array([1, 1, 1]), 10000, 10.0).tolist()
    [0, 998, 999, 1000, 1008]
    """
    return _split_heavy(bin_lows, piece_lows, piece_counts, piece_leaves, top, std, kept, TOP_CODE_MASS, top_code_cuts)


def _split_heavy(bin_lows, piece_lows, piece_counts, piece_leaves, top, std, kept, share, cuts_of) -> np.ndarray:
    """The bins' lower ends with ``cuts_of(low, end, first, top)`` added in each heavy leaf (:func:`_heavy_leaves` at
    ``share``; 0: none, the rule's ablation), the heaviest first, while the column keeps at most ``FITTED_MAX_BINS``
    bins."""
    lows = set(np.asarray(bin_lows, dtype=np.int64).tolist())
    if not share:
        return np.asarray(sorted(lows), dtype=np.int64)
    starts = np.asarray(piece_lows, dtype=np.int64)
    heavy, masses, widths = _heavy_leaves(piece_lows, piece_counts, piece_leaves, top, std, kept, share)
    for i in sorted(np.flatnonzero(heavy), key=lambda i: -masses[i]):
        low, end = int(starts[i]), int(starts[i] + widths[i])  # the leaf is low..end - 1
        cut = cuts_of(low, end, int(starts[0]), int(top))
        grown = lows | {low} | ({end} if end <= top else set()) | cut
        if cut and len(grown) <= constraints.FITTED_MAX_BINS:
            lows = grown
    return np.asarray(sorted(lows), dtype=np.int64)
