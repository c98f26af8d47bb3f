"""Every method's release card: nothing in it depends on the data except through a noisy output.

The same seed is run on a table and on a copy whose columns are shuffled independently (the
same 1-way counts, different relationships). Fields computed from the data without noise
(a grouping of columns by their real correlations, say) then differ; fields that are DP
outputs (a privately chosen structure, the number of records that passed a private test)
may differ too, and are checked to be exactly those outputs.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from dpsynth_core import METHODS, synthesize
from tests.core.synthesizers.methods_common import adult_small

OPTIONS = {"microagg": {"k": 25}, "deniability": {"k": 10}}
#: Spend labels naming a privately chosen structure (a DP output shown in method_details).
_STRUCTURE_LABELS = ("table ", "joint ", "structure: ")


def _shuffled(frame):
    rng = np.random.default_rng(0)
    out = frame.copy()
    for name in out.columns:
        out[name] = rng.permutation(out[name].to_numpy())
    return out


def _public_fields(card: dict) -> dict:
    card = copy.deepcopy(card)
    card.pop("created")
    details = card["method_details"]
    structure = details.pop("structure", None)
    named = {c for entry in structure or [] for c in entry.get("parents", entry.get("sampled given", []))}
    for spend in card["spends"]:
        if structure is not None and spend["label"].startswith(_STRUCTURE_LABELS):
            spend["label"] = "structure"
    card["budget_split"] = sorted(card["budget_split"].values())
    card["spends"] = sorted(card["spends"], key=lambda s: (s["label"], s["epsilon"]))
    if card["method"]["name"] == "deniability":  # how many records passed: an output of the private test
        card.pop("rows")
        details.pop("per_record_note", None)
    return card, named


#: ``marginals`` is left out: its card lists the privately selected marginals, rounds and model
#: cliques (all DP outputs, chosen adaptively), covered by the engine's audits in test_marginals.py.
@pytest.mark.parametrize("method", [m for m in METHODS if m != "marginals"])
def test_card_depends_on_the_data_only_through_noisy_outputs(method):
    frame, spec = adult_small(1500)
    a = synthesize(frame, spec, 1.0, method=method, random_state=7, **OPTIONS.get(method, {}))
    b = synthesize(_shuffled(frame), spec, 1.0, method=method, random_state=7, **OPTIONS.get(method, {}))
    public_a, named_a = _public_fields(a.card)
    public_b, named_b = _public_fields(b.card)
    assert public_a == public_b
    assert named_a <= set(spec["columns"]) and named_b <= set(spec["columns"])


def test_microagg_feature_groups_are_labelled_by_index_and_listed_for_the_publisher_only():
    frame, spec = adult_small(1500)
    release = synthesize(frame, spec, 1.0, method="microagg", random_state=1, k=25)
    labels = [s["label"] for s in release.card["spends"] if s["label"].startswith("feature group")]
    groups = release.card["method_details"]["feature_groups"]
    assert labels == [f"feature group {i}" for i in range(1, groups + 1)]
    listed = release.publisher_report["columns"]["feature_groups"]
    assert len(listed) == groups and sorted(c for g in listed for c in g) == sorted(spec["columns"])
    assert not any(name in str(release.card["method_details"]) for name in spec["columns"])
