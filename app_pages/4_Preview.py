"""Preview: generate (each draw recorded in the workspace ledger) and compare with the real data.

The synthetic table shows as soon as the core has made it; each comparison runs when its tab is
opened, once per release, and is kept with the release.
"""

import functools
import json

import streamlit as st

from app_support import state
from app_support.cached import counting_source, dominant_values, price
from app_support.comparisons import show_comparisons, show_notes
from app_support.gates import complete_domain, declaration_fits
from app_support.pages import PREVIEW, RELEASE
from app_support.progress import run_with_progress
from app_support.sidebar import redraw_sidebar
from dpsynth_core import METHODS, DPSynthError
from dpsynth_core.release import prepare
from dpsynth_core.usecases import draw, draw_help, draw_label, projection
from dpsynth_core.wording import rows_in_words
from dpsynth_core.workspace import BudgetExceeded, WorkspaceGone

st.title(PREVIEW.title)

loaded = state.data()
declaration = state.declaration()
settings = state.settings()
key = state.settings_key(settings)
workspace = state.workspace()
domain = complete_domain(declaration)
checked = state.person_check(domain.person)  # read here: the draw runs in a worker, without the session

info = METHODS[settings["method"]]
options = state.options(settings)
st.markdown(
    f"**Method:** {info.title} · **ε** = {settings['epsilon']:g}"
    + (f" · **ρ** = {settings['rho']:g}" if info.cls.uses_tolerance(domain) else "")
    + " · **rows:** "
    + rows_in_words(settings["rows"], info.cls.default_rows, info.cls.row_count_is_public)
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


def header() -> None:
    """What a draw costs and leads to, a refusal, and the button (drawn after a draw runs, to count it)."""
    earlier = workspace.releases.draws_with(loaded["hash"], key)
    refusal = None
    try:
        after = projection(workspace, loaded["hash"], charge)
    except BudgetExceeded as problem:
        refusal, after = str(problem), None
    with top:
        if earlier:
            st.caption(
                f"You made {earlier} draw{'s' if earlier > 1 else ''} with exactly these settings. A new draw is a "
                "new use of the data: choosing the best-looking of several draws would leak information, so "
                "every draw is counted."
            )
        declaration_fits(loaded, declaration)  # a wrong kind or date format, said before it costs a draw
        if refusal:
            st.error(refusal + ".", icon=":material/block:")
        st.button(
            draw_label(charge, after, earlier, (declaration.get("person") or {}).get("name") or "person"),
            type="secondary" if earlier else "primary",
            key="preview_generate",
            help=draw_help(after),
            disabled=refusal is not None,
        )


top = st.container()  # the header, drawn once the click (read from the button's state) has been handled
if st.session_state.get("preview_generate"):  # the draw shows its result in this same run (no second run)

    def run(report):  # priced, checked and recorded before the data is read (dpsynth_core.usecases)
        kept = counting_source(None, loaded["hash"], declaration, build=False) if info.cls.reads_sources else None
        data = loaded["frame"] if kept is None else kept  # kept: encoded after an earlier draw (same release)
        chosen = dict(method=settings["method"], rho=settings["rho"], rows=settings["rows"], **options)
        return draw(
            prepare(data, declaration, settings["epsilon"], person_check=checked, **chosen),
            data,
            workspace,
            loaded["hash"],
            name=loaded["name"],
            stored_settings=settings,
            settings_key=key,
            progress=report,
            table_later=True,  # written once the table is on screen (settle), or when first read
        )

    try:
        made, _ = run_with_progress(
            run,
            title="Measuring the data with noise",
            expected=workspace.releases.typical_seconds(loaded["hash"], settings["method"]),
        )
    except BudgetExceeded as problem:
        header()
        st.error(f"{problem}. Nothing was drawn and nothing was recorded.", icon=":material/block:")
        st.stop()
    except WorkspaceGone:  # said in one line by app.py
        raise
    except DPSynthError as problem:
        header()
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


@functools.cache  # once per run of this page: the page's script defines it anew each run
def settle() -> None:
    """The header and, after a draw, its table written to the workspace, the session saved and the
    sidebar's ledger redrawn (all count the draw): once, when the new table is on its way to the browser."""
    if st.session_state.get("preview_generate"):
        workspace.releases.write_tables()
        state.save_session()
        redraw_sidebar()  # the ledger's new total
    header()


if not st.session_state.get("preview_generate"):
    settle()

# --- the release on show -------------------------------------------------------------------
entry = state.current_release()
if entry is None or state.settings_key(entry["settings"]) != key:
    latest = workspace.releases.latest(loaded["hash"], key)
    entry = state.release_entry(latest.id) if latest else None
if entry is None:
    settle()
    st.info(
        "Press the button to make a synthetic table with these settings. For most methods it takes a second "
        "or two on a table the size of the example. The table will have these columns:"
    )
    # its columns, and the browser loads its table code now, not after the first draw (0.7 s on 2 cores)
    st.dataframe({name: [] for name in domain.kept}, hide_index=True, width="stretch", height=80)
    st.stop()
st.session_state[state.CURRENT] = entry["id"]

release_data = entry["data"]
if len(release_data) == 0:
    settle()
    st.warning(
        "No synthetic record passed the privacy test, so there is nothing to release. With few records, "
        "lower k in the plausible-deniability test or choose another method.",
        icon=":material/warning:",
    )
    st.stop()
made = f" in {entry['seconds']:.1f} s" if entry.get("seconds") else ""
st.success(
    f"Synthetic table ready: {len(release_data):,} rows{made} (release #{entry['id']}; "
    f"draw {workspace.releases.draws_with(loaded['hash'], key)} with these settings)."
)
# the card's plain notes (public: a small noisy row count, empty text), then the publisher's (they read the data)
show_notes(entry["card"].get("notes", []), dominant_values(entry, loaded["frame"], domain))
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

show_comparisons(entry, loaded["frame"], declaration, domain, settings, drawn=settle)
if info.cls.reads_sources:  # after the table is on screen: the next draw reads the table without encoding it
    counting_source(loaded["frame"], loaded["hash"], declaration)

st.page_link(RELEASE.path, label="Next: download the release and make a report", icon=":material/arrow_forward:")
