"""Plausible deniability: seed-based synthesis with a privacy test (Bindschaedler, Shokri, Gunter 2017).

Mechanism: pick a real record (the *seed*) at random, keep ``m - omega`` of its
attributes, redraw the other ``omega`` from the DP Bayesian network in its dependency
order (which ``omega``: one of ``patterns`` random subsets drawn once per release, from
public randomness), and release the candidate only if enough real records could have
produced it: at least ``k`` records whose probability of generating it is within a factor
``gamma`` of the seed's.

Counting plausible seeds exactly, fast: a candidate ``y`` made by redrawing the set ``R``
has probability ``prod_{a in R} P(y_a | y_parents(a))`` from any seed that agrees with
``y`` outside ``R``, and zero from any other. So every plausible seed has exactly the
seed's probability (well inside the factor gamma), and the count is the number of real
records with the same values outside ``R``: a hash lookup per candidate, not a scan.
(The candidate is read as the pair ``(y, R)``; releasing ``y`` alone is post-processing.)

Guarantee (their Theorem 1, Privacy Test 2): with the randomised threshold
``k + Z``, ``Z`` discrete Laplace of scale ``1/epsilon0``, each *released record* is
``(epsilon0 + ln(1 + gamma / t), exp(-epsilon0 (k - t)))``-DP for any integer
``1 <= t < k`` (``t`` is chosen to make delta at most 1e-6), under adding or removing
one record. Releasing ``N`` records composes: ``N`` times that (basic composition), plus
the network's budget. This is a per-record guarantee: a large release has a large total
epsilon, and the card says so. With the deterministic test (``epsilon0=None``) there is
no DP guarantee at all.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..accounting import PrivacyEvent
from .network import NetworkSynthesizer
from ..errors import ParameterError
from ..finite import coded_table
from .registry import register

DELTA_PER_RECORD = 1e-6


def record_guarantee(k: int, gamma: float, epsilon0: float, delta_target: float = DELTA_PER_RECORD):
    """``(epsilon, delta, t)`` per released record from Theorem 1, the ``t`` giving the smallest
    epsilon with delta at most ``delta_target`` (or ``t = 1`` when none does)."""
    best = None
    for t in range(1, k):
        delta = math.exp(-epsilon0 * (k - t))
        if delta <= delta_target:
            best = (epsilon0 + math.log(1 + gamma / t), delta, t)
    if best is None:
        t = 1
        best = (epsilon0 + math.log(1 + gamma), math.exp(-epsilon0 * (k - 1)), t)
    return best


def projection_keys(codes: np.ndarray, keep: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """One integer per row identifying its values on the kept columns (others masked out).

    Mixed radix with one extra symbol per column for "not kept", exact while the product
    of (cells + 1) fits in 63 bits; beyond that a 64-bit hash of the row (collisions only
    ever add plausible seeds with probability about 2**-64 per pair).
    """
    radix = cells + 1
    masked = np.where(keep, codes, cells[None, :])
    if float(np.prod(radix.astype(float))) < 2**62:
        keys = np.zeros(len(codes), dtype=np.int64)
        for j in range(codes.shape[1]):
            keys = keys * int(radix[j]) + masked[:, j]
        return keys
    return pd.util.hash_pandas_object(pd.DataFrame(masked), index=False).to_numpy().astype(np.int64)


@register(
    "deniability",
    "Plausible deniability",
    """Makes each synthetic record by taking a real record, keeping some of its values and
    redrawing the rest from a private model of the data, then releases it only if many real
    people could equally have been its starting point. Records stay realistic. Its privacy
    promise holds for each released record on its own; for the whole file the promise
    weakens with every record released, which the release card spells out.""",
    rank=6,
)
class PlausibleDeniability(NetworkSynthesizer):
    """Seed-based synthesis with the plausible-deniability test (see module docstring).

    Args:
        k: plausible seeds required; gamma: probability factor; omega: attributes redrawn
            per candidate (default: a third of the columns, at least 1);
        epsilon0: noise of the randomised threshold (None: the deterministic test, no DP);
        max_candidates: stop after this many candidates.
    """

    def __init__(self, *, epsilon, rho=0.9, random_state=None, k: int = 50, gamma: float = 2.0,
                 omega: int | None = None, epsilon0: float | None = 1.0, patterns: int = 16,
                 max_candidates: int = 5_000_000, max_cost: int = 2000, max_parents: int = 3):
        super().__init__(epsilon=epsilon, rho=rho, random_state=random_state, max_cost=max_cost,
                         max_parents=max_parents)
        self.k, self.gamma, self.omega, self.epsilon0 = k, gamma, omega, epsilon0
        self.patterns, self.max_candidates = patterns, max_candidates

    def _fit(self, encoded, epsilon):
        if self.k < 2 or self.gamma < 1:
            raise ParameterError(f"k ({self.k}) must be >= 2 and gamma ({self.gamma}) >= 1")
        super()._fit(encoded, epsilon)
        # The seeds: real records, kept to be tested against (the test's cost is counted per release).
        self.seeds_ = coded_table(self.columns_, encoded.n_rows).records(self.order_)
        m = len(self.order_)
        self.omega_ = self.omega or max(1, m // 3)
        if not 1 <= self.omega_ <= m:
            raise ParameterError(f"omega ({self.omega}) must be between 1 and the number of columns ({m})")
        self.cells_ = np.array([self.columns_[n].cells for n in self.order_])
        # Which attributes a candidate redraws: one of a few random subsets, drawn once per
        # release from public randomness, so the seeds are hashed once per subset.
        ranks = np.argsort(self.noise_.rng.random((self.patterns, m)), axis=1)
        self.redraw_patterns_ = np.unique(ranks < self.omega_, axis=0)

    def candidates(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """``count`` candidates (codes in ``order_``) and their redrawn-attribute masks."""
        rng = self.noise_.rng
        seeds = self.seeds_[rng.integers(0, len(self.seeds_), size=count)]
        redraw = self.redraw_patterns_[rng.integers(0, len(self.redraw_patterns_), size=count)]
        fixed = {name: seeds[:, j] for j, name in enumerate(self.order_)}
        drawn = self.sample_codes(count, fixed=fixed, resample=redraw)
        return np.column_stack([drawn[n] for n in self.order_]), redraw

    def plausible_seeds(self, candidates: np.ndarray, redraw: np.ndarray) -> np.ndarray:
        """Number of real records that could have produced each candidate (hash lookups)."""
        counts = np.zeros(len(candidates), dtype=np.int64)
        weights = 1 << np.arange(redraw.shape[1], dtype=np.int64)
        patterns = redraw.astype(np.int64) @ weights
        cache = self.__dict__.setdefault("_seed_tables", {})
        for pattern in np.unique(patterns):
            rows = np.flatnonzero(patterns == pattern)
            keep = ~redraw[rows[0]]
            if pattern not in cache:  # the seeds' projections for this kept set, counted once
                cache[pattern] = np.unique(projection_keys(self.seeds_, np.broadcast_to(keep, self.seeds_.shape),
                                                           self.cells_), return_counts=True)
            seed_keys = cache[pattern]
            keys = projection_keys(candidates[rows], np.broadcast_to(keep, (len(rows), len(keep))), self.cells_)
            where = np.searchsorted(seed_keys[0], keys)
            where = np.minimum(where, len(seed_keys[0]) - 1)
            counts[rows] = np.where(seed_keys[0][where] == keys, seed_keys[1][where], 0)
        return counts

    def test(self, plausible: np.ndarray) -> np.ndarray:
        """Privacy Test 2 (randomised threshold), or Test 1 when ``epsilon0`` is None."""
        if self.epsilon0 is None:
            return plausible >= self.k
        noise = self.noise_.discrete_laplace(len(plausible), 1.0 / self.epsilon0, label="privacy test")
        return plausible >= self.k + noise

    def _sample(self, n: int) -> pd.DataFrame:
        released, tried, passed = [], 0, 0
        while passed < n and tried < self.max_candidates:
            rate = max(passed / tried, 0.005) if tried else 0.05
            size = min(max(10_000, int(1.3 * (n - passed) / rate)), self.max_candidates - tried)
            candidates, redraw = self.candidates(size)
            ok = self.test(self.plausible_seeds(candidates, redraw))
            tried += size
            passed += int(ok.sum())
            released.append(candidates[ok])
        rows = np.vstack(released)[:n] if released else np.zeros((0, len(self.order_)), dtype=np.int64)
        self.pass_rate_ = passed / tried if tried else 0.0
        self.candidates_tried_ = tried
        self._record_release(len(rows))
        return pd.DataFrame({name: self.columns_[name].decode(rows[:, j], self.noise_).reset_index(drop=True)
                             for j, name in enumerate(self.order_)})[list(self.columns_)]

    def _record_release(self, released: int) -> None:
        if self.epsilon0 is None:
            self.record_guarantee_ = None
            return
        eps_r, delta_r, t = record_guarantee(self.k, self.gamma, self.epsilon0)
        self.record_guarantee_ = {"epsilon": eps_r, "delta": delta_r, "t": t}
        self.accountant_.spend(PrivacyEvent("plausible-deniability test (Privacy Test 2)", released * eps_r,
                                            min(1.0, released * delta_r), self.neighbouring,
                                            f"{released:,} released records, each ({eps_r:.3g}, {delta_r:.2g})-DP, "
                                            "basic composition"))

    def card_details(self) -> dict:
        details = super().card_details()
        details.update(k=self.k, gamma=self.gamma, omega=self.omega_, epsilon0=self.epsilon0,
                       per_record_guarantee=getattr(self, "record_guarantee_", None),
                       per_record_note=("Each released record on its own is protected by the per-record "
                                        "guarantee; the whole file's guarantee is the sum over its records."
                                        if self.epsilon0 is not None else
                                        "Deterministic test: no differential privacy guarantee."))
        return details

    def missing_guarantee(self) -> str | None:
        if self.epsilon0 is None:
            return ("the deterministic plausible-deniability test (k, gamma) is not differentially private: "
                    "whether a record passes depends on the exact number of similar real records")
        return None

    def publisher_details(self) -> dict:
        return {"pass_rate": getattr(self, "pass_rate_", None), "candidates": getattr(self, "candidates_tried_", 0)}
