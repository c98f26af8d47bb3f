"""The workspace file kept safe: whose folder, whose database, which ledger a table belongs to.

What the ledger can catch, and what it cannot (the README's "The budget ledger" says the same):

* **It follows the records, not the bytes.** A table's ledger is found by the keyed
  fingerprint of its records (:mod:`dpsynth_core.data.fingerprint`): the same records
  shuffled, with other line ends, blank lines, another delimiter, saved as Parquet or split
  into parts, or read under another declaration, find the same ledger.
* **Versions of a table share a budget only when named.** A record added or a cell changed
  makes other data with its own fingerprint; the publisher names a dataset
  (``--dataset NAME``, or the name field of the app) so that monthly extracts or corrected
  versions count against one lifetime budget. Once a table's records are in a named dataset,
  they find it without the name too, and they cannot join another name.
* **It is one workspace's ledger.** Another workspace folder (another ``--workspace``, another
  machine, another account) has its own ledger and its own key: nothing links them. A
  draw made with ``--no-ledger`` or through the Python API is in no ledger, and its card
  says so when it comes from the command line.
* **Who can see what.** The workspace folder is its owner's alone (a folder others can write
  is tightened to ``700`` with a note; another user's folder is refused). It holds every
  release, the ledger and a random 256-bit key, never the real data. A fingerprint shown on
  screen is an HMAC under that key, so it confirms nothing about the data to anyone who
  does not hold the workspace file.
* **Every change of a lifetime budget is kept**, with its time, old and new value
  (``ledger --limit`` prints them), so removing a limit leaves a trace.

The database carries SQLite's ``application_id`` :data:`APPLICATION_ID`; a file that holds
another program's database is refused and never altered.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import secrets
import sqlite3
import stat
from pathlib import Path

import pandas as pd

from ..data.fingerprint import check_source, records_fingerprint
from ..errors import DPSynthError

#: SQLite's ``application_id`` of a dpsynth workspace ("dpsy").
APPLICATION_ID = 0x64707379
#: What a release's card says when the command line recorded it in no ledger (``--no-ledger``).
NO_LEDGER = (
    "This release is in no budget ledger (made with --no-ledger): its privacy spend counts against no lifetime budget."
)
#: Tables of the workspace this module adds (schema version 3).
SCHEMA = """
CREATE TABLE IF NOT EXISTS workspace_key (id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS dataset_records (records TEXT PRIMARY KEY, dataset TEXT NOT NULL, joined TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS limit_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT, fingerprint TEXT NOT NULL, created TEXT NOT NULL, old REAL, new REAL,
    source TEXT NOT NULL);
"""
#: The tables of the workspaces of versions 1 and 2 (before the marker), all of them dpsynth's.
_OUR_TABLES = {"datasets", "releases", "spends", "reports", "declarations", "policies", "app_state", "sessions"}
_NAME_PREFIX = "name:"


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


def schema_script() -> str:
    """This module's tables, the workspace's key (256 random bits, kept by the first process that
    makes it) and the marker, as SQL statements for the transaction that creates a workspace."""
    return (
        f"PRAGMA application_id = {APPLICATION_ID};\n{SCHEMA}"
        f"INSERT OR IGNORE INTO workspace_key (id, secret) VALUES (1, X'{secrets.token_hex(32)}');\n"
    )


def secret(conn) -> bytes | None:
    """The workspace's key (None in a workspace too old to hold one, opened read-only)."""
    try:
        row = conn.execute("SELECT secret FROM workspace_key WHERE id = 1").fetchone()
    except sqlite3.OperationalError:
        return None
    return bytes(row[0]) if row else None


# --- which ledger ---------------------------------------------------------------------------


def name_key(name: str) -> str:
    """The ledger key of a dataset the publisher named."""
    if not isinstance(name, str) or not name.strip():
        raise DPSynthError("a dataset name must not be empty")
    name = name.strip()
    if len(name) > 200 or any(ord(c) < 32 for c in name):
        raise DPSynthError("a dataset name is at most 200 characters, with no line ends or control characters")
    return _NAME_PREFIX + name


def shown_name(key: str) -> str | None:
    """The publisher's name of a named dataset's key, else None."""
    return key[len(_NAME_PREFIX) :] if key.startswith(_NAME_PREFIX) else None


def named_by(conn, records: str) -> str | None:
    row = conn.execute("SELECT dataset FROM dataset_records WHERE records = ?", (records,)).fetchone()
    return row[0] if row else None


def join_named(conn, records: str, key: str, now: str) -> None:
    """Put a table's records into a named dataset, moving any ledger they had alone into it.

    Their spends, releases and declaration follow; of two lifetime budgets the smaller holds
    (the change is recorded). Records already in another named dataset are refused.
    """
    current = named_by(conn, records)
    if current == key:
        return
    if current is not None:
        raise DPSynthError(
            f"these records are already counted in the dataset '{shown_name(current)}': use that "
            "name, so that one lifetime budget holds for them"
        )
    conn.execute("INSERT INTO dataset_records (records, dataset, joined) VALUES (?, ?, ?)", (records, key, now))
    for table in ("spends", "releases"):
        conn.execute(f"UPDATE {table} SET fingerprint = ? WHERE fingerprint = ?", (key, records))
    conn.execute("UPDATE OR IGNORE declarations SET fingerprint = ? WHERE fingerprint = ?", (key, records))
    own = conn.execute("SELECT lifetime_epsilon FROM datasets WHERE fingerprint = ?", (records,)).fetchone()
    if own is not None and own[0] is not None:
        theirs = conn.execute("SELECT lifetime_epsilon FROM datasets WHERE fingerprint = ?", (key,)).fetchone()
        if theirs is None or theirs[0] is None or own[0] < theirs[0]:
            conn.execute(
                "INSERT OR IGNORE INTO datasets (fingerprint, name, first_seen, last_seen) VALUES (?, ?, ?, ?)",
                (key, shown_name(key), now, now),
            )
            record_limit(conn, key, own[0], now, "joined")
    conn.execute("DELETE FROM datasets WHERE fingerprint = ?", (records,))


def record_limit(conn, key: str, epsilon: float | None, now: str, source: str) -> None:
    """Set a dataset's lifetime budget and keep the change (time, old and new value)."""
    row = conn.execute("SELECT lifetime_epsilon FROM datasets WHERE fingerprint = ?", (key,)).fetchone()
    old = row[0] if row else None
    conn.execute("UPDATE datasets SET lifetime_epsilon = ? WHERE fingerprint = ?", (epsilon, key))
    if old != epsilon:
        conn.execute(
            "INSERT INTO limit_changes (fingerprint, created, old, new, source) VALUES (?, ?, ?, ?, ?)",
            (key, now, old, epsilon, source),
        )


def now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class LedgerKeys:
    """The workspace's methods for which ledger a table belongs to and its lifetime budget (a part of
    :class:`~dpsynth_core.workspace.Workspace`, which provides ``_connect``, ``_transaction``,
    ``_ensure_dataset``, ``exists`` and ``read_only``)."""

    def reserve(
        self,
        fp: str,
        spend,
        *,
        name: str,
        method: str,
        purpose: str = "release",
        source: str = "app",
        what: str = "This draw",
    ) -> int:
        """Check ``spend`` (a :class:`~dpsynth_core.privacy.accounting.Spend`) against the lifetime budget
        and record it, in one transaction, before the data is read; returns its id. Raises
        ``BudgetExceeded`` (nothing recorded) when it does not fit (:mod:`dpsynth_core.release.budgeted`)."""
        with self._transaction() as conn:
            self._ensure_dataset(conn, fp, name)
            self._check(conn, fp, spend, what)
            return self._insert_spend(conn, fp, spend, purpose, method, source)

    @staticmethod
    def _insert_spend(
        conn, fp: str, spend, purpose: str, method: str, source: str, release_id: int | None = None
    ) -> int:
        import json

        return conn.execute(
            "INSERT INTO spends (fingerprint, created, purpose, method, guaranteed, events, zcdp_delta, source, "
            "release_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                fp,
                now(),
                purpose,
                method,
                int(spend.guaranteed),
                json.dumps([e.as_dict() for e in spend.events], default=float),
                spend.zcdp_delta,
                source,
                release_id,
            ),
        ).lastrowid

    def set_lifetime_budget(
        self, fp: str, epsilon: float | None, *, name: str = "this data", source: str = "app"
    ) -> None:
        """Set (or with None, remove) the lifetime epsilon of a dataset; the change is kept with its time."""
        if epsilon is not None and not (math.isfinite(epsilon) and epsilon > 0):
            raise DPSynthError(f"lifetime budget ({epsilon}) must be a number > 0")
        with self._transaction() as conn:
            self._ensure_dataset(conn, fp, name)
            record_limit(conn, fp, epsilon, now(), source)

    def limit_changes(self, fp: str) -> list[dict]:
        """Every change of a dataset's lifetime budget, oldest first: ``created``, ``old``, ``new``, ``source``."""
        if not self.exists:
            return []
        with self._connect() as conn:
            try:
                rows = conn.execute(
                    "SELECT created, old, new, source FROM limit_changes WHERE fingerprint = ? ORDER BY id", (fp,)
                ).fetchall()
            except sqlite3.OperationalError:  # a workspace older than the table, opened read-only
                return []
        return [dict(zip(("created", "old", "new", "source"), r)) for r in rows]

    def records_key(self, data, *, encoding: str | None = None, delimiter: str | None = None) -> str | None:
        """The keyed fingerprint of a table's records (:func:`~dpsynth_core.data.fingerprint.records_fingerprint`)
        under this workspace's key: the same records, in any file form, give the same key.
        None for a workspace opened read-only that has no key yet (it knows no records)."""
        if not isinstance(data, pd.DataFrame):
            check_source(data)
        if not self.exists:
            return None
        with self._connect() as conn:
            key = secret(conn)
        return None if key is None else records_fingerprint(data, key, encoding=encoding, delimiter=delimiter)

    def dataset_key(self, records: str | None, name: str | None = None) -> str | None:
        """The ledger key of a table: its named dataset's (``name``, or the one its records joined
        before), else its records' own. Naming records puts them into the named dataset for
        good (:func:`join_named`)."""
        if name is not None:
            key = name_key(name)
            if records is not None and not self.read_only:
                with self._transaction() as conn:
                    join_named(conn, records, key, now())
                    self._ensure_dataset(conn, key, shown_name(key))
            return key
        if records is None or not self.exists:
            return records
        with self._connect() as conn:
            try:
                return named_by(conn, records) or records
            except sqlite3.OperationalError:  # an older workspace, opened read-only
                return records
