"""Preview: generate (each draw recorded in the workspace ledger) and compare with the real data.

The synthetic table shows as soon as the core has made it; each comparison runs when its tab is
opened, once per release, and is kept with the release.
"""

import json

import pandas as pd
import streamlit as st

from app_support import risk_tab, state
from app_support.cached import price, quality
from app_support.comparisons import show_changed_cells, show_game, show_one_column
from app_support.progress import run_with_progress
from dpsynth_core import METHODS, DPSynthError, TableDomain
from dpsynth_core.evaluation.charts import fidelity_chart, one_way_chart, two_way_heatmap
from dpsynth_core.evaluation.values import shape_warnings, value_table
from dpsynth_core.release.budgeted import draw, projection
from dpsynth_core.workspace import BudgetExceeded, format_epsilon

st.title("4. Preview")

loaded = state.data()
declaration = state.declaration()
settings = state.settings()
key = state.settings_key(settings)
workspace = state.workspace()
try:
    domain = TableDomain.from_json(declaration)
    problems = domain.problems()
except DPSynthError as problem:  # a declaration that does not fit the schema
    problems = list(getattr(problem, "problems", None) or [str(problem)])
if problems:
    shown = "; ".join(problems[:30]) + (
        f"; and {len(problems) - 30:,} more (see the Domain page)" if len(problems) > 30 else ""
    )
    st.error(f"The domain declaration is not complete ({len(problems)} thing(s) to fix): {shown}")
    st.page_link("app_pages/2_Domain.py", label="Finish the domain declaration", icon=":material/rule:")
    st.stop()

info = METHODS[settings["method"]]
options = state.options(settings)
default_rows = info.cls.default_rows
st.markdown(
    f"**Method:** {info.title} · **ε** = {settings['epsilon']:g}"
    + (f" · **ρ** = {settings['rho']:g}" if info.cls.uses_tolerance(domain) else "")
    + " · **rows:** "
    + (
        f"{settings['rows']:,} (your choice)"
        if settings["rows"]
        else f"{default_rows:,} tries (the method's own number, fixed in advance)"
        if default_rows
        else "the real count (public under this method's privacy unit)"
        if info.cls.row_count_is_public
        else "the real count plus noise"
    )
)

# --- the cost of a draw, stated before it runs: exactly what the ledger will record ------------
try:
    charge = price(
        json.dumps(declaration),
        settings["epsilon"],
        settings["method"],
        settings["rows"],
        json.dumps(options, sort_keys=True),
    )
except DPSynthError as problem:  # the method refuses these settings, before any data is read
    st.error(f"The release could not be made: {problem}")
    st.stop()
earlier = workspace.draws_with(loaded["hash"], key)
refusal = None
try:
    after = projection(workspace, loaded["hash"], charge)
except BudgetExceeded as problem:
    refusal, after = str(problem), None
if not charge.guaranteed:
    cost = "no guarantee: this method's release is not differentially private"
else:
    cost = f"spends ε = {format_epsilon(charge.epsilon)}"
    total = next((r.epsilon for r in after.relations if r.neighbouring == charge.neighbouring), None) if after else None
    if earlier and total is not None:
        cost += f"; the total on this data becomes ε = {format_epsilon(total)}"
label = ("Draw again" if earlier else "Generate synthetic data") + f" ({cost})"
if earlier:
    st.caption(
        f"You made {earlier} draw{'s' if earlier > 1 else ''} with exactly these settings. A new draw is a "
        "new use of the data: choosing the best-looking of several draws would leak information, so "
        "every draw is counted."
    )
if refusal:
    st.error(refusal + ".", icon=":material/block:")
clicked = st.button(
    label, type="secondary" if earlier else "primary", key="preview_generate", disabled=refusal is not None
)

if clicked:

    def run(report):  # priced, checked and recorded before the data is read (dpsynth_core.release.budgeted)
        return draw(
            loaded["frame"],
            declaration,
            settings["epsilon"],
            workspace=workspace,
            fingerprint=loaded["hash"],
            name=loaded["name"],
            settings=settings,
            settings_key=key,
            method=settings["method"],
            rho=settings["rho"],
            rows=settings["rows"],
            progress=report,
            **options,
        )

    try:
        made, _ = run_with_progress(
            run,
            title="Measuring the data with noise",
            expected=workspace.typical_seconds(loaded["hash"], settings["method"]),
        )
    except BudgetExceeded as problem:
        st.error(f"{problem}. Nothing was drawn and nothing was recorded.", icon=":material/block:")
        st.stop()
    except DPSynthError as problem:
        st.error(f"The release could not be made: {problem}")
        st.stop()
    release, release_id = made.release, made.release_id
    state.remember_release(
        release_id,
        {
            "id": release_id,
            "data": release.data,
            "card": release.card,
            "settings": settings,
            "publisher_report": release.publisher_report,
            "metrics": {},
            "seconds": made.seconds,
        },
    )
    state.save_session()
    st.rerun()

# --- the release on show -------------------------------------------------------------------
entry = state.current_release()
if entry is None or state.settings_key(entry["settings"]) != key:
    latest = workspace.latest_release(loaded["hash"], key)
    entry = state.release_entry(latest.id) if latest else None
if entry is None:
    st.info(
        "Press the button to make a synthetic table with these settings. For most methods it takes a second "
        "or two on a table the size of the example."
    )
    st.stop()
st.session_state[state.CURRENT] = entry["id"]

release_data = entry["data"]
if len(release_data) == 0:
    st.warning(
        "No synthetic record passed the privacy test, so there is nothing to release. With few records, "
        "lower k in the plausible-deniability test or choose another method.",
        icon=":material/warning:",
    )
    st.stop()
made = f" in {entry['seconds']:.1f} s" if entry.get("seconds") else ""
st.success(
    f"Synthetic table ready: {len(release_data):,} rows{made} (release #{entry['id']}; "
    f"draw {workspace.draws_with(loaded['hash'], key)} with these settings)."
)
pass_rate = entry["publisher_report"]["columns"].get("pass_rate")
if pass_rate is not None:
    st.caption(
        f"Privacy test: {pass_rate:.1%} of {entry['publisher_report']['columns']['candidates']:,} candidate "
        "records passed (for your eyes only: the rate depends on the data)."
    )
st.info(
    "**For you only.** The comparisons below use the real data, so they are not covered by the privacy "
    "guarantee and are not part of the release. Do not share them (the Release page makes a report that "
    "can be shared), and do not redraw until a chart 'looks right': each draw spends budget.",
    icon=":material/lock:",
)

shapes = quality(entry, "values", loaded["frame"], declaration)  # numbers and dates value by value (cached)
if shape_warnings(shapes):
    st.warning(
        "**Values that changed shape** (the bins can look fine): " + "; ".join(shape_warnings(shapes)) + ". "
        "Marked ⚠ in the charts; see the table under Marginal distances.",
        icon=":material/warning:",
    )
flagged = {name for name, s in shapes.items() if s["shape"]}
changed = {name: r for name, r in entry["publisher_report"].get("encoding", {}).items() if r.get("out_of_domain")}
TABS = [
    "Synthetic rows",
    "Fidelity",
    "Marginal distances",
    "Distinguishing game",
    "One column",
    f"Cells outside the declaration ({sum(r['out_of_domain'] for r in changed.values()):,})",
    "Empirical risk",
]
tabs = st.tabs(TABS, key="preview_tab", on_change="rerun")


def measure(name: str, title: str):
    """A publisher-only measure, computed when its tab is first opened (with progress), then kept."""
    if name not in entry["metrics"]:
        run_with_progress(lambda report: quality(entry, name, loaded["frame"], declaration, report), title=title)
        state.save_metrics(entry)
    return entry["metrics"][name]


with tabs[0]:
    if tabs[0].open:
        st.markdown(
            f"The first rows of the synthetic table ({len(release_data):,} rows in all). This is what the "
            "Release page lets you download."
        )
        st.dataframe(release_data.head(200), hide_index=True, width="stretch", height=420)
with tabs[1]:
    if tabs[1].open:
        fidelity = measure("fidelity", "Comparing which values each column uses")
        st.plotly_chart(fidelity_chart(fidelity, flagged), width="stretch", key="preview_fidelity")
        st.caption(
            "How to read: F = 1 means the synthetic column uses exactly the values the real one uses; "
            "lower means rare real values were left out (that is the protection) or made-up ones added."
        )
with tabs[2]:
    if tabs[2].open:
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
with tabs[3]:
    if tabs[3].open:
        show_game(measure("game", "Training a classifier to tell real from synthetic records"))
with tabs[4]:
    if tabs[4].open:
        show_one_column(entry, loaded["frame"], declaration, domain)
with tabs[5]:
    if tabs[5].open:
        show_changed_cells(changed)
with tabs[6]:
    if tabs[6].open:
        risk_tab.draw(entry, loaded["frame"], declaration, settings)

st.page_link(
    "app_pages/5_Release.py", label="Next: download the release and make a report", icon=":material/arrow_forward:"
)
