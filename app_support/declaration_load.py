"""The Domain page's *Load or save a declaration*: a declaration or data dictionary loaded against the table's
columns (applied whole, in part, or, for a table read without its header line, giving the file's fields its names),
or a policy saved in the workspace reused. Names only: no value of the table is read."""

from __future__ import annotations

import streamlit as st

from app_support import state
from app_support.markdown import literal
from app_support.uploads import keep_dropped, kept_file
from dpsynth_core import DomainError
from dpsynth_core.data.formats import DECLARED_READING, documented_options, reading_words
from dpsynth_core.domain import editing
from dpsynth_core.domain.declaration import DICTIONARY_WORDS
from dpsynth_core.wording import counted

#: A declaration to apply once the file in use is read again under its names (:func:`_offer_names`).
_PENDING = "domain_load_pending"


def load_or_save(declaration: dict, columns_in_data: list) -> None:
    """Draw the section's widgets and apply what the publisher chooses (each choice reruns the page)."""
    pending = st.session_state.get(_PENDING)
    if pending is not None and list(pending.get("columns") or {}) == list(columns_in_data):
        st.session_state.pop(_PENDING)  # the file was read again under the declaration's names: it applies whole
        state.set_declaration(pending)
        st.rerun()
    st.markdown(f"A declaration saved once serves every release of the same kind of table. {DICTIONARY_WORDS}")
    upload = st.file_uploader("Load a declaration", type=["json", "csv", "xml", "xlsx", "xls"], key="domain_load")
    if upload is not None and st.session_state.get("domain_load_done") != upload.file_id:
        st.session_state["domain_load_done"] = upload.file_id
        st.session_state.pop("domain_load_partial", None)
        try:
            loaded = editing.load_for(upload.getvalue(), upload.name, columns_in_data)
        except DomainError as problem:
            st.error(f"That declaration cannot be used: {problem}", icon=":material/error:")
        else:
            if loaded.fits:
                state.set_declaration(loaded.spec)
                st.rerun()
            st.session_state["domain_load_partial"] = {
                "spec": loaded.spec,
                "matching": list(loaded.matching),
                "problem": loaded.problem,
                "names": list(loaded.names),
                "reading": _documented(loaded.reading),
            }
    partial = st.session_state.get("domain_load_partial")
    if partial and partial.get("reading"):
        _offer_reading(partial)
    elif partial and partial.get("names"):
        _offer_names(partial)
    elif partial and not partial["matching"]:
        st.error(f"That declaration cannot be used: {partial['problem']}", icon=":material/error:")
    elif partial:
        st.warning(
            f"That declaration does not fit this table as a whole: {partial['problem']}. It declares "
            f"{len(partial['matching'])} of this table's {len(columns_in_data)} columns: "
            + ", ".join(literal(name) for name in partial["matching"])
            + ".",
            icon=":material/warning:",
        )
        if st.button(
            f"Apply the {counted(len(partial['matching']), 'matching column')}, keep the others as they are",
            key="domain_load_apply",
        ):
            state.set_declaration(
                editing.apply_columns(declaration, partial["spec"], partial["matching"], columns_in_data)
            )
            st.session_state.pop("domain_load_partial")
            st.rerun()
    policies = [p for p in state.workspace().choices.policies() if set(p["columns"]) >= set(columns_in_data)]
    if policies:
        c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
        chosen = c1.selectbox(
            "Or reuse a policy saved in your workspace", [p["name"] for p in policies], key="domain_policy_choice"
        )
        if c2.button("Use this policy", key="domain_policy_use"):
            state.set_declaration(state.workspace().choices.policy(chosen))
            st.rerun()


def _offer_names(partial: dict) -> None:
    """A table read without its header line (column_1, ...) and a declaration of as many columns: offer to read the
    file in use again with the declaration's names for its fields, in order, and then apply the declaration."""
    names, kept = partial["names"], kept_file()
    shown = ", ".join(literal(n) for n in names[:8]) + (", ..." if len(names) > 8 else "")
    st.warning(
        f"This table was read without a header line, so its columns are named column_1, column_2, ... by position, "
        f"and that declaration names {len(names):,} columns ({shown}). If they are the file's fields in the file's "
        "order, as its documentation lists them, name the columns by it.",
        icon=":material/title:",
    )
    if kept is None:  # an example, or a file this server no longer keeps: the Data page reads it again
        st.caption("Type them in the Data page's Column names, in order, after uploading the file again.")
        return
    if st.button(f"Name the {len(names):,} columns by it, in order, and use it", key="domain_load_names"):
        reading = {k: v for k, v in state.data()["reading"].items() if k not in ("header_rows", "names")}
        keep_dropped(kept, {**reading, "header_rows": 0, "names": tuple(names)})  # read before the next page runs
        st.session_state[_PENDING] = partial["spec"]
        st.session_state.pop("domain_load_partial", None)
        st.rerun()


def _documented(reading: dict) -> dict:
    """Of how a loaded declaration's documentation says the file is written (a data package's dialect), what the file
    in use was not read with and the publisher left to the reader
    (:func:`~dpsynth_core.data.formats.documented_options`); nothing for an example or a file this server no longer
    keeps, which cannot be read again here."""
    kept = kept_file()
    if not reading or kept is None:
        return {}
    used = state.data()["reading"]
    return documented_options(reading, kept.name, {k: used.get(k) for k in DECLARED_READING})


def _offer_reading(partial: dict) -> None:
    """A declaration that does not fit the table as read, whose documentation says how the file is written otherwise
    (a data package's delimiter, header or encoding): offer to read the file in use so, and then apply it."""
    said, kept = reading_words(partial["reading"]), kept_file()
    st.warning(
        f"That declaration's documentation says how the file is written: {said}. The file was read otherwise, so the "
        "declaration does not fit the table as it was read: read it as the documentation says.",
        icon=":material/title:",
    )
    if kept is None:  # no longer kept by this server: the Data page reads it again
        st.caption("Upload the file again on the Data page, then load the declaration again.")
        return
    if st.button("Read the file as its documentation says, and use the declaration", key="domain_load_reading"):
        keep_dropped(kept, {**state.data()["reading"], **partial["reading"]})  # read before the next page runs
        st.session_state[_PENDING] = partial["spec"]
        st.session_state.pop("domain_load_partial", None)
        st.rerun()
