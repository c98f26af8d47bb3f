"""The shared page frame: page config, state, and the sidebar with the running privacy total."""

from __future__ import annotations

import streamlit as st

from app_support import state


def page(title: str, icon: str = ":material/lock:") -> None:
    """Call first on every page: configures the page, initialises state, draws the sidebar."""
    st.set_page_config(page_title=f"{title} · DP Synth", page_icon=icon, layout="wide")
    state.ensure_state()
    st.markdown(_CSS, unsafe_allow_html=True)
    draw_sidebar()


def draw_sidebar() -> None:
    ss = st.session_state
    info = state.data()
    spent, draws = state.spent_on_current_data()
    with st.sidebar:
        st.markdown("### This session")
        st.markdown(f"**Data:** {info['source']}  \n{info['info']['rows']:,} rows, "
                    f"{len(info['info']['columns'])} columns")
        st.markdown(f"**Privacy budget per draw:** ε = {ss[state.EPSILON]:g}")
        st.metric("Budget spent so far", "no guarantee" if spent == float("inf") else f"ε = {spent:.3g}",
                  help="Every synthetic draw from the same data adds up. Two draws at ε = 1 "
                       "protect people as much as one draw at ε = 2.")
        if spent == float("inf"):
            st.caption("A method without a privacy guarantee was used on this data in this session.")
        st.caption(f"{draws} draw{'s' if draws != 1 else ''} so far. Re-opening a page never draws again; "
                   "only the Generate button does, and it says what it will cost.")


_CSS = """
<style>
html, body, [class*="css"] { font-size: 18px; }
div[data-testid="stMetricValue"] { font-size: 1.6rem; }
.block-container { padding-top: 2rem; max-width: 1200px; }
</style>
"""
