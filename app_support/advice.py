"""The Privacy page's advice sections: how fine numbers can come out (reads no data) and the opt-in
rows-per-person check (a budgeted DP measurement). Drawing only: the figures and words come from the core."""

from __future__ import annotations

import json

import streamlit as st

from app_support import state
from app_support.cached import count_sigmas, fewer_columns, numeric_resolution
from app_support.markdown import literal
from app_support.paging import page_count, page_items
from app_support.sidebar import redraw_sidebar
from dpsynth_core import DPSynthError, constraints
from dpsynth_core.domain.editing import parse_groups, person_columns, with_person
from dpsynth_core.privacy.persons import RowsPerPerson, bounding_plan_words
from dpsynth_core.synthesizers.planning.resolution import resolution_words, thin_table_words
from dpsynth_core.usecases.person_check import person_check
from dpsynth_core.wording import counted, line_text, noun, plural
from dpsynth_core.workspace import BudgetExceeded

#: Columns the Privacy page's advice lists at a time: each is priced with public edges, a plan of the whole
#: declaration (a table of 500 numeric columns took 30 s to price them all on every change of the settings).
RESOLUTION_PAGE = 20


def show_resolution(settings: tuple, per_person: int = 1) -> None:
    """Per numeric or date column, the finest step at these settings (``settings``: the cached plan's keys), a page
    of :data:`RESOLUTION_PAGE` columns at a time; ``per_person``: the declaration's rows a person (its unit's K)."""
    fine = numeric_resolution(*settings, edges_for=())  # one plan: the step of every column, edges priced below
    rows, entries, sigmas = settings[4] or settings[5], list(fine.values()), count_sigmas(tuple(settings))
    if thin_table_words(entries, rows, sigmas=sigmas):  # with what fewer columns would buy (a smaller table's plan)
        fewer = fewer_columns(tuple(settings))
        st.warning(thin_table_words(entries, rows, fewer, per_person, sigmas), icon=":material/info:")
    if not fine:
        return
    with st.expander(f"How fine numbers and dates can come out ({counted(len(fine), 'column')})"):
        st.caption("From your declared ranges, ε and the row count only: no value of the data is read.")
        names = list(fine)
        if len(names) > RESOLUTION_PAGE:
            pages = page_count(len(names), RESOLUTION_PAGE)
            number = st.number_input(
                f"Page (of {pages:,}, {RESOLUTION_PAGE} columns each)", 1, pages, 1, key="privacy_resolution_page"
            )
            names = page_items(names, RESOLUTION_PAGE, number)
        priced = numeric_resolution(*settings, edges_for=tuple(names))
        for name in names:
            words = resolution_words(priced[name])
            st.markdown(f"**{literal(name)}**\n\n" + "\n".join(f"- {literal(w)}" for w in words))


def choose_person(declaration: dict) -> dict:
    """The privacy unit, chosen by the publisher: each row, or each person identified by a column declared ``drop``,
    up to a public number of rows. The declaration with it (set in the session when it changed)."""
    current = declaration.get("person") or {}
    if st.session_state.get("privacy_person_for", current) != current:  # set elsewhere: the widgets start from it
        for key in ("privacy_person_column", "privacy_person_rows", "privacy_person_name", "privacy_person_case"):
            st.session_state.pop(key, None)
    names = state.data()["info"]["columns"] if state.has_data() else list(declaration.get("columns", {}))
    choices = list(dict.fromkeys([None, *person_columns(declaration, names), current.get("column")]))
    column = current.get("column")  # a declared unit stays as declared (its column's problem is said, never undone)
    with st.expander("Who is protected: each row, or each person with several rows", expanded=column is not None):
        st.markdown(
            "When one person may have several rows (a patient's visits, a respondent's waves, a REDCap record's "
            "events), name the column that identifies them and the most rows one may have, from the study's design "
            "(never from the data): ε then holds for each person, all their rows together. The column must be "
            "declared *drop* on the Domain page: an identifier is never released."
        )
        column = st.selectbox(
            "The column that identifies a person",
            choices,
            index=choices.index(column),
            format_func=lambda c: "none: protect each row" if c is None else c,
            key="privacy_person_column",
        )
        if column is None:
            return _declared(with_person(declaration, None))
        left, right = st.columns(2)
        most = left.number_input(
            "At most this many rows per person (public)",
            1,
            constraints.MAX_ROWS_PER_PERSON,
            int(current.get("max_rows", 1)),
            key="privacy_person_rows",
        )
        called = right.text_input(
            "A person is called (on the card)", current.get("name", "person"), key="privacy_person_name"
        )
        same = st.checkbox(
            "Identifiers that differ only in capitals are one person",
            bool(current.get("ignore_case")),
            key="privacy_person_case",
        )
    return _declared(with_person(declaration, column, int(most), called, same))


def _declared(updated: dict) -> dict:
    """The declaration with the unit the widgets show, set in the session when it changed."""
    st.session_state["privacy_person_for"] = updated.get("person") or {}
    if updated is not state.declaration():
        state.set_declaration(updated)
    return updated


def show_person_check(declared) -> None:
    """For a release per person: what bounding to K rows will drop, from an opt-in DP check (its own budget)."""
    unit = getattr(declared, "person", None)
    if unit is None:
        return
    loaded = state.data()
    people = plural(unit.name)
    with st.expander(f"Rows per {unit.name}: what keeping at most {unit.max_rows:,} will drop", expanded=True):
        st.markdown(
            f"Rows beyond {unit.max_rows:,} per {unit.name} are dropped at random before anything is measured, so "
            f"the release describes a table where {people} with many rows count less. To see how much that "
            f"changes, the app can count {people} by their number of rows, with noise. **This reads the data "
            "and spends budget of its own** (recorded in the ledger, on top of the release's), so it is your choice."
        )
        c1, c2 = st.columns([1, 2], vertical_alignment="bottom")
        epsilon = c1.number_input(
            "ε for the check", 0.01, 1.0, constraints.PERSON_CHECK_EPSILON, 0.01, key="privacy_person_eps"
        )
        if c2.button(f"Count rows per {unit.name} (spends ε = {epsilon:g})", key="privacy_person_check"):
            try:
                check = person_check(
                    state.workspace(), loaded["hash"], loaded["frame"], declared, float(epsilon), name=loaded["name"]
                )
            except (BudgetExceeded, DPSynthError) as refused:
                st.error(str(refused), icon=":material/block:")
            else:
                st.session_state[state.PERSON_CHECK] = {
                    "hash": loaded["hash"],
                    "column": unit.column,
                    "check": check.as_dict(),
                }
                redraw_sidebar()  # the ledger's new total, in this run's sidebar too
        kept = state.person_check(unit)
        if kept is not None:
            words = bounding_plan_words(
                RowsPerPerson.from_dict(kept), unit.max_rows, unit.name, constraints.PERSON_CHECK_KEEP
            )
            st.info("\n".join(f"- {w}" for w in words), icon=":material/group:")
            st.caption("The release card will state these figures beside the release's own count of rows kept.")


def choose_groups(declaration: dict, help_words: str) -> None:
    """The column groups a method keeps together, typed by the publisher (kept in the session when every name is a
    declared column, else said in one line)."""
    columns = [c for c, spec in declaration["columns"].items() if spec.get("type") != "drop"]
    current = "\n".join(line_text(g) for g in st.session_state[state.GROUPS])
    text = st.text_area(
        "Column groups to keep together (optional): one group per line, 2 or 3 column names "
        f"separated by commas, a name holding a comma in double quotes ({help_words})",
        value=current,
        key="privacy_groups",
        height=90,
        placeholder="\n".join(line_text(g) for g in (columns[:2], columns[2:5]) if len(g) > 1),  # in its own names
    )
    groups, unknown = parse_groups(text, columns)
    if unknown:
        names = ", ".join(literal(n) for n in unknown)
        st.error(f"Unknown {noun(len(unknown), 'column')}: {names}. Use names from the Domain page.")
    else:
        st.session_state[state.GROUPS] = groups


def plan_settings(spec_json: str, epsilon, rho, method: str, rows, expected_rows: int, options: dict) -> tuple:
    """The cached plan's keys, in its order."""
    return (spec_json, float(epsilon), float(rho), method, rows, expected_rows, json.dumps(options, sort_keys=True))
