"""The in-memory path (uploads, small tables): pandas, the public rule per column, numpy counts.

This is today's path, the reference the engines for large tables are tested against: the
table is read whole (:func:`~dpsynth_core.data.formats.read_data` for a file), encoded by
:func:`~dpsynth_core.data.encoding.encode_table` and counted by a
:class:`~dpsynth_core.data.counting.CodedTable`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..data.counting import CodedTable
from ..data.encoding import EncodedTable, encode_column, encode_table
from ..data.formats import read_data
from ..data.gaps import with_gaps
from ..domain import TableDomain
from ..errors import DataError, DomainError
from .recodings import Merge, Rebin, Vocabulary, check_recodings, merge_codes


class MemorySource:
    """A table held in memory as codes (see the module docstring); answers :class:`.base.CountingSource`."""

    engine = "pandas"

    def __init__(self, data, domain: TableDomain, *, encoded: EncodedTable | None = None):
        if isinstance(data, (str, Path)):
            data = read_data(data)[0]
        if not isinstance(data, pd.DataFrame):
            raise DataError(f"data must be a DataFrame or a path to a CSV file, got {type(data).__name__}")
        if len(data) == 0:
            raise DataError("the table has no rows")
        self.domain = domain
        self.frame = data
        self.read = with_gaps(data, domain)  # what is counted: a gap column as its gap (:mod:`~..data.gaps`)
        self.encoded = encoded if encoded is not None else encode_table(self.read, domain.measured())
        self.table: CodedTable = self.encoded.coded()
        self.n_rows = self.encoded.n_rows

    @property
    def cells(self) -> dict:
        return dict(self.table.cells)

    def marginal(self, group, *, buckets: dict | None = None) -> np.ndarray:
        self._check(group)
        return self.table.marginal(group, buckets=buckets)

    def marginals(self, groups, *, buckets: dict | None = None) -> list[np.ndarray]:
        groups = [tuple(g) for g in groups]
        for group in groups:
            self._check(group)
        return self.table.marginals(groups, buckets=buckets)

    def companions(self, group) -> list[tuple]:
        """The pairs :meth:`marginals` counts in the same pass as ``group`` (:meth:`.CodedTable.companions`): an
        optional part of the counting interface (:class:`.base.CountingSource`), asked for by a caller that may
        count them with ``group`` at little cost; an engine without it counts what is asked."""
        return self.table.companions(tuple(group))

    def sparse_marginal(self, group) -> tuple[np.ndarray, np.ndarray]:
        self._check(group)
        return self.table.sparse_marginal(group)

    def _check(self, group) -> None:
        for name in group:
            if name not in self.table.cells:
                raise DomainError(
                    f"column '{name}' is text: re-code it over a vocabulary before counting it in a marginal"
                    if name in self.encoded.columns
                    else f"unknown column '{name}'"
                )

    def value_counts(self, name: str) -> pd.Series:
        column = self.encoded.columns[name]
        return column.label_counts() if not column.domain.binned else self.table.value_counts(name)

    def raw_values(self, name: str) -> tuple[pd.Series, None]:
        """The column's raw cells, one per record (weights None)."""
        return self.read[name], None

    def report(self) -> dict:
        return self.encoded.report()

    def recode(self, recodings: dict) -> MemorySource:
        """The same table with the given columns on new codes (see :mod:`.base`)."""
        check_recodings(recodings, self.domain)
        codes, cells = dict(self.table.codes), dict(self.table.cells)
        for name, recoding in recodings.items():
            if isinstance(recoding, Vocabulary):
                codes[name] = self.encoded.columns[name].map_labels(recoding.codes)
            elif isinstance(recoding, Rebin):
                codes[name] = encode_column(recoding.domain, self.read[name], self.domain.missing_markers).codes
            elif isinstance(recoding, Merge):
                codes[name] = merge_codes(name, recoding, codes.get(name), cells.get(name))
            cells[name] = int(recoding.cells)
        twin = object.__new__(MemorySource)
        twin.__dict__.update(self.__dict__)
        twin.table = CodedTable(codes, cells, self.n_rows)
        return twin

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
