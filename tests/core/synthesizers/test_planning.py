"""The Privacy page's plan, computed before any data is read: its table and the column groups typed there."""

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.data.examples import example_declaration
from dpsynth_core.domain.editing import parse_groups
from dpsynth_core.synthesizers.planning import PLAN_HELP, column_plan, plan_table, row_count_note


def test_plan_table_has_text_cells_and_only_figures_that_apply():
    declaration = example_declaration("adult")
    plan = column_plan(declaration, 1.0, 0.9, method="cathist")
    table = plan_table(plan)
    assert list(table["column"]) == [row["column"] for row in plan]
    assert all(isinstance(v, str) and v != "None" for v in table.to_numpy().ravel())
    assert set(table.columns) - {"column"} <= set(PLAN_HELP)
    assert "τ" in table.columns  # CatHist columns have a threshold
    marginals = plan_table(column_plan(declaration, 1.0, 0.9, method="marginals"))
    assert "τ" not in marginals.columns and "prior per cell" not in marginals.columns
    assert not any(v.startswith("about") for v in marginals.to_numpy().ravel())
    text = {**declaration, "columns": {**declaration["columns"], "note": {"type": "text", "generator": "english_word"}}}
    plan = column_plan(text, 1.0, 0.9, method="marginals", expected_rows=1000)
    table = plan_table(plan).set_index("column")
    others = [row["column"] for row in plan if row["kind"] != "text"]
    assert all(row.get("estimated") for row in plan if row["kind"] != "text")  # the vocabulary is not known yet
    assert table.loc[others, "ε"].str.startswith("about ").all()
    assert table.loc[others, "noise per bin"].str.startswith("about ").all()
    assert not table.loc["note", "ε"].startswith("about")  # the vocabulary's own share is exact


def test_groups_are_read_one_per_line_and_unknown_names_are_named():
    groups, unknown = parse_groups(
        "sex, income\n\n age ,marital-status, nope\n", ["sex", "income", "age", "marital-status"]
    )
    assert groups == [["sex", "income"], ["age", "marital-status", "nope"]] and unknown == ["nope"]
    # a survey's question as a column's name, in double quotes; shown so on the Privacy page
    from dpsynth_core.wording import line_text

    groups, unknown = parse_groups('"Income, annual", age', ["Income, annual", "age"])
    assert groups == [["Income, annual", "age"]] and unknown == [] and line_text(groups[0]) == '"Income, annual", age'


def test_the_epsilon_advice_names_the_whole_files_epsilon_when_it_differs():
    from dpsynth_core import constraints
    from dpsynth_core.synthesizers.planning import epsilon_advice

    warn, text = epsilon_advice(1.0, 1.0)
    assert not warn and text.startswith("**Moderate.** A common choice")
    warn, text = epsilon_advice(2.5, 1.0)
    assert text.startswith("With this method the whole file's ε is **2.5** (see below). **Weak.**")
    warn, text = epsilon_advice(constraints.EPSILON_MAX * 2, 1.0)
    assert warn and "**Very weak.** At this ε the promise bounds almost nothing" in text


def test_the_epsilon_advice_names_whom_epsilon_protects():
    """Each row, or a declared person with all of their rows: the slider's sentence never promises a person's
    protection where the unit is a row (a person with several rows is protected row by row)."""
    from dpsynth_core import constraints
    from dpsynth_core.domain.table import PersonUnit
    from dpsynth_core.synthesizers.planning import epsilon_advice

    patient = PersonUnit("pid", 3, "patient")
    for whole in (0.2, 1.0, 5.0, constraints.EPSILON_MAX * 2):
        row, person = epsilon_advice(whole, whole)[1], epsilon_advice(whole, whole, patient)[1]
        assert "one person's record" in row and "patient" not in row, row
        assert "one patient (all of their rows)" in person and "person's record" not in person, person


def test_the_plan_warns_before_the_draw_when_the_noisy_row_count_is_large_beside_the_table():
    """At epsilon 0.1, cathist's row count gets 5% (noise of about ±200 rows) and marginals' 1% (±1,000): on
    a table of 500 records the draw can come out with a handful of rows, even one. Said before the draw, with
    the free choice; not said with a public number of rows, a table well above the noise, or a method whose
    number of rows is not a noisy count."""
    from dpsynth_core.synthesizers.planning import row_count_note

    spec = {"columns": {"c": {"type": "categorical", "values": ["a", "b"]}}}
    note = row_count_note(spec, 0.1, method="cathist", expected_rows=500)
    assert note is not None and "±200 rows" in note and "500 records" in note and "costs no budget" in note
    assert "±1,000 rows" in row_count_note(spec, 0.1, method="marginals", expected_rows=500)
    assert row_count_note(spec, 0.1, method="cathist", rows=500, expected_rows=500) is None
    assert row_count_note(spec, 0.1, method="cathist", expected_rows=5000) is None
    assert row_count_note(spec, 0.1, method="deniability", expected_rows=500) is None
    assert row_count_note(spec, 0.1, method="cathist") is None  # no table yet


@pytest.mark.parametrize("method", ["cathist", "marginals"])
def test_the_row_warning_states_the_noise_a_release_then_records_and_draws(method):
    """The Privacy page's ±N (before any data is read) is the scale 1/epsilon of the row count the release then
    records, and the noisy count's mean |noise| is about N (the discrete Laplace's is 2a / (1 - a^2), a =
    exp(-epsilon), within 1% of 1/epsilon here): 4,000 draws, standard error N / 63, tolerance 5 of them."""
    from dpsynth_core import synthesize
    from dpsynth_core.privacy.noise import make_noise_source
    from dpsynth_core.synthesizers.charges import row_count_event

    spec = {"columns": {"c": {"type": "categorical", "values": ["a", "b"]}}}
    frame = pd.DataFrame({"c": ["a", "b"] * 250})
    note = row_count_note(spec, 0.1, method=method, expected_rows=len(frame))
    count = row_count_event(synthesize(frame, spec, 0.1, method=method, random_state=0).accountant.events)
    scale = 1 / count.epsilon
    assert f"±{scale:,.0f} rows" in note, note
    drawn = make_noise_source(4).discrete_laplace(4000, scale)
    assert abs(np.abs(drawn).mean() - scale) < 5 * scale / np.sqrt(4000)


def test_the_plan_states_the_most_bins_a_fitted_column_may_end_with_and_what_it_counts():
    """A whole-number column declared by its range alone may end with a bin per value of a short kept range under the
    default method (:func:`dpsynth_core.privacy.leaf_cuts.split_short`): its plan says "up to 36 bins" for it (20 for a
    date, 12 for a real number, 20 under a method that cuts no short range), the bound a release keeps; the budget's split counts a typical fitted column's 20, and the
    Privacy page's note says which (a figure shown is what it claims)."""
    from dpsynth_core import constraints
    from dpsynth_core.domain import TableDomain
    from dpsynth_core.synthesizers.marginals.budget import planned_cells
    from dpsynth_core.synthesizers.planning.plan import ESTIMATE_NOTE

    spec = {
        "columns": {
            "n": {"type": "integer", "min": 0, "max": 100},
            "d": {"type": "date", "min": "2000-01-01", "max": "2020-12-31"},
            "x": {"type": "float", "min": 0.0, "max": 1.0},
        }
    }
    rows = {row["column"]: row for row in column_plan(spec, 1.0, 0.9, method="marginals")}
    assert rows["n"]["domain_size_words"].startswith(f"up to {constraints.SHORT_RANGE_BINS} bins")
    bayes = {row["column"]: row for row in column_plan(spec, 1.0, 0.9, method="bayesnet")}  # cuts no short range
    assert bayes["n"]["domain_size_words"].startswith(f"up to {constraints.FITTED_MAX_BINS} bins")
    assert rows["d"]["domain_size_words"].startswith(f"up to {constraints.FITTED_MAX_BINS} bins")
    assert rows["x"]["domain_size_words"].startswith(f"up to {constraints.ADAPTIVE_MAX_BINS} bins")
    shown = plan_table(column_plan(spec, 1.0, 0.9, method="marginals")).set_index("column")["possible values"]
    assert shown["n"] == f"up to {constraints.SHORT_RANGE_BINS + 1} bins"  # a bound, and "missing"
    kept = TableDomain.from_json(spec).kept
    assert planned_cells(kept["n"]) == constraints.FITTED_MAX_BINS + 1  # and "missing"
    assert f"counted here as {constraints.FITTED_MAX_BINS} for whole numbers" in ESTIMATE_NOTE
    assert f"up to {constraints.SHORT_RANGE_BINS})" in ESTIMATE_NOTE


@pytest.mark.parametrize("most", [1, 4])
def test_the_plans_noise_per_count_is_the_releases_with_a_person_unit_too(most):
    """With a person of at most K rows the method measures at epsilon / K per row (group privacy), so each count's
    noise is about K times a row unit's: the plan (the Privacy page's "each count is off by about ±N records", the
    made-up values, the thresholds) says the noise the release then draws, within the plan's margin over the split
    (0 to 15% above it: the plan counts fitted columns at their most bins). Adult's first 4,000 records, 4 a person.
    The plan once priced a person unit at the whole epsilon per row, a quarter of the noise at K = 4."""
    import json
    import math

    from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False).head(4000)
    frame.insert(0, "pid", [str(i // 4) for i in range(len(frame))])
    spec = complete_domain("adult")
    spec["columns"] = {"pid": {"type": "drop"}, **spec["columns"]}
    if most > 1:
        spec["person"] = {"column": "pid", "max_rows": most}
    fitted = MarginalsSynthesizer(epsilon=1.0, random_state=0).fit(frame, json.loads(json.dumps(spec)))
    drawn = {m["marginal"][0]: m["sigma"] for m in fitted.measured_ if len(m["marginal"]) == 1}
    planned = {r["column"]: r for r in column_plan(spec, 1.0, 0.9, expected_rows=len(frame))}
    for name in ("sex", "race", "education"):
        sigma = planned[name]["typical_error_per_bin"] / math.sqrt(2 / math.pi)
        assert 1.0 <= sigma / drawn[name] <= 1.15, (name, sigma, drawn[name])


def test_the_privacy_note_states_the_delta_a_person_units_release_card_states():
    """lme4's sleepstudy (18 subjects of 10 rows each), a person of up to 10 rows at ε = 1: the method's δ of 1e-10 is
    each row's, and group privacy over the person's 10 rows multiplies it (1.6e-9). The Privacy page said "δ = 1e-10"
    beside the per-person ε; it now says the row's δ as a row's and the person's δ as the release card states it.
    A row unit (or one row a person) is said as before, with no per-person line."""
    from dpsynth_core.release.settings import synthesize
    from dpsynth_core.synthesizers.planning import privacy_note
    from dpsynth_core.wording import format_delta
    from tests.conftest import shared_path

    frame = pd.read_csv(shared_path("sleepstudy.csv"))
    columns = {"rownames": {"type": "drop"}, "Reaction": {"type": "float", "min": 0, "max": 1000}}
    spec = {"columns": {**columns, "Days": {"type": "integer", "min": 0, "max": 9}, "Subject": {"type": "drop"}}}
    person = {**spec, "person": {"column": "Subject", "max_rows": 10}}
    card = synthesize(frame, person, 1.0).card["guarantee"]
    _, said = privacy_note(person, 1.0)
    assert said.startswith("**δ (delta) = 1e-10 for each row.**"), said
    assert f"**Per person** (up to 10 rows each): δ = {format_delta(card['delta'])}, the chance" in said, said
    assert format_delta(card["delta"]) != "1e-10"
    for unit in (spec, {**spec, "person": {"column": "Subject", "max_rows": 1}}):
        _, said = privacy_note(unit, 1.0)
        assert said.startswith("**δ (delta) = 1e-10.**") and "Per person" not in said, said
