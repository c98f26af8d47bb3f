"""Gates a page passes before it draws: a domain declaration complete enough for what the page does."""

from __future__ import annotations

import json

import streamlit as st

from app_support import state
from app_support.cached import misfits
from app_support.markdown import literal
from app_support.pages import DOMAIN, PRIVACY
from dpsynth_core import DomainError, DPSynthError, TableDomain
from dpsynth_core.data.banded import told_columns
from dpsynth_core.data.rule_notes import CLAMPED_HOW
from dpsynth_core.domain import editing
from dpsynth_core.wording import counted


def complete_domain(declaration: dict) -> TableDomain:
    """The declared domain, or (when it has anything left to fix) the problems, a link to the Domain
    page, and the page stops."""
    try:
        domain = TableDomain.from_json(declaration)
        problems = domain.problems()
    except DPSynthError as problem:  # a declaration that does not fit the schema
        problems = list(getattr(problem, "problems", None) or [str(problem)])
    if problems:  # said once for the columns it concerns alike, as the command line says it
        st.error(f"The domain declaration is not complete: {literal(str(DomainError.from_problems(problems)))}")
        st.page_link(DOMAIN.path, label="Finish the domain declaration", icon=DOMAIN.icon)
        st.stop()
    return domain


def usable_domain(declaration: dict) -> list[str]:
    """What is left to fix in a declaration that can be planned from (said as a warning, with a link to
    the Domain page); a declaration that does not fit the schema is said and the page stops."""
    try:
        problems = TableDomain.from_json(declaration).problems()
    except DomainError as problem:  # a declaration that does not fit the schema: say so, plan nothing
        st.error(f"The domain declaration cannot be used: {problem}", icon=":material/error:")
        st.page_link(DOMAIN.path, label="Fix the domain declaration", icon=DOMAIN.icon)
        st.stop()
    if problems:
        st.warning(
            f"The domain is not complete yet ({counted(len(problems), 'thing')} to fix), so the preview covers the "
            "declared columns only.",
            icon=":material/warning:",
        )
        st.page_link(DOMAIN.path, label="Finish the domain declaration", icon=DOMAIN.icon)
    return problems


#: The icon of each publisher-only note that does not stop a release (:meth:`.FitNotes.advice`).
_ADVICE_ICONS = {
    "timed": ":material/schedule:",
    "spelled": ":material/help:",
    "fractions": ":material/percent:",
    "decimals": ":material/decimal_decrease:",
    "totals": ":material/functions:",
    "renamed": ":material/public:",
    "changed": ":material/rule:",
    "notes_below": ":material/notes:",
    "empty": ":material/block:",
    "banded": ":material/stacked_bar_chart:",
    "repeated": ":material/group:",
}


def declaration_fits(loaded: dict, declaration: dict) -> None:
    """Before a draw, for the publisher only (it reads the data): the columns most of whose filled cells the
    declaration would turn into missing (a wrong kind or format), with a link to the Domain page, and the notes
    that do not stop a release (:meth:`~dpsynth_core.data.misfits.FitNotes.advice`)."""
    notes = misfits(loaded["frame"], loaded["hash"], json.dumps(declaration))  # its columns in the table's order
    if notes.missing:
        which = "this column" if len(notes.missing) == 1 else "these columns"
        how = " ".join(notes.how) + f" Check the declaration of {which}."
        _stopping(notes.MISSING_HEADING, notes.missing, how)
        if notes.respelled:  # the columns of this note and of the changed cells' note alike
            _any_spelling(declaration, notes.respelled)
    if notes.clamped:
        _stopping(notes.CLAMPED_HEADING, notes.clamped, literal(CLAMPED_HOW))
    for which, heading, found, how in notes.advice():
        st.info(
            f"**For you only** (it reads your data): {heading}\n\n" + _first_lines(found) + "\n\n" + literal(how),
            icon=_ADVICE_ICONS[which],
        )
        _other_lines(found)
        if which == "changed" and notes.respelled and not notes.missing:  # (offered above when a column stops)
            _any_spelling(declaration, notes.respelled)
        if which == "repeated":  # the person unit is chosen on the Privacy page
            st.page_link(PRIVACY.path, label="Choose who is protected", icon=PRIVACY.icon)
        elif which == "banded":  # a column computed from others is declared on the Domain page, which opens it
            opened = st.session_state.setdefault(state.DOMAIN_OPENED, {})
            opened.update(dict.fromkeys(told_columns(found), True))
            st.page_link(DOMAIN.path, label="Declare them computed from the other columns", icon=DOMAIN.icon)


def _any_spelling(declaration: dict, names: list) -> None:
    """A button declaring the columns whose cells are declared values written another way to read any spelling
    (the publisher's click; the Domain page shows each column's box ticked)."""
    which = f"'{names[0]}'" if len(names) == 1 else f"these {len(names)} columns"
    if st.button(f"Read {which} in any capitals, spaces and punctuation", icon=":material/spellcheck:"):
        state.set_declaration(editing.with_any_spelling(declaration, names))
        st.rerun()


def _stopping(heading: str, lines: list, how: str) -> None:
    """A note that stops a release on the command line (:func:`declaration_fits`): a warning, the lines past the
    first few below it, and a link to the Domain page."""
    st.warning(
        f"**For you only** (it reads your data): {heading}\n\n" + _first_lines(lines) + "\n\n" + how,
        icon=":material/warning:",
    )
    _other_lines(lines)
    st.page_link(DOMAIN.path, label="Check the domain declaration", icon=DOMAIN.icon)


#: How many lines of one note are shown in it; the others of a wide table (a survey of 117 questions each with a
#: few cells coded -1) are listed in an expander below it, so a note stays a note and not a page.
SHOWN_LINES = 10


def _first_lines(lines: list) -> str:
    """The first :data:`SHOWN_LINES` of a note as a Markdown list, and how many more follow below it."""
    more = len(lines) - SHOWN_LINES
    said = "\n".join(f"- {literal(line)}" for line in lines[:SHOWN_LINES])
    return said + (f"\n- and {more:,} more, listed below." if more > 0 else "")


def _other_lines(lines: list) -> None:
    """The lines of a note after its first :data:`SHOWN_LINES`, in an expander of their own."""
    if len(lines) > SHOWN_LINES:
        with st.expander(f"The other {len(lines) - SHOWN_LINES:,} of them"):
            st.markdown("\n".join(f"- {literal(line)}" for line in lines[SHOWN_LINES:]))
