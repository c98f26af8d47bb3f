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
  histogram (sensitivity 1).

Error bars come from the known noise law alone: a distance's interval holds with
probability at least 95% (a union bound over its own noise and the count's), a share's
interval is a 95% interval for that bar. Everything else in the report (card, synthetic
shares) is public. Noise is drawn through :mod:`dpsynth_core.noise` (secure by default).
"""

from __future__ import annotations

import html
import math
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .accounting import ADD_REMOVE, PrivacyEvent
from .card import render_card_html
from .domain import as_table_domain
from .errors import DPSynthError
from .metrics import paired_codes
from .noise import make_noise_source, real_laplace

#: Confidence of the error bars.
CONFIDENCE = 0.95
#: Most bars in a column's share chart (the synthetic table's most common cells beyond that).
MAX_CHART_CELLS = 24
#: Default share of a release's epsilon that a report spends.
DEFAULT_SHARE = 0.10
#: Default number of column pairs and of share charts.
DEFAULT_PAIRS = 6
DEFAULT_CHARTS = 4


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
        shares: per charted column: ``labels``, ``synthetic`` shares, DP ``real`` shares
            and their ``margin`` (half-width of each bar's 95% interval).
        events: the privacy events (one per statistic).
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

    def to_dict(self) -> dict:
        out = asdict(self)
        out["events"] = [e.as_dict() for e in self.events]
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "ReportFigures":
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
            for b in group[i + 1:]:
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


def laplace_margin(scale: float, level: float) -> float:
    """``t`` with ``P(|Z| > t) = level`` for Laplace noise of ``scale``."""
    return scale * math.log(1 / level)


def discrete_laplace_margin(scale: float, level: float) -> int:
    """Smallest whole ``k`` with ``P(|Z| >= k + 1) <= level`` for discrete Laplace of ``scale``.

    ``P(|Z| >= j) = 2 a**j / (1 + a)`` with ``a = exp(-1/scale)``.
    """
    a = math.exp(-1.0 / scale)
    j = math.ceil(math.log(level * (1 + a) / 2) / math.log(a))
    return max(0, j - 1)


@dataclass
class ExactStatistics:
    """The true values the report's noise is added to. Private: never shown, stored or released.

    ``distances``: ``label -> (kind, half-L1 in records)`` with kind "one_way" or "two_way";
    ``shares``: ``column -> (labels, synthetic shares, true counts)`` over public cells.
    """

    rows: int
    synthetic_rows: int
    distances: dict
    shares: dict


def exact_statistics(real: pd.DataFrame, synthetic: pd.DataFrame, domain, *, pairs=(),
                     chart_columns=()) -> ExactStatistics:
    """The exact statistics behind a report (the only step that reads the real data)."""
    domain = as_table_domain(domain)
    names = list(domain.kept)
    pairs = [tuple(p) for p in pairs]
    chart_columns = list(chart_columns)
    unknown = sorted(({c for p in pairs for c in p} | set(chart_columns)) - set(names))
    if unknown:
        raise ReportError(f"the report names column(s) not in the release: {', '.join(unknown)}")
    if any(len(p) != 2 or p[0] == p[1] for p in pairs):
        raise ReportError("each pair must name two different columns")
    if len(synthetic) == 0:
        raise ReportError("the release has no rows, so there is nothing to compare")
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
        shares[name] = ([str(column.labels[i]) for i in cells], (synthetic_counts[cells] / len(synthetic)).tolist(),
                        np.bincount(column.real, minlength=column.cells)[cells])
    return ExactStatistics(len(real), len(synthetic), distances, shares)


def add_noise(exact: ExactStatistics, *, epsilon: float, random_state=None) -> ReportFigures:
    """The mechanism's noise step: every statistic gets ``epsilon / k`` (see the module docstring)."""
    if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon > 0):
        raise ReportError(f"report epsilon ({epsilon!r}) must be a number > 0")
    noise = make_noise_source(random_state)
    count = 1 + len(exact.distances) + len(exact.shares)
    each = epsilon / count
    scale = 1.0 / each
    level = (1 - CONFIDENCE) / 2  # union bound: a distance's noise and the count's
    events = []

    def spend(mechanism: str, label: str) -> None:
        events.append(PrivacyEvent(mechanism, each, 0.0, ADD_REMOVE, f"report: {label}"))

    rows = max(1, exact.rows + int(noise.discrete_laplace(1, scale, label="report: row count")[0]))
    spend("discrete Laplace count", "row count")
    rows_margin = discrete_laplace_margin(scale, level)
    distance_margin = laplace_margin(scale, level)
    labels = list(exact.distances)
    noisy = real_laplace(noise, [exact.distances[k][1] for k in labels], scale, label="report: distances")
    one_way, two_way = {}, {}
    for label, value in zip(labels, noisy.tolist()):
        spend("Laplace on a distance (sensitivity 1)", f"distance of {label}")
        target = one_way if exact.distances[label][0] == "one_way" else two_way
        target[label] = Estimate(min(1.0, max(0.0, value / rows)),
                                 min(1.0, max(0.0, (value - distance_margin) / (rows + rows_margin))),
                                 min(1.0, max(0.0, (value + distance_margin) / max(1, rows - rows_margin))))
    shares = {}
    bar_margin = discrete_laplace_margin(scale, (1 - CONFIDENCE) / 2)
    for name, (cell_labels, synthetic_shares, counts) in exact.shares.items():
        noisy_counts = counts + noise.discrete_laplace(len(counts), scale, label=f"report: shares of {name}")
        spend("discrete Laplace histogram", f"shares of {name}")
        shares[name] = {"labels": cell_labels, "synthetic": synthetic_shares,
                        "real": np.clip(noisy_counts / rows, 0, None).tolist(), "margin": bar_margin / rows}
    return ReportFigures(epsilon=float(epsilon), per_statistic=each, rows=int(rows), rows_margin=int(rows_margin),
                         synthetic_rows=exact.synthetic_rows, one_way=one_way, two_way=two_way, shares=shares,
                         events=events)


def measure(real: pd.DataFrame, synthetic: pd.DataFrame, domain, *, epsilon: float, pairs=(),
            chart_columns=(), random_state=None) -> ReportFigures:
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
    exact = exact_statistics(real, synthetic, domain, pairs=pairs, chart_columns=chart_columns)
    return add_noise(exact, epsilon=epsilon, random_state=random_state)


# --- charts ------------------------------------------------------------------------------

_INK = "#1b1b1b"
_SYNTHETIC = "#e07b24"
_REAL = "#1f5fa8"


def _svg(chart) -> str:
    import vl_convert

    return vl_convert.vegalite_to_svg(chart.to_dict())


def _configure(chart):
    return (chart.configure_axis(labelFontSize=13, titleFontSize=13, labelColor=_INK, titleColor=_INK,
                                 labelLimit=260, grid=False)
            .configure_view(stroke=None).configure_title(fontSize=15, anchor="start", color=_INK)
            .configure_legend(labelFontSize=13, titleFontSize=13, orient="bottom"))


def distance_chart(estimates: dict, title: str):
    """Horizontal bars of estimated distances with their 95% intervals, value printed past the bar."""
    import altair as alt

    frame = pd.DataFrame([{"what": k, "value": v.value, "low": v.low, "high": v.high,
                           "text": f"{v.value:.3f}"} for k, v in estimates.items()])
    top = max([0.1] + [v.high * 1.25 for v in estimates.values()])
    x = alt.X("value:Q", title="distance between real and synthetic (0 = identical)",
              scale=alt.Scale(domain=[0, top], nice=False))
    y = alt.Y("what:N", sort=None, title=None)
    bars = alt.Chart(frame).mark_bar(color=_SYNTHETIC, height=16).encode(x=x, y=y)
    whiskers = alt.Chart(frame).mark_rule(color=_INK, strokeWidth=2).encode(x="low:Q", x2="high:Q", y=y)
    labels = alt.Chart(frame).mark_text(align="left", dx=6, fontSize=12, color=_INK).encode(
        x="high:Q", y=y, text="text:N")
    height = max(60, 26 * len(frame))
    return _configure(alt.layer(bars, whiskers, labels).properties(title=title, width=520, height=height))


def shares_chart(name: str, data: dict):
    """Synthetic shares as bars, DP real shares as dots with their 95% interval per bar."""
    import altair as alt

    frame = pd.DataFrame({"value": data["labels"], "synthetic": data["synthetic"], "real": data["real"]})
    frame["low"] = (frame["real"] - data["margin"]).clip(lower=0)
    frame["high"] = frame["real"] + data["margin"]
    x = alt.X("value:N", sort=None, title=None, axis=alt.Axis(labelAngle=-40, labelLimit=140))
    bars = alt.Chart(frame).mark_bar(color=_SYNTHETIC, opacity=0.85).encode(
        x=x, y=alt.Y("synthetic:Q", title="share of rows", axis=alt.Axis(format="%")))
    rules = alt.Chart(frame).mark_rule(color=_REAL, strokeWidth=2).encode(x=x, y="low:Q", y2="high:Q")
    dots = alt.Chart(frame).mark_point(color=_REAL, filled=True, size=45).encode(x=x, y="real:Q")
    width = max(260, min(620, 30 * len(frame)))
    return _configure(alt.layer(bars, rules, dots).properties(title=f"{name}: synthetic (bars) and real "
                                                                    "(dots, with noise)", width=width, height=180))


# --- the document ------------------------------------------------------------------------

_STYLE = """
@page { size: A4; margin: 16mm 14mm; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; font-size: 15px; }
h1 { font-size: 1.7rem; margin-bottom: .2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0; }
td, th { border: 1px solid #ddd; padding: .35rem .55rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.summary { background: #eef3fa; border-left: 6px solid #1f5fa8; padding: .8rem 1rem; }
.figure { break-inside: avoid; page-break-inside: avoid; margin: 1rem 0; }
.figure svg { max-width: 100%; height: auto; }
.muted { color: #555; font-size: .92rem; }
.card { border-top: 3px solid #1b1b1b; margin-top: 2.5rem; }
.guarantee { background: #eef6ee; border-left: 6px solid #2e7d32; padding: 1rem; }
.guarantee.none { background: #fdecea; border-left-color: #c62828; }
"""


def _card_body(card: dict) -> str:
    page = render_card_html(card)
    match = re.search(r"<body>(.*)</body>", page, re.S)
    body = match.group(1) if match else ""
    return body.replace("<h1>", "<h2>").replace("</h1>", "</h2>")


def _rows(estimates: dict) -> str:
    return "".join(f"<tr><td>{html.escape(k)}</td><td class='num'>{v.value:.3f}</td>"
                   f"<td class='num'>{v.low:.3f} to {v.high:.3f}</td></tr>" for k, v in estimates.items())


def render_html(card: dict, figures: ReportFigures, *, total: str | None = None) -> str:
    """The report as one self-contained HTML page (charts inline as SVG, no scripts, no links out).

    ``total``: a sentence on what the release and the report cost together (optional).
    """
    e = html.escape
    g = card["guarantee"]
    release_eps = "none (no guarantee)" if g["epsilon"] is None else f"ε = {g['epsilon']:.3g}"
    dataset = card["domain"].get("dataset")
    title = f"Quality report: the synthetic {dataset} table" if dataset else "Quality report: a synthetic table"
    mean_one = float(np.mean([v.value for v in figures.one_way.values()])) if figures.one_way else float("nan")
    worst = max(figures.one_way.items(), key=lambda kv: kv[1].value) if figures.one_way else None
    pieces = [f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>
<style>{_STYLE}</style></head><body>
<h1>{e(title)}</h1>
<p class="muted">Made with {e(card['software']['name'])} {e(card['software']['version'])}. Release made
{e(card['created'])}; method: {e(card['method']['title'])}; {e(release_eps)}.</p>
<div class="summary">
<p><b>In short.</b> Across the {len(figures.one_way)} columns, the synthetic table's distribution is on average
<b>{mean_one:.3f}</b> away from the real one (0 = identical, 1 = nothing in common)"""
              + (f"; the furthest column is <b>{e(worst[0])}</b> at {worst[1].value:.3f}" if worst else "")
              + f""".</p>
<p>Every figure below that describes the real data was itself measured with differential privacy, from a
budget of <b>ε = {figures.epsilon:.3g}</b> set aside for this report (each of its
{len(figures.events)} measurements gets ε = {figures.per_statistic:.3g}). This report can therefore be
shared like the synthetic data itself.{(' ' + e(total)) if total else ''}</p>
</div>
<h2>How to read it</h2>
<p>The <b>distance</b> between two distributions (total variation distance) is the share of records that would
have to change value for the synthetic column to match the real one. 0 means identical, 1 means nothing in
common; below 0.05 is close, above 0.2 is far. Each bar carries an <b>error bar</b>: the real-data side was
measured with noise, so the true distance lies inside the bar's interval with probability at least
{CONFIDENCE:.0%}.</p>
<h2>What each number covers</h2>
<ul>
<li><b>The synthetic data and the release card</b> (at the end): covered by the release's own guarantee
({e(release_eps)}).</li>
<li><b>The distances and the real shares in this report</b>: computed from the real data with their own noise
(ε = {figures.epsilon:.3g}, adding or removing one record), recorded in the data's privacy ledger. A distance is
estimated as a noisy distance in records divided by a noisy row count
({figures.rows:,} ± {figures.rows_margin:,}); its interval accounts for both noises (at least
{CONFIDENCE:.0%}). The intervals describe the measurement noise only, not the randomness of the synthesis.</li>
<li><b>The synthetic shares</b>: read off the synthetic table ({figures.synthetic_rows:,} rows), which is
public; they cost nothing.</li>
<li><b>Not in this report</b>: the publisher's preview charts (fidelity, exact distances, distinguishing
game), which compare with the real data without noise and stay private.</li>
</ul>
<h2>1. Each column on its own</h2>
<div class="figure">{_svg(distance_chart(figures.one_way, "Distance per column (95% intervals)"))}</div>
<table><tr><th>column</th><th>distance</th><th>95% interval</th></tr>{_rows(figures.one_way)}</table>
"""]
    if figures.two_way:
        pieces.append(f"""<h2>2. Pairs of columns together</h2>
<p>The same distance for the joint distribution of two columns: it grows when a relationship between the two
(say, age and marital status) is not kept.</p>
<div class="figure">{_svg(distance_chart(figures.two_way, "Distance per pair of columns (95% intervals)"))}</div>
<table><tr><th>pair</th><th>distance</th><th>95% interval</th></tr>{_rows(figures.two_way)}</table>
""")
    if figures.shares:
        pieces.append(f"""<h2>{3 if figures.two_way else 2}. Values of selected columns</h2>
<p>Bars: the share of synthetic rows with each value. Dots: the real share, measured with noise, with a
{CONFIDENCE:.0%} interval for each dot (rare values can show a real share near zero: the noise hides
them on purpose). Columns with many values show the synthetic table's {MAX_CHART_CELLS} most common ones.</p>
""")
        for name, data in figures.shares.items():
            pieces.append(f'<div class="figure">{_svg(shares_chart(name, data))}</div>\n')
    spends = "".join(f"<tr><td>{e(ev.label.removeprefix('report: '))}</td><td>{e(ev.mechanism)}</td>"
                     f"<td class='num'>{ev.epsilon:.3g}</td></tr>" for ev in figures.events)
    pieces.append(f"""<h2>The report's own privacy budget</h2>
<table><tr><th>what was measured</th><th>how</th><th>ε</th></tr>{spends}</table>
<div class="card">{_card_body(card)}</div>
</body></html>
""")
    return "".join(pieces)


# --- PDF ---------------------------------------------------------------------------------

def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def html_to_pdf(page: str, *, chromium: str | None = None, timeout: float = 90) -> bytes:
    """Print an HTML page to PDF with headless Chromium (the page has no scripts and loads nothing)."""
    executable = chromium or find_chromium()
    if executable is None:
        raise ReportError("making a PDF needs Chromium (Debian/Ubuntu: apt-get install chromium); "
                          "the HTML report can also be printed to PDF from any browser")
    with tempfile.TemporaryDirectory(prefix="dpsynth-report-") as folder:
        source, target = Path(folder) / "report.html", Path(folder) / "report.pdf"
        source.write_text(page, encoding="utf-8")
        command = [executable, "--headless", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync",
                   f"--user-data-dir={Path(folder) / 'profile'}", "--no-pdf-header-footer",
                   f"--print-to-pdf={target}", source.as_uri()]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        try:
            subprocess.run(command, capture_output=True, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as problem:
            raise ReportError(f"Chromium could not print the report: {problem}") from None
        if not target.exists() or target.stat().st_size == 0:
            raise ReportError("Chromium did not produce a PDF; the HTML report can be printed from any browser")
        return target.read_bytes()
