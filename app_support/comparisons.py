"""The Preview's comparisons with the real data (publisher-only), tab by tab: each measure runs when its
tab is first opened, once per release, and is kept with the release."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app_support import risk_tab, state
from app_support.cached import paired, quality
from app_support.markdown import literal
from app_support.progress import run_with_progress
from dpsynth_core import constraints
from dpsynth_core.domain import RANGE_KINDS
from dpsynth_core.evaluation import metrics
from dpsynth_core.evaluation.charts import (
    distinguishing_chart,
    distribution_chart,
    fidelity_chart,
    grouped_cells,
    one_way_chart,
    reached_cells,
    top_values_chart,
    two_way_heatmap,
    value_cdf_chart,
)
from dpsynth_core.evaluation.shape_words import more_columns, worst_shapes
from dpsynth_core.evaluation.values import value_comparison, value_table


def show_comparisons(entry: dict, frame, declaration: dict, domain, settings: dict, drawn=lambda: None) -> None:
    """One tab per comparison of the release on show, then, above them, the warnings on values that
    changed shape: the open tab (the synthetic rows at first) is drawn before those are computed.
    ``drawn``: called once the synthetic rows' tab is drawn, before any other tab and the warnings."""
    release_data = entry["data"]
    notice = st.container()  # the shape warnings, filled once the open tab is drawn

    def shapes() -> dict:  # numbers and dates value by value, computed once per release
        return quality(entry, "values", frame, declaration)

    def flagged() -> set:
        return {name for name, s in shapes().items() if s["shape"]}

    changed = {name: r for name, r in entry["publisher_report"].get("encoding", {}).items() if r.get("out_of_domain")}
    tabs = st.tabs(
        [
            "Synthetic rows",
            "Fidelity",
            "Marginal distances",
            "Distinguishing game",
            "One column",
            f"Cells outside the declaration ({sum(r['out_of_domain'] for r in changed.values()):,})",
            "Empirical risk",
        ],
        key="preview_tab",
        on_change="rerun",
    )

    def measure(name: str, title: str):
        """A publisher-only measure, computed when its tab is first opened (with progress), then kept."""
        if name not in entry["metrics"]:
            run_with_progress(lambda report: quality(entry, name, frame, declaration, report), title=title)
            state.save_metrics(entry)
        return entry["metrics"][name]

    with tabs[0]:
        if tabs[0].open:
            st.markdown(
                f"The first rows of the synthetic table ({len(release_data):,} rows in all). This is what the "
                "Release page lets you download. An empty cell is a missing cell (empty in the downloaded file too)."
            )
            st.dataframe(release_data.head(200), hide_index=True, width="stretch", height=420, placeholder="")
    drawn()
    with tabs[1]:
        if tabs[1].open:
            fidelity = measure("fidelity", "Comparing which values each column uses")
            st.plotly_chart(fidelity_chart(fidelity, flagged()), width="stretch", key="preview_fidelity")
            st.caption(
                "How to read: F = 1 means the synthetic column uses exactly the values the real one uses; "
                "lower means rare real values were left out (that is the protection) or made-up ones added."
            )
    with tabs[2]:
        if tabs[2].open:
            show_distances(measure, shapes(), flagged())
    with tabs[3]:
        if tabs[3].open:
            show_game(measure("game", "Training a classifier to tell real from synthetic records"))
    with tabs[4]:
        if tabs[4].open:
            show_one_column(entry, frame, declaration, domain)
    with tabs[5]:
        if tabs[5].open:
            show_changed_cells(changed)
    with tabs[6]:
        if tabs[6].open:
            risk_tab.draw(entry, frame, declaration, settings)
    warnings, others = worst_shapes(shapes(), lambda summary: summary["max_cdf_gap"])
    if warnings:
        notice.warning(
            "**Values that changed shape**, most changed first (the bins can look fine; marked ⚠ in the charts, and "
            "in the table under Marginal distances):\n"
            + "".join(f"\n- {literal(sentence)}" for sentence in warnings)
            + (f"\n- {literal(more_columns(others))} (their figures are in that table)" if others else ""),
            icon=":material/warning:",
        )


def show_notes(card_notes: list[str], publisher_notes: list[str]) -> None:
    """The release card's plain notes (public) as warnings, then the publisher-only notes (they read the data)."""
    for note in card_notes:
        st.warning(literal(note), icon=":material/info:")
    for note in publisher_notes:
        st.caption(literal(note))


def show_distances(measure, shapes: dict, flagged: set) -> None:
    """Each column's distance, the value-by-value table, then every pair's distance as a heat map."""
    one_way = measure("one_way", "Comparing each column's distribution")
    st.plotly_chart(one_way_chart(one_way, flagged), width="stretch", key="preview_one_way")
    st.caption(
        "How to read: the total variation distance, the share of rows that would have to change value "
        "to turn the synthetic column into the real one. 0 = identical distribution; below 0.05 is close, "
        "unless the column is marked ⚠."
    )
    if shapes:
        st.dataframe(value_table(shapes), hide_index=True, width="stretch")
        st.caption(
            "Numbers and dates value by value, without bins: a frequent value lost or a moved mean shows "
            "here even when the bins match."
        )
    two_way = measure("two_way", "Comparing every pair of columns")
    matrix = pd.DataFrame(two_way["values"], index=two_way["columns"], columns=two_way["columns"])
    st.plotly_chart(two_way_heatmap(matrix), width="stretch", key="preview_two_way")
    st.caption(
        "How to read: the same distance (total variation distance, 0 = identical, 1 = nothing in common) "
        "for every pair of columns taken together. A method that keeps columns independent shows dark "
        "cells where real columns are related (say, relationship and sex)."
    )


def show_game(game: dict) -> None:
    """The game's accuracy with its interval and how to read it (publisher-only)."""
    if game["test_records"] == 0:
        st.info(
            "Too few records (real or synthetic) to train and test a classifier: the game needs at least 20 of each."
        )
    else:
        note = (
            f"{game['classifier'].capitalize()} trained on a random {game['records']:,} real and "
            f"{game['records']:,} synthetic records (70%), tested on the other {game['test_records']:,}; "
            "the line is a 95% interval."
        )
        st.plotly_chart(
            distinguishing_chart(game["accuracy"], game["low"], game["high"], note=note),
            width="stretch",
            key="preview_game",
        )
        st.caption(
            "How to read: 50% means the classifier cannot tell real from synthetic records (a coin flip), "
            "which is the goal. Up to about 60% the two are hard to tell apart; 60 to 75% means some "
            "patterns differ; above 75% synthetic records are easy to spot, usually because relationships "
            "between columns were lost. The game measures realism, not privacy: privacy comes from ε."
        )


def show_changed_cells(changed: dict) -> None:
    """Per column, the cells of the real data the public rule changed (publisher-only counts)."""
    st.markdown(
        "Cells of the real data that do not fit your declaration are changed by a public rule before "
        "anything is measured: numbers and dates outside the range are clamped to the nearest bound, "
        "fractions in a whole-number column are rounded, and anything else that does not fit (text in a "
        "number column, a number or date in a form the Domain page does not say the file writes, an unlisted "
        "category) becomes missing, and a missing cell in a column declared without missing values takes the "
        "column's first value (its first category, or the low end of its range). "
        "These counts read the real data, so they are for you only."
    )
    if changed:
        first = any(r.get("read_as_first") for r in changed.values())  # missing cells where none are declared
        counts = pd.DataFrame(
            [
                {
                    "column": n,
                    "cells changed by the rule": r["out_of_domain"],
                    **({"of them missing, read as the first value": r.get("read_as_first", 0)} if first else {}),
                    "missing after the rule": r.get("missing", 0),
                }
                for n, r in changed.items()
            ]
        )
        grouped = st.column_config.NumberColumn(format="localized")  # 51,986 as the page's sentences write it
        st.dataframe(counts, hide_index=True, width="content", column_config=dict.fromkeys(counts.columns[1:], grouped))
        st.warning(
            "Do not widen the declaration just to fit these cells: a domain read off the data is not "
            "private. Change it only if the documentation says it is wrong.",
            icon=":material/warning:",
        )
    else:
        st.success("Every cell fits the declaration: the rule changed nothing.")


#: The most frequent exact values are charted when one holds at least this share of the real or synthetic rows.
TOP_VALUES_SHARE = 0.01


def show_one_column(entry: dict, frame, declaration: dict, domain) -> None:
    """One column of both tables: shares in public bins, then value by value for numbers and dates."""
    pairs = paired(entry, frame, declaration)
    column = st.selectbox("Column", list(pairs), key="preview_column")
    pair = pairs[column]
    labels, real, synthetic = metrics.shown_shares(pair, declared=domain.columns[column].binned)
    ordered = domain.columns[column].kind in RANGE_KINDS
    labels, real, synthetic, left_out = reached_cells(labels, real, synthetic, ordered=ordered)
    grouped = 1
    if ordered:  # a year of days, a century of years: neighbours share a bar, every part of the range shown
        labels, real, synthetic, grouped = grouped_cells(labels, real, synthetic)
    st.plotly_chart(distribution_chart(labels, real, synthetic, column), width="stretch", key="preview_distribution")
    if left_out:
        st.caption(literal(left_out) + ".")
    if grouped > 1:
        st.caption(f"Each bar holds {grouped} neighbouring cells of the range, so that the whole range fits the chart.")
    st.caption(
        "How to read: blue bars are the real shares, orange the synthetic ones; in public bins for numbers. "
        f"A text value held by fewer than {constraints.SHOWN_MIN_ROWS} real rows is not shown by name: such "
        "values share one bar."
    )
    if domain.columns[column].kind in RANGE_KINDS:  # value by value: a spread-out spike shows
        values = value_comparison(
            frame[column], entry["data"][column], domain.columns[column], markers=domain.missing_markers
        )
        st.plotly_chart(value_cdf_chart(values), width="stretch", key="preview_value_cdf")
        top_real, top_synthetic = (
            float(values.top[side].max()) if len(values.top) else 0.0 for side in ("real", "synthetic")
        )
        if max(top_real, top_synthetic) >= TOP_VALUES_SHARE:
            st.plotly_chart(top_values_chart(values), width="stretch", key="preview_top_values")
        else:  # every value all but unique (times to the second, measurements): a chart of bars near 0% says nothing
            st.caption(
                f"No exact value holds {TOP_VALUES_SHARE:.0%} of the rows (the most frequent: {top_real:.2%} of the "
                f"real rows, {top_synthetic:.2%} of the synthetic ones), so no chart of the most frequent values."
            )
        distance = "" if values.value_tvd is None else f"distance over exact values {values.value_tvd:.3f}; "
        st.caption(
            f"How to read: the same column value by value ({distance}largest gap between the curves "
            f"{values.max_cdf_gap:.3f}). A value held by many people is a jump in the curves and a tall "
            "bar; if the synthetic curve turns it into a slope, that value was spread over its neighbours."
        )
