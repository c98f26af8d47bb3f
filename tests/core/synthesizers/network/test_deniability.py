"""Plausible deniability: exact seed counting, the privacy test, the per-record guarantee, audit."""

import math

import numpy as np
import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.synthesizers.network.deniability import (
    DEFAULT_RUNS,
    PlausibleDeniability,
    projection_keys,
    record_guarantee,
)
from tests.audit import audit, clopper_pearson
from tests.conftest import stated
from tests.core.synthesizers.methods_common import adult_small, assert_in_domain


@pytest.fixture(scope="module")
def model():
    frame, spec = adult_small(3000)
    return PlausibleDeniability(epsilon=1.0, random_state=0, k=10).fit(frame, spec)


def test_hashed_counts_equal_a_full_scan(model):
    candidates, redraw = model.make_candidates(300)
    counts = model.plausible_seeds(candidates, redraw)
    for i in range(300):
        keep = ~redraw[i]
        scan = int((model.seeds_[:, keep] == candidates[i, keep]).all(axis=1).sum())
        assert counts[i] == scan
    assert (counts >= 1).all()  # the seed itself is always a plausible seed


def test_every_plausible_seed_has_the_seeds_probability(model):
    # P(y | d) = prod over redrawn a of P(y_a | parents of a in y) whenever d agrees with y on kept columns.
    candidates, redraw = model.make_candidates(50)
    order = model.order_
    for i in range(5):
        y = {n: candidates[i : i + 1, j] for j, n in enumerate(order)}
        prob = np.prod([model.conditional_probability(n, y)[0] for j, n in enumerate(order) if redraw[i, j]])
        assert 0 < prob <= 1


def test_a_candidate_does_not_depend_on_the_seeds_redrawn_values(model):
    # The test counts every seed agreeing on the kept columns as equally likely: so two seeds that differ
    # only on the redrawn columns, run on the same random numbers, must give the very same candidate.
    rng = model.noise_.rng
    pick = rng.integers(0, len(model.seeds_), size=2000)
    redraw = model.redraw_patterns_[rng.integers(0, len(model.redraw_patterns_), size=2000)]
    first = model.seeds_[pick]
    second = np.where(redraw, model.seeds_[rng.permutation(pick)], first)
    assert (second != first).any()  # the seeds do differ on redrawn columns
    state = rng.bit_generator.state
    outputs = []
    for seeds in (first, second):
        rng.bit_generator.state = state
        fixed = {name: seeds[:, j] for j, name in enumerate(model.order_)}
        outputs.append(model.sample_codes(len(seeds), fixed=fixed, resample=redraw))
    for name in model.order_:
        assert np.array_equal(outputs[0][name], outputs[1][name])


def test_a_seeds_candidates_come_with_the_models_probabilities(model):
    # The probability the proof uses, prod over redrawn a of P(y_a | y's parents of a), is the one the
    # sampler draws from (the network's tables as they are now made): empirical frequencies of one
    # seed's candidates against it, 5 standard errors, for the 5 most frequent candidates.
    draws = 40_000
    pattern = model.redraw_patterns_[0]
    seed = model.seeds_[7]
    fixed = {name: np.full(draws, seed[j]) for j, name in enumerate(model.order_)}
    codes = model.sample_codes(draws, fixed=fixed, resample=np.broadcast_to(pattern, (draws, len(pattern))))
    table = np.column_stack([codes[n] for n in model.order_])
    rows, counts = np.unique(table, axis=0, return_counts=True)
    for i in np.argsort(counts)[::-1][:5]:
        y = {n: rows[i : i + 1, j] for j, n in enumerate(model.order_)}
        p = np.prod([model.conditional_probability(n, y)[0] for j, n in enumerate(model.order_) if pattern[j]])
        assert abs(counts[i] / draws - p) <= 5 * math.sqrt(p * (1 - p) / draws) + 1e-12
    assert (table[:, ~pattern] == seed[~pattern]).all()


def test_projection_keys_mask_redrawn_columns():
    codes = np.array([[1, 2, 3], [1, 5, 3], [1, 2, 4]])
    keep = np.array([[True, False, True]] * 3)
    keys = projection_keys(codes, keep, np.array([6, 6, 6]))
    assert keys[0] == keys[1] != keys[2]


def test_projection_keys_of_hundreds_of_columns_hash_without_overflow():
    """641 columns of 4 cells: the radices' product is past any float (it warned of an overflow, once a candidate
    run, on DAAG's rockArt); the keys are hashed, equal where the kept values are."""
    codes = np.random.default_rng(0).integers(0, 4, size=(3, 641))
    codes[1] = codes[0]
    codes[1, 5] = (codes[0, 5] + 1) % 4  # differs only on a column not kept
    keep = np.ones_like(codes, dtype=bool)
    keep[:, 5] = False
    keys = projection_keys(codes, keep, np.full(641, 4))  # (warnings are errors in the suite)
    assert keys[0] == keys[1] != keys[2]


def test_record_guarantee_hand_computed():
    # k = 50, gamma = 2, eps0 = 1: largest t with exp(-(50 - t)) <= 1e-6 is t = 36
    eps, delta, t = record_guarantee(50, 2.0, 1.0)
    assert t == 36 and eps == pytest.approx(1 + math.log(1 + 2 / 36)) and delta == pytest.approx(math.exp(-14))


def test_deterministic_test_hand_worked(model):
    deterministic = PlausibleDeniability(epsilon=1.0, random_state=0, k=10, epsilon0=None)
    assert list(deterministic.test(np.array([9, 10, 11]))) == [False, True, True]


def test_ledger_counts_every_candidate_run_not_only_released_records():
    frame, spec = adult_small(3000)
    release = synthesize(frame, spec, 1.0, method="deniability", rows=1000, random_state=3, k=10)
    details = release.card["method_details"]
    per_run = details["per_run_guarantee"]
    assert details["candidates_run"] == 1000
    runs = next(e for e in release.card["spends"] if "candidate runs" in e["label"])
    assert runs["epsilon"] == pytest.approx(1000 * per_run["epsilon"])
    assert runs["delta"] == pytest.approx(min(1.0, 1000 * per_run["delta"]))
    assert stated(release.card)["epsilon"] > 1000
    assert 0 < len(release.data) < 1000  # the file holds the runs that passed, fewer than the runs
    assert "1,000 candidates" in release.card["rows"]["policy"]
    assert "asked for this number of rows" not in release.card["rows"]["policy"]
    assert "whole file" in details["per_record_note"]
    assert_in_domain(release.data, spec)
    assert 0 < release.publisher_report["columns"]["pass_rate"] < 1


def test_the_charge_is_fixed_in_advance_and_is_the_cards():
    frame, spec = adult_small(1000)
    release = synthesize(frame, spec, 1.0, method="deniability", rows=200, random_state=2)
    charge = PlausibleDeniability.charge(spec, 1.0, rows=200)
    assert stated(release.card)["epsilon"] == pytest.approx(charge.epsilon)
    assert PlausibleDeniability.charge(spec, 1.0, rows=200, k=10).epsilon > charge.epsilon  # fewer seeds, weaker
    # with no rows asked for, the public default number of runs (never a count of the data)
    default = PlausibleDeniability.charge(spec, 1.0)
    assert default.events[-1].label.startswith(f"{DEFAULT_RUNS:,} candidate runs")
    eps_r = record_guarantee(50, 2.0, 1.0)[0]
    assert default.epsilon == pytest.approx(1.0 + DEFAULT_RUNS * eps_r)
    model = PlausibleDeniability(epsilon=1.0, random_state=1).fit(frame, spec)
    assert model.rows_ == DEFAULT_RUNS and model.candidates_ == DEFAULT_RUNS


def test_candidates_parameter_and_a_second_sample_are_charged():
    frame, spec = adult_small(2000)
    model = PlausibleDeniability(epsilon=1.0, random_state=5, k=10, candidates=700).fit(frame, spec)
    model.sample()
    model.sample(300)
    labels = [e.label for e in model.accountant_.events if "candidate runs" in e.label]
    assert labels[0].startswith("700 candidate runs") and labels[1].startswith("300 candidate runs")


def test_no_record_passing_is_a_valid_empty_release(tmp_path, capsys):
    frame, spec = adult_small(500)
    release = synthesize(frame, spec, 1.0, method="deniability", rows=200, random_state=6, k=100_000)
    assert len(release.data) == 0 and list(release.data.columns) == list(spec["columns"])
    assert "0 passed" in release.card["rows"]["policy"]
    assert (
        "None passing means few candidates had 100000 records that could have made them"
        in release.card["rows"]["policy"]
    )
    assert release.card["method_details"]["candidates_run"] == 200
    import json

    from tests.conftest import run_cli_synth

    data, domain, out = tmp_path / "in.csv", tmp_path / "d.json", tmp_path / "out.csv"
    frame.to_csv(data, index=False)
    domain.write_text(json.dumps(spec))
    assert run_cli_synth(data, domain, method="deniability", rows=50, seed=1, out=out) == 0
    written = out.read_text().splitlines()
    assert written[0].split(",") == list(spec["columns"]) and len(written) <= 51
    wide = {"columns": {f"c{i}": {"type": "categorical", "values": ["a", "b", "c", "d"]} for i in range(30)}}
    rng = np.random.default_rng(0)  # 30 independent columns of 60 records: no candidate has 50 plausible seeds
    pd.DataFrame(rng.choice(list("abcd"), (60, 30)), columns=list(wide["columns"])).to_csv(data, index=False)
    domain.write_text(json.dumps(wide))
    assert run_cli_synth(data, domain, method="deniability", seed=1, out=out) == 0
    said = capsys.readouterr()
    assert "wrote 0 synthetic rows" in said.out and "note: 1,000 candidates were run" in said.err
    assert "0 passed the privacy test" in said.err and "fewer columns let more pass" in said.err


def test_rejects_bad_candidates():
    from dpsynth_core.errors import ParameterError

    frame, spec = adult_small(200)
    with pytest.raises(ParameterError, match="candidates"):
        PlausibleDeniability(epsilon=1.0, random_state=0, candidates=0).fit(frame, spec)


def test_deterministic_test_has_no_guarantee():
    frame, spec = adult_small(2000)
    release = synthesize(frame, spec, 1.0, method="deniability", rows=200, random_state=4, k=10, epsilon0=None)
    assert stated(release.card)["epsilon"] is None


# --- audit of the randomised test's release probability; the deterministic test is caught ---

K, EPS0 = 5, 0.5


def _released(count, seed, deterministic=False):
    model = PlausibleDeniability(epsilon=1.0, random_state=seed, k=K, epsilon0=None if deterministic else EPS0)
    from dpsynth_core.privacy.noise import make_noise_source

    model.noise_ = make_noise_source(seed)
    return bool(model.test(np.array([count]))[0])


_EVENTS = {"released": lambda passed: passed, "withheld": lambda passed: not passed}


def test_audit_randomised_test_passes():
    # D has 4 plausible seeds for the candidate, D' one more (an added record): ratio <= e^eps0
    result = audit(_released, 4, 5, _EVENTS, trials=6000, seed=1)
    assert not result.violates(EPS0), result


def test_audit_catches_the_deterministic_test():
    result = audit(lambda c, s: _released(c, s, True), 4, 5, _EVENTS, trials=500, seed=2)
    assert result.violates(EPS0) and result.epsilon_lower_bound > 3, result


# --- audit of the stopping rule: "an outlier's candidate is released" (issue 8 item 3) ------
# Four records, each unique in y and in z; D' adds an outlier with its own y and z. A
# candidate redraws x only, so it keeps its seed's y and z and has exactly one plausible
# seed (its own). In D no candidate can carry the outlier's (y, z); in D' one run releases
# it with probability 1/5 x P(Z <= 1 - k), well inside the per-run delta. The old rule (draw
# until a record passes) releases it with probability 1/5 whatever the test does.

K_OUT = 5
_OUT_SPEC = {
    "columns": {
        "x": {"type": "categorical", "values": ["p", "q"], "missing": False},
        "y": {"type": "categorical", "values": list("abcdefgh"), "missing": False},
        "z": {"type": "categorical", "values": list("stuvwxyz"), "missing": False},
    }
}
_OUT_D = pd.DataFrame({"x": list("pqpq"), "y": list("abcd"), "z": list("stuv")})
_OUT_D_PRIME = pd.concat([_OUT_D, pd.DataFrame({"x": ["p"], "y": ["e"], "z": ["w"]})], ignore_index=True)


def _outlier_model(frame):
    model = PlausibleDeniability(epsilon=1.0, random_state=0, k=K_OUT, epsilon0=1.0).fit(_OUT_D_PRIME, _OUT_SPEC)
    # The model is fixed (fitted once, a DP output of its own); only the seeds differ.
    model.seeds_ = model.seeds_[: len(frame)]
    model.__dict__.pop("_seed_tables", None)
    model.redraw_patterns_ = (np.array(model.order_) == "x")[None, :]
    return model


def _outlier_hits(frame, runs, seed, stopping_rule=False):
    """How many runs released the outlier's candidate, out of ``runs`` (one run: one trial)."""
    from dpsynth_core.privacy.noise import make_noise_source

    model = _outlier_model(frame)
    model.noise_ = make_noise_source(seed)
    y, z = model.order_.index("y"), model.order_.index("z")
    if stopping_rule:  # the old mechanism: candidates until `runs` records pass, each one a trial
        passed = []
        while sum(len(p) for p in passed) < runs:
            candidates, redraw = model.make_candidates(20_000)
            passed.append(candidates[model.test(model.plausible_seeds(candidates, redraw))])
        released = np.vstack(passed)[:runs]
    else:
        released = model.run_candidates(runs)
    return int(((released[:, y] == 4) & (released[:, z] == 4)).sum())


def _delta_bound(hits_a, hits_b, trials, delta):
    """Lower confidence bound on epsilon from ``P_a <= e^eps P_b + delta`` (99.9% intervals)."""
    a_low, _ = clopper_pearson(hits_a, trials)
    _, b_high = clopper_pearson(hits_b, trials)
    return math.log((a_low - delta) / b_high) if a_low > delta else -math.inf


def test_audit_outlier_release_passes_per_run():
    eps_r, delta_r, _ = record_guarantee(K_OUT, 2.0, 1.0)
    trials = 200_000
    hits_prime = _outlier_hits(_OUT_D_PRIME, trials, seed=1)
    hits = _outlier_hits(_OUT_D, trials, seed=2)
    assert hits == 0 and hits_prime > 0  # possible, and rare
    assert _delta_bound(hits_prime, hits, trials, delta_r) <= eps_r


def test_audit_catches_the_stopping_rule():
    eps_r, delta_r, _ = record_guarantee(K_OUT, 2.0, 1.0)
    trials = 2_000
    hits_prime = _outlier_hits(_OUT_D_PRIME, trials, seed=3, stopping_rule=True)
    hits = _outlier_hits(_OUT_D, trials, seed=4, stopping_rule=True)
    assert _delta_bound(hits_prime, hits, trials, delta_r) > eps_r, (hits_prime, hits)
