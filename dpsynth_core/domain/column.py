"""The base of every column kind, and the two simplest kinds: a dropped column and a list of categories."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .. import constraints
from ..errors import DomainError
from .derived import DerivedRule
from .spellings import keyed_positions


@dataclass(frozen=True)
class ColumnDomain:
    """Base class of a column's declared domain."""

    name: str
    missing: bool = True
    derived: DerivedRule | None = None  # computed from other columns after the draw (:mod:`.derived`)
    kind: ClassVar[str] = ""
    #: True when values fall into a small, fixed set of histogram cells (codes 0..bins-1).
    binned: ClassVar[bool] = True

    def problems(self) -> list[str]:
        """What the publisher must still supply before this column can be used."""
        return []

    @property
    def complete(self) -> bool:
        return not self.problems()

    @property
    def constant(self) -> bool:
        """Whether the declaration leaves the column one possible value: one declared value, never missing (a year
        2012 to 2012 with no missing one). Nothing to tell apart, and no relationship to keep; a box ticked or left
        empty (one value, or missing) is not constant."""
        return not self.missing and getattr(self, "size", 2) == 1

    def _require_complete(self):
        found = self.problems()
        if found:
            raise DomainError.from_problems(found)

    def _too_many_bins(self, count) -> list[str]:
        """The resource limit on one column's cells, checked from the count alone (nothing allocated)."""
        if count > constraints.MAX_COLUMN_CELLS:
            shown = f"{count:,.0f}" if count < 1e18 else "more than 10^18"
            return [
                f"column '{self.name}': {shown} bins is more than the {constraints.MAX_COLUMN_CELLS:,} "
                "a column may have; declare wider bins"
            ]
        return []

    def _base_json(self) -> dict:
        out = {"type": self.kind}
        if not self.missing:
            out["missing"] = False
        if self.derived is not None:
            out["derived"] = self.derived.to_json()
        return out

    def _derived_words(self) -> str:
        """``, computed after the draw ...`` for a column computed from others (:mod:`.derived`), else nothing."""
        return f", {self.derived.describe(self.kind)}" if self.derived is not None else ""

    def summary(self) -> dict:
        """A short, public description for release cards and the app."""
        return {"column": self.name, "kind": self.kind, "description": self.describe(), "missing_allowed": self.missing}


@dataclass(frozen=True)
class DropDomain(ColumnDomain):
    """A column left out of the release (identifiers, free text nobody declared)."""

    kind: ClassVar[str] = "drop"

    def describe(self) -> str:
        return "dropped (not released)"

    def to_json(self) -> dict:
        return {"type": "drop"}


@dataclass(frozen=True)
class CategoricalDomain(ColumnDomain):
    """An explicit list of values, typed or taken from a public code list.

    Values that are not in the list map to ``other`` when one is declared, else to missing.
    """

    values: tuple = ()
    labels: dict | None = None
    other: object = None
    #: A cell is also read as the declared value it writes in other capitals, spaces or punctuation
    #: (:attr:`read_spellings`): documentation's ``TA/TO`` where the file writes ``ta_to``.
    any_spelling: bool = False
    kind: ClassVar[str] = "categorical"

    def problems(self) -> list[str]:
        if not self.values:
            return [f"column '{self.name}': a categorical domain needs at least one value"]
        out = []
        texts = [str(v) for v in self.values]
        if len(set(texts)) != len(texts):  # named (a list pasted twice, or two values the page read alike)
            found, counts = np.unique(np.asarray(texts, dtype=object), return_counts=True)
            twice = ", ".join(repr(v) for v in found[counts > 1][:3])
            out.append(f"column '{self.name}': the declared values contain duplicates: {twice}")
        if any(isinstance(v, str) and not v.strip() for v in self.values):  # a cell so written is a missing one
            out.append(
                f"column '{self.name}': a declared value is empty or only spaces, which a cell is read as missing: "
                "leave it out (declare 'missing' instead)"
            )
        if self.other is not None and self.other not in self.values:
            out.append(f"column '{self.name}': 'other' ({self.other!r}) must be one of the declared values")
        return out + self._too_many_bins(len(self.values))

    @property
    def read_labels(self) -> dict:
        """``label -> position`` of each declared value whose label a file may write in its place (REDCap's
        labels export writes ``Female`` for the code 0): a label that no other value has and that is no declared
        value itself. A public reading of a cell, from the declaration alone."""
        keys = {str(v) for v in self.values}
        found: dict = {}
        for i, value in enumerate(self.values):
            label = str((self.labels or {}).get(str(value), "")).strip()
            if label and label not in keys:
                found[label] = -1 if label in found else i
        return {label: i for label, i in found.items() if i >= 0}

    @property
    def read_spellings(self) -> dict:
        """``key -> position`` by which a column declared ``any_spelling`` reads a cell written in other capitals,
        spaces or punctuation (:func:`~.spellings.loose_key`; a key two declared values share reads neither); empty
        otherwise. A public reading of a cell, from the declaration alone."""
        return keyed_positions(self.values) if self.any_spelling and not self.integer_codes else {}

    @property
    def integer_codes(self) -> bool:
        return bool(self.values) and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in self.values
        )

    @property
    def size(self) -> int:
        return len(self.values)

    @property
    def bins(self) -> int:
        return len(self.values)

    def describe(self) -> str:
        shown = ", ".join(self.bin_labels(self.values[:6]))  # codes with their labels, e.g. "1 (Urban)"
        more = f", ... ({len(self.values)} values)" if len(self.values) > 6 else ""
        spelled = " (in any capitals, spaces and punctuation)" if self.any_spelling else ""
        return f"one of {shown}{more}{spelled}{self._derived_words()}"

    def to_json(self) -> dict:
        out = self._base_json()
        out["values"] = [int(v) if isinstance(v, np.integer) else v for v in self.values]
        if self.labels:
            out["labels"] = dict(self.labels)
        if self.other is not None:
            out["other"] = self.other
        if self.any_spelling:
            out["any_spelling"] = True
        return out

    def bin_labels(self, values=None) -> list[str]:
        """Each value with its label when it has one: ``"1 (Urban)"``."""
        values = self.values if values is None else values
        if self.labels:
            return [
                f"{v} ({self.labels.get(str(v), v)})" if str(self.labels.get(str(v), v)) != str(v) else str(v)
                for v in values
            ]
        return [str(v) for v in values]
