"""Dirichlet-multinomial synthesizer (Hu; Machanavajjhala et al. 2008).

Guarantee: epsilon-DP under **substituting** one record, with the number of records
public (the true count is used). Not DP under adding or removing a record: the output
size reveals the count. For one contingency table over a declared finite domain with
true counts ``y`` and ``N`` synthetic records:

    theta ~ Dirichlet(y + alpha),   y* ~ Multinomial(N, theta),
    with every alpha_i >= N / (exp(epsilon) - 1)   (Hu, equation 13).

Tables: each kept column alone by default (1-way), or publisher-chosen groups of columns
(one contingency table over their product domain each); epsilon is split equally across
tables (basic composition). Must be declared in advance: finite domains for every column
(weakly constrained text cannot be used: a prior on every one of its values would drown
the data). The Dirichlet and multinomial draws use numpy's floating-point samplers.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..data.decoding import decode_codes
from ..data.encoding import EncodedTable
from ..errors import ParameterError
from ..privacy.accounting import SUBSTITUTE
from ..privacy.noise import dirichlet
from ..wording import noun
from .base import Synthesizer
from .charges import PRIOR
from .options import groups_option
from .registry import register

MAX_TABLE_CELLS = 2_000_000


def _refuse_text(text: list) -> None:
    if text:
        raise ParameterError(
            f"dirichlet needs finite declared domains; {noun(len(text), 'column')} {', '.join(text)} "
            f"{'is' if len(text) == 1 else 'are'} weakly constrained text: use 'cathist' or 'marginals', or drop "
            f"{'it' if len(text) == 1 else 'them'}"
        )


def _tables(groups, names) -> list[tuple]:
    """The contingency tables: the publisher's groups, then every other column alone."""
    grouped = [tuple(g) for g in (groups or [])]
    seen = [c for g in grouped for c in g]
    unknown = [c for c in seen if c not in names]
    if unknown:
        raise ParameterError(f"groups name {noun(len(unknown), 'column')} not in the release: {', '.join(unknown)}")
    if len(set(seen)) != len(seen):
        raise ParameterError("a column may appear in only one group")
    return grouped + [(n,) for n in names if n not in seen]


def alpha_min(n_synthetic: int, epsilon: float) -> float:
    """Smallest prior count giving epsilon-DP: ``N / (exp(epsilon) - 1)``."""
    return n_synthetic / math.expm1(epsilon)


@register(
    "dirichlet",
    "Dirichlet-multinomial (fixed row count)",
    """Treats the table as counts and blends them with a large, even 'prior' before drawing
    new counts at random, so that any one person's row makes little difference. It protects
    against a record being swapped for another, with the number of rows public. Simple and
    easy to explain; best for a few columns with small lists of values. Relationships are
    kept only inside column groups you choose.""",
    neighbouring=SUBSTITUTE,
    rank=5,
)
class DirichletMultinomial(Synthesizer):
    """Hu's Dirichlet-multinomial synthesizer over declared finite domains (see module docstring).

    Args:
        groups: optional tuples of column names, each one contingency table; columns not
            named form 1-way tables of their own.
    """

    neighbouring = SUBSTITUTE
    row_count_is_public = True
    independent_chunks = False  # draws exactly its fitted number of rows, in one piece (chunk_sampler)
    options = (
        groups_option(
            "column groups, each one contingency table (a column may appear in one group "
            "only); the other columns are tables of their own"
        ),
    )
    column_label = "table {}"

    def __init__(self, *, epsilon, rho=0.9, random_state=None, groups=None):
        super().__init__(epsilon=epsilon, rho=rho, random_state=random_state)
        self.groups = groups

    @classmethod
    def uses_tolerance(cls, domain) -> bool:
        return False  # text cannot be used; every declared cell gets the prior, none is made up

    @classmethod
    def column_mechanism(cls, column, **options) -> str:
        return PRIOR

    @classmethod
    def _method_events(cls, domain, epsilon, left, common, *, rows=None, groups=None, **options) -> list:
        names = list(domain.kept)
        _refuse_text([n for n in names if not domain.kept[n].binned])
        tables = _tables(groups, names)
        share = left / len(tables)
        return [cls._event("Dirichlet-multinomial", share, f"table {' x '.join(t)}") for t in tables]

    @classmethod
    def privacy_note(cls, domain, epsilon, *, rows=None, **options):
        return (
            "info",
            "This method protects against one record being **replaced** by another; the number of "
            "rows is public and is used as it is. Each cell gets a prior of rows / (e^ε − 1) made-up "
            "records: when that is much larger than the data in a cell, the output is close to "
            "uniform. It suits a few columns with short lists of values, or a higher ε.",
        )

    def _tables(self, names) -> list[tuple]:
        return _tables(self.groups, names)

    def _fit(self, encoded: EncodedTable, epsilon: float) -> None:
        _refuse_text([n for n, c in encoded.columns.items() if not c.domain.binned])
        self.tables_ = self._tables(list(encoded.columns))
        share = epsilon / len(self.tables_)
        self.alpha_ = alpha_min(self.rows_, share)
        self.counts_ = {}
        coded = encoded.coded()
        for table in self.tables_:
            cells = [encoded.columns[c].cells for c in table]
            size = math.prod(int(c) for c in cells)  # exact: numpy's int64 product wraps past 2**63, silently
            if size > MAX_TABLE_CELLS:
                raise ParameterError(
                    f"the group {' x '.join(table)} makes a table of {size:,} cells, more than {MAX_TABLE_CELLS:,}: "
                    "group fewer columns, or columns with fewer values"
                )
            true = coded.marginal(table).ravel()
            theta = dirichlet(self.noise_, true + self.alpha_)
            self.counts_[table] = (cells, self.noise_.rng.multinomial(self.rows_, theta))
            self._spend("Dirichlet-multinomial", share, f"table {' x '.join(table)}")

    def chunk_sampler(self):
        """Chunks in order, as consecutive slices of the one table of the fitted number of rows
        (drawn at the first chunk): the multinomial counts fix the whole table, not a chunk."""
        whole, start = None, 0

        def draw(index: int, size: int) -> pd.DataFrame:
            nonlocal whole, start
            if whole is None:
                whole = self.sample()
            chunk = whole.iloc[start : start + size].reset_index(drop=True)
            start += size
            return chunk

        return draw

    def _sample(self, n: int) -> pd.DataFrame:
        if n != self.rows_:
            raise ParameterError(
                f"dirichlet draws exactly the fitted number of rows ({self.rows_}); "
                "pass rows= to fit for another public count"
            )
        rng = self.noise_.rng
        out = {}
        for table, (cells, counts) in self.counts_.items():
            flat = rng.permutation(np.repeat(np.arange(len(counts)), counts))
            codes = np.unravel_index(flat, cells)
            for column, column_codes in zip(table, codes):
                out[column] = decode_codes(self.domain_.columns[column], column_codes, self.noise_)
        return pd.DataFrame({c: out[c].reset_index(drop=True) for c in out})

    def card_details(self) -> dict:
        return {
            "tables": [list(t) for t in self.tables_],
            "alpha_per_cell": self.alpha_,
            "sampler": "numpy Dirichlet and multinomial (floating point; no exact sampler exists), "
            "over the release's generator (ChaCha20 in real releases)",
        }
