"""Preview: generate (each draw counted against the budget) and compare with the real data."""

import math

import numpy as np
import streamlit as st

from app_support import state
from app_support.cached import evaluate
from app_support.sidebar import page
from dpsynth_core import DPSynthError, METHODS, TableDomain, synthesize
from dpsynth_core.charts import (distinguishing_chart, distribution_chart, fidelity_chart, one_way_chart,
                                 two_way_heatmap)

page("Preview", ":material/bar_chart:")
st.title("4. Preview")

loaded = state.data()
declaration = state.declaration()
settings = state.settings()
key = state.settings_key(settings)
try:
    domain = TableDomain.from_json(declaration)
    problems = domain.problems()
except DPSynthError as problem:  # a declaration that does not fit the schema
    problems = list(problem.problems)
if problems:
    st.error("The domain declaration is not complete: " + problems[0].split(": ", 1)[-1]
             + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    st.page_link("pages/2_Domain.py", label="Finish the domain declaration", icon=":material/rule:")
    st.stop()

st.markdown(f"**Method:** {METHODS[settings['method']].title} · **ε** = {settings['epsilon']:g} · "
            f"**ρ** = {settings['rho']:g} · **rows:** "
            + (f"{settings['rows']:,} (your choice)" if settings["rows"] else
               "the real count (public under this method's privacy unit)"
               if METHODS[settings["method"]].cls.row_count_is_public else "the real count plus noise"))

existing = st.session_state[state.RELEASES].get(key)
spent, draws = state.spent_on_current_data()
cost = settings["epsilon"]
if existing:
    label = f"Draw again (spends another ε = {cost:g}; the total on this data becomes {spent + cost:.3g})"
    st.caption("A new draw with the same settings is a new use of the data: choosing the best-looking of "
               "several draws would leak information, so every draw is counted.")
else:
    label = f"Generate synthetic data (spends ε = {cost:g})"
clicked = st.button(label, type="secondary" if existing else "primary", key="preview_generate")

if clicked:
    progress = st.progress(0, text="Measuring the data with noise…")
    try:
        options = {"groups": [tuple(g) for g in settings["groups"]]} if settings["groups"] else {}
        release = synthesize(loaded["frame"], declaration, settings["epsilon"], method=settings["method"],
                             rho=settings["rho"], rows=settings["rows"], **options)
    except DPSynthError as problem:
        progress.empty()
        st.error(f"The release could not be made: {problem}")
        st.stop()
    guarantee = release.card["guarantee"]["epsilon"]
    state.record_draw(math.inf if guarantee is None else guarantee, settings["method"])
    progress.progress(50, text="Comparing with the real data (for your eyes only)…")
    quality = evaluate(loaded["frame"], release.data, declaration)
    progress.progress(100, text="Done.")
    progress.empty()
    state.store_release(key, {"release": release, "metrics": quality, "settings": settings,
                              "draw": (existing or {}).get("draw", 0) + 1})
    st.session_state[state.CURRENT] = key
    st.rerun()

entry = st.session_state[state.RELEASES].get(key)
if entry is None:
    st.info("Press the button to make a synthetic table with these settings. It takes a few seconds.")
    st.stop()
st.session_state[state.CURRENT] = key

release, quality = entry["release"], entry["metrics"]
if len(release.data) == 0:
    st.warning("No synthetic record passed the privacy test, so there is nothing to release. With few records, "
               "lower k in the plausible-deniability test or choose another method.", icon=":material/warning:")
    st.stop()
st.success(f"Synthetic table ready: {len(release.data):,} rows (draw {entry['draw']} with these settings).")
pass_rate = release.publisher_report["columns"].get("pass_rate")
if pass_rate is not None:
    st.caption(f"Privacy test: {pass_rate:.1%} of {release.publisher_report['columns']['candidates']:,} candidate "
               "records passed (for your eyes only: the rate depends on the data).")
st.info("**For you only.** The charts below compare the synthetic table with the real data, so they are "
        "not covered by the privacy guarantee and are not part of the release. Do not share them, and "
        "do not redraw until a chart 'looks right': each draw spends budget.", icon=":material/lock:")

tab_fid, tab_dist, tab_game, tab_col = st.tabs(["Fidelity", "Marginal distances", "Distinguishing game",
                                                "One column"])
with tab_fid:
    st.plotly_chart(fidelity_chart(quality["fidelity"]), width="stretch", key="preview_fidelity")
    st.caption("How to read: F = 1 means the synthetic column uses exactly the values the real one uses; "
               "lower means rare real values were left out (that is the protection) or made-up ones added.")
with tab_dist:
    st.plotly_chart(one_way_chart(quality["one_way"]), width="stretch", key="preview_one_way")
    st.caption("How to read: the share of rows that would have to change value to turn the synthetic column "
               "into the real one. 0 = identical distribution; below 0.05 is close.")
    st.plotly_chart(two_way_heatmap(quality["two_way"]), width="stretch", key="preview_two_way")
    st.caption("How to read: the same distance for every pair of columns taken together. A method that keeps "
               "columns independent shows dark cells where real columns are related (say, relationship and sex).")
with tab_game:
    game = quality["game"]
    if game.test_records == 0:
        st.info("Too few records (real or synthetic) to train and test a classifier: the game needs at least "
                "20 of each.")
    else:
        st.plotly_chart(distinguishing_chart(game.accuracy, game.low, game.high), width="stretch",
                        key="preview_game")
    st.caption(f"How to read: a {game.classifier} classifier was trained to tell real from synthetic records, "
               f"then tested on {game.test_records:,} records it had not seen. 50% means it cannot tell them "
               "apart (a coin flip); near 100% means synthetic records are easy to spot, usually because "
               "relationships between columns were lost.")
with tab_col:
    column = st.selectbox("Column", list(quality["pairs"]), key="preview_column")
    pair = quality["pairs"][column]
    real = np.bincount(pair.real, minlength=pair.cells)
    synthetic = np.bincount(pair.synthetic, minlength=pair.cells)
    st.plotly_chart(distribution_chart(pair.labels, real, synthetic, column), width="stretch",
                    key="preview_distribution")
    st.caption("How to read: blue bars are the real shares, orange the synthetic ones; in public bins for numbers.")

st.page_link("pages/5_Release.py", label="Next: download the release", icon=":material/arrow_forward:")
