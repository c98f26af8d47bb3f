"""Preview pieces that only draw: the distinguishing game and the cells the public rule changed."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dpsynth_core.evaluation.charts import distinguishing_chart


def show_game(game: dict) -> None:
    """The game's accuracy with its interval and how to read it (publisher-only)."""
    if game["test_records"] == 0:
        st.info("Too few records (real or synthetic) to train and test a classifier: the game needs at least "
                "20 of each.")
    else:
        note = (f"{game['classifier'].capitalize()} trained on a random {game['records']:,} real and "
                f"{game['records']:,} synthetic records (70%), tested on the other {game['test_records']:,}; "
                "the line is a 95% interval.")
        st.plotly_chart(distinguishing_chart(game["accuracy"], game["low"], game["high"], note=note),
                        width="stretch", key="preview_game")
        st.caption("How to read: 50% means the classifier cannot tell real from synthetic records (a coin flip), "
                   "which is the goal. Up to about 60% the two are hard to tell apart; 60 to 75% means some "
                   "patterns differ; above 75% synthetic records are easy to spot, usually because relationships "
                   "between columns were lost. The game measures realism, not privacy: privacy comes from ε.")


def show_changed_cells(changed: dict) -> None:
    """Per column, the cells of the real data the public rule changed (publisher-only counts)."""
    st.markdown("Cells of the real data that do not fit your declaration are changed by a public rule before "
                "anything is measured: numbers and dates outside the range are clamped to the nearest bound, "
                "and anything else that does not fit (text in a number column, an unlisted category) becomes "
                "missing. These counts read the real data, so they are for you only.")
    if changed:
        st.dataframe(pd.DataFrame([{"column": n, "cells changed by the rule": r["out_of_domain"],
                                    "missing after the rule": r.get("missing", 0)} for n, r in changed.items()]),
                     hide_index=True, width="content")
        st.warning("Do not widen the declaration just to fit these cells: a domain read off the data is not "
                   "private. Change it only if the documentation says it is wrong.", icon=":material/warning:")
    else:
        st.success("Every cell fits the declaration: the rule changed nothing.")
