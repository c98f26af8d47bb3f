"""Releases: every release made from the data in use, two side by side, and any of them downloaded again."""

import json

import pandas as pd
import streamlit as st

from app_support import state
from app_support.cached import quality
from app_support.pages import PREVIEW, RELEASE, RELEASES
from app_support.progress import run_with_progress
from app_support.sidebar import spending_lines
from dpsynth_core import METHODS
from dpsynth_core.evaluation.summaries import HEADLINES, headlines
from dpsynth_core.release.card import render_card_html
from dpsynth_core.wording import format_delta, ledger_rows
from dpsynth_core.workspace.releases import epsilon_words, settings_summary

st.title(RELEASES.title)
workspace = state.workspace()
loaded = state.data()
stored = workspace.releases.made_from(loaded["hash"])
st.markdown(
    f"Every release made from **{loaded['name']}** in this workspace, from the app or the command line, "
    "newest first. The same file uploaded again finds them by its fingerprint "
    f"(`{loaded['hash'][:12]}…`). The workspace is the file `{workspace.path}`."
)

if not stored:
    st.info("No release yet for this data. Make one on the Preview page.")
    st.page_link(PREVIEW.path, label="Go to Preview", icon=PREVIEW.icon)
    st.stop()


reports_by_release = {r.id: workspace.releases.reports(r.id) for r in stored}
st.dataframe(
    pd.DataFrame(
        [
            {
                "release": f"#{r.id}",
                "made": r.created,
                "method": METHODS[r.method].title if r.method in METHODS else r.method,
                "ε": epsilon_words(r),
                "δ": "" if r.card["guarantee"]["epsilon"] is None else format_delta(r.card["guarantee"]["delta"]),
                "rows": f"{r.rows:,}",
                "made with": "app" if r.source == "app" else "command line",
                "reports": len(reports_by_release[r.id]),
            }
            for r in stored
        ]
    ),
    hide_index=True,
    width="stretch",
)

spending = workspace.ledger.spending(loaded["hash"])
st.markdown(
    "**Spent on this data in all** (releases and reports): "
    + "; ".join(spending_lines(spending) or ["nothing"])
    + (" · :red[no guarantee: a method without one was used]" if spending.unguaranteed else "")
)

# --- two side by side ------------------------------------------------------------------------
st.subheader("Two releases side by side")
ids = [r.id for r in stored]
by_id = {r.id: r for r in stored}
c1, c2 = st.columns(2)
left_id = c1.selectbox(
    "Left",
    ids,
    index=min(1, len(ids) - 1),
    format_func=lambda i: f"#{i}: {by_id[i].method}, ε = {epsilon_words(by_id[i])}, {by_id[i].created[:16]}",
    key="releases_left",
)
right_id = c2.selectbox(
    "Right",
    ids,
    index=0,
    format_func=lambda i: f"#{i}: {by_id[i].method}, ε = {epsilon_words(by_id[i])}, {by_id[i].created[:16]}",
    key="releases_right",
)
chosen = [by_id[left_id]] + ([by_id[right_id]] if right_id != left_id else [])


st.markdown("**Settings and guarantee**")
st.dataframe(pd.DataFrame({f"#{r.id}": settings_summary(r) for r in chosen}), width="stretch")

st.markdown("**Compared with the real data** (for your eyes only: these are not covered by any guarantee)")
missing = [r for r in chosen if set(HEADLINES) - set(r.metrics)]
if missing and st.button("Compute the comparisons for these two", key="releases_compute"):
    for release in missing:
        entry = state.release_entry(release.id)

        def work(report, entry=entry, release=release):
            for step, name in enumerate(HEADLINES):
                report(step / len(HEADLINES), f"Release #{entry['id']}: {HEADLINES[name].split(' (')[0]}")
                quality(entry, name, loaded["frame"], release.settings["declaration"])
            return entry

        run_with_progress(work, title=f"Release #{release.id}")
        state.save_metrics(entry)
    st.rerun()
table = pd.DataFrame({f"#{r.id}": headlines(r.metrics) for r in chosen}).reindex(list(HEADLINES.values()))
st.dataframe(table.astype(object).where(table.notna(), "not computed yet"), width="stretch")
st.caption("Computed when you open the Preview's tabs for a release, or with the button above; kept with the release.")

st.markdown("**Download again**")
for side, (column, release) in enumerate(zip(st.columns(2), chosen)):
    stem = state.download_stem(release.id)
    with column:
        st.markdown(f"Release #{release.id}")
        st.download_button(
            "Synthetic data (CSV)",
            release.csv_bytes,
            file_name=f"{stem}_synthetic.csv",
            mime="text/csv",
            key=f"releases_csv_{side}_{release.id}",
            on_click="ignore",
        )
        st.download_button(
            "Release card (HTML)",
            state.shareable(release.id, render_card_html(release.card)),
            file_name=f"{stem}_card.html",
            mime="text/html",
            key=f"releases_card_{side}_{release.id}",
            on_click="ignore",
        )
        st.download_button(
            "Release card (JSON)",
            state.shareable(release.id, json.dumps(release.card, indent=2)),
            file_name=f"{stem}_card.json",
            mime="application/json",
            key=f"releases_card_json_{side}_{release.id}",
            on_click="ignore",
        )
        for made in reports_by_release[release.id][:1]:
            st.download_button(
                "Stakeholder report (HTML)",
                state.shareable(release.id, made["html"]),
                file_name=f"{stem}_report.html",
                mime="text/html",
                key=f"releases_report_{side}_{release.id}",
                on_click="ignore",
            )
        if st.button("Open on the Release page", key=f"releases_open_{side}_{release.id}"):
            st.session_state[state.CURRENT] = release.id
            st.switch_page(RELEASE.path)

with st.expander("Share releases with reviewers (a link that opens them in review mode)"):
    st.markdown(
        "A reviewer link opens only the releases you choose: their cards, reports and synthetic rows, and "
        "the Learn page. Never the real data, the comparisons, the file's name or these pages."
    )
    shared = st.multiselect("Releases to share", ids, default=ids[:1], format_func=lambda i: f"#{i}", key="review_ids")
    note = st.text_input("Who it is for (kept with the link)", key="review_note")
    if st.button("Make a reviewer link", key="review_make", disabled=not shared):
        token = workspace.access.create_link(shared, note)
        address = (st.context.url or "http://localhost:8501").split("/Releases")[0].rstrip("/")
        st.code(f"{address}/?review={token}", language=None)
        st.caption("Shown once (only a hash of it is kept). Revoke links with `python -m dpsynth_core review-link`.")

with st.expander("The full ledger of this data (every spend, oldest first)"):
    st.dataframe(pd.DataFrame(ledger_rows(workspace.ledger.spends(loaded["hash"]))), hide_index=True, width="stretch")
    st.caption("The same ledger prints from the command line: `python -m dpsynth_core ledger`.")
