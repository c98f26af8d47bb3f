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
``k + Z``, ``Z`` discrete Laplace of scale ``1/epsilon0``, one *run* (draw a seed, make a
candidate, test it, output the candidate or nothing) is
``(epsilon0 + ln(1 + gamma / t), exp(-epsilon0 (k - t)))``-DP for any integer
``1 <= t < k`` (``t`` is chosen to make delta at most 1e-6), under adding or removing
one record.

The charge is fixed before any data is read. A release makes ``C`` runs, where ``C`` is a
public number: the publisher's ``candidates``, else the publisher's ``rows``, else the public
constant :data:`DEFAULT_RUNS`; never a count of the data (a noisy row count would make the
charge known only after it is drawn). Proof sketch: the network is
``epsilon_model``-DP (with its own small delta, :mod:`.model`) and uses the data only
through its noisy statistics; given the model, run ``i`` is a mechanism on the data that is
``(epsilon_r, delta_r)``-DP by Theorem 1, whatever the earlier runs released (the seed,
the redrawn attributes and the threshold noise are fresh each run). ``C`` adaptive runs are
``(C epsilon_r, C delta_r)``-DP by basic composition, and with the model
``(epsilon_model + C epsilon_r, delta_model + C delta_r)``-DP: the one event
``C epsilon_r`` the accountant records beside the model's, composed by the ledger. The number
of runs does not depend on any outcome, and the file holds those that pass (any number from
0 to ``C``, itself an output covered by the guarantee). Drawing candidates *until* ``n``
pass would hide the failed runs and multiply the chance of a rare record's candidate by
about one over the pass rate (a stopping rule is a use of the data). A large release has a
large total epsilon, and the card says so. With the deterministic test
(``epsilon0=None``) there is no DP guarantee at all.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import constraints
from ...errors import ParameterError
from ...privacy.accounting import PrivacyEvent
from ..finite import coded_table
from ..registry import register
from .model import NetworkSynthesizer

DELTA_PER_RECORD = 1e-6
#: The test's defaults (k plausible seeds, probability factor gamma, threshold noise epsilon0).
DEFAULT_K, DEFAULT_GAMMA, DEFAULT_EPSILON0 = 50, 2.0, 1.0
#: Candidate runs of a release when the publisher names no number (a public constant).
DEFAULT_RUNS = 1_000
#: Candidates pushed through the test at once (bounds memory; the number of runs is fixed in advance).
CHUNK = 200_000


def record_guarantee(k: int, gamma: float, epsilon0: float, delta_target: float = DELTA_PER_RECORD):
    """``(epsilon, delta, t)`` of one candidate run from Theorem 1 (its output: a record or nothing),
    the ``t`` giving the smallest epsilon with delta at most ``delta_target`` (or ``t = 1``
    when none does)."""
    best = None
    for t in range(1, k):
        delta = math.exp(-epsilon0 * (k - t))
        if delta <= delta_target:
            best = (epsilon0 + math.log(1 + gamma / t), delta, t)
    if best is None:
        t = 1
        best = (epsilon0 + math.log(1 + gamma), math.exp(-epsilon0 * (k - 1)), t)
    return best


def _check_test(k, gamma) -> None:
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 2 or not gamma >= 1:
        raise ParameterError(f"k ({k!r}) must be a whole number >= 2 and gamma ({gamma!r}) a number >= 1")


TEST_MECHANISM = "plausible-deniability test (Privacy Test 2)"


def runs_event(runs: int, k: int, gamma: float, epsilon0: float, neighbouring: str) -> PrivacyEvent:
    """The one event ``runs`` candidate runs cost: each ``(epsilon_r, delta_r)``-DP, basic composition."""
    from ...wording import format_delta

    eps_r, delta_r, _ = record_guarantee(k, gamma, epsilon0)
    return PrivacyEvent(
        TEST_MECHANISM,
        runs * eps_r,
        min(1.0, runs * delta_r),
        neighbouring,
        f"{runs:,} candidate runs, each ({eps_r:.3g}, {format_delta(delta_r)})-DP (a record or nothing), "
        "basic composition",
    )


def projection_keys(codes: np.ndarray, keep: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """One integer per row identifying its values on the kept columns (others masked out).

    Mixed radix with one extra symbol per column for "not kept", exact while the product
    of (cells + 1) fits in 63 bits; beyond that a 64-bit hash of the row (collisions only
    ever add plausible seeds with probability about 2**-64 per pair).
    """
    radix = cells + 1
    masked = np.where(keep, codes, cells[None, :])
    if math.prod(int(r) for r in radix) < 2**62:  # exact: a float product of 641 columns' radices overflowed, warning
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
    people could equally have been its starting point. It runs a fixed number of such
    attempts (the number of rows you ask for, else 1,000) and releases those that pass, so the
    file is smaller than the number of attempts. Records stay realistic. Its privacy promise
    holds for each attempt on its own;
    for the whole file the promise weakens with every attempt, which the release card spells out.""",
    rank=6,
)
class PlausibleDeniability(NetworkSynthesizer):
    """Seed-based synthesis with the plausible-deniability test (see module docstring).

    Args:
        k: plausible seeds required; gamma: probability factor; omega: attributes redrawn
            per candidate (default: a third of the columns, at least 1);
        epsilon0: noise of the randomised threshold (None: the deterministic test, no DP);
        candidates: how many candidates to run, a public number fixed in advance (default:
            the row target, i.e. the publisher's ``rows`` or the noisy row count). The file
            holds those that pass.
    """

    independent_chunks = False  # every call runs candidates and is charged: chunks are drawn in order
    #: The number of runs when the publisher gives no ``rows``: public, so the charge is known in advance.
    default_rows = DEFAULT_RUNS

    @classmethod
    def runs(cls, rows=None, candidates=None) -> int:
        """The number of candidate runs of a release: ``candidates``, else ``rows``, else :data:`DEFAULT_RUNS`."""
        return cls._check_runs(candidates if candidates is not None else rows if rows is not None else DEFAULT_RUNS)

    @classmethod
    def _row_charge(cls, domain, epsilon, *, rows=None, **options):
        spend = super()._row_charge(domain, epsilon, rows=rows, **options)
        if options.get("epsilon0", DEFAULT_EPSILON0) is None:
            return type(spend)(spend.events, False)
        return spend

    @classmethod
    def _method_events(
        cls,
        domain,
        epsilon,
        left,
        common,
        *,
        rows=None,
        candidates=None,
        k=DEFAULT_K,
        gamma=DEFAULT_GAMMA,
        epsilon0=DEFAULT_EPSILON0,
        **options,
    ) -> list:
        _check_test(k, gamma)
        events = super()._method_events(domain, epsilon, left, common, rows=rows)
        if epsilon0 is None:
            return events
        return events + [runs_event(cls.runs(rows, candidates), k, gamma, epsilon0, cls.neighbouring)]

    @classmethod
    def privacy_note(cls, domain, epsilon, *, rows=None, **options):
        from ...wording import format_delta, format_epsilon

        spend = cls.charge(domain, epsilon, rows=rows, **options)
        if not spend.guaranteed:
            return (
                "error",
                "The deterministic plausible-deniability test gives **no differential-privacy guarantee**.",
            )
        eps_r, delta_r, _ = record_guarantee(
            options.get("k", DEFAULT_K), options.get("gamma", DEFAULT_GAMMA), options.get("epsilon0", DEFAULT_EPSILON0)
        )
        runs = cls.runs(rows, options.get("candidates"))
        return (
            "warning",
            f"Besides ε = {format_epsilon(epsilon)} for the model, **each candidate record tried** "
            f"is protected on its own with ε = {format_epsilon(eps_r)} (δ = {format_delta(delta_r)}), whether "
            f"it passes the test or not. Guarantees add up over tries: {runs:,} tries (a number "
            f"fixed in advance{'' if rows is not None else ', the default'}) make "
            f"ε = **{format_epsilon(spend.epsilon)}** for the whole file (which holds the tries that "
            "passed, fewer rows), and that is what the ledger will count. Try few records, or "
            "prefer another method for a whole table.",
        )

    def __init__(
        self,
        *,
        epsilon,
        rho=0.9,
        random_state=None,
        k: int = DEFAULT_K,
        gamma: float = DEFAULT_GAMMA,
        omega: int | None = None,
        epsilon0: float | None = DEFAULT_EPSILON0,
        patterns: int = 16,
        candidates: int | None = None,
        max_cost: int = 2000,
        max_parents: int = 3,
    ):
        super().__init__(
            epsilon=epsilon, rho=rho, random_state=random_state, max_cost=max_cost, max_parents=max_parents
        )
        self.k, self.gamma, self.omega, self.epsilon0 = k, gamma, omega, epsilon0
        self.patterns, self.candidates = patterns, candidates

    def _fit(self, encoded, epsilon):
        _check_test(self.k, self.gamma)
        self.candidates_ = self._check_runs(self.rows_ if self.candidates is None else self.candidates)
        self.rows_ = self.candidates_  # the runs a release makes (chunks add up to them)
        self.runs_source_ = (
            "the publisher's number of candidates"
            if self.candidates is not None
            else "the number of rows asked for by the publisher"
            if "publisher" in self.row_policy_
            else "the method's default"
        )
        super()._fit(encoded, epsilon)
        # The seeds: real records, kept to be tested against (every run is charged, see sample()).
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

    @staticmethod
    def _check_runs(runs) -> int:
        """A number of runs: a whole number from 1 to the public limit on rows."""
        limit = constraints.MAX_SYNTHETIC_ROWS
        if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or not 1 <= runs <= limit:
            raise ParameterError(f"candidates ({runs!r}) must be a whole number from 1 to {limit:,}")
        return int(runs)

    def make_candidates(self, count: int) -> tuple[np.ndarray, np.ndarray]:
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
                cache[pattern] = np.unique(
                    projection_keys(self.seeds_, np.broadcast_to(keep, self.seeds_.shape), self.cells_),
                    return_counts=True,
                )
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

    def run_candidates(self, runs: int) -> np.ndarray:
        """Run exactly ``runs`` candidates through the test; the codes (in ``order_``) of those that pass.

        The number of runs is fixed before any outcome is seen, and every run is charged to
        the accountant, whether it released a record or nothing.
        """
        runs = self._check_runs(runs)
        released, passed = [], 0
        for start in range(0, runs, CHUNK):
            candidates, redraw = self.make_candidates(min(CHUNK, runs - start))
            ok = self.test(self.plausible_seeds(candidates, redraw))
            passed += int(ok.sum())
            released.append(candidates[ok])
        self._record_runs(runs)
        self.candidates_run_ = getattr(self, "candidates_run_", 0) + runs
        self.released_ = getattr(self, "released_", 0) + passed
        return np.vstack(released)

    def sample(self, n: int | None = None, *, progress=None) -> pd.DataFrame:
        """Run ``n`` candidates (default: ``candidates_``) and return those that pass, decoded.

        The file may have any number of rows from 0 to ``n``: how many pass is an output of
        the mechanism, covered by its guarantee. Each call is a new release, charged again.
        ``progress``: as for :meth:`fit`.
        """
        if not hasattr(self, "accountant_"):
            raise RuntimeError("call fit() before sample()")
        self._progress = progress
        runs = self.candidates_ if n is None else n
        self._report(0.0, f"Running {runs:,} candidates through the privacy test")
        rows = self.run_candidates(runs)
        self.row_policy_ = (
            f"{runs:,} candidates were run (a public number fixed in advance: {self.runs_source_}); "
            f"{len(rows):,} passed the privacy test and are released. How many pass is itself an "
            "output of the mechanism, covered by the guarantee; a file with no rows is a valid "
            "outcome."
        )
        if not len(rows):  # a public setting's advice, whatever the count (it reads nothing more)
            self.row_policy_ += (
                f" None passing means few candidates had {self.k} records that could have made them about as "
                "likely, as on a table of many columns or few records: fewer columns let more pass (in the "
                "library, a smaller k or more attributes redrawn, omega, too)."
            )
        frame = pd.DataFrame(
            {
                name: self.columns_[name].decode(rows[:, j], self.noise_).reset_index(drop=True)
                for j, name in enumerate(self.order_)
            }
        )
        self._report(1.0, "Drawn")
        return self._with_derived(frame)[self.released_columns]

    def _record_runs(self, runs: int) -> None:
        if self.epsilon0 is None:
            self.record_guarantee_ = None
            return
        eps_r, delta_r, t = record_guarantee(self.k, self.gamma, self.epsilon0)
        self.record_guarantee_ = {"epsilon": eps_r, "delta": delta_r, "t": t}
        self.accountant_.spend(runs_event(runs, self.k, self.gamma, self.epsilon0, self.neighbouring))

    def card_details(self) -> dict:
        details = super().card_details()
        runs = getattr(self, "candidates_run_", 0)
        per_run = getattr(self, "record_guarantee_", None)
        total = (
            None
            if per_run is None
            else {"epsilon": runs * per_run["epsilon"], "delta": min(1.0, runs * per_run["delta"])}
        )
        details.update(
            k=self.k,
            gamma=self.gamma,
            omega=self.omega_,
            epsilon0=self.epsilon0,
            candidates_run=runs,
            per_run_guarantee=per_run,
            runs_guarantee=total,
            per_record_note=(
                f"Each of the {runs:,} candidate runs (whose output is a record or "
                "nothing) is protected on its own by the per-run guarantee; the whole "
                "file's guarantee adds them all up, whatever number of records passed."
                if self.epsilon0 is not None
                else "Deterministic test: no differential privacy guarantee."
            ),
        )
        return details

    def missing_guarantee(self) -> str | None:
        if self.epsilon0 is None:
            return (
                "the deterministic plausible-deniability test (k, gamma) is not differentially private: "
                "whether a record passes depends on the exact number of similar real records"
            )
        return None

    def publisher_details(self) -> dict:
        runs = getattr(self, "candidates_run_", 0)
        return {"pass_rate": getattr(self, "released_", 0) / runs if runs else None, "candidates": runs}
