"""The shared page frame: styles, state, and the sidebar with the data in use and its privacy ledger."""

from __future__ import annotations

import threading

import streamlit as st

from app_support import state
from app_support.pages import DATA
from app_support.uploads import read_dropped
from dpsynth_core.privacy.accounting import ADD_REMOVE, is_person_relation
from dpsynth_core.privacy.spending import Spending
from dpsynth_core.wording import counted, format_delta, format_epsilon


@st.cache_resource(show_spinner=False)
def _warm_up() -> None:
    """Load the exact samplers, the default method's code and the chart renderer once per server in the
    background (each takes a second or more to start), so the first Generate or report is as quick as the
    next ones. No data is involved: the method runs once on a made-up table (:func:`warm_up_release`)."""
    import threading

    def load() -> None:
        from dpsynth_core.privacy.noise import make_noise_source
        from dpsynth_core.release import warm_up_release

        make_noise_source(None).discrete_laplace(1, 1.0)
        warm_up_release()
        import vl_convert  # the report's chart renderer starts its engine on first use

        vl_convert.vegalite_to_svg({"mark": "point", "data": {"values": [{}]}})

    threading.Thread(target=load, name="dpsynth-warm-up", daemon=True).start()


def frame(title: str, needs_data: bool) -> None:
    """Run before every page (from ``app.py``): state, styles, the sidebar. A page that ``needs_data``
    and has none (this browser's file must be uploaded again) shows only its title and what to do."""
    _warm_up()
    state.ensure_state()
    _read_dropped(title)
    state.save_session()
    st.markdown(_CSS, unsafe_allow_html=True)
    draw_sidebar()
    state.store_identity()
    if needs_data and not state.has_data():
        st.title(title)
        upload_again()
        st.page_link(DATA.path, label="Go to Data", icon=DATA.icon)
        st.stop()


def _read_dropped(title: str) -> None:
    """Read the file dropped on the Data page (:func:`~app_support.uploads.read_dropped`), whichever page was asked
    for next: its notice shows on the Data page as before, or at once on any other page, as does one a Data page's
    run left unshown (the publisher clicked on first), which would otherwise show, stale, on the next visit there."""
    notice = read_dropped()
    if title == DATA.title:
        if notice is not None:
            state.flash(*notice)
        return
    left = state.take_flash()  # taken either way: a newer file's notice says more
    notice = notice or left
    if notice is None:
        return
    if notice[0] == "error":
        st.error(notice[1], icon=":material/error:")
    else:
        st.toast(notice[1], icon=":material/check_circle:")


def upload_again() -> None:
    """Say plainly which file this browser was working on and that it must be uploaded again."""
    missing = st.session_state[state.MISSING_UPLOAD]
    st.warning(
        f"You were working on **{missing['name']}**, which must be uploaded again: uploaded files are "
        "kept only in the app's memory, never saved, so they are gone after a restart. Upload it under "
        "'My own file' on the Data page (its privacy ledger, releases and declaration come back with it), "
        "or choose a bundled example.",
        icon=":material/history:",
    )


def file_size(size: int) -> str:
    """Bytes in words: ``46 bytes``, ``3.9 kB``, ``3.8 MB``."""
    if size < 1000:
        return f"{size:,} byte{'s' if size != 1 else ''}"
    if size < 1_000_000:
        return f"{size / 1e3:.1f} kB"
    return f"{size / 1e6:.1f} MB"


def spending_lines(spending: Spending) -> list[str]:
    """The total per record (every spend converted: what the lifetime budget counts), then one line per
    unit the draws stated, in plain numbers."""
    lines = []
    if spending.per_record is not None and (len(spending.relations) > 1 or spending.unconvertible):
        total = spending.per_record
        text = f"ε = {format_epsilon(total.epsilon)}" + (f", δ = {format_delta(total.delta)}" if total.delta else "")
        lines.append(
            f"**{text}** per record in all (each draw converted to adding or removing one record: "
            "a person's ε counts twice; the lifetime budget counts this)"
        )
    if spending.unconvertible:
        lines.append(
            ":red[**no total per record**]: a draw protects only against a record being replaced (the row "
            "count is released exactly)"
        )
    for total in spending.relations:
        unit = (
            "adding or removing one record"
            if total.neighbouring == ADD_REMOVE
            else total.neighbouring.replace("add/remove", "adding or removing")
            if is_person_relation(total.neighbouring)
            else "replacing one record (row count public)"
        )
        text = f"ε = {format_epsilon(total.epsilon)}"
        if total.delta > 0:
            text += f", δ = {format_delta(total.delta)}"
        line = f"**{text}** for {unit}"
        if total.added_up is not None:  # composition did better than adding up
            line += f" (ε = {format_epsilon(total.added_up)} by adding up each draw's and report's ε)"
        lines.append(line)
    return lines


_PLACE = threading.local()  # the sidebar's place in the current run (a session's runs share its script thread)


def draw_sidebar() -> None:
    """The sidebar, in a place of its own that :func:`redraw_sidebar` can fill again in the same run."""
    _PLACE.value = st.sidebar.empty()
    redraw_sidebar()


def redraw_sidebar() -> None:
    """Draw the sidebar again, over the one this run drew (after a draw changed the ledger)."""
    with _PLACE.value.container():
        st.markdown("### Data in use")
        if not state.has_data():
            st.markdown(f"**None**: upload {st.session_state[state.MISSING_UPLOAD]['name']} again on the Data page")
            return
        info = state.data()
        spending = state.workspace().ledger.spending(info["hash"])
        count = len(info["info"]["columns"])
        st.markdown(
            f"**{info['name']}**  \n{info['info']['rows']:,} row{'s' if info['info']['rows'] != 1 else ''}, "
            f"{count} column{'s' if count != 1 else ''}, {file_size(info['info']['bytes'])}"
        )
        st.markdown("### Privacy budget spent on it")
        if spending.unguaranteed:
            st.markdown(":red[**no guarantee**]")
            st.caption(
                f"{counted(spending.unguaranteed, 'draw')} used a method without a differential-privacy guarantee, "
                "so no total guarantee holds for this data."
            )
        if spending.relations:
            for line in spending_lines(spending):
                st.markdown(line)
        elif not spending.unguaranteed:
            st.markdown("**ε = 0**: nothing drawn yet")
        limit = spending.lifetime_epsilon
        if limit is not None:
            used = 1.0 if spending.unconvertible else min(1.0, spending.total_epsilon / limit)
            st.progress(used, text=f"Lifetime budget ε = {limit:g}: {format_epsilon(spending.left(), down=True)} left")
        recorded = (
            f"{spending.draws} draw{'s' if spending.draws != 1 else ''} or report"
            f"{'s' if spending.draws != 1 else ''} recorded on this file"
            if spending.draws
            else "Nothing recorded on this file yet"
        )
        st.caption(
            f"{recorded}, kept across reloads and restarts. Only the Generate, report and rows-per-person check "
            "buttons spend; each says what it costs.",
            help="Every release from the same data adds up: two draws at ε = 1 protect people about as "
            "much as one draw at ε = 2. Totals come from the privacy accountant: draws protecting "
            "against a record being added or removed, and draws protecting against a record being "
            "replaced, are different promises and are shown apart.",
        )


_CSS = """
<style>
html, body, [class*="css"] { font-size: 18px; }
div[data-testid="stMetricValue"] { font-size: 1.6rem; }
.block-container { padding-top: 2rem; max-width: 1200px; }
</style>
"""
