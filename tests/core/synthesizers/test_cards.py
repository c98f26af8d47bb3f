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
#: cliques (all DP outputs, chosen adaptively), covered by the method's audits in tests/core/synthesizers/marginals/.
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


def _text_table(rows_per_value: int = 10, values: int = 300):
    rng = np.random.default_rng(3)
    import pandas as pd

    names = np.repeat([f"name{i:03d}" for i in range(values)], rows_per_value)
    frame = pd.DataFrame({"name": rng.permutation(names), "city": rng.choice(["Oslo", "Rome", "Lima"], len(names))})
    spec = {
        "columns": {
            "name": {"type": "text", "generator": "any", "size": 100_000},
            "city": {"type": "text", "generator": "any", "size": 100_000},
        }
    }
    return frame, spec


@pytest.mark.parametrize("method", [m for m in METHODS if m != "dirichlet"])  # dirichlet refuses free text
def test_the_card_says_in_plain_words_when_no_value_of_a_free_text_column_came_out(method):
    """300 values of 10 records each: none comes out of CatHist at this epsilon, so every cell of the column
    that is not missing shows the public placeholder; the card says so (the count needed is public: it
    follows from the column's epsilon, rho and declared size). A column whose values came out has no note.
    (Seeded so that no made-up value came out either, which CatHist allows with probability 1 - rho.)"""
    from dpsynth_core.release.card import render_card_html

    frame, spec = _text_table()
    release = synthesize(frame, spec, 1.0, method=method, random_state=2, **OPTIONS.get(method, {}))
    notes = release.card["notes"]
    about_name = [n for n in notes if "'name'" in n]
    assert len(about_name) == 1 and not any("'city'" in n for n in notes), notes
    assert "'value-00000'" in about_name[0] and "records to come out half the time" in about_name[0], about_name
    assert (release.data["name"].dropna() == "value-00000").all()
    assert about_name[0].replace("'", "&#x27;") in render_card_html(release.card)


def test_the_card_explains_a_small_noisy_row_count_and_names_the_free_choice():
    """At epsilon 0.1 the row count gets 5% of it: noise of about 200 rows, so a table of 100 records can come
    out with a handful of rows (once, 1 row of 1,000). The card then says how large the noise is and that a
    fixed number of rows costs nothing; with a public number, or a count well above its noise, it says
    nothing."""
    import pandas as pd

    small = pd.DataFrame({"city": np.resize(["Oslo", "Rome", "Lima"], 100)})
    spec = {"columns": {"city": {"type": "categorical", "values": ["Oslo", "Rome", "Lima"]}}}
    release = synthesize(small, spec, 0.1, method="cathist", random_state=1)
    (note,) = [n for n in release.card["notes"] if "rows" in n]
    assert f"{release.card['rows']['synthetic']:,} row" in note and "about ±200" in note, note
    assert "--rows" in note and "no budget" in note
    fixed = synthesize(small, spec, 0.1, method="cathist", random_state=1, rows=100)
    assert not any("rows" in n for n in fixed.card["notes"])
    large = pd.DataFrame({"city": np.resize(["Oslo", "Rome", "Lima"], 5000)})
    assert not any("rows" in n for n in synthesize(large, spec, 1.0, method="cathist", random_state=1).card["notes"])
