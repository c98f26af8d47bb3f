"""The Domain page's marks for columns started from a file's codebook (an SPSS, Stata or SAS file's metadata):
what each took from it, and the publisher's tick that confirms it (``notes["codebook"]`` of the declaration,
:mod:`dpsynth_core.domain.templates`)."""

from __future__ import annotations

import streamlit as st

from dpsynth_core.domain.templates import codebook_words, unconfirmed_columns


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


def with_ticks(declaration: dict, entries: dict) -> tuple[dict, bool]:
    """The declaration with this run's ticks in its codebook notes, and whether any tick changed."""
    codebook = (declaration.get("notes") or {}).get("codebook")
    if not codebook:
        return declaration, False
    ticked = {**codebook, "columns": {**codebook["columns"], **entries}}
    return {**declaration, "notes": {**declaration["notes"], "codebook": ticked}}, ticked != codebook
