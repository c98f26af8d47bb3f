"""The marginals method fits its model to the adaptive columns' leaf sums too (post-processing of the bins' DP
leaf counts): its 1-ways come out nearer the truth than from its own counts alone."""

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.privacy import bin_counts as bin_counts_module
from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer, measurements
from tests.conftest import shared_path
from tests.core.privacy.test_bin_counts import PUBLISHER

SEEDS = 12


@pytest.fixture(scope="module")
def frame():
    adult = pd.read_csv(shared_path("adult.csv"), usecols=list(PUBLISHER["columns"]), skipinitialspace=True)
    return adult.sample(2000, random_state=3)


def _squared_error(frame, monkeypatch, use: bool) -> float:
    """Mean over seeds and the two adaptive integer columns of the model's 1-way squared error on its own bins
    (the same bins and noise both ways: the leaf sums are read after every count is made)."""
    monkeypatch.setattr(measurements, "LEAF_SUMS", use)
    errors = []
    for seed in range(SEEDS):
        model = MarginalsSynthesizer(epsilon=1.0, random_state=seed).fit(frame, PUBLISHER)
        for name in ("age", "hours-per-week"):
            column = model.columns_[name]
            codes = np.searchsorted(column.domain.lows, frame[name].to_numpy(), side="right") - 1  # none missing
            true = np.bincount(codes, minlength=column.cells)
            errors.append(float(np.sum((model.model_.project((name,)) - true) ** 2)))
    return float(np.mean(errors))


@pytest.fixture(scope="module")
def alone(frame):
    """The error without the sums, fitted once for both tests."""
    with pytest.MonkeyPatch.context() as patch:
        return _squared_error(frame, patch, False)


def test_pooling_the_leaf_sums_brings_the_one_ways_nearer_the_truth(frame, alone, monkeypatch):
    """Pooling two independent unbiased estimates by precision lowers the expected squared error. Here the leaf
    counts' deviation (55 records) is twice the 1-way's (26, and 16 measured again) and the rounds' pairs measure
    these columns too, so the gain is small: 3% over 24 column-releases (4,459 to 4,310), paired seed by seed."""
    pooled = _squared_error(frame, monkeypatch, True)
    assert pooled < alone


def test_leaf_sums_with_a_variance_too_small_are_caught(frame, alone, monkeypatch):
    """The broken variant: every sum weighed as if its deviation were a fifth of one leaf's, so the noisy sums
    overrule the method's counts. The error is then worse than the method's own (17,161 against 4,459)."""
    real = bin_counts_module.bin_counts

    def overconfident(column, counted):
        found = real(column, counted)
        if found is None:
            return None
        sums, variances = found
        return sums, np.where(np.isfinite(variances), np.min(counted[2]) / 25, variances)

    monkeypatch.setattr(measurements, "bin_counts", overconfident)
    broken = _squared_error(frame, monkeypatch, True)
    assert broken > alone
