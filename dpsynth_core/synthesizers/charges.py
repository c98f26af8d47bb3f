"""The names a charge is stated in, and reading one: the mechanisms a method measures a column with, the
guarantees a method can carry, the row count's label, and each label's share of a charge.

What a draw costs is each method's to say (:meth:`~.pricing.PricedMethod.charge`); the plan, the ledger and
the card name its parts with these."""

from __future__ import annotations

from ..privacy import leaves as leaf_rules
from ..privacy.accounting import ADD_REMOVE, Accountant, PrivacyEvent
from ..privacy.binning import binning_label
from ..privacy.leaves import either_path

#: How a method measures one column (:meth:`Synthesizer.column_mechanism`): CatHist over the declared
#: values; CatHist choosing a text column's values, then counted with the others; a noisy histogram over
#: the declared cells; a Gaussian-noise marginal (zCDP); a Dirichlet prior on every declared cell.
CATHIST, VOCABULARY, HISTOGRAM, GAUSSIAN, PRIOR = (
    "CatHist",
    "CatHist vocabulary",
    "histogram",
    "Gaussian marginal",
    "Dirichlet prior",
)
COLUMN_MECHANISMS = (CATHIST, VOCABULARY, HISTOGRAM, GAUSSIAN, PRIOR)
TREE_MECHANISM = (
    "PrivTree (the range split while a biased noisy count clears a threshold), or on a table too sparse for it "
    "by its DP row count a first discrete Laplace count of the range's equal pieces"
)
BIN_COUNTS_MECHANISM = "discrete Laplace histogram (counts that place the bins)"
GAUSSIAN_BIN_COUNTS_MECHANISM = "discrete Gaussian histogram (counts that place the bins)"
#: The label of the noisy row count's spend.
ROW_COUNT = "row count"
#: A range of 33 to 256 values: PrivTree, or by the table's DP row count a first count per value (dense) or of
#: the range's equal pieces (too sparse for the tree).
TREE_OR_COUNTS_MECHANISM = (
    "PrivTree, or by the table's DP row count a first discrete Laplace count per value (a dense table) or of "
    "the range's equal pieces (one too sparse for the tree)"
)


def first_binning_mechanism(column) -> str:
    """How the plan, the ledger and the card name a column's first binning measurement (public)."""
    return TREE_OR_COUNTS_MECHANISM if either_path(column) else TREE_MECHANISM


def gaussian_bin_counts(rho: float | None, neighbouring: str) -> bool:
    """Whether a release's counts that place the bins carry discrete Gaussian noise (the one rule, for the plan made
    before any data and for the release): when its method composes in zCDP (``rho``: its
    :meth:`~.base.Synthesizer.binning_rho`, None otherwise) under adding or removing one record
    (:data:`.leaves.GAUSSIAN_COUNTS`: False, never, an ablation)."""
    return rho is not None and neighbouring == ADD_REMOVE and leaf_rules.GAUSSIAN_COUNTS


def binning_spends(column, first: float, count: float, neighbouring: str, *, gaussian: bool) -> list[PrivacyEvent]:
    """A column's binning measurements as spends, for the plan (before any data) and the release alike: the tree
    or first count at ``first`` (none when 0), pure epsilon-DP; the counts that place the bins at ``count``, pure
    ``count``-DP (discrete Laplace of scale ``1 / count``), or with ``gaussian`` the ``count**2 / 2`` of rho that
    discrete Gaussian noise of deviation ``1 / count`` costs (:func:`~dpsynth_core.privacy.leaves.counted`), what the
    pure event would."""
    label = binning_label(column)
    events = [PrivacyEvent(first_binning_mechanism(column), first, 0.0, neighbouring, label)] if first else []
    if gaussian:
        return events + [PrivacyEvent.zcdp(GAUSSIAN_BIN_COUNTS_MECHANISM, count**2 / 2, label, neighbouring)]
    return events + [PrivacyEvent(BIN_COUNTS_MECHANISM, count, 0.0, neighbouring, label)]


def split_by_label(events, epsilon: float) -> dict[str, float]:
    """Each label's share of a charge, in epsilon: its epsilon, or for a zero-concentrated charge its
    share of rho times ``epsilon`` (the parts then add up to ``epsilon``, as on the card)."""
    events = list(events)
    ledger = Accountant(events)
    rho, zcdp = ledger.rho(), ledger.has_zcdp  # once: each is a pass over the events
    split: dict[str, float] = {}
    for event in events:
        cost = event.rho_cost / rho * epsilon if zcdp and rho > 0 else event.epsilon
        split[event.label] = split.get(event.label, 0.0) + cost
    return split


#: The guarantees a method can carry.
PURE_DP, ZCDP, APPROXIMATE_DP, NO_GUARANTEE = "pure DP", "zCDP", "approximate DP", "none"
GUARANTEES = (PURE_DP, ZCDP, APPROXIMATE_DP, NO_GUARANTEE)


def row_count_event(events) -> PrivacyEvent | None:
    """The noisy row count's spend among ``events`` (None: the number of rows is not a noisy count)."""
    return next((e for e in events if e.label == ROW_COUNT), None)
