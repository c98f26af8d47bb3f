"""How the DP Bayesian network chooses its structure (Bindschaedler, Shokri and Gunter 2017, section 3):
noisy entropies of every attribute and pair on a public discretisation, the symmetrical uncertainty
between attributes, and a greedy search by correlation-based feature selection (CFS).

Adding one record to a table of ``n`` changes an entropy by at most ``(1 + ln(n + 1)) / n`` nats
(:func:`entropy_sensitivity`, derived in the README; the paper's Lemma 1 is for substitution); the
bound is taken at ``n_low``, a noisy count minus a margin the true count falls below with probability
at most ``COUNT_FAILURE`` (:func:`count_lower_bound`). Everything after the noisy entropies is
post-processing.
"""

from __future__ import annotations

import math

import numpy as np

from ...data.counting import coarsen
from ...privacy.noise import discrete_laplace_alpha, real_laplace

#: Buckets of the public scoring discretisation: an attribute's consecutive cells merged into at most this many.
SCORING_BUCKETS = 8
#: The chance that the true record count is below ``n_low`` (:func:`count_lower_bound`): the entropies' delta.
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
    redundancy = np.mean([su[frozenset(pair)] for pair in pairs(parents)]) if k > 1 else 0.0
    return float(k * relevance / math.sqrt(k + k * (k - 1) * redundancy))


def pairs(items):
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


def topological_order(parents: dict) -> list:
    order: list = []
    while len(order) < len(parents):
        ready = [n for n in parents if n not in order and all(p in order for p in parents[n])]
        if not ready:  # pragma: no cover - the structure search keeps the graph acyclic
            raise RuntimeError("the network has a cycle")
        order.append(ready[0])
    return order
