"""The Domain page's editor of one column: every widget drawn from the one statement of its kind
(:mod:`dpsynth_core.domain.kinds`: label, help, placeholder, limits, layout), typed text parsed by the core."""

from __future__ import annotations

import datetime as dt
import json

import streamlit as st

from app_support.derived_editor import derived_editor, gap_editor, part_editor, sum_editor
from app_support.markdown import literal
from app_support.state import field_widget as _init
from dpsynth_core.domain import KIND_STATEMENTS, editing, typed_values
from dpsynth_core.domain.kinds import UNCHOSEN
from dpsynth_core.domain.public_lists import TITLES, public_list
from dpsynth_core.wording import counted, line_text

#: Longer category lists are kept as loaded rather than put in a text box.
EDITABLE_VALUES = 2_000
NO_LIST = "(type the values below)"


def _as_date(value):
    if value in (None, ""):
        return None
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])


def _fill_from_list(prefix: str) -> None:
    chosen = st.session_state[f"{prefix}_list"]
    if chosen in TITLES:
        st.session_state[f"{prefix}_values"] = "\n".join(public_list(chosen))


def _categories(prefix: str, spec: dict, out: dict) -> None:
    """Values typed one per line or filled from a public list; a very long list stays as loaded."""
    declared = typed_values.declared_values(spec)
    if len(declared) > EDITABLE_VALUES or any("\n" in str(v) for v in declared):  # no text box of megabytes, nor
        # one that would read a value holding a line break as two values
        st.caption(
            f"{len(declared):,} values, as declared ({', '.join(literal(v) for v in declared[:5])}, ...). To "
            "change them, edit the declaration file and load it again."
        )
        out.update({k: spec[k] for k in ("values", "list", "any_spelling") if k in spec})
        return
    statement = KIND_STATEMENTS["categorical"]
    st.selectbox(
        statement.key("list").label,
        [NO_LIST] + list(TITLES),
        format_func=lambda k: TITLES.get(k, k),
        key=_init(prefix, "list", spec["list"] if spec.get("list") in TITLES and "values" not in spec else NO_LIST),
        on_change=_fill_from_list,
        args=(prefix,),
    )
    text = st.text_area(
        statement.key("values").label, key=_init(prefix, "values", typed_values.values_text(declared)), height=140
    )
    out["values"] = typed_values.edited_values(text, declared)
    spelling = statement.key("any_spelling")
    if st.checkbox(
        spelling.label, help=spelling.help, key=_init(prefix, "any_spelling", bool(spec.get(spelling.name)))
    ):
        out["any_spelling"] = True
    if spec.get("labels"):
        st.caption(
            "Labels (shown on the release card): "
            + "; ".join(f"{literal(code)} = {literal(label)}" for code, label in spec["labels"].items())
        )


def _named_preset(state_key: str, choices: dict) -> None:
    """A preset's words typed in its box stand for the preset (:func:`~dpsynth_core.domain.editing.named_choice`)."""
    named = editing.named_choice(st.session_state[state_key], choices)
    if named is not None:
        st.session_state[state_key] = named


def _as_widget_number(state_key: str, widget: str) -> None:
    """A number field's kept value in its widget's own type, set again so that the browser takes it: a whole-number
    column's bound changed to a decimal column's (the field's key is the same) was still held as a whole number by
    the browser, which sent none for a decimal field on the next edit, and the bound was lost (Stata's SLID:
    education, started from 0 as whole numbers, changed to decimals, lost its minimum when its maximum was typed)."""
    value = st.session_state.get(state_key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return
    if widget == "number" and isinstance(value, int):
        st.session_state[state_key] = float(value)
    elif widget == "whole" and isinstance(value, float):
        st.session_state[state_key] = int(value) if value.is_integer() else None


def _widget(place, prefix: str, kind, key, spec: dict):
    """One key's widget, as its statement describes it; returns the value given (None: not given)."""
    declared = spec.get(key.name, key.default) if spec.get("type") == kind.name else key.default
    common = dict(help=key.help, key=None)
    if key.widget in ("whole", "number"):
        common["key"] = _init(prefix, key.name, declared)
        _as_widget_number(common["key"], key.widget)
        # the stepper's top, widened to a loaded declaration's value that the schema allows (letters up to 60)
        high = key.high if key.high is None or not isinstance(declared, (int, float)) else max(key.high, declared)
        return place.number_input(
            key.label,
            value=None,
            min_value=key.low,
            max_value=high,
            step=key.step,
            placeholder=key.placeholder,
            **common,
        )
    if key.widget == "date":
        common["key"] = _init(prefix, key.name, _as_date(declared))
        chosen = place.date_input(
            key.label, value=None, min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31), **common
        )
        return chosen.isoformat() if chosen else None
    if key.widget == "choice":
        common["key"] = _init(prefix, key.name, declared if declared in key.choices else "")
        return place.selectbox(key.label, list(key.choices), format_func=key.choices.get, **common) or None
    if key.widget == "presets":  # the named values, and the one declared or typed in (the widget's own state)
        common["key"] = _init(prefix, key.name, declared)
        chosen = st.session_state[common["key"]]
        return place.selectbox(
            key.label,
            list(dict.fromkeys([*key.choices, *([chosen] if chosen else [])])),
            format_func=lambda v: key.choices.get(v, v),
            accept_new_options=True,
            on_change=_named_preset,
            args=(common["key"], key.choices),
            **common,
        )
    if key.widget == "numbers":
        common["key"] = _init(prefix, key.name, typed_values.list_text(declared))
        values, unread = typed_values.parse_numbers(
            place.text_input(key.label, placeholder=key.placeholder, **common),
            "integer" if kind.name == "text" else kind.name,
        )
        for message in unread:
            st.warning(f"{key.label.split(' (')[0]}: {message}; it was left out.", icon=":material/warning:")
        return values
    common["key"] = _init(prefix, key.name, declared)
    return place.text_input(key.label, placeholder=key.placeholder, **common) or None


def column_editor(prefix: str, spec: dict, others: dict | None = None) -> dict:
    """Widgets for one column (keys start with ``prefix``), drawn from its kind's statement; returns
    its new declaration. ``others``: the table's other columns' declarations, for a list computed from one of them
    (:func:`~app_support.derived_editor.derived_editor`; None: its rule kept as declared). Nothing here reads the
    data."""
    name = st.selectbox(
        "What kind of values?",
        list(KIND_STATEMENTS),
        format_func=lambda k: KIND_STATEMENTS[k].title,
        key=_init(prefix, "kind", None if editing.undeclared(spec) else spec.get("type", "text")),
        placeholder="Choose a kind: whole numbers, numbers, categories, dates (with a time or none) or free text",
    )
    if name is None:  # a column the page could not name from its header: nothing to draw until a kind is chosen
        return dict(spec)
    kind, out = KIND_STATEMENTS[name], {"type": name}
    if kind.note:
        st.caption(kind.note)
    if name == "drop":
        return out
    if name == "categorical":
        _categories(prefix, spec, out)
        if others is not None:
            derived_editor(prefix, spec, out, others)
        elif spec.get("derived") and spec.get("type") == name:
            out["derived"] = spec["derived"]
    if name == spec.get("type"):  # keys the page does not edit are kept as declared
        out.update({k.name: spec[k.name] for k in kind.keys if not k.widget and k.name in spec})
    if name in ("integer", "float", "date", "datetime"):  # a sum of others, or past another: asked first
        if others is not None:
            if name in ("integer", "float"):
                sum_editor(prefix, spec, out, others)
            if not out.get("derived"):  # past another date, or another number
                gap_editor(prefix, spec, out, others)
            if name == "integer" and not out.get("derived"):  # or the year, month or day of a date
                part_editor(prefix, spec, out, others)
        elif spec.get("derived") and spec.get("type") == name:
            out["derived"] = spec["derived"]
    drawn = [k for k in kind.keys if k.widget not in ("", "flag", "values", "public_list", "derived")]
    if out.get("derived") and name != "categorical":  # its range, decimals and step (how a gap's cells are written)
        rule = out["derived"]
        drawn = [
            k
            for k in drawn
            if k.name in ("min", "max", "decimals", "step", "multiple_of" if "part" not in rule else "")
            or (k.name == "written" and "gap" in rule)
        ]
    for row in sorted({k.row for k in drawn}):
        keys = [
            k
            for k in drawn
            if k.row == row
            and (k.when is None or out.get(k.when[0]) in (k.when[1] if isinstance(k.when[1], tuple) else (k.when[1],)))
        ]
        for place, key in zip(st.columns(len(keys)) if len(keys) > 1 else [st] * len(keys), keys):
            value = _widget(place, prefix, kind, key, spec)
            if value is not None:
                out[key.name] = value
            elif key.widget == "choice" and key.choices.get("") == UNCHOSEN:  # the kind is chosen, this not yet
                out[key.name] = ""
    missing = kind.key("missing")
    if not st.checkbox(missing.label, help=missing.help, key=_init(prefix, "missing", spec.get("missing", True))):
        out["missing"] = False
    return out


def missing_markers_editor(prefix: str, declaration: dict) -> dict:
    """The texts the file writes for a missing value, for every column (the empty cell always is one): typed by
    the publisher, as the delimiter is; returns the declaration reading them as missing."""
    typed = st.text_input(
        "Missing values are also written as (optional)",
        key=_init(prefix, "missing_markers", line_text(editing.missing_markers(declaration))),
        placeholder="for example NA, ., -99",
        help="Texts the file writes for a value that is missing, separated by commas (one holding a comma in double "
        "quotes): NA (R), . (SAS, Stata), -99. A cell holding one is missing in every column, whatever its kind; an "
        "empty cell always is.",
    )
    return editing.with_missing_markers(declaration, typed)


def todo_toggle(place, to_declare: bool) -> bool:
    """A wide table's filter "Only those still to declare" (key ``domain_only_todo``): on when the page first shows
    columns still to declare, off and not settable once none is left (it would hide nothing)."""
    if not to_declare:
        st.session_state["domain_only_todo"] = False
    elif "domain_only_todo" not in st.session_state:
        st.session_state["domain_only_todo"] = True
    return place.toggle("Only those still to declare", key="domain_only_todo", disabled=not to_declare)


def alike_editor(declaration: dict, specs: dict, complete, found: list) -> dict | None:
    """ "Declare several columns alike": one declared column's declaration given to the columns chosen, or to
    every column found by the page's search (a survey's questions that share one scale, such as 1 to 4 from
    "Very important" to "Not at all important", declared once). The column to copy starts as the one the publisher
    has just declared or changed (the College Scorecard's is_hbcu, started Yes or No by its name and changed to TRUE
    or FALSE, was not offered: the last column declared anew was, and nine flags got its list of five answers; a
    newcomer declared A1 of 25 items and gave "the column to copy" to the other 24: it was still
    gender, declared by its name before A1, and the items became Female or Male), else the first declared one the
    search names (``Q2_`` finds ``Q2_1`` once it is declared), and is said with its declaration, so the copy is
    never a surprise; once given, the columns chosen are cleared (a newcomer who gave judge1's to judge2 and judge3,
    then chose vote2 and vote3 for vote1's, was offered the four). Returns the new declaration when applied."""
    declared = [name for name in specs if name in complete and specs[name].get("type") != "drop"]
    if not declared:
        return None
    ss, words = st.session_state, st.session_state.get("domain_find", "")
    if ss.pop("domain_alike_given", False):  # given: the columns chosen are cleared, not offered to the next copy
        ss["domain_alike_targets"] = []
    now = {name: json.dumps(specs[name], sort_keys=True, default=str) for name in declared}  # each as declared now
    before = ss.get("domain_alike_specs", now)
    fresh = [name for name in declared if before.get(name) != now[name]]  # declared, or declared anew, since
    ss["domain_alike_specs"] = now
    if fresh or ss.get("domain_alike_words") != words or ss.get("domain_alike_source") not in declared:
        ss["domain_alike_words"] = words  # just declared, or a new search: the first it names, else the first
        pool = fresh or declared
        ss["domain_alike_source"] = (editing.find_columns({n: specs[n] for n in pool}, words) or pool)[0]
    with st.expander("Declare several columns alike (questions that share one scale or coding)"):
        done = ss.pop("domain_alike_done", None)
        if done:
            st.success(done, icon=":material/check_circle:")
        c1, c2 = st.columns([1, 2])
        source = c1.selectbox("Like the column", declared, key="domain_alike_source")
        names = c2.multiselect(
            "Give its declaration to",
            [name for name in specs if name != source],
            key="domain_alike_targets",
            help="Each column chosen gets a copy of the declaration, to change on its own afterwards if need be.",
        )
        st.caption(f"{literal(source)} is declared as {editing.column_status(source, specs[source])[1].describe()}.")
        rest = [name for name in found if name != source]
        b1, b2 = st.columns(2)
        chosen = b1.button(
            f"Give {literal(source)}'s declaration to the {counted(len(names), 'column')} chosen",
            key="domain_alike_apply",
            disabled=not names,
        )
        everyone = len(rest) < len(specs) - 1 and b2.button(
            f"Give it to the {counted(len(rest), 'other column')} found", key="domain_alike_found", disabled=not rest
        )
    given = names if chosen else rest if everyone else []
    if not given:
        return None
    shown = ", ".join(literal(n) for n in given[:10]) + (f" and {len(given) - 10:,} more" if len(given) > 10 else "")
    ss["domain_alike_done"] = f"{literal(source)}'s declaration given to {counted(len(given), 'column')}: {shown}."
    ss["domain_alike_specs"] = {**now, **{name: now[source] for name in given}}  # copies: the column copied stays
    ss["domain_alike_given"] = True
    return editing.declare_alike(declaration, source, given, list(specs))
