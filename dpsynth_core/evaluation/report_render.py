"""Rendering a stakeholder report: charts as SVG, the HTML page, and its PDF through headless Chromium.

Nothing here reads data: it draws the DP figures that :mod:`.report` measured and the public card.
"""

from __future__ import annotations

import functools
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ..release.card import render_card_html
from ..wording import counted, short_names, value_texts
from .report import CONFIDENCE, MAX_CHART_CELLS, ReportError, ReportFigures
from .shape_words import more_columns, worst_shapes
from .values import EXACT_DIGITS


def total_sentence(card: dict, epsilon: float) -> str | None:
    """What the release and its report cost together (None for a release without a guarantee)."""
    from ..wording import format_epsilon

    release = card["guarantee"]["epsilon"]
    return (
        None
        if release is None
        else (f"Release and report together: ε = {format_epsilon(release + epsilon)} by adding up.")
    )


_INK = "#1b1b1b"


_SYNTHETIC = "#e07b24"


_REAL = "#1f5fa8"


#: Said in place of each chart when the chart engine cannot start (the figures stay in the tables).
CHART_LEFT_OUT = (
    '<p class="note">Chart left out: the chart engine could not start on this machine (too little memory '
    "or address space for it). Every figure it would draw is in the table beside it.</p>"
)


@functools.cache
def chart_engine_starts() -> bool:
    """Whether vl-convert's JavaScript engine (V8) can start in this process.

    V8 reserves a large address space and aborts the whole process, with a C stack trace, when it
    cannot (``ulimit -v``). Where the address space is limited, it is tried first in a child
    process with the same limits: the report then renders without charts instead of crashing.
    """
    import resource

    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return True
    probe = "import vl_convert; vl_convert.vegalite_to_svg({'mark': 'point', 'data': {'values': [{}]}})"
    try:
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _svg(chart) -> str:
    if not chart_engine_starts():
        return CHART_LEFT_OUT
    import vl_convert

    return vl_convert.vegalite_to_svg(chart.to_dict())


def _configure(chart):
    return (
        chart.configure_axis(
            labelFontSize=13, titleFontSize=13, labelColor=_INK, titleColor=_INK, labelLimit=260, grid=False
        )
        .configure_view(stroke=None)
        .configure_title(fontSize=15, anchor="start", color=_INK)
        .configure_legend(labelFontSize=13, titleFontSize=13, orient="bottom")
    )


def _shown(keys: list) -> list[str]:
    """Columns' or pairs' names short enough for the chart (:func:`~dpsynth_core.wording.short_names`: a survey's
    long names keep their start and their distinct end), each column of a pair shortened on its own."""
    parts = [str(k).split(" × ") for k in keys]
    if keys and all(len(p) == 2 for p in parts):
        lefts, rights = (short_names([p[i] for p in parts], 15) for i in (0, 1))
        return [f"{left} × {right}" for left, right in zip(lefts, rights, strict=True)]
    return short_names(keys, 30)  # within the axis' label limit (260 pixels at 13 points), which cuts at the end


def distance_chart(estimates: dict, title: str):
    """Horizontal bars of estimated distances with their 95% intervals, value printed past the bar."""
    import altair as alt

    frame = pd.DataFrame(
        [
            {"what": shown, "value": v.value, "low": v.low, "high": v.high, "text": f"{v.value:.3f}"}
            for shown, v in zip(_shown(list(estimates)), estimates.values(), strict=True)
        ]
    )
    top = max([0.1] + [v.high * 1.25 for v in estimates.values()])
    x = alt.X(
        "value:Q",
        title="distance between real and synthetic (0 = identical)",
        scale=alt.Scale(domain=[0, top], nice=False),
    )
    y = alt.Y("what:N", sort=None, title=None)
    bars = alt.Chart(frame).mark_bar(color=_SYNTHETIC, height=16).encode(x=x, y=y)
    whiskers = alt.Chart(frame).mark_rule(color=_INK, strokeWidth=2).encode(x="low:Q", x2="high:Q", y=y)
    labels = (
        alt.Chart(frame).mark_text(align="left", dx=6, fontSize=12, color=_INK).encode(x="high:Q", y=y, text="text:N")
    )
    height = max(60, 26 * len(frame))
    return _configure(alt.layer(bars, whiskers, labels).properties(title=title, width=520, height=height))


def shares_chart(name: str, data: dict):
    """Synthetic shares as bars, DP real shares as dots with their 95% interval per bar."""
    import altair as alt

    frame = pd.DataFrame({"value": data["labels"], "synthetic": data["synthetic"], "real": data["real"]})
    if "low" in data:
        frame["low"], frame["high"] = data["low"], data["high"]
    else:  # a report made before the intervals counted the row count's noise
        frame["low"], frame["high"] = (frame["real"] - data["margin"]).clip(lower=0), frame["real"] + data["margin"]
    x = alt.X("value:N", sort=None, title=None, axis=alt.Axis(labelAngle=-40, labelLimit=140))
    bars = (
        alt.Chart(frame)
        .mark_bar(color=_SYNTHETIC, opacity=0.85)
        .encode(x=x, y=alt.Y("synthetic:Q", title="share of rows", axis=alt.Axis(format=".1~%")))
    )
    rules = alt.Chart(frame).mark_rule(color=_REAL, strokeWidth=2).encode(x=x, y="low:Q", y2="high:Q")
    dots = alt.Chart(frame).mark_point(color=_REAL, filled=True, size=45).encode(x=x, y="real:Q")
    width = max(260, min(620, 30 * len(frame)))
    return _configure(
        alt.layer(bars, rules, dots).properties(
            title=f"{name}: synthetic (bars) and real (dots, with noise)", width=width, height=180
        )
    )


_STYLE = """
@page { size: A4; margin: 16mm 14mm; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; font-size: 15px; }
h1 { font-size: 1.7rem; margin-bottom: .2rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #ccc; }
h1, h2, h3 { break-after: avoid; page-break-after: avoid; }
h2 + p { break-before: avoid; }
table { border-collapse: collapse; width: 100%; margin: .6rem 0; }
td, th { border: 1px solid #ddd; padding: .35rem .55rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.summary { background: #eef3fa; border-left: 6px solid #1f5fa8; padding: .8rem 1rem; }
.figure { break-inside: avoid; page-break-inside: avoid; margin: 1rem 0; }
.figure svg { max-width: 100%; height: auto; }
.muted { color: #555; font-size: .92rem; }
.warning { border: 2px solid #b00020; padding: .6rem .9rem; background: #fff4f4; }
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
    return "".join(
        f"<tr><td>{html.escape(k)}</td><td class='num'>{v.value:.3f}</td>"
        f"<td class='num'>{v.low:.3f} to {v.high:.3f}</td></tr>"
        for k, v in estimates.items()
    )


def _noise_summary(figures: ReportFigures) -> str:
    """A sentence when the report's noise is as large as its distances (intervals half of [0, 1] wide on
    average): the point figures then say little, whatever they are (a small table or a small epsilon)."""
    spans = [v.high - v.low for v in figures.one_way.values()]
    if not spans or float(np.mean(spans)) < 0.5:
        return ""
    return (
        f" <b>At this report's ε the noise is as large as the distances:</b> their intervals span "
        f"{float(np.mean(spans)):.2f} on average (the real row count is {figures.rows:,} ± "
        f"{figures.rows_margin:,}), so these point figures say little; a larger ε for the report narrows them."
    )


def _shape_summary(figures: ReportFigures) -> str:
    """The summary's warning: numeric columns whose values changed shape, in plain words (DP figures)."""
    sentences, others = worst_shapes(figures.values, lambda v: v.get("gap", {}).get("value", 0.0))
    if not sentences:
        return ""
    rest = f"; {more_columns(others)} (see the table of numbers and dates value by value)" if others else ""
    return (
        "<p><b>Values that changed shape</b>, most changed first (the distances over bins above can look small for "
        "these): " + "; ".join(html.escape(s) for s in sentences) + html.escape(rest) + ".</p>"
    )


def _statements_note(figures: ReportFigures) -> str:
    """How far the plain statements of change can be trusted together (Bonferroni over their figures)."""
    count = getattr(figures, "statements", 0)
    if not count:
        return ""
    return (
        f" Each interval is {CONFIDENCE:.0%}; the plain statements that something changed hold together at "
        f"{CONFIDENCE:.0%}: each is checked against a wider interval ({1 - (1 - CONFIDENCE) / count:.2%}) so that "
        f"over all {count} figures they are drawn from, none is wrong with probability at least {CONFIDENCE:.0%}."
    )


def _point(value) -> str:
    """An exact value or a quartile of a column as the report prints it: a real number to six significant digits
    (39.0844, not 39.08435137840196), anything else as it is; escaped for HTML."""
    return html.escape(f"{value:.{EXACT_DIGITS}g}" if isinstance(value, float) else str(value))


def _values_section(number: int, values: dict) -> str:
    """Numbers and dates value by value: the largest gap between the curves and a few exact values' shares."""
    rows = []
    for name, v in values.items():
        gap = v["gap"]
        shares = "; ".join(
            f"{_point(x)}: {r:.1%} ({lo:.1%} to {hi:.1%}) vs {s:.1%}"
            for x, r, lo, hi, s in zip(v["values"], v["real"], v["low"], v["high"], v["synthetic"])
        )
        mean = v.get("mean")
        middle = ""
        if mean:
            middle = "{} ({} to {}) vs {}<br>".format(
                *value_texts(mean[k] for k in ("value", "low", "high", "synthetic"))
            )
        clamped = v.get("clamped")
        if clamped:
            middle += (
                f"outside the declared range: {clamped['value']:.1%} ({clamped['low']:.1%} to "
                f"{clamped['high']:.1%})<br>"
            )
        middle += "<br>".join(
            f"{_point(q['point'])}: {q['real']:.0%} ({q['low']:.0%} to {q['high']:.0%}) vs {q['synthetic']:.0%}"
            for q in v.get("quartiles", [])
        )
        rows.append(
            f"<tr><td>{html.escape(name)}</td><td class='num'>{gap['value']:.3f}<br>"
            f"<span class='muted'>{gap['low']:.3f} to {gap['high']:.3f}</span></td><td>{middle}</td>"
            f"<td>{shares}</td><td>{'changed' if v.get('shape') else 'kept'}</td></tr>"
        )
    return f"""<h2>{number}. Numbers and dates value by value</h2>
<p>Bins can hide a change inside them (a value held by many people spread over its bin). Here exact values are
compared: the <b>largest gap</b> between the real and synthetic distribution functions (the share of rows on
different sides of some value; 0 = the same spread), and the real share of a few exact values (the synthetic
table's most common ones and the declared special values) against their synthetic share; the <b>mean</b> (real,
its interval, vs synthetic; its noise grows with the declared range) and, at each of the synthetic table's
quartiles, the share of real values at or below it against the synthetic share (25%, 50%, 75%). Each real figure
is measured with noise ({CONFIDENCE:.0%} intervals). The real figures are of the values <b>as the release reads
them: clamped to the declared range</b> (a value above the declared maximum counts as the maximum), so a real
mean beside a column with many values outside its range is the mean of the clamped values, not of the raw
ones. How many were clamped is measured too (<b>outside the declared range</b>: the share of the values
present, with its interval, from the same noisy count), so a large share says the mean and the shares are
of a range narrower than the data's.</p>
<table><tr><th>column</th><th>largest gap (95% interval)</th><th>mean of the clamped values; the share
outside the declared range; values at or below each synthetic quartile: real (interval) vs synthetic</th>
<th>value: real share (interval) vs synthetic</th>
<th>shape</th></tr>{"".join(rows)}</table>
"""


#: Said at the top of a report whose noise came from a fixed seed: nothing about it is private.
SEEDED_REPORT = (
    "This report was measured with a fixed random seed (for tests and teaching only): anyone who knows the "
    "seed can remove its noise, so its figures are <b>not private</b> and it must not be shared. It is "
    "recorded in the ledger as having no guarantee."
)


def _columns_measured(card: dict, figures: ReportFigures) -> str:
    """The columns a report compares, in words, saying so when they are some of its release's only."""
    released = sum(1 for column in card["domain"]["columns"] if column["kind"] != "drop")
    measured = counted(len(figures.one_way), "column")
    if len(figures.one_way) >= released:
        return measured
    return (
        f"{measured} it measures (of the release's {released:,}, chosen before anything was measured: the others "
        "are not compared here)"
    )


def render_html(card: dict, figures: ReportFigures, *, total: str | None = None, seeded: bool = False) -> str:
    """The report as one self-contained HTML page (charts inline as SVG, no scripts, no links out).

    ``total``: a sentence on what the release and the report cost together (optional); ``seeded``: its
    noise came from a fixed seed, which the page says at its top (:data:`SEEDED_REPORT`) instead of
    calling its figures private.
    """
    e = html.escape
    g = card["guarantee"]
    release_eps = "none (no guarantee)" if g["epsilon"] is None else f"ε = {g['epsilon']:.3g}"
    dataset = card["domain"].get("dataset")
    # "of adult", so that a shared copy, the file's name replaced by "the data", reads "of the data"
    title = f"Quality report: the synthetic table of {dataset}" if dataset else "Quality report: a synthetic table"
    mean_one = float(np.mean([v.value for v in figures.one_way.values()])) if figures.one_way else float("nan")
    worst = max(figures.one_way.items(), key=lambda kv: kv[1].value) if figures.one_way else None
    pieces = [
        f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>
<style>{_STYLE}</style></head><body>
<h1>{e(title)}</h1>
{f'<p class="warning"><b>Not private.</b> {SEEDED_REPORT}</p>' if seeded else ""}
<p class="muted">Made with {e(card["software"]["name"])} {e(card["software"]["version"])}. Release made
{e(card["created"])}; method: {e(card["method"]["title"])}; {e(release_eps)}.</p>
<div class="summary">
<p><b>In short.</b> Across the {_columns_measured(card, figures)}, the synthetic table's distribution is on average
<b>{mean_one:.3f}</b> away from the real one (0 = identical, 1 = nothing in common)"""
        + (
            f"; the furthest column is <b>{e(worst[0])}</b> at {worst[1].value:.3f} ({CONFIDENCE:.0%} interval "
            f"{worst[1].low:.3f} to {worst[1].high:.3f})"
            if worst
            else ""
        )
        + f""".{_noise_summary(figures)}</p>{_shape_summary(figures)}
<p>Every figure below that describes the real data was itself measured with differential privacy, from a
budget of <b>ε = {figures.epsilon:.3g}</b> set aside for this report (each of its
{len(figures.events)} measurements gets ε = {figures.per_statistic:.3g}). {
            "Its noise, though, came from a fixed seed: see the warning above."
            if seeded
            else "This report can therefore be shared like the synthetic data itself."
        }{(" " + e(total)) if total and not seeded else ""}</p>
</div>
<h2>How to read it</h2>
<p>The <b>distance</b> between two distributions (total variation distance) is the share of records that would
have to change value for the synthetic column to match the real one. 0 means identical, 1 means nothing in
common; below 0.05 is close, above 0.2 is far. Each bar carries an <b>error bar</b>: the real-data side was
measured with noise, so the true distance lies inside the bar's interval with probability at least
{CONFIDENCE:.0%}.{_statements_note(figures)}</p>
<h2>What each number covers</h2>
<ul>
<li><b>The synthetic data and the release card</b> (at the end): covered by the release's own guarantee
({e(release_eps)}).</li>
<li><b>The distances and the real shares in this report</b>: computed from the real data with their own noise
(ε = {figures.epsilon:.3g}, adding or removing one record), recorded in the data's privacy ledger. A distance
(or a real share) is estimated as a noisy distance (or count) in records divided by a noisy row count
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
"""
    ]
    if figures.two_way:
        pieces.append(f"""<h2>2. Pairs of columns together</h2>
<p>The same distance for the joint distribution of two columns: it grows when a relationship between the two
(say, age and marital status) is not kept.</p>
<div class="figure">{_svg(distance_chart(figures.two_way, "Distance per pair of columns (95% intervals)"))}</div>
<table><tr><th>pair</th><th>distance</th><th>95% interval</th></tr>{_rows(figures.two_way)}</table>
""")
    section = 3 if figures.two_way else 2
    if figures.values:
        pieces.append(_values_section(section, figures.values))
        section += 1
    if figures.shares:
        pieces.append(f"""<h2>{section}. Values of selected columns</h2>
<p>Bars: the share of synthetic rows with each value. Dots: the real share, measured with noise, with a
{CONFIDENCE:.0%} interval for each dot (rare values can show a real share near zero: the noise hides
them on purpose). Columns with many values show the synthetic table's {MAX_CHART_CELLS} most common ones.</p>
""")
        for name, data in figures.shares.items():
            pieces.append(f'<div class="figure">{_svg(shares_chart(name, data))}</div>\n')
    spends = "".join(
        f"<tr><td>{e(ev.label.removeprefix('report: '))}</td><td>{e(ev.mechanism)}</td>"
        f"<td class='num'>{ev.epsilon:.3g}</td></tr>"
        for ev in figures.events
    )
    pieces.append(f"""<h2>The report's own privacy budget</h2>
<table><tr><th>what was measured</th><th>how</th><th>ε</th></tr>{spends}</table>
<div class="card"><p class="muted">The release card below is as it was written at the draw: its count of draws and
reports on these records, and what they had spent, stand as they did then. This report is one more (its own budget
above).</p>{_card_body(card)}</div>
</body></html>
""")
    return "".join(pieces)


NO_CHROMIUM = (
    "making a PDF needs Chromium (Debian/Ubuntu: apt-get install chromium); "
    "the HTML report can also be printed to PDF from any browser"
)


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
        raise ReportError(NO_CHROMIUM)
    with tempfile.TemporaryDirectory(prefix="dpsynth-report-") as folder:
        source, target = Path(folder) / "report.html", Path(folder) / "report.pdf"
        source.write_text(page, encoding="utf-8")
        command = [
            executable,
            "--headless",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={Path(folder) / 'profile'}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={target}",
            source.as_uri(),
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        try:
            subprocess.run(command, capture_output=True, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as problem:
            raise ReportError(f"Chromium could not print the report: {problem}") from None
        if not target.exists() or target.stat().st_size == 0:
            raise ReportError("Chromium did not produce a PDF; the HTML report can be printed from any browser")
        return target.read_bytes()
