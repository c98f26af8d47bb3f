"""Columns computed from other columns by a public rule after the draw: bands of a number column, groups of a list,
a sum of number columns, a date (or a number) past another by a measured gap.

A release measures each column with its own noise and draws every row from those measurements, so a column that is
another column in bands (the General Social Survey's age group of the age) or in groups (a loan's grade of its
sub-grade) comes out apart from it: an age outside its age group in 11% to 16% of the synthetic rows at ε = 1, a
sub-grade of another grade in 9% to 11%. Declared ``derived``, such a list of categories is never read nor measured:
the release draws its source column and computes it by the declared rule, which is post-processing of the source's
synthetic values (it costs no budget), so the two always agree. The rule, like every declaration, comes from the
documentation, never from the data:

* ``{"from": "age", "edges": [30, 40, 50, 60]}``: the column's declared values in order are the bands of the number
  column ``age``: the first below 30, the second from 30 to below 40, ..., the last from 60 on;
* ``{"from": "sub_grade", "groups": {"A": ["A1", "A2"], "B": ["B1", "B2"]}}``: each declared value is the group of the
  source list's values it names;
* ``{"from": "sub_grade", "prefix": true}``: each source value's group is the declared value it begins with (the
  longest one): ``A`` for ``A1``;
* ``{"sum": ["imbgeco", "imueclt", "imwbcnt"]}`` (a number column's rule): the column is the sum of those number
  columns, as a scale's total score is of its items (the European Social Survey's immigration sentiment of its three
  questions came out another number than their sum in 86% of the synthetic rows at ε = 1); the sum is clamped to the
  column's declared range, as a real value outside it would be;
* ``{"from": "breach_start", "part": "year"}`` (a whole-number column's rule): the year (``month``, ``day``) of a date
  column, computed from its synthetic date;
* ``{"from": "stintrvw", "gap": [0, 30]}`` (a date's or a number's rule): the column lies 0 to 30 days (units) past
  the column ``stintrvw``. Unlike the rules above, the column is read and measured, as its gap
  (:mod:`dpsynth_core.data.gaps`), and drawn as its source's synthetic value plus the drawn gap, so it never comes
  before it (the survey's interview end came out before its start in 798 of 1,902 synthetic rows when measured
  apart).

A source cell that is missing, or that no band or group holds, gives a missing cell (a sum: any of its parts missing).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Annotated, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .. import constraints as c
from ..wording import value_text
from .keys import Key
from .value_types import CategoryValue, Number, Text

#: The kinds a rule's source may be: numbers for bands and sums, and a list for groups; dates (with a time of day or
#: none) and numbers for a gap.
NUMBER_KINDS = ("integer", "float")
DATE_KINDS = ("date", "datetime")


class DerivedSpec(BaseModel):
    """The JSON form of a rule (the schema's; :class:`DerivedRule` is what a column holds)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    source: Annotated[str, Field(min_length=1, max_length=c.MAX_TEXT_CHARS)] | None = Field(
        None, alias="from", description="the name of the declared column it is computed from"
    )
    edges: Annotated[list[Number], Field(max_length=c.MAX_COLUMN_CELLS)] | None = Field(
        None, description="the increasing numbers where each band after the first begins"
    )
    groups: Annotated[dict[Text, list[CategoryValue]], Field(max_length=c.MAX_COLUMN_CELLS)] | None = Field(
        None, description="an object mapping each declared value to the source's values it groups"
    )
    prefix: Literal[True] | None = Field(
        None, description="true: each source value's group is the value it begins with"
    )
    total: (
        Annotated[
            list[Annotated[str, Field(min_length=1, max_length=c.MAX_TEXT_CHARS)]],
            Field(min_length=1, max_length=c.MAX_COLUMN_CELLS),
        ]
        | None
    ) = Field(None, alias="sum", description="the names of the declared number columns it is the sum of")
    gap: Annotated[list[Number], Field(min_length=2, max_length=2)] | None = Field(
        None, description="the least and the most this column lies past its source ('from'): days for a date"
    )
    part: Literal["year", "month", "day"] | None = Field(
        None, description="the part of its source date ('from') a whole-number column holds"
    )

    @model_validator(mode="after")
    def _from_or_sum(self) -> DerivedSpec:
        if (self.source is None) == (self.total is None):
            raise ValueError(
                "give the column it is computed 'from' (with 'edges', 'groups', 'prefix' or 'gap'), or 'sum'"
            )
        return self


@dataclass(frozen=True)
class DerivedRule:
    """A column's public rule from its ``source`` column: ``edges`` (bands of a number column), ``groups``
    (declared value -> the source's values) or ``prefix`` (the declared value a source value begins with); or, for a
    number column, the ``total`` of the number columns it names, or the ``part`` (year, month, day) of its ``source``
    date; or, for a date or a number column, the ``gap``
    (least, most) it lies past its ``source``: the release measures that difference in the column's place."""

    source: str = ""
    edges: tuple = ()
    groups: dict = field(default_factory=dict)
    prefix: bool = False
    total: tuple = ()
    gap: tuple = ()
    part: str = ""

    @classmethod
    def from_json(cls, spec: dict) -> DerivedRule:
        groups = {str(k).strip(): tuple(v) for k, v in (spec.get("groups") or {}).items()}
        edges, total = tuple(float(e) for e in spec.get("edges") or ()), tuple(map(str, spec.get("sum") or ()))
        gap = tuple(float(g) for g in spec.get("gap") or ())
        source, part = str(spec.get("from") or ""), str(spec.get("part") or "")
        return cls(source, edges, groups, bool(spec.get("prefix")), total, gap, part)

    @property
    def sources(self) -> tuple:
        """The columns the rule reads (their synthetic values only)."""
        return self.total + ((self.source,) if self.source else ())

    def to_json(self) -> dict:
        out: dict = {"from": self.source} if self.source else {}
        if self.total:
            out["sum"] = list(self.total)
        for key in ("edges", "gap"):
            if getattr(self, key):
                out[key] = [int(e) if float(e).is_integer() else e for e in getattr(self, key)]
        if self.groups:
            out["groups"] = {k: list(v) for k, v in self.groups.items()}
        if self.prefix:
            out["prefix"] = True
        if self.part:
            out["part"] = self.part
        return out

    def problems(self, column, kept: dict) -> list[str]:
        """What makes the rule unusable for ``column`` (its declared domain), among the table's ``kept`` columns
        (name -> declared domain; a source not among them is not declared or not kept)."""
        name, values = column.name, getattr(column, "values", ())
        unused = [k for k in ("edges", *getattr(column, "bin_keys", ())) if getattr(column, k, None) is not None]
        unused += ["special"] * bool(getattr(column, "special", ()))
        if unused:  # a range column's own bins: a rule's column is never binned (a gap is binned as the gap)
            keys = " and ".join(f"'{k}'" for k in unused)
            return [f"column '{name}' is computed by its rule, so its bins and exact values go unused: remove {keys}"]
        if self.gap or column.kind in DATE_KINDS:
            return self._gap_problems(column, kept)
        if self.part:
            return self._part_problems(column, kept)
        if self.total or column.kind in NUMBER_KINDS:
            return self._sum_problems(column, kept)
        if not self.source:
            return [f"column '{name}' is derived: name the column it is computed 'from'"]
        said = f"column '{name}' is derived from '{self.source}'"
        if not (self.edges or self.groups or self.prefix):
            return [f"{said}: give where each band after the first begins (its edges), or its groups"]
        if sum((bool(self.edges), bool(self.groups), self.prefix)) != 1:
            return [f"{said}: give exactly one rule: 'edges' (bands of a number column), 'groups' or 'prefix'"]
        source = _other(kept, self.source, name)
        if source is None:
            return [f"{said}, which is not a kept column: declare it (and keep it), or drop '{name}'"]
        if getattr(source, "derived", None) is not None and not source.derived.total:  # bands of a sum may be
            return [f"{said}, which is derived itself: derive both from the column '{source.derived.source}'"]
        if self.edges:
            if source.kind not in ("integer", "float"):
                return [f"{said} in bands, which needs a number column ('{self.source}' is {source.kind})"]
            if list(self.edges) != sorted(set(self.edges)):
                return [f"{said}: its edges must increase"]
            if len(values) != len(self.edges) + 1:
                return [
                    f"{said}: {len(self.edges)} edges make {len(self.edges) + 1} bands, one for each declared value "
                    f"in order; it declares {len(values)}"
                ]
            return []
        if source.kind != "categorical":
            return [f"{said} in groups, which needs a list of categories ('{self.source}' is {source.kind})"]
        if self.prefix:
            return []
        unknown = [g for g in self.groups if g not in {str(v) for v in values}]
        members = Counter(str(m) for group in self.groups.values() for m in group)
        declared = {str(v) for v in source.values}
        foreign = [m for m in members if m not in declared]
        twice = sorted(m for m, times in members.items() if times > 1)
        out = [f"{said}: group {g!r} is none of its declared values" for g in unknown[:3]]
        out += [f"{said}: {m!r} is none of the values of '{self.source}'" for m in foreign[:3]]
        out += [f"{said}: {m!r} is in more than one group" for m in twice[:3]]
        return out

    def _sum_problems(self, column, kept: dict) -> list[str]:
        """A sum's checks: a number column, the sum of number columns that are kept, declared and measured, each
        named once, whole numbers for a whole-number column, and missing allowed if a part may be missing."""
        said = f"column '{column.name}' is computed as a sum"
        if column.kind not in NUMBER_KINDS:
            return [f"{said}, which needs a number column ('{column.name}' is {column.kind})"]
        if not self.total or self.source or self.edges or self.groups or self.prefix:
            return [f"{said}: a number column's rule is 'sum' (the number columns it adds up) or a 'gap' from another"]
        twice = sorted(n for n, times in Counter(self.total).items() if times > 1)
        out = [f"{said}: '{n}' is named more than once" for n in twice[:3]]
        for part in dict.fromkeys(self.total):
            source = _other(kept, part, column.name)
            if source is None:
                out.append(f"{said} of '{part}', which is not another kept column: declare it (and keep it)")
            elif source.kind not in NUMBER_KINDS:
                out.append(f"{said} of '{part}', which is not a number column (it is {source.kind})")
            elif getattr(source, "derived", None) is not None and not source.derived.gap:  # a gap is measured
                out.append(f"{said} of '{part}', which is computed itself: name the columns '{part}' adds up")
            elif column.kind == "integer" and source.kind == "float":
                out.append(f"{said} of '{part}', which holds real numbers: declare '{column.name}' as real numbers")
            elif source.missing and not column.missing:
                out.append(f"{said} of '{part}', which may be missing: allow '{column.name}' to be missing too")
        return out

    def _part_problems(self, column, kept: dict) -> list[str]:
        """A date part's checks: a whole-number column, the part alone, of a kept date column (measured, or past
        another)."""
        said = f"column '{column.name}' is the {self.part} of '{self.source}'"
        if column.kind != "integer":
            return [f"{said}, which needs a whole-number column ('{column.name}' is {column.kind})"]
        if self.edges or self.groups or self.prefix or self.total or self.gap or not self.source:
            return [f"{said}: a date's part is the 'part' of a column 'from', alone"]
        source = _other(kept, self.source, column.name)
        if source is None:
            return [f"{said}, which is not another kept column: declare it (and keep it)"]
        if source.kind not in DATE_KINDS:
            return [f"{said}, which holds {source.kind} values, not dates"]
        if getattr(source, "derived", None) is not None and not source.derived.gap:
            return [f"{said}, which is computed itself: take the part of a measured date"]
        return []

    def _gap_problems(self, column, kept: dict) -> list[str]:
        """A gap's checks: a date or number column, a kept and measured source of its kind (whole numbers may
        follow whole numbers or dates dates; real numbers either number kind), the least gap no more than the most
        (whole for dates and whole numbers), and missing allowed if the source may be missing."""
        said = f"column '{column.name}' lies past '{self.source}'"
        if column.kind not in (*DATE_KINDS, *NUMBER_KINDS):
            return [f"column '{column.name}': a gap needs a date or number column (it is {column.kind})"]
        if not (self.source and len(self.gap) == 2) or self.edges or self.groups or self.prefix or self.total:
            return [f"column '{column.name}' is derived: a date's rule is the 'gap' (least, most) past a column 'from'"]
        source = _other(kept, self.source, column.name)
        if source is None:
            return [f"{said}, which is not another kept column: declare it (and keep it)"]
        if getattr(source, "derived", None) is not None and not source.derived.gap:
            return [f"{said}, which is computed itself: give the gap from a measured column"]
        chain, at = [column.name], source  # a date past a date past another (an offence, a jail entry, its exit)
        while getattr(at, "derived", None) is not None and at.derived.gap:
            if at.derived.source in chain:
                return [f"{said}, which lies past it in turn: one of them must be measured as itself"]
            chain.append(at.derived.source)
            at = kept.get(at.derived.source)
        fits = source.kind == column.kind or (column.kind == "float" and source.kind == "integer")
        if not fits:
            return [f"{said}, which holds {source.kind} values: a gap is between two columns of one kind"]
        low, high = self.gap
        if low > high:
            return [f"{said}: its least gap ({low:g}) is more than its most ({high:g})"]
        if column.kind in ("date", "integer") and not (float(low).is_integer() and float(high).is_integer()):
            return [f"{said}: a gap between {column.kind}s is whole (days for dates)"]
        if source.missing and not column.missing:
            return [f"{said}, which may be missing: allow '{column.name}' to be missing too"]
        return self._gap_range_problems(column, source, said)

    def _gap_range_problems(self, column, source, said: str) -> list[str]:
        """A gap's range check: the column's range reaches its source's plus the least gap, or a draw of the source
        past the column's last value less that gap would put the column (clamped to its range) before it, or nearer
        than the least (a day's high declared up to 1,500 past its low declared up to 10,000: synthetic highs below
        their lows; an end at least a day after its start, both declared to the same last day)."""
        end, last, least = column.max, source.max, max(self.gap[0], 0)
        dated = column.kind in DATE_KINDS

        def past(value, by):  # a value plus a gap (days for dates)
            return value + pd.Timedelta(days=by).to_pytimedelta() if dated else value + by

        if end is None or last is None or past(last, least) <= end:
            return []
        after, before, more, less = (
            ("after", "before", "later", "earlier") if dated else ("above", "below", "more", "less")
        )

        def text(value) -> str:
            return str(value)[:16] if dated else value_text(value, 15)

        gap = f"{value_text(least, 15)}{' day' + 's' * (least != 1) if dated else ''}"
        said, near = (f"{said} by at least {gap}", f"less than {gap} past it") if least else (said, f"{before} it")
        return [
            f"{said}, yet its range ends at {text(end)} and '{self.source}''s at {text(last)}: a synthetic "
            f"'{self.source}' {after} {text(past(end, -least))} would come out with '{column.name}' {near} (clamped "
            f"to its range); end '{column.name}''s range at {text(past(last, least))} or {more}, or "
            f"'{self.source}''s at {text(past(end, -least))} or {less}"
        ]

    def describe(self, kind: str = "") -> str:
        """The rule in words, for the Domain page and the card (``kind``: the column's, which says a gap's unit)."""
        if self.gap:
            low, high = self.gap
            unit = " days" if kind in DATE_KINDS else ""
            return (
                f"drawn as '{self.source}' plus {value_text(low, 15)} to {value_text(high, 15)}{unit}, the difference "
                "measured with DP in its place"
            )
        if self.total:
            parts = ", ".join(f"'{n}'" for n in self.total)
            return f"computed after the draw as the sum of {parts} (no budget spent on it)"
        if self.part:
            return f"computed after the draw as the {self.part} of '{self.source}' (no budget spent on it)"
        if self.edges:
            cuts = ", ".join(f"{e:g}" for e in self.edges)
            return f"computed after the draw from '{self.source}' in bands cut at {cuts} (no budget spent on it)"
        how = "by the value each begins with" if self.prefix else "in the declared groups"
        return f"computed after the draw from '{self.source}' {how} (no budget spent on it)"

    def codes(self, values: tuple, cells: pd.Series) -> np.ndarray:
        """Each synthetic row's position among the column's declared ``values`` from its source's synthetic
        ``cells`` (``len(values)``: missing). Post-processing of the release: no record is read."""
        missing = len(values)
        if self.edges:
            numbers = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            found = np.searchsorted(np.asarray(self.edges), numbers, side="right")
            return np.where(np.isnan(numbers), missing, found)
        texts = cells.astype("string")
        if self.prefix:
            lookup = _prefix_lookup(values, texts.dropna().unique())
        else:
            place = {str(v): i for i, v in enumerate(values)}
            lookup = {str(m): place[g] for g, members in self.groups.items() for m in members}
        return texts.map(lookup).fillna(missing).to_numpy(dtype=np.int64)

    def sums(self, cells: dict) -> np.ndarray:
        """Each synthetic row's sum of the named columns' synthetic ``cells`` (name -> Series), NaN where one is
        missing. Post-processing of the release: no record is read."""
        parts = [pd.to_numeric(cells[n], errors="coerce").to_numpy(dtype=float, na_value=np.nan) for n in self.total]
        return np.sum(parts, axis=0)


def _other(kept: dict, name: str, column: str):
    """The kept column ``name`` a rule of ``column`` reads, None when it is not another kept column."""
    return kept.get(name) if name != column else None


def computing_order(derived: dict) -> list:
    """The names of ``derived`` (name -> declared column) in an order that computes each after the derived columns it
    reads (bands of a sum, a date past a date past another); a rule reading itself in a cycle is refused by its
    checks, and is left last here."""
    order, left = [], dict(derived)
    while left:
        ready = [n for n, c in left.items() if not (set(c.derived.sources) & (set(left) - {n}))]
        for name in ready or list(left):
            order.append(name)
            del left[name]
    return order


#: The ``derived`` key of a list of categories, and of a number column, in a kind's statement (:mod:`.kinds`).
CATEGORY_RULE = Key(
    "derived",
    DerivedSpec,
    "an object: the column it is computed 'from', with its 'edges', 'groups' or 'prefix'",
    convert=DerivedRule.from_json,
    widget="derived",
    label="Computed after the draw from another column (optional)",
    help="A column that is another column in bands or groups (an age group of the age, a grade of its sub-grade): "
    "the release draws the other column and computes this one from it by the rule you give from the documentation, "
    "so the two always agree, and spends nothing on this one. Its cells are never read.",
)
SUM_RULE = Key(
    "derived",
    DerivedSpec,
    "an object: 'sum', the list of the number columns it is the sum of; or the column it lies past ('from') with "
    "the 'gap', its least and most; or the date it is a 'part' of ('from'): year, month or day",
    convert=DerivedRule.from_json,
    widget="derived",
    label="Computed after the draw as the sum of other columns (optional)",
    help="A column that is the sum of other number columns (a scale's total score of its items): the release draws "
    "those columns and adds them up, so the total always agrees with its parts, and spends nothing on this one. Its "
    "cells are never read; a part missing makes the sum missing.",
)

GAP_RULE = Key(
    "derived",
    DerivedSpec,
    "an object: the column of its kind it lies past ('from') and the 'gap', its least and most number of days",
    convert=DerivedRule.from_json,
    widget="derived",
    label="Lies a number of days past another date (optional)",
    help="A date that follows another one in every record (an interview's end after its start, a discharge after an "
    "admission): the release measures the days between them in this column's place, with the same noise, and draws "
    "this date as the other one plus those days, so it never comes before it. Give the least and the most days the "
    "documentation allows.",
)


def _prefix_lookup(values: tuple, cells) -> dict:
    """Each distinct source value -> the position of the longest declared value it begins with (none: left out)."""
    ordered = sorted(((str(v), i) for i, v in enumerate(values)), key=lambda vi: -len(vi[0]))
    out = {}
    for cell in cells:
        for value, i in ordered:
            if str(cell).startswith(value):
                out[cell] = i
                break
    return out
