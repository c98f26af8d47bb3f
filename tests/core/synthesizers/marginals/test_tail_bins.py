"""A cut tail of a range that holds records comes out (:func:`dpsynth_core.privacy.tails.kept_ends`)."""

import json

import numpy as np
import pandas as pd

from dpsynth_core.privacy import tails
from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer
from tests.conftest import shared_path


def test_a_thin_real_tail_cut_from_the_leaves_comes_out_as_a_bin_of_its_own(monkeypatch):
    """medicaldata's covid_testing (15,524 tests at a children's hospital, ``tests/datasets``) declared from its help
    page, ages 0-120: 4.87% of the tests are of people over 50, spread over 50 ages at a dozen each, against a noise
    of about 35 per age in the leaf counts at ε = 1. The leaves' long-tail walk cut ages past 53 or so at most seeds,
    and the model's count of the bin straddling the cut came out all inside it: over 50 in 0% to 5.0% of a release's
    rows (7 of 10 seeds under 3%). As a bin of its own the cut tail is counted by the model: 4.75% to 5.7% at every
    seed. Asserted at 10 seeds: every share within 1.5 points of the real one (the sampling and the bin count's noise
    give it a deviation of about 0.3 points), and without the rule (the broken variant) at least 4 under 3%."""
    frame = pd.read_csv(shared_path("covid_testing.csv"))
    spec = json.loads(shared_path("covid_testing.domain.json").read_text())
    real = float((frame["age"] > 50).mean())

    def shares() -> np.ndarray:
        found = []
        for seed in range(10):
            synthetic = MarginalsSynthesizer(epsilon=1.0, random_state=seed).fit(frame, spec).sample(len(frame))
            found.append(float((pd.to_numeric(synthetic["age"]) > 50).mean()))
        return np.array(found)

    kept = shares()
    monkeypatch.setattr(tails, "TAIL_BIN_Z", None)
    cut = shares()
    assert np.all(np.abs(kept - real) < 0.015), (kept, real)
    assert (cut < 0.03).sum() >= 4, cut


def test_a_named_end_point_holding_no_record_comes_out_empty(monkeypatch):
    """FiveThirtyEight's bechdel (1,794 films, ``tests/datasets``), its budgets and grosses declared from 0 to one or
    five billion dollars: the range's 0, a point the rule names whatever the data (no film's gross is 0), is a bin of
    one value at the end, and its noise came out as rows whenever it passed one deviation: some amount was 0 in more
    than 1% of a release's rows at 5 of 12 seeds (3.4% at most). Cut as a bin beyond the data (two deviations),
    none at 10 seeds. The broken variant (``END_POINTS_FAR`` off) must show it at 3 seeds at least."""
    from dpsynth_core.synthesizers.marginals import measurements

    frame = pd.read_csv(shared_path("bechdel.csv"))
    spec = json.loads(shared_path("bechdel.domain.json").read_text())
    money = ("budget", "domgross", "intgross", "budget_2013", "domgross_2013", "intgross_2013")
    empty = [c for c in money if not (pd.to_numeric(frame[c]) == 0).any()]

    def zeros() -> np.ndarray:
        found = []
        for seed in range(10):
            synthetic = MarginalsSynthesizer(epsilon=1.0, random_state=seed).fit(frame, spec).sample(len(frame))
            found.append(max(float((pd.to_numeric(synthetic[c]) == 0).mean()) for c in empty))
        return np.array(found)

    kept = zeros()
    monkeypatch.setattr(measurements, "END_POINTS_FAR", False)
    noisy = zeros()
    assert len(empty) >= 4 and np.all(kept <= 0.005), kept
    assert (noisy > 0.01).sum() >= 3, noisy


def test_a_kept_tail_bin_falls_away_from_the_data(monkeypatch):
    """The same covid_testing ages: the tail past the kept leaves, kept by the model as a bin of its own, held its
    rows by its noisy pieces, spread out to 120 (ages over 80 in 0.77% of rows, over 99 in 0.10%, where the tests
    hold 0.72% and 0.03%). As an end bin beyond the kept leaves its values fall away from the data as its inner
    neighbour's density says (:func:`~dpsynth_core.data.decoding.end_tilts`). The same fitted model sampled with the
    rule and without it from one random state (the rows' bins alike): over 8 seeds the ages' distance to the real
    ones in 2-year bins is lower with it in at least 6, and lower on average by more than two standard errors."""
    import copy

    from dpsynth_core.synthesizers.marginals import measurements

    frame = pd.read_csv(shared_path("covid_testing.csv"))
    spec = json.loads(shared_path("covid_testing.domain.json").read_text())
    edges = np.arange(0, 122, 2)
    real = np.histogram(frame["age"].clip(0, 120), bins=edges)[0] / len(frame)

    def distance(sample) -> float:
        ages = pd.to_numeric(sample["age"])
        return 0.5 * float(np.abs(np.histogram(ages, bins=edges)[0] / len(ages) - real).sum())

    tilted, flat = [], []
    for seed in range(8):
        model = MarginalsSynthesizer(epsilon=1.0, random_state=seed).fit(frame, spec)
        twin = copy.deepcopy(model)
        tilted.append(distance(model.sample(len(frame))))
        monkeypatch.setattr(measurements, "TILT_BEYOND", False)
        flat.append(distance(twin.sample(len(frame))))
        monkeypatch.setattr(measurements, "TILT_BEYOND", True)
    gain = np.array(flat) - np.array(tilted)
    assert (gain > 0).sum() >= 6 and gain.mean() > 2 * gain.std(ddof=1) / np.sqrt(len(gain)), (tilted, flat)
