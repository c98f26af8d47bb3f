"""Stakeholder reports: the release card plus quality figures that are themselves differentially private.

A release's quality is usually judged against the real data, which makes the judgement a
new use of the data. Here every figure that reads the real data is a DP measurement, paid
from a budget the publisher chooses and recorded as privacy events, so the report can be
shared like the release itself.

The mechanism (:func:`measure`), for a report budget ``epsilon`` split equally over its
``k`` statistics by basic composition (each gets ``epsilon / k``):

* the **row count**, with discrete Laplace noise (sensitivity 1);
* per column and per chosen pair of columns, the **distance** between the synthetic and the
  real distribution in records, ``f = 1/2 sum_i |c_i - n q_i|`` (``c``: real counts, ``n``:
  real rows, ``q``: the synthetic shares, public once released), with Laplace noise.
  Adding or removing a record in cell ``j`` moves ``c_j`` and ``n`` by one: term ``j``
  changes by at most ``1 - q_j`` and every other term by at most ``q_i``, so ``f`` changes
  by at most ``1 - q_j <= 1``: sensitivity 1 (also under substitution). The total
  variation distance is ``f / n``, estimated by the noisy ``f`` over the noisy count;
* for a few chosen columns, the **real shares** over public cells (the declared cells, or
  the synthetic table's most common values when there are many), a discrete Laplace
  histogram (sensitivity 1);
* per numeric or date column, four statistics over **exact values** (no bins, so a spike
  spread over its bin shows): the largest gap between the real and synthetic distribution
  functions in records (Kolmogorov-Smirnov, sensitivity 1, Laplace noise); a discrete
  Laplace histogram of the real records at a few public values (the synthetic table's most
  common ones, the declared special values, the range's low end); the **mean** (the sum of
  the values clipped to the declared range, less its low end, with Laplace noise of
  sensitivity the range's width, over the noisy number of values present); and the
  **quartiles** (a discrete Laplace histogram of the real values in the cells that the
  synthetic table's quartiles cut, giving the real share at or below each), see
  :func:`.values.report_statistics` and :func:`.intervals.value_noise`. A value whose real share,
  or a mean that is far from the synthetic one, is then named in plain words.

Error bars come from the known noise laws alone: every figure is a noisy statistic over the noisy row count, and its
interval holds with probability at least 95% (a union bound over its own noise and the count's,
:func:`ratio_interval`); the row count's own interval holds with probability at least 97.5%. The plain statements of
change are checked against wider intervals from the same noise (:func:`.intervals.value_noise`'s ``claims``), so that
they all hold together with probability at least 95% (Bonferroni over the :func:`.values.statement_figures` figures
they are drawn from). Everything else in the report (card, synthetic shares) is public. Noise is drawn through
:mod:`dpsynth_core.privacy.noise` (secure by default).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from ..domain import RANGE_KINDS, as_table_domain
from ..errors import DPSynthError
from ..privacy.accounting import ADD_REMOVE, Accountant, PrivacyEvent, unit_relation
from ..privacy.noise import make_noise_source, real_laplace
from ..privacy.persons import bound_rows
from ..privacy.spending import Spend
from ..wording import noun
from .intervals import (
    CONFIDENCE,
    capped_shares,
    contained,
    discrete_laplace_margin,
    laplace_margin,
    ratio_interval,
    value_noise,
)
from .metrics import paired_codes
from .values import report_statistics, statement_figures, value_figures

#: Most bars in a column's share chart (the synthetic table's most common cells beyond that).
MAX_CHART_CELLS = 24
#: Default share of a release's epsilon that a report spends.
DEFAULT_SHARE = 0.10
#: Default number of column pairs and of share charts.
DEFAULT_PAIRS = 6
#: Statistics per compared numeric or date column: the value gap, exact values, the mean, the quartiles.
VALUE_STATISTICS = 4


class ReportError(DPSynthError):
    """A report cannot be made (no rows, unknown columns, no PDF renderer)."""


@dataclass(frozen=True)
class Estimate:
    """A DP estimate of a total variation distance with its interval (all in [0, 1])."""

    value: float
    low: float
    high: float


@dataclass
class ReportFigures:
    """The report's DP figures and what they cost.

    Attributes:
        epsilon: the report's whole budget; ``per_statistic``: each statistic's share.
        rows: the noisy real row count; ``rows_margin``: the half-width of its 95% interval.
        one_way: per column, the estimated distance; ``two_way``: per pair ("a × b").
        values: per numeric or date column, value by value (no bins): ``gap``, the largest gap between
            the real and synthetic distribution functions (``value``, ``low``, ``high``); ``values``,
            public exact values with their ``synthetic`` shares, DP ``real`` shares and intervals
            (``low``, ``high``); ``shape``, plain sentences when a value's share or the spread changed.
        shares: per charted column: ``labels``, ``synthetic`` shares, DP ``real`` shares
            and each bar's 95% interval ``low`` to ``high`` (both noises: the bar's and the row count's).
        events: the privacy events (one per statistic).
        statements: how many figures the plain statements of change are drawn from; they hold together at
            ``CONFIDENCE`` (each checked against its figure's interval at ``1 - (1 - CONFIDENCE) / statements``).
    """

    epsilon: float
    per_statistic: float
    rows: int
    rows_margin: int
    synthetic_rows: int
    one_way: dict
    two_way: dict
    shares: dict
    events: list = field(default_factory=list)
    values: dict = field(default_factory=dict)
    statements: int = 0

    def to_dict(self) -> dict:
        out = asdict(self)
        out["events"] = [e.as_dict() for e in self.events]
        return out

    @classmethod
    def from_dict(cls, data: dict) -> ReportFigures:
        values = dict(data)
        values["one_way"] = {k: Estimate(**v) for k, v in data["one_way"].items()}
        values["two_way"] = {k: Estimate(**v) for k, v in data["two_way"].items()}
        values["events"] = [PrivacyEvent(**e) for e in data.get("events", [])]
        return cls(**values)


def pair_name(a: str, b: str) -> str:
    return f"{a} × {b}"


def default_pairs(card: dict, columns, limit: int = DEFAULT_PAIRS) -> list[tuple[str, str]]:
    """Public default pairs: those the release itself joined (read from its card), else neighbours in order.

    The card names the joined columns as a structure (``sampled given``) or as measured
    marginals; either way they are public (the release's own output). Pairs are in column order.
    """
    columns = list(columns)
    details = card.get("method_details", {})
    groups = [[*step.get("sampled given", []), step["column"]] for step in details.get("structure", []) or []]
    groups += [m["marginal"] for m in details.get("measured_marginals", []) or []]
    pairs: list[tuple[str, str]] = []
    for group in groups:
        group = [c for c in group if c in columns]
        for i, a in enumerate(group):
            for b in group[i + 1 :]:
                pair = tuple(sorted((a, b), key=columns.index))
                if pair[0] != pair[1] and pair not in pairs:
                    pairs.append(pair)
    if not pairs:
        pairs = list(zip(columns, columns[1:]))
    return pairs[:limit]


def _half_l1(real_index: np.ndarray, synthetic_index: np.ndarray) -> float:
    """``1/2 sum |c_i - n q_i|`` over every cell either table uses (in records of the real table)."""
    n, m = len(real_index), len(synthetic_index)
    keys, inverse = np.unique(np.concatenate([real_index, synthetic_index]), return_inverse=True)
    real = np.bincount(inverse[:n], minlength=len(keys)).astype(float)
    synthetic = np.bincount(inverse[n:], minlength=len(keys)).astype(float)
    return float(0.5 * np.abs(real - n * synthetic / m).sum())


@dataclass
class ExactStatistics:
    """The true values the report's noise is added to. Private: never shown, stored or released.

    ``distances``: ``label -> (kind, half-L1 in records)`` with kind "one_way" or "two_way";
    ``shares``: ``column -> (labels, synthetic shares, true counts)`` over public cells;
    ``values``: per numeric or date column, :func:`.values.report_statistics` (exact values, no bins);
    ``pairs``: each pair's label -> its two columns (public: the report's choice).
    """

    rows: int
    synthetic_rows: int
    distances: dict
    shares: dict
    values: dict = field(default_factory=dict)
    pairs: dict = field(default_factory=dict)


def check_choices(domain, synthetic: pd.DataFrame, pairs=(), chart_columns=()) -> tuple[list, list]:
    """The report's public choices, checked before the data is read: ``(pairs, chart_columns)``."""
    names = list(as_table_domain(domain).kept)
    pairs = [tuple(p) for p in pairs]
    chart_columns = list(chart_columns)
    unknown = sorted(({c for p in pairs for c in p} | set(chart_columns)) - set(names))
    if unknown:
        raise ReportError(f"the report names {noun(len(unknown), 'column')} not in the release: {', '.join(unknown)}")
    if any(len(p) != 2 or p[0] == p[1] for p in pairs):
        raise ReportError("each pair must name two different columns")
    if len(synthetic) == 0:
        raise ReportError("the release has no rows, so there is nothing to compare")
    return pairs, chart_columns


def value_columns(domain) -> list[str]:
    """The columns whose exact values a report compares (numbers and dates: ``VALUE_STATISTICS`` each)."""
    return [name for name, col in as_table_domain(domain).kept.items() if col.kind in RANGE_KINDS]


def exact_statistics(
    real: pd.DataFrame, synthetic: pd.DataFrame, domain, *, pairs=(), chart_columns=()
) -> ExactStatistics:
    """The exact statistics behind a report (the only step that reads the real data)."""
    domain = as_table_domain(domain)
    names = list(domain.kept)
    pairs, chart_columns = check_choices(domain, synthetic, pairs, chart_columns)
    coded = paired_codes(real, synthetic, domain)
    distances = {name: ("one_way", _half_l1(coded[name].real, coded[name].synthetic)) for name in names}
    for a, b in pairs:
        width = np.int64(coded[b].cells)
        real_index = coded[a].real.astype(np.int64) * width + coded[b].real
        synthetic_index = coded[a].synthetic.astype(np.int64) * width + coded[b].synthetic
        distances[pair_name(a, b)] = ("two_way", _half_l1(real_index, synthetic_index))
    shares = {}
    for name in chart_columns:
        column = coded[name]
        synthetic_counts = np.bincount(column.synthetic, minlength=column.cells)
        cells = np.arange(column.cells)
        if not domain.kept[name].binned:
            # Text: the cells are the values of both tables, numbered in the real table's order, so only
            # values the public synthetic table holds are charted (its most common ones), listed by label.
            used = sorted(np.flatnonzero(synthetic_counts), key=lambda i: (-synthetic_counts[i], column.labels[i]))
            cells = np.asarray(sorted(used[:MAX_CHART_CELLS], key=lambda i: column.labels[i]), dtype=np.int64)
        elif column.cells > MAX_CHART_CELLS:  # chosen from the public synthetic table only
            cells = np.sort(np.argsort(-synthetic_counts, kind="stable")[:MAX_CHART_CELLS])
        shares[name] = (
            [str(column.labels[i]) for i in cells],
            (synthetic_counts[cells] / len(synthetic)).tolist(),
            np.bincount(column.real, minlength=column.cells)[cells],
        )
    values = {
        name: report_statistics(real[name], synthetic[name], domain.kept[name], markers=domain.missing_markers)
        for name in value_columns(domain)
    }
    return ExactStatistics(
        len(real), len(synthetic), distances, shares, values, {pair_name(a, b): (a, b) for a, b in pairs}
    )


@dataclass
class NoisyDraws:
    """The noise step's output for ``runs`` independent runs at once (arrays with a leading run axis).

    ``rows``: noisy row counts; ``distances``: ``label -> (value, low, high)``; ``shares``:
    ``column -> (value, low, high)``, each ``(runs, cells)``; ``values``: ``column -> (gap, shares)``,
    both ``(value, low, high)``. :func:`add_noise` takes one run;
    a coverage test takes thousands through the same code.
    """

    per_statistic: float
    rows: np.ndarray
    rows_margin: int
    distances: dict
    shares: dict
    values: dict = field(default_factory=dict)
    statements: int = 0


def draw_noise(exact: ExactStatistics, *, epsilon: float, noise, runs: int = 1, sensitivity: int = 1) -> NoisyDraws:
    """Every statistic with its noise and its interval, ``runs`` times (see the module docstring).

    Each of the ``k`` statistics gets ``epsilon / k``; all have sensitivity 1, so the noise
    scale is ``k / epsilon``. Intervals: :func:`ratio_interval` with each noise's margin at
    level ``(1 - CONFIDENCE) / 2`` (the row count's noise and the statistic's own). A chart's bars are
    shares of disjoint cells, so they are made each at least 0 and at most 1 in all (:func:`capped_shares`,
    free post-processing), each interval widened just enough to hold its bar (coverage unchanged). A pair's
    distance is raised to its columns' when below either (marginalising never increases a total variation
    distance: ``sum_a |sum_b d_ab| <= sum_ab |d_ab|``), its interval widened to hold it.
    """
    each = epsilon / measurement_count(exact.distances, exact.shares, exact.values)
    scale = sensitivity / each  # K for a person unit: one person moves each statistic by at most K
    level = (1 - CONFIDENCE) / 2
    rows = np.maximum(1, exact.rows + noise.discrete_laplace(runs, scale, label="report: row count"))
    rows_margin = discrete_laplace_margin(scale, level)
    labels = list(exact.distances)
    exact_values = np.array([exact.distances[k][1] for k in labels], dtype=float)
    noisy = real_laplace(noise, np.tile(exact_values, runs), scale, label="report: distances")
    noisy = noisy.reshape(runs, len(labels))
    value, low, high = ratio_interval(noisy, rows[:, None], laplace_margin(scale, level), rows_margin)
    distances = {k: (value[:, i], low[:, i], high[:, i]) for i, k in enumerate(labels)}
    for label, (a, b) in exact.pairs.items():  # two columns' joint distance is never below either's own
        joint, joint_low, joint_high = distances[label]
        distances[label] = contained(
            np.maximum(joint, np.maximum(distances[a][0], distances[b][0])), joint_low, joint_high
        )
    shares = {}  # a bar's count has the row count's noise and margin (discrete Laplace of the same scale)
    for name, (_, _, counts) in exact.shares.items():
        counts = np.asarray(counts, dtype=np.int64)
        drawn = noise.discrete_laplace(runs * counts.size, scale, label=f"report: shares of {name}")
        value, low, high = ratio_interval(
            counts + drawn.reshape(runs, counts.size), rows[:, None], rows_margin, rows_margin
        )
        shares[name] = contained(capped_shares(value), low, high)  # bars of disjoint cells: at most 1 in all
    family = statement_figures(exact.values)
    values = {
        name: value_noise(
            found, scale=scale, rows=rows, rows_margin=rows_margin, noise=noise, runs=runs, name=name, family=family
        )
        for name, found in exact.values.items()
    }
    return NoisyDraws(each, rows, rows_margin, distances, shares, values, family)


def measurement_count(distances, charts, values) -> int:
    """How many measurements share a report's budget: the row count, one per distance, one per charted column and
    :data:`VALUE_STATISTICS` per compared numeric or date column (the one count :func:`report_events` and
    :func:`draw_noise` split epsilon by)."""
    return 1 + len(distances) + len(charts) + VALUE_STATISTICS * len(values)


def report_events(epsilon: float, distances, charts, values=(), relation: str = ADD_REMOVE) -> list[PrivacyEvent]:
    """The report's privacy events, each ``epsilon / k`` under ``relation``: the row count, one per
    distance (``distances``: their labels), one per charted column and four per compared numeric column."""
    distances, charts, values = (list(dict.fromkeys(x)) for x in (distances, charts, values))
    each = epsilon / measurement_count(distances, charts, values)

    def event(mechanism: str, label: str) -> PrivacyEvent:
        return PrivacyEvent(mechanism, each, 0.0, relation, f"report: {label}")

    return (
        [event("discrete Laplace count", "row count")]
        + [event("Laplace on a distance (sensitivity 1)", f"distance of {d}") for d in distances]
        + [event("discrete Laplace histogram", f"shares of {c}") for c in charts]
        + [
            e
            for v in values
            for e in (
                event("Laplace on a distance (sensitivity 1)", f"largest gap between the value curves of {v}"),
                event("discrete Laplace histogram", f"shares of exact values of {v}"),
                event("Laplace on a clipped sum (sensitivity: the declared range)", f"mean of {v}"),
                event("discrete Laplace histogram", f"values around the synthetic quartiles of {v}"),
            )
        ]
    )


def report_charge(epsilon: float, domain, *, pairs=(), chart_columns=()) -> Spend:
    """What a report on a release over ``domain`` costs, from public choices only (before the data is
    read): the spend the ledger records for it (:func:`measure` spends exactly these events)."""
    domain = as_table_domain(domain)
    return Spend(
        tuple(
            report_events(
                epsilon,
                list(domain.kept) + [pair_name(a, b) for a, b in pairs],
                chart_columns,
                value_columns(domain),
                unit_relation(domain.person, ADD_REMOVE),
            )
        )
    )


def add_noise(exact: ExactStatistics, *, epsilon: float, random_state=None, unit=None) -> ReportFigures:
    """The mechanism's noise step: every statistic gets ``epsilon / k`` (see the module docstring).

    ``unit``: a :class:`~dpsynth_core.domain.PersonUnit` when ``exact`` was computed on rows bounded to
    ``K`` per person; one person then moves each statistic by at most ``K`` (K rows, each by at most 1),
    so every noise scale is ``K`` times larger and each statistic still costs ``epsilon / k`` per person.
    """
    if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon > 0):
        raise ReportError(f"report epsilon ({epsilon!r}) must be a number > 0")
    drawn = draw_noise(
        exact, epsilon=epsilon, noise=make_noise_source(random_state), sensitivity=1 if unit is None else unit.max_rows
    )
    accountant = Accountant(
        report_events(epsilon, exact.distances, exact.shares, exact.values, unit_relation(unit, ADD_REMOVE))
    )
    one_way, two_way = {}, {}
    for label, (value, low, high) in drawn.distances.items():
        target = one_way if exact.distances[label][0] == "one_way" else two_way
        target[label] = Estimate(float(value[0]), float(low[0]), float(high[0]))
    shares = {}
    for name, (cell_labels, synthetic_shares, _) in exact.shares.items():
        value, low, high = drawn.shares[name]
        shares[name] = {
            "labels": cell_labels,
            "synthetic": synthetic_shares,
            "real": value[0].tolist(),
            "low": low[0].tolist(),
            "high": high[0].tolist(),
        }
    values = {}
    for name, found in exact.values.items():
        values[name] = value_figures(name, found, drawn.values[name])
    return ReportFigures(
        epsilon=float(epsilon),
        per_statistic=drawn.per_statistic,
        rows=int(drawn.rows[0]),
        rows_margin=int(drawn.rows_margin),
        synthetic_rows=exact.synthetic_rows,
        one_way=one_way,
        two_way=two_way,
        shares=shares,
        values=values,
        events=list(accountant.events),
        statements=drawn.statements,
    )


def measure(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    domain,
    *,
    epsilon: float,
    pairs=(),
    chart_columns=(),
    random_state=None,
) -> ReportFigures:
    """The report's DP figures (see the module docstring for the mechanism and its proof).

    Args:
        real: the real table (read only through the noisy statistics).
        synthetic: the released synthetic table (public).
        domain: the declaration both tables are encoded over.
        epsilon: the report's budget, split equally over its statistics.
        pairs: column pairs for 2-way distances (chosen without looking at the data).
        chart_columns: columns whose real shares are measured for charts.
        random_state: None for the secure noise source; an int or Generator for tests.
    """
    domain = as_table_domain(domain)
    noise = make_noise_source(random_state)
    if domain.person is not None:  # the release's privacy unit: at most K random rows per person, then sensitivity K
        real = bound_rows(
            real, domain.person.column, domain.person.max_rows, noise.rng, ignore_case=domain.person.ignore_case
        )
    exact = exact_statistics(real, synthetic, domain, pairs=pairs, chart_columns=chart_columns)
    return add_noise(exact, epsilon=epsilon, random_state=noise, unit=domain.person)


# --- charts ------------------------------------------------------------------------------


# --- the document ------------------------------------------------------------------------


# --- PDF ---------------------------------------------------------------------------------
