"""Numeric and date columns compared value by value, not only by bins (publisher-only).

Charts over bins cannot show a spike (0 in a capital-gain column) spread over its bin; these
figures can: the distribution functions, the most frequent exact values, a distance over exact
values, mean and quantiles, and plain sentences naming a column whose shape changed. Every
function here reads the real data without noise: for the publisher's eyes only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..data.encoding import numeric_values, range_sides
from ..domain import RANGE_KINDS, TIME_KINDS, as_table_domain
from ..domain.point_masses import resolution, snapped
from ..wording import short_names, value_text, value_texts
from .shape_words import unfilled_sentence


@dataclass
class ValueComparison:
    """One numeric or date column of the real and the synthetic table, compared value by value.

    Charts over bins cannot show a spike (0 in a capital-gain column) spread over its bin;
    these figures can. Publisher-only, like everything in this module.

    Attributes:
        column, kind: the column and its kind (``integer``, ``float`` or ``date``).
        points: values at which both distribution functions are given (sorted; days since
            1970-01-01 for dates).
        real_cdf, synthetic_cdf: share of non-missing values at or below each point.
        top: the most frequent exact values of either table: ``value``, ``real`` and
            ``synthetic`` shares of all rows (missing included), most frequent real first.
        value_tvd: total variation distance over exact values (missing is one more value);
            None for real numbers, whose exact values rarely repeat.
        max_cdf_gap: the largest gap between the two distribution functions (Kolmogorov-Smirnov).
        missing: share of missing cells in the real and in the synthetic table.
    """

    column: str
    kind: str
    points: np.ndarray
    real_cdf: np.ndarray
    synthetic_cdf: np.ndarray
    top: pd.DataFrame
    value_tvd: float | None
    max_cdf_gap: float
    missing: tuple
    #: The column's declaration, which says how its values are written.
    declared: object = field(default=None, repr=False)

    def shown(self, values) -> list:
        """Values as a person reads them (dates as YYYY-MM-DD)."""
        return shown(self.declared, values)


def shown(column, values) -> list:
    """A numeric or date column's values as a person reads them (dates as YYYY-MM-DD [HH:MM:SS])."""
    if column.kind in TIME_KINDS:
        return [str(t) for t in column.texts(np.rint(np.asarray(values, dtype=float)).astype(np.int64))]
    return [float(v) if column.kind == "float" else int(v) for v in values]


def value_comparison(
    real: pd.Series, synthetic: pd.Series, column, *, markers=("",), top: int = 10, max_points: int = 2000
) -> ValueComparison:
    """Compare a numeric or date column's real and synthetic values exactly (see :class:`ValueComparison`).

    Both are read by the declaration's public rule (clamped to the range, integers rounded),
    so the comparison is about what the method did, not about out-of-range cells.
    """
    a = numeric_values(column, real, markers)
    return _compare(
        a,
        snapped(numeric_values(column, synthetic, markers), a, resolution(column)),
        max(len(real), 1),
        max(len(synthetic), 1),
        column,
        top,
        max_points,
    )


def _compare(
    a: np.ndarray, b: np.ndarray, rows_a: int, rows_b: int, column, top: int = 10, max_points: int = 2000
) -> ValueComparison:
    """:func:`value_comparison` of the values already read (``a`` real, ``b`` synthetic, of ``rows_a`` and
    ``rows_b`` rows)."""
    points = np.union1d(a, b)
    if points.size > max_points:  # enough points to draw the curves: quantiles of both tables together
        points = np.unique(np.quantile(np.concatenate([a, b]), np.linspace(0, 1, max_points), method="lower"))
    real_cdf = np.searchsorted(np.sort(a), points, side="right") / max(a.size, 1)
    synthetic_cdf = np.searchsorted(np.sort(b), points, side="right") / max(b.size, 1)
    values_a, counts_a = np.unique(a, return_counts=True)
    values_b, counts_b = np.unique(b, return_counts=True)
    shares = pd.DataFrame(
        {
            "real": pd.Series(counts_a / rows_a, index=values_a),
            "synthetic": pd.Series(counts_b / rows_b, index=values_b),
        }
    ).fillna(0.0)
    value_tvd = None
    if column.kind != "float":
        missing_gap = abs((rows_a - a.size) / rows_a - (rows_b - b.size) / rows_b)
        value_tvd = float(0.5 * (np.abs(shares["real"] - shares["synthetic"]).sum() + missing_gap))
    chosen = shares["real"].nlargest(top).index.union(shares["synthetic"].nlargest(top).index)
    frequent = shares.loc[chosen].sort_values(["real", "synthetic"], ascending=False).rename_axis("value").reset_index()
    gap = float(np.abs(real_cdf - synthetic_cdf).max()) if points.size else 0.0
    return ValueComparison(
        column.name,
        column.kind,
        points,
        real_cdf,
        synthetic_cdf,
        frequent,
        value_tvd,
        gap,
        ((rows_a - a.size) / rows_a, (rows_b - b.size) / rows_b),
        column,
    )


#: A most common value whose share moved by at least this much (either way) names its column.
SHAPE_SHARE_GAP = 0.10
#: A mean that moved by more than this share of the real mean names its column (in the DP report, when the
#: synthetic mean also lies outside the real mean's interval) ...
SHAPE_MEAN_GAP = 0.25
#: ... and, on the publisher's exact figures, by more than this share of the real values' standard deviation (so a
#: mean near 0, such as a daily return's, moving by a sliver of the values' spread is not said to have changed).
SHAPE_MEAN_SPREAD = 0.1
#: Distribution functions this far apart name their column.
SHAPE_CDF_GAP = 0.15
#: At least this share of the synthetic rows outside the real values' range names its column.
SHAPE_BEYOND_SHARE = 0.01
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
#: An exact value is written to this many significant digits (a station's latitude 40.7196, not 40.7).
EXACT_DIGITS = 6


def beyond_real(real: np.ndarray, synthetic: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which ``synthetic`` values lie below the smallest of ``real`` and which above its largest (NaN: neither;
    no real value: none). Publisher-only: it reads the real range without noise.

    >>> below, above = beyond_real(np.array([3.0, 5.0]), np.array([2.0, 3.0, 6.0, np.nan]))
    >>> below.tolist(), above.tolist()
    ([True, False, False, False], [False, False, True, False])
    """
    real = real[~np.isnan(real)] if real.dtype.kind == "f" else real
    if real.size == 0:
        return np.zeros(synthetic.shape, dtype=bool), np.zeros(synthetic.shape, dtype=bool)
    return synthetic < real.min(), synthetic > real.max()


def _beyond_sentence(column, real: np.ndarray, synthetic: np.ndarray, rows: int) -> tuple[dict, list[str]]:
    """The shares of ``rows`` synthetic rows below and above the real values' range, and a plain sentence when
    they add up to :data:`SHAPE_BEYOND_SHARE` or more."""
    below, above = (float(m.sum()) / rows for m in beyond_real(real, synthetic))
    shares = {"below": below, "above": above}
    if below + above < SHAPE_BEYOND_SHARE:
        return shares, []
    low, high = value_texts(shown(column, [real.min(), real.max()]))  # 40.71 to 40.75, not 40.7 to 40.7
    rows_word = f"{column.name}: {below + above:.1%} of the synthetic rows lie"
    if below and above:
        where = f"outside the real values ({low} to {high}): {below:.1%} below, {above:.1%} above"
    else:
        where = f"above the largest real value ({high})" if above else f"below the smallest real value ({low})"
    return shares, [f"{rows_word} {where}"]


def _side(values: np.ndarray, rows: int, column) -> dict:
    if values.size == 0:
        return {"mean": None, "quantiles": {}, "most_common": None, "most_common_share": 0.0}
    found, counts = np.unique(values, return_counts=True)
    top = int(np.argmax(counts))
    mean = float(values.mean())
    return {
        "mean": shown(column, [mean])[0] if column.kind in TIME_KINDS else mean,
        "quantiles": {
            f"{q:g}": shown(column, [v])[0] for q, v in zip(QUANTILES, np.quantile(values, QUANTILES, method="lower"))
        },
        "most_common": shown(column, [found[top]])[0],
        "most_common_share": float(counts[top] / rows),
    }


def value_summary(real: pd.Series, synthetic: pd.Series, column, *, markers=("",)) -> dict:
    """Value-level figures of one numeric or date column, real vs synthetic (publisher-only, JSON-ready).

    ``value_distance``: total variation distance over exact values (None for real numbers);
    ``max_cdf_gap``: the largest gap between the distribution functions (Kolmogorov-Smirnov);
    ``real``/``synthetic``: mean, quantiles, the most common value and its share of all rows;
    ``shape``: plain sentences naming what changed (a frequent value's share, the mean, the spread, rows
    beyond the real values' range), empty when the values kept their shape;
    ``beyond_real``: the shares of synthetic rows ``below`` and ``above`` the real values' range.
    """
    a = numeric_values(column, real, markers)
    b = snapped(numeric_values(column, synthetic, markers), a, resolution(column))  # the same to the release
    compared = _compare(a, b, max(len(real), 1), max(len(synthetic), 1), column)  # each table read once
    sides = {"real": _side(a, max(len(real), 1), column), "synthetic": _side(b, max(len(synthetic), 1), column)}
    shape = []
    top = compared.top.assign(gap=(compared.top["real"] - compared.top["synthetic"]).abs())
    # each frequent value written so that it reads apart from the others (40.7196, not 40.7 as its neighbours)
    top = top.assign(text=value_texts(compared.shown(list(top["value"]))))
    moved = top[top["gap"] >= SHAPE_SHARE_GAP].sort_values("gap", ascending=False)
    for _, row in moved.head(2).iterrows():
        shape.append(
            f"{column.name}: {row['text']} is {row['real']:.0%} of the real values and "
            f"{row['synthetic']:.0%} of the synthetic ones"
        )
    if a.size and b.size and column.kind not in TIME_KINDS:
        mean_a, mean_b = float(a.mean()), float(b.mean())
        gap = abs(mean_b - mean_a)
        if gap > SHAPE_MEAN_GAP * max(abs(mean_a), 1e-12) and gap > SHAPE_MEAN_SPREAD * float(a.std()):
            real_mean, synthetic_mean = value_texts([mean_a, mean_b])
            shape.append(
                f"{column.name}: the mean is {real_mean} in the real values and {synthetic_mean} in the synthetic ones"
            )
    if bool(a.size) != bool(b.size):  # one table holds no value: no distribution to compare
        shape.append(unfilled_sentence(column.name, a.size / max(len(real), 1), b.size / max(len(synthetic), 1)))
    elif not shape and compared.max_cdf_gap >= SHAPE_CDF_GAP:
        shape.append(
            f"{column.name}: the values are spread differently (up to {compared.max_cdf_gap:.0%} of the "
            "rows lie on different sides of some value)"
        )
    beyond, said = _beyond_sentence(column, a, b, max(len(synthetic), 1)) if a.size else ({}, [])
    shape += said
    top_value = sides["real"]["most_common"]
    raw_top = compared.top["value"][compared.top["real"].idxmax()] if len(compared.top) and a.size else None
    synthetic_share = float((b == raw_top).sum() / max(len(synthetic), 1)) if raw_top is not None else 0.0
    return {
        "kind": column.kind,
        "value_distance": compared.value_tvd,
        "max_cdf_gap": compared.max_cdf_gap,
        **sides,
        "synthetic_share_of_real_top": synthetic_share if top_value is not None else 0.0,
        "beyond_real": beyond,
        "shape": shape,
    }


def value_summaries(real: pd.DataFrame, synthetic: pd.DataFrame, domain) -> dict:
    """:func:`value_summary` of every kept numeric and date column (publisher-only)."""
    domain = as_table_domain(domain)
    return {
        name: value_summary(real[name], synthetic[name], col, markers=domain.missing_markers)
        for name, col in domain.kept.items()
        if col.kind in RANGE_KINDS
    }


def value_table(summaries: dict) -> pd.DataFrame:
    """One row per numeric or date column: the value-level figures side by side, for a table on screen (a long name
    shortened to its start and its distinct end: :func:`~dpsynth_core.wording.short_names`)."""
    rows = []
    for shown, s in zip(short_names(list(summaries), 60), summaries.values(), strict=True):
        real, synthetic = s["real"], s["synthetic"]
        medians = [side["quantiles"].get("0.5") for side in (real, synthetic)]
        rows.append(
            {
                "column": shown,
                "distance over exact values": s["value_distance"],
                "largest gap between the curves": s["max_cdf_gap"],
                "mean (real / synthetic)": " / ".join(value_texts([real["mean"], synthetic["mean"]])),
                "median (real / synthetic)": " / ".join(value_texts(medians)),
                "most common real value": value_text(real["most_common"], EXACT_DIGITS),
                "its share (real / synthetic)": f"{real['most_common_share']:.1%} / "
                f"{s['synthetic_share_of_real_top']:.1%}",
                "synthetic rows outside the real range": f"{sum(s['beyond_real'].values()):.1%}"
                if s["beyond_real"]
                else "",
                "shape kept": "no" if s["shape"] else "yes",
            }
        )
    return pd.DataFrame(rows)


# --- the report's value-level statistics (their noise: :mod:`.report`) --------------------

#: The synthetic table's most common exact values whose real share a report measures (with special values).
REPORT_TOP_VALUES = 3
#: The synthetic quartiles at which a report measures the real share of values at or below.
QUARTILES = (0.25, 0.5, 0.75)


def _number(column, value):
    """A declared value as the column's values are counted (a date's days, a date and time's steps)."""
    return column.number(value) if column.kind in TIME_KINDS else value


def report_statistics(real: pd.Series, synthetic: pd.Series, column, *, markers=("",)) -> dict:
    """The exact value-level statistics a report adds noise to (private: never shown as they are).

    ``gap``: ``max_x |C(x) - n F(x)|`` in records (``C``: real values at or below ``x``, ``n``: real
    rows, ``F``: the share of synthetic rows at or below ``x``, missing cells above every value).
    One record moves ``n`` by one and ``C(x)`` by at most one, so each term by at most
    ``max(F, 1 - F) <= 1``: sensitivity 1. ``values``: public exact values (the synthetic table's
    most common ones, the declared special values and the range's low end), ``counts``: the real
    records holding each (a histogram: sensitivity 1), ``synthetic``: their public synthetic shares. A real number
    is read to the release's resolution: within PrivTree's deepest leaf of one of these public values, it is that
    value (:func:`~dpsynth_core.domain.point_masses.snapped`; a record's own value moves, so no sensitivity changes).
    ``quartile_counts`` and ``clamped_counts``: one histogram (sensitivity 1) of the real values present,
    in the cells the synthetic quartiles cut for the values inside the declared range, and in two more
    cells for those below and above it, which the public rule clamps into the cells ``clamped_cells``.
    """
    b = np.sort(numeric_values(column, synthetic, markers))
    found, counts = np.unique(b, return_counts=True)
    chosen = list(found[np.argsort(-counts, kind="stable")[:REPORT_TOP_VALUES]])
    low = None if column.kind in TIME_KINDS else column.min
    for extra in [*(column.special or ()), low]:
        if extra is not None and _number(column, extra) not in chosen:
            chosen.append(_number(column, extra))
    a = numeric_values(column, real, markers)
    chosen = np.sort(np.asarray(chosen, dtype=a.dtype if a.size else float))
    a = np.sort(snapped(a, chosen, resolution(column)))  # each record alone moved: the same sensitivities
    rows_a, rows_b = len(real), max(len(synthetic), 1)
    points = np.union1d(a, b)
    gap = 0.0
    if points.size:
        gap = float(
            np.abs(
                np.searchsorted(a, points, side="right") - rows_a * np.searchsorted(b, points, side="right") / rows_b
            ).max()
        )
    real_counts = np.searchsorted(a, chosen, side="right") - np.searchsorted(a, chosen, side="left")
    synthetic_counts = np.searchsorted(b, chosen, side="right") - np.searchsorted(b, chosen, side="left")
    low_end, high_end = _number(column, column.min), _number(column, column.max)
    points = np.quantile(b, QUARTILES, method="inverted_cdf") if b.size else np.zeros(len(QUARTILES))
    points, first = np.unique(points, return_index=True)  # a spike (capital-gain's 0) holds several quartiles
    return {
        "kind": column.kind,
        "gap": gap,
        "values": shown(column, chosen),
        "counts": real_counts,
        "synthetic": (synthetic_counts / rows_b).tolist(),
        # the mean: a clipped sum over the values present (public low end and width); the quartiles: the
        # real values in the cells the synthetic table's quartiles cut (a histogram: sensitivity 1)
        "low_end": float(low_end),
        "width": float(high_end - low_end),
        "sum": float((np.clip(a, low_end, high_end) - low_end).sum()),
        "synthetic_mean": float(b.mean()) if b.size else None,
        "quartiles": shown(column, points),
        "quartile_at": [QUARTILES[i] for i in first],
        **_quartile_cells(a, points, range_sides(column, real, markers), low_end, high_end),
        "synthetic_below": (np.searchsorted(b, points, side="right") / max(b.size, 1)).tolist(),
        # public (both are): which exact values each quartile point is at or above, for the report's consistency
        "values_below": (chosen[None, :] <= points[:, None]).tolist(),
    }


def _quartile_cells(a: np.ndarray, points: np.ndarray, sides: np.ndarray, low_end, high_end) -> dict:
    """The real values present (``a``, clamped) in the cells the quartile ``points`` cut, with those the
    public rule clamped (``sides``) counted apart: a partition of the values, so a histogram of sensitivity 1."""
    cells = np.bincount(np.searchsorted(points, a, side="left"), minlength=len(points) + 1)
    at = np.searchsorted(points, [low_end, high_end], side="left")  # where a clamped value lies
    clamped = np.array([(sides < 0).sum(), (sides > 0).sum()], dtype=np.int64)
    np.subtract.at(cells, at, clamped)
    return {"quartile_counts": cells, "clamped_counts": clamped, "clamped_cells": at.tolist()}


def report_sentences(name: str, figures: dict) -> list[str]:
    """Plain sentences from a report's DP value-level figures: an exact value whose real share is far
    (by at least ``SHAPE_SHARE_GAP``, outside its interval) from its synthetic share, or curves far apart.

    A statement of change is checked against the familywise interval of its figure (``figures["claims"]``,
    :func:`~dpsynth_core.evaluation.intervals.value_noise`), so all the statements of a report hold together
    at 95%; the sentence quotes the figure's own 95% interval. Reports made before that use the latter."""
    out = []
    claims = figures.get("claims", figures)
    shares = (figures[key] for key in ("real", "low", "high"))
    for value, real, low, high, claim_low, claim_high, synthetic in zip(
        value_texts(figures["values"]), *shares, claims["low"], claims["high"], figures["synthetic"]
    ):
        if abs(real - synthetic) >= SHAPE_SHARE_GAP and not claim_low <= synthetic <= claim_high:
            out.append(
                f"{name}: {value} is about {real:.0%} of the real values ({low:.0%} to {high:.0%}) "
                f"and {synthetic:.0%} of the synthetic ones"
            )
    mean, claim_mean = figures.get("mean"), claims.get("mean")
    if (
        mean
        and claim_mean
        and mean["synthetic"] is not None
        and not claim_mean["low"] <= mean["synthetic"] <= claim_mean["high"]
        and abs(mean["synthetic"] - mean["value"]) > SHAPE_MEAN_GAP * max(abs(mean["value"]), 1e-12)
    ):
        value, low, high, synthetic = value_texts(mean[key] for key in ("value", "low", "high", "synthetic"))
        out.append(
            f"{name}: the mean is about {value} in the real values ({low} to {high}) and {synthetic} in the synthetic "
            "ones"
        )
    gap = figures["gap"]
    if not out and claims["gap"]["low"] >= SHAPE_CDF_GAP:
        out.append(
            f"{name}: the values are spread differently (up to {gap['value']:.0%} of the rows lie on "
            "different sides of some value)"
        )
    return out


def statement_figures(values: dict) -> int:
    """How many figures the statements of change are drawn from: per compared numeric or date column, its
    exact values' shares, its mean and its largest gap. Public: the values are the synthetic table's and the
    declaration's. The statements' intervals hold together at ``CONFIDENCE`` over all of them (Bonferroni)."""
    return sum(len(found["values"]) + 2 for found in values.values())


def value_figures(name: str, found: dict, drawn: tuple, run: int = 0) -> dict:
    """One run's value-level figures of a column (``report.draw_noise(...).values[name]``) as the report shows
    them, with the plain sentences of what changed (checked against the familywise ``claims`` intervals)."""
    (gap, gap_low, gap_high), (real, low, high), mean, below, clamped, claims = drawn
    (_, claim_gap_low, claim_gap_high), (_, claim_low, claim_high), (_, claim_mean_low, claim_mean_high) = claims
    out = {
        "gap": {"value": float(gap[run]), "low": float(gap_low[run]), "high": float(gap_high[run])},
        "values": found["values"],
        "synthetic": found["synthetic"],
        "real": real[run].tolist(),
        "low": low[run].tolist(),
        "high": high[run].tolist(),
        "quartiles": [
            {"at": q, "point": p, "synthetic": sb, "real": float(v), "low": float(lo), "high": float(hi)}
            for q, p, sb, v, lo, hi in zip(
                found["quartile_at"],
                found["quartiles"],
                found["synthetic_below"],
                below[0][run],
                below[1][run],
                below[2][run],
            )
        ],
        "claims": {
            "gap": {"low": float(claim_gap_low[run]), "high": float(claim_gap_high[run])},
            "low": claim_low[run].tolist(),
            "high": claim_high[run].tolist(),
        },
    }
    if found["synthetic_mean"] is not None and found["kind"] not in TIME_KINDS:  # a date's quartiles say more
        out["mean"] = {
            "value": float(mean[0][run]),
            "low": float(mean[1][run]),
            "high": float(mean[2][run]),
            "synthetic": found["synthetic_mean"],
        }
        out["claims"]["mean"] = {"low": float(claim_mean_low[run]), "high": float(claim_mean_high[run])}
    if clamped is not None:
        out["clamped"] = dict(zip(("value", "low", "high"), (float(c[run]) for c in clamped)))
    out["shape"] = report_sentences(name, out)
    return out
