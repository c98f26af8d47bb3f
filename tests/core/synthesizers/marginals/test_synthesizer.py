"""The default method (AIM over a graphical model), end to end: domain, budget, accuracy, groups, text."""

import numpy as np
import pandas as pd
import pytest

from dpsynth_core import constraints, synthesize
from dpsynth_core.errors import ParameterError
from dpsynth_core.evaluation.metrics import paired_codes, two_way_distances
from dpsynth_core.privacy.zcdp import zcdp_to_epsilon
from dpsynth_core.synthesizers.charges import BIN_COUNTS_MECHANISM
from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer
from tests.conftest import stated
from tests.core.synthesizers.methods_common import adult_small, assert_in_domain


def _mean_two_way(frame, out, spec):
    matrix = two_way_distances(paired_codes(frame, out, spec)).to_numpy()
    return matrix[np.triu_indices(len(matrix), 1)].mean()


def test_output_in_domain_with_row_count():
    frame, spec = adult_small()
    model = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(frame, spec)
    out = model.sample()
    assert len(out) == model.rows_
    assert abs(model.rows_ - len(frame)) < 200  # the model's estimate of the count (noise sd about 20 here)
    assert_in_domain(out, spec)
    assert len(model.sample(123)) == 123


def test_budget_is_spent_exactly_and_matches_the_noise_drawn():
    frame, spec = adult_small()
    model = MarginalsSynthesizer(epsilon=0.8, random_state=3).fit(frame, spec)
    total = model.accountant_.total()
    # the default delta: a public constant (never a function of the data), so the charge is known in advance
    assert model.delta_ == constraints.DELTA_DEFAULT == 1e-10
    assert total["delta"] == 1e-10 and total["composition"] == "zCDP"
    assert total["epsilon"] == pytest.approx(0.8, rel=1e-6) and total["epsilon"] <= 0.8
    # every zCDP cost in the ledger was drawn, and the pure spends are the logged Laplace draws
    drawn_rho = sum(rho for _, rho, _ in model.noise_.zcdp_log)
    pure = [e for e in model.accountant_.events if not e.is_zcdp]
    assert drawn_rho + sum(e.epsilon**2 / 2 for e in pure) == pytest.approx(model.accountant_.rho())
    # PrivTree draws Laplace noise of scale 3 / epsilon at every level of its tree (its proof pays for the depth);
    # every other pure draw is one measurement at scale 1 / epsilon
    trees = {label.removesuffix(" (tree)"): s for label, s, _ in model.noise_.log if label.endswith(" (tree)")}
    first = {e.label: e.epsilon for e in pure if e.label in trees and e.mechanism != BIN_COUNTS_MECHANISM}
    assert trees and set(first) == set(trees)  # adult's age and hours are trees on this small table
    assert all(trees[label] == pytest.approx(3 / first[label]) for label in trees)
    counts = sum(1 / s for label, s, _ in model.noise_.log if not label.endswith(" (tree)"))
    assert counts == pytest.approx(sum(e.epsilon for e in pure) - sum(first.values()))
    assert zcdp_to_epsilon(model.accountant_.rho(), 1e-8) <= 0.8


def test_pure_mode_uses_basic_composition():
    frame, spec = adult_small(2000)
    release = synthesize(frame, spec, 1.0, method="marginals", random_state=1, delta=0)
    g = stated(release.card)
    assert g["delta"] == 0 and g["composition"] == "basic" and g["epsilon"] == pytest.approx(1.0)
    assert not any(e["mechanism"].startswith("discrete Gaussian") for e in release.card["spends"])
    with pytest.raises(ParameterError, match="delta"):
        MarginalsSynthesizer(epsilon=1.0, random_state=0, delta=0.5).fit(frame, spec)


def test_card_states_the_chosen_epsilon_and_explains_delta():
    frame, spec = adult_small(2000)
    card = synthesize(frame, spec, 1.0, method="marginals", random_state=2).card
    g = stated(card)
    assert f"{g['epsilon']:.4g}" == "1" and "rho" in g and "chance" in g["delta_in_plain_words"]
    assert sum(card["budget_split"].values()) == pytest.approx(1.0, rel=1e-6)
    assert "delta_rule" in card["method_details"] and card["method_details"]["measured_marginals"]


def test_near_noise_free_run_reproduces_two_way_marginals():
    frame, spec = adult_small(4000)
    model = MarginalsSynthesizer(epsilon=20.0, delta=1e-6, random_state=2).fit(frame, spec)
    out = model.sample(len(frame))
    # with negligible noise the model answers every 2-way marginal well (sampling error only)
    assert _mean_two_way(frame, out, spec) < 0.03


def test_beats_independent_columns_on_two_way_distance():
    frame, spec = adult_small(8000)
    mean2 = {}
    for method in ("cathist", "marginals"):
        mean2[method] = np.mean(
            [
                _mean_two_way(frame, synthesize(frame, spec, 1.0, method=method, random_state=seed).data, spec)
                for seed in range(2)
            ]
        )
    assert mean2["marginals"] < 0.6 * mean2["cathist"]


def test_publisher_groups_are_measured_and_checked():
    frame, spec = adult_small()
    model = MarginalsSynthesizer(epsilon=1.0, random_state=4, groups=[("age", "sex", "income")]).fit(frame, spec)
    measured = [tuple(m["marginal"]) for m in model.card_details()["measured_marginals"]]
    assert ("age", "sex", "income") in measured
    assert model.model_.tree.home(("age", "sex", "income")) is not None
    with pytest.raises(ParameterError, match="not in the release"):
        MarginalsSynthesizer(epsilon=1.0, random_state=0, groups=[("sex", "nope")]).fit(frame, spec)
    with pytest.raises(ParameterError, match="2 or 3"):
        MarginalsSynthesizer(epsilon=1.0, random_state=0, groups=[("sex",)]).fit(frame, spec)
    with pytest.raises(ParameterError, match="cells"):
        MarginalsSynthesizer(epsilon=1.0, random_state=0, groups=[("age", "education")], max_cells=50).fit(frame, spec)


def test_text_columns_enter_through_a_cathist_vocabulary():
    spec = {
        "columns": {
            "word": {"type": "text", "generator": "english_word"},
            "code": {"type": "integer", "min": 0, "max": 9},
        }
    }
    frame = pd.DataFrame({"word": ["apple"] * 600 + ["banana"] * 400, "code": [str(i % 10) for i in range(1000)]})
    model = MarginalsSynthesizer(epsilon=5.0, random_state=0).fit(frame, spec)
    labels = [e.label for e in model.accountant_.events]
    assert any("vocabulary word" in lab for lab in labels)
    out = model.sample(500)
    assert_in_domain(out, spec)
    assert {"apple", "banana"} <= set(out["word"].dropna())


def test_single_column_table():
    spec = {"columns": {"sex": {"type": "categorical", "values": ["F", "M"], "missing": False}}}
    frame = pd.DataFrame({"sex": ["F"] * 70 + ["M"] * 30})
    release = synthesize(frame, spec, 1.0, method="marginals", random_state=0)
    assert set(release.data["sex"]) <= {"F", "M"}
    assert stated(release.card)["epsilon"] == pytest.approx(1.0, rel=1e-6)


def test_the_adult_example_keeps_the_zeros_and_means_of_capital_gain_and_loss():
    """Issue 20 point 2, on the bundled example at epsilon 1 with the default method: shares of 0 within 5
    points and means within 25%. Empty bins at the top of capital-loss's range (a tail) and capital-gain's
    empty 50,000-99,998 bin (a gap below the declared top code 99,999) are cut from the model's support
    instead of their noise becoming rows at large values, at a threshold familywise over the column's bins
    (one empty bin at +2.4 noise deviations gave capital-loss +84% at seed 7 with a per-bin z = 2). What is left of
    capital-gain's error is the noise on its 159 records at 99,999, which carry 45% of its mean: with its first 1-way
    marginal at ORDERED_ONE_WAY = 3 times a categorical column's budget, pooled noise s of about 39 records gives its
    mean a standard deviation of 99,999 s / (32,561 x 1,078), about 11% (16% before), so capital-gain's bound is
    three of them, 35%; capital-loss's stays 25%. Here +24%, -29%, +14%, +7% (capital-loss +11%, +16%, +6%, 0%). At
    seed 1 the top code's pooled count is 103 (2.4 deviations low) beside -122 in the empty bin below it, and the
    tail goes; the values drawn in 20,000-49,999 by its end bin's law (:func:`~dpsynth_core.data.decoding.end_tilts`,
    mean 24,050 against the real 24,907) no longer make up for it as uniform ones did (35,416: -23%)."""
    from dpsynth_core.data.examples import example_csv, example_declaration
    from dpsynth_core.release import synthesize

    real = pd.read_csv(example_csv("adult"), skipinitialspace=True)
    for seed in range(4):
        synthetic = synthesize(example_csv("adult"), example_declaration("adult"), 1.0, random_state=seed).data
        for column, mean_error in (("capital-gain", 0.35), ("capital-loss", 0.25)):
            r, s = (pd.to_numeric(t[column], errors="coerce") for t in (real, synthetic))
            assert abs((s == 0).mean() - (r == 0).mean()) < 0.05, (seed, column)
            assert abs(s.mean() / r.mean() - 1) < mean_error, (seed, column, s.mean(), r.mean())


def test_a_table_wider_than_the_default_method_takes_is_refused_up_front_with_the_width_that_fits(tmp_path):
    """Past the measured width the release is refused at once, before the data is read, naming the largest
    width that fits; that width itself is priced."""
    import json

    from dpsynth_core.cli import main

    width = constraints.MARGINALS_MAX_COLUMNS + 1
    spec = {"columns": {f"c{i}": {"type": "categorical", "values": ["a", "b"]} for i in range(width)}}
    domain = tmp_path / "wide.json"
    domain.write_text(json.dumps(spec))
    missing = tmp_path / "never-read.parquet"  # not there: the refusal comes first
    argv = ["synth", str(missing), "--domain", str(domain), "--epsilon", "1", "--engine", "duckdb", "--no-ledger"]
    assert main([*argv, "--out", str(tmp_path / "o.csv")]) == 2
    most = f"{constraints.MARGINALS_MAX_COLUMNS:,}"
    with pytest.raises(ParameterError, match=f"at most {most} kept columns.*keeps {width:,}.*choose cathist"):
        MarginalsSynthesizer.charge(spec, 1.0)
    narrow = {"columns": dict(list(spec["columns"].items())[: constraints.MARGINALS_MAX_COLUMNS])}
    assert MarginalsSynthesizer.charge(narrow, 1.0).guaranteed


def test_a_declared_value_with_no_record_gets_no_rows_in_a_loose_declaration():
    """Issue 36, point 3, on the repository's 1,000 compas records declared as a publisher would: numeric columns
    by min and max only, ``missing`` left at its default, at epsilon 1 with the app's noisy row count, seeds
    0-2. The "missing" cell of a column with no missing value is kept only when its pooled noisy count reaches
    the familywise threshold: chance at most Phi(-2) / 2 = 1.1% per column (2 cells or more), 0.79 expected over
    the 23 such columns x 3 releases, 5 or fewer with probability 99.9% (before: 27 of 69, up to 4.1% of
    rows)."""
    from tests.conftest import complete_domain, shared_path

    spec = complete_domain("compas")
    frame = pd.read_csv(shared_path("compas.csv"))
    keep = [
        c for c, d in spec["columns"].items() if d.get("type") in ("integer", "categorical") and frame[c].notna().any()
    ]
    spec["columns"] = {c: spec["columns"][c] for c in keep}
    frame = frame[keep]
    clean = [c for c in keep if frame[c].notna().all()]
    assert len(frame) == 1000 and len(clean) == 23
    missing_kept = 0
    for seed in range(3):
        out = synthesize(frame, spec, 1.0, random_state=seed).data
        missing_kept += sum(bool(out[c].isna().any()) for c in clean)
    assert missing_kept <= 5, missing_kept


def test_a_code_list_of_thousands_declared_for_a_few_dozen_codes_keeps_few_of_its_empty_codes():
    """Issue 36, point 3: a diagnosis column declared by its public list of 5,000 codes, 40 of which occur (7 to 386
    of 4,000 adult records), epsilon 1: a noise deviation of 22 records a code, a familywise threshold of 4.4. With
    the ``limit`` rule alone every empty code whose noise came out positive kept it as rows: 27% and 35% of the
    rows on codes no record holds (seeds 0-1, the ablation below, bound 20%). Against the column's own counts
    (``pgm.support._unlikely_cells``) the empty codes go but those whose noise reaches 3.6 to 4.4 deviations (about
    one in 4,960 empty codes a release), which look like the real codes of 60 to 90 records and are kept as they
    are: 0 to 6.6% of the rows at seeds 0-5 (2.7% on average; 3.6% when AIM's score counted every code), 3.8% on
    average at seeds 0-2 (bound 6%, each at most 10%)."""
    from dpsynth_core.pgm import support

    frame, spec = adult_small()
    rng = np.random.default_rng(36)
    codes = np.array([f"D{i:04d}" for i in range(5000)])
    weights = np.geomspace(1, 50, 40)
    frame = frame.assign(dx=rng.choice(codes, 40, replace=False)[rng.choice(40, len(frame), p=weights / weights.sum())])
    spec["columns"]["dx"] = {"type": "categorical", "values": codes.tolist(), "missing": False}

    def absent(seed):
        out = synthesize(frame, spec, 1.0, random_state=seed).data
        return float((~out["dx"].isin(set(frame["dx"]))).mean())

    shares = [absent(seed) for seed in range(3)]
    assert np.mean(shares) <= 0.06 and max(shares) <= 0.10, shares
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(support, "EMPIRICAL_CUT", False)
        assert min(absent(seed) for seed in range(2)) > 0.2


def test_a_wide_table_is_selected_in_batches_from_public_samples_and_spends_exactly_its_charge(monkeypatch):
    """60 columns: ten copies of adult's seven, each copy's rows in its own order, so a copy's pairs are related
    and pairs across copies are not. With the wide-table paths switched on at this width (a sample of 300 of the
    1,770 pairs a round, 8 choices a round), the release spends exactly its charge, and the selection finds related pairs far above their share of the pairs (150 of 1,770)."""
    from dpsynth_core.synthesizers.marginals import selection

    monkeypatch.setattr(selection, "OFFERED_PAIRS", 300)
    monkeypatch.setattr(selection, "BATCH_FROM", 30)  # 60 columns: 8 choices a round
    frame, spec = adult_small(1500)
    rng = np.random.default_rng(5)
    copies = [frame.iloc[rng.permutation(len(frame))].reset_index(drop=True).add_suffix(f"_{k}") for k in range(10)]
    wide = pd.concat(copies, axis=1)
    columns = {f"{n}_{k}": spec["columns"][n] for k in range(10) for n in frame.columns}
    wide_spec = {"columns": columns}
    model = MarginalsSynthesizer(epsilon=3.0, random_state=2).fit(wide, wide_spec)
    charge = MarginalsSynthesizer.charge(wide_spec, 3.0)
    spent = model.accountant_.total()["epsilon"]
    assert spent == pytest.approx(charge.epsilon, rel=1e-6) and spent <= 3.0
    pairs = [tuple(m["marginal"]) for m in model.measured_ if len(m["marginal"]) == 2]
    related = [p for p in pairs if p[0].rsplit("_", 1)[1] == p[1].rsplit("_", 1)[1]]
    assert len(pairs) > 10 and len(related) / len(pairs) > 3 * 150 / 1770
    assert_in_domain(model.sample(50), wide_spec)


def test_the_card_names_declared_values_that_came_out_on_counts_no_clearer_than_the_noise():
    """Issue 36, point 3: on 1,000 records at epsilon 1 a site column declared A, B, C whose records are all at A
    (an airport table holding one airport) keeps B or C at some seeds through noise the support cannot tell
    from empty. The release notes name such a value with its share of the rows whenever its pooled noisy count
    stays below the support's threshold (at seeds 2 and 3 here: C at 48 and 49 against 77), never A, and not a
    value whose noise cleared the threshold (seed 4: C at 101, a 3.2-deviation draw). The note reads the noisy
    measurements, the support and the model only; the card carries it."""
    from dpsynth_core.pgm.support import familywise_z, pooled_counts

    frame, spec = adult_small(1000)
    frame = frame.assign(site="A")
    spec["columns"]["site"] = {"type": "categorical", "values": ["A", "B", "C"], "missing": False}
    named_at = []
    for seed in range(6):
        model = MarginalsSynthesizer(epsilon=1.0, random_state=seed).fit(frame, spec)
        pooled, s = pooled_counts(model.cells_, model.blocks_.collapsed(model.measurements_))["site"]
        quiet = model.support_["site"] & (pooled < familywise_z(2.0, 3) * s)
        notes = [n for n in model.release_notes() if "the noise could not tell" in n]
        shares = model.model_.project(("site",)) / model.model_.project(("site",)).sum()
        for code, value in enumerate("ABC"):
            if quiet[code] and shares[code] >= 0.001:
                (note,) = notes
                assert f"'{value}' {shares[code]:.1%}" in note, note
                # the records a value needs, as the support's test of this column sets them (3 cells, deviation s)
                assert f"site (clear above about {familywise_z(2.0, 3) * s:,.0f} records)" in note, note
                named_at.append(seed)
            else:
                assert not any(f"'{value}'" in n for n in notes), notes
    assert named_at == [2, 3], named_at
    release = synthesize(frame, spec, 1.0, random_state=2)
    assert any("site (clear above about" in n and "'C' " in n for n in release.card["notes"])
