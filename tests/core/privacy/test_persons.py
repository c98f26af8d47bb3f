"""The privacy unit "one person, up to K rows": declaration, bounding, group privacy, card, ledger, CLI."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.cli import main
from dpsynth_core.domain import PersonUnit, TableDomain
from dpsynth_core.errors import DomainError, ParameterError
from dpsynth_core.evaluation import report as reports
from dpsynth_core.privacy.accounting import ADD_REMOVE, Accountant, PrivacyEvent, expanded_events, person_relation
from dpsynth_core.privacy.persons import bound_rows, group_guarantee, person_ledger
from dpsynth_core.release import synthesize
from dpsynth_core.synthesizers import METHODS
from dpsynth_core.synthesizers.planning import price
from tests.conftest import stated, synth_argv

SPEC = {
    "columns": {
        "pid": {"type": "drop"},
        "c": {"type": "categorical", "values": ["a", "b", "c"]},
        "x": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
    },
    "person": {"column": "pid", "max_rows": 2, "name": "patient"},
}


def _visits(n: int = 2000, people: int = 500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "pid": rng.integers(0, people, n).astype(str),
            "c": rng.choice(list("abc"), n),
            "x": rng.integers(0, 100, n).astype(str),
        }
    )


# --- the declaration ----------------------------------------------------------------------------


def test_declaration_round_trip_and_identifier_never_kept():
    domain = TableDomain.from_json(SPEC)
    assert domain.person == PersonUnit("pid", 2, "patient")
    assert "pid" not in domain.kept
    assert TableDomain.from_json(domain.to_json()) == domain
    assert domain.person.in_words() == "each patient, up to 2 rows"
    # an identifier declared as a kept kind is still left out of the release
    spec = json.loads(json.dumps(SPEC))
    spec["columns"]["pid"] = {"type": "integer", "min": 0, "max": 1000, "bin_width": 10}
    assert "pid" not in TableDomain.from_json(spec).kept


@pytest.mark.parametrize(
    "person, message",
    [
        ({"column": "pid", "max_rows": 0}, "max_rows"),
        ({"column": "pid", "max_rows": "2"}, "max_rows"),
        ({"column": "pid"}, "max_rows"),
        ({"column": "pid", "max_rows": 2, "size": 3}, "size"),
    ],
)
def test_declaration_form_is_checked(person, message):
    with pytest.raises(DomainError, match=message):
        TableDomain.from_json(dict(SPEC, person=person))


def test_undeclared_person_column_is_a_problem():
    domain = TableDomain.from_json(dict(SPEC, person={"column": "patient_id", "max_rows": 2}))
    assert any("patient_id" in p for p in domain.problems())


# --- bounding -----------------------------------------------------------------------------------


def test_bound_rows_keeps_at_most_k_per_person_in_order():
    frame = pd.DataFrame({"pid": ["a", "a", "a", "b", None, None, "c", "a", "b"], "v": range(9)})
    kept = bound_rows(frame, "pid", 2, np.random.default_rng(1))
    assert kept["pid"].value_counts().max() <= 2
    assert list(kept.index) == sorted(kept.index)  # original order
    assert {4, 5, 6} <= set(
        kept.index
    )  # the two rows without an identifier are one person (2 rows, K = 2); c has one row
    assert (kept["pid"] == "b").sum() == 2


def test_bound_rows_chooses_uniformly():
    frame = pd.DataFrame({"pid": ["p"] * 3, "v": [0, 1, 2]})
    rng = np.random.default_rng(7)
    picks = np.array([bound_rows(frame, "pid", 1, rng)["v"].iloc[0] for _ in range(3000)])
    shares = np.bincount(picks, minlength=3) / 3000
    assert np.all(np.abs(shares - 1 / 3) < 0.04), shares  # 5 standard errors


def test_bound_rows_is_vectorised():
    frame = pd.DataFrame({"pid": np.random.default_rng(0).integers(0, 200_000, 1_000_000)})
    start = time.perf_counter()
    kept = bound_rows(frame, "pid", 3, np.random.default_rng(0))
    assert time.perf_counter() - start < 5
    assert kept["pid"].value_counts().max() == 3


# --- group privacy ------------------------------------------------------------------------------


def test_group_guarantee():
    assert group_guarantee(0.5, 0.0, 3) == (1.5, 0.0)
    eps, delta = group_guarantee(0.5, 1e-7, 3)
    assert eps == 1.5 and delta == pytest.approx(1e-7 * (1 + math.exp(0.5) + math.exp(1.0)))
    assert group_guarantee(1.0, 1e-6, 1) == (1.0, 1e-6)
    assert group_guarantee(400.0, 1e-6, 2)[1] == 1.0


def test_person_ledger_states_the_whole_release_per_person():
    rows = Accountant([PrivacyEvent("count", 0.1), PrivacyEvent("histogram", 0.4)])
    ledger = person_ledger(rows, PersonUnit("pid", 2, "patient"), 1e-6)
    assert ledger.neighbouring == person_relation("pid")
    assert ledger.total(1e-6)["epsilon"] == pytest.approx(1.0)


# --- releases -----------------------------------------------------------------------------------


def _charged_the_publishers_epsilon(method: str) -> bool:
    """The method takes a person unit and charges the publisher's epsilon (not one of its own, as
    deniability's test does, and not none)."""
    try:
        return price(SPEC, 1.0, method=method).epsilon == pytest.approx(1.0)
    except ParameterError:  # a relation that fixes the number of records cannot protect a person
        return False


@pytest.mark.parametrize("method", [m for m in METHODS if _charged_the_publishers_epsilon(m)])
def test_release_protects_a_person_at_the_publishers_epsilon(method):
    release = synthesize(_visits(), SPEC, 1.0, method=method, random_state=3)
    card = release.card
    assert "pid" not in release.data.columns
    g = stated(card)  # seeded for repeatability: what the same secure draw guarantees
    assert g["epsilon"] == pytest.approx(1.0, rel=1e-6) and g["epsilon"] <= 1.0 + 1e-9
    assert g["neighbouring"] == person_relation("pid")
    assert release.accountant.neighbouring == person_relation("pid")
    assert card["parameters"]["epsilon"] == 1.0
    assert card["privacy_unit"]["epsilon_per_row"] == pytest.approx(0.5)
    assert card["privacy_unit"]["in_words"].startswith("each patient, up to 2 rows")
    assert "one patient (all of their rows)" in g["plain_words"]
    assert sum(card["budget_split"].values()) == pytest.approx(g["epsilon"])
    # the per-row spends add up (by their own composition) to epsilon / K (a run of equal ones listed once)
    per_row = Accountant(expanded_events(card["spends_per_row"]))
    assert per_row.basic()[0] <= 0.5 + 1e-9 or method == "marginals"


def test_release_without_person_says_the_unit_is_a_row():
    spec = {k: v for k, v in SPEC.items() if k != "person"}
    card = synthesize(
        _visits().drop(columns="pid"),
        dict(spec, columns={k: v for k, v in spec["columns"].items() if k != "pid"}),
        1.0,
        random_state=1,
    ).card
    assert card["privacy_unit"]["in_words"].startswith("each row")
    assert stated(card)["neighbouring"] == ADD_REMOVE


def test_person_refused_where_it_cannot_hold():
    with pytest.raises(ParameterError, match="dirichlet"):
        synthesize(_visits(), SPEC, 1.0, method="dirichlet", random_state=1)


def test_report_bounds_people_and_records_the_person_relation():
    real = _visits()
    release = synthesize(real, SPEC, 1.0, random_state=2)
    figures = reports.measure(real, release.data, SPEC, epsilon=0.2, random_state=4, chart_columns=["c"])
    assert {e.neighbouring for e in figures.events} == {person_relation("pid")}
    assert math.fsum(e.epsilon for e in figures.events) == pytest.approx(0.2)
    assert figures.rows < len(real)  # counted after bounding (up to 2 rows of 500 people, plus noise)


# --- CLI ----------------------------------------------------------------------------------------


def test_cli_person_options(tmp_path, capsys):
    data, declaration = tmp_path / "visits.csv", tmp_path / "visits.json"
    _visits(300, 100).to_csv(data, index=False)
    declaration.write_text(json.dumps({k: v for k, v in SPEC.items() if k != "person"}))
    card = tmp_path / "card.json"
    args = synth_argv(data, declaration, out=tmp_path / "out.csv", card=card, workspace=tmp_path / "ws")
    assert main(args + ["--person", "pid", "--max-rows-per-person", "3"]) == 0
    written = json.loads(card.read_text())
    assert written["privacy_unit"]["max_rows_per_person"] == 3
    assert "pid" not in pd.read_csv(tmp_path / "out.csv").columns
    assert "add/remove one person" in capsys.readouterr().out
    assert main(args + ["--person", "pid"]) == 2
    assert main(args + ["--person", "pid", "--max-rows-per-person", "0"]) == 2
    assert main(args + ["--person", "nobody", "--max-rows-per-person", "2"]) == 2
    err = capsys.readouterr().err
    assert "go together" in err and "--max-rows-per-person" in err and "nobody" in err
    # the engine for large files keeps the rows the in-memory path keeps: the same release
    memory = tmp_path / "out.csv"
    before = memory.read_bytes()
    engine_args = synth_argv(data, declaration, out=tmp_path / "engine.csv", workspace=tmp_path / "ws", seed=0)
    memory_args = synth_argv(data, declaration, out=memory, workspace=tmp_path / "ws", seed=0)
    person = ["--person", "pid", "--max-rows-per-person", "2"]
    assert main(memory_args + person) == 0 and main(engine_args + person + ["--engine", "duckdb"]) == 0
    assert (tmp_path / "engine.csv").read_bytes() == memory.read_bytes() != before


@pytest.mark.parametrize("ignore_case, people", [(False, 3), (True, 2)])
def test_identifiers_are_compared_without_surrounding_spaces_and_in_case_when_declared(ignore_case, people):
    """'P9', ' P9 ' and 'P9\\t' are one person; 'p9' is the same person only when the declaration says
    letter case does not matter. Each person keeps at most K rows in all."""
    ids = ["P9", " P9 ", "P9\t", "p9", "p9 ", "Q1"]
    frame = pd.DataFrame({"pid": ids * 4, "x": range(24)})
    kept = bound_rows(frame, "pid", 2, np.random.default_rng(0), ignore_case=ignore_case)
    assert len(kept) == 2 * people
    key = kept["pid"].str.strip()
    key = key.str.casefold() if ignore_case else key
    assert key.value_counts().max() <= 2


def test_rows_with_a_missing_or_empty_identifier_are_together_one_person():
    """A person may lack an identifier on several rows: those rows together keep at most K, never K each."""
    frame = pd.DataFrame({"pid": ["", None, "  ", np.nan, "A", "A", "A"], "x": range(7)})
    kept = bound_rows(frame, "pid", 2, np.random.default_rng(1))
    assert len(kept) == 4  # two of the four without an identifier, two of A's three


def test_ignore_case_is_declared_and_kept_in_the_declaration():
    spec = {"columns": {"pid": {"type": "drop"}, "x": {"type": "integer", "min": 0, "max": 9}}}
    person = {"column": "pid", "max_rows": 2, "ignore_case": True}
    domain = TableDomain.from_json({**spec, "person": person})
    assert domain.person == PersonUnit("pid", 2, "person", True)
    assert domain.to_json()["person"]["ignore_case"] is True
    assert (
        "ignore_case"
        not in TableDomain.from_json({**spec, "person": {"column": "pid", "max_rows": 2}}).to_json()["person"]
    )
