"""The cathist method (independent columns): domain, row count, budget, schema and privacy properties."""

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.domain import TableDomain
from dpsynth_core.synthesizers.cathist import CatHistSynthesizer
from tests.audit import audit
from tests.conftest import complete_domain, shared_path


@pytest.fixture(scope="module")
def adult():
    return pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False)


def _in_domain(frame: pd.DataFrame, domain: TableDomain) -> None:
    for name, col in domain.kept.items():
        values = frame[name].dropna()
        if col.kind == "categorical":
            assert set(values.astype(str)) <= {str(v) for v in col.values}, name
        elif col.kind in ("integer", "float"):
            assert values.between(col.min, col.max).all(), name
        elif col.kind == "text":
            assert all(col.normalise([v])[0] == v for v in values.unique()), name


def test_output_inside_declared_domain_even_with_out_of_domain_input():
    domain = TableDomain.from_json(complete_domain("adult"))
    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False).head(3000).copy()
    frame.loc[:10, "age"] = "250"
    frame.loc[:10, "workclass"] = "Astronaut"
    model = CatHistSynthesizer(epsilon=2.0, random_state=3).fit(frame, domain)
    _in_domain(model.sample(), domain)


def test_noisy_row_count_and_public_row_count(adult, adult_domain):
    model = CatHistSynthesizer(epsilon=1.0, random_state=1).fit(adult, adult_domain)
    assert abs(model.rows_ - 32_561) < 200  # Laplace scale 20: 200 is 10 scales
    assert len(model.sample()) == model.rows_
    labels = [
        e.label
        for e in model.accountant_.events  # binning and bins' insides: see test_binning
        if not e.label.startswith(("bins ", "values inside the bins of "))
    ]
    assert labels[0] == "row count" and len(labels) == 16
    public = CatHistSynthesizer(epsilon=1.0, random_state=1).fit(adult, adult_domain, rows=500)
    assert len(public.sample()) == 500
    assert "row count" not in [e.label for e in public.accountant_.events]


def test_budget_adds_up_and_matches_noise_drawn(adult, adult_domain):
    model = CatHistSynthesizer(epsilon=0.7, random_state=2).fit(adult, adult_domain)
    assert model.accountant_.basic()[0] == pytest.approx(0.7)
    # every discrete Laplace call was on a sensitivity-1 query: epsilon = 1/scale; a PrivTree
    # (adaptive bins) logs one call per level, all at the scale 3/epsilon of the whole tree
    trees = {label: scale for label, scale, _ in model.noise_.log if label.endswith("(tree)")}
    counts = sum(1 / scale for label, scale, _ in model.noise_.log if not label.endswith("(tree)"))
    assert counts + sum(3 / scale for scale in trees.values()) == pytest.approx(0.7)


def test_distributions_are_close_at_large_epsilon(adult, adult_domain):
    model = CatHistSynthesizer(epsilon=20.0, random_state=4).fit(adult, adult_domain)
    synthetic = model.sample()
    real = adult["sex"].value_counts(normalize=True)
    fake = synthetic["sex"].value_counts(normalize=True)
    assert abs(real["Male"] - fake["Male"]) < 0.02  # sampling error sd ~ 0.003
    assert abs(pd.to_numeric(adult["age"]).mean() - synthetic["age"].astype(float).mean()) < 1.0


def test_schema_does_not_depend_on_a_new_category_or_extreme_value(adult, adult_domain):
    base = adult.head(2000)
    extra = pd.concat(
        [
            base,
            pd.DataFrame([{**base.iloc[0].to_dict(), "native-country": "Holand-Netherlands", "capital-gain": "99999"}]),
        ],
        ignore_index=True,
    )
    a = CatHistSynthesizer(epsilon=1.0, random_state=5).fit(base, adult_domain).sample(100)
    b = CatHistSynthesizer(epsilon=1.0, random_state=5).fit(extra, adult_domain).sample(100)
    assert list(a.columns) == list(b.columns) and list(a.dtypes) == list(b.dtypes)


def test_text_columns_go_through_cathist():
    domain = TableDomain.from_json(
        {
            "columns": {
                "word": {"type": "text", "generator": "english_word"},
                "zip": {"type": "text", "generator": "digits", "length": 5},
            }
        }
    )
    frame = pd.DataFrame(
        {"word": ["Apple"] * 300 + ["banana"] * 200 + ["zzzzqq"] * 5, "zip": ["02139"] * 400 + ["98105"] * 105}
    )
    model = CatHistSynthesizer(epsilon=2.0, rho=0.9, random_state=0).fit(frame, domain)
    out = model.sample(1000)
    assert set(out["word"].dropna()) >= {"apple", "banana"}
    assert out["zip"].dropna().str.fullmatch(r"\d{5}").all()


def test_text_column_with_nothing_released_invents_no_value():
    # Nothing survives the threshold and (rho close to 1) nothing is made up: the column shows
    # the public placeholder (the domain's first value), never one made-up value per row.
    for missing, expected in ((True, "value-000000000"), (False, "value-000000000")):
        domain = TableDomain.from_json(
            {"columns": {"name": {"type": "text", "generator": "any", "size": 10**9, "missing": missing}}}
        )
        frame = pd.DataFrame({"name": [f"person {i}" for i in range(50)]})
        model = CatHistSynthesizer(epsilon=0.5, rho=0.999, random_state=0).fit(frame, domain)
        assert model.models_["name"].keys == []
        out = model.sample(20)["name"]
        assert (out == expected).all()


def test_categorical_column_with_nothing_released_is_uniform_over_declared_values():
    domain = TableDomain.from_json({"columns": {"c": {"type": "categorical", "values": ["a", "b"], "missing": False}}})
    model = CatHistSynthesizer(epsilon=0.05, rho=0.999, random_state=0).fit(pd.DataFrame({"c": ["a"]}), domain)
    if model.models_["c"].is_empty:
        assert set(model.sample(200)["c"]) == {"a", "b"}


def test_secure_runs_differ():
    domain = complete_domain("pums")
    frame = pd.read_csv(shared_path("pums.csv"), dtype=str, keep_default_na=False)
    a = CatHistSynthesizer(epsilon=1.0).fit(frame, domain).sample(200)
    b = CatHistSynthesizer(epsilon=1.0).fit(frame, domain).sample(200)
    assert not a.equals(b)


def test_sample_does_not_touch_data():
    # After fit the model holds only noisy statistics: sampling works with the data gone.
    frame = pd.read_csv(shared_path("ce.csv"), dtype=str, keep_default_na=False)
    model = CatHistSynthesizer(epsilon=1.0, random_state=0).fit(frame, complete_domain("ce"))
    del frame
    assert len(model.sample(50)) == 50
    assert not any(isinstance(v, pd.DataFrame) for v in vars(model).values())


def test_made_up_flags_never_reach_the_card(adult, adult_domain):
    model = CatHistSynthesizer(epsilon=1.0, random_state=0).fit(adult, adult_domain)
    text = str(model.card_details())
    assert "fidelity" not in text and "kept_values" not in text
    np.testing.assert_array_less(-1e-9, [v["fidelity"] for v in model.publisher_details().values()])


# --- audit of the whole method on neighbouring tables (new category, extreme value) ---------
# With a public row count, each output column depends on its own histogram only, so events
# on one column are bounded by that column's epsilon (half of 1 here).

_SPEC = {
    "columns": {
        "c": {"type": "categorical", "values": ["a", "b", "rare"], "missing": False},
        "x": {"type": "integer", "min": 0, "max": 100, "bin_width": 10, "missing": False},
    }
}
_D = pd.DataFrame({"c": ["a"] * 14 + ["b"] * 6, "x": ["5"] * 20})
_D_PRIME = pd.concat([_D, pd.DataFrame({"c": ["rare"], "x": ["100"]})], ignore_index=True)
_COLUMN_EPS = 0.5
_EVENTS = {
    "rare in the output": lambda out: (out["c"] == "rare").any(),
    "rare 5 times or more": lambda out: (out["c"] == "rare").sum() >= 5,
    "x = 100 in the output": lambda out: (out["x"] == 100).any(),
    "x = 100 5 times or more": lambda out: (out["x"] == 100).sum() >= 5,
}


def _release(frame, seed):
    return CatHistSynthesizer(epsilon=1.0, random_state=seed).fit(frame, _SPEC, rows=100).sample()


def test_audit_method_passes():
    result = audit(_release, _D, _D_PRIME, _EVENTS, trials=800, seed=1)
    assert not result.violates(_COLUMN_EPS), result


def test_audit_method_catches_values_present_only(monkeypatch):
    # Broken (the book's listing, checklist 2): noise only the bins and categories that occur.
    import dpsynth_core.synthesizers.cathist as cathist_method
    from dpsynth_core.privacy import cathist as ch

    real_histogram = cathist_method.noisy_histogram
    monkeypatch.setattr(
        cathist_method, "noisy_histogram", lambda counts, **kw: np.where(counts > 0, real_histogram(counts, **kw), 0)
    )
    monkeypatch.setattr(ch.Enumeration, "__call__", lambda self, k, excluded, noise: [])
    result = audit(_release, _D, _D_PRIME, _EVENTS, trials=200, seed=2)
    assert result.violates(_COLUMN_EPS) and result.epsilon_lower_bound > 2, result


# --- hierarchical codes (declared prefixes): the same levels as the vocabularies, inside the column's share ---

_CODES = {"columns": {"dx": {"type": "text", "generator": "digits", "length": 3, "prefixes": [1], "missing": False}}}
_CODES_D = pd.DataFrame({"dx": ["123"] * 40 + ["150"] * 30 + ["311"] * 25})
_CODES_D_PRIME = pd.concat([_CODES_D, pd.DataFrame({"dx": ["901"]})], ignore_index=True)


def test_declared_prefixes_fall_back_in_cathist_within_the_columns_share():
    from dpsynth_core.synthesizers import planning
    from tests.core.privacy.test_prefixes import zipf_codes

    spec = {"columns": {"dx": {**_CODES["columns"]["dx"], "length": 5, "prefixes": [3, 2], "missing": True}}}
    domain = TableDomain.from_json(spec)
    real = zipf_codes(20_000)
    frame = pd.DataFrame({"dx": real.where(np.arange(len(real)) % 50 != 0, None)})
    model = CatHistSynthesizer(epsilon=0.6, rho=0.9, random_state=1).fit(frame, domain, rows=20_000)
    # the charge projected before reading the data is what was recorded, and what the noise spent
    assert list(model.accountant_.events) == list(CatHistSynthesizer.charge(domain, 0.6, rows=20_000, rho=0.9).events)
    assert [scale for _, scale, _ in model.noise_.log] == pytest.approx([3 / 0.6] * 3)  # full codes, 3, 2
    out = model.sample()["dx"]
    short = out.dropna().str.endswith("*")
    assert 0.25 < short.mean() < 0.45 and out.isna().mean() == pytest.approx(0.02, abs=0.01)
    # a released prefix stands for the records that fall back to it, not for every record under it
    coded = pd.Series(real).where(~real.isin(set(out.dropna())), None).dropna()
    for value in out[out.str.endswith("*", na=False)].value_counts().index[:3]:
        falls = (coded.str.startswith(value[:-1])).mean() * len(coded) / len(real)
        assert (out == value).mean() == pytest.approx(falls, abs=0.03), value
    card = model.card_details()["columns"]["dx"]
    assert [level["level"] for level in card["prefix_levels"]] == [
        "full codes",
        "first 3 characters",
        "first 2 characters",
    ]
    assert 0.9 < model.publisher_details()["dx"]["fidelity"] <= 1
    plan = {r["column"]: r for r in planning.column_plan(spec, 0.6, 0.9, method="cathist", expected_rows=20_000)}
    words = " ".join(planning.text_outlook(plan["dx"]))
    assert "falls back to its first 3 characters" in words and "are left out" in words


def _release_codes(frame, seed):
    return CatHistSynthesizer(epsilon=2.0, rho=0.5, random_state=seed).fit(frame, _CODES, rows=100).sample()


_CODE_EVENTS = {"9* in the output": lambda out: (out["dx"] == "9*").any()}


def test_audit_of_prefixes_in_cathist_passes():
    """D' adds the only code under 9: "9*" comes out at most e^1 (the level's share) times as often."""
    result = audit(_release_codes, _CODES_D, _CODES_D_PRIME, _CODE_EVENTS, trials=300, seed=3)
    assert not result.violates(2.0), result


def test_audit_of_prefixes_in_cathist_catches_prefixes_released_without_noise(monkeypatch):
    import dpsynth_core.synthesizers.cathist as cathist_method

    honest = cathist_method.release_levels

    def broken(domain, counts, **kw):  # every prefix present in the data enters the release, without noise
        values, noisy, made_up, lengths = honest(domain, counts, **kw)
        present = sorted({f"{v[0]}*" for v in counts.index} - set(values))
        more = [False] * len(present)
        return (
            values + present,
            np.append(noisy, [30] * len(present)),
            np.append(made_up, more),
            lengths + [1] * len(present),
        )

    monkeypatch.setattr(cathist_method, "release_levels", broken)
    result = audit(_release_codes, _CODES_D, _CODES_D_PRIME, _CODE_EVENTS, trials=150, seed=4)
    assert result.violates(2.0), result
