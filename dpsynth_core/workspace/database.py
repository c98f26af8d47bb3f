"""The workspace's database file: where it lives, its tables, and the connections and write
transactions every part of :class:`~dpsynth_core.workspace.Workspace` goes through."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import sqlite3
import time
from pathlib import Path

from ..errors import DPSynthError
from ..release import ledger

#: Environment variable naming the workspace folder.
ENVIRONMENT_VARIABLE = "DPSYNTH_WORKSPACE"
#: The database file inside the folder.
FILE_NAME = "workspace.sqlite"
_SCHEMA_VERSION = 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS datasets (
    fingerprint TEXT PRIMARY KEY, name TEXT NOT NULL, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL,
    lifetime_epsilon REAL);
CREATE TABLE IF NOT EXISTS releases (
    id INTEGER PRIMARY KEY AUTOINCREMENT, fingerprint TEXT NOT NULL, created TEXT NOT NULL,
    method TEXT NOT NULL, settings_key TEXT, settings TEXT NOT NULL, card TEXT NOT NULL,
    publisher_report TEXT NOT NULL, rows INTEGER NOT NULL, csv_gzip BLOB NOT NULL, metrics TEXT,
    seconds REAL, source TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS spends (
    id INTEGER PRIMARY KEY AUTOINCREMENT, fingerprint TEXT NOT NULL, created TEXT NOT NULL,
    purpose TEXT NOT NULL, method TEXT NOT NULL, guaranteed INTEGER NOT NULL, events TEXT NOT NULL,
    zcdp_delta REAL NOT NULL DEFAULT 0, source TEXT NOT NULL, release_id INTEGER);
CREATE TABLE IF NOT EXISTS reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT, release_id INTEGER NOT NULL, spend_id INTEGER NOT NULL,
    created TEXT NOT NULL, epsilon REAL NOT NULL, figures TEXT NOT NULL, html TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS declarations (fingerprint TEXT PRIMARY KEY, updated TEXT NOT NULL, spec TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS policies (name TEXT PRIMARY KEY, updated TEXT NOT NULL, spec TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (browser TEXT PRIMARY KEY, updated TEXT NOT NULL, value TEXT NOT NULL);
DROP TABLE IF EXISTS app_state;  -- version 1: one saved session that every browser resumed
CREATE INDEX IF NOT EXISTS spends_by_data ON spends (fingerprint);
CREATE INDEX IF NOT EXISTS releases_by_data ON releases (fingerprint, settings_key);
"""


class WorkspaceGone(DPSynthError):
    """The workspace opened earlier was removed (or another one put in its place) while it was in use.

    Never made again in its place: a new workspace would hold an empty ledger and a new key, so a
    dataset that has spent budget would be shown (and allowed to spend) as if nothing had been drawn.
    The process that opened it refuses every further read and write; restoring the folder brings it back.
    """

    def __init__(self, folder: Path):
        self.folder = folder
        super().__init__(
            f"the workspace folder {folder} was removed or replaced while it was in use, and its privacy "
            "ledger with it: nothing more was read or recorded. Put the folder back (from a backup), or start "
            "again to begin a new, empty workspace (budget already spent on your data still counts, though "
            "the new ledger will not show it)"
        )


def default_folder() -> Path:
    """``$DPSYNTH_WORKSPACE`` if set, else ``~/.dpsynth``."""
    chosen = os.environ.get(ENVIRONMENT_VARIABLE)
    return Path(chosen).expanduser() if chosen else Path.home() / ".dpsynth"


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _json(value) -> str:
    def plain(obj):
        if hasattr(obj, "item"):  # numpy scalars
            return obj.item()
        if isinstance(obj, (set, tuple)):
            return list(obj)
        return str(obj)

    return json.dumps(value, default=plain, allow_nan=True)


def _switch_to_wal(conn, *, patience: float = 60.0) -> None:
    """Put the database in write-ahead-log mode. SQLite answers "database is locked" at once, without
    waiting, when another process is switching the same new file at that moment: wait and retry."""
    deadline = time.monotonic() + patience
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as problem:
            if "locked" not in str(problem) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


class Database:
    """The workspace database in ``folder`` (default :func:`default_folder`), created on first use."""

    def __init__(self, folder=None, *, read_only: bool = False):
        self.folder = Path(folder).expanduser() if folder is not None else default_folder()
        self.read_only = read_only
        #: Notes for the publisher about the folder (it was tightened), to show once.
        self.notes = ledger.prepare_folder(self.folder, create=not read_only)
        self.path = self.folder / FILE_NAME
        #: The workspace's key once opened: every later connection checks it is still this workspace.
        self._key = None
        found = ledger.check_database_file(self.path)
        self.exists = found != "none"
        if read_only:
            return
        with self._connect() as conn:
            if found != "ours" or conn.execute("PRAGMA user_version").fetchone()[0] < _SCHEMA_VERSION:
                _switch_to_wal(conn)
                # One transaction: another process opening the file at the same moment sees either
                # nothing or the whole marked workspace, never tables without the marker.
                conn.executescript(
                    f"BEGIN IMMEDIATE;\n{ledger.schema_script()}{_SCHEMA}"
                    f"PRAGMA user_version = {_SCHEMA_VERSION};\nCOMMIT;"
                )
            self._key = ledger.secret(conn)
        self.exists = True
        with contextlib.suppress(OSError):
            self.path.chmod(0o600)

    @contextlib.contextmanager
    def _connect(self):
        """A connection to this workspace; :class:`WorkspaceGone` once the file opened earlier is gone or
        is another workspace's (SQLite would otherwise make an empty one in its place)."""
        if self._key is not None and not self.path.exists():
            raise WorkspaceGone(self.folder)
        try:
            if self.read_only:
                conn = sqlite3.connect(ledger.read_only_uri(self.path), uri=True, timeout=60, isolation_level=None)
            elif self._key is not None:  # opened before: never created again here
                conn = sqlite3.connect(
                    f"{self.path.absolute().as_uri()}?mode=rw", uri=True, timeout=60, isolation_level=None
                )
            else:
                conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        except sqlite3.Error as problem:
            if self._key is not None and not self.path.exists():
                raise WorkspaceGone(self.folder) from None
            raise DPSynthError(f"cannot open the workspace {self.path}: {problem}") from None
        try:
            if self._key is not None and ledger.secret(conn) != self._key:
                raise WorkspaceGone(self.folder)
            yield conn
        except sqlite3.DatabaseError as problem:
            raise DPSynthError(
                f"the workspace {self.path} cannot be used ({problem}): if it is damaged, move it "
                "away or choose another folder"
            ) from None
        finally:
            conn.close()

    @contextlib.contextmanager
    def _transaction(self):
        """A write transaction that holds the database's write lock from its first statement."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def transaction(self):
        """A write transaction, for the stores kept beside the ledger (accounts and reviewer links,
        :mod:`dpsynth_core.release.review`)."""
        return self._transaction()
