"""What the publisher chose, kept in the workspace: the declaration last used with each dataset,
named reusable policies (declarations), and the app's last session per browser."""

from __future__ import annotations

import hashlib
import json

from ..errors import DPSynthError
from .database import Database, now, to_json


class SavedChoices:
    """Declarations, policies and sessions (a part of :class:`~dpsynth_core.workspace.Workspace`)."""

    def __init__(self, database: Database):
        self.database = database

    # --- declarations and policies ---------------------------------------------------------

    def remember_declaration(self, fp: str, spec: dict) -> None:
        with self.database.transaction() as conn:
            conn.execute(
                "INSERT INTO declarations (fingerprint, updated, spec) VALUES (?, ?, ?) ON CONFLICT "
                "(fingerprint) DO UPDATE SET updated = excluded.updated, spec = excluded.spec",
                (fp, now(), to_json(spec)),
            )

    def declaration_for(self, fp: str) -> dict | None:
        """The declaration last used with this dataset, if any."""
        with self.database.connect() as conn:
            row = conn.execute("SELECT spec FROM declarations WHERE fingerprint = ?", (fp,)).fetchone()
        return json.loads(row[0]) if row else None

    def save_policy(self, name: str, spec: dict) -> None:
        name = name.strip()
        if not name:
            raise DPSynthError("a policy needs a name")
        with self.database.transaction() as conn:
            conn.execute(
                "INSERT INTO policies (name, updated, spec) VALUES (?, ?, ?) ON CONFLICT (name) "
                "DO UPDATE SET updated = excluded.updated, spec = excluded.spec",
                (name, now(), to_json(spec)),
            )

    def policies(self) -> list[dict]:
        """Saved policies, newest first: name, date and the columns they declare."""
        with self.database.connect() as conn:
            rows = conn.execute("SELECT name, updated, spec FROM policies ORDER BY updated DESC, name").fetchall()
        return [{"name": n, "updated": u, "columns": list(json.loads(s).get("columns", {}))} for n, u, s in rows]

    def policy(self, name: str) -> dict | None:
        with self.database.connect() as conn:
            row = conn.execute("SELECT spec FROM policies WHERE name = ?", (name,)).fetchone()
        return json.loads(row[0]) if row else None

    def delete_policy(self, name: str) -> None:
        with self.database.transaction() as conn:
            conn.execute("DELETE FROM policies WHERE name = ?", (name,))

    # --- the app's sessions, one per browser ---------------------------------------------------

    def save_session(self, browser: str, session: dict) -> None:
        """Keep the app's session (which data, which settings) for one browser.

        ``browser`` is the browser's secret identity (a random cookie). Only its SHA-256 is
        stored, so the workspace file does not hold what would let another browser pass for
        it. The most recent ``KEPT_SESSIONS`` browsers are kept.
        """
        with self.database.transaction() as conn:
            # REPLACE gives the row a new, highest rowid: rowids order the browsers by last save.
            conn.execute(
                "INSERT OR REPLACE INTO sessions (browser, updated, value) VALUES (?, ?, ?)",
                (_browser_key(browser), now(), to_json(session)),
            )
            conn.execute(
                "DELETE FROM sessions WHERE rowid NOT IN (SELECT rowid FROM sessions ORDER BY rowid DESC LIMIT ?)",
                (KEPT_SESSIONS,),
            )

    def last_session(self, browser: str) -> dict | None:
        """The session last saved for this browser (None for a browser never seen)."""
        with self.database.connect() as conn:
            row = conn.execute("SELECT value FROM sessions WHERE browser = ?", (_browser_key(browser),)).fetchone()
        return json.loads(row[0]) if row else None


#: Browsers whose last session the workspace keeps (the most recently saved).
KEPT_SESSIONS = 50


def _browser_key(browser: str) -> str:
    if not isinstance(browser, str) or not browser:
        raise ValueError("a session belongs to a browser: its identity must be a non-empty string")
    return hashlib.sha256(browser.encode("utf-8")).hexdigest()
