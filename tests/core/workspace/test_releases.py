"""A stored release in plain words (dpsynth_core.workspace.releases; the Releases page's side-by-side table)."""

from __future__ import annotations

from dpsynth_core.workspace.releases import StoredRelease, epsilon_words, settings_summary


def _release(epsilon, rho=None, seconds=None):
    card = {
        "guarantee": {
            "epsilon": epsilon,
            "delta": 1e-6,
            "composition": "zCDP",
            "neighbouring": "add/remove one record",
        },
        "method": {"title": "Marginals"},
        "parameters": {"rho": rho},
        "rows": {"policy": "noisy: the real count plus noise"},
    }
    settings = {"epsilon": 1.0, "groups": [["sex", "relationship"]]}
    return StoredRelease(3, "fp", "2026-11-25 18:00", "m", settings, card, {}, 1200, {}, seconds, "cli", None)


def test_a_stored_release_in_plain_words():
    release = _release(1.25, rho=0.9, seconds=2.04)
    assert epsilon_words(release) == "1.25" and epsilon_words(_release(None)) == "no guarantee"
    summary = settings_summary(release)
    assert summary["guarantee"] == "ε = 1.25, δ = 1e-6 (zCDP)"
    assert summary["tolerance for randomness"] == "0.9" and summary["rows"] == "1,200 (noisy)"
    assert (
        summary["column groups"] == "sex, relationship"
        and summary["made"] == "2026-11-25 18:00 (command line) in 2.0 s"
    )
    plain = settings_summary(_release(None))
    assert plain["guarantee"] == "none" and plain["tolerance for randomness"] == "not used"
