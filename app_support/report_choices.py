"""The Release page's choices for a stakeholder report, with its error bar said as they are made (public only)."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from dpsynth_core import usecases
from dpsynth_core.evaluation import report as reports
from dpsynth_core.evaluation.report_plan import LOOSE_MARGIN, default_charts, precision_words
from dpsynth_core.wording import format_epsilon


@dataclass(frozen=True)
class ReportChoices:
    """What the publisher chose: the report's ``share`` of the release's epsilon, the ``columns`` it measures,
    its ``pairs`` and ``charts``, and whether ``make`` was pressed."""

    share: float
    columns: list
    pairs: list
    charts: list
    make: bool


def report_choices(card: dict, declaration: dict, synthetic: pd.DataFrame, base: float) -> ReportChoices:
    """Draw the report's choices in a box (no form: the error bar follows each choice as it is made) and return
    them. Defaults from the card and the declaration (:func:`~dpsynth_core.usecases.default_columns`)."""
    columns, rows = list(synthetic.columns), len(synthetic)
    with st.container(border=True):
        share = st.select_slider(
            "Budget for the report, as a share of this release's ε",
            options=[0.05, 0.1, 0.2, 0.3, 0.5],
            value=reports.DEFAULT_SHARE,
            format_func=lambda s: f"{s:.0%} (ε = {format_epsilon(s * base)})",
            key="release_report_share",
        )
        released_pairs, released_charts = reports.default_pairs(card, columns), default_charts(declaration, columns)
        measured = st.multiselect(
            "Columns the report measures",
            columns,
            default=usecases.default_columns(  # at the default share: a wide table's report on all says little
                card,
                declaration,
                rows,
                epsilon=reports.DEFAULT_SHARE * base,
                pairs=released_pairs,
                chart_columns=released_charts,
            ),
            key="release_report_columns",
            help="Each column is one more distance, and a number or date column four more figures, sharing the "
            "report's budget. Defaults: every column, unless a report on them all would say little; then the "
            "columns of the pairs below (those the method joined) and of the charts. Chosen without looking at the "
            "data.",
        )
        shown = [c for c in columns if c in measured]
        pair_names = {reports.pair_name(a, b): (a, b) for i, a in enumerate(shown) for b in shown[i + 1 :]}
        chosen_pairs = st.multiselect(
            "Pairs of columns to compare together",
            list(pair_names),
            default=[reports.pair_name(a, b) for a, b in released_pairs if a in measured and b in measured],
            key="release_report_pairs",
            help="Defaults: the pairs the method itself joined (from the card), chosen without "
            "looking at the data. Each pair is one more measurement sharing the budget.",
        )
        charts = st.multiselect(
            "Columns to chart value by value",
            shown,
            default=[c for c in released_charts if c in measured],
            key="release_report_charts",
        )
        pairs = [pair_names[p] for p in chosen_pairs]
        if shown:
            _say_precision(card, declaration, rows, share * base, shown, pairs, charts)
        else:
            st.info("Choose at least one column for the report to measure.", icon=":material/info:")
        make = st.button("Make the report", type="primary", key="release_report_make", disabled=not shown)
    return ReportChoices(share, shown, pairs, charts, make)


def _say_precision(card, declaration, rows: int, epsilon: float, columns, pairs, charts) -> None:
    """The report's measurements and its error bar (:func:`~dpsynth_core.usecases.plan`), a warning when loose."""
    plan = usecases.plan(  # the report's own unit and choices, as usecases.report takes them
        card, declaration, rows, epsilon=epsilon, pairs=pairs, chart_columns=charts, columns=columns
    )
    st.caption(
        f"The report's budget is shared equally by its measurements: the row count, one distance per column "
        f"({plan.columns}), one per pair ({len(pairs)}), one set of shares per charted column ({len(charts)}) and "
        f"{reports.VALUE_STATISTICS} value-by-value figures per number or date column ({plan.numbers}). Fewer "
        "measurements mean smaller error bars."
    )
    said = precision_words(plan, epsilon)
    if plan.margin >= LOOSE_MARGIN:
        fewer = " (fewer columns measured narrow them too)" if len(columns) > 1 else ""
        st.warning(f"{said} At this budget its figures would say little{fewer}.", icon=":material/warning:")
    else:
        st.caption(said)
