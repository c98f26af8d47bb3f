"""A workspace removed or replaced while a process has it open: every read and write is refused with
:class:`WorkspaceGone`, and nothing is made again in its place (an empty ledger would show a dataset that
has spent budget as if nothing had been drawn, and let it spend again)."""

from __future__ import annotations

import shutil

import pytest

from dpsynth_core.privacy.accounting import PrivacyEvent, Spend
from dpsynth_core.workspace import FILE_NAME, Workspace, WorkspaceGone

FP = "0123456789abcdef" * 4
SPEND = Spend((PrivacyEvent("Laplace", 1.0, label="a histogram"),), True, 0.0)


def _every_use(ws: Workspace) -> dict:
    """A read and a write of each kind the app and the command line make."""
    return {
        "spending": lambda: ws.spending(FP),
        "reserve": lambda: ws.reserve(FP, SPEND, name="people.csv", method="cathist"),
        "releases": lambda: ws.releases(FP),
        "datasets": lambda: ws.datasets(),
        "save_session": lambda: ws.save_session("browser", {"source": "example: adult"}),
        "last_session": lambda: ws.last_session("browser"),
        "save_policy": lambda: ws.save_policy("p", {"columns": {}}),
        "lifetime budget": lambda: ws.set_lifetime_budget(FP, 2.0),
    }


def _spent(tmp_path) -> tuple[Workspace, object]:
    folder = tmp_path / "ws-x"
    ws = Workspace(folder)
    ws.reserve(FP, SPEND, name="people.csv", method="cathist")
    assert ws.spending(FP).relations[0].epsilon == pytest.approx(1.0)
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
    assert fresh.spending(FP).relations == ()
    for use in _every_use(ws).values():
        with pytest.raises(WorkspaceGone):
            use()


def test_the_folder_put_back_is_used_again_with_its_ledger(tmp_path):
    ws, folder = _spent(tmp_path)
    moved = folder.rename(tmp_path / "backup")
    with pytest.raises(WorkspaceGone):
        ws.spending(FP)
    moved.rename(folder)
    assert ws.spending(FP).relations[0].epsilon == pytest.approx(1.0)
    ws.reserve(FP, SPEND, name="people.csv", method="cathist")
    assert Workspace(folder).spending(FP).draws == 2


def test_a_workspace_opened_read_only_where_none_was_made_still_reads_as_empty(tmp_path):
    ws = Workspace(tmp_path / "never", read_only=True)
    assert ws.datasets() == [] and not (tmp_path / "never").exists()
