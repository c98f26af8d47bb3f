"""Domain: declare each column's possible values from public knowledge. Never reads the data's values."""

import json

import streamlit as st

from app_support import state
from app_support.cached import column_plan, numeric_resolution
from app_support.codebook import codebook_entries, codebook_mark, codebook_offer, confirm_shown, pending, with_ticks
from app_support.column_editor import alike_editor, column_editor, missing_markers_editor, todo_toggle
from app_support.declaration_load import load_or_save
from app_support.markdown import literal
from app_support.pages import DOMAIN, PRIVACY
from app_support.paging import page_count, page_items
from dpsynth_core import METHODS, DPSynthError
from dpsynth_core.domain import KIND_STATEMENTS, RANGE_KINDS, editing
from dpsynth_core.synthesizers.planning import text_outlook
from dpsynth_core.synthesizers.planning.resolution import resolution_words

st.title(DOMAIN.title)
st.markdown(
    "For every column, say which values it **could** take, from documentation or common knowledge, "
    "not from looking at the data. Privacy depends on this: if the list of possible values were read "
    "off the data, the release could reveal that a rare value is present. Values in the data that fall "
    "outside what you declare are handled by a public rule (numbers are clamped to the range, anything "
    "else becomes 'missing'); the domain is never widened to fit them."
)

PAGE_SIZE = 50  # columns drawn per page (a table of 10,000 columns is shown a page at a time)
AUTO_OPEN = 5  # columns with something to fix that open by themselves at once: a wide table's first draw draws these

codebook_offer()  # a declaration saved for these records wins; the file's codebook is offered beside it
declaration = state.declaration()
columns_in_data = state.data()["info"]["columns"]
version = st.session_state[state.DECLARATION_VERSION]

# --- load and save -----------------------------------------------------------------------
with st.expander("Load or save a declaration (JSON, or a Table Schema, REDCap dictionary, XLSForm or DDI codebook)"):
    load_or_save(declaration, columns_in_data)


def _outlook(name: str, spec: dict, kind: str) -> None:
    """What a text column will become, or how fine a number or date can come out, at the Privacy page's
    current settings (public settings and the file's row count, shown to you only): from the method's plan,
    never from the column's values."""
    ss = st.session_state
    # the plan of the columns declared so far: one still incomplete has no bins or cells to plan with yet
    done = {n: s for n, s in specs.items() if n in complete}
    whole = {**declaration, "columns": {**done, name: spec}}
    settings = (
        json.dumps(whole),
        float(ss[state.EPSILON]),
        float(ss[state.RHO]),
        ss[state.METHOD],
        ss[state.ROWS],
        state.data()["info"]["rows"],
        json.dumps(state.options(), sort_keys=True),
    )
    try:
        if kind == "text":
            words = next((text_outlook(row) for row in column_plan(*settings) if row["column"] == name), [])
        else:
            entry = numeric_resolution(*settings, edges_for=tuple(shown)).get(name)  # one plan per page shown
            words = resolution_words(entry) if entry else []
    except DPSynthError:
        return
    title = "What this column will become" if kind == "text" else "How fine it can come out"
    if words:
        st.info(
            f"**{title}** at the current choices (ε = {ss[state.EPSILON]:g}, ρ = "
            f"{ss[state.RHO]:g}, {METHODS[ss[state.METHOD]].title}; change them on the Privacy page):\n\n"
            + "\n".join(f"- {literal(w)}" for w in words),
            icon=":material/lightbulb:",
        )


declaration = missing_markers_editor(f"domain_v{version}", declaration)
specs = editing.column_specs(declaration, columns_in_data)
from_codebook = codebook_entries(declaration)  # columns started from the file's codebook, each to confirm


def _status(name: str, spec: dict) -> tuple:
    """What is still to fix in one column (its codebook's confirmation included), and the column."""
    found, column = editing.column_status(name, spec, specs)
    return found + pending(from_codebook, name, spec), column


statuses = {name: _status(name, spec) for name, spec in specs.items()}
problems = {name: found for name, (found, _) in statuses.items() if found}
complete = {name for name, (found, _) in statuses.items() if not found}  # kept current as columns are edited
pool = shown = list(columns_in_data)
if len(columns_in_data) > PAGE_SIZE:  # a wide table: found by name or kind, and drawn a page at a time
    c1, c2, c3, c4 = st.columns([2, 2, 2, 1], vertical_alignment="bottom")
    words = c1.text_input("Find columns by name", key="domain_find", placeholder="e.g. income")
    kinds = c2.multiselect("Of the kinds", sorted({s.get("type", "text") for s in specs.values()}), key="domain_kinds")
    only_todo = todo_toggle(c3, bool(problems))
    pool = editing.find_columns(specs, words, kinds, among=problems if only_todo and problems else None)
    pages = page_count(len(pool), PAGE_SIZE)
    number = c4.number_input(f"Page (of {pages:,})", min_value=1, max_value=pages, value=1, step=1, key="domain_page")
    st.caption(f"{len(pool):,} of {len(columns_in_data):,} columns match, {PAGE_SIZE} a page.")
    shown = page_items(pool, PAGE_SIZE, number)
index_of = {name: i for i, name in enumerate(columns_in_data)}
alike = alike_editor(declaration, specs, complete, pool)  # a survey's questions on one scale, declared once
if alike:
    state.set_declaration(alike)
    st.rerun()

confirm_keys = confirm_shown(from_codebook, specs, shown, f"domain_v{version}", index_of)  # a page at a time
# name -> open: a column stays as the publisher left it (or opens once the Preview tells it computed from others)
opened = st.session_state.setdefault(state.DOMAIN_OPENED, {})


def _toggled(name: str, key: str) -> None:  # the publisher's own open or close (a column never touched follows status)
    opened[name] = bool(st.session_state[key])


def _edit(name: str, spec: dict, prefix: str) -> list:
    """One open column's editor and what it says; returns what is still to fix in it."""
    if name in from_codebook:
        codebook_mark(from_codebook, name, confirm_keys[name])
    others = {other: s for other, s in specs.items() if other != name}  # a column may be computed from some of them
    specs[name] = column_editor(f"domain_v{version}_{index_of[name]}", spec, others)
    found, column = _status(name, specs[name])
    (complete.discard if found else complete.add)(name)
    for message in found:
        st.warning(message.removeprefix(prefix), icon=":material/warning:")
    if not found and specs[name]["type"] != "drop":
        st.caption(f"Declared: {column.describe()}.")
        if column.derived is not None:  # computed after the draw: no bins, no noise of its own
            return found
        if getattr(column, "adaptive", False):
            st.caption(KIND_STATEMENTS[column.kind].adaptive_note)
        if column.kind in ("text", *RANGE_KINDS):  # at the current settings, before any draw
            _outlook(name, specs[name], column.kind)
    return found


to_fix_open = 0  # columns open with something to fix, so far down the page
for name in shown:
    spec, (status, before) = specs[name], statuses[name]
    icon = ":orange[:material/warning:]" if status else ":green[:material/check_circle:]"
    icon = ":gray[:material/remove_circle:]" if spec.get("type") == "drop" and not status else icon
    prefix = f"column '{name}': "  # a name may hold ': ' itself ('Unnamed: 0')
    said = status[0].removeprefix(prefix) if status else before.describe()  # undeclared: said once, inside
    key = f"domain_v{version}_{index_of[name]}_open"
    box = st.expander(  # a new label is a new expander to Streamlit: it opens as the column was last left
        f"{icon} **{name}**: {'choose what kind of values it holds' if editing.undeclared(spec) else said}"
        + (" · from the codebook" if name in from_codebook else ""),
        expanded=opened.get(name, bool(status) and to_fix_open < AUTO_OPEN),  # one still to declare opens itself
        key=key,
        on_change=_toggled,
        args=(name, key),
    )
    if box.open:  # kept open once shown open: fixing a column that opened by itself does not close it
        opened[name] = True
        to_fix_open += bool(status)
    with box:  # a closed column's editor is not drawn: a wide table's rerun draws the open ones only
        found = _edit(name, spec, prefix) if box.open else status
    problems.pop(name, None)
    problems.update({name: found} if found else {})

declaration, ticked = with_ticks(declaration, from_codebook)
changed = specs != declaration.get("columns") or ticked
declaration = {**declaration, "columns": specs}
st.session_state[state.DECLARATION] = declaration
if changed:
    st.rerun()  # redraw the headers with the new status

(st.error if problems else st.success)(editing.readiness(problems, columns_in_data))
c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
c1.download_button(
    "Save this declaration (JSON)",
    json.dumps(declaration, indent=2),
    file_name=editing.policy_file_name(declaration),
    mime="application/json",
    key="domain_save",
)
policy_name = c2.text_input(
    "Or keep it in your workspace as a policy named", key="domain_policy_name", placeholder="e.g. census people 2024"
)
if c3.button("Keep", key="domain_policy_keep", disabled=not policy_name.strip()):
    state.workspace().choices.save_policy(policy_name, declaration)
    st.toast(f"Kept as the policy '{policy_name.strip()}': it is offered for every table with these columns.")
st.page_link(PRIVACY.path, label="Next: choose the privacy level", icon=":material/arrow_forward:")
