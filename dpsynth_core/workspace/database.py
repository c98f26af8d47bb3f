"""The workspace's database file: where it lives, whose it is, its tables, and the connections and
write transactions every part of :class:`~dpsynth_core.workspace.Workspace` goes through.

The file is its owner's alone (a folder others can write is tightened to ``700`` with a note;
another user's folder is refused). It holds every release, the ledger and a random 256-bit key,
never the real data. The database carries SQLite's ``application_id`` :data:`APPLICATION_ID`; a
file that holds another program's database (or a device, or a damaged file) is refused and never
altered, and a workspace removed or replaced while in use is never made again in its place
(:class:`WorkspaceGone`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import secrets
import sqlite3
import stat
import time
from pathlib import Path

from ..errors import DPSynthError

#: Environment variable naming the workspace folder.
ENVIRONMENT_VARIABLE = "DPSYNTH_WORKSPACE"
#: The database file inside the folder.
FILE_NAME = "workspace.sqlite"
#: SQLite's ``application_id`` of a dpsynth workspace ("dpsy").
APPLICATION_ID = 0x64707379
_SCHEMA_VERSION = 4

#: The tables schema version 3 added with the marker: the workspace's key, the records joined to a
#: named dataset (:mod:`.ledger`), and every change of a lifetime budget.
_MARKED_TABLES = """
CREATE TABLE IF NOT EXISTS workspace_key (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS dataset_records (records TEXT PRIMARY KEY, dataset TEXT NOT NULL, joined TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS limit_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT, fingerprint TEXT NOT NULL, created TEXT NOT NULL, old REAL, new REAL,
    source TEXT NOT NULL);
"""
#: The ledger, the releases and the saved choices, and (version 4) the column fingerprints of the records
#: seen (:mod:`.matching`) (the accounts and reviewer links of :mod:`.access`
#: are made by their first use).
_TABLES = """
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
CREATE TABLE IF NOT EXISTS record_columns (
    records TEXT NOT NULL, rows INTEGER NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (records, hash));
CREATE INDEX IF NOT EXISTS record_columns_by_hash ON record_columns (hash, rows);
DROP TABLE IF EXISTS app_state;  -- version 1: one saved session that every browser resumed
CREATE INDEX IF NOT EXISTS spends_by_data ON spends (fingerprint);
CREATE INDEX IF NOT EXISTS releases_by_data ON releases (fingerprint, settings_key);
"""
#: The tables of the workspaces of versions 1 and 2 (before the marker), all of them dpsynth's.
_OUR_TABLES = {"datasets", "releases", "spends", "reports", "declarations", "policies", "app_state", "sessions"}


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


def now() -> str:
    """The time a row is written, as the workspace keeps it (UTC, to the second)."""
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def to_json(value) -> str:
    """A value as the workspace keeps it in a text column (numpy scalars as numbers, sets as lists)."""

    def plain(obj):
        if hasattr(obj, "item"):  # numpy scalars
            return obj.item()
        if isinstance(obj, (set, tuple)):
            return list(obj)
        return str(obj)

    return json.dumps(value, default=plain, allow_nan=True)


# --- the folder and the file ---------------------------------------------------------------


def prepare_folder(folder: Path, *, create: bool = True) -> list[str]:
    """Make sure ``folder`` is the owner's alone; returns notes for the publisher (a folder tightened).

    A folder that does not exist is created readable by its owner only. One that others may
    write (anyone could replace or delete the ledger) is tightened to ``700``; one that
    belongs to another user, or is not a folder, is refused.
    """
    if str(folder).strip() == "":
        raise DPSynthError("the workspace must name a folder")
    if not folder.exists():
        if not create:
            return []
        try:
            folder.mkdir(parents=True, mode=0o700)
            return []
        except FileExistsError:  # another process made it a moment ago: checked below like any folder
            pass
        except OSError as problem:
            raise DPSynthError(f"cannot create the workspace folder {folder}: {problem.strerror}") from None
    info = folder.stat()
    if not stat.S_ISDIR(info.st_mode):
        raise DPSynthError(f"the workspace {folder} is not a folder")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise DPSynthError(f"the workspace folder {folder} belongs to another user: use a folder of your own")
    if info.st_mode & 0o022 and create:
        try:
            folder.chmod(0o700)
        except OSError as problem:
            raise DPSynthError(
                f"the workspace folder {folder} can be changed by other users and could not be "
                f"made private ({problem.strerror}): use a folder of your own"
            ) from None
        return [
            f"the workspace folder {folder} could be changed by other users; it is now readable and "
            "writable by you alone (chmod 700)"
        ]
    return []


def check_database_file(path: Path) -> str:
    """What ``path`` holds before SQLite opens it: ``"none"``, ``"ours"``, ``"legacy"`` (an older dpsynth
    workspace) or ``"empty"``; anything else (a device, another program's database, a damaged
    or foreign file) is refused with one line, and the file is not touched."""
    if not path.exists() and not path.is_symlink():
        return "none"
    try:
        info = path.stat()
    except OSError as problem:
        raise DPSynthError(f"cannot read the workspace {path}: {problem.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise DPSynthError(f"the workspace database {path} is not a regular file")
    if info.st_size == 0:
        return "empty"
    try:
        with open(path, "rb") as handle:
            header = handle.read(100)
    except OSError as problem:
        raise DPSynthError(f"cannot read the workspace {path}: {problem.strerror}") from None
    if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
        raise DPSynthError(
            f"{path} is not a dpsynth workspace (not an SQLite database, or a damaged one): "
            "move it away or choose another folder"
        )
    application, user_version, tables = _inspect(path)
    if application == APPLICATION_ID:
        return "ours"
    if application != 0:
        raise _foreign(path)
    tables -= {"sqlite_sequence"}
    if not tables:
        return "empty"
    if user_version <= 2 and tables <= _OUR_TABLES:  # made by an older dpsynth (no marker yet)
        return "legacy"
    raise _foreign(path)


def _foreign(path: Path) -> DPSynthError:
    return DPSynthError(
        f"{path} holds another program's database, not a dpsynth workspace: it was left as it is; choose another folder"
    )


def _inspect(path: Path) -> tuple[int, int, set]:
    """The file's ``application_id``, ``user_version`` and table names, read through SQLite (not from
    the file's first bytes, which lag behind a write-ahead log another process is still writing)."""
    try:
        conn = sqlite3.connect(read_only_uri(path), uri=True, timeout=60, isolation_level=None)
        try:
            conn.execute("BEGIN")  # one snapshot for the three reads
            application = conn.execute("PRAGMA application_id").fetchone()[0]
            user_version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            return application & 0xFFFFFFFF, user_version, tables
        finally:
            conn.close()
    except sqlite3.Error as problem:
        raise DPSynthError(
            f"the workspace {path} cannot be read ({problem}): move it away or choose another folder"
        ) from None


def read_only_uri(path: Path) -> str:
    """How to open a workspace without writing it: read-only, or immutable when its folder is not
    writable (SQLite's write-ahead log then cannot be opened)."""
    writable = os.access(path.parent, os.W_OK) and os.access(path, os.W_OK)
    return f"{path.absolute().as_uri()}?{'mode=ro' if writable else 'immutable=1'}"


def _creation_script() -> str:
    """One transaction that makes (or brings up to date) a workspace: the marker, every table and the
    workspace's key (256 random bits, kept by the first process that makes it)."""
    return (
        f"BEGIN IMMEDIATE;\nPRAGMA application_id = {APPLICATION_ID};\n{_MARKED_TABLES}"
        f"INSERT OR IGNORE INTO workspace_key (id, secret) VALUES (1, X'{secrets.token_hex(32)}');\n"
        f"{_TABLES}PRAGMA user_version = {_SCHEMA_VERSION};\nCOMMIT;"
    )


def secret(conn) -> bytes | None:
    """The workspace's key (None in a workspace too old to hold one, opened read-only)."""
    try:
        row = conn.execute("SELECT secret FROM workspace_key WHERE id = 1").fetchone()
    except sqlite3.OperationalError:
        return None
    return bytes(row[0]) if row else None


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


# --- the database ---------------------------------------------------------------------------


class Database:
    """The workspace database in ``folder`` (default :func:`default_folder`), created on first use
    (``read_only``: never created nor written; a missing workspace reads as empty)."""

    def __init__(self, folder=None, *, read_only: bool = False):
        self.folder = Path(folder).expanduser() if folder is not None else default_folder()
        self.read_only = read_only
        #: Notes for the publisher about the folder (it was tightened), to show once.
        self.notes = prepare_folder(self.folder, create=not read_only)
        self.path = self.folder / FILE_NAME
        #: The workspace's key once opened: every later connection checks it is still this workspace.
        self._key = None
        found = check_database_file(self.path)
        self.exists = found != "none"
        if read_only:
            return
        with self.connect() as conn:
            if found != "ours" or conn.execute("PRAGMA user_version").fetchone()[0] < _SCHEMA_VERSION:
                _switch_to_wal(conn)
                # One transaction: another process opening the file at the same moment sees either
                # nothing or the whole marked workspace, never tables without the marker.
                conn.executescript(_creation_script())
            self._key = secret(conn)
        self.exists = True
        with contextlib.suppress(OSError):
            self.path.chmod(0o600)

    @contextlib.contextmanager
    def connect(self):
        """A connection to this workspace; :class:`WorkspaceGone` once the file opened earlier is gone or
        is another workspace's (SQLite would otherwise make an empty one in its place)."""
        if self._key is not None and not self.path.exists():
            raise WorkspaceGone(self.folder)
        try:
            if self.read_only:
                conn = sqlite3.connect(read_only_uri(self.path), uri=True, timeout=60, isolation_level=None)
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
            if self._key is not None and secret(conn) != self._key:
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
    def transaction(self):
        """A write transaction that holds the database's write lock from its first statement."""
        with self.connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
