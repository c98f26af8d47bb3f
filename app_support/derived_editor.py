"""The Domain page's editors of a column computed from others after the draw (:mod:`dpsynth_core.domain.derived`): a
list's source column, then its bands' edges or its groups, typed from the documentation; a number column's parts,
when it is their sum; a date or a number past another, by a gap. Nothing here reads the data."""

from __future__ import annotations

import streamlit as st

from app_support.state import field_widget as _init
from dpsynth_core.domain import KIND_STATEMENTS, typed_values

#: How a list's source values are grouped (the rule's ``prefix`` or ``groups``).
BY_PREFIX, BY_GROUPS = "by the value each begins with (A for A1)", "in the groups typed below"


def derived_editor(prefix: str, spec: dict, out: dict, others: dict) -> None:
    """Sets ``out["derived"]`` from the widgets: the source chosen among ``others`` (the table's other columns'
    declarations: those of numbers or of categories, not derived themselves), then the edges of its bands or how
    its values are grouped. None chosen: the column is measured like any other."""
    rule = spec.get("derived") or {}
    sources = [
        n for n, s in others.items() if s.get("type") in ("integer", "float", "categorical") and not s.get("derived")
    ]
    if rule.get("from") and rule["from"] not in sources:
        sources.append(rule["from"])  # as declared: its problem is said, never undone
    key = KIND_STATEMENTS["categorical"].key("derived")
    source = st.selectbox(
        key.label,
        [None, *sources],
        format_func=lambda n: "none: measured like any column" if n is None else n,
        placeholder="none: measured like any column",
        key=_init(prefix, "derived_from", rule.get("from")),
        help=key.help,
    )
    if source is None:
        return
    if others.get(source, {}).get("type") in ("integer", "float"):
        text = st.text_input(
            "Where each band after the first begins (from the documentation)",
            key=_init(prefix, "derived_edges", typed_values.list_text(rule.get("edges") or [])),
            placeholder="for example 30, 40, 50, 60",
            help="One number fewer than the values above, in order: the first value is every number below the "
            "first edge, the next from that edge up to the next one, the last from the last edge on. For the age "
            "groups 18-29, 30-39, 40-49, 50-59 and 60+: 30, 40, 50, 60.",
        )
        edges, unread = typed_values.parse_numbers(text, "float")
        for message in unread:
            st.warning(f"Band edges: {message}; it was left out.", icon=":material/warning:")
        out["derived"] = {"from": source, "edges": edges or []}
        return
    how = st.radio(
        f"How the values of {source} are grouped",
        [BY_PREFIX, BY_GROUPS],
        key=_init(prefix, "derived_how", BY_GROUPS if rule.get("groups") else BY_PREFIX),
        horizontal=True,
    )
    if how == BY_PREFIX:
        out["derived"] = {"from": source, "prefix": True}
        return
    typed = st.text_area(
        "Each value above, then a colon and its values of the other column (one value a line)",
        key=_init(prefix, "derived_groups", groups_text(rule.get("groups") or {})),
        placeholder="A: A1, A2, A3, A4, A5\nB: B1, B2, B3, B4, B5",
        height=120,
    )
    out["derived"] = {"from": source, "groups": parse_groups(typed)}


def sum_editor(prefix: str, spec: dict, out: dict, others: dict) -> None:
    """Sets ``out["derived"]`` to a sum of the number columns chosen among ``others`` (the table's other columns'
    declarations: of numbers, not computed themselves), as a scale's total of its items; none chosen: the column is
    measured like any other. Nothing here reads the data."""
    chosen = list((spec.get("derived") or {}).get("sum") or [])
    numbers = [n for n, s in others.items() if s.get("type") in ("integer", "float") and not s.get("derived")]
    key = KIND_STATEMENTS["integer"].key("derived")
    picked = st.multiselect(
        key.label,
        list(dict.fromkeys(numbers + chosen)),  # as declared: a problem with a part is said, never undone
        key=_init(prefix, "derived_sum", chosen),
        placeholder="none: measured like any column",
        help=key.help,
    )
    if picked:
        out["derived"] = {"sum": picked}


def part_editor(prefix: str, spec: dict, out: dict, others: dict) -> None:
    """Sets ``out["derived"]`` to the year, month or day of a date column chosen among ``others`` (the table's other
    columns' declarations of dates, measured or past another); none chosen, or no date in the table: nothing. Nothing
    here reads the data."""
    rule = spec.get("derived") or {}
    dates = [
        n
        for n, s in others.items()
        if s.get("type") in ("date", "datetime") and (not s.get("derived") or s["derived"].get("gap"))
    ]
    choices = [None, *((d, p) for d in dates for p in ("year", "month", "day"))]
    declared = (rule["from"], rule["part"]) if rule.get("part") else None
    if not dates and declared is None:
        return
    if declared is not None and declared not in choices:
        choices.append(declared)  # as declared: its problem is said, never undone
    chosen = st.selectbox(
        "Computed after the draw as a part of a date (optional)",
        choices,
        format_func=lambda c: "none: measured like any column" if c is None else f"the {c[1]} of {c[0]}",
        placeholder="none: measured like any column",
        key=_init(prefix, "derived_part", declared),
        help="A year, a month or a day beside its date (a year of admission beside the admission date): the release "
        "draws the date and computes this column from it, so the two always agree, and spends nothing on this one. "
        "Its cells are never read.",
    )
    if chosen is not None:
        out["derived"] = {"from": chosen[0], "part": chosen[1]}


#: A number past another number: the Domain page's words (a date's are its kind's ``derived`` key, ``GAP_RULE``).
NUMBER_GAP = (
    "At least another number column, by a gap (optional)",
    "A number at least another one in every record (a maximum beside its minimum, a stop beside its start, a day's "
    "high beside its low): the release measures how far above the other it lies, in this column's place and with the "
    "same noise, and draws it as the other plus that amount, so it never comes below it. Give the least and the most "
    "amount the documentation allows, in this column's units.",
)


def gap_editor(prefix: str, spec: dict, out: dict, others: dict) -> None:
    """Sets ``out["derived"]`` to a gap past the column chosen among ``others`` (the table's other columns'
    declarations a column of this kind may follow: a date's, a date and time's, whole numbers', or for real numbers
    whole or real ones; measured or past another in turn), with the least and the most typed from the documentation
    (days for dates, the column's units for numbers); none chosen: the column is measured like any other. Numbers
    with no other number column to follow show nothing. Nothing here reads the data."""
    rule, kind = spec.get("derived") or {}, out["type"]
    dated = kind in ("date", "datetime")
    follows = ("integer", "float") if kind == "float" else (kind,)
    sources = [
        n for n, s in others.items() if s.get("type") in follows and (not s.get("derived") or s["derived"].get("gap"))
    ]
    declared = rule.get("from") if "gap" in rule else None
    if declared and declared not in sources:
        sources.append(declared)  # as declared: its problem is said, never undone
    if not dated and not sources:
        return
    key = KIND_STATEMENTS[kind].key("derived")
    label, help_text = (key.label, key.help) if dated else NUMBER_GAP
    source = st.selectbox(
        label,
        [None, *sources],
        format_func=lambda n: "none: measured like any column"
        if n is None
        else f"{'days past' if dated else 'above'} {n}",
        placeholder="none: measured like any column",
        key=_init(prefix, "derived_after" if dated else "derived_above", declared),
        help=help_text,
    )
    if source is None:
        return
    low, high = (list(rule.get("gap") or []) + [0, None])[:2]
    words, whole = ("days past", True) if dated else ("above", kind == "integer")
    step, kept = (1, int) if whole else (None, float)
    left, right = st.columns(2)
    least = left.number_input(
        f"Least {words} it", step=step, key=_init(prefix, "derived_gap_low", kept(low) if low is not None else 0)
    )
    most = right.number_input(
        f"Most {words} it",
        step=step,
        key=_init(prefix, "derived_gap_high", kept(high) if high is not None else None),
        placeholder="required",
    )
    out["derived"] = {"from": source, "gap": [kept(least or 0), kept(most) if most is not None else None]}


def groups_text(groups: dict) -> str:
    """Groups as the text area writes them: ``A: A1, A2`` a line."""
    return "\n".join(f"{group}: {typed_values.list_text(members)}" for group, members in groups.items())


def parse_groups(text: str) -> dict:
    """The text area's groups: each line ``value: member, member`` (a line without a colon is left out).

    >>> parse_groups("A: A1, A2\\nB: B1\\n\\nnonsense")
    {'A': ['A1', 'A2'], 'B': ['B1']}
    """
    out = {}
    for line in text.splitlines():
        group, colon, members = line.partition(":")
        if colon and group.strip():
            out[group.strip()] = typed_values.parse_values(members)
    return out
