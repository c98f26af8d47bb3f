"""A marginal measured with noise (audited), the support the measurements imply, and how finely the model is fitted."""

import numpy as np
import pandas as pd

from dpsynth_core.data.counting import CodedTable
from dpsynth_core.privacy.noise import make_noise_source
from dpsynth_core.privacy.zcdp import zcdp_to_epsilon
from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer
from dpsynth_core.synthesizers.marginals.measurements import measure
from tests.audit import HalfGaussian, HalfNoise, audit
from tests.conftest import keyword_spy
from tests.core.synthesizers.methods_common import adult_small

_A = CodedTable({"a": np.array([0] * 12 + [1] * 8)}, {"a": 3}, 20)


_B = CodedTable({"a": np.array([0] * 12 + [1] * 8 + [2])}, {"a": 3}, 21)  # one added record, a new cell


SIGMA, DELTA = 1.5, 0.05  # rho = 1 / (2 sigma^2); audited as (epsilon(rho, delta), delta)-DP


_GAUSS_EVENTS = {f"cell 2 >= {t}": (lambda t: lambda out: out[2] >= t)(t) for t in (1, 2, 3)}


def _measurement(table, seed, broken=False):
    source = make_noise_source(seed)
    if broken:
        source = HalfGaussian(secure=False, rng=source.rng)
    return measure(source, table.marginal(("a",)), SIGMA, zcdp=True)[0]


def test_audit_gaussian_measurement_passes():
    eps = zcdp_to_epsilon(1 / (2 * SIGMA**2), DELTA)
    result = audit(_measurement, _A, _B, _GAUSS_EVENTS, trials=3000, seed=1, delta=DELTA)
    assert not result.violates(eps), result


def test_audit_catches_half_gaussian_noise():
    eps = zcdp_to_epsilon(1 / (2 * SIGMA**2), DELTA)
    result = audit(
        lambda t, s: _measurement(t, s, broken=True), _A, _B, _GAUSS_EVENTS, trials=3000, seed=2, delta=DELTA
    )
    assert result.violates(eps), result


def _laplace_measurement(table, seed, broken=False):
    source = make_noise_source(seed)
    if broken:
        source = HalfNoise(secure=False, rng=source.rng)
    return measure(source, table.marginal(("a",)), 1.0, zcdp=False)[0]


_LAPLACE_EVENTS = {f"cell 2 >= {t}": (lambda t: lambda out: out[2] >= t)(t) for t in (1, 2)}


def test_audit_pure_measurement_passes_and_catches_half_noise():
    assert not audit(_laplace_measurement, _A, _B, _LAPLACE_EVENTS, trials=3000, seed=3).violates(1.0)
    assert audit(lambda t, s: _laplace_measurement(t, s, True), _A, _B, _LAPLACE_EVENTS, trials=3000, seed=4).violates(
        1.0
    )


def _tail_table(rows: int, seed: int):
    """x declared 0-99 in ten public bins, every record in 40-59; g follows x."""
    rng = make_noise_source(seed).rng
    x = rng.integers(40, 60, rows)
    g = np.where(x < 50, "low", "high")
    spec = {
        "columns": {
            "x": {"type": "integer", "min": 0, "max": 99, "bin_width": 10, "missing": False},
            "g": {"type": "categorical", "values": ["low", "high"], "missing": False},
        }
    }
    return pd.DataFrame({"x": x.astype(str), "g": g}), spec


def test_empty_tails_of_a_declared_range_stay_empty(monkeypatch):
    """x's eight empty bins form two tails of four cells. A tail is cut when its pooled noisy count
    plus z * s * sqrt(4) is at most TAIL_SHARE of the estimated records (here 250 of 50,000, while
    z * s * sqrt(4) is about 75): it stays only if the noise of its sum (standard deviation 2 s,
    about 40) exceeds 175, a chance below 1e-5 per release. Without the support the same releases
    put rows there (noise in empty cells becomes rows)."""
    from dpsynth_core.synthesizers.marginals import measurements

    z0 = measurements.EMPTY_Z
    assert z0 is not None
    leaks = {}
    for z in (z0, None):
        monkeypatch.setattr(measurements, "EMPTY_Z", z)
        leaks[z] = 0
        for seed in range(3):
            frame, spec = _tail_table(50_000, seed)
            model = MarginalsSynthesizer(epsilon=1.0, random_state=seed).fit(frame, spec)
            x = model.sample(50_000)["x"].astype(int)
            leaks[z] += int(((x < 40) | (x > 59)).sum())
            if z is not None:
                assert not model.support_["x"][:4].any() and not model.support_["x"][6:].any()
                assert model.support_["x"][4:6].all()
    assert leaks[z0] == 0 and leaks[None] > 0


def test_an_empty_region_inside_a_declared_range_stays_nearly_empty(monkeypatch):
    """x holds records in 0-19 and 80-99 of ten declared bins: 20-79 is an empty gap of six cells inside
    the range, which the tail rule cannot reach. A gap whose cells and pooled count cannot be told from
    empty (below z * s and z * s * sqrt(j), s about 10-20 records here) is cut; a gap cell whose noise
    reaches z * s stays and the model gives it about its measured count, under 2 z s. So three releases
    put at most 6 z s (about 200) rows in the gap; here none or one, against 57 without the support."""
    from dpsynth_core.synthesizers.marginals import measurements

    z0 = measurements.EMPTY_Z
    leaks = {}
    for z in (z0, None):
        monkeypatch.setattr(measurements, "EMPTY_Z", z)
        leaks[z] = 0
        for seed in range(3):
            rng = make_noise_source(seed).rng
            x = np.where(rng.random(50_000) < 0.5, rng.integers(0, 20, 50_000), rng.integers(80, 100, 50_000))
            frame, spec = _tail_table(50_000, seed)
            frame = frame.assign(x=x.astype(str), g=np.where(x < 50, "low", "high"))
            model = MarginalsSynthesizer(epsilon=1.0, random_state=seed).fit(frame, spec)
            drawn = model.sample(50_000)["x"].astype(int)
            leaks[z] += int(((drawn >= 20) & (drawn < 80)).sum())
    assert leaks[z0] <= 5 and leaks[None] > 30


def test_the_fit_stops_sooner_only_where_the_noise_is_large_for_the_tables_size(monkeypatch):
    """Records at most FINE_FIT_SIGNAL times a round's mean |noise|: 5 iterations per round and 40 at the
    end; above it (little noise for the table's size), 10 and 75."""
    from dpsynth_core.synthesizers.marginals import measurements
    from dpsynth_core.synthesizers.marginals import synthesizer as module

    calls = []

    def recorded(*args, **kwargs):
        calls.append(kwargs["iterations"])
        return estimate(*args, **kwargs)

    estimate = module.estimate
    monkeypatch.setattr(module, "estimate", recorded)
    runs = {}
    for rows, epsilon in ((1000, 1.0), (30000, 10.0)):  # records / noise: about 25 and 8,000
        frame, spec = adult_small(rows)
        calls.clear()
        MarginalsSynthesizer(epsilon=epsilon, delta=1e-6, random_state=0).fit(frame, spec)
        runs[epsilon] = list(calls)
    noisy, fine = runs[1.0], runs[10.0]
    assert noisy[0] == measurements.NOISY_FINAL_ITERATIONS // 3 and noisy[-1] == measurements.NOISY_FINAL_ITERATIONS
    assert set(noisy[1:-1]) == {measurements.NOISY_ROUND_ITERATIONS}
    assert fine[0] == measurements.FINAL_ITERATIONS // 3 and fine[-1] == measurements.FINAL_ITERATIONS
    assert set(fine[1:-1]) == {measurements.ROUND_ITERATIONS}


def test_the_cells_beyond_the_bins_kept_leaves_come_from_the_fitted_ranges_public_edges():
    """Bins 0-1, 2-3, 4-6, 7-12, 13-75, 76-100 (and "missing") of a count declared 0-100 whose leaf counts kept
    0-12: the two bins from 13 on lie wholly beyond; a kept range ending inside a bin leaves that bin
    in (kept to 20: 13-75 stays). Real bins: boundaries 0, 1.5, 3, 50 kept to 1.5 flag the two upper bins. Declared bins: no flag."""
    from types import SimpleNamespace

    from dpsynth_core.domain import FloatDomain, IntegerDomain
    from dpsynth_core.privacy.binning import FittedBins
    from dpsynth_core.synthesizers.marginals.measurements import beyond_cells

    counts = IntegerDomain("n", min=0, max=100, edges=(0, 2, 4, 7, 13, 76))
    real = FloatDomain("x", min=0.0, max=50.0, edges=(0.0, 1.5, 3.0, 50.0))
    columns = {"n": SimpleNamespace(domain=counts), "x": SimpleNamespace(domain=real)}
    ordered = {"n": 6, "x": 3}

    def fitted(name, kept):
        return FittedBins(name, (), 1, 0.0, 1.0, kept=kept)

    found = beyond_cells(columns, [fitted("n", (0.0, 13.0)), fitted("x", (0.0, 1.5))], ordered)
    assert found["n"].tolist() == [False] * 4 + [True, True]
    assert found["x"].tolist() == [False, True, True]
    assert beyond_cells(columns, [fitted("n", (0.0, 20.0))], ordered)["n"].tolist() == [False] * 5 + [True]
    assert beyond_cells(columns, [fitted("n", None)], ordered) == {}


def test_a_release_hands_its_bins_kept_ranges_to_the_models_support(monkeypatch):
    """The wiring: a count of 0-5 declared 0-100 (1,000 records) gets DP bins whose leaf counts keep about
    0-5; the model's support is asked with the bins beyond that kept range flagged (``beyond``), as
    :func:`beyond_cells` reads them from the fitted bins, and the declared column without adaptive bins gets
    no flag."""
    from dpsynth_core.synthesizers.marginals import measurements

    seen = keyword_spy(monkeypatch, measurements, "support_from", "beyond")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"n": np.minimum(rng.geometric(0.5, 1000) - 1, 5), "g": rng.choice(["a", "b"], 1000)})
    spec = {
        "columns": {
            "n": {"type": "integer", "min": 0, "max": 100},
            "g": {"type": "categorical", "values": ["a", "b"], "missing": False},
        }
    }
    model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(frame, spec)
    (found,) = [b for b in model.bins_ if b.column == "n"]
    ordered = {"n": model.columns_["n"].cells - 1}
    expected = measurements.beyond_cells(model.columns_, model.bins_, ordered)["n"]
    assert found.kept is not None and expected.any() and not expected[0]  # here kept 0-3: bins from 4 on flagged
    assert seen and all(set(b) == {"n"} and b["n"].tolist() == expected.tolist() for b in seen)
