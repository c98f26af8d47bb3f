"""The warning on values that changed shape, on a table where many columns changed: the sentences of the most
changed columns first, the others by name, none lost (the Preview's and the report's)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from dpsynth_core.domain import RANGE_KINDS, TIME_KINDS, TableDomain
from dpsynth_core.evaluation.report_render import _shape_summary
from dpsynth_core.evaluation.shape_words import SHAPE_SHOWN, more_columns, worst_shapes
from dpsynth_core.evaluation.values import value_summaries
from tests.conftest import complete_domain, shared_path


def _named(sentences: list[str]) -> list[str]:
    """The columns the sentences are about, in order, once each."""
    return list(dict.fromkeys(s.split(":")[0] for s in sentences))


def test_the_most_changed_columns_are_said_first_and_the_rest_named():
    # compas's numeric columns, each with a growing share of its rows moved to its largest value
    domain = TableDomain.from_json(complete_domain("compas"))
    real = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False).head(2000)
    numeric = [n for n, c in domain.kept.items() if c.kind in RANGE_KINDS and c.kind not in TIME_KINDS]
    synthetic, rng = real.copy(), np.random.default_rng(0)
    for i, name in enumerate(numeric):
        moved = rng.random(len(real)) < 0.1 + 0.8 * (i + 1) / len(numeric)
        synthetic.loc[moved, name] = str(pd.to_numeric(real[name]).max())
    summaries = value_summaries(real, synthetic, domain)
    changed = [name for name, s in summaries.items() if s["shape"]]
    assert len(changed) > SHAPE_SHOWN + 1, changed
    sentences, others = worst_shapes(summaries, lambda s: s["max_cdf_gap"])
    said = _named(sentences)
    gaps = {name: summaries[name]["max_cdf_gap"] for name in changed}
    assert said == sorted(changed, key=lambda name: -gaps[name])[:SHAPE_SHOWN]
    assert sentences == [s for name in said for s in summaries[name]["shape"]]  # every sentence of a shown column
    assert others == [name for name in changed if name not in said]  # the rest, in table order
    assert min(gaps[n] for n in said) >= max(gaps[n] for n in others)
    assert said[0] == numeric[-1]  # the column most moved leads


def test_the_report_names_the_columns_it_does_not_spell_out():
    values = {f"c{i}": {"shape": [f"c{i}: moved {i}"], "gap": {"value": i / 10}} for i in range(9)}
    values["kept"] = {"shape": [], "gap": {"value": 0.95}}
    summary = _shape_summary(SimpleNamespace(values=values))
    assert summary.index("c8: moved 8") < summary.index("c3: moved 3")  # most changed first
    assert "c2: moved" not in summary and "kept" not in summary
    assert "3 more columns: c0, c1, c2 (see the table of numbers and dates value by value)" in summary
    few = {name: v for name, v in values.items() if name in ("c1", "c5")}
    assert "more column" not in _shape_summary(SimpleNamespace(values=few))


def test_a_long_list_of_other_columns_is_cut_short():
    names = [f"column {i}" for i in range(300)]
    text = more_columns(names)
    assert text.startswith("300 more columns: column 0, column 1,") and text.endswith("and 288 others")
    assert more_columns(["age"]) == "1 more column: age"
