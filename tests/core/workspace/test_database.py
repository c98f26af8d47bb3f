"""The workspace's file (dpsynth_core.workspace.database). Removed or replaced while a process has it
open, every read and write is refused with :class:`WorkspaceGone`, and nothing is made again in its
place (an empty ledger would show a dataset that has spent budget as if nothing had been drawn, and let
it spend again). Opened by several processes at once, each sees a whole workspace. Its surfaces fail
cleanly: another program's database, damaged or read-only workspaces, a folder others can write,
outputs aimed at the database."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading

import pytest

from dpsynth_core.cli import main
from dpsynth_core.privacy.accounting import PrivacyEvent
from dpsynth_core.privacy.spending import Spend
from dpsynth_core.workspace import FILE_NAME, Workspace, WorkspaceGone
from dpsynth_core.workspace.database import APPLICATION_ID

FP = "0123456789abcdef" * 4
SPEND = Spend((PrivacyEvent("Laplace", 1.0, label="a histogram"),), True, 0.0)


def _every_use(ws: Workspace) -> dict:
    """A read and a write of each kind the app and the command line make."""
    return {
        "spending": lambda: ws.ledger.spending(FP),
        "reserve": lambda: ws.ledger.reserve(FP, SPEND, name="people.csv", method="cathist"),
        "releases": lambda: ws.releases.made_from(FP),
        "datasets": lambda: ws.ledger.datasets(),
        "save_session": lambda: ws.choices.save_session("browser", {"source": "example: adult"}),
        "last_session": lambda: ws.choices.last_session("browser"),
        "save_policy": lambda: ws.choices.save_policy("p", {"columns": {}}),
        "lifetime budget": lambda: ws.ledger.set_lifetime_budget(FP, 2.0),
    }


def _spent(tmp_path) -> tuple[Workspace, object]:
    folder = tmp_path / "ws-x"
    ws = Workspace(folder)
    ws.ledger.reserve(FP, SPEND, name="people.csv", method="cathist")
    assert ws.ledger.spending(FP).relations[0].epsilon == pytest.approx(1.0)
    return ws, folder


def test_a_removed_folder_is_refused_everywhere_and_never_made_again(tmp_path):
    ws, folder = _spent(tmp_path)
    shutil.rmtree(folder)
    for what, use in _every_use(ws).items():
        with pytest.raises(WorkspaceGone, match="was removed or replaced while it was in use") as gone:
            use()
        assert gone.value.folder == folder, what
        assert not folder.exists(), what  # no empty ledger in its place


def test_a_removed_database_file_is_refused_and_sqlite_makes_no_empty_one(tmp_path):
    ws, folder = _spent(tmp_path)
    for name in (FILE_NAME, FILE_NAME + "-wal", FILE_NAME + "-shm"):
        (folder / name).unlink(missing_ok=True)
    for use in _every_use(ws).values():
        with pytest.raises(WorkspaceGone):
            use()
    assert not (folder / FILE_NAME).exists()


def test_another_workspace_put_in_its_place_is_refused_not_read_as_nothing_spent(tmp_path):
    ws, folder = _spent(tmp_path)
    shutil.rmtree(folder)
    fresh = Workspace(folder)  # another process (the command line, a restart) makes a new, empty one
    assert fresh.ledger.spending(FP).relations == ()
    for use in _every_use(ws).values():
        with pytest.raises(WorkspaceGone):
            use()


def test_the_folder_put_back_is_used_again_with_its_ledger(tmp_path):
    ws, folder = _spent(tmp_path)
    moved = folder.rename(tmp_path / "backup")
    with pytest.raises(WorkspaceGone):
        ws.ledger.spending(FP)
    moved.rename(folder)
    assert ws.ledger.spending(FP).relations[0].epsilon == pytest.approx(1.0)
    ws.ledger.reserve(FP, SPEND, name="people.csv", method="cathist")
    assert Workspace(folder).ledger.spending(FP).draws == 2


def test_a_workspace_opened_read_only_where_none_was_made_still_reads_as_empty(tmp_path):
    ws = Workspace(tmp_path / "never", read_only=True)
    assert ws.ledger.datasets() == [] and not (tmp_path / "never").exists()


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
    ws.ledger.set_lifetime_budget("0" * 64, 1.0, name="x")
    with sqlite3.connect(tmp_path / "workspace.sqlite") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = (tmp_path / "workspace.sqlite").read_bytes()
    (tmp_path / "workspace.sqlite").write_bytes(data[: len(data) // 2])
    assert main(["ledger", "--workspace", str(tmp_path)]) == 2
    assert "internal" not in capsys.readouterr().err


def test_a_read_only_workspace_can_be_listed(tmp_path, capsys, monkeypatch):
    ws = Workspace(tmp_path / "ws")
    ws.ledger.set_lifetime_budget("0" * 64, 2.0, name="people.csv")
    os.chmod(tmp_path / "ws" / "workspace.sqlite", 0o400)
    os.chmod(tmp_path / "ws", 0o500)
    from dpsynth_core.workspace import database

    real = os.access
    monkeypatch.setattr(database.os, "access", lambda path, mode: False if mode & os.W_OK else real(path, mode))
    try:  # (as root, permissions do not bind: os.access says what an ordinary user would meet)
        before = sorted(os.listdir(tmp_path / "ws"))
        assert main(["ledger", "--workspace", str(tmp_path / "ws")]) == 0
        assert "people.csv" in capsys.readouterr().out and sorted(os.listdir(tmp_path / "ws")) == before
    finally:
        os.chmod(tmp_path / "ws", 0o700)


def test_a_folder_others_can_write_is_tightened_with_a_note(tmp_path, capsys):
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, 0o777)
    assert main(["ledger", "--workspace", str(folder), "--dataset", "x", "--limit", "1"]) == 0
    assert "chmod 700" in capsys.readouterr().err and (folder.stat().st_mode & 0o777) == 0o700


def test_outputs_never_name_the_workspace_and_empty_paths_are_refused(record_forms, capsys):
    ws = record_forms / "ws"
    Workspace(ws)
    before = (ws / "workspace.sqlite").read_bytes()
    base = ["synth", str(record_forms / "a.csv"), "--domain", str(record_forms / "d.json"), "--epsilon", "1"]
    for extra in (
        ["--out", str(record_forms / "o.csv"), "--card", str(ws / "workspace.sqlite"), "--workspace", str(ws)],
        ["--out", str(record_forms / "o.csv"), "--card-html", str(ws / "workspace.sqlite-wal"), "--workspace", str(ws)],
        ["--out", str(ws / "workspace.sqlite"), "--workspace", str(ws)],
        ["--out", ""],
        ["--out", str(record_forms / "o.csv"), "--workspace", ""],
        ["--out", str(record_forms / "o.csv"), "--workspace", str(record_forms / "parts" / "ws"), "--input-parts"],
    ):
        argv = base + extra
        if "--input-parts" in extra:  # the workspace inside the input folder: its database would join the table
            argv = [a for a in argv if a != "--input-parts"]
            argv[1] = str(record_forms / "parts")
        assert main(argv) == 2, extra
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "internal" not in err, err
    assert (ws / "workspace.sqlite").read_bytes() == before and not (record_forms / "o.csv").exists()
    assert sorted(os.listdir(record_forms / "parts")) == ["part-0.parquet", "part-1.parquet"]
