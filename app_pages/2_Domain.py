"""Domain: declare each column's possible values from public knowledge. Never reads the data's values."""

import datetime as dt
import json
import re

import streamlit as st

from app_support import state
from dpsynth_core import DomainError, TableDomain, column_from_json, constraints
from dpsynth_core.domain import TEXT_GENERATORS, parse_declaration
from dpsynth_core.domain.public_lists import TITLES, public_list

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
UNITS = {"": "fitted to the data", "day": "day", "month": "month", "year": "year"}
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
        st.session_state.pop("domain_load_partial", None)
        try:
            if loaded.size > constraints.MAX_DECLARATION_BYTES:
                raise DomainError(f"the file is larger than {constraints.MAX_DECLARATION_BYTES >> 20} MB")
            spec = parse_declaration(loaded.getvalue(), loaded.name)
            loaded_domain = TableDomain.from_json(spec)
        except DomainError as problem:
            st.error(f"That declaration cannot be used: {problem}", icon=":material/error:")
        else:
            try:
                loaded_domain.check_matches(columns_in_data)
            except DomainError as problem:
                matching = [c for c in columns_in_data if c in loaded_domain.columns]
                if matching:  # offered below: apply the columns it declares, keep the others
                    st.session_state["domain_load_partial"] = {"spec": spec, "matching": matching,
                                                               "problem": str(problem)}
                else:
                    st.error(f"That declaration cannot be used: {problem}", icon=":material/error:")
            else:
                state.set_declaration(spec)
                st.rerun()
    partial = st.session_state.get("domain_load_partial")
    if partial:
        st.warning(f"That declaration does not fit this table as a whole: {partial['problem']}. It declares "
                   f"{len(partial['matching'])} of this table's {len(columns_in_data)} columns: "
                   + ", ".join(partial["matching"]) + ".", icon=":material/warning:")
        if st.button(f"Apply the {len(partial['matching'])} matching column(s), keep the others as they are",
                     key="domain_load_apply"):
            columns = dict(declaration.get("columns", {}))
            columns.update({c: partial["spec"]["columns"][c] for c in partial["matching"]})
            state.set_declaration({**declaration, "columns": {c: columns.get(c, {"type": "text"})
                                                              for c in columns_in_data}})
            st.session_state.pop("domain_load_partial")
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


def _numbers(text: str, kind: str, what: str) -> list | None:
    """A typed list of numbers or dates (commas or spaces); None when blank. Names a bad entry."""
    items = [t for t in re.split(r"[,\s;]+", text.strip()) if t]
    if not items:
        return None
    out = []
    for item in items:
        try:
            out.append(int(item) if kind == "integer" else float(item) if kind == "float"
                       else dt.date.fromisoformat(item).isoformat())
        except ValueError:
            expected = {"integer": "a whole number", "float": "a number", "date": "a date written YYYY-MM-DD"}[kind]
            st.warning(f"{what}: '{item}' is not {expected}; it was left out.", icon=":material/warning:")
    return out or None


def _list_text(values) -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values or [])


def _bins_and_special(index: int, kind: str, spec: dict, out: dict) -> None:
    """Optional public bin edges and special values (codes such as -1 or 999 kept exact)."""
    c1, c2 = st.columns(2)
    if kind != "date":
        first = "from the minimum to the maximum" if kind == "float" else "the first value of each bin, from the minimum"
        edges = c1.text_input(f"Bin edges (optional): {first}", key=_init(index, "edges", _list_text(spec.get("edges"))),
                              placeholder="for example 0, 1, 10, 100" if kind == "integer" else "for example 0, 0.5, 1")
        parsed = _numbers(edges, kind, "Bin edges")
        if parsed:
            out["edges"] = parsed
    special = c2.text_input("Special values kept exact (optional)" if kind != "date" else
                            "Special dates kept exact (optional, YYYY-MM-DD)",
                            key=_init(index, "special", _list_text(spec.get("special"))),
                            placeholder="for example -1, 999" if kind != "date" else "for example 1900-01-01",
                            help="Public codes that must come out exactly as they are (such as -1 for 'never' or 999 "
                                 "for 'not asked'): each gets a bin of its own, whatever the data holds.")
    parsed = _numbers(special, kind, "Special values")
    if parsed:
        out["special"] = parsed


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
                st.caption("Labels (shown on the release card): "
                           + "; ".join(f"{code} = {label}" for code, label in spec["labels"].items()))
    elif kind in ("integer", "float"):
        step = 1 if kind == "integer" else None
        c1, c2, c3 = st.columns(3)
        low = c1.number_input("Smallest possible value", value=None, step=step,
                              key=_init(index, "min", spec.get("min")), placeholder="required")
        high = c2.number_input("Largest possible value", value=None, step=step,
                               key=_init(index, "max", spec.get("max")), placeholder="required")
        out.update(min=low, max=high)
        if kind == "integer":
            width = c3.number_input("Bin width (blank = fitted to the data)", value=None, min_value=1, step=1,
                                    key=_init(index, "width", spec.get("bin_width")), placeholder="fitted")
            if width:
                out["bin_width"] = int(width)
        else:
            bins = c3.number_input("Number of equal bins (blank = fitted to the data)", value=None, min_value=1,
                                   max_value=10_000, step=1, key=_init(index, "bins", spec.get("bins")),
                                   placeholder="fitted")
            if bins:
                out["bins"] = int(bins)
        _bins_and_special(index, kind, spec, out)
        if low is None or high is None:
            st.caption("A range must come from documentation or policy (for example a top-code), "
                       "never from the data, so the tool asks you for it.")
        elif not any(k in out for k in ("edges", "bin_width", "bins")):
            st.caption("With no bins given, the release chooses them from the data with differential privacy "
                       "(a small share of the budget, shown on the Privacy page), so values held by many people, "
                       "such as 0 or 40, keep their exact value.")
    elif kind == "date":
        c1, c2, c3 = st.columns(3)
        span = dict(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31))
        first = c1.date_input("First possible date", value=None, key=_init(index, "min", _as_date(spec.get("min"))), **span)
        last = c2.date_input("Last possible date", value=None, key=_init(index, "max", _as_date(spec.get("max"))), **span)
        unit = c3.selectbox("Group by", list(UNITS), format_func=UNITS.get, key=_init(index, "unit", spec.get("unit") or ""))
        out.update(min=first.isoformat() if first else None, max=last.isoformat() if last else None)
        if unit:
            out["unit"] = unit
        if spec.get("edges"):
            out["edges"] = spec["edges"]
        _bins_and_special(index, kind, spec, out)
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
