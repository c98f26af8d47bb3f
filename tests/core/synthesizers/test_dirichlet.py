"""The Dirichlet-multinomial synthesizer: Hu's reference value, substitution audit, added-record audit."""

import io

import numpy as np
import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.errors import ParameterError
from dpsynth_core.synthesizers.dirichlet import DirichletMultinomial, alpha_min
from tests.audit import audit
from tests.conftest import complete_domain, shared_path, stated
from tests.core.synthesizers.methods_common import adult_small, assert_in_domain


def test_reference_alpha_for_ce_race():
    # alpha_min = n / (exp(eps) - 1) with n = 994 (816 + 109 + 7 + 39 + 6 + 17), eps = 5.
    assert alpha_min(994, 5.0) == pytest.approx(6.742953, abs=5e-7)
    frame = pd.read_csv(shared_path("ce.csv"), dtype=str, keep_default_na=False)[["Race"]]
    spec = complete_domain("ce")
    spec["columns"] = {"Race": dict(spec["columns"]["Race"], missing=False)}
    model = DirichletMultinomial(epsilon=5.0, random_state=0).fit(frame, spec)
    assert model.alpha_ == pytest.approx(6.742953, abs=5e-7)
    cells, counts = model.counts_[("Race",)]
    assert counts.sum() == 994 and cells == [6]


def test_card_states_substitution_and_public_row_count():
    frame, spec = adult_small(2000)
    release = synthesize(frame, spec, 3.0, method="dirichlet", random_state=1)
    assert len(release.data) == 2000
    assert "substitute" in stated(release.card)["neighbouring"]
    assert "substitution" in release.card["rows"]["policy"]
    assert "replaced" in stated(release.card)["plain_words"]
    assert_in_domain(release.data, spec)


def test_a_release_written_in_chunks_is_the_table_drawn_in_memory(tmp_path):
    frame, spec = adult_small(2000)
    release = synthesize(frame, spec, 3.0, method="dirichlet", random_state=1)
    written = synthesize(frame, spec, 3.0, method="dirichlet", random_state=1, out=tmp_path / "out.csv", chunk_rows=300)
    assert written.rows == 2000
    back = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    expected = pd.read_csv(io.StringIO(release.data.to_csv(index=False)), dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(back, expected)


def test_groups_keep_relationships_inside_them():
    frame, spec = adult_small(3000)
    model = DirichletMultinomial(epsilon=50.0, random_state=2, groups=[("sex", "relationship")]).fit(frame, spec)
    out = model.sample()
    husbands = out[out["relationship"] == "Husband"]
    assert (husbands["sex"] == "Male").mean() > 0.9  # kept inside the group


@pytest.mark.parametrize("columns", [2, 16], ids=["past the limit", "past 2**64 cells"])
def test_a_group_too_large_for_one_table_is_refused_with_its_size(columns):
    """16 columns of 16 values make 2**64 cells, which numpy's int64 product wrapped to 0 (a ValueError from numpy
    followed): the exact size, refused in one line."""
    names = [f"q{i}" for i in range(columns)]
    frame = pd.DataFrame({n: [str(i % 16) for i in range(50)] for n in names})
    spec = {"columns": {n: {"type": "integer", "min": 0, "max": 1999 if columns == 2 else 15} for n in names}}
    for n in names:
        spec["columns"][n].update(bin_width=1, missing=False)
    size = 2000**2 if columns == 2 else 16**16
    with pytest.raises(ParameterError, match=rf"makes a table of {size:,} cells, more than 2,000,000: group fewer"):
        DirichletMultinomial(epsilon=1.0, random_state=0, groups=[names]).fit(frame, spec)


def test_text_columns_are_refused_with_a_reason():
    spec = {"columns": {"w": {"type": "text", "generator": "english_word"}}}
    with pytest.raises(
        ParameterError, match="finite declared domains; column w is weakly constrained text: .* drop it$"
    ):
        DirichletMultinomial(epsilon=1.0, random_state=0).fit(pd.DataFrame({"w": ["cat"] * 5}), spec)
    spec["columns"]["v"] = spec["columns"]["w"]
    with pytest.raises(ParameterError, match="; columns w, v are weakly constrained text: .* drop them$"):
        DirichletMultinomial(epsilon=1.0, random_state=0).fit(pd.DataFrame({"w": ["cat"] * 5, "v": ["dog"] * 5}), spec)


# --- audits: substitution passes; an added record, or a too-small prior, is caught ---------

_SPEC = {"columns": {"c": {"type": "categorical", "values": ["a", "b", "rare"], "missing": False}}}
_D = pd.DataFrame({"c": ["a"] * 14 + ["b"] * 6})
_D_SUBSTITUTED = pd.DataFrame({"c": ["a"] * 13 + ["b"] * 6 + ["rare"]})
_D_ADDED = pd.DataFrame({"c": ["a"] * 14 + ["b"] * 6 + ["rare"]})
EPS = 1.0
_ORDER = {"a": 0, "b": 1, "rare": 2}  # the declared values' codes
_EVENTS = {
    **{f"rare >= {t}": (lambda t: lambda y: y[2] >= t)(t) for t in (1, 3, 5, 8)},
    **{f"a >= {t}": (lambda t: lambda y: y[0] >= t)(t) for t in (8, 12)},
    "20 rows": lambda y: y.sum() == 20,
}


def _mechanism(frame, seed, shrink=1.0):
    model = DirichletMultinomial(epsilon=EPS, random_state=seed)
    model.fit(frame, _SPEC)
    if shrink != 1.0:  # the broken variant: a prior below Hu's bound, redrawn from the same data
        counts = np.bincount([_ORDER[v] for v in frame["c"]], minlength=3)  # every value is declared
        theta = model.noise_.rng.dirichlet(counts + model.alpha_ * shrink)
        return model.noise_.rng.multinomial(model.rows_, theta)
    return model.counts_[("c",)][1]


def test_audit_substitution_passes():
    result = audit(_mechanism, _D, _D_SUBSTITUTED, _EVENTS, trials=4000, seed=1)
    assert not result.violates(EPS), result


def test_audit_added_record_is_not_covered():
    result = audit(_mechanism, _D, _D_ADDED, _EVENTS, trials=500, seed=2)
    assert result.violates(EPS) and result.worst_event.startswith("20 rows"), result


def test_audit_catches_a_prior_below_the_bound():
    result = audit(lambda f, s: _mechanism(f, s, shrink=0.02), _D, _D_SUBSTITUTED, _EVENTS, trials=4000, seed=3)
    assert result.violates(EPS), result
