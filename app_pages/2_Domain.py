"""Domain: declare each column's possible values from public knowledge. Never reads the data's values."""

import datetime as dt
import json
import re

import streamlit as st

from app_support import state
from dpsynth_core import DomainError, TableDomain, column_from_json, constraints
from dpsynth_core.domain import TEXT_GENERATORS, parse_declaration
from dpsynth_core.public_lists import TITLES, public_list

st.title("2. Domain")
st.markdown(
    "For every column, say which values it **could** take, from documentation or common knowledge, "
    "not from looking at the data. Privacy depends on this: if the list of possible values were read "
    "off the data, the release could reveal that a rare value is present. Values in the data that fall "
    "outside what you declare are handled by a public rule (numbers are clamped to the range, anything "
    "else becomes 'missing'); the domain is never widened to fit them.")

KINDS = {
    "categorical": "Categories: a list of values",
    "integer": "Whole numbers in a range",
    "float": "Decimal numbers in a range",
    "date": "Dates in a range",
    "text": "Free text or codes (large, weakly constrained)",
    "drop": "Drop: leave out of the release (identifiers)",
}
GENERATORS = {
    "letters": "Any string of letters up to a length",
    "english_word": "Any English word",
    "word_pair": "Any pair of English words",
    "digits": "A code of N digits (like a ZIP code)",
    "any": "Any value, released as pseudonyms (value-123)",
}
UNITS = {"": "automatic (from the range)", "day": "day", "month": "month", "year": "year"}
#: Columns drawn per page (a table of 10,000 columns is shown a page at a time).
PAGE_SIZE = 50
#: Longer category lists are kept as loaded rather than put in a text box.
EDITABLE_VALUES = 2_000

declaration = state.declaration()
columns_in_data = state.data()["info"]["columns"]
version = st.session_state[state.DECLARATION_VERSION]

# --- load and save -----------------------------------------------------------------------
with st.expander("Load or save a declaration (JSON policy file)", expanded=False):
    st.markdown("A declaration saved once can be reused for every release of the same kind of table.")
    loaded = st.file_uploader("Load a declaration", type=["json"], key="domain_load")
    if loaded is not None and st.session_state.get("domain_load_done") != loaded.file_id:
        st.session_state["domain_load_done"] = loaded.file_id
        try:
            if loaded.size > constraints.MAX_DECLARATION_BYTES:
                raise DomainError(f"the file is larger than {constraints.MAX_DECLARATION_BYTES >> 20} MB")
            spec = parse_declaration(loaded.getvalue(), loaded.name)
            TableDomain.from_json(spec).check_matches(columns_in_data)
        except DomainError as problem:
            st.error(f"That declaration cannot be used: {problem}", icon=":material/error:")
        else:
            state.set_declaration(spec)
            st.rerun()
    policies = [p for p in state.workspace().policies() if set(p["columns"]) >= set(columns_in_data)]
    if policies:
        c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
        chosen = c1.selectbox("Or reuse a policy saved in your workspace", [p["name"] for p in policies],
                              key="domain_policy_choice")
        if c2.button("Use this policy", key="domain_policy_use"):
            state.set_declaration(state.workspace().policy(chosen))
            st.rerun()


def _key(index: int, field: str) -> str:
    return f"domain_v{version}_{index}_{field}"


def _init(index: int, field: str, value) -> str:
    key = _key(index, field)
    if key not in st.session_state:
        st.session_state[key] = value
    return key


def _parse_values(text: str) -> list:
    lines = [v.strip() for v in (text.split("\n") if "\n" in text else text.split(","))]
    values = [v for v in lines if v]
    if values and all(re.fullmatch(r"-?(0|[1-9][0-9]*)", v) for v in values):
        return [int(v) for v in values]
    return values


def _fill_from_list(index: int) -> None:
    chosen = st.session_state[_key(index, "list")]
    if chosen in TITLES:
        st.session_state[_key(index, "values")] = "\n".join(public_list(chosen))


def _as_date(value):
    if value in (None, ""):
        return None
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])


def _declared_values(spec: dict) -> list:
    """The values a declaration lists, directly or through a public list."""
    if isinstance(spec.get("values"), list):
        return spec["values"]
    return list(public_list(spec["list"])) if spec.get("list") in TITLES else []


def column_editor(index: int, name: str, spec: dict) -> dict:
    """Widgets for one column; returns its new declaration."""
    kind = st.selectbox("What kind of values?", list(KINDS), format_func=KINDS.get,
                        key=_init(index, "kind", spec.get("type", "text")))
    out = {"type": kind}
    if kind == "drop":
        st.caption("This column will not appear in the synthetic table.")
        return out
    if kind == "categorical":
        declared = _declared_values(spec)
        if len(declared) > EDITABLE_VALUES:  # a long list stays as loaded: no text box of megabytes
            shown = ", ".join(str(v) for v in declared[:5])
            st.caption(f"{len(declared):,} values, as declared ({shown}, ...). To change them, edit the "
                       "declaration file and load it again.")
            out.update({k: spec[k] for k in ("values", "list", "labels", "other") if k in spec})
        else:
            st.selectbox("Fill from a public list (optional)", ["(type the values below)"] + list(TITLES),
                         format_func=lambda k: TITLES.get(k, k),
                         key=_init(index, "list", spec["list"] if spec.get("list") in TITLES and "values" not in spec
                                   else "(type the values below)"),
                         on_change=_fill_from_list, args=(index,))
            values_key = _init(index, "values", "\n".join(str(v) for v in declared))
            text = st.text_area("Possible values, one per line (or separated by commas)", key=values_key, height=140)
            out["values"] = _parse_values(text)
            if spec.get("labels"):
                out["labels"] = spec["labels"]
    elif kind in ("integer", "float"):
        step = 1 if kind == "integer" else None
        c1, c2, c3 = st.columns(3)
        low = c1.number_input("Smallest possible value", value=None, step=step,
                              key=_init(index, "min", spec.get("min")), placeholder="required")
        high = c2.number_input("Largest possible value", value=None, step=step,
                               key=_init(index, "max", spec.get("max")), placeholder="required")
        if kind == "integer":
            width = c3.number_input("Bin width (blank = automatic)", value=None, min_value=1, step=1,
                                    key=_init(index, "width", spec.get("bin_width")), placeholder="automatic")
            out.update(min=low, max=high)
            if width:
                out["bin_width"] = int(width)
            if spec.get("edges"):
                out["edges"] = spec["edges"]
        else:
            bins = c3.number_input("Number of bins", value=None, min_value=1, max_value=10_000, step=1,
                                   key=_init(index, "bins", spec.get("bins") or 20), placeholder="20")
            out.update(min=low, max=high, bins=int(bins or 20))
        if low is None or high is None:
            st.caption("A range must come from documentation or policy (for example a top-code), "
                       "never from the data, so the tool asks you for it.")
    elif kind == "date":
        c1, c2, c3 = st.columns(3)
        span = dict(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31))
        first = c1.date_input("First possible date", value=None, key=_init(index, "min", _as_date(spec.get("min"))), **span)
        last = c2.date_input("Last possible date", value=None, key=_init(index, "max", _as_date(spec.get("max"))), **span)
        unit = c3.selectbox("Group by", list(UNITS), format_func=UNITS.get, key=_init(index, "unit", spec.get("unit") or ""))
        out.update(min=first.isoformat() if first else None, max=last.isoformat() if last else None)
        if unit:
            out["unit"] = unit
    elif kind == "text":
        options = ["(choose)"] + list(TEXT_GENERATORS)
        generator = st.selectbox("Which values are possible?", options,
                                 format_func=lambda g: GENERATORS.get(g, "(choose one)"),
                                 key=_init(index, "generator", spec.get("generator") or "(choose)"))
        if generator != "(choose)":
            out["generator"] = generator
        if generator == "letters":
            c1, c2 = st.columns(2)
            out["max_length"] = c1.number_input("Longest length", min_value=1, max_value=40, step=1,
                                                key=_init(index, "max_length", spec.get("max_length") or 12))
            out["alphabet"] = c2.text_input("Allowed characters", key=_init(
                index, "alphabet", spec.get("alphabet") or "abcdefghijklmnopqrstuvwxyz"))
        elif generator == "digits":
            out["length"] = st.number_input("Number of digits", min_value=1, max_value=30, step=1,
                                            key=_init(index, "length", spec.get("length") or 5))
        elif generator == "any":
            out["size"] = st.number_input("How many different values could there be?", min_value=1, step=1000,
                                          key=_init(index, "size", spec.get("size") or 1_000_000))
            st.caption("Values are replaced by public pseudonyms (value-000123) through a fixed hash: "
                       "printing the original strings could never be private.")
    missing = st.checkbox("Missing values may occur", key=_init(index, "missing", spec.get("missing", True)),
                          help="When ticked, 'missing' is one more possible value, whether or not the data has any.")
    if not missing:
        out["missing"] = False
    return out


def _status(name: str, spec) -> tuple[list[str], object]:
    try:
        column = column_from_json(name, spec)
        return column.problems(), column
    except DomainError as problem:
        return list(problem.problems), None


statuses = {name: _status(name, declaration.get("columns", {}).get(name, {"type": "text"}))
            for name in columns_in_data}
todo = [name for name, (found, _) in statuses.items() if found]
shown = list(columns_in_data)
if len(columns_in_data) > PAGE_SIZE:  # a wide table is drawn a page at a time
    c1, c2 = st.columns([1, 2])
    only_todo = c2.toggle("Show only the columns still to declare", key="domain_only_todo", value=bool(todo))
    pool = todo if only_todo and todo else list(columns_in_data)
    pages = max(1, -(-len(pool) // PAGE_SIZE))
    number = c1.number_input(f"Page (of {pages:,}, {PAGE_SIZE} columns each)", min_value=1, max_value=pages,
                             value=1, step=1, key="domain_page")
    shown = pool[(int(number) - 1) * PAGE_SIZE:int(number) * PAGE_SIZE]
index_of = {name: i for i, name in enumerate(columns_in_data)}

new_columns = dict(declaration.get("columns", {}))
new_columns = {name: new_columns.get(name, {"type": "text"}) for name in columns_in_data}
problems = {name: found for name, (found, _) in statuses.items() if found}
for name in shown:
    index = index_of[name]
    spec = new_columns[name]
    status, before = statuses[name]
    icon = (":orange[:material/warning:]" if status else
            ":gray[:material/remove_circle:]" if spec.get("type") == "drop" else ":green[:material/check_circle:]")
    summary = status[0].split(": ", 1)[-1] if status else before.describe()
    with st.expander(f"{icon} **{name}**: {summary}", expanded=bool(status)):
        new_spec = column_editor(index, name, spec)
        found, column = _status(name, new_spec)
        for message in found:
            st.warning(message.split(": ", 1)[-1], icon=":material/warning:")
        if not found and new_spec["type"] != "drop":
            st.caption(f"Declared: {column.describe()}.")
    new_columns[name] = new_spec
    problems.pop(name, None)
    if found:
        problems[name] = found

changed = new_columns != declaration.get("columns")
declaration = {**declaration, "columns": new_columns}
st.session_state[state.DECLARATION] = declaration
if changed:
    st.rerun()  # redraw the headers with the new status

ready = len(columns_in_data) - len(problems)
if problems:
    names = [f"**{n}**" for n in list(problems)[:20]]
    more = f" and {len(problems) - 20:,} more" if len(problems) > 20 else ""
    st.error(f"{ready:,} of {len(columns_in_data):,} columns are ready. Still to do: " + "; ".join(names) + more + ".")
else:
    st.success(f"All {len(columns_in_data):,} columns are declared.")

c1, c2, c3 = st.columns([2, 2, 1], vertical_alignment="bottom")
c1.download_button("Save this declaration (JSON)", json.dumps(declaration, indent=2),
                   file_name=f"{(declaration.get('dataset') or 'table').removesuffix('.csv')}.domain.json",
                   mime="application/json", key="domain_save")
policy_name = c2.text_input("Or keep it in your workspace as a policy named", key="domain_policy_name",
                            placeholder="e.g. census people 2024")
if c3.button("Keep", key="domain_policy_keep", disabled=not policy_name.strip()):
    state.workspace().save_policy(policy_name, declaration)
    st.toast(f"Kept as the policy '{policy_name.strip()}': it is offered for every table with these columns.")
st.page_link("app_pages/3_Privacy.py", label="Next: choose the privacy level", icon=":material/arrow_forward:")
