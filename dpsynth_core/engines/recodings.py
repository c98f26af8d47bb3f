"""How a counting source re-codes a column: over a released vocabulary, new bins, or merged codes (all public).

:meth:`~.base.EngineSource.recode` (and the in-memory source's) takes ``{name: Vocabulary | Rebin | Merge}``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..domain import ColumnDomain, TableDomain
from ..errors import DomainError
from ..privacy.prefixes import fallback_codes


@dataclass(frozen=True)
class Vocabulary:
    """Code a text column over a released vocabulary: value ``values[i]`` -> code ``i``, else the code of its
    longest released prefix ``P*`` among ``prefixes`` (:func:`~dpsynth_core.privacy.prefixes.fallback_codes`),
    else "other", ``len(values)``. ``None`` in ``values`` stands for missing."""

    values: tuple
    prefixes: tuple = ()

    @property
    def cells(self) -> int:
        return len(self.values) + 1

    def codes(self, labels: np.ndarray) -> np.ndarray:
        return fallback_codes(labels, self.values, self.prefixes)


@dataclass(frozen=True)
class Rebin:
    """Encode a column's raw values under another declaration of the same column (new public or
    DP bin edges), by the same public rule."""

    domain: ColumnDomain

    @property
    def cells(self) -> int:
        return self.domain.bins + (1 if self.domain.missing else 0)


@dataclass(frozen=True)
class Merge:
    """Merge a column's current codes: code ``c`` -> ``mapping[c]`` (public, e.g. DP-chosen bins of a fine grid)."""

    mapping: tuple
    cells: int


def check_recodings(recodings: dict, domain: TableDomain) -> None:
    for name, recoding in recodings.items():
        if name not in domain.kept:
            raise DomainError(f"cannot re-code column '{name}': it is not a kept column of the declaration")
        if not isinstance(recoding, (Vocabulary, Rebin, Merge)):
            raise TypeError(
                f"re-coding of '{name}' must be a Vocabulary, Rebin or Merge, got {type(recoding).__name__}"
            )
        if isinstance(recoding, Rebin) and (recoding.domain.name != name or not recoding.domain.binned):
            raise DomainError(f"Rebin of '{name}' needs a binned declaration of the same column")
        if isinstance(recoding, Vocabulary) and domain.kept[name].binned:
            raise DomainError(f"column '{name}' is binned: a Vocabulary re-codes text columns only")


def merge_codes(name: str, merge: Merge, codes: np.ndarray | None, cells: int | None) -> np.ndarray:
    """A column's ``codes`` over ``cells`` cells, merged by ``merge`` (None: a text column, refused)."""
    if codes is None:
        raise DomainError(f"column '{name}' is text: give it a Vocabulary before merging codes")
    mapping = np.asarray(merge.mapping, dtype=np.int64)
    if len(mapping) != cells or mapping.min() < 0 or mapping.max() >= merge.cells:
        raise DomainError(f"Merge of '{name}' needs one new code in 0..{merge.cells - 1} for each of its {cells} cells")
    return mapping[codes]
