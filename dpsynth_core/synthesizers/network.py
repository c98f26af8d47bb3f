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
the child's distribution from the same table (:func:`conditional_table`; the paper samples
parameters rather than taking their mode, with a uniform prior); a range column's empty
tails, gaps and "missing" cell are cut as the ``marginals`` model cuts them. Sampling:
ancestral, in a topological order. Must be declared in advance: every domain (text through a CatHist
vocabulary, see :mod:`dpsynth_core.synthesizers.finite`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import constraints
from ..data.counting import coarsen, flat_index
from ..data.encoding import EncodedTable
from ..pgm import Measurement, support_from
from ..pgm.support import EMPTY_Z, TAIL_SHARE, range_cells  # a range column's cut: the marginals model's rule
from ..privacy.accounting import PrivacyEvent, fit_to_budget
from ..privacy.histogram import noisy_count, noisy_histogram, nonnegative_projection
from ..privacy.noise import discrete_laplace_alpha, discrete_laplace_std, real_laplace
from .base import Synthesizer
from .charges import APPROXIMATE_DP
from .factors import Factor, sample_children
from .finite import FiniteColumn, coded_table, finite_column

SCORING_BUCKETS = 8
#: A table's cells are kept to at most ``n * epsilon / USEFULNESS`` (``n`` the noisy count, ``epsilon``
#: each table's budget): on average ``USEFULNESS`` records per cell for each unit of noise scale,
#: PrivBayes' "theta-usefulness" (Zhang et al., TODS 2017, theta = 4). A larger table's counts are
#: mostly noise, and an empty cell's share of a sparse configuration is about 1 / (its cells).
USEFULNESS = 4
SHARES = {"count": 0.05, "entropy": 0.3, "parameters": 0.65}
COUNT_FAILURE = 1e-9


def entropy_sensitivity(n_low: int) -> float:
    """Largest change of an empirical entropy (nats) when one record joins a table of ``n_low``."""
    n = max(int(n_low), 1)
    return (1 + math.log(n + 1)) / n


def count_lower_bound(noisy: int, epsilon: float, failure: float = COUNT_FAILURE) -> int:
    """A value the true count is below with probability at most ``failure`` (discrete Laplace)."""
    alpha = discrete_laplace_alpha(epsilon)
    margin = math.ceil(math.log(failure * (1 + alpha)) / math.log(alpha))
    return max(1, int(noisy) - margin)


def entropy(counts: np.ndarray) -> float:
    """Empirical entropy (nats) of a table of counts."""
    counts = np.asarray(counts, dtype=float).ravel()
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())


def bucket(codes: np.ndarray, cells: int, buckets: int = SCORING_BUCKETS) -> tuple[np.ndarray, int]:
    """Public discretisation for scoring: consecutive cells merged into at most ``buckets`` buckets."""
    return coarsen(codes, cells, buckets)


def symmetrical_uncertainty(h_x: float, h_y: float, h_xy: float) -> float:
    if h_x + h_y <= 0:
        return 0.0
    return float(np.clip(2 * (h_x + h_y - h_xy) / (h_x + h_y), 0.0, 1.0))


def cfs_merit(target: str, parents: list, su: dict) -> float:
    """CFS merit ``k * mean SU(target, P) / sqrt(k + k (k - 1) * mean SU(P_i, P_j))``."""
    k = len(parents)
    if k == 0:
        return 0.0
    relevance = np.mean([su[frozenset((target, p))] for p in parents])
    redundancy = np.mean([su[frozenset(pair)] for pair in _pairs(parents)]) if k > 1 else 0.0
    return float(k * relevance / math.sqrt(k + k * (k - 1) * redundancy))


def _pairs(items):
    return [(a, b) for i, a in enumerate(items) for b in items[i + 1 :]]


def _reaches(graph: dict, start: str, goal: str) -> bool:
    stack, seen = [start], set()
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            stack.extend(graph.get(node, ()))
    return False


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
        pairs = _pairs(names)
        h_eps, p_eps = fit_to_budget(
            epsilon,
            [e.epsilon for e in common + events],
            [(m + len(pairs), entropy_budget / (m + len(pairs))), (m, parameter_budget / m)],
            constraints.ADVANCED_COMPOSITION_DELTA,
        )
        events += [
            cls._event("Laplace entropy", h_eps, "entropies (choosing the network)", COUNT_FAILURE if i == 0 else 0.0)
            for i in range(m + len(pairs))
        ]
        return events + [cls._event("discrete Laplace histogram", p_eps, f"table {n}") for n in names]

    def _fit(self, encoded: EncodedTable, epsilon: float) -> None:
        names = list(encoded.columns)
        m = len(names)
        budget = epsilon  # what is left after the base class's row count (if any)
        count_eps = self.epsilon_ * SHARES["count"]
        noisy_n = noisy_count(encoded.n_rows, epsilon=count_eps, noise=self.noise_, label="count for entropy bound")
        self._spend("discrete Laplace count", count_eps, "record count (entropy sensitivity)")
        budget -= count_eps
        n_low = count_lower_bound(noisy_n, count_eps)
        texts = sum(1 for c in encoded.columns.values() if not c.domain.binned)
        entropy_budget = budget * SHARES["entropy"] / (SHARES["entropy"] + SHARES["parameters"])
        parameter_budget = budget - entropy_budget
        self.columns_: dict[str, FiniteColumn] = {}
        text_eps = parameter_budget / (m + texts) if texts else 0.0
        for name in names:
            self.columns_[name] = finite_column(
                encoded.columns[name],
                text_epsilon=text_eps,
                rho=self.rho_,
                noise=self.noise_,
                label=f"vocabulary {name}",
            )
            if self.columns_[name].vocabulary is not None:
                self._spend("CatHist", text_eps, f"vocabulary {name}")
        parameter_budget -= text_eps * texts

        # 1. noisy entropies on the public scoring discretisation
        table = coded_table(self.columns_, encoded.n_rows)
        buckets = {n: SCORING_BUCKETS for n in names}
        scored = {n: bucket(self.columns_[n].codes, self.columns_[n].cells) for n in names}  # codes, cells
        pairs = _pairs(names)
        fixed = [e.epsilon for e in self.accountant_.events]
        # entropies and parameter tables share what is left, solved jointly so the whole
        # ledger stays within epsilon by the better of basic and advanced composition
        h_eps, p_eps = fit_to_budget(
            self.epsilon_,
            fixed,
            [(m + len(pairs), entropy_budget / (m + len(pairs))), (m, parameter_budget / m)],
            constraints.ADVANCED_COMPOSITION_DELTA,
        )
        groups = [(n,) for n in names] + list(pairs)
        noisy = noisy_entropies(table, groups, buckets=buckets, n_low=n_low, epsilon=h_eps, noise=self.noise_)
        for i, label in enumerate([f"H({n})" for n in names] + [f"H({a}, {b})" for a, b in pairs]):
            self.accountant_.spend(
                PrivacyEvent("Laplace entropy", h_eps, COUNT_FAILURE if i == 0 else 0.0, self.neighbouring, label)
            )
        h = dict(zip(names, noisy[:m]))
        su = {frozenset((a, b)): symmetrical_uncertainty(h[a], h[b], noisy[m + i]) for i, (a, b) in enumerate(pairs)}
        self.su_ = su

        # 2. structure by greedy CFS, acyclic and within max_cost and what the noise allows (post-processing
        # of the entropies and the noisy count: USEFULNESS records per cell and unit of noise scale)
        self.max_cost_ = min(self.max_cost, max(1, int(noisy_n * p_eps / USEFULNESS)))
        self.parents_ = search_structure(
            names,
            su,
            {n: self.columns_[n].cells for n in names},
            {n: scored[n][1] for n in names},
            max_parents=self.max_parents,
            max_cost=self.max_cost_,
        )
        self.order_ = _topological_order(self.parents_)
        self.scored_cells_ = {n: scored[n][1] for n in names}

        # 3. parameters: noisy counts per parent configuration, projected onto non-negative counts, a
        # Dirichlet draw with a prior centred on the child's distribution (conditional_table)
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


def column_support(column: FiniteColumn, grid: np.ndarray, sigma: float) -> np.ndarray:
    """The child's cells that its noisy table (parent configurations x cells, noise ``sigma`` per cell)
    does not show to be empty, by the rule of the ``marginals`` model
    (:func:`dpsynth_core.pgm.support_from` on the counts summed over the configurations): a range
    column loses the empty tails and gaps of its range and its "missing" cell unless that cell reaches
    ``EMPTY_Z`` standard deviations; any other column keeps every cell. Post-processing."""
    ordered, protected = range_cells({"child": column})
    if not ordered:
        return np.ones(grid.shape[1], dtype=bool)
    found = support_from(
        {"parents": grid.shape[0], "child": grid.shape[1]},
        [Measurement(("parents", "child"), np.asarray(grid, dtype=float), sigma)],
        EMPTY_Z,
        ordered=ordered,
        limit=TAIL_SHARE * max(float(grid.sum()), 1.0),
        protected=protected,
    )
    return found["child"]


def conditional_table(grid: np.ndarray, keep: np.ndarray, rng) -> np.ndarray:
    """``P(child | parent configuration)`` from a noisy table (configurations x cells), on the cells ``keep``.

    Each configuration's noisy counts are projected onto the non-negative counts with the same total
    (:func:`dpsynth_core.privacy.histogram.nonnegative_projection`; a configuration whose total is not
    positive gets none), and so are their sums over the configurations, the child's 1-way counts,
    normalised to ``p``. The parameters are then drawn, as in the paper, from a Dirichlet: here
    ``Dirichlet(projected + k p)`` over the ``k`` cells kept, a prior as heavy as the paper's one
    pseudo-count per cell but centred on the child's distribution instead of spread evenly over every
    declared cell. So an empty cell (a "missing" that never occurs) gets neither half a noise level of
    clipped noise nor a pseudo-count in every configuration, and a configuration with few records follows
    the child's distribution rather than the uniform one. Cells outside ``keep`` get no mass.
    Post-processing of the noisy table.
    """
    counts = np.asarray(grid, dtype=float)[:, keep]
    k = counts.shape[1]
    pooled = nonnegative_projection(counts.sum(axis=0))
    p = pooled / pooled.sum() if pooled.sum() > 0 else np.full(k, 1.0 / k)
    concentration = nonnegative_projection(counts) + k * p
    draws = np.where(concentration > 0, rng.standard_gamma(np.maximum(concentration, 1e-300)), 0.0)
    totals = draws.sum(axis=1, keepdims=True)
    theta = np.zeros(np.shape(grid))
    theta[:, keep] = np.where(totals > 0, draws / np.where(totals > 0, totals, 1.0), p)
    return theta


def noisy_entropies(table, groups, *, buckets: dict, n_low: int, epsilon: float, noise) -> np.ndarray:
    """Entropies (nats) of the bucketed marginals of ``groups``, each plus Laplace noise, clipped at 0.

    Each is ``epsilon``-DP under adding or removing a record to a table of at least ``n_low``
    records (sensitivity :func:`entropy_sensitivity`); the buckets are public (consecutive
    codes of a public order), so a record moves one count of each table by one.
    """
    true = [entropy(table.marginal(group, buckets=buckets)) for group in groups]
    scale = entropy_sensitivity(n_low) / epsilon
    return np.clip(real_laplace(noise, true, scale, label="entropies"), 0.0, None)


def search_structure(names, su: dict, cells: dict, scored_cells: dict, *, max_parents: int, max_cost: int) -> dict:
    """Greedy CFS: each attribute in turn takes the parent that most raises its merit.

    The graph stays acyclic and every table within ``max_cost`` cells (the attribute's
    cells times its parents' scoring buckets). Post-processing of the noisy ``su``.
    """
    parents = {n: [] for n in names}
    for target in names:
        while len(parents[target]) < max_parents:
            best, best_merit = None, cfs_merit(target, parents[target], su)
            children = _children(parents)
            for candidate in names:
                if candidate == target or candidate in parents[target]:
                    continue
                if _reaches(children, target, candidate):
                    continue  # candidate is a descendant of target: adding it would close a cycle
                trial = parents[target] + [candidate]
                if cells[target] * int(np.prod([scored_cells[p] for p in trial])) > max_cost:
                    continue
                merit = cfs_merit(target, trial, su)
                if merit > best_merit + 1e-12:
                    best, best_merit = candidate, merit
            if best is None:
                break
            parents[target].append(best)
    return {n: tuple(p) for n, p in parents.items()}


def _children(parents: dict) -> dict:
    out: dict = {n: [] for n in parents}
    for child, ps in parents.items():
        for p in ps:
            out[p].append(child)
    return out


def _topological_order(parents: dict) -> list:
    order: list = []
    while len(order) < len(parents):
        ready = [n for n in parents if n not in order and all(p in order for p in parents[n])]
        if not ready:  # pragma: no cover - the structure search keeps the graph acyclic
            raise RuntimeError("the network has a cycle")
        order.append(ready[0])
    return order
