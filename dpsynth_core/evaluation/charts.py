"""Chart builders: plain functions that return plotly figures, readable on a projector.

Each figure has a title, labelled axes and large type. The app draws them; tests build
them without Streamlit.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..privacy.cathist import cathist_tau
from ..wording import counted, short_names
from .metrics import MISSING_CELL

REAL = "#1f5fa8"
SYNTHETIC = "#e07b24"
FONT = dict(family="Source Sans Pro, Arial, sans-serif", size=17, color="#1b1b1b")


def _style(fig: go.Figure, title: str, x: str, y: str, height: int = 440) -> go.Figure:
    fig.update_layout(
        title=dict(text=title, font=dict(size=22)),
        font=FONT,
        height=height,
        margin=dict(l=70, r=30, t=70, b=70),
        plot_bgcolor="white",
        legend=dict(font=dict(size=16), orientation="h", y=-0.2),
    )
    ticks = dict(size=15, color="#1b1b1b")
    fig.update_xaxes(
        title_text=x,
        showgrid=False,
        linecolor="#888",
        automargin=True,
        tickfont=ticks,
        title_font=dict(size=17, color="#1b1b1b"),
    )
    fig.update_yaxes(
        title_text=y,
        gridcolor="#e6e6e6",
        linecolor="#888",
        automargin=True,
        tickfont=ticks,
        title_font=dict(size=17, color="#1b1b1b"),
    )
    return fig


#: Tick labels longer than this (a group of days, a date with its time) stand tall under the axis: the legend then
#: goes above the chart, on its right, rather than under it among them ...
LONG_TICK = 12
#: ... as it does when the labels together are longer than this many characters (two spaces between them), which
#: the axis cannot lay flat either: 28 surnames of up to 11 letters stood tall under the legend, two cut in half.
FLAT_TICKS = 80


def _legend_clear_of(fig: go.Figure, names: list) -> go.Figure:
    """The legend above the chart, on its right, when the axis labels stand tall under it (:data:`LONG_TICK`,
    :data:`FLAT_TICKS`)."""
    if names and (max(len(n) for n in names) > LONG_TICK or sum(len(n) + 2 for n in names) > FLAT_TICKS):
        fig.update_layout(legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1.0, xanchor="right"))
    return fig


def _two_lines(label: str, width: int = 34) -> str:
    """A label in its words on up to two lines of about ``width`` characters (a hyphenated name kept whole)."""
    return "<br>".join(textwrap.wrap(label, width, max_lines=2, placeholder=" …", break_on_hyphens=False))


#: Bars of columns whose values changed shape (a frequent value lost, the mean moved), whatever their bins say.
CHANGED = "#c62828"


def _marks(names, values, colour, flagged, digits: int):
    """Bar colours and texts: a column in ``flagged`` is red and says its values changed."""
    return (
        [CHANGED if n in flagged else colour for n in names],
        [f"{v:.{digits}f}" + (" ⚠" if n in flagged else "") for n, v in zip(names, values)],
    )


#: Above this many columns, a chart of one bar per column lies on its side: a row per column, every name on the
#: axis (standing up, plotly names every other column of 54 and shrinks the values over the bars past reading).
SIDEWAYS_COLUMNS = 20


def _column_chart(names, values, colours, texts, top: float, title: str, value_title: str) -> go.Figure:
    """One bar per column, named on the axis by :func:`~dpsynth_core.wording.short_names` (a survey's long names
    differ at their end) and in full on hover, values on a 0-``top`` axis; on its side, in the columns' order from
    the top, beyond :data:`SIDEWAYS_COLUMNS` columns."""
    sideways = len(names) > SIDEWAYS_COLUMNS
    shown = short_names(names)
    bar = go.Bar(
        x=values if sideways else shown,
        y=shown if sideways else values,
        orientation="h" if sideways else "v",
        customdata=names,
        hovertemplate="%{customdata}: %{" + ("x" if sideways else "y") + ":.3f}<extra></extra>",
        marker_color=colours,
        text=texts,
        textposition="outside",
        cliponaxis=False,
    )
    fig = go.Figure(bar)
    if not sideways:
        fig.update_yaxes(range=[0, top])
        longest = max((len(str(x)) for x in shown), default=0)  # room under the bars, which plotly's axis cuts
        return _style(fig, title, "column", value_title, max(440, 260 + 9 * longest))
    fig.update_xaxes(range=[0, top * 1.08])  # room for the longest bar's value
    fig.update_yaxes(autorange="reversed", tickmode="linear", dtick=1)
    fig.update_layout(uniformtext=dict(minsize=13, mode="show"))
    return _style(fig, title, value_title, "", height=30 * len(names) + 170)


def fidelity_chart(fidelity: dict[str, float], flagged=()) -> go.Figure:
    """Bars of fidelity F per column, on a 0-1 axis; ``flagged`` columns (values changed shape) in red."""
    names = list(fidelity)
    values = [fidelity[n] for n in names]
    colours, texts = _marks(names, values, REAL, set(flagged), 2)
    title = "Fidelity F per column (1 = the same values kept)"
    return _column_chart(names, values, colours, texts, 1.1, title, "fidelity F")


def one_way_chart(distances: dict[str, float], flagged=()) -> go.Figure:
    """Bars of the 1-way total variation distance per column; ``flagged`` columns (values changed shape) in red."""
    names = list(distances)
    values = [distances[n] for n in names]
    colours, texts = _marks(names, values, SYNTHETIC, set(flagged), 3)
    top = max(0.05, max(values, default=0) * 1.25)
    title = "How far each column's distribution moved (0 = identical)"
    return _column_chart(names, values, colours, texts, top, title, "total variation distance")


def two_way_heatmap(matrix: pd.DataFrame) -> go.Figure:
    """Heatmap of 2-way total variation distances for every pair of columns."""
    values = matrix.to_numpy(dtype=float)
    fig = go.Figure(
        go.Heatmap(
            z=values,
            x=short_names(matrix.columns),
            y=short_names(matrix.index),
            customdata=[[(str(r), str(c)) for c in matrix.columns] for r in matrix.index],
            colorscale="Oranges",
            zmin=0,
            zmax=max(0.1, float(np.nanmax(values))),
            colorbar=dict(title="distance"),
            text=np.round(values, 2),
            texttemplate="%{text}" if len(matrix) <= 16 else None,
            hovertemplate="%{customdata[0]} x %{customdata[1]}: %{z:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", tickmode="linear", dtick=1)  # every column named, however many
    fig.update_xaxes(tickmode="linear", dtick=1)
    return _style(
        fig,
        "How far each pair of columns moved (0 = identical; darker = further)",
        "column",
        "column",
        height=max(480, 36 * len(matrix) + 200),
    )


def distinguishing_chart(accuracy: float, low: float, high: float, note: str = "") -> go.Figure:
    """The classifier's held-out accuracy with its interval, on bands that say how to read it."""
    fig = go.Figure(
        go.Bar(
            x=[accuracy * 100],
            y=["classifier"],
            orientation="h",
            marker_color=SYNTHETIC,
            width=0.5,
            error_x=dict(
                type="data",
                symmetric=False,
                array=[(high - accuracy) * 100],
                arrayminus=[(accuracy - low) * 100],
                thickness=3,
                width=10,
            ),
            hoverinfo="skip",
        )
    )
    bands = (
        (50, 60, "#e8f5e9", "hard to<br>tell apart"),
        (60, 75, "#fff8e1", "some<br>differences"),
        (75, 100, "#fdecea", "easy to<br>tell apart"),
    )
    for start, end, colour, words in bands:
        fig.add_vrect(x0=start, x1=end, fillcolor=colour, line_width=0, layer="below")
        fig.add_annotation(
            x=(start + end) / 2,
            y=1.0,
            yref="paper",
            yanchor="bottom",
            text=words,
            showarrow=False,
            font=dict(size=14, color="#333"),
        )
    fig.add_vline(x=50, line_dash="dash", line_color="#2e7d32", line_width=3)
    fig.add_annotation(
        x=min(high * 100 + 1.5, 97),
        y=0,
        text=f"<b>{accuracy:.0%}</b>",
        showarrow=False,
        xanchor="left",
        font=dict(size=22, color="#1b1b1b"),
    )
    fig.update_xaxes(range=[0, 100], ticksuffix="%")
    fig.update_yaxes(showticklabels=False)
    fig = _style(
        fig,
        "Can a classifier tell real records from synthetic ones?",
        "held-out accuracy (50% = a coin flip)",
        "",
        height=360,
    )
    if note:  # what was trained on what, stated on the chart itself
        fig.update_layout(
            title=dict(subtitle=dict(text=note, font=dict(size=14, color="#555")), y=0.97, yanchor="top"),
            margin=dict(t=150),
            height=400,
        )
    return fig


def _ends_missing(labels: list) -> bool:
    """Whether a column's labels end with its missing cell (:data:`.metrics.MISSING_CELL`), a bar of its own."""
    return bool(labels) and labels[-1] == MISSING_CELL


def reached_cells(labels: list, real: np.ndarray, synthetic: np.ndarray, *, ordered: bool) -> tuple:
    """An ordered column's cells without the runs at either end of its declared range that neither table reaches
    (a range declared far wider than its values leaves most of the chart empty), the ``(missing)`` cell kept when
    either table holds one; and the words for what was left out ("" when nothing was). Post-processing of what
    the chart shows; nothing else changes."""
    missing = _ends_missing(labels)
    cells = len(labels) - missing
    held = np.flatnonzero((real[:cells] + synthetic[:cells]) > 0)
    if not ordered or not len(held) or (held[0] == 0 and held[-1] == cells - 1):
        return labels, real, synthetic, ""
    keep = list(range(held[0], held[-1] + 1)) + ([cells] if missing and real[cells] + synthetic[cells] else [])
    left = [labels[i] for i in range(cells) if i < held[0] or i > held[-1]]
    words = f"{counted(len(left), 'cell')} of the declared range that neither table reaches "
    words += f"{'is' if len(left) == 1 else 'are'} left out ({left[0]}"
    words += f" to {left[-1]})" if len(left) > 1 else ")"
    return [labels[i] for i in keep], real[keep], synthetic[keep], words


#: The most bars a column's chart draws: an ordered column's neighbouring cells share a bar beyond it.
MAX_BARS = 40


def grouped_cells(labels: list, real: np.ndarray, synthetic: np.ndarray, max_bars: int = MAX_BARS) -> tuple:
    """An ordered column's cells (a range's bins, a year's days) as at most ``max_bars`` bars, each the same number of
    neighbouring cells in order (``2018-01-01 to 2018-01-10``), the ``(missing)`` cell a bar of its own; and the
    number of cells a bar (1: as they were). Post-processing of what the chart shows.

    >>> grouped_cells(["1", "2", "3", "4", "5", "(missing)"], np.array([1, 2, 3, 4, 5, 6]), np.zeros(6), 3)[:2]
    (['1 to 3', '4 to 5', '(missing)'], array([6, 9, 6]))
    """
    missing = _ends_missing(labels)
    cells = len(labels) - missing
    if len(labels) <= max_bars or cells == 0:
        return list(labels), real, synthetic, 1
    size = -(-cells // (max_bars - missing))
    starts = np.arange(0, cells, size)
    ends = np.minimum(starts + size, cells) - 1
    names = [labels[a] if a == b else f"{labels[a]} to {labels[b]}" for a, b in zip(starts, ends)]
    sums = [np.add.reduceat(np.asarray(counts[:cells]), starts) for counts in (real, synthetic)]
    if missing:
        names.append(labels[-1])
        sums = [np.append(total, counts[-1]) for total, counts in zip(sums, (real, synthetic))]
    return names, sums[0], sums[1], size


def distribution_chart(
    labels: list, real: np.ndarray, synthetic: np.ndarray, column: str, max_bars: int = MAX_BARS
) -> go.Figure:
    """Side-by-side shares of real and synthetic values for one column, its labels read as they are written (a
    date's cell is a category, not a point in time). More than ``max_bars`` cells: an unordered column shows the
    largest of either table (an ordered column's neighbours are grouped first: :func:`grouped_cells`)."""
    real_share = real / max(real.sum(), 1)
    syn_share = synthetic / max(synthetic.sum(), 1)
    order = np.arange(len(labels))
    if len(labels) > max_bars:  # too many to read: the largest cells of either table
        order = np.sort(np.argsort(-(real_share + syn_share))[:max_bars])
    names = [str(labels[i]) for i in order]
    fig = go.Figure(
        [
            go.Bar(x=names, y=real_share[order], name="real", marker_color=REAL),
            go.Bar(x=names, y=syn_share[order], name="synthetic", marker_color=SYNTHETIC),
        ]
    )
    fig.update_layout(barmode="group")
    fig.update_xaxes(type="category")  # "2018-05-03" or "1990" is a cell's name, not a position on an axis
    fig.update_yaxes(tickformat=".1~%")  # "0.5%, 1%, 1.5%": no repeated "1%, 1%" on small shares
    return _legend_clear_of(_style(fig, f"Real and synthetic values of '{column}'", column, "share of rows"), names)


def tau_curve(rhos=(0.5, 0.9, 0.99), epsilon: float = 1.0) -> go.Figure:
    """CatHist threshold tau against domain size (log scale), one line per rho."""
    sizes = np.logspace(1, 15, 60)
    fig = go.Figure()
    for rho in rhos:
        fig.add_trace(
            go.Scatter(
                x=sizes,
                y=[cathist_tau(int(n), rho, epsilon) for n in sizes],
                mode="lines",
                name=f"rho = {rho}",
                line=dict(width=4),
            )
        )
    fig.update_xaxes(type="log", exponentformat="power")
    return _style(
        fig,
        f"Threshold tau grows slowly with the domain size (epsilon = {epsilon:g})",
        "domain size n (number of possible values)",
        "threshold tau (count)",
    )


def with_and_without_chart(shares: dict[str, tuple[float, float]]) -> go.Figure:
    """The Learn page's bad-bins demo: for each method (``shares``: method -> chance without and with
    Alex), how often the release shows the rare disease, side by side."""
    bars = [
        go.Bar(
            name=name,
            x=list(shares),
            y=[v[side] for v in shares.values()],
            marker_color=colour,
            text=[f"{v[side]:.1%}" for v in shares.values()],
            textposition="outside",
        )
        for side, (name, colour) in enumerate([("without Alex", REAL), ("with Alex", SYNTHETIC)])
    ]
    fig = go.Figure(bars)
    fig.update_layout(
        barmode="group",
        font=FONT,
        height=420,
        plot_bgcolor="white",
        title=dict(text="How often the release shows 'rare disease'", font=dict(size=22)),
        yaxis=dict(title="chance", tickformat=".0%", range=[0, 1.1]),
        xaxis=dict(title="method"),
    )
    return fig


def value_cdf_chart(comparison) -> go.Figure:
    """Real and synthetic distribution functions of one numeric or date column, value by value: a value held by
    many records is a vertical jump, a spike spread over a bin a slope; whole numbers a few apart (a year 2012 to
    2012) are ticked one by one, never 2,012.5. ``comparison``: a :class:`~.values.ValueComparison`."""
    x = comparison.shown(comparison.points)
    fig = go.Figure(
        [
            go.Scatter(
                x=x, y=comparison.real_cdf, name="real", mode="lines", line_shape="hv", line=dict(color=REAL, width=4)
            ),
            go.Scatter(
                x=x,
                y=comparison.synthetic_cdf,
                name="synthetic",
                mode="lines",
                line_shape="hv",
                line=dict(color=SYNTHETIC, width=3, dash="dash"),
            ),
        ]
    )
    fig.update_yaxes(tickformat=".0%", range=[0, 1.02])
    if comparison.kind == "integer" and len(x) and x[-1] - x[0] < 10:
        fig.update_xaxes(dtick=1, range=[x[0] - 1, x[-1] + 1], tickformat="d")
    return _style(
        fig,
        f"Share of rows at or below each value of '{comparison.column}'",
        comparison.column,
        "share of rows (missing left out)",
    )


def top_values_chart(comparison) -> go.Figure:
    """Side-by-side shares of the most frequent exact values of a numeric or date column."""
    top = comparison.top
    names = [str(v) for v in comparison.shown(top["value"])]
    fig = go.Figure(
        [
            go.Bar(x=names, y=top["real"], name="real", marker_color=REAL),
            go.Bar(x=names, y=top["synthetic"], name="synthetic", marker_color=SYNTHETIC),
        ]
    )
    fig.update_layout(barmode="group")
    fig.update_xaxes(type="category")
    fig.update_yaxes(tickformat=".1~%")
    title = f"The most frequent exact values of '{comparison.column}'"
    return _legend_clear_of(_style(fig, title, comparison.column, "share of rows"), names)


def risk_chart(report: dict) -> go.Figure:
    """The empirical risks (``risk.RiskReport.as_json()``) as bars with their 95% intervals: singling
    out, linkability, then attribute inference column by column."""
    rows = [("singling out", report["singling_out"]), ("linkability", report["linkability"])]
    rows += [(f"inference: {r['detail']}", r) for r in report["inference"]]
    names = [name for name, _ in rows][::-1]
    values = [r["risk"] * 100 for _, r in rows][::-1]
    fig = go.Figure(
        go.Bar(
            x=values,
            y=short_names(names, 60),
            customdata=names,
            orientation="h",
            marker_color=[SYNTHETIC if r["meaningful"] else "#b0b0b0" for _, r in rows][::-1],
            error_x=dict(
                type="data",
                symmetric=False,
                array=[(r["high"] - r["risk"]) * 100 for _, r in rows][::-1],
                arrayminus=[(r["risk"] - r["low"]) * 100 for _, r in rows][::-1],
                thickness=2,
                width=6,
            ),
            hovertemplate="%{customdata}: %{x:.1f}%<extra></extra>",
        )
    )
    fig.update_xaxes(range=[0, 100], ticksuffix="%")
    return _style(
        fig,
        "How much better attacks do on the people in the data than on others",
        "risk: excess success over held-out records (0 = none), with 95% intervals",
        "",
        height=max(320, 40 * len(rows) + 160),
    )
