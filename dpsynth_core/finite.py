"""Every column on a small, public set of codes, for methods that model columns jointly.

Binned columns (categorical, integer, float, date) already are: their cells are declared.
A weakly constrained text column first goes through CatHist (its own privacy spend): the
values it releases become the column's *vocabulary*, public because they are the output
of a DP mechanism, plus one code "other" for every value left out. A record's value is
then mapped to its vocabulary code or to "other" (a public, per-record rule), so later
measurements on these codes are DP with their own budget. On decoding, "other" becomes a
value drawn uniformly from the declared domain outside the vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .cathist import cathist, draw_from_generator
from .counting import CodedTable
from .encoding import EncodedColumn, decode_codes


@dataclass
class FiniteColumn:
    """A column as codes in ``0..cells-1`` with what is needed to turn codes back into values."""

    name: str
    domain: object
    codes: np.ndarray
    cells: int
    vocabulary: list | None = None  # text only: the CatHist-released values; code len(vocabulary) = other
    vocabulary_counts: np.ndarray | None = None  # text only: their noisy counts

    def decode(self, codes: np.ndarray, noise) -> pd.Series:
        if self.vocabulary is None:
            return decode_codes(self.domain, codes, noise)
        labels = np.asarray(self.vocabulary + [None], dtype=object)[codes]
        other = np.flatnonzero(codes == len(self.vocabulary))
        if other.size:
            labels[other] = _outside(self.domain, set(self.vocabulary), other.size, noise)
        return pd.Series(labels, dtype=object)


def _outside(domain, taken: set, count: int, noise) -> list:
    """``count`` values drawn uniformly (with repeats) from the domain minus ``taken``."""
    if domain.size <= len({v for v in taken if v is not None}):
        return [None] * count
    out: list = []
    while len(out) < count:
        for index in noise.uniform_indices(domain.size, count - len(out)):
            label = domain.label_at(index)
            if label not in taken:
                out.append(label)
    return out


def finite_column(column: EncodedColumn, *, text_epsilon: float, rho: float, noise, label: str) -> FiniteColumn:
    """A binned column as it is; a text column coded over its CatHist vocabulary (spends text_epsilon)."""
    domain = column.domain
    if domain.binned:
        return FiniteColumn(domain.name, domain, column.codes, column.cells)
    counts = column.label_counts()
    size = domain.size + (1 if domain.missing else 0)
    result = cathist(list(counts.index), counts.to_numpy(dtype=np.int64), size, epsilon=text_epsilon, rho=rho,
                     draw_inactive=draw_from_generator(domain, with_missing=domain.missing), noise=noise,
                     label=label)
    vocabulary = list(result.keys)
    other = len(vocabulary)
    missing = "\x00missing"
    keys = pd.Index([missing if v is None else v for v in vocabulary])
    codes = keys.get_indexer(np.where(pd.isna(column.labels), missing, column.labels).astype(object))
    codes = np.where(codes < 0, other, codes).astype(np.int64)
    return FiniteColumn(domain.name, domain, codes, other + 1, vocabulary, result.counts)


def coded_table(columns: dict, n_rows: int) -> CodedTable:
    """The finite columns as one :class:`~dpsynth_core.counting.CodedTable` to count on."""
    return CodedTable(codes={n: c.codes for n, c in columns.items()}, cells={n: c.cells for n, c in columns.items()},
                      n_rows=n_rows)
