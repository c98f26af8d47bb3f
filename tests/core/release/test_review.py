"""Accounts, reviewer links and what a reviewer is shown (dpsynth_core.release.review)."""

import pandas as pd
import pytest

from dpsynth_core import DPSynthError, synthesize
from dpsynth_core.release import review
from dpsynth_core.workspace import Workspace

SECRET_NAME = "zanzibar_patients.csv"


def test_passwords_are_hashed_with_scrypt_and_checked():
    stored = review.hash_password("correct horse battery")
    assert stored.startswith("scrypt$32768$8$1$") and "correct" not in stored
    assert review.password_matches("correct horse battery", stored)
    assert not review.password_matches("correct horse batterY", stored)
    assert stored != review.hash_password("correct horse battery")  # a fresh salt each time
    assert not review.password_matches("x", "garbage")


def test_accounts_live_in_the_workspace(tmp_path):
    workspace = Workspace(tmp_path)
    review.add_account(workspace, "alice", "correct horse battery")
    assert review.accounts(workspace) == ["alice"]
    assert review.sign_in(workspace, "alice", "correct horse battery")
    assert not review.sign_in(workspace, "alice", "wrong password!")
    assert not review.sign_in(workspace, "bob", "correct horse battery")
    with pytest.raises(DPSynthError, match="at least 10"):
        review.add_account(workspace, "bob", "short")
    with pytest.raises(DPSynthError, match="account name"):
        review.add_account(workspace, "bob smith", "long enough password")
    assert b"correct horse" not in (tmp_path / workspace.path.name).read_bytes()
    review.remove_account(workspace, "alice")
    assert review.accounts(workspace) == []


@pytest.mark.parametrize(
    "address, required",
    [
        ("127.0.0.1", False),
        ("localhost", False),
        ("::1", False),
        ("0.0.0.0", True),
        ("192.168.1.5", True),
        (None, True),
        ("", True),
    ],
)
def test_a_login_is_required_beyond_this_computer(address, required):
    assert review.login_required(address) is required


def _release(workspace) -> int:
    real = pd.DataFrame({"ward": ["a", "b", "a", "c"] * 50, "name": [f"Xanthippe-{i}" for i in range(200)]})
    declaration = {
        "dataset": SECRET_NAME,
        "columns": {"ward": {"type": "categorical", "values": ["a", "b", "c"]}, "name": {"type": "drop"}},
    }
    release = synthesize(real, declaration, 1.0, method="cathist")
    workspace.remember_dataset("f" * 64, SECRET_NAME)
    return workspace.record_release("f" * 64, release, name=SECRET_NAME, settings={"method": "cathist"})


def test_a_reviewer_link_opens_chosen_releases_and_only_its_hash_is_kept(tmp_path):
    workspace = Workspace(tmp_path)
    first, second = _release(workspace), _release(workspace)
    token = review.create_link(workspace, [second], note="board meeting")
    assert len(token) >= 43 and review.releases_for(workspace, token) == [second]
    assert token.encode() not in workspace.path.read_bytes()
    assert review.releases_for(workspace, token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    assert review.releases_for(workspace, None) is None and review.releases_for(workspace, "") is None
    [link] = review.links(workspace)
    assert link["releases"] == [second] and link["note"] == "board meeting" and not link["revoked"]
    review.revoke_link(workspace, link["id"])
    assert review.releases_for(workspace, token) is None
    with pytest.raises(DPSynthError):
        review.create_link(workspace, [])
    with pytest.raises(DPSynthError, match="no release #999"):
        review.create_link(workspace, [999])
    assert first != second


def test_a_reviewer_sees_no_file_name_and_no_real_value(tmp_path):
    workspace = Workspace(tmp_path)
    view = review.reviewer_view(workspace, _release(workspace))
    shown = str(view.card) + "".join(view.reports) + view.csv.decode()
    assert "zanzibar" not in shown and "Xanthippe" not in shown and review.NAME_STAND_IN in str(view.card)
    assert view.csv.decode().splitlines()[0] == "ward"
