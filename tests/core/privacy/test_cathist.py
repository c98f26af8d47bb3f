"""CatHist: reference values, numerics, the law of made-up values, and privacy audits."""

from __future__ import annotations

import decimal
import math

import numpy as np
import pytest
from scipy import stats

from dpsynth_core.privacy import cathist as ch
from dpsynth_core.privacy.noise import discrete_laplace_pmf, discrete_laplace_survival, make_noise_source
from tests.audit import HalfNoise, audit, clopper_pearson

# --- reference values (DESIGN.md section 3) ------------------------------------------------


def test_tau_reference_english_words():
    # tau = -ln(2p)/eps with p = -expm1(ln(rho)/n): n = 1.71e5, rho = 0.9, eps = 1.
    assert ch.cathist_tau(171_000, 0.9, 1.0) == pytest.approx(13.6066, abs=5e-5)
    # expected made-up values (n - 0) p -> -ln(0.9) = 0.1054
    assert ch.expected_made_up(171_000, 0.9) == pytest.approx(0.105, abs=5e-4)


def test_tau_reference_word_pairs():
    assert ch.cathist_tau(29_400_000_000, 0.9, 1.0) == pytest.approx(25.6615, abs=5e-5)


@pytest.mark.parametrize("n", [10**3, 10**6, 10**10, 10**12, 10**15, 10**30])
def test_inclusion_probability_is_stable_for_huge_domains(n):
    p = ch.inclusion_probability(n, 0.9)
    assert p > 0  # plain 1 - rho**(1/n) is 0 in floating point for n >= 1e16
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        exact = 1 - decimal.Decimal("0.9") ** (decimal.Decimal(1) / decimal.Decimal(n))
    assert p == pytest.approx(float(exact), rel=1e-12)


def test_negative_tau_for_small_domain_and_small_rho():
    # n = 3, rho = 0.1: p = 1 - 0.1**(1/3) = 0.536 > 1/2, so tau = ln(2(1-p))/eps < 0.
    p = 1 - 0.1 ** (1 / 3)
    assert ch.cathist_tau(3, 0.1, 0.5) == pytest.approx(math.log(2 * (1 - p)) / 0.5)
    assert ch.cathist_tau(3, 0.1, 0.5) < 0


@pytest.mark.parametrize(
    "n,rho,eps", [(171_000, 0.9, 1.0), (10**15, 0.5, 0.1), (3, 0.1, 0.5), (2, 0.01, 2.0), (1000, 0.3, 0.01)]
)
def test_discrete_threshold_hits_p_exactly(n, rho, eps):
    rule = ch.threshold(n, rho, eps)
    kept_if_empty = discrete_laplace_survival(rule.cut + 1, eps) + rule.tie_keep * discrete_laplace_pmf(rule.cut, eps)
    assert kept_if_empty == pytest.approx(ch.inclusion_probability(n, rho), rel=1e-9)
    assert 0 <= rule.tie_keep <= 1
    assert rule.keep_probability(0) == pytest.approx(rule.p, rel=1e-9)


def test_discrete_threshold_is_close_to_continuous_tau():
    for n in (10**3, 10**6, 10**10):
        rule = ch.threshold(n, 0.9, 0.5)
        assert abs(rule.cut - ch.cathist_tau(n, 0.9, 0.5)) < 1.5


def test_rejects_bad_parameters():
    with pytest.raises(ValueError, match="rho"):
        ch.cathist_tau(10, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        ch.cathist_tau(10, 0.5, 0.0)
    with pytest.raises(ValueError, match="domain size"):
        ch.cathist_tau(0, 0.5, 1.0)


# --- the mechanism ---------------------------------------------------------------------


def _run(counts: dict, n: int, rho: float, eps: float, seed, drawer=None):
    noise = make_noise_source(seed)
    return ch.cathist(
        list(counts),
        list(counts.values()),
        n,
        epsilon=eps,
        rho=rho,
        draw_inactive=drawer or ch.draw_from_range(n),
        noise=noise,
    )


def test_made_up_count_follows_binomial():
    n, rho, eps = 2_000, 0.05, 1.0
    active = {0: 500, 1: 40, 2: 3}
    p = ch.inclusion_probability(n, rho)
    made_up = np.array([_run(active, n, rho, eps, seed).n_made_up for seed in range(3000)])
    expected = stats.binom(n - len(active), p)
    # Mean within a 99.9% normal bound of the binomial mean.
    se = math.sqrt(expected.var() / len(made_up))
    assert abs(made_up.mean() - expected.mean()) < 3.3 * se
    # Whole law: chi-square goodness of fit on 0..5, 6+.
    observed = np.bincount(np.minimum(made_up, 6), minlength=7)
    probs = np.append(expected.pmf(np.arange(6)), expected.sf(5))
    assert stats.chisquare(observed, probs * len(made_up)).pvalue > 1e-3


def test_rho_is_share_of_releases_without_made_up_values():
    n, rho, eps = 10**12, 0.7, 1.0
    active = {"a": 100, "b": 20}
    from dpsynth_core.domain import TextDomain

    domain = TextDomain(name="w", generator="letters", max_length=9)
    n = domain.size
    runs = [_run(active, n, rho, eps, seed, ch.draw_from_generator(domain)) for seed in range(4000)]
    clean = sum(r.n_made_up == 0 for r in runs)
    low, high = clopper_pearson(clean, len(runs), 0.999)
    exact = rho ** ((n - len(active)) / n)
    assert low <= exact <= high
    made = [k for r in runs for k, m in zip(r.keys, r.made_up) if m]
    assert made and all(k not in active and 1 <= len(k) <= 9 and k.isalpha() for k in made)


def test_made_up_values_are_distinct_and_outside_active_domain():
    active = {i: 5 for i in range(0, 40, 2)}
    for seed in range(200):
        r = _run(active, 50, 0.01, 0.3, seed)
        made = [k for k, m in zip(r.keys, r.made_up) if m]
        assert len(set(made)) == len(made)
        assert not set(made) & set(active)
        assert all(0 <= k < 50 for k in made)


def test_made_up_weights_follow_noise_given_kept():
    # Made-up weights must have the law of an empty bin's noisy count given that it was kept.
    eps, n, rho = 0.7, 10**6, 0.2
    rule = ch.threshold(n, rho, eps)
    source = make_noise_source(3)
    weights = ch._kept_noise(rule, 200_000, source)
    assert weights.min() >= rule.cut
    for offset in range(4):
        value = rule.cut + offset
        mass = discrete_laplace_pmf(value, eps) * (rule.tie_keep if offset == 0 else 1)
        assert np.mean(weights == value) == pytest.approx(mass / rule.p, abs=4e-3)


def test_made_up_weights_for_negative_cut():
    eps, n, rho = 1.0, 2, 0.01
    rule = ch.threshold(n, rho, eps)
    assert rule.cut < 0
    weights = ch._kept_noise(rule, 200_000, make_noise_source(5))
    for value in range(rule.cut, 3):
        mass = discrete_laplace_pmf(value, eps) * (rule.tie_keep if value == rule.cut else 1)
        assert np.mean(weights == value) == pytest.approx(mass / rule.p, abs=4e-3)


def test_time_does_not_grow_with_domain_size():
    # O(|active| + k): a 10**15 domain runs as a 10**3 one (no per-bin work).
    for n in (10**3, 10**15):
        r = _run({3: 10}, n, 0.9, 1.0, 0, ch.draw_from_range(n))
        assert r.counts.dtype == np.int64


def test_results_follow_the_public_order_not_frequency_nor_made_up_last():
    # Keys given in frequency order; made-up values fall anywhere: the result lists both by position.
    active = {7: 500, 2: 90, 40: 60, 11: 30}
    seen_made_up_first = False
    for seed in range(300):
        r = _run(active, 50, 0.01, 2.0, seed)
        assert r.keys == sorted(r.keys)
        flags = dict(zip(r.keys, r.made_up))
        assert all(not flags[k] for k in active if k in flags)
        seen_made_up_first |= bool(r.made_up[0])
    assert seen_made_up_first  # a made-up value can come before the real ones


def test_text_results_follow_the_domains_enumeration_with_missing_last():
    from dpsynth_core.domain import TextDomain

    domain = TextDomain(name="w", generator="english_word")
    enumeration = ch.draw_from_generator(domain, with_missing=True)
    active = {None: 40, "zebra": 300, "apple": 120, "mango": 200}
    r = _run(active, domain.size + 1, 0.9, 1.0, 0, enumeration)
    assert r.keys[-1] is None and r.keys[:3] == ["apple", "mango", "zebra"]
    assert [enumeration.index_of(k) for k in r.keys] == sorted(enumeration.index_of(k) for k in r.keys)
    assert enumeration.index_of(None) == domain.size and enumeration.key_at(domain.size) is None


def test_released_counts_are_integers():
    r = _run({0: 30, 1: 4}, 100, 0.5, 1.0, 1)
    assert r.counts.dtype == np.int64


# --- fidelity ---------------------------------------------------------------------------


def test_fidelity_hand_computed():
    true = {"a": 6, "b": 3, "c": 1}
    assert ch.fidelity(true, {"a": 5, "b": 4, "c": 1}) == 1.0
    assert ch.fidelity(true, {"x": 10}) == 0.0
    # keeps a and b: true mass 0.9; release mass on true values 9 / 12 = 0.75 (z is made up)
    assert ch.fidelity(true, {"a": 5, "b": 4, "z": 3}) == pytest.approx(0.9 * 0.75)


# --- privacy audits ----------------------------------------------------------------------

_N, _RHO, _EPS = 6, 0.5, 0.5


def _release_events(target):
    return {
        f"{target} kept": lambda r: target in r.keys,
        f"{target} kept with count >= 2": lambda r: any(k == target and c >= 2 for k, c in zip(r.keys, r.counts)),
        f"{target} kept with count >= 4": lambda r: any(k == target and c >= 4 for k, c in zip(r.keys, r.counts)),
        "3 or more values": lambda r: len(r.keys) >= 3,
    }


class _NoMadeUp(ch.Enumeration):
    """Broken: never draws made-up values (the output holds only values present)."""

    def __call__(self, k, excluded, noise):
        return []


def _mechanism(data, seed, broken=None):
    noise = make_noise_source(seed)
    if broken == "half noise":
        noise = HalfNoise(secure=False, rng=noise.rng)
    counts = {k: v for k, v in data.items() if v > 0}
    draw = _NoMadeUp(_N, int, int) if broken == "active only" else ch.draw_from_range(_N)
    return ch.cathist(list(counts), list(counts.values()), _N, epsilon=_EPS, rho=_RHO, draw_inactive=draw, noise=noise)


# D' adds one record of a category that D does not have (checklist item 2).
_D = {0: 30, 1: 8}
_D_NEW_CATEGORY = {0: 30, 1: 8, 4: 1}
# D' adds one record to an existing sparse cell.
_D_SPARSE = {0: 30, 1: 9}


@pytest.mark.parametrize("pair", [(_D, _D_NEW_CATEGORY, 4), (_D, _D_SPARSE, 1)])
def test_audit_cathist_passes(pair):
    d, d_prime, target = pair
    result = audit(_mechanism, d, d_prime, _release_events(target), trials=6000, seed=1)
    assert not result.violates(_EPS), result


def test_audit_catches_active_domain_only_variant():
    result = audit(
        lambda d, s: _mechanism(d, s, "active only"), _D, _D_NEW_CATEGORY, _release_events(4), trials=3000, seed=2
    )
    assert result.violates(_EPS) and result.epsilon_lower_bound > 2 * _EPS, result


def test_audit_catches_half_noise_variant():
    result = audit(
        lambda d, s: _mechanism(d, s, "half noise"),
        _D,
        _D_SPARSE,
        _release_events(1) | {"1 count >= 9": lambda r: any(k == 1 and c >= 9 for k, c in zip(r.keys, r.counts))},
        trials=6000,
        seed=3,
    )
    assert result.violates(_EPS), result


def test_audit_catches_swapped_rate_in_made_up_weights(monkeypatch):
    # Checklist 11: made-up weights drawn with scale and rate swapped (a = e^-(1/eps)).
    real = ch._kept_noise

    def swapped(rule, size, noise):
        wrong = ch.Threshold(epsilon=1 / rule.epsilon, cut=rule.cut, tie_keep=rule.tie_keep, p=rule.p)
        return real(wrong, size, noise)

    monkeypatch.setattr(ch, "_kept_noise", swapped)
    events = {
        f"4 kept with count >= {t}": (lambda t: lambda r: any(k == 4 and c >= t for k, c in zip(r.keys, r.counts)))(t)
        for t in (3, 4, 5)
    }
    result = audit(_mechanism, _D, _D_NEW_CATEGORY, events, trials=8000, seed=4)
    assert result.violates(_EPS), result


def test_audit_with_secure_opendp_sampler():
    def secure(data, seed):
        return _mechanism(data, None)  # no seed: the secure source, whatever the audit's seed

    result = audit(secure, _D, _D_NEW_CATEGORY, _release_events(4), trials=2000, seed=5)
    assert not result.violates(_EPS), result


def test_the_count_said_to_come_out_half_the_time_does_so_in_cathist():
    """The cards' "a value needs about K records to come out half the time" (:meth:`Threshold.smallest_count_kept`):
    CatHist keeps a value of K records at least half the time and one of K - 1 less than half, each rate within
    3.3 standard errors (1,500 releases) of the exact keep probability."""
    n, rho, eps, runs = 2_000, 0.9, 0.3, 1_500
    rule = ch.threshold(n, rho, eps)
    kept = rule.smallest_count_kept(0.5)
    assert rule.keep_probability(kept) >= 0.5 > rule.keep_probability(kept - 1)
    for count in (kept, kept - 1):
        rate = np.mean([0 in _run({0: count}, n, rho, eps, seed).keys for seed in range(runs)])
        p = rule.keep_probability(count)
        assert abs(rate - p) < 3.3 * math.sqrt(p * (1 - p) / runs), (count, rate, p)
