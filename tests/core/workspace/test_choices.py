"""Saved choices (dpsynth_core.workspace.choices): policies and declarations are kept, each browser
resumes its own session, and the file holds no browser's identity."""

from __future__ import annotations

import sqlite3

import pytest

from dpsynth_core.workspace import Workspace

DOMAIN = {
    "columns": {
        "sex": {"type": "categorical", "values": ["Female", "Male"]},
        "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
    }
}
FP = "0123456789abcdef" * 4  # a dataset key (records_key gives them in use)


def test_policies_declarations_and_session_are_kept(tmp_path):
    ws = Workspace(tmp_path)
    ws.choices.save_policy("census people", DOMAIN)
    ws.choices.remember_declaration(FP, DOMAIN)
    ws.choices.save_session("browser-a", {"data": FP, "epsilon": 2.0})
    again = Workspace(tmp_path)
    assert again.choices.policy("census people") == DOMAIN and again.choices.policies()[0]["columns"] == ["sex", "age"]
    assert again.choices.declaration_for(FP) == DOMAIN and again.choices.last_session("browser-a")["epsilon"] == 2.0


def test_each_browser_resumes_its_own_session_and_the_file_holds_no_identity(tmp_path, monkeypatch):
    from dpsynth_core.workspace import choices as module

    choices = Workspace(tmp_path).choices
    choices.save_session("secret-a", {"source": "upload: people.csv", "data": FP})
    choices.save_session("secret-b", {"source": "example: adult"})
    choices.save_session("secret-a", {"source": "upload: people.csv", "data": FP, "epsilon": 0.5})
    assert choices.last_session("secret-a") == {"source": "upload: people.csv", "data": FP, "epsilon": 0.5}
    assert choices.last_session("secret-b") == {"source": "example: adult"}
    assert choices.last_session("never-seen") is None
    with pytest.raises(ValueError):
        choices.last_session("")
    assert b"secret-a" not in (tmp_path / "workspace.sqlite").read_bytes()
    monkeypatch.setattr(module, "KEPT_SESSIONS", 2)
    choices.save_session("secret-c", {"source": "example: ce"})
    assert (
        choices.last_session("secret-c")
        and choices.last_session("secret-a")
        and choices.last_session("secret-b") is None
    )
    with sqlite3.connect(tmp_path / "workspace.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 2


def test_the_single_shared_session_of_version_1_is_not_resumed_by_anyone(tmp_path):
    with sqlite3.connect(tmp_path / "workspace.sqlite") as conn:  # a workspace made by version 1
        conn.executescript(
            "CREATE TABLE app_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO app_state VALUES ('session', '{\"source\": \"upload: people.csv\"}');"
            "PRAGMA user_version = 1;"
        )
    ws = Workspace(tmp_path)
    assert ws.choices.last_session("any-browser") is None
    with sqlite3.connect(tmp_path / "workspace.sqlite") as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "app_state" not in tables and "sessions" in tables
