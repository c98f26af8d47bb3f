"""Empirical privacy audits: run a mechanism many times on two neighbouring datasets and
bound the ratio of event probabilities with Clopper-Pearson intervals (StatDP style).

A pass covers only the datasets and events tried; it is not a proof. Every audit in the
suite is paired with a deliberately broken variant that the same audit must catch, so an
audit that cannot fail would show up as a failing test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import beta

from dpsynth_core.privacy.noise import NoiseSource


def clopper_pearson(successes: int, trials: int, confidence: float = 0.999) -> tuple[float, float]:
    """Two-sided Clopper-Pearson interval for a binomial proportion."""
    tail = (1 - confidence) / 2
    low = 0.0 if successes == 0 else float(beta.ppf(tail, successes, trials - successes + 1))
    high = 1.0 if successes == trials else float(beta.ppf(1 - tail, successes + 1, trials - successes))
    return low, high


@dataclass
class AuditResult:
    """The largest lower confidence bound on ``ln(P[E|D] / P[E|D'])`` over events and directions."""

    epsilon_lower_bound: float
    worst_event: str

    def violates(self, epsilon: float) -> bool:
        return self.epsilon_lower_bound > epsilon


def audit(
    run, data_a, data_b, events: dict, trials: int, seed: int = 0, confidence: float = 0.999, delta: float = 0.0
) -> AuditResult:
    """Run ``run(data, rng_seed)`` ``trials`` times on each dataset and test every event.

    ``events`` maps a name to a predicate on the mechanism's output. The returned bound is
    a lower confidence bound on the privacy loss: a correct epsilon-DP mechanism gives a
    value <= epsilon except with probability about ``1 - confidence`` per event. With
    ``delta``, the bound is on ``ln((P[E|D] - delta) / P[E|D'])``, so an (epsilon, delta)-DP
    mechanism gives a value <= epsilon.
    """
    hits = {name: [0, 0] for name in events}
    for side, data in enumerate((data_a, data_b)):
        for trial in range(trials):
            output = run(data, seed * 1_000_003 + side * 10_000_019 + trial)
            for name, event in events.items():
                if event(output):
                    hits[name][side] += 1
    best, worst = -math.inf, ""
    for name, (a, b) in hits.items():
        a_low, a_high = clopper_pearson(a, trials, confidence)
        b_low, b_high = clopper_pearson(b, trials, confidence)
        for low, high, label in ((a_low, b_high, f"{name} (D vs D')"), (b_low, a_high, f"{name} (D' vs D)")):
            if low - delta > 0:
                bound = math.log((low - delta) / high)
                if bound > best:
                    best, worst = bound, label
    return AuditResult(best, worst)


class HalfNoise(NoiseSource):
    """A deliberately broken noise source: discrete Laplace at half the claimed scale."""

    def discrete_laplace(self, size, scale, label=""):
        return super().discrete_laplace(size, scale / 2, label)


class HalfGaussian(NoiseSource):
    """A deliberately broken noise source: discrete Gaussian at half the claimed scale."""

    def discrete_gaussian(self, size, sigma, label=""):
        return super().discrete_gaussian(size, sigma / 2, label)


def restore_frequency_order(monkeypatch) -> None:
    """A deliberately broken variant (the old code): text values coded in true frequency order,
    CatHist's made-up values last, so one record can re-code (and re-bucket) many values."""
    import numpy as np
    import pandas as pd

    from dpsynth_core.data.encoding import EncodedColumn
    from dpsynth_core.privacy import cathist

    def by_frequency(self, *, include_missing=True):
        series = pd.Series(self.labels, dtype=object)
        counts = series.value_counts(dropna=True)
        if include_missing and series.isna().any() and self.domain.missing:
            counts = pd.concat([counts, pd.Series([int(series.isna().sum())], index=pd.Index([None], dtype=object))])
        return counts

    monkeypatch.setattr(EncodedColumn, "label_counts", by_frequency)
    monkeypatch.setattr(cathist.Enumeration, "positions", lambda self, keys: np.arange(len(keys)))
