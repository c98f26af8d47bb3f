"""The Domain page's marks for columns started from a file's codebook (an SPSS, Stata or SAS file's metadata):
what each took from it, and the publisher's tick that confirms it (``notes["codebook"]`` of the declaration,
:mod:`dpsynth_core.domain.templates`), and the codebook offered beside a declaration saved for the same records."""

from __future__ import annotations

import streamlit as st

from app_support import state
from dpsynth_core.domain.templates import codebook_words, unconfirmed_columns, with_codebook


def codebook_entries(declaration: dict) -> dict:
    """The codebook's entry of each column it started (copies, ticked on this run), by column name."""
    entries = (((declaration.get("notes") or {}).get("codebook") or {}).get("columns")) or {}
    return {name: dict(entry) for name, entry in entries.items()}


def pending(entries: dict, name: str, spec: dict) -> list[str]:
    """The column's confirmation still to give (a problem's words), unless it is dropped."""
    return [] if spec.get("type") == "drop" else unconfirmed_columns({"codebook": {"columns": entries}}, [name])


def codebook_mark(entries: dict, name: str, key: str) -> None:
    """What the column took from the codebook, and the tick that confirms it (kept in ``entries``)."""
    st.caption(
        ":material/menu_book: Started from the file's codebook (its metadata, no record read): "
        f"{codebook_words(entries[name])}. Check it against the documentation."
    )
    entries[name]["confirmed"] = st.checkbox(
        "Checked against the documentation", value=entries[name].get("confirmed") is not False, key=key
    )


def confirm_shown(entries: dict, specs: dict, shown: list, prefix: str, index_of: dict) -> dict:
    """A button that ticks every column shown whose codebook start is still to confirm (a survey file of hundreds
    of columns: a page at a time, or the columns a search found), each as its own tick would; offered when two or
    more are to confirm. Returns the key of each shown column's tick (``prefix``, its place in the table)."""
    keys = {name: f"{prefix}_{index_of[name]}_confirmed" for name in shown}
    todo = [name for name in shown if name in entries and pending(entries, name, specs[name])]
    if len(todo) < 2:
        return keys
    if st.button(
        f"Mark the {len(todo):,} columns shown as checked against the documentation",
        key="domain_confirm_shown",
        icon=":material/done_all:",
        help="Each column shown that the file's codebook started, and that you have checked against the "
        "documentation, as if you ticked its box: untick any you have not checked.",
    ):
        for name in todo:  # each tick drawn anew from its entry (a widget's own state and a value would clash)
            st.session_state.pop(keys[name], None)
            entries[name]["confirmed"] = True
    return keys


def with_ticks(declaration: dict, entries: dict) -> tuple[dict, bool]:
    """The declaration with this run's ticks in its codebook notes, and whether any tick changed."""
    codebook = (declaration.get("notes") or {}).get("codebook")
    if not codebook:
        return declaration, False
    ticked = {**codebook, "columns": {**codebook["columns"], **entries}}
    return {**declaration, "notes": {**declaration["notes"], "codebook": ticked}}, ticked != codebook


def codebook_offer() -> None:
    """When a declaration saved for these records is in use (it wins: the publisher's own word) and the file's
    codebook would change it, say that the codebook is available, and apply it on request."""
    offered = st.session_state.get(state.CODEBOOK_OFFER)
    if not offered:
        return
    book = offered["notes"]["codebook"]
    st.info(
        f":material/menu_book: This file ({book.get('format', 'a statistical package')}) carries a codebook for "
        f"{len(book['columns']):,} columns (value labels, missing codes, storage types: its metadata, no record). "
        "The declaration in use is the one you saved for these records, and it stays unless you apply the "
        "codebook: the columns it gives value labels (and any you left out) then start from it again, each for "
        "you to confirm."
    )
    if st.button("Apply the file's codebook", key="domain_apply_codebook", icon=":material/menu_book:"):
        state.set_declaration(with_codebook(state.declaration(), offered))
        st.session_state[state.CODEBOOK_OFFER] = None
        st.rerun()
