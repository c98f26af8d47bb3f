"""The marginals method: domain, structure, noise-free reproduction, budget, groups, privacy audit."""

import numpy as np
import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.errors import ParameterError
from dpsynth_core.factors import Factor, sample_children
from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer
from dpsynth_core.metrics import paired_codes, two_way_distances
from dpsynth_core.noise import make_noise_source
from tests.audit import HalfNoise, audit
from tests.core.synthesizers.methods_common import adult_small, assert_in_domain


def test_output_in_domain_with_row_count():
    frame, spec = adult_small()
    model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(frame, spec)
    out = model.sample()
    assert len(out) == model.rows_
    assert_in_domain(out, spec)
    assert len(model.sample(123)) == 123


def test_structure_is_acyclic_and_parents_come_first():
    frame, spec = adult_small()
    model = MarginalsSynthesizer(epsilon=2.0, random_state=1).fit(frame, spec)
    seen = set()
    for name in model.order_:
        assert set(model.parents_[name]) <= seen and len(model.parents_[name]) <= 2
        seen.add(name)
    assert seen == set(spec["columns"])


def test_noise_free_run_reproduces_the_measured_marginals():
    # epsilon = 1e6: noise scale 1e-6, every count exact; sampling error only.
    frame, spec = adult_small(4000)
    model = MarginalsSynthesizer(epsilon=1e6, random_state=2).fit(frame, spec)
    out = model.sample(200_000)
    distances = two_way_distances(paired_codes(frame, out, spec))
    for child, parents in model.parents_.items():
        for parent in parents:
            # 200,000 draws from the exact table: TVD of a k-cell table ~ sqrt(k / n) at most
            cells = distances.shape[0]
            assert distances.loc[child, parent] < 0.03, (child, parent)
    assert np.mean([distances.loc[c, c] for c in distances.index]) < 0.01
    assert cells == len(spec["columns"])


def test_beats_independent_columns_on_two_way_distance():
    frame, spec = adult_small(8000)
    mean2 = {}
    for method in ("cathist", "marginals"):
        values = []
        for seed in range(3):
            out = synthesize(frame, spec, 1.0, method=method, random_state=seed).data
            matrix = two_way_distances(paired_codes(frame, out, spec)).to_numpy()
            values.append(matrix[np.triu_indices(len(matrix), 1)].mean())
        mean2[method] = np.mean(values)
    assert mean2["marginals"] < mean2["cathist"]


def test_budget_adds_up_and_matches_noise_drawn():
    frame, spec = adult_small()
    model = MarginalsSynthesizer(epsilon=0.8, random_state=3).fit(frame, spec)
    assert model.accountant_.basic()[0] == pytest.approx(0.8)
    drawn = sum(1 / s for label, s, _ in model.noise_.log if label != "noisy max")
    selection = sum(2 / s for label, s, _ in model.noise_.log if label == "noisy max")
    assert drawn + selection == pytest.approx(0.8)


def test_publisher_groups_are_measured_as_declared():
    frame, spec = adult_small()
    model = MarginalsSynthesizer(epsilon=1.0, random_state=4,
                                 groups=[("sex", "relationship"), ("age", "sex", "income")]).fit(frame, spec)
    assert model.parents_["relationship"] == ("sex",)
    assert model.parents_["income"] == ("age", "sex")
    with pytest.raises(ParameterError, match="cycle"):
        MarginalsSynthesizer(epsilon=1.0, random_state=0, groups=[("sex", "income"), ("income", "sex")]).fit(frame, spec)
    with pytest.raises(ParameterError, match="not in the release"):
        MarginalsSynthesizer(epsilon=1.0, random_state=0, groups=[("sex", "nope")]).fit(frame, spec)


def test_text_columns_and_large_products_use_cathist():
    spec = {"columns": {"word": {"type": "text", "generator": "english_word"},
                        "code": {"type": "integer", "min": 0, "max": 1999}}}
    frame = pd.DataFrame({"word": ["apple"] * 600 + ["banana"] * 400, "code": [str(i % 2000) for i in range(1000)]})
    model = MarginalsSynthesizer(epsilon=5.0, random_state=0, groups=[("word", "code")], dense_limit=100).fit(frame, spec)
    labels = [e.label for e in model.accountant_.events]
    assert any("CatHist vocabulary" in lab for lab in labels)
    assert any("CatHist over the product domain" in lab for lab in labels)
    out = model.sample(500)
    assert_in_domain(out, spec)


def test_conditional_sampler_matches_table():
    table = np.array([[1.0, 3.0, 0.0], [0.0, 0.0, 0.0], [2.0, 2.0, 4.0]])
    factor = Factor("c", ("p",), (3,), 3, np.arange(9), table.ravel())
    rng = np.random.default_rng(0)
    parents = np.repeat([0, 1, 2], 30_000)
    out = sample_children(parents, factor, np.array([0.2, 0.2, 0.6]), rng)
    assert np.bincount(out[:30_000], minlength=3) / 30_000 == pytest.approx([0.25, 0.75, 0], abs=0.01)
    assert np.bincount(out[30_000:60_000], minlength=3) / 30_000 == pytest.approx([0.2, 0.2, 0.6], abs=0.01)
    assert np.bincount(out[60_000:], minlength=3) / 30_000 == pytest.approx([0.25, 0.25, 0.5], abs=0.01)


# --- privacy audit: the joint table measurement, structure fixed by a publisher group ------

_SPEC = {"columns": {"a": {"type": "categorical", "values": ["x", "y"], "missing": False},
                     "b": {"type": "categorical", "values": ["0", "1", "2"], "missing": False}}}
_D = pd.DataFrame({"a": ["x"] * 12 + ["y"] * 8, "b": ["0"] * 10 + ["1"] * 10})
_D_PRIME = pd.concat([_D, pd.DataFrame({"a": ["y"], "b": ["2"]})], ignore_index=True)  # a new combination
EPS = 1.0



def _mechanism(frame, seed, broken=False):
    source = make_noise_source(seed)
    if broken:
        source = HalfNoise(secure=False, rng=source.rng)
    model = MarginalsSynthesizer(epsilon=EPS, random_state=source, groups=[("a", "b")]).fit(frame, _SPEC, rows=20)
    factor = model.factors_["b"]
    shrink = factor.weights.min()
    return factor.weights[1 * 3 + 2] - shrink  # cell (a = y, b = 2): its clipped noisy count


_EVENTS = {f"cell >= {t}": (lambda t: lambda w: w >= t)(t) for t in (1, 2, 3, 5)}


def test_audit_joint_table_passes():
    result = audit(_mechanism, _D, _D_PRIME, _EVENTS, trials=3000, seed=1)
    assert not result.violates(EPS), result


def test_audit_catches_half_noise():
    result = audit(lambda f, s: _mechanism(f, s, broken=True), _D, _D_PRIME, _EVENTS, trials=3000, seed=2)
    assert result.violates(EPS), result
