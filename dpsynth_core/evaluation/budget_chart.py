"""The Privacy page's chart of how a method splits its budget, readable however many columns the table has."""

from __future__ import annotations

import plotly.graph_objects as go

from ..wording import short_names
from .charts import REAL, _style, _two_lines

#: This many parts of one kind at one share (the bins of each of 42 numeric columns) are drawn as one bar.
GROUPED_PARTS = 4


def grouped_parts(split: dict[str, float], columns=()) -> dict[str, tuple[float, list[str]]]:
    """The parts of ``split`` as bars: ``{label: (epsilon, the columns a grouped bar stands for, or [])}``, in
    ``split``'s order.

    A part names its column (``bins age``, ``vocabulary name (CatHist)``); :data:`GROUPED_PARTS` or more parts that
    differ only by the column they name and get the same epsilon (to three digits) become one bar, "bins (each of
    42 columns)", at that epsilon: a 55-column table's 42 bars of 0.005 drew 2,300 pixels tall, the parts that carry
    the budget scrolled out of sight. Public: the method's plan and the declared names.

    >>> parts = {"row count": 0.02, **{f"bins c{i}": 0.005 for i in range(5)}, "bins d": 0.01}
    >>> bars = grouped_parts(parts, [f"c{i}" for i in range(5)] + ["d"])
    >>> {label: value for label, (value, _) in bars.items()}
    {'row count': 0.02, 'bins (each of 5 columns)': 0.005, 'bins d': 0.01}
    """
    names = sorted(map(str, columns), key=len, reverse=True)  # "age group" before "age"
    kinds: dict[tuple[str, str, str], dict[str, str]] = {}  # a kind: {label: the column it names}
    for label, value in split.items():
        for name in names:
            at = label.find(name)
            if at >= 0 and (at == 0 or label[at - 1] == " ") and label[at + len(name) :][:1] in ("", " "):
                kinds.setdefault((label[:at], label[at + len(name) :], f"{value:.3g}"), {})[label] = name
                break
    together = {label: kind for kind, labels in kinds.items() if len(labels) >= GROUPED_PARTS for label in labels}
    bars: dict[str, tuple[float, list[str]]] = {}
    for label, value in split.items():
        if label not in together:
            bars[label] = (value, [])
            continue
        before, after, _ = together[label]
        members = list(kinds[together[label]].values())
        lead = before.strip().removesuffix(" of")
        shown = f"{lead}{after.rstrip()} (each of {len(members)} columns)".strip()
        bars.setdefault(shown, (value, members))
    return bars


def budget_split_chart(split: dict[str, float], columns=()) -> go.Figure:
    """Horizontal bars: how much epsilon each measured part gets (values printed past each bar); parts of one kind
    at one share over many ``columns`` as one bar (:func:`grouped_parts`), the columns on hover."""
    bars = grouped_parts(split, columns)
    labels = list(bars)[::-1]
    values = [bars[k][0] for k in labels]
    hover = [_with_columns(label, bars[label][1]) for label in labels]
    fig = go.Figure(
        go.Bar(
            x=values,
            y=[_two_lines(label) for label in labels],
            customdata=hover,
            hovertemplate="%{customdata}: %{x:.3g}<extra></extra>",
            orientation="h",
            marker_color=REAL,
            text=[f"{v:.3g}" for v in values],
            textposition="outside",
            cliponaxis=False,
        )
    )
    fig.update_xaxes(range=[0, max(values, default=1) * 1.22])  # room for the longest bar's value
    return _style(fig, "How the privacy budget is split", "epsilon spent", "", height=max(320, 48 * len(labels) + 140))


def _with_columns(label: str, columns: list[str], shown: int = 12) -> str:
    """A bar's label on hover, with the columns a grouped bar stands for (the first ``shown`` of them)."""
    if not columns:
        return label
    more = f" and {len(columns) - shown} more" if len(columns) > shown else ""
    return f"{label}: {', '.join(short_names(columns[:shown], 30))}{more}"
