"""Release: download the synthetic CSV, the card and the declaration; make a stakeholder report."""

import streamlit as st

from app_support import state
from app_support.cards import show_card, show_page
from app_support.downloads import release_downloads
from app_support.markdown import literal
from app_support.pages import PREVIEW, RELEASE
from app_support.progress import run_with_progress
from app_support.report_choices import report_choices
from dpsynth_core import usecases
from dpsynth_core.evaluation import report as reports
from dpsynth_core.evaluation import report_render
from dpsynth_core.wording import cost_words, format_delta, format_epsilon, protects
from dpsynth_core.workspace import BudgetExceeded

st.title(RELEASE.title)

entry = state.current_release()
if entry is None:
    st.info("There is no synthetic table yet for the current settings. Generate one on the Preview page.")
    st.page_link(PREVIEW.path, label="Go to Preview", icon=PREVIEW.icon)
    st.stop()

workspace = state.workspace()
loaded = state.data()
card = entry["card"]
g = card["guarantee"]
st.markdown(f"### The guarantee\n{g['plain_words']}")
if g["epsilon"] is None:
    st.error(
        "This method gives **no differential-privacy guarantee**. Use it for teaching or comparison, "
        "not for a real release.",
        icon=":material/gpp_bad:",
    )
elif not protects(g):
    st.error(
        "This release's guarantee **protects no one in practice** (its epsilon or delta is far too large: see below). "
        "Use it for teaching or comparison, not for a real release; another method"
        + (", or fewer rows per person," if card.get("privacy_unit", {}).get("person_column") else "")
        + " gives a guarantee that means something.",
        icon=":material/gpp_bad:",
    )
note = card.get("method_details", {}).get("per_record_note")
if note:
    st.warning(literal(note), icon=":material/info:")
c1, c2, c3 = st.columns(3)
c1.metric("ε (epsilon)", "none" if g["epsilon"] is None else format_epsilon(g["epsilon"]))
c2.metric("δ (delta)", "none" if g["epsilon"] is None else format_delta(g["delta"]))
c3.metric("Synthetic rows", f"{len(entry['data']):,}")
st.markdown(f"**Method:** {card['method']['title']} · release #{entry['id']}")
st.caption(
    ("" if g["neighbouring"] is None else f"Privacy unit: {g.get('unit') or g['neighbouring']}. ")
    + f"Randomness: {card['noise_source']}. The random seed is never part of a release."
)

stem = state.download_stem(entry["id"])
release_downloads(entry, stem)
st.markdown(
    "**What you can share:** the synthetic CSV, the release card, the declaration, the rerun script and "
    "settings (an auditor reruns the release on the same file: new noise, recorded in the ledger) and the "
    "stakeholder report below. **Keep to yourself:** the Preview comparisons, which use the real data without "
    "noise."
)
st.caption(
    "To rerun: save the script, the settings and the declaration beside the same data file, then run the "
    f"script with this app's Python from any folder (.venv/bin/python rerun_{stem}.py {loaded['name']} in the "
    "app's folder: scripts/start-app.sh installed the library there)."
)

# --- the stakeholder report ------------------------------------------------------------------
st.subheader("A report for stakeholders")
st.markdown(
    "The card says what was done; a report also says **how close the synthetic table is to the real "
    "one**. Its quality figures are themselves measured with differential privacy, from a small extra "
    "budget you choose, so the report can be shared like the release. It comes as a self-contained HTML "
    "page and as a PDF."
)
base = entry["settings"]["epsilon"]
chosen = report_choices(card, entry["settings"]["declaration"], entry["data"], base)

if chosen.make:
    epsilon = chosen.share * base
    try:

        def build(report):  # priced, checked and recorded before the data is read (dpsynth_core.usecases)
            report(0.1, "Measuring the distances with noise")
            return usecases.report(
                workspace,
                loaded["hash"],
                entry["id"],
                card=card,
                real=loaded["frame"],
                synthetic=entry["data"],
                declaration=entry["settings"]["declaration"],
                epsilon=epsilon,
                name=loaded["name"],
                pairs=chosen.pairs,
                chart_columns=chosen.charts,
                columns=chosen.columns,
            )

        run_with_progress(build, title="Measuring the distances with noise")
    except (BudgetExceeded, reports.ReportError) as problem:
        st.error(f"{problem}.", icon=":material/block:")
    else:
        st.rerun()

made = workspace.releases.reports(entry["id"])
if made:
    latest = made[0]
    st.success(
        f"Report made {latest['created']} (spent {cost_words(workspace.ledger.spend(latest['spend_id']))}, as "
        "the ledger records it). Download it, or open it below."
    )
    r1, r2 = st.columns(2)
    r1.download_button(
        "Report (HTML)",
        state.shareable(entry["id"], latest["html"]),
        file_name=f"{stem}_report.html",
        mime="text/html",
        key="release_report_html",
        type="primary",
        on_click="ignore",
    )
    shared_page = state.shareable(entry["id"], latest["html"]).decode("utf-8")
    r2.download_button(
        "Report (PDF)",
        lambda page=shared_page: report_render.html_to_pdf(page),
        file_name=f"{stem}_report.pdf",
        mime="application/pdf",
        key="release_report_pdf",
        on_click="ignore",
        disabled=report_render.find_chromium() is None,
        help=None
        if report_render.find_chromium()
        else "Needs Chromium on this server (apt-get install chromium); the HTML prints to PDF from any browser.",
    )
    with st.expander("The report, as stakeholders will see it"):
        show_page(latest["html"])

st.subheader("The release card, as stakeholders will see it")
show_card(card)
