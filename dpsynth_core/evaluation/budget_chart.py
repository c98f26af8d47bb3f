"""The Privacy page's chart of how a method splits its budget, readable however many columns the table has."""

from __future__ import annotations

import plotly.graph_objects as go

from ..release.card import SPLIT_ROWS_IN_BODY, split_by_kind
from .charts import REAL, _style, _two_lines


def grouped_parts(split: dict[str, float], columns=()) -> dict[str, tuple[float, list[str]]]:
    """The parts of ``split`` as bars: ``{label: (epsilon, the parts a bar sums, or [])}``, in ``split``'s order.

    A split of more than :data:`~dpsynth_core.release.card.SPLIT_ROWS_IN_BODY` parts is summed by kind, as the
    release card sums it (:func:`~dpsynth_core.release.card.split_by_kind`: ``bins … (40)``, the bins fitted to 40
    columns): a 55-column table's 40 bars of 0.005 drew 2,300 pixels tall, the parts that carry the budget out of
    sight, and together they are a fifth of it. A shorter split keeps a bar a part. Public: the method's plan and
    the declared names.

    >>> parts = {"row count": 0.02, **{f"bins c{i}": 0.005 for i in range(12)}, "bins d": 0.01}
    >>> bars = grouped_parts(parts, [f"c{i}" for i in range(12)] + ["d"])
    >>> {label: round(value, 3) for label, (value, _) in bars.items()}
    {'row count': 0.02, 'bins … (13)': 0.07}
    """
    if len(split) <= SPLIT_ROWS_IN_BODY:
        return {label: (value, []) for label, value in split.items()}
    return {
        label: (sum(value for _, value in rows), [] if len(rows) == 1 else [part for part, _ in rows])
        for label, rows in split_by_kind(split, columns).items()
    }


def budget_split_chart(split: dict[str, float], columns=()) -> go.Figure:
    """Horizontal bars: how much epsilon each measured part gets (values printed past each bar); a long split summed
    by kind over ``columns`` (:func:`grouped_parts`), each part named on hover."""
    bars = grouped_parts(split, columns)
    labels = list(bars)[::-1]
    values = [bars[k][0] for k in labels]
    fig = go.Figure(
        go.Bar(
            x=values,
            y=[_two_lines(label) for label in labels],
            customdata=[_with_parts(label, bars[label][1]) for label in labels],
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


def _with_parts(label: str, parts: list[str], shown: int = 8) -> str:
    """A bar's label on hover, with the first ``shown`` parts a summed bar stands for."""
    if not parts:
        return label
    more = f" and {len(parts) - shown} more" if len(parts) > shown else ""
    return f"{label}, the sum of {', '.join(parts[:shown])}{more}"
