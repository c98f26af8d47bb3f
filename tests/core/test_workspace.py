"""The workspace: the ledger per dataset survives a new connection, composes per relation, refuses
draws past the lifetime budget, and never loses a spend when two draws race."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.constraints import ADVANCED_COMPOSITION_DELTA
from dpsynth_core.privacy.accounting import ADD_REMOVE, SUBSTITUTE, Accountant, PrivacyEvent
from dpsynth_core.workspace import BudgetExceeded, Workspace, format_epsilon, ledger_text
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
    ws.record_release(FP, _release(1.0), name="people.csv", settings={"epsilon": 1.0})
    ws.record_release(FP, _release(0.5, "dirichlet"), name="people.csv", settings={"epsilon": 0.5})
    again = Workspace(tmp_path)  # a restart: a new object on the same folder
    spending = again.spending(FP)
    totals = {r.neighbouring: r for r in spending.relations}
    assert set(totals) == {ADD_REMOVE, SUBSTITUTE}  # never added together
    assert totals[ADD_REMOVE].epsilon == pytest.approx(1.0) and totals[SUBSTITUTE].epsilon == pytest.approx(0.5)
    assert spending.draws == 2 and spending.unguaranteed == 0
    stored = again.releases(FP)
    assert [r.method for r in stored] == ["dirichlet", "cathist"]
    assert list(stored[1].data().columns) == ["sex", "age"] and len(stored[1].data()) == stored[1].rows


def test_composition_is_the_accountants_and_reports_delta(tmp_path):
    ws = Workspace(tmp_path)
    release = _release(0.1)
    release_id = ws.record_release(FP, release, name="people.csv", settings={})
    many = [PrivacyEvent("Laplace", 0.005, label=f"statistic {i}") for i in range(300)]
    ws.record_report(FP, release_id, events=many, figures={}, html="<p>report</p>")
    total = ws.spending(FP).relations[0]
    # the better of: everything composed together, or each spend's own guarantee added up
    joint = Accountant(list(release.accountant.events) + many).total(ADVANCED_COMPOSITION_DELTA)
    own = [
        Accountant(list(release.accountant.events)).total(ADVANCED_COMPOSITION_DELTA),
        Accountant(many).total(ADVANCED_COMPOSITION_DELTA),
    ]
    assert total.epsilon == pytest.approx(min(joint["epsilon"], sum(t["epsilon"] for t in own)))
    assert total.delta > 0 and total.epsilon < 0.1 + 300 * 0.005  # far below plain addition of all events
    assert "δ = 1e-6" in ledger_text(ws, FP) and ws.reports(release_id)[0]["html"] == "<p>report</p>"


def test_zcdp_releases_compose_in_rho_at_their_delta(tmp_path):
    ws = Workspace(tmp_path)
    releases = [_release(1.0, "marginals") for _ in range(2)]
    for release in releases:
        ws.record_release(FP, release, name="people.csv", settings={})
    single = releases[0].card["guarantee"]
    assert single["composition"] == "zCDP"
    total = ws.spending(FP).relations[0]
    delta = max(r.accountant.delta for r in releases)
    expected = Accountant([e for r in releases for e in r.accountant.events], delta=delta).total()
    assert total.epsilon == pytest.approx(expected["epsilon"]) and total.delta == pytest.approx(expected["delta"])
    assert total.epsilon < 2.0 and total.basic_epsilon == pytest.approx(2.0, rel=1e-6)
    one = Workspace(tmp_path / "one")
    one.record_release(FP, releases[0], name="people.csv", settings={})
    assert one.spending(FP).relations[0].epsilon == pytest.approx(single["epsilon"])  # a single release: its card


def test_method_without_guarantee_is_counted_as_such(tmp_path):
    ws = Workspace(tmp_path)
    ws.record_release(FP, _release(1.0, "microagg"), name="people.csv", settings={})
    spending = ws.spending(FP)
    assert spending.unguaranteed == 1 and spending.relations == ()
    ws.set_lifetime_budget(FP, 3.0)
    with pytest.raises(BudgetExceeded, match="no differential-privacy guarantee"):
        ws.record_release(FP, _release(1.0, "microagg"), name="people.csv", settings={})


def test_lifetime_budget_refuses_with_an_explanation_and_records_nothing(tmp_path):
    ws = Workspace(tmp_path)
    ws.set_lifetime_budget(FP, 1.5, name="people.csv")
    ws.record_release(FP, _release(1.0), name="people.csv", settings={})
    with pytest.raises(BudgetExceeded, match=r"lifetime budget of ε = 1.5.*ε = 1 is already spent.*0.5 is left"):
        ws.record_release(FP, _release(1.0), name="people.csv", settings={})
    with pytest.raises(BudgetExceeded):
        ws.check(FP, [PrivacyEvent("planned", 0.6)])
    ws.check(FP, [PrivacyEvent("planned", 0.5)])
    assert ws.spending(FP).draws == 1 and len(ws.releases(FP)) == 1
    assert ws.spending(FP).left() == pytest.approx(0.5)


def test_two_concurrent_draws_record_two_spends(tmp_path, monkeypatch):
    ws = Workspace(tmp_path)
    original = Workspace._check

    def slow_check(self, *args):  # widen the window between reading the ledger and writing to it
        result = original(self, *args)
        time.sleep(0.3)
        return result

    monkeypatch.setattr(Workspace, "_check", slow_check)
    releases = [_release(1.0) for _ in range(2)]
    start = threading.Barrier(2)
    outcomes = []

    def draw(release):
        start.wait()
        outcomes.append(Workspace(tmp_path).record_release(FP, release, name="people.csv", settings={}))

    threads = [threading.Thread(target=draw, args=(r,)) for r in releases]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outcomes) == 2 and ws.spending(FP).draws == 2
    assert ws.spending(FP).relations[0].epsilon == pytest.approx(2.0)


def test_two_concurrent_draws_never_overspend_a_lifetime_budget(tmp_path, monkeypatch):
    ws = Workspace(tmp_path)
    ws.set_lifetime_budget(FP, 1.5)
    original = Workspace._check

    def slow_check(self, *args):
        result = original(self, *args)
        time.sleep(0.3)
        return result

    monkeypatch.setattr(Workspace, "_check", slow_check)
    start = threading.Barrier(2)
    outcomes = []

    def draw(seed):
        start.wait()
        try:
            Workspace(tmp_path).record_release(FP, _release(1.0), name="people.csv", settings={})
            outcomes.append("recorded")
        except BudgetExceeded:
            outcomes.append("refused")

    threads = [threading.Thread(target=draw, args=(s,)) for s in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["recorded", "refused"]
    assert ws.spending(FP).relations[0].epsilon == pytest.approx(1.0)


def test_workspaces_created_at_once_in_one_new_folder_all_open(tmp_path):
    """Six openers of one new folder at the same moment: none may see another's half-made file
    (tables without the marker read as "another program's database"; a write-ahead-log switch
    answered "locked"). Before the fix, 6 x 60 openings failed 5-7 times."""
    problems = []

    def open_workspace(folder):
        try:
            Workspace(folder)
        except Exception as problem:  # noqa: BLE001 - every failure is the finding
            problems.append(str(problem))

    secrets = set()
    for trial in range(60):
        folder = tmp_path / f"ws{trial}"
        openers = [threading.Thread(target=open_workspace, args=(folder,)) for _ in range(6)]
        for opener in openers:
            opener.start()
        for opener in openers:
            opener.join()
        with sqlite3.connect(folder / "workspace.sqlite") as conn:
            secrets.add(conn.execute("SELECT secret FROM workspace_key").fetchall()[0][0])
    assert problems == []
    assert len(secrets) == 60  # one key per workspace, kept by the first opener


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
    key = ws.dataset_key(ws.records_key(data))
    assert ws.spending(key).draws == 2 and ws.spending(key).relations[0].epsilon == pytest.approx(1.0)
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


def test_policies_declarations_and_session_are_kept(tmp_path):
    ws = Workspace(tmp_path)
    ws.save_policy("census people", DOMAIN)
    ws.remember_declaration(FP, DOMAIN)
    ws.save_session("browser-a", {"data": FP, "epsilon": 2.0})
    again = Workspace(tmp_path)
    assert again.policy("census people") == DOMAIN and again.policies()[0]["columns"] == ["sex", "age"]
    assert again.declaration_for(FP) == DOMAIN and again.last_session("browser-a")["epsilon"] == 2.0


def test_each_browser_resumes_its_own_session_and_the_file_holds_no_identity(tmp_path, monkeypatch):
    import sqlite3

    from dpsynth_core.workspace import choices as module

    ws = Workspace(tmp_path)
    ws.save_session("secret-a", {"source": "upload: people.csv", "data": FP})
    ws.save_session("secret-b", {"source": "example: adult"})
    ws.save_session("secret-a", {"source": "upload: people.csv", "data": FP, "epsilon": 0.5})
    assert ws.last_session("secret-a") == {"source": "upload: people.csv", "data": FP, "epsilon": 0.5}
    assert ws.last_session("secret-b") == {"source": "example: adult"}
    assert ws.last_session("never-seen") is None
    with pytest.raises(ValueError):
        ws.last_session("")
    assert b"secret-a" not in (tmp_path / "workspace.sqlite").read_bytes()
    monkeypatch.setattr(module, "KEPT_SESSIONS", 2)
    ws.save_session("secret-c", {"source": "example: ce"})
    assert ws.last_session("secret-c") and ws.last_session("secret-a") and ws.last_session("secret-b") is None
    with sqlite3.connect(tmp_path / "workspace.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 2


def test_the_single_shared_session_of_version_1_is_not_resumed_by_anyone(tmp_path):
    import sqlite3

    with sqlite3.connect(tmp_path / "workspace.sqlite") as conn:  # a workspace made by version 1
        conn.executescript(
            "CREATE TABLE app_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO app_state VALUES ('session', '{\"source\": \"upload: people.csv\"}');"
            "PRAGMA user_version = 1;"
        )
    ws = Workspace(tmp_path)
    assert ws.last_session("any-browser") is None
    with sqlite3.connect(tmp_path / "workspace.sqlite") as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "app_state" not in tables and "sessions" in tables


def test_epsilon_is_printed_in_plain_digits():
    assert [format_epsilon(v) for v in (0.05, 1.0, 2.345, 34312.4, float("inf"))] == [
        "0.05",
        "1",
        "2.35",
        "34,312",
        "no guarantee",
    ]
