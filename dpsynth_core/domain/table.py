"""A table's declared domain: its columns in order, which are kept, whether it is complete, and the
privacy unit (a row, or a person identified by a column with a public bound on their rows)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import constraints
from ..errors import DomainError
from ..wording import noun
from .column import ColumnDomain, DropDomain
from .declaration import _build_column, parse_declaration, read_declaration_bytes
from .header import header_hint, names_hint
from .schema import declaration_problems
from .templates import unconfirmed_columns

#: Column names starting with this are the engines' own working columns (weights, counts, groupings).
RESERVED_PREFIX = "__dpsynth_"


@dataclass(frozen=True)
class PersonUnit:
    """The privacy unit when one person may have several rows: the column that identifies a person
    and a public bound on rows per person (declared from public knowledge, never read off the data).

    A release keeps at most ``max_rows`` rows of each person, chosen at random, before any statistic
    (:func:`dpsynth_core.privacy.persons.bound_rows`); the identifier is never released nor used as a
    feature. ``name`` is what a person is called in plain words ("patient", "customer").
    """

    column: str
    max_rows: int
    name: str = "person"
    ignore_case: bool = False  # 'P9' and 'p9' are one person (the publisher says so: a public rule)

    def in_words(self) -> str:
        """The unit in plain words: ``each patient, up to 2 rows``."""
        rows = "1 row" if self.max_rows == 1 else f"{self.max_rows:,} rows"
        return f"each {self.name}, up to {rows}"

    def to_json(self) -> dict:
        out = {"column": self.column, "max_rows": self.max_rows, "name": self.name}
        return {**out, "ignore_case": True} if self.ignore_case else out


@dataclass(frozen=True)
class TableDomain:
    """The declared domain of a whole table: one :class:`ColumnDomain` per column, in order.

    Attributes:
        columns: column name -> domain, in the CSV's order.
        missing_markers: cell texts that mean "missing" (default: the empty cell).
        dataset, documentation, notes: free text carried along into the release card.
        person: the privacy unit when one person may have several rows (:class:`PersonUnit`); None:
            the unit is one row.
    """

    columns: dict
    missing_markers: tuple = ("",)
    dataset: str = ""
    documentation: str = ""
    notes: dict = field(default_factory=dict)
    person: PersonUnit | None = None

    @property
    def kept(self) -> dict:
        """Columns that go into the release (everything but ``drop`` and the person identifier)."""
        person = self.person.column if self.person is not None else None
        return {n: c for n, c in self.columns.items() if c.kind != "drop" and n != person}

    @property
    def rows_per_person(self) -> int:
        """The group a release's epsilon is divided by: a person unit's ``max_rows`` (each of a person's rows is
        measured at epsilon / K, so the person gets epsilon by group privacy), 1 for a row unit."""
        return self.person.max_rows if self.person is not None else 1

    @property
    def derived(self) -> dict:
        """Kept columns computed from others after the draw (:mod:`.derived`): never read nor measured, but for a
        column drawn past another (:attr:`gaps`), measured as its gap."""
        return {n: c for n, c in self.kept.items() if getattr(c, "derived", None) is not None}

    @property
    def gaps(self) -> dict:
        """Derived columns drawn as their source plus a measured gap (:mod:`.derived`): read and measured as the gap."""
        return {n: c for n, c in self.derived.items() if c.derived.gap}

    def measured(self) -> TableDomain:
        """The declaration a method fits: its derived columns (:attr:`derived`) dropped, since the release computes
        them from their sources' synthetic values, but a gap column as the whole or real numbers of its gap (the
        data read through :func:`~dpsynth_core.data.gaps.with_gaps`); the same declaration when it has none."""
        derived = self.derived
        if not derived:
            return self
        columns = {
            n: (gap_domain(c) if c.derived.gap else DropDomain(n)) if n in derived else c
            for n, c in self.columns.items()
        }
        return replace(self, columns=columns)

    def underived(self) -> TableDomain:
        """The declaration with its derived columns read as any list of categories (a report measures each real
        column itself, whatever a release computes it from)."""
        derived = self.derived
        if not derived:
            return self
        return replace(
            self, columns={n: replace(c, derived=None) if n in derived else c for n, c in self.columns.items()}
        )

    def with_person(self, person: PersonUnit | None) -> TableDomain:
        """The same declaration with another privacy unit (None: one row)."""
        return replace(self, person=person)

    def with_person_bound(self, column: str, max_rows: int) -> TableDomain:
        """The unit "one person identified by ``column``, up to ``max_rows`` rows" (the declared name kept)."""
        same = self.person
        return self.with_person(
            PersonUnit(column, int(max_rows), same.name if same else "person", bool(same and same.ignore_case))
        )

    def problems(self) -> list[str]:
        """Everything the publisher must still supply or fix, one message per problem (all of them)."""
        out = [p for c in self.columns.values() for p in c.problems()]
        if self.person is not None and self.person.column not in self.columns:
            out.append(f"the person column '{self.person.column}' is not declared: declare it (as 'drop')")
        elif self.person is not None and self.columns[self.person.column].kind != "drop":
            out.append(
                f"the person column '{self.person.column}' is declared as a kept column: the column that identifies "
                "a person is never released; declare it as 'drop', or name the column that identifies a person"
            )
        if not self.kept:
            out.append("every column is dropped: keep at least one column")
        for column in self.derived.values():
            out += column.derived.problems(column, self.kept)
        out += unconfirmed_columns(self.notes, self.kept)
        if not out:
            cells = sum(c.bins + 1 for c in self.kept.values() if c.binned)
            if cells > constraints.MAX_TABLE_CELLS:
                out.append(
                    f"the declared columns have {cells:,} bins in all, more than the "
                    f"{constraints.MAX_TABLE_CELLS:,} a table may have; declare wider bins"
                )
        return out

    def validate(self) -> TableDomain:
        """Return self, or raise :class:`DomainError` naming every thing to fix."""
        found = self.problems()
        if found:
            raise DomainError.from_problems(found)
        return self

    def covering(self, names) -> TableDomain:
        """The same declaration with only the kept columns ``names`` kept, the others dropped (a report that measures
        some of a release's columns)."""
        keep = set(names)
        columns = {n: c if n in keep or c.kind == "drop" else DropDomain(n) for n, c in self.columns.items()}
        return replace(self, columns=columns)

    def with_column(self, column: ColumnDomain) -> TableDomain:
        columns = dict(self.columns)
        columns[column.name] = column
        return replace(self, columns=columns)

    def check_matches(self, column_names) -> None:
        """Raise when the data's columns and the declaration's columns differ."""
        names = list(column_names)
        reserved = [str(c) for c in names if str(c).startswith(RESERVED_PREFIX)]
        if reserved:
            raise DomainError(
                f"column '{reserved[0]}': names starting with {RESERVED_PREFIX} are kept for dpsynth's "
                "own working columns; rename it"
            )
        missing_in_data = [c for c in self.columns if c not in names]
        undeclared = [c for c in names if c not in self.columns]
        if missing_in_data:
            folded = {str(c).casefold(): str(c) for c in undeclared}
            near = [f"'{folded[c.casefold()]}' for '{c}'" for c in missing_in_data if c.casefold() in folded]
            title = header_hint(names) or names_hint(names, self.columns)
            raise DomainError(
                f"the domain declares {noun(len(missing_in_data), 'column')} the data lacks: "
                + ", ".join(missing_in_data)
                + (f" (the data has {', '.join(near)}: a name must match, capitals included)" if near else "")
                + (f". {title}" if title else "")
            )
        if undeclared:
            unnamed = any(str(c).startswith("Unnamed: ") for c in undeclared)
            # a header naming two columns alike: the second is read as name.1 (header_names.name_columns)
            twice = [(c, *m.groups()) for c in undeclared if (m := re.fullmatch(r"(.+)\.([0-9]+)", str(c)))]
            twice = [(c, first, int(k)) for c, first, k in twice if first in names and 0 < int(k) < 3]
            raise DomainError(
                f"the data has {noun(len(undeclared), 'column')} the domain does not declare: {', '.join(undeclared)} "
                "(declare them, or declare them as 'drop'"
                + (
                    "; 'Unnamed: N' is column N + 1, whose header cell is empty: the row numbers R or pandas "
                    "write, or an empty column a spreadsheet left at the end of each line"
                    if unnamed
                    else ""
                )
                + "".join(
                    f"; '{c}' is the {('second', 'third')[k - 1]} column the file's header names '{first}': rename it "
                    "in the file, or declare it by this name"
                    for c, first, k in twice[:3]
                )
                + ")"
            )

    # --- JSON ---------------------------------------------------------------------------

    @classmethod
    def from_json(cls, spec: dict) -> TableDomain:
        """Build a declaration from its JSON form, after checking the form of every key
        (:func:`~dpsynth_core.domain.schema.declaration_problems`); raises :class:`DomainError`
        naming every problem found. A declaration may still be incomplete: see :meth:`problems`."""
        found = declaration_problems(spec)
        if found:
            raise DomainError.from_problems(found)
        columns = {name: _build_column(name, col) for name, col in spec["columns"].items()}
        mv = spec.get("missing_values") or {}
        markers = mv.get("markers")
        if markers is None:
            marker = mv.get("marker", "empty cell")
            markers = [""] if marker in ("empty cell", "", None) else ["", marker]
        person = spec.get("person")
        if person is not None:
            person = PersonUnit(
                person["column"], person["max_rows"], person.get("name") or "person", bool(person.get("ignore_case"))
            )
        return cls(
            columns=columns,
            missing_markers=tuple(markers),
            dataset=spec.get("dataset") or "",
            documentation=spec.get("documentation") or "",
            notes=dict(spec.get("notes") or {}),
            person=person,
        )

    def to_json(self) -> dict:
        out = {
            "dataset": self.dataset,
            "documentation": self.documentation,
            "columns": {n: c.to_json() for n, c in self.columns.items()},
            "missing_values": {"markers": list(self.missing_markers)},
        }
        if self.notes:
            out["notes"] = self.notes
        if self.person is not None:
            out["person"] = self.person.to_json()
        return out

    @classmethod
    def load(cls, path) -> TableDomain:
        """Read a declaration file (UTF-8 JSON, at most ``MAX_DECLARATION_BYTES``)."""
        return cls.from_json(parse_declaration(read_declaration_bytes(path), str(path)))

    def save(self, path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    def summary(self) -> list[dict]:
        return [c.summary() for c in self.columns.values()]


def as_table_domain(domain) -> TableDomain:
    """Accept a :class:`TableDomain`, its JSON form as a dict, or a path to the JSON file."""
    if isinstance(domain, TableDomain):
        return domain
    if isinstance(domain, dict):
        return TableDomain.from_json(domain)
    if isinstance(domain, (str, Path)):
        return TableDomain.load(domain)
    raise DomainError(f"domain must be a TableDomain, a dict or a path, got {type(domain).__name__}")


def gap_domain(column: ColumnDomain) -> ColumnDomain:
    """What a release measures in a gap column's place (:attr:`TableDomain.gaps`): the whole numbers (days for a
    date, its steps for a date and time) or the real numbers from its least to its most gap, missing where the column
    may be."""
    from .ranges import FloatDomain, IntegerDomain

    low, high = column.derived.gap
    if column.kind == "float":
        return FloatDomain(column.name, column.missing, min=float(low), max=float(high), decimals=column.decimals)
    if column.kind == "datetime":  # days, as the column's steps (minutes when kept to the minute)
        per_day = 86_400 / column.seconds
        return IntegerDomain(column.name, column.missing, min=math.floor(low * per_day), max=math.ceil(high * per_day))
    return IntegerDomain(column.name, column.missing, min=int(low), max=int(high))
