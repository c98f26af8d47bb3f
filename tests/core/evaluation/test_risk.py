"""The empirical risk (singling out, linkability, inference) on small tables with a known answer."""

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.evaluation.risk import Rate, Risk, empirical_risk, risk_of, split_rows

DECLARATION = {
    "columns": {
        "a": {"type": "categorical", "values": list("abcdefgh")},
        "b": {"type": "categorical", "values": list("pqrstuvw")},
        "c": {"type": "integer", "min": 0, "max": 99, "bin_width": 1},
        "d": {"type": "categorical", "values": list("xyz")},
        "e": {"type": "integer", "min": 0, "max": 99, "bin_width": 1},
    }
}


def _people(rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.choice(list("abcdefgh"), rows),
            "b": rng.choice(list("pqrstuvw"), rows),
            "c": rng.integers(0, 100, rows).astype(str),
            "d": rng.choice(list("xyz"), rows),
            "e": rng.integers(0, 100, rows).astype(str),
        }
    )


def test_rates_and_risk_follow_the_wilson_interval_and_its_propagation():
    rate = Rate(30, 100)
    z2 = 1.959963984540054**2
    assert rate.value == pytest.approx((30 + z2 / 2) / (100 + z2))
    assert rate.error == pytest.approx(1.959963984540054 / (100 + z2) * np.sqrt(30 * 70 / 100 + z2 / 4))
    risk = Risk("x", Rate(60, 100), Rate(20, 100), Rate(1, 100))
    expected = (risk.training.value - risk.control.value) / (1 - risk.control.value)
    assert risk.value == pytest.approx(expected) and risk.interval[0] < expected < risk.interval[1]
    assert Risk("x", Rate(10, 100), Rate(30, 100), Rate(1, 100)).value == 0.0  # never negative


def test_a_copy_of_the_training_rows_is_a_high_risk_and_independent_noise_is_none():
    real = _people(3000, 1)
    train_at, control_at = split_rows(len(real), 0.5, np.random.default_rng(2))
    training, control = real.iloc[train_at], real.iloc[control_at]
    copy = risk_of(
        training, control, training.reset_index(drop=True), DECLARATION, attacks=300, rng=np.random.default_rng(3)
    )
    assert copy.singling_out.value > 0.5 and copy.singling_out.meaningful
    assert copy.linkability.value > 0.5
    assert max(r.value for r in copy.inference) > 0.5
    fresh = risk_of(
        training, control, _people(len(training), 9), DECLARATION, attacks=300, rng=np.random.default_rng(3)
    )
    assert fresh.singling_out.interval[0] < 0.1 and fresh.linkability.interval[0] < 0.1
    assert all(r.interval[0] < 0.15 for r in fresh.inference)
    out = copy.as_json()
    assert set(out) >= {"singling_out", "linkability", "inference"} and len(out["inference"]) == 5


def test_the_synthetic_table_is_made_from_the_training_rows_only():
    real = _people(500, 4).assign(row=lambda f: f.index.astype(str))
    declaration = {"columns": {**DECLARATION["columns"], "row": {"type": "drop"}}}
    seen = []

    def synthesize_from(rows):
        seen.append(set(rows["row"]))
        return rows.drop(columns="row").sample(frac=1, random_state=0)

    calls = []
    report = empirical_risk(
        real,
        synthesize_from,
        declaration,
        control_share=0.1,
        attacks=40,
        progress=lambda done, message: calls.append(done),
    )
    assert len(seen[0]) == 450 and report.training_rows == 450 and report.control_rows == 50
    assert calls[-1] == 1.0 and calls == sorted(calls)
