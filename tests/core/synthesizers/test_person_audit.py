"""Audit of the person unit: neighbouring tables that differ by one whole person.

D has 20 people with one row each (x = 5); D' adds one more person with 9 rows (x = 25), more
than the declared bound K = 3, so the release keeps 3 of them at random. The release's epsilon
is 1 per person, all of it on the one column (public row count). The event reads the noisy count
of x's bin 20-29 in the fitted model (the DP output the synthetic rows are drawn from). Two
deliberately broken variants must be caught: no bounding (all 9 rows of the person counted:
a true loss of 3) and sensitivity 1 (the method spends the whole epsilon per row: a loss of 3).
"""

from __future__ import annotations

import pandas as pd

import dpsynth_core.synthesizers.base as base
from dpsynth_core.synthesizers.cathist import CatHistSynthesizer
from tests.audit import audit

_SPEC = {
    "columns": {
        "pid": {"type": "drop"},
        "x": {"type": "integer", "min": 0, "max": 29, "bin_width": 10, "missing": False},
    },
    "person": {"column": "pid", "max_rows": 3},
}
_D = pd.DataFrame({"pid": [str(i) for i in range(20)], "x": ["5"] * 20})
_D_PRIME = pd.concat([_D, pd.DataFrame({"pid": ["newcomer"] * 9, "x": ["25"] * 9})], ignore_index=True)
_EPSILON = 1.0
_EVENTS = {f"noisy count of 20-29 >= {t}": (lambda t: lambda count: count >= t)(t) for t in (1, 2, 3, 5, 7, 9)}


def _noisy_count(frame, seed) -> int:
    model = CatHistSynthesizer(epsilon=_EPSILON, random_state=seed).fit(frame, _SPEC, rows=100)
    return int(model.models_["x"].noisy_counts[2])


def test_audit_person_unit_passes():
    result = audit(_noisy_count, _D, _D_PRIME, _EVENTS, trials=800, seed=1)
    assert not result.violates(_EPSILON), result


def test_audit_catches_no_bounding(monkeypatch):
    monkeypatch.setattr(base, "bound_rows", lambda frame, column, max_rows, rng, **kw: frame)
    result = audit(_noisy_count, _D, _D_PRIME, _EVENTS, trials=500, seed=2)
    assert result.violates(_EPSILON) and result.epsilon_lower_bound > 1.5, result


def test_audit_catches_sensitivity_one(monkeypatch):
    fit_opened = base.Synthesizer._fit_opened

    def per_row_budget_not_divided(self, source, frame, rows):
        self.epsilon_ = self.total_epsilon_
        return fit_opened(self, source, frame, rows)

    monkeypatch.setattr(base.Synthesizer, "_fit_opened", per_row_budget_not_divided)
    result = audit(_noisy_count, _D, _D_PRIME, _EVENTS, trials=300, seed=3)
    assert result.violates(_EPSILON) and result.epsilon_lower_bound > 1.5, result
