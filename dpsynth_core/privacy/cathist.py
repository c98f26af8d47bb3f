"""CatHist: DP histograms over weakly constrained domains (Rodriguez and Howe 2018, Alg. 1).

Guarantee: epsilon-DP under adding or removing one record, for one histogram (L1
sensitivity 1). Input: the true counts of the values present (the *active domain*), the
declared domain size ``n`` (any size; may exceed 10**15), the tolerance ``rho`` and
epsilon. Must be declared in advance: the domain and its size, never read off the data.

The mechanism is the one that would add noise to every one of the ``n`` bins and keep
those above a threshold, computed without touching the empty bins:

1. every active count gets discrete Laplace noise of scale ``1/epsilon``;
2. a bin is kept when its noisy count clears the threshold (see :class:`Threshold`);
3. the number of empty bins that would have cleared it is drawn as
   ``k ~ Binomial(n - |active|, p)`` with ``p = 1 - rho**(1/n)`` computed as
   ``-expm1(log(rho) / n)`` (the paper's listing sets k to the probability itself);
4. ``k`` distinct values are drawn uniformly from the domain minus the active domain, each
   with a noisy count drawn from the noise's law given that it cleared the threshold.

So the chance that the release holds no made-up value is exactly ``rho``. The released
values are listed in the domain's public order (see :class:`Enumeration`), never in the
order of the true counts and never with the made-up values last.

Counts are integers and the noise is discrete, so the threshold is discrete too: a noisy
count above ``cut`` is kept, one equal to ``cut`` is kept with probability ``tie_keep``.
This hits the per-bin probability ``p`` exactly (with no floating-point Laplace). The
paper's continuous-Laplace threshold ``tau`` (:func:`cathist_tau`) is reported alongside;
the two differ by less than one count for epsilon <= 1.

Time and memory are O(|active| + k), independent of ``n``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..validation import check_domain_size, check_epsilon, check_rho
from .noise import NoiseSource, discrete_laplace_alpha, discrete_laplace_pmf, discrete_laplace_survival


def inclusion_probability(domain_size: int, rho: float) -> float:
    """``p = 1 - rho**(1/n)``, the chance an empty bin is kept, stable for n up to 10**15 and beyond.

    >>> f"{inclusion_probability(10**10, 0.9):.4e}"  # -expm1(log(rho)/n): plain 1 - rho**(1/n) loses digits
    '1.0536e-11'
    """
    n = check_domain_size(domain_size)
    return -math.expm1(math.log(check_rho(rho)) / n)


def cathist_tau(domain_size: int, rho: float, epsilon: float) -> float:
    """The paper's threshold for continuous Laplace noise: ``P(Lap(1/eps) >= tau) = p``.

    ``tau = -ln(2p)/eps`` when ``p <= 1/2``, else ``ln(2(1-p))/eps`` (negative tau: small
    domains with small rho). The design notes' reference values:

    >>> round(cathist_tau(171_000, 0.9, 1.0), 4), round(cathist_tau(29_400_000_000, 0.9, 1.0), 4)
    (13.6066, 25.6615)
    """
    p = inclusion_probability(domain_size, rho)
    epsilon = check_epsilon(epsilon)
    if p <= 0.5:
        return -math.log(2 * p) / epsilon
    return math.log(2 * (1 - p)) / epsilon


def expected_made_up(domain_size: int, rho: float, active: int = 0) -> float:
    """Expected number of made-up values: ``(n - |active|) p``; tends to ``-ln(rho)``."""
    return (check_domain_size(domain_size) - active) * inclusion_probability(domain_size, rho)


def some_made_up_chance(domain_size: int, rho: float, active: int = 0) -> float:
    """The chance that the release holds at least one made-up value, ``1 - (1 - p)**(n - |active|)``
    (the binomial draw is not 0), which is ``1 - rho`` with no active value and at most that with some.
    Public with ``active`` a bound on the values present (the row count, say): more active values, fewer
    empty bins, a smaller chance."""
    n = check_domain_size(domain_size)
    p = inclusion_probability(n, rho)
    return -math.expm1((n - min(active, n)) * math.log1p(-p)) if p < 1 else float(active < n)


@dataclass(frozen=True)
class Threshold:
    """The discrete threshold: keep a noisy count ``c`` when ``c > cut``, or ``c == cut``
    with probability ``tie_keep``. Chosen so an empty bin is kept with probability ``p``."""

    epsilon: float
    cut: int
    tie_keep: float
    p: float

    def keep_probability(self, count) -> np.ndarray:
        """Chance that a bin with true count ``count`` is kept (vectorised)."""
        counts = np.atleast_1d(np.asarray(count, dtype=np.int64))
        alpha = discrete_laplace_alpha(self.epsilon)
        above = (self.cut + 1 - counts).astype(float)  # P(Z >= above), exact on both sides of 0
        survival = np.where(
            above >= 1,
            alpha ** np.maximum(above, 1) / (1 + alpha),
            1.0 - alpha ** np.maximum(1 - above, 0) / (1 + alpha),
        )
        out = survival + self.tie_keep * (1 - alpha) / (1 + alpha) * alpha ** np.abs(self.cut - counts)
        return out if np.ndim(count) else float(out[0])

    def made_up_count(self) -> float:
        """The expected noisy count of a made-up value (an empty bin's noise, given that it was kept):
        a made-up value weighs as much as this many real records."""
        alpha = discrete_laplace_alpha(self.epsilon)
        c = (1 - alpha) / (1 + alpha)
        start = self.cut + 1 if self.cut >= 0 else -self.cut  # sum of z P(Z = z) over z > cut, in closed form
        tail = c * alpha**start * (start * (1 - alpha) + alpha) / (1 - alpha) ** 2
        return (self.tie_keep * self.cut * discrete_laplace_pmf(self.cut, self.epsilon) + tail) / self.p

    def most_values(self, rows: int) -> float:
        """An upper bound on the expected number of real values kept, whatever ``rows`` records hold:
        ``rows * max over c >= 1 of keep_probability(c) / c`` (values held by ``c`` records each, for the
        best ``c``, keep the most). From the threshold and the row count alone."""
        counts = np.arange(1, max(self.cut, 0) + int(math.ceil(40 / self.epsilon)) + 2)
        return float(rows * np.max(self.keep_probability(counts) / counts))

    def none_kept_chance(self, rows: int, largest: int) -> float:
        """A lower bound on the chance that no real value is kept when ``rows`` records are spread over
        values of at most ``largest`` records each, however they are spread: ``1 - rows * max over
        1 <= c <= largest of keep_probability(c) / c`` (the union bound over the values, each of ``c``
        records kept with ``keep_probability(c)``, at most ``rows / c`` of them). From the threshold and the
        row count alone; 0 when the bound says nothing."""
        top = min(int(largest), max(self.cut, 0) + int(math.ceil(40 / self.epsilon)) + 2)
        counts = np.arange(1, max(top, 1) + 1)
        return float(max(0.0, 1.0 - rows * np.max(self.keep_probability(counts) / counts)))

    def largest_count_none_kept(self, rows: int, chance: float = 0.99) -> int:
        """The largest ``c`` such that, when no value holds more than ``c`` of ``rows`` records, no real
        value is kept with at least ``chance`` (:meth:`none_kept_chance`); 0 when even values of one record
        each could be kept, ``rows`` when no spread of ``rows`` records can be (public settings only)."""
        # keep_probability(c) / c peaks before cut + 40 / epsilon (kept almost surely past it): no need to look further
        top = min(int(rows), max(self.cut, 0) + int(math.ceil(40 / self.epsilon)) + 2)
        counts = np.arange(1, max(top, 1) + 1)
        worst = np.maximum.accumulate(self.keep_probability(counts) / counts)  # the max over 1..c, for every c
        fits = np.flatnonzero(1.0 - rows * worst >= chance)
        if not fits.size:
            return 0
        return int(rows) if fits[-1] == len(counts) - 1 else int(counts[fits[-1]])

    def smallest_count_kept(self, probability: float = 0.5) -> int:
        """Smallest true count kept with at least ``probability`` (the probability grows with the count: the
        counts above the cut are tried in blocks of doubling length, each block in one vectorised call, as a
        small epsilon puts the answer thousands of counts above the cut)."""
        count, width = max(0, self.cut), 64
        while self.keep_probability(count) < probability:
            block = np.arange(count + 1, count + 1 + width)
            kept = np.flatnonzero(np.asarray(self.keep_probability(block)) >= probability)
            count, width = (int(block[kept[0]]) if len(kept) else count + width), 2 * width
        while count > 0 and self.keep_probability(count - 1) >= probability:
            count -= 1
        return count


def threshold(domain_size: int, rho: float, epsilon: float) -> Threshold:
    """The discrete threshold for a domain of ``domain_size`` bins (see :class:`Threshold`)."""
    epsilon = check_epsilon(epsilon)
    p = inclusion_probability(domain_size, rho)
    alpha = discrete_laplace_alpha(epsilon)
    # Largest m with P(Z >= m) >= p, from the closed forms, then checked exactly.
    if p <= alpha / (1 + alpha):
        guess = math.floor(-math.log((1 + alpha) * p) / epsilon)
    else:
        guess = math.floor(1 + math.log((1 - p) * (1 + alpha)) / epsilon)
    cut = guess
    while discrete_laplace_survival(cut, epsilon) < p:
        cut -= 1
    while discrete_laplace_survival(cut + 1, epsilon) >= p:
        cut += 1
    tie_keep = (p - discrete_laplace_survival(cut + 1, epsilon)) / discrete_laplace_pmf(cut, epsilon)
    return Threshold(epsilon=epsilon, cut=cut, tie_keep=min(1.0, max(0.0, tie_keep)), p=p)


def _kept_noise(rule: Threshold, size: int, noise: NoiseSource) -> np.ndarray:
    """Noise values drawn from the discrete Laplace law given that they clear the threshold."""
    if size == 0:
        return np.zeros(0, dtype=np.int64)
    eps, cut, tie = rule.epsilon, rule.cut, rule.tie_keep
    alpha = discrete_laplace_alpha(eps)
    if cut >= 0:
        # Above zero the law is geometric: P(cut) ~ tie (1 - a), P(cut + g) ~ (1 - a) a**g.
        at_cut = tie * (1 - alpha) / (tie * (1 - alpha) + alpha)
        jumps = 1 + noise.geometric_failures(size, alpha)
        return np.where(noise.rng.random(size) < at_cut, cut, cut + jumps).astype(np.int64)
    support = np.arange(cut, 1, dtype=np.int64)
    weights = np.array([discrete_laplace_pmf(int(v), eps) for v in support])
    weights[0] *= tie
    tail = discrete_laplace_survival(1, eps)
    probs = np.append(weights, tail)
    pick = noise.rng.choice(len(probs), size=size, p=probs / probs.sum())
    values = np.where(pick < len(support), support[np.minimum(pick, len(support) - 1)], 0)
    in_tail = pick == len(support)
    values[in_tail] = 1 + noise.geometric_failures(int(in_tail.sum()), alpha)
    return values.astype(np.int64)


@dataclass(frozen=True)
class CatHistResult:
    """A released histogram: kept values with their noisy counts, made-up ones flagged."""

    keys: list
    counts: np.ndarray
    made_up: np.ndarray
    threshold: Threshold
    tau: float

    @property
    def n_made_up(self) -> int:
        return int(self.made_up.sum())


def cathist(
    active_keys,
    active_counts,
    domain_size: int,
    *,
    epsilon: float,
    rho: float,
    draw_inactive,
    noise: NoiseSource,
    label: str = "",
) -> CatHistResult:
    """Run CatHist on one histogram.

    Args:
        active_keys: the values present in the data (any hashable keys).
        active_counts: their true counts (integers >= 1).
        domain_size: the declared domain size ``n`` (exact int).
        epsilon, rho: the budget for this histogram and the tolerance.
        draw_inactive: the domain's public :class:`Enumeration` (:func:`draw_from_range`,
            :func:`draw_from_generator`): ``draw_inactive(k, excluded, noise)`` returns ``k``
            distinct values uniformly among those not in ``excluded`` (the active keys), and
            its order is the order of the result.
        noise: the release's :class:`~dpsynth_core.privacy.noise.NoiseSource`.

    Returns:
        :class:`CatHistResult`, keys in the enumeration's public order. The caller records
        the privacy event (epsilon, add/remove).
    """
    epsilon = check_epsilon(epsilon)
    n = check_domain_size(domain_size)
    active_keys = list(active_keys)
    counts = np.asarray(active_counts, dtype=np.int64)
    if len(active_keys) > n:
        raise ValueError(f"{len(active_keys)} active values cannot fit a domain of size {n}")
    rule = threshold(n, rho, epsilon)
    noisy = counts + noise.discrete_laplace(len(counts), 1.0 / epsilon, label=label)
    keep = (noisy > rule.cut) | ((noisy == rule.cut) & (noise.rng.random(len(noisy)) < rule.tie_keep))
    k = noise.binomial(n - len(active_keys), rule.p)
    made_up_keys = list(draw_inactive(k, set(active_keys), noise)) if k else []
    made_up_counts = _kept_noise(rule, k, noise)
    keys = [key for key, kept in zip(active_keys, keep) if kept] + made_up_keys
    all_counts = np.concatenate([noisy[keep], made_up_counts]).astype(np.int64)
    flags = np.concatenate([np.zeros(int(keep.sum()), bool), np.ones(k, bool)])
    # The release lists values in the domain's public order: the order of the input keys
    # (often the true frequency order) and "made-up values last" would both leak.
    order = np.argsort(draw_inactive.positions(keys), kind="stable") if keys else np.zeros(0, dtype=np.int64)
    return CatHistResult(
        keys=[keys[i] for i in order],
        counts=all_counts[order],
        made_up=flags[order],
        threshold=rule,
        tau=cathist_tau(n, rho, epsilon),
    )


@dataclass(frozen=True)
class Enumeration:
    """A declared domain listed in a public order: position ``i`` holds ``key_at(i)``.

    CatHist draws its made-up values from it (calling it) and lists every result in its
    order (``index_of``), so neither the data's frequency order nor "made-up values last"
    can show in a release, in codes built from it, or in buckets that merge neighbouring codes.
    """

    size: int
    key_at: Callable
    index_of: Callable

    def positions(self, keys) -> np.ndarray:
        """Public position of every key (object array: positions may exceed 64 bits)."""
        return np.asarray([self.index_of(key) for key in keys], dtype=object)

    def __call__(self, k: int, excluded, noise: NoiseSource) -> list:
        """``k`` distinct keys drawn uniformly among those not in ``excluded``.

        Rejection (uniform position, redrawn if taken) while at least half the domain is
        free, so the cost is O(k) expected; otherwise the domain is at most twice the
        active set and is listed, so either way the cost is O(|active| + k), never O(n).
        """
        free = self.size - len(excluded)
        if k > free:
            raise ValueError(f"cannot draw {k} new values from {free} free ones")
        if 2 * (len(excluded) + k) > self.size:
            pool = [key for key in map(self.key_at, range(self.size)) if key not in excluded]
            return [pool[i] for i in noise.rng.choice(len(pool), size=k, replace=False)]
        chosen: list = []
        taken = set(excluded)
        while len(chosen) < k:
            for index in noise.uniform_indices(self.size, k - len(chosen)):
                key = self.key_at(index)
                if key not in taken:
                    taken.add(key)
                    chosen.append(key)
                    if len(chosen) == k:
                        break
        return chosen


class _Range(Enumeration):
    def positions(self, keys) -> np.ndarray:
        return np.asarray(keys, dtype=np.int64)


def _identity(index):
    return int(index)


def draw_from_range(size: int) -> Enumeration:
    """The enumeration of a domain listed as ``0..size-1`` (explicit lists, binned cells, products)."""
    return _Range(int(size), _identity, _identity)


def draw_from_generator(domain, *, with_missing: bool = False) -> Enumeration:
    """The enumeration of a generated text domain (:meth:`TextDomain.label_at` order).

    With ``with_missing``, "missing" (key ``None``) is one more value of the domain, at the
    fixed public position ``domain.size`` (last).
    """
    size = domain.size

    def key_at(index):
        return None if with_missing and index == size else domain.label_at(index)

    def index_of(key):
        return size if with_missing and key is None else domain.index_of(key)

    return Enumeration(size + (1 if with_missing else 0), key_at, index_of)


def fidelity(true_counts: dict, released_counts: dict) -> float:
    """Fidelity F (Rodriguez and Howe, section 4).

    The probability mass the true distribution puts on the values the release keeps,
    times the mass the release puts on true values. 1 when the value sets agree, 0 when
    they are disjoint. Negative released counts count as 0.
    """
    true_total = sum(v for v in true_counts.values() if v > 0)
    released = {k: max(float(v), 0.0) for k, v in released_counts.items()}
    released_total = sum(released.values())
    if true_total == 0 or released_total == 0:
        return 0.0
    shared = set(true_counts) & {k for k, v in released.items() if v > 0}
    true_mass = sum(true_counts[k] for k in shared) / true_total
    released_mass = sum(released[k] for k in shared) / released_total
    return float(true_mass * released_mass)
