"""The DP Bayesian network model shared by ``bayesnet`` and ``deniability`` (Bindschaedler, Shokri
and Gunter 2017, section 3).

Guarantee: (epsilon, delta)-DP under adding or removing one record, composed (the better
of basic and advanced composition) from:

1. a noisy record count (discrete Laplace), used only to bound the entropy sensitivity and the
   size of the tables;
2. noisy entropies ``H(X)`` and ``H(X, Y)`` of every attribute and pair, on a public
   discretisation into at most ``SCORING_BUCKETS`` buckets (consecutive cells merged).
   Adding one record to a table of ``n`` changes an entropy by at most
   ``(1 + ln(n + 1)) / n`` nats (derived in the README; the paper's Lemma 1 is for
   substitution). The bound uses ``n_low``, the noisy count minus a margin that the true
   count falls below with probability at most ``1e-9``: that probability is the delta;
3. one noisy table per attribute, counts of its values for each configuration of its
   (discretised) parents, discrete Laplace with sensitivity 1.

Structure: correlation-based feature selection (CFS) with the symmetrical-uncertainty
coefficient ``SU = 2 (H(X) + H(Y) - H(X, Y)) / (H(X) + H(Y))`` from the noisy entropies,
greedy per attribute, keeping the graph acyclic and every table within ``max_cost``
cells and within what its noise allows (``USEFULNESS`` records per cell and unit of noise
scale, from the noisy count). Parameters: per parent configuration, the noisy counts projected
onto non-negative counts with their total, then ``theta ~ Dirichlet(projected + k p)``, ``p``
the child's distribution from the same table (:func:`~.factors.conditional_table`; the paper samples
parameters rather than taking their mode, with a uniform prior); a range column's empty
tails, gaps and "missing" cell are cut as the ``marginals`` model cuts them. Sampling:
ancestral, in a topological order. Must be declared in advance: every domain (text through a CatHist
vocabulary, see :mod:`dpsynth_core.synthesizers.finite`).

:class:`NetworkSynthesizer` fits it in these steps, one method each: the count, the vocabularies, the
entropies, the structure (:mod:`.structure`), the tables (:mod:`.factors`); and samples it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import constraints
from ...data.counting import flat_index
from ...data.encoding import EncodedTable
from ...privacy.accounting import PrivacyEvent, fit_to_budget
from ...privacy.histogram import noisy_count, noisy_histogram
from ...privacy.noise import discrete_laplace_std
from ..base import Synthesizer
from ..charges import APPROXIMATE_DP
from ..finite import coded_table
from .factors import Factor, column_support, conditional_table, sample_children
from .structure import (
    COUNT_FAILURE,
    SCORING_BUCKETS,
    bucket,
    count_lower_bound,
    noisy_entropies,
    pairs,
    search_structure,
    symmetrical_uncertainty,
    topological_order,
)

#: A table's cells are kept to at most ``n * epsilon / USEFULNESS`` (``n`` the noisy count, ``epsilon``
#: each table's budget): on average ``USEFULNESS`` records per cell for each unit of noise scale,
#: PrivBayes' "theta-usefulness" (Zhang et al., TODS 2017, theta = 4). A larger table's counts are
#: mostly noise, and an empty cell's share of a sparse configuration is about 1 / (its cells).
USEFULNESS = 4
SHARES = {"count": 0.05, "entropy": 0.3, "parameters": 0.65}


class NetworkSynthesizer(Synthesizer):
    """A DP Bayesian network fitted to the data (see module docstring); sampled by subclasses.

    Args:
        max_cost: largest number of cells of one attribute's table (its values times the
            configurations of its discretised parents).
        max_parents: most parents per attribute.
    """

    guarantee = APPROXIMATE_DP
    column_label = "table {}"

    def __init__(self, *, epsilon, rho=0.9, random_state=None, max_cost: int = 2000, max_parents: int = 3):
        super().__init__(epsilon=epsilon, rho=rho, random_state=random_state)
        self.max_cost = max_cost
        self.max_parents = max_parents

    @classmethod
    def _method_events(cls, domain, epsilon, left, common, *, rows=None, **options) -> list:
        """What :meth:`_fit` spends: the count, the vocabularies, the entropies and the tables."""
        names = list(domain.kept)
        m = len(names)
        count_eps = epsilon * SHARES["count"]
        events = [cls._event("discrete Laplace count", count_eps, "record count (entropy sensitivity)")]
        budget = left - count_eps
        texts = [n for n in names if not domain.kept[n].binned]
        entropy_budget = budget * SHARES["entropy"] / (SHARES["entropy"] + SHARES["parameters"])
        parameter_budget = budget - entropy_budget
        text_eps = parameter_budget / (m + len(texts)) if texts else 0.0
        events += [cls._event("CatHist", text_eps, f"vocabulary {n}") for n in texts]
        parameter_budget -= text_eps * len(texts)
        joint = pairs(names)
        h_eps, p_eps = fit_to_budget(
            epsilon,
            [e.epsilon for e in common + events],
            [(m + len(joint), entropy_budget / (m + len(joint))), (m, parameter_budget / m)],
            constraints.ADVANCED_COMPOSITION_DELTA,
        )
        events += [
            cls._event("Laplace entropy", h_eps, "entropies (choosing the network)", COUNT_FAILURE if i == 0 else 0.0)
            for i in range(m + len(joint))
        ]
        return events + [cls._event("discrete Laplace histogram", p_eps, f"table {n}") for n in names]

    # --- fitting, step by step ------------------------------------------------------------

    def _fit(self, encoded: EncodedTable, epsilon: float) -> None:
        names = list(encoded.columns)
        m = len(names)
        count_eps = self.epsilon_ * SHARES["count"]
        noisy_n = noisy_count(encoded.n_rows, epsilon=count_eps, noise=self.noise_, label="count for entropy bound")
        self._spend("discrete Laplace count", count_eps, "record count (entropy sensitivity)")
        budget = epsilon - count_eps  # what is left after the base class's row count (if any) and this count
        texts = sum(1 for c in encoded.columns.values() if not c.domain.binned)
        entropy_budget = budget * SHARES["entropy"] / (SHARES["entropy"] + SHARES["parameters"])
        parameter_budget = budget - entropy_budget
        text_eps = parameter_budget / (m + texts) if texts else 0.0
        self._measure_vocabularies(encoded, text_eps)
        parameter_budget -= text_eps * texts
        table = coded_table(self.columns_, encoded.n_rows)
        scored = {n: bucket(self.columns_[n].codes, self.columns_[n].cells) for n in names}  # codes, cells
        n_low = count_lower_bound(noisy_n, count_eps)
        p_eps = self._measure_entropies(table, names, entropy_budget, parameter_budget, n_low)
        self._choose_structure(names, scored, noisy_n, p_eps)
        self._measure_tables(table, names, scored, p_eps)

    def _measure_entropies(self, table, names, entropy_budget: float, parameter_budget: float, n_low: int) -> float:
        """1. Noisy entropies of every attribute and pair on the public scoring discretisation, and the
        symmetrical uncertainty of every pair (:attr:`su_`); returns the epsilon of each parameter table."""
        m = len(names)
        buckets = {n: SCORING_BUCKETS for n in names}
        joint = pairs(names)
        fixed = [e.epsilon for e in self.accountant_.events]
        # entropies and parameter tables share what is left, solved jointly so the whole
        # ledger stays within epsilon by the better of basic and advanced composition
        h_eps, p_eps = fit_to_budget(
            self.epsilon_,
            fixed,
            [(m + len(joint), entropy_budget / (m + len(joint))), (m, parameter_budget / m)],
            constraints.ADVANCED_COMPOSITION_DELTA,
        )
        groups = [(n,) for n in names] + list(joint)
        noisy = noisy_entropies(table, groups, buckets=buckets, n_low=n_low, epsilon=h_eps, noise=self.noise_)
        # one label for all, as the charge states them: equal events, one entry on the card (:func:`grouped_events`)
        label = "entropies (choosing the network)"
        self.accountant_.spend(PrivacyEvent("Laplace entropy", h_eps, COUNT_FAILURE, self.neighbouring, label))
        self.accountant_.spend(PrivacyEvent("Laplace entropy", h_eps, 0.0, self.neighbouring, label), len(groups) - 1)
        h = dict(zip(names, noisy[:m]))
        self.su_ = {
            frozenset((a, b)): symmetrical_uncertainty(h[a], h[b], noisy[m + i]) for i, (a, b) in enumerate(joint)
        }
        return p_eps

    def _choose_structure(self, names, scored: dict, noisy_n: int, p_eps: float) -> None:
        """2. The structure by greedy CFS, acyclic and within max_cost and what the noise allows (post-processing
        of the entropies and the noisy count: USEFULNESS records per cell and unit of noise scale)."""
        self.max_cost_ = min(self.max_cost, max(1, int(noisy_n * p_eps / USEFULNESS)))
        self.parents_ = search_structure(
            names,
            self.su_,
            {n: self.columns_[n].cells for n in names},
            {n: scored[n][1] for n in names},
            max_parents=self.max_parents,
            max_cost=self.max_cost_,
        )
        self.order_ = topological_order(self.parents_)
        self.scored_cells_ = {n: scored[n][1] for n in names}

    def _measure_tables(self, table, names, scored: dict, p_eps: float) -> None:
        """3. The parameters: noisy counts per parent configuration, projected onto non-negative counts, a
        Dirichlet draw with a prior centred on the child's distribution (:func:`~.factors.conditional_table`)."""
        self.factors_: dict[str, Factor] = {}
        self.tables_: dict[str, np.ndarray] = {}
        self.noisy_counts_: dict[str, np.ndarray] = {}
        self.support_: dict[str, np.ndarray] = {}
        for name in names:
            config_cells = tuple(scored[p][1] for p in self.parents_[name])
            configs = int(np.prod(config_cells)) if config_cells else 1
            cells = self.columns_[name].cells
            counts = table.marginal(
                (*self.parents_[name], name), buckets={p: SCORING_BUCKETS for p in self.parents_[name]}
            )
            noisy_counts = noisy_histogram(counts, epsilon=p_eps, noise=self.noise_, label=f"table {name}")
            self._spend("discrete Laplace histogram", p_eps, f"table {name} | {', '.join(self.parents_[name]) or '-'}")
            self.noisy_counts_[name] = noisy_counts
            grid = noisy_counts.reshape(configs, cells)
            self.support_[name] = column_support(self.columns_[name], grid, discrete_laplace_std(p_eps))
            theta = conditional_table(grid, self.support_[name], self.noise_.rng)
            self.tables_[name] = theta
            self.factors_[name] = Factor(
                name, self.parents_[name], config_cells, cells, np.arange(configs * cells), theta.ravel()
            )

    # --- sampling -----------------------------------------------------------------------

    def _config_index(self, parents, bucketed: dict, rows: int) -> np.ndarray:
        return flat_index([bucketed[p] for p in parents], [self.scored_cells_[p] for p in parents], rows)

    def conditional_probability(self, name: str, codes: dict) -> np.ndarray:
        """``P(value of name | its parents)`` for rows given as full codes of every column."""
        bucketed = {p: bucket(codes[p], self.columns_[p].cells)[0] for p in self.parents_[name]}
        rows = len(codes[name])
        index = self._config_index(self.parents_[name], bucketed, rows)
        return self.tables_[name][index, codes[name]]

    def sample_codes(self, n: int, fixed: dict | None = None, resample: np.ndarray | None = None) -> dict:
        """Ancestral sampling. With ``fixed`` codes and a ``resample`` mask (rows x columns, in
        ``self.order_``), only masked cells are drawn; the others keep the fixed values."""
        rng = self.noise_.rng
        codes: dict[str, np.ndarray] = {}
        for j, name in enumerate(self.order_):
            bucketed = {p: bucket(codes[p], self.columns_[p].cells)[0] for p in self.parents_[name]}
            index = self._config_index(self.parents_[name], bucketed, n)
            drawn = sample_children(index, self.factors_[name], self.tables_[name].mean(axis=0), rng)
            codes[name] = drawn if fixed is None else np.where(resample[:, j], drawn, fixed[name])
        return codes

    def _sample(self, n: int) -> pd.DataFrame:
        codes = self.sample_codes(n)
        return pd.DataFrame(
            {
                name: self.columns_[name].decode(codes[name], self.noise_).reset_index(drop=True)
                for name in self.columns_
            }
        )

    def card_details(self) -> dict:
        return {
            "structure": [{"column": n, "parents": list(self.parents_[n])} for n in self.order_],
            "max_cost": self.max_cost,
            "scoring_buckets": SCORING_BUCKETS,
            "usefulness": USEFULNESS,
        }
