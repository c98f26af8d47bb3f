"""Every column on a small, public set of codes, for methods that model columns jointly.

Binned columns (categorical, integer, float, date, datetime) already are: their cells are declared,
"missing" last. A weakly constrained text column first goes through CatHist over its
declared domain (its own privacy spend, without "missing"): the values it releases
become the column's *vocabulary*, public because they are the output of a DP mechanism.
The codes of a text column are then, all public:

* ``0 .. V-1``: the vocabulary, in the domain's public enumeration order
  (:meth:`~dpsynth_core.domain.TextDomain.index_of`), never in frequency order;
* ``V``: "other", every value outside the vocabulary;
* ``V + 1``: "missing", when the column allows it (never merged with "other").

A record's value maps to its code by this public, per-record rule, so every later
measurement on the codes is DP with its own budget. A method must *measure* the cells
"other" and "missing" with noise like any other cell (their mass is never taken as the
rows minus the vocabulary's counts).

Decoding rule, so that the made-up values of a release are exactly CatHist's (a release
holds none with probability rho, as with ``cathist``): a vocabulary code decodes to its
value; "missing" to a missing cell; "other" to a vocabulary value drawn in proportion to
the vocabulary's noisy counts (a value outside the vocabulary is never invented). When the
vocabulary is empty (no value survived), "other" decodes to the domain's first value
(``label_at(0)``), a fixed public placeholder (the one the encoding uses for missing cells in
columns that cannot be missing): not a random made-up value, and not "missing", so the
measured share of missing cells stays as it was measured.

Hierarchical codes (a text column with declared ``prefixes``): the vocabulary is released level
by level (:mod:`dpsynth_core.privacy.prefixes`, within the same ``text_epsilon``) and holds the
released full codes, then each level's released prefixes as ``P*``; a record's code is its full
code, else its longest released prefix, else "other". "Other" then decodes to the shortest
level's released prefixes in proportion to their noisy counts (a shortened code, not another full
code), or by the rule above when no prefix was released.

Each text column's vocabulary is priced from the declaration alone: :func:`vocabulary_shares` gives its
share of the budget, by its CatHist levels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.counting import CodedTable
from ..data.decoding import Decoded, decoded_codes
from ..data.encoding import EncodedColumn
from ..engines.recodings import Merge, Vocabulary
from ..privacy.cathist import cathist, draw_from_generator, threshold
from ..privacy.prefixes import release_levels

#: A text column's vocabulary gets this share of the budget (after the row count and bins) for each of its
#: CatHist levels (one, plus one per declared prefix length), all vocabularies together at most
#: ``VOCABULARY_SHARE_MAX``; the method's other measurements keep the rest (``marginals``: of rho; ``copula``:
#: of the squared epsilons advanced composition adds up). With ``marginals`` on compas (7,214 records, 9 other
#: columns) with its charge description as free text, epsilon 1, 6 seeds: 5% gave 3.2 surviving values and a
#: mean 2-way TVD of 0.167 (0.057 over the pairs without text); 10%: 4.0 values, 0.155 (0.054); 40%: 5.0
#: values, 0.154, but 0.060 without text (``benchmarks.quality.text_budget``). From the declaration alone, never
#: the data.
VOCABULARY_SHARE_PER_LEVEL = 0.1
VOCABULARY_SHARE_MAX = 0.3


def vocabulary_shares(domain) -> dict[str, float]:
    """Each text column's share of the budget (after the row count and bins) for its CatHist vocabulary:
    ``VOCABULARY_SHARE_PER_LEVEL`` per level (1 + its declared prefix lengths), the total capped at
    ``VOCABULARY_SHARE_MAX`` and then split in proportion to the levels. Public: the declaration alone.

    >>> from dpsynth_core.domain import TableDomain
    >>> text = {"type": "text", "generator": "digits", "length": 5}
    >>> vocabulary_shares(TableDomain.from_json({"columns": {"a": text, "b": {**text, "prefixes": [3]}}}))
    {'a': 0.1, 'b': 0.2}
    >>> vocabulary_shares(TableDomain.from_json({"columns": {c: text for c in "abcd"}}))["a"]
    0.075
    """
    levels = {n: 1 + len(getattr(c, "prefixes", ()) or ()) for n, c in domain.kept.items() if not c.binned}
    total = min(VOCABULARY_SHARE_MAX, VOCABULARY_SHARE_PER_LEVEL * sum(levels.values()))
    return {n: round(total * count / sum(levels.values()), 12) for n, count in levels.items()}


@dataclass
class FiniteColumn:
    """A column as codes in ``0..cells-1`` with what is needed to turn codes back into values.

    Attributes:
        vocabulary: text only: the CatHist-released values in public order (codes ``0..V-1``).
        vocabulary_counts: text only: their noisy CatHist counts.
        epsilon, rho: text only: the vocabulary's epsilon and tolerance (public parameters).
    """

    name: str
    domain: object
    codes: np.ndarray
    cells: int
    vocabulary: list | None = None
    vocabulary_counts: np.ndarray | None = None
    epsilon: float | None = None
    rho: float | None = None

    @property
    def prefixes(self) -> tuple:
        """Text only: the declared prefix lengths, longest first (empty: no fallback)."""
        return tuple(getattr(self.domain, "levels", ()))

    def recoding(self, with_missing: bool = False) -> Vocabulary:
        """The public rule that codes this text column over its vocabulary (``None`` for missing, when asked)."""
        return Vocabulary(tuple(self.vocabulary) + ((None,) if with_missing else ()), self.prefixes)

    @property
    def other_code(self) -> int | None:
        """Text only: the code of every value outside the vocabulary."""
        return None if self.vocabulary is None else len(self.vocabulary)

    @property
    def missing_code(self) -> int | None:
        """The code of "missing" (the last code), or None when the column cannot be missing."""
        if not self.domain.missing:
            return None
        return self.cells - 1

    def decode(self, codes: np.ndarray, noise) -> pd.Series:
        """Values for synthetic codes, by the decoding rule in the module docstring."""
        return self.decoded(codes, noise).series()

    def decoded(self, codes: np.ndarray, noise, tilts=()) -> Decoded:
        """:meth:`decode`'s values as a :class:`~dpsynth_core.data.decoding.Decoded` (a Series or Arrow);
        ``tilts``: a range's end bins whose values fall away from the data (:func:`~dpsynth_core.data.decoding.
        end_tilts`)."""
        codes = np.asarray(codes, dtype=np.int64)
        if self.vocabulary is None:
            return decoded_codes(self.domain, codes, noise, tilts)
        labels = np.asarray(self.vocabulary if self.vocabulary else [self.domain.label_at(0)], dtype=object)
        indices = np.where(codes < len(self.vocabulary), codes, 0)
        other = np.flatnonzero(codes == self.other_code)
        if other.size:
            indices[other] = self._decode_other(other.size, noise)
        return Decoded(codes > self.other_code, labels=labels, indices=indices)

    def _decode_other(self, count: int, noise) -> np.ndarray:
        """Positions in the vocabulary (the placeholder's, 0, when it is empty) for ``count`` "other" codes."""
        if not self.vocabulary:
            return np.zeros(count, dtype=np.int64)
        positions, weights = np.arange(len(self.vocabulary)), np.asarray(self.vocabulary_counts, float)
        if self.prefixes:  # the shortest level's released prefixes, when there are any
            stems = np.array([len(v) - 1 if v.endswith("*") else -1 for v in self.vocabulary])
            if (stems == min(self.prefixes)).any():
                positions, weights = positions[stems == min(self.prefixes)], weights[stems == min(self.prefixes)]
        weights = np.clip(weights, 0, None)
        weights = weights / weights.sum() if weights.sum() > 0 else np.full(len(weights), 1 / len(weights))
        return positions[noise.rng.choice(len(weights), size=count, p=weights)]


def finite_column(column: EncodedColumn, *, text_epsilon: float, rho: float, noise, label: str) -> FiniteColumn:
    """A binned column as it is; a text column coded over its CatHist vocabulary (spends ``text_epsilon``).

    CatHist runs over the declared domain without "missing" (a record changes one count by
    one: epsilon-DP, add/remove); the caller records the spend.
    """
    domain = column.domain
    if domain.binned:
        return FiniteColumn(domain.name, domain, column.codes, column.cells)
    out = _vocabulary(
        domain, column.label_counts(include_missing=False), text_epsilon=text_epsilon, rho=rho, noise=noise, label=label
    )
    out.codes = out.recoding().codes(column.labels)  # missing cells get "other" here:
    out.codes[pd.isna(column.labels)] = out.cells - 1  # "missing" is the last code
    return out


def _vocabulary(domain, counts: pd.Series, *, text_epsilon: float, rho: float, noise, label: str) -> FiniteColumn:
    """A text column's CatHist vocabulary from its true value counts (public order, missing left out);
    level by level when the column declares prefixes."""
    if domain.prefixes:
        vocabulary, noisy, _, _ = release_levels(
            domain, counts, epsilon=text_epsilon, rho=rho, noise=noise, label=label
        )
        cells = len(vocabulary) + (2 if domain.missing else 1)
        return FiniteColumn(domain.name, domain, None, cells, vocabulary, noisy, text_epsilon, rho)
    result = cathist(
        list(counts.index),
        counts.to_numpy(dtype=np.int64),
        domain.size,
        epsilon=text_epsilon,
        rho=rho,
        draw_inactive=draw_from_generator(domain),
        noise=noise,
        label=label,
    )
    vocabulary = list(result.keys)  # the domain's public order (CatHist lists results so)
    cells = len(vocabulary) + (2 if domain.missing else 1)
    return FiniteColumn(domain.name, domain, None, cells, vocabulary, result.counts, text_epsilon, rho)


def vocabulary_note(column: FiniteColumn) -> str | None:
    """A plain sentence for the card when no value of a text column came out (its vocabulary is empty), else
    None. From public facts only: the vocabulary is DP output, the count needed follows from the column's
    epsilon, rho and declared size (:func:`~dpsynth_core.privacy.cathist.threshold`)."""
    if column.vocabulary is None or column.vocabulary:
        return None
    known = column.epsilon and column.rho and not column.prefixes
    return empty_text_note(
        column.name,
        column.domain.label_at(0),
        epsilon=column.epsilon if known else None,
        needed=threshold(column.domain.size, column.rho, column.epsilon).smallest_count_kept(0.5) if known else None,
        what="code or prefix" if column.prefixes else "value",
    )


def text_facts(column: FiniteColumn) -> dict | None:
    """A text column's public facts for the card's reading of the synthetic output
    (:func:`~dpsynth_core.release.dominance.dominance_notes`): its placeholder, how many values came out (DP output)
    and the records a value needed to come out half the time (from epsilon, rho and the declared size; None
    with prefixes, whose levels differ). None for a binned column."""
    if column.vocabulary is None:
        return None
    known = column.epsilon and column.rho and not column.prefixes
    return {
        "placeholder": column.domain.label_at(0),
        "values_out": len(column.vocabulary),
        "epsilon": column.epsilon if known else None,
        "needed": threshold(column.domain.size, column.rho, column.epsilon).smallest_count_kept(0.5) if known else None,
    }


def empty_text_note(name: str, placeholder: str, *, epsilon=None, needed=None, what: str = "value") -> str:
    """The card's sentence for a free-text column of which no value came out of its noisy count: every cell
    that is not missing shows ``placeholder``. ``epsilon`` and ``needed`` (the records a value needs to come
    out half the time), when known, are said too."""
    chosen = (
        f" (its values were chosen with ε = {epsilon:.3g}: a value needs about {needed:,} records to come "
        "out half the time)"
        if needed is not None
        else ""
    )
    return (
        f"No {what} of the free-text column '{name}' came out of its noisy count{chosen}, so every cell "
        f"of it that is not missing shows the placeholder '{placeholder}'. More budget, fewer "
        "columns, or a declared list of its values would let values come out."
    )


def finite_source_column(source, domain, *, text_epsilon: float, rho: float, noise, label: str) -> FiniteColumn:
    """:func:`finite_column` read through a counting source (:mod:`dpsynth_core.engines`): a text
    column's vocabulary from ``source.value_counts``; the codes stay with the source
    (``codes`` is None: count them on :func:`finite_source`)."""
    if domain.binned:
        return FiniteColumn(domain.name, domain, None, int(source.cells[domain.name]))
    counts = source.value_counts(domain.name)
    return _vocabulary(
        domain, counts[counts.index.notna()], text_epsilon=text_epsilon, rho=rho, noise=noise, label=label
    )


def finite_source(source, columns: dict):
    """The source with every text column of ``columns`` on its vocabulary codes (the public rule
    in the module docstring: vocabulary, then "other", then "missing"), ready to count."""
    texts = {n: c for n, c in columns.items() if c.vocabulary is not None}
    if not texts:
        return source
    # Vocabulary codes missing (None) right after the values, and "other" last: swap those two.
    source = source.recode({n: c.recoding(with_missing=c.domain.missing) for n, c in texts.items()})
    swaps = {}
    for name, column in texts.items():
        if column.domain.missing:
            size = len(column.vocabulary)
            swaps[name] = Merge(tuple(range(size)) + (size + 1, size), column.cells)
    return source.recode(swaps) if swaps else source


def coded_table(columns: dict, n_rows: int) -> CodedTable:
    """The finite columns as one :class:`~dpsynth_core.data.counting.CodedTable` to count on."""
    return CodedTable(
        codes={n: c.codes for n, c in columns.items()}, cells={n: c.cells for n, c in columns.items()}, n_rows=n_rows
    )
