"""Preview pieces that only draw: the distinguishing game, one column, the cells the public rule changed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app_support.cached import paired
from dpsynth_core.evaluation.charts import distinguishing_chart, distribution_chart, top_values_chart, value_cdf_chart
from dpsynth_core.evaluation.values import value_comparison


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
        "and anything else that does not fit (text in a number column, an unlisted category) becomes "
        "missing. These counts read the real data, so they are for you only."
    )
    if changed:
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "column": n,
                        "cells changed by the rule": r["out_of_domain"],
                        "missing after the rule": r.get("missing", 0),
                    }
                    for n, r in changed.items()
                ]
            ),
            hide_index=True,
            width="content",
        )
        st.warning(
            "Do not widen the declaration just to fit these cells: a domain read off the data is not "
            "private. Change it only if the documentation says it is wrong.",
            icon=":material/warning:",
        )
    else:
        st.success("Every cell fits the declaration: the rule changed nothing.")


def show_one_column(entry: dict, frame, declaration: dict, domain) -> None:
    """One column of both tables: shares in public bins, then value by value for numbers and dates."""
    pairs = paired(entry, frame, declaration)
    column = st.selectbox("Column", list(pairs), key="preview_column")
    pair = pairs[column]
    real = np.bincount(pair.real, minlength=pair.cells)
    synthetic = np.bincount(pair.synthetic, minlength=pair.cells)
    st.plotly_chart(
        distribution_chart(pair.labels, real, synthetic, column), width="stretch", key="preview_distribution"
    )
    st.caption("How to read: blue bars are the real shares, orange the synthetic ones; in public bins for numbers.")
    if domain.columns[column].kind in ("integer", "float", "date"):  # value by value: a spread-out spike shows
        values = value_comparison(
            frame[column], entry["data"][column], domain.columns[column], markers=domain.missing_markers
        )
        st.plotly_chart(value_cdf_chart(values), width="stretch", key="preview_value_cdf")
        st.plotly_chart(top_values_chart(values), width="stretch", key="preview_top_values")
        distance = "" if values.value_tvd is None else f"distance over exact values {values.value_tvd:.3f}; "
        st.caption(
            f"How to read: the same column value by value ({distance}largest gap between the curves "
            f"{values.max_cdf_gap:.3f}). A value held by many people is a jump in the curves and a tall "
            "bar; if the synthetic curve turns it into a slope, that value was spread over its neighbours."
        )
