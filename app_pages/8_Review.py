"""Review: the releases a reviewer link opens (card, DP reports, synthetic rows). Nothing from the real data."""

import io

import pandas as pd
import streamlit as st

from app_support import access, state
from app_support.cards import show_card, show_document
from dpsynth_core.wording import format_epsilon

st.title("Releases shared with you")
st.markdown(
    "Each release below is **synthetic** data made with **differential privacy**: its card says what "
    "was done and what the guarantee is; its report (when the publisher made one) shows differentially "
    "private statistics with their margins of error. The Learn page explains the ideas."
)
views = [state.workspace().access.reviewer_view(i) for i in st.session_state[access.REVIEW]]
if not views:
    st.info("This link opens no release.")
chosen = (
    st.selectbox(
        "Release",
        range(len(views)),
        key="review_choice",
        format_func=lambda i: f"Release #{views[i].id} ({views[i].created[:16]}, ε = "
        + (
            format_epsilon(views[i].card["guarantee"]["epsilon"])
            if views[i].card["guarantee"]["epsilon"] is not None
            else "no guarantee"
        )
        + ")",
    )
    if len(views) > 1
    else 0
)
if views:
    view = views[chosen]
    card, rows, reports = st.tabs(["Release card", "Synthetic rows", f"Reports ({len(view.reports)})"])
    with card:
        show_card(view.card)
    with rows:
        data = pd.read_csv(io.BytesIO(view.csv), dtype=str, keep_default_na=False)
        st.markdown(f"The synthetic table: {len(data):,} rows (the first 200 shown).")
        st.dataframe(data.head(200), hide_index=True, width="stretch", height=420)
        st.download_button(
            "Download the synthetic data (CSV)",
            view.csv,
            file_name=f"{state.download_stem(view.id)}_synthetic.csv",  # as the Release page names it
            mime="text/csv",
            key="review_csv",
            on_click="ignore",
        )
    with reports:
        if not view.reports:
            st.info("No report was made for this release.")
        for page in view.reports[:1]:
            show_document(page)
