"""Noise sources: the law of discrete Laplace, integer outputs, secure vs seeded."""

import math

import numpy as np
import pytest
from scipy import stats

from dpsynth_core.privacy.noise import NoiseSource, discrete_laplace_pmf, discrete_laplace_survival, make_noise_source


@pytest.mark.parametrize("secure", [False, True])
def test_discrete_laplace_law(secure):
    """Chi-square of 40,000 secure (unseedable) or 200,000 seeded draws against the law at scale 2. The secure draw
    differs each run, so the test fails by chance with its threshold's probability: 1e-7 (1e-3 failed one run in a
    thousand, as one did); a sampler whose epsilon is 5% off (0.475 for 0.5) still fails with probability 0.9997
    (noncentrality 109 on 13 degrees of freedom)."""
    source = make_noise_source(None if secure else 7)
    draws = source.discrete_laplace(40_000 if secure else 200_000, 2.0)
    assert draws.dtype == np.int64
    eps = 0.5
    values = np.arange(-6, 7)
    observed = np.array([(draws == v).sum() for v in values] + [(np.abs(draws) > 6).sum()])
    probs = np.array([discrete_laplace_pmf(int(v), eps) for v in values])
    probs = np.append(probs, 1 - probs.sum())
    assert stats.chisquare(observed, probs * len(draws)).pvalue > 1e-7


def test_survival_and_pmf_agree():
    eps = 0.8
    for m in range(-5, 6):
        tail = sum(discrete_laplace_pmf(v, eps) for v in range(m, 200))
        assert discrete_laplace_survival(m, eps) == pytest.approx(tail, rel=1e-9)


def test_seeded_runs_repeat_and_secure_runs_differ():
    a = make_noise_source(11).discrete_laplace(50, 1.0)
    b = make_noise_source(11).discrete_laplace(50, 1.0)
    assert np.array_equal(a, b)
    c = make_noise_source(None).discrete_laplace(50, 1.0)
    d = make_noise_source(None).discrete_laplace(50, 1.0)
    assert not np.array_equal(c, d)


def test_source_describes_itself_without_seed():
    assert "OpenDP" in make_noise_source(None).describe()
    text = make_noise_source(123456).describe()
    assert "123456" not in text and "not for real releases" in text


def test_log_records_every_draw():
    source = make_noise_source(1)
    source.discrete_laplace(3, 2.0, label="x")
    source.discrete_laplace(5, 4.0, label="y")
    assert source.log == [("x", 2.0, 3), ("y", 4.0, 5)]


def test_binomial_huge_trials_and_uniform_indices_beyond_int64():
    source = make_noise_source(2)
    n = 10**30
    p = -math.expm1(math.log(0.5) / n)
    draws = [source.binomial(n, p) for _ in range(4000)]
    assert np.mean(draws) == pytest.approx(math.log(2), abs=0.05)
    idx = source.uniform_indices(n, 2000)
    assert all(0 <= i < n for i in idx)
    assert max(idx) > n // 2 > min(idx)  # spans the range


def test_rejects_bad_random_state():
    with pytest.raises(TypeError):
        make_noise_source("seed")
    assert isinstance(make_noise_source(np.random.default_rng(1)), NoiseSource)


def test_seeded_discrete_gaussian_has_the_exact_law():
    import numpy as np

    from dpsynth_core.privacy.noise import make_noise_source

    source = make_noise_source(7)
    for sigma in (0.7, 4.0):
        draws = source.discrete_gaussian(100_000, sigma, label="g")
        support = np.arange(-int(10 * sigma) - 2, int(10 * sigma) + 3)
        pmf = np.exp(-(support**2) / (2 * sigma**2))
        pmf /= pmf.sum()
        observed = np.array([(draws == v).mean() for v in support])
        # total variation of an empirical pmf from 1e5 draws: well below 0.02 for these supports
        assert 0.5 * np.abs(observed - pmf).sum() < 0.02
        assert draws.dtype == np.int64
    assert source.zcdp_log[0] == ("g", 1 / (2 * 0.7**2), 100_000)


def test_secure_discrete_gaussian_and_zcdp_selection():
    import numpy as np

    from dpsynth_core.privacy.noise import exponential_mechanism_zcdp, make_noise_source

    secure = make_noise_source(None)
    draws = secure.discrete_gaussian(50, 3.0)
    assert draws.dtype == np.int64 and np.abs(draws).max() < 30
    assert exponential_mechanism_zcdp(secure, [0.0, 100.0, 0.0], 0.5) == 1
    seeded = make_noise_source(1)
    # P(i) proportional to exp(eps * score / 2) with eps = sqrt(8 rho) = 2: exp(0), exp(2)
    picks = [exponential_mechanism_zcdp(seeded, [0.0, 2.0], 0.5) for _ in range(4000)]
    expected = np.exp(2.0) / (1 + np.exp(2.0))
    assert abs(np.mean(picks) - expected) < 4 * np.sqrt(expected * (1 - expected) / 4000)


# --- the secure path: every helper draw from a cryptographic bit generator (issue 8 item 5) ---


def test_secure_helper_draws_come_from_chacha20_keyed_from_the_os():
    from randomgen import ChaCha

    a, b = make_noise_source(None), make_noise_source(None)
    for source in (a, b):
        assert isinstance(source.rng, np.random.Generator)
        assert isinstance(source.rng.bit_generator, ChaCha)
        assert source.rng.bit_generator.state["state"]["rounds"] == 20
    assert (
        a.rng.bit_generator.state["state"]["keysetup"].tolist()
        != b.rng.bit_generator.state["state"]["keysetup"].tolist()
    )
    assert not np.array_equal(a.rng.integers(0, 2**62, 8), b.rng.integers(0, 2**62, 8))
    text = a.describe()
    assert "ChaCha20" in text and "OpenDP" in text and "PCG64" not in text


def test_secure_generator_draws_what_numpy_promises():
    # The Generator API is unchanged on top of ChaCha: uniforms, integers, choice, Dirichlet.
    rng = make_noise_source(None).rng
    u = rng.random(100_000)
    assert stats.kstest(u, "uniform").pvalue > 1e-7  # unseedable: a false failure once in ten million runs
    picks = rng.choice(3, size=60_000, p=[0.5, 0.3, 0.2])
    assert stats.chisquare(np.bincount(picks), [30_000, 18_000, 12_000]).pvalue > 1e-7
    assert rng.dirichlet([1.0, 2.0, 3.0]).sum() == pytest.approx(1.0)


def test_only_the_noise_module_makes_generators_for_releases():
    # Every draw of a release goes through NoiseSource.rng; metrics (publisher-only) may seed their own.
    import re

    from tests.conftest import ROOT

    # Making a generator (checking that an argument is one is fine).
    pattern = re.compile(r"default_rng\(|(np|numpy)\.random\.\w+\(|RandomState|import random\b|PCG64|secrets\.")
    # Not release randomness: publisher-only figures (metrics, the empirical risk) and the teaching demos on the
    # bundled example may make their own generators; review tokens, password salts and the workspace's key come
    # from secrets, as secrets should.
    allowed = {"noise.py", "metrics.py", "risk.py", "teaching.py", "access.py", "database.py"}
    offenders = [
        p.name for p in (ROOT / "dpsynth_core").rglob("*.py") if p.name not in allowed and pattern.search(p.read_text())
    ]
    assert offenders == []


# --- secure discrete Gaussian noise drawn ahead, on another thread ----------------------------


def _numbered_sampler(monkeypatch):
    """Replace OpenDP's sampler by one that hands out 0, 1, 2, ... (and the scale it was asked for),
    so every value can be traced to the draw that made it."""
    import itertools

    from dpsynth_core.privacy import noise

    counter = itertools.count()
    made = []

    def sampler(size, sigma):
        values = np.array([next(counter) for _ in range(size)], dtype=np.int64)
        made.append((sigma, values))
        return values

    monkeypatch.setattr(noise, "_secure_discrete_gaussian", sampler)
    return made


def _settled(source):
    for part in source._ahead:
        part.result(timeout=30)


def test_noise_drawn_ahead_is_used_once_in_order_and_dropped_when_the_scale_changes(monkeypatch):
    made = _numbered_sampler(monkeypatch)
    source = make_noise_source(None)
    source.reserve_gaussian(2.0, 10)
    _settled(source)
    first = source.discrete_gaussian(4, 2.0)
    second = source.discrete_gaussian(4, 2.0)
    source.reserve_gaussian(2.0, 10)  # 2 left: 8 more are drawn ahead
    _settled(source)
    third = source.discrete_gaussian(12, 2.0)  # the 10 ahead, then 2 drawn at the call
    assert first.tolist() == [0, 1, 2, 3] and second.tolist() == [4, 5, 6, 7]
    assert third.tolist() == list(range(8, 20))
    assert [len(values) for _, values in made] == [10, 8, 2]
    source.reserve_gaussian(2.0, 5)
    _settled(source)
    source.reserve_gaussian(3.0, 1)  # a new scale drops the values of the old one, unseen
    _settled(source)
    assert source.discrete_gaussian(1, 3.0).tolist() == [25]
    assert source.discrete_gaussian(3, 2.0).tolist() == [26, 27, 28]  # drawn at the call, not the dropped ones
    everything = np.concatenate([first, second, third])
    assert len(set(everything.tolist())) == everything.size  # no value twice
    assert [entry[2] for entry in source.zcdp_log] == [4, 4, 12, 1, 3]  # the log counts what was used


def test_noise_not_yet_drawn_is_drawn_at_the_call_and_the_seeded_source_draws_nothing_ahead(monkeypatch):
    import threading

    from dpsynth_core.privacy import noise

    gate = threading.Event()
    calls = []

    def slow(size, sigma):
        if threading.current_thread().name.startswith("dpsynth-noise"):
            gate.wait(30)
        calls.append((threading.current_thread().name, size))
        return np.full(size, 7 if threading.current_thread().name.startswith("dpsynth-noise") else 1)

    monkeypatch.setattr(noise, "_secure_discrete_gaussian", slow)
    source = make_noise_source(None)
    source.reserve_gaussian(2.0, 5)
    assert source.discrete_gaussian(3, 2.0).tolist() == [1, 1, 1]  # not ready: the caller does not wait
    gate.set()
    _settled(source)
    assert source.discrete_gaussian(5, 2.0).tolist() == [7] * 5  # then the values drawn ahead
    seeded = make_noise_source(5)
    seeded.reserve_gaussian(2.0, 100)
    assert not seeded._ahead
    assert seeded.discrete_gaussian(6, 2.0).tolist() == make_noise_source(5).discrete_gaussian(6, 2.0).tolist()


def test_secure_noise_drawn_ahead_has_the_discrete_gaussian_law():
    source = make_noise_source(None)
    sigma, draws = 1.5, []
    for _ in range(40):
        source.reserve_gaussian(sigma, 500)
        _settled(source)
        draws.append(source.discrete_gaussian(500, sigma))
    draws = np.concatenate(draws)
    support = np.arange(-12, 13)
    pmf = np.exp(-(support**2) / (2 * sigma**2))
    pmf /= pmf.sum()
    counts = np.array([(draws == v).sum() for v in support])
    keep = pmf * draws.size >= 5  # chi-square over the cells with enough expected draws
    expected = pmf[keep] * draws.size
    statistic = (((counts[keep] - expected) ** 2) / expected).sum()
    assert statistic < stats.chi2.ppf(1 - 1e-6, keep.sum() - 1)


def test_a_source_with_noise_drawn_ahead_pickles_without_it():
    import pickle

    source = make_noise_source(None)
    source.reserve_gaussian(2.0, 50)
    _settled(source)
    again = pickle.loads(pickle.dumps(source))  # as a chunk sampler sent to Spark's executors carries it
    assert again.secure and not again._ahead and again._ahead_sigma is None
    assert source._ahead and source._ahead_sigma == 2.0  # the original keeps its values
    assert again.discrete_gaussian(5, 2.0).shape == (5,)


def test_chunk_streams_are_aes_counter_mode_under_the_key_and_never_overlap(monkeypatch):
    """AES-128 in counter mode under the key's first 128 bits (set directly), stream ``i`` from counter
    ``i * 2**64``; a secure stream without AES-NI is ChaCha20 under all 256 bits, the same layout."""
    from randomgen import AESCounter, ChaCha

    from dpsynth_core.privacy.noise import chunk_generator, stream_key

    key = stream_key(make_noise_source(None).rng)
    assert key.dtype == np.uint64 and key.shape == (4,)
    for secure in (False, True):
        first = chunk_generator(key, 1, secure=secure)
        state = first.bit_generator.state["s"]
        assert isinstance(first.bit_generator, AESCounter) and AESCounter(key=0).use_aesni
        assert state["seed"][:2].tolist() == key[:2].tolist()  # the key is set directly, 128 bits
        assert state["counter"][:2].tolist() == [0, 1]  # stream 1 starts 2**64 blocks on
        zeroth = chunk_generator(key, 0, secure=secure).integers(0, 2**63, 64)
        assert not np.array_equal(zeroth, first.integers(0, 2**63, 64))
    # AES-128 is AES-128: the first block under key 0 and counter 0 is FIPS-197's known answer
    # (66e94bd4ef8a2c3b884cfa59ca342b2e), read as two little-endian 64-bit words
    block = np.random.Generator(AESCounter(key=0)).bit_generator.random_raw(2)
    assert bytes(block.astype("<u8").tobytes()).hex() == "66e94bd4ef8a2c3b884cfa59ca342b2e"
    with pytest.raises(ValueError):
        chunk_generator(key, 2**64)

    class NoAesNi(AESCounter):
        use_aesni = False

    monkeypatch.setattr("randomgen.AESCounter", NoAesNi)
    portable = chunk_generator(key, 1, secure=True)
    state = portable.bit_generator.state["state"]
    assert isinstance(portable.bit_generator, ChaCha) and state["rounds"] == 20
    assert state["keysetup"].view(np.uint64).tolist() == key.tolist() and state["ctr"].tolist() == [0, 1]
    assert isinstance(chunk_generator(key, 1).bit_generator, AESCounter)  # seeded: AES everywhere
