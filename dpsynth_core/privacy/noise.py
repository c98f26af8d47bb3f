"""Noise samplers: the only module that draws privacy noise.

Counts are integers and get *discrete* Laplace (two-sided geometric) noise, so no
floating-point artefact can leak the input (Mironov 2012). Two sources exist:

* **secure** (``random_state=None``): the noise on counts comes from OpenDP's exact
  samplers (discrete Laplace, noisy max, lattice Laplace), which draw from the operating
  system's CSPRNG and cannot be seeded. Every other draw of a release (how many values
  CatHist makes up and which ones, positions inside bins, the rows sampled, tie-breaks,
  Dirichlet draws, permutations) comes from a numpy ``Generator`` over ``randomgen``'s
  ChaCha bit generator with 20 rounds (the ChaCha20 stream cipher), keyed with 256 bits
  from :mod:`secrets`. Its outputs do not reveal its state, so released positions inside
  bins cannot be used to recover which values were made up (a PCG64 state can be
  recovered from enough outputs). The rows of a release are drawn in chunks, each from its
  own AES-128 counter-mode stream under a key drawn from that generator (ChaCha20 without
  AES-NI; :func:`chunk_generator`). This is what releases use.
* **seeded** (an int or a ``numpy.random.Generator``): everything comes from numpy (the
  chunk streams' key too), so a run can be repeated. For tests and teaching only: numpy's
  generator is not cryptographic. The release card says which source was used, never the seed.

Discrete Laplace with scale ``b`` has ``P(Z = z) = (1 - a) / (1 + a) * a**|z|`` with
``a = exp(-1/b)``; on a count of L1 sensitivity 1 it gives ``1/b``-DP.

Discrete Gaussian with scale ``sigma`` has ``P(Z = z)`` proportional to
``exp(-z**2 / (2 sigma**2))`` (Canonne, Kamath and Steinke 2020); on a vector of counts of
L2 sensitivity 1 it gives ``1 / (2 sigma**2)``-zCDP (zero-concentrated DP). The secure source
draws it from OpenDP's exact sampler; the seeded source from the same law with numpy (the
paper's rejection sampler from discrete Laplace proposals, vectorised).
"""

from __future__ import annotations

import math
import os
import secrets
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

#: Above this, numpy cannot hold the number of trials; Binomial(n, p) is drawn as
#: Poisson(n p), whose total-variation distance from it is at most p (Le Cam), below 1e-18.
_BINOMIAL_INT_LIMIT = 2**62


def _zeros(size: int) -> np.ndarray:
    """The input of an OpenDP count sampler: zeros as a numpy array, which OpenDP hands over without
    converting each element (its ``int`` is 32-bit); the noise is added to the counts afterwards."""
    return np.zeros(int(size), dtype=np.int32)


#: One thread per process draws secure discrete Gaussian noise ahead of need
#: (:meth:`NoiseSource.reserve_gaussian`); OpenDP's sampler runs without Python's lock, so it overlaps
#: the release's own work. Keyed by process: a forked child has no thread of its parent's pool.
_AHEAD: dict = {}


def _ahead_pool() -> ThreadPoolExecutor:
    if os.getpid() not in _AHEAD:
        _AHEAD.clear()
        _AHEAD[os.getpid()] = ThreadPoolExecutor(1, thread_name_prefix="dpsynth-noise")
    return _AHEAD[os.getpid()]


@lru_cache(maxsize=64)
def _opendp_discrete_laplace(scale: float):
    # not opendp.prelude: it imports every extra (scikit-learn, scipy, polars), seconds of a cold start
    from opendp.domains import atom_domain, vector_domain
    from opendp.measurements import make_laplace
    from opendp.metrics import l1_distance
    from opendp.mod import enable_features

    enable_features("contrib")
    return make_laplace(vector_domain(atom_domain(T=int)), l1_distance(T=int), scale=float(scale))


@dataclass
class NoiseSource:
    """A source of randomness for one release, with a log of every noise draw.

    Attributes:
        secure: True when count noise comes from OpenDP's CSPRNG samplers and helper draws
            from ChaCha20 (:func:`secure_generator`).
        rng: numpy generator for helper draws (and for count noise when not secure).
        log: one ``(label, scale, cells)`` tuple per discrete-Laplace call, so tests can
            check the accountant against the noise actually drawn.
        zcdp_log: one ``(label, rho, cells)`` tuple per zCDP draw (discrete Gaussian noise,
            exponential mechanism under zCDP), ``rho`` being what the draw costs.
    """

    secure: bool
    rng: np.random.Generator
    log: list = field(default_factory=list)
    zcdp_log: list = field(default_factory=list)
    #: secure source: discrete Gaussian values drawn ahead, of one scale (``reserve_gaussian``)
    _ahead_sigma: float | None = field(default=None, init=False, repr=False)
    _ahead: deque = field(default_factory=deque, init=False, repr=False)

    def __getstate__(self) -> dict:
        """Pickled (a release's chunk sampler sent to Spark's executors): without the values drawn ahead,
        which stay in this process, unused (their futures hold locks)."""
        state = dict(self.__dict__)
        state["_ahead_sigma"], state["_ahead"] = None, deque()
        return state

    def describe(self) -> str:
        if self.secure:
            return (
                "OpenDP exact samplers for the noise on counts (operating-system CSPRNG); every other draw "
                "(made-up values, positions inside bins, rows sampled) from the ChaCha20 stream cipher "
                "(randomgen, 20 rounds) keyed with 256 bits from the operating system, the rows in chunks, "
                "each from its own AES-128 counter-mode stream (ChaCha20 without AES-NI) under a key drawn from it"
            )
        return "seeded numpy PCG64 generator: repeatable, for tests and teaching only, not for real releases"

    def discrete_laplace(self, size: int, scale: float, label: str = "") -> np.ndarray:
        """Draw ``size`` independent discrete Laplace values with the given scale (int64)."""
        if not scale > 0:
            raise ValueError(f"scale ({scale}) must be > 0")
        self.log.append((label, float(scale), int(size)))
        if size == 0:
            return np.zeros(0, dtype=np.int64)
        if self.secure:
            return np.asarray(_opendp_discrete_laplace(float(scale))(_zeros(size)), dtype=np.int64)
        # The difference of two i.i.d. geometric counts of failures is discrete Laplace.
        success = -math.expm1(-1.0 / scale)
        return (self.rng.geometric(success, size) - self.rng.geometric(success, size)).astype(np.int64)

    def discrete_gaussian(self, size: int, sigma: float, label: str = "") -> np.ndarray:
        """Draw ``size`` independent discrete Gaussian values of scale ``sigma`` (int64).

        On counts of L2 sensitivity 1 this costs ``1 / (2 sigma**2)`` in zCDP (logged).
        """
        if not sigma > 0:
            raise ValueError(f"sigma ({sigma}) must be > 0")
        self.zcdp_log.append((label, 1.0 / (2.0 * sigma**2), int(size)))
        if size == 0:
            return np.zeros(0, dtype=np.int64)
        if self.secure:
            drawn = self._take_ahead(int(size), float(sigma))
            left = int(size) - sum(part.size for part in drawn)
            if left:
                drawn.append(_secure_discrete_gaussian(left, float(sigma)))
            return drawn[0] if len(drawn) == 1 else np.concatenate(drawn)
        return _seeded_discrete_gaussian(self.rng, int(size), float(sigma))

    def reserve_gaussian(self, sigma: float, size: int) -> None:
        """Secure source: have at least ``size`` discrete Gaussian values of scale ``sigma`` drawn ahead,
        on another thread, for the next :meth:`discrete_gaussian` calls of that scale.

        The values are independent draws of OpenDP's exact sampler, each used at most once, in the
        order drawn, so the noise a measurement gets has the same law as if it were drawn then; values
        never used (a later reserve of another scale drops them) are discarded unseen. ``size`` must be
        a public number (it decides only how much is drawn ahead). A value not yet drawn when it is
        needed is drawn then, by the caller. The seeded source draws nothing ahead (its stream stays
        in the order of the calls).
        """
        if not self.secure or not sigma > 0:
            return
        if self._ahead_sigma != float(sigma):
            for part in self._ahead:
                part.cancel()
            self._ahead.clear()
            self._ahead_sigma = float(sigma)
        held = sum(part.planned for part in self._ahead)
        if size > held:
            future = _ahead_pool().submit(_secure_discrete_gaussian, int(size) - held, float(sigma))
            future.planned = int(size) - held  # values it holds once drawn
            self._ahead.append(future)

    def _take_ahead(self, size: int, sigma: float) -> list:
        """Values drawn ahead at scale ``sigma`` and ready now, oldest first, up to ``size`` of them."""
        taken: list = []
        while size > 0 and self._ahead_sigma == sigma and self._ahead and self._ahead[0].done():
            part = self._ahead.popleft()
            if part.cancelled() or part.exception() is not None:
                continue
            values = part.result()
            taken.append(values[:size])
            if values.size > size:  # the rest stays ahead, first in line
                rest = Future()
                rest.set_result(values[size:])
                rest.planned = values.size - size
                self._ahead.appendleft(rest)
            size -= taken[-1].size
        return taken

    def geometric_failures(self, size: int, alpha: float) -> np.ndarray:
        """Counts of failures with ``P(g) = (1 - alpha) alpha**g``, g >= 0 (int64)."""
        if alpha <= 0:
            return np.zeros(size, dtype=np.int64)
        return self.rng.geometric(1.0 - alpha, size).astype(np.int64) - 1

    def binomial(self, trials: int, p: float) -> int:
        """One draw from Binomial(trials, p); ``trials`` may be any Python int."""
        if trials <= 0 or p <= 0:
            return 0
        if p >= 1:
            return int(trials)
        if trials < _BINOMIAL_INT_LIMIT:
            return int(self.rng.binomial(int(trials), p))
        return int(self.rng.poisson(trials * p))

    def uniform_indices(self, high: int, count: int) -> list[int]:
        """``count`` independent uniform integers in ``[0, high)``; ``high`` may exceed 2**63."""
        if high < 2**62:
            return [int(v) for v in self.rng.integers(0, high, size=count)]
        bits = high.bit_length()
        words = (bits + 31) // 32
        out: list[int] = []
        while len(out) < count:  # rejection keeps it exactly uniform
            chunks = self.rng.integers(0, 2**32, size=words, dtype=np.uint64)
            value = 0
            for chunk in chunks:
                value = (value << 32) | int(chunk)
            value >>= words * 32 - bits
            if value < high:
                out.append(value)
        return out

    def uniform(self, low, high) -> np.ndarray:
        """Uniform floats in ``[low, high)`` elementwise (helper draws inside public bins)."""
        return self.rng.uniform(low, high)

    def integers(self, low, high) -> np.ndarray:
        """Uniform integers in ``[low, high]`` elementwise, inclusive."""
        return self.rng.integers(low, np.asarray(high) + 1)


@lru_cache(maxsize=256)
def _opendp_discrete_gaussian(sigma: float):
    from opendp.domains import atom_domain, vector_domain
    from opendp.measurements import make_gaussian
    from opendp.metrics import l2_distance
    from opendp.mod import enable_features

    enable_features("contrib")
    return make_gaussian(vector_domain(atom_domain(T=int)), l2_distance(T=int), scale=float(sigma))


def _secure_discrete_gaussian(size: int, sigma: float) -> np.ndarray:
    """``size`` values of OpenDP's exact discrete Gaussian sampler (the operating system's CSPRNG)."""
    return np.asarray(_opendp_discrete_gaussian(sigma)(_zeros(size)), dtype=np.int64)


def _seeded_discrete_gaussian(rng: np.random.Generator, size: int, sigma: float) -> np.ndarray:
    """Canonne, Kamath and Steinke (2020), Algorithm 1, vectorised: a discrete Laplace proposal of
    scale ``t = floor(sigma) + 1`` accepted with probability ``exp(-(|y| - sigma**2/t)**2 / (2 sigma**2))``."""
    t = math.floor(sigma) + 1
    success = -math.expm1(-1.0 / t)
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        batch = max(16, int(1.6 * (size - filled)))
        proposal = rng.geometric(success, batch) - rng.geometric(success, batch)
        accept = rng.random(batch) < np.exp(-((np.abs(proposal) - sigma**2 / t) ** 2) / (2 * sigma**2))
        kept = proposal[accept][: size - filled]
        out[filled : filled + kept.size] = kept
        filled += kept.size
    return out


def secure_generator() -> np.random.Generator:
    """A numpy ``Generator`` over ChaCha20 (``randomgen``, 20 rounds), keyed with 256 bits from ``secrets``.

    The key is set directly (not mixed through a seed sequence), so all 256 bits are used.
    """
    from randomgen import ChaCha

    return np.random.Generator(ChaCha(key=secrets.randbits(256), rounds=20))


def stream_key(rng: np.random.Generator) -> np.ndarray:
    """256 bits for :func:`chunk_generator`, drawn from a release's generator (ChaCha20 for a real
    release, so the key is as secret as the release's other draws)."""
    return rng.integers(0, 2**64, size=4, dtype=np.uint64)


def chunk_generator(key: np.ndarray, index: int, *, secure: bool = False) -> np.random.Generator:
    """Stream ``index`` of a release: AES-128 in counter mode (randomgen's ``AESCounter``) under the first
    128 bits of ``key``, its 128-bit counter from ``index * 2**64``: streams never overlap (each uses far
    fewer than 2**64 blocks) and any worker can draw any stream, in any order.

    Secure: AES under a uniformly random secret key is a pseudorandom permutation, so its counter-mode
    output cannot be told from uniform bits without the key (up to the birthday bound, 2**64 blocks);
    the key is drawn from the release's generator (ChaCha20 keyed by the OS). With AES-NI it draws the
    rows twice as fast as ChaCha20; without, randomgen's portable AES reads tables whose timing another
    process could observe, so a secure stream is ChaCha20 (20 rounds) under all 256 bits. Seeded: AES."""
    from randomgen import AESCounter, ChaCha

    if not 0 <= int(index) < 2**64:
        raise ValueError(f"stream index ({index}) must be in [0, 2**64)")
    key = np.asarray(key, dtype=np.uint64)
    if secure and not AESCounter(key=0).use_aesni:
        return np.random.Generator(ChaCha(key=key, counter=int(index) << 64, rounds=20))
    return np.random.Generator(AESCounter(key=key[:2], counter=int(index) << 64))


def make_noise_source(random_state=None) -> NoiseSource:
    """Turn a ``random_state`` argument into a :class:`NoiseSource`.

    ``None`` gives the secure source; an int or a ``numpy.random.Generator`` gives a seeded
    one; a ``NoiseSource`` is returned as it is.
    """
    if isinstance(random_state, NoiseSource):
        return random_state
    if random_state is None:
        return NoiseSource(secure=True, rng=secure_generator())
    if isinstance(random_state, np.random.Generator):
        return NoiseSource(secure=False, rng=random_state)
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return NoiseSource(secure=False, rng=np.random.default_rng(int(random_state)))
    raise TypeError(f"random_state ({random_state!r}) must be None, an int or a numpy Generator")


# --- the discrete Laplace distribution, for thresholds ---------------------------------


def discrete_laplace_alpha(epsilon: float) -> float:
    """``a = exp(-epsilon)``: the ratio of successive probabilities of scale ``1/epsilon``."""
    return math.exp(-epsilon)


def discrete_laplace_std(epsilon: float) -> float:
    """Standard deviation of discrete Laplace noise of scale ``1/epsilon``: ``sqrt(2a) / (1 - a)``."""
    alpha = discrete_laplace_alpha(epsilon)
    return math.sqrt(2 * alpha) / (1 - alpha)


def discrete_laplace_pmf(value: int, epsilon: float) -> float:
    """``P(Z = value)`` for discrete Laplace of scale ``1/epsilon``."""
    alpha = discrete_laplace_alpha(epsilon)
    return (1 - alpha) / (1 + alpha) * alpha ** abs(value)


def discrete_laplace_survival(value: int, epsilon: float) -> float:
    """``P(Z >= value)`` for discrete Laplace of scale ``1/epsilon`` (exact, no cancellation)."""
    alpha = discrete_laplace_alpha(epsilon)
    if value >= 1:
        return alpha**value / (1 + alpha)
    return 1.0 - alpha ** (1 - value) / (1 + alpha)


def typical_bin_error(epsilon: float) -> float:
    """Mean absolute discrete Laplace noise of scale 1/epsilon: ``2a / (1 - a**2)``."""
    alpha = discrete_laplace_alpha(epsilon)
    return 2 * alpha / (1 - alpha**2)


# --- private selection and posterior draws ---------------------------------------------


@lru_cache(maxsize=64)
def _opendp_noisy_max(scale: float):
    from opendp.domains import atom_domain, vector_domain
    from opendp.measurements import make_noisy_max
    from opendp.measures import max_divergence
    from opendp.metrics import linf_distance
    from opendp.mod import enable_features

    enable_features("contrib")
    return make_noisy_max(
        vector_domain(atom_domain(T=float, nan=False)), linf_distance(T=float), max_divergence(), scale=float(scale)
    )


def report_noisy_max(source: NoiseSource, scores, epsilon: float, sensitivity: float = 1.0) -> int:
    """Index of the highest score plus exponential noise (the exponential mechanism).

    ``epsilon``-DP when every score changes by at most ``sensitivity`` between
    neighbours (not necessarily monotonically): noise scale ``2 * sensitivity / epsilon``
    (McKenna and Sheldon 2020, permute-and-flip). Secure source: OpenDP's exact sampler.
    """
    scores = np.asarray(scores, dtype=float)
    scale = 2.0 * sensitivity / epsilon
    source.log.append(("noisy max", scale / sensitivity, int(scores.size)))  # epsilon = 2 / logged scale
    if source.secure:
        return int(_opendp_noisy_max(scale)(scores))  # float64: OpenDP takes the array as it is
    return int(np.argmax(scores + source.rng.exponential(scale, scores.size)))


@lru_cache(maxsize=64)
def _opendp_gumbel_max(scale: float):
    from opendp.domains import atom_domain, vector_domain
    from opendp.measurements import make_noisy_max
    from opendp.measures import zero_concentrated_divergence
    from opendp.metrics import linf_distance
    from opendp.mod import enable_features

    enable_features("contrib")
    return make_noisy_max(
        vector_domain(atom_domain(T=float, nan=False)),
        linf_distance(T=float),
        zero_concentrated_divergence(),
        scale=float(scale),
    )


def exponential_mechanism_zcdp(
    source: NoiseSource, scores, rho: float, sensitivity: float = 1.0, label: str = "noisy max (zCDP)"
) -> int:
    """Index chosen by the exponential mechanism, ``P(i)`` proportional to ``exp(eps * score_i / (2 sensitivity))``.

    Report noisy max with Gumbel noise of scale ``2 * sensitivity / eps`` is exactly this
    mechanism, which is ``eps**2 / 8``-zCDP (bounded range; Cesar and Rogers 2021), so
    ``eps = sqrt(8 rho)``. Scores may move in either direction between neighbours by at most
    ``sensitivity``. Secure source: OpenDP's exact sampler.
    """
    scores = np.asarray(scores, dtype=float)
    epsilon = math.sqrt(8.0 * rho)
    scale = 2.0 * sensitivity / epsilon
    source.zcdp_log.append((label, float(rho), int(scores.size)))
    if source.secure:
        return int(_opendp_gumbel_max(scale)(scores))  # float64: OpenDP takes the array as it is
    return int(np.argmax(scores + source.rng.gumbel(0.0, scale, scores.size)))


def dirichlet(source: NoiseSource, concentration) -> np.ndarray:
    """One draw from Dirichlet(concentration): the posterior draw of Hu's synthesizer.

    Drawn with numpy's floating-point sampler over the source's generator (ChaCha20 in
    real releases); no vetted exact sampler exists, and the release card says so.
    """
    return source.rng.dirichlet(np.asarray(concentration, dtype=float))


@lru_cache(maxsize=64)
def _opendp_float_laplace(scale: float):
    from opendp.domains import atom_domain, vector_domain
    from opendp.measurements import make_laplace
    from opendp.metrics import l1_distance
    from opendp.mod import enable_features

    enable_features("contrib")
    return make_laplace(vector_domain(atom_domain(T=float, nan=False)), l1_distance(T=float), scale=float(scale))


def real_laplace(source: NoiseSource, values, scale: float, label: str = "") -> np.ndarray:
    """Real values plus Laplace noise of ``scale`` (for statistics that are not counts).

    Secure source: OpenDP's float Laplace, which samples on a lattice and charges the
    rounding, so no floating-point gaps leak (Mironov 2012). Seeded source: numpy.
    """
    values = np.asarray(values, dtype=float)
    source.log.append((label, float(scale), int(values.size)))
    if source.secure:
        return np.asarray(_opendp_float_laplace(float(scale))(values.tolist()), dtype=float)
    return values + source.rng.laplace(0.0, scale, values.size)
