"""Accounts, reviewer links and what a reviewer is shown (dpsynth_core.workspace.access)."""

import re

import pandas as pd
import pytest

from dpsynth_core import DPSynthError, synthesize
from dpsynth_core.workspace import Workspace, access

SECRET_NAME = "zanzibar_patients.csv"


def test_passwords_are_hashed_with_scrypt_and_checked():
    stored = access.hash_password("correct horse battery")
    assert stored.startswith("scrypt$32768$8$1$") and "correct" not in stored
    assert access.password_matches("correct horse battery", stored)
    assert not access.password_matches("correct horse batterY", stored)
    assert stored != access.hash_password("correct horse battery")  # a fresh salt each time
    assert not access.password_matches("x", "garbage")


def test_accounts_live_in_the_workspace(tmp_path):
    workspace = Workspace(tmp_path)
    workspace.access.add_account("alice", "correct horse battery")
    assert workspace.access.accounts() == ["alice"]
    assert workspace.access.sign_in("alice", "correct horse battery")
    assert not workspace.access.sign_in("alice", "wrong password!")
    assert not workspace.access.sign_in("bob", "correct horse battery")
    with pytest.raises(DPSynthError, match="at least 10"):
        workspace.access.add_account("bob", "short")
    with pytest.raises(DPSynthError, match="account name"):
        workspace.access.add_account("bob smith", "long enough password")
    assert b"correct horse" not in (tmp_path / workspace.path.name).read_bytes()
    workspace.access.remove_account("alice")
    assert workspace.access.accounts() == []


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
    assert access.login_required(address) is required


def _release(workspace) -> int:
    real = pd.DataFrame({"ward": ["a", "b", "a", "c"] * 50, "name": [f"Xanthippe-{i}" for i in range(200)]})
    declaration = {
        "dataset": SECRET_NAME,
        "columns": {"ward": {"type": "categorical", "values": ["a", "b", "c"]}, "name": {"type": "drop"}},
    }
    release = synthesize(real, declaration, 1.0, method="cathist")
    workspace.ledger.remember_dataset("f" * 64, SECRET_NAME)
    return workspace.releases.record("f" * 64, release, name=SECRET_NAME, settings={"method": "cathist"})


def test_a_reviewer_link_opens_chosen_releases_and_only_its_hash_is_kept(tmp_path):
    workspace = Workspace(tmp_path)
    first, second = _release(workspace), _release(workspace)
    token = workspace.access.create_link([second], note="board meeting")
    assert len(token) >= 43 and workspace.access.releases_for(token) == [second]
    assert token.encode() not in workspace.path.read_bytes()
    assert workspace.access.releases_for(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    assert workspace.access.releases_for(None) is None and workspace.access.releases_for("") is None
    [link] = workspace.access.links()
    assert link["releases"] == [second] and link["note"] == "board meeting" and not link["revoked"]
    workspace.access.revoke_link(link["id"])
    assert workspace.access.releases_for(token) is None
    with pytest.raises(DPSynthError):
        workspace.access.create_link([])
    with pytest.raises(DPSynthError, match="no release #999"):
        workspace.access.create_link([999])
    assert first != second


def test_a_reviewer_sees_no_file_name_and_no_real_value(tmp_path):
    workspace = Workspace(tmp_path)
    view = workspace.access.reviewer_view(_release(workspace))
    shown = str(view.card) + "".join(view.reports) + view.csv.decode()
    assert "zanzibar" not in shown and "Xanthippe" not in shown and access.NAME_STAND_IN in str(view.card)
    assert view.csv.decode().splitlines()[0] == "ward"


def test_what_does_not_exist_cannot_be_removed_or_revoked_and_nothing_is_replaced_unasked(tmp_path):
    workspace = Workspace(tmp_path)
    workspace.access.add_account("alice", "correct horse battery")
    with pytest.raises(DPSynthError, match="the account alice exists"):
        workspace.access.add_account("alice", "another long password")
    assert workspace.access.sign_in("alice", "correct horse battery")
    workspace.access.add_account("alice", "another long password", replace=True)
    assert workspace.access.sign_in("alice", "another long password")
    with pytest.raises(DPSynthError, match="there is no account 'nobody'"):
        workspace.access.remove_account("nobody")
    token = workspace.access.create_link([_release(workspace)])
    [link] = workspace.access.links()
    for wrong, message in (("abc", "is not a link id"), ("0" * 12, "there is no reviewer link"), ("\x1b[2J", "'?")):
        with pytest.raises(DPSynthError, match=re.escape(message)):
            workspace.access.revoke_link(wrong)
    workspace.access.revoke_link(link["id"])
    with pytest.raises(DPSynthError, match="already revoked"):
        workspace.access.revoke_link(link["id"])
    assert workspace.access.releases_for(token) is None


def test_a_password_typed_composed_or_decomposed_is_one_password(tmp_path):
    workspace = Workspace(tmp_path)
    composed, decomposed = "caf\u00e9 au lait!", "cafe\u0301 au lait!"
    workspace.access.add_account("zoe", composed)
    assert workspace.access.sign_in("zoe", decomposed) and workspace.access.sign_in("zoe", composed)


def test_sign_in_slows_down_after_failures_per_account_and_per_client(tmp_path):
    workspace = Workspace(tmp_path)
    workspace.access.add_account("alice", "correct horse battery")
    clock = [1000.0]
    tries = access.SIGN_IN_FREE_TRIES

    def sign_in(password, name="alice", client="10.0.0.7"):
        return workspace.access.sign_in(name, password, client=client, clock=lambda: clock[0])

    for _ in range(tries):
        assert not sign_in("wrong password!")
    with pytest.raises(access.SignInPaused, match="try again in 1 s"):
        sign_in("correct horse battery")  # even the right password waits: nothing is checked
    with pytest.raises(access.SignInPaused):  # the same account from another client waits too
        sign_in("correct horse battery", client="10.0.0.8")
    with pytest.raises(access.SignInPaused):  # another account from the same client waits too
        sign_in("anything at all", name="bob")
    clock[0] += 1.01
    assert not sign_in("wrong again!")  # the wait doubles with each failure
    clock[0] += 1.5
    with pytest.raises(access.SignInPaused, match="try again in 1 s"):
        sign_in("correct horse battery")
    clock[0] += 0.6
    assert sign_in("correct horse battery")  # a success clears both counts
    assert not sign_in("wrong password!") and sign_in("correct horse battery")
    for _ in range(access.SIGN_IN_FREE_TRIES + 11):  # 2 ** 11 s: past the cap (each try hashes a password)
        clock[0] += access.SIGN_IN_MAX_WAIT + 1
        sign_in("wrong password!", client="10.9.9.9")
    with pytest.raises(access.SignInPaused) as paused:
        sign_in("correct horse battery", client="10.9.9.9")
    assert paused.value.seconds <= access.SIGN_IN_MAX_WAIT


def test_the_name_is_scrubbed_in_every_form_a_report_or_card_can_hold_it():
    name = 'Tom\'s <ward> & "co".csv'
    stem = name.rsplit(".", 1)[0]
    import html
    import json as json_

    texts = [name, html.escape(name), html.escape(name, quote=False), json_.dumps(name), stem, html.escape(stem)]
    texts.append(html.escape(name).replace("&#x27;", "&#39;").replace("&quot;", "&#34;"))
    scrubbed = access.scrub_names(" | ".join(texts), {name, stem})
    assert "Tom" not in scrubbed and "ward" not in scrubbed and scrubbed.count(access.NAME_STAND_IN) == len(texts)
