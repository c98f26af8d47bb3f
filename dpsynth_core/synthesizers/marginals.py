"""DP k-way marginals over declared product domains, sampled through a Bayesian network.

Guarantee: epsilon-DP under adding or removing one record, by basic composition of

1. the noisy row count (unless the publisher gives a public row count);
2. one noisy 1-way marginal per column (a discrete Laplace histogram over its declared
   cells; for weakly constrained text, CatHist, whose output becomes the column's
   vocabulary, see :mod:`dpsynth_core.finite`);
3. a private choice of structure: each column not placed by the publisher picks up to two
   parents among the columns already placed, or none, with the exponential mechanism
   (report noisy max). The score is how far the true joint table of the column and its
   parents is from the column being independent of them (L1, in records; sensitivity 2),
   minus the noise its measurement would add, so a table is chosen only when the
   relationship it captures is larger than the noise;
4. one noisy joint table per column with parents (2-way, or 3-way for publisher groups of
   three), over the *declared product domain*: every cell, present or not, is noised
   (unlike the book's listing in section 6.3, which noises only the pairs that occur and
   so is not DP). When a product has more than ``dense_limit`` cells it goes through
   CatHist over the product domain instead (only present pairs are touched, made-up
   pairs are added at the rate rho allows).

Sampling draws every row from one joint distribution (each column given its parents, in
the order placed), so all rows are consistent; it is post-processing of the noisy tables.
Must be declared in advance: every column's domain, and optionally column groups.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from ..cathist import cathist, draw_from_range
from ..counting import flat_index
from ..encoding import EncodedTable
from ..errors import ParameterError
from ..factors import Factor, sample_children
from ..finite import FiniteColumn, coded_table, finite_column
from ..histogram import noisy_histogram, to_probabilities
from ..noise import report_noisy_max, typical_bin_error
from .base import Synthesizer
from .registry import register

#: Budget shares of the columns' epsilon: 1-way marginals, structure choice, joint tables.
SHARES = {"one_way": 0.2, "select": 0.1, "joint": 0.7}
DENSE_LIMIT = 1_000_000
#: Pseudo-records per parent row, in noise levels per cell, added toward the child's 1-way marginal.
SHRINK = 0.5


@register(
    "marginals",
    "Related columns (DP marginals)",
    """Measures each column on its own and then, for the pairs of columns that are most
    related (chosen privately), how often each combination of values occurs, over every
    combination that could occur, with noise added. Synthetic rows are drawn from these
    noisy tables one column at a time, so relationships such as education and income or
    age and marital status are kept. The best general-purpose choice for a whole table.""",
    rank=1,
)
class MarginalsSynthesizer(Synthesizer):
    """DP marginals with a privately chosen Bayesian network (see module docstring).

    Args:
        epsilon, rho, random_state: as for every synthesizer.
        groups: optional publisher-chosen column groups (tuples of 2 or 3 names); each
            group's joint table is measured and its last column is sampled given the others.
        max_parents: 1 for a tree (forest), 2 (default) for a network of 3-way tables.
        dense_limit: above this many cells, a joint table goes through CatHist.
    """

    def __init__(self, *, epsilon, rho=0.9, random_state=None, groups=None, max_parents: int = 2,
                 dense_limit: int = DENSE_LIMIT):
        super().__init__(epsilon=epsilon, rho=rho, random_state=random_state)
        self.groups = groups
        self.max_parents = max_parents
        self.dense_limit = dense_limit

    # --- fitting ------------------------------------------------------------------------

    def _fit(self, encoded: EncodedTable, epsilon: float) -> None:
        names = list(encoded.columns)
        forced = self._forced_parents(names)
        placed_first = _topological(names, forced)
        auto = [n for n in names if n not in placed_first]
        one_way_eps = epsilon * SHARES["one_way"] / len(names)
        rounds = len(auto) - (0 if placed_first else 1)
        self._scores: dict = {}
        select_share = SHARES["select"] if rounds > 0 else 0.0
        joint_total = epsilon * (SHARES["joint"] + SHARES["select"] - select_share)
        planned_tables = max(1, len(forced) + rounds)
        planned_joint_eps = joint_total / planned_tables

        # 1. one-way marginals (text columns: CatHist, whose output is also their vocabulary)
        self.columns_: dict[str, FiniteColumn] = {}
        self.one_way_: dict[str, np.ndarray] = {}
        for name in names:
            finite = finite_column(encoded.columns[name], text_epsilon=one_way_eps, rho=self.rho_,
                                   noise=self.noise_, label=f"1-way {name}")
            if finite.vocabulary is None:
                noisy = noisy_histogram(coded_table({name: finite}, encoded.n_rows).marginal((name,)), epsilon=one_way_eps,
                                        noise=self.noise_, label=f"1-way {name}")
                self._spend("discrete Laplace histogram", one_way_eps, f"1-way marginal {name}")
            else:
                self._spend("CatHist", one_way_eps, f"1-way marginal {name} (CatHist vocabulary)")
                kept = np.clip(finite.vocabulary_counts, 0, None)
                noisy = np.append(kept, max(0, self.rows_ - int(kept.sum())))
            self.columns_[name] = finite
            self.one_way_[name] = to_probabilities(noisy)
        self.table_ = coded_table(self.columns_, encoded.n_rows)

        # 2. structure: publisher groups first, then a private choice of one parent per column
        order = list(placed_first) if placed_first else [auto.pop(0)]
        parents = {name: forced.get(name, ()) for name in order}
        if rounds > 0:
            round_eps = epsilon * select_share / rounds
            bias = typical_bin_error(planned_joint_eps)
            while auto:
                child, chosen = self._select(order, auto, round_eps, bias)
                self._spend("exponential mechanism (report noisy max)", round_eps, f"structure: parents of {child}")
                auto.remove(child)
                order.append(child)
                parents[child] = chosen
        self.order_ = order
        self.parents_ = parents

        # 3. joint tables of every column with parents
        tables = [name for name in order if parents[name]]
        joint_eps = joint_total / len(tables) if tables else 0.0
        self.factors_: dict[str, Factor] = {}
        for name in tables:
            self.factors_[name] = self._measure(name, parents[name], joint_eps)

    def _forced_parents(self, names) -> dict:
        forced: dict = {}
        for group in self.groups or []:
            group = tuple(group)
            unknown = [g for g in group if g not in names]
            if unknown:
                raise ParameterError(f"group {group} names column(s) not in the release: {', '.join(unknown)}")
            if not 2 <= len(group) <= 3 or len(set(group)) != len(group):
                raise ParameterError(f"group {group} must list 2 or 3 different columns")
            child = group[-1]
            if child in forced:
                raise ParameterError(f"column '{child}' ends two groups; each column can be sampled from one group")
            forced[child] = group[:-1]
        return forced

    def _select(self, placed, unplaced, round_eps: float, bias: float):
        """One round of the exponential mechanism over (child, parent set) candidates.

        Score: ``|M(S, c) - M(S) x p_c|_1 - bias * cells``, the records by which the true joint
        table of child ``c`` and parents ``S`` departs from ``c`` being independent of ``S``
        (``p_c``: the noisy 1-way marginal), less the noise the table's measurement would add.
        Adding or removing a record moves ``M(S, c)`` by 1 in one cell and ``M(S) x p_c`` by 1
        in L1, so the sensitivity is 2. "No parent" scores 0.
        """
        candidates, scores = [], []
        for child in unplaced:
            candidates.append((child, ()))
            scores.append(0.0)
            parent_sets = [(p,) for p in placed]
            if self.max_parents >= 2:
                parent_sets += list(itertools.combinations(placed, 2))
            for parents in parent_sets:
                score = self._score(parents, child, bias)
                if score is not None:  # tables too large to score densely are left to publisher groups
                    candidates.append((child, parents))
                    scores.append(score)
        return candidates[report_noisy_max(self.noise_, scores, round_eps, sensitivity=2.0)]

    def _score(self, parents: tuple, child: str, bias: float) -> float | None:
        key = (parents, child)
        if key not in self._scores:
            parent_total = int(np.prod([self.columns_[p].cells for p in parents]))
            cells = self.columns_[child].cells
            if parent_total * cells > self.dense_limit:
                self._scores[key] = None
            else:
                joint = self.table_.marginal((*parents, child)).reshape(parent_total, cells)
                expected = joint.sum(axis=1, keepdims=True) * self.one_way_[child][None, :]
                self._scores[key] = (float(np.abs(joint - expected).sum()), joint.size)
        if self._scores[key] is None:
            return None
        departure, size = self._scores[key]
        return departure - bias * size

    def _parent_index(self, parents, codes: dict) -> np.ndarray:
        return flat_index([codes[p] for p in parents], [self.columns_[p].cells for p in parents],
                          len(next(iter(codes.values()))))

    def _measure(self, child: str, parents: tuple, epsilon: float) -> Factor:
        parent_cells = tuple(self.columns_[p].cells for p in parents)
        child_cells = self.columns_[child].cells
        parent_total = int(np.prod(parent_cells))
        size = parent_total * child_cells
        label = f"joint {' x '.join((*parents, child))}"
        if size <= self.dense_limit:
            counts = self.table_.marginal((*parents, child)).ravel()
            noisy = noisy_histogram(counts, epsilon=epsilon, noise=self.noise_, label=label)
            self._spend("discrete Laplace histogram", epsilon, label)
            table = np.clip(noisy, 0, None).astype(float).reshape(parent_total, child_cells)
            # Shrink each parent row toward the child's 1-way distribution by about one
            # noise level per cell: rows built mostly from noise lean on the marginal.
            table += typical_bin_error(epsilon) * child_cells * SHRINK * self.one_way_[child]
            flat = np.arange(size)
            return Factor(child, parents, parent_cells, child_cells, flat, table.ravel())
        present, counts = self.table_.sparse_marginal((*parents, child))
        result = cathist(present.tolist(), counts, size, epsilon=epsilon, rho=self.rho_,
                         draw_inactive=draw_from_range(size), noise=self.noise_, label=label)
        self._spend("CatHist", epsilon, label + " (CatHist over the product domain)")
        return Factor(child, parents, parent_cells, child_cells, np.asarray(result.keys, dtype=np.int64),
                      np.clip(result.counts, 0, None).astype(float))

    # --- sampling -----------------------------------------------------------------------

    def _sample(self, n: int) -> pd.DataFrame:
        rng = self.noise_.rng
        codes: dict[str, np.ndarray] = {}
        for name in self.order_:
            if name in self.factors_:
                factor = self.factors_[name]
                index = self._parent_index(factor.parents, codes)
                codes[name] = sample_children(index, factor, self.one_way_[name], rng)
            else:
                codes[name] = rng.choice(self.columns_[name].cells, size=n, p=self.one_way_[name])
        return pd.DataFrame({name: self.columns_[name].decode(codes[name], self.noise_).reset_index(drop=True)
                             for name in self.columns_})

    def card_details(self) -> dict:
        return {"structure": [{"column": n, "sampled given": list(self.parents_[n])} for n in self.order_],
                "budget_shares": SHARES}


def _topological(names, forced: dict) -> list:
    """Columns of publisher groups, each after its group's other columns; error on a cycle."""
    involved = [n for n in names if n in forced or any(n in p for p in forced.values())]
    order: list = []
    while len(order) < len(involved):
        ready = [n for n in involved if n not in order and all(p in order for p in forced.get(n, ()))]
        if not ready:
            raise ParameterError("the column groups form a cycle: no column can be sampled first")
        order.append(ready[0])
    return order


