"""The lifetime budget of the data in use: its limit, and the dataset name that lets new versions of a
table share it (the Privacy page's expander)."""

from __future__ import annotations

import streamlit as st

from app_support import state
from dpsynth_core import DPSynthError
from dpsynth_core.workspace import WorkspaceGone


def lifetime_budget() -> None:
    """The expander that sets (or removes) the data's lifetime budget and names the dataset."""
    ledger, data = state.workspace().ledger, state.data()
    with st.expander("Lifetime budget for this data", expanded=ledger.lifetime_budget(data["hash"]) is not None):
        fingerprint = data["hash"]
        limit = ledger.lifetime_budget(fingerprint)
        st.markdown(
            "Set the most ε that may ever be spent on this file, per record, across every draw and report, "
            "in this workspace (a release that protects each person counts twice per record). A draw that "
            "would go past it is refused, with the reason."
        )
        c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
        new_limit = c1.number_input(
            "Lifetime budget ε (blank = no limit)",
            min_value=0.01,
            max_value=1000.0,
            value=limit,
            step=0.5,
            placeholder="no limit",
            key="privacy_lifetime",
        )
        if new_limit != limit and c2.button("Set" if new_limit else "Remove the limit", key="privacy_lifetime_set"):
            ledger.set_lifetime_budget(fingerprint, new_limit, name=data["name"])
            st.rerun()
        st.markdown(
            "The same records in any file form find this budget. To let new versions of a table (monthly "
            "extracts, corrected files) share it, give the dataset a name and use the same name for each."
        )
        c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
        named = c1.text_input(
            "Dataset name",
            max_chars=200,
            key="privacy_dataset_name",
            placeholder="for example: patients, monthly extract",
        )
        if named.strip() and c2.button("Use this name", key="privacy_dataset_set"):
            try:
                data["hash"] = ledger.dataset_key(data["records"], named)
            except WorkspaceGone:  # said in one line by app.py
                raise
            except DPSynthError as problem:
                st.error(str(problem), icon=":material/block:")
            else:
                st.rerun()
