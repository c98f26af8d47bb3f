"""Releases as the workspace keeps them: their settings, card, publisher-only report and metrics,
their stakeholder reports, and the synthetic file itself (gzip CSV), so any release can be downloaded
again. The real data is never stored here."""

from __future__ import annotations

import atexit
import gzip
import hashlib
import io
import json
import math
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import DPSynthError
from ..privacy.spending import Spend
from ..wording import format_delta, format_epsilon
from .database import Database, now, to_json
from .ledger import Ledger


class TableNotKept(DPSynthError):
    """A release's synthetic file was never written (the process stopped between recording the release and
    writing its table, see :meth:`Releases.record`'s ``table_later``); its card and spend are kept."""


@dataclass
class StoredRelease:
    """A release kept in the workspace (the synthetic file is loaded on demand)."""

    id: int
    fingerprint: str
    created: str
    method: str
    settings: dict
    card: dict
    publisher_report: dict
    rows: int
    metrics: dict
    seconds: float | None
    source: str
    _store: object  # the workspace's :class:`Releases` that holds it (reads the file on demand)

    @property
    def epsilon(self) -> float | None:
        return self.card["guarantee"]["epsilon"]

    def csv_bytes(self) -> bytes:
        """The synthetic file exactly as it was first offered for download."""
        return gzip.decompress(self._store.blob(self.id))

    def data(self) -> pd.DataFrame:
        """The synthetic table, every cell as text (as an uploaded file is read)."""
        return pd.read_csv(io.BytesIO(self.csv_bytes()), dtype=str, keep_default_na=False)


#: Stores holding tables for later (kept alive until written): a process that ends normally writes them.
_HOLDING: set = set()
atexit.register(lambda: [store.write_tables() for store in list(_HOLDING)])

_RELEASE_COLUMNS = "id, fingerprint, created, method, settings, card, publisher_report, rows, metrics, seconds, source"


class Releases:
    """The releases and reports of a workspace (a part of :class:`~dpsynth_core.workspace.Workspace`);
    a release's spend is checked and recorded by its :class:`~dpsynth_core.workspace.ledger.Ledger`."""

    def __init__(self, database: Database, ledger: Ledger):
        self.database = database
        self.ledger = ledger
        self._unwritten: dict = {}  # release id -> its table, until :meth:`write_tables`
        self._writing = threading.Lock()

    # --- recording ----------------------------------------------------------------------------

    def record(
        self,
        fp: str,
        release,
        *,
        name: str,
        settings: dict,
        settings_key: str | None = None,
        source: str = "app",
        seconds: float | None = None,
        spend_id: int | None = None,
        table_later: bool = False,
    ) -> int:
        """Record a release (attached to the spend :meth:`Ledger.reserve` recorded, ``spend_id``; else its
        charge is checked and recorded here, :class:`~dpsynth_core.workspace.ledger.BudgetExceeded` if it
        does not fit); returns the release id.

        ``table_later``: record the release (card, settings, rows) now and keep its table in memory until
        :meth:`write_tables`, which any read of the table calls first: the app shows a new table before
        spending a tenth of a second on writing it. Should the process stop in between, the release stays
        recorded without its file (:class:`TableNotKept` when it is asked for).
        """
        card = release.card
        spend = getattr(release, "charge", None) or Spend(
            release.accountant.events,
            card["guarantee"]["epsilon"] is not None,
            release.accountant.delta if release.accountant.has_zcdp else 0.0,
        )
        # A release written to a file in chunks (``release.data`` None) is stored by its header only.
        table = release.data if release.data is not None else pd.DataFrame(columns=release.columns)
        csv = b"" if table_later else _table_blob(table)  # b"": not written yet
        with self.database.transaction() as conn:
            self.ledger.ensure_dataset(conn, fp, name)
            if spend_id is None:
                self.ledger.check_in(conn, fp, spend, "This draw")
            release_id = conn.execute(
                "INSERT INTO releases (fingerprint, created, method, settings_key, settings, card, publisher_report, "
                "rows, csv_gzip, metrics, seconds, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    fp,
                    now(),
                    card["method"]["name"],
                    settings_key,
                    to_json(settings),
                    to_json(card),
                    to_json(release.publisher_report),
                    release.rows,
                    csv,
                    None,
                    seconds,
                    source,
                ),
            ).lastrowid
            if spend_id is None:
                self.ledger.insert_spend(conn, fp, spend, "release", card["method"]["name"], source, release_id)
            else:
                conn.execute("UPDATE spends SET release_id = ? WHERE id = ?", (release_id, int(spend_id)))
        if table_later:
            with self._writing:
                self._unwritten[release_id] = table
                _HOLDING.add(self)
        return release_id

    # --- the files a release was written to -----------------------------------------------------

    def record_file(self, release_id: int, content: bytes | str) -> None:
        """Remember the SHA-256 digest of a file ``release_id`` was written to (``synth --out``: its CSV or
        Parquet bytes, not the stored table's CSV form), so that :meth:`written_to` finds the release by
        that file later. ``content``: the file's bytes, or the path of the file as written."""
        digest = file_digest(content)
        with self.database.transaction() as conn:
            conn.execute(_FILES_TABLE)
            conn.execute(
                "INSERT OR IGNORE INTO release_files (digest, release_id, created) VALUES (?, ?, ?)",
                (digest, int(release_id), now()),
            )

    def written_to(self, content: bytes | str) -> int | None:
        """The release whose recorded file has exactly this content (bytes, or a file's path); None if none."""
        digest = file_digest(content)
        with self.database.connect() as conn:
            try:
                row = conn.execute("SELECT release_id FROM release_files WHERE digest = ?", (digest,)).fetchone()
            except sqlite3.OperationalError:  # no file recorded yet in this workspace: no table
                return None
        return None if row is None else int(row[0])

    def has_files(self, release_id: int) -> bool:
        """Whether a file written for ``release_id`` was recorded (releases made before files were: no)."""
        with self.database.connect() as conn:
            try:
                row = conn.execute("SELECT 1 FROM release_files WHERE release_id = ?", (int(release_id),)).fetchone()
            except sqlite3.OperationalError:
                return False
        return row is not None

    def write_tables(self) -> None:
        """Write the tables :meth:`record` kept for later (``table_later``); cheap when there are none."""
        with self._writing:  # a reader waits here until a table being written is in the file
            while self._unwritten:
                release_id, table = next(iter(self._unwritten.items()))
                blob = _table_blob(table)
                with self.database.transaction() as conn:
                    conn.execute("UPDATE releases SET csv_gzip = ? WHERE id = ?", (blob, release_id))
                del self._unwritten[release_id]
            _HOLDING.discard(self)

    def save_metrics(self, release_id: int, metrics: dict) -> None:
        """Keep publisher-only metrics with their release (they never enter a release or report)."""
        with self.database.transaction() as conn:
            conn.execute("UPDATE releases SET metrics = ? WHERE id = ?", (to_json(metrics), int(release_id)))

    # --- reading ------------------------------------------------------------------------------

    def made_from(self, fp: str) -> list[StoredRelease]:
        """Every release made from a dataset, newest first."""
        with self.database.connect() as conn:
            rows = conn.execute(
                f"SELECT {_RELEASE_COLUMNS} FROM releases WHERE fingerprint = ? ORDER BY id DESC", (fp,)
            ).fetchall()
        return [self._stored(r) for r in rows]

    def get(self, release_id: int) -> StoredRelease | None:
        """The release with this id, or None."""
        with self.database.connect() as conn:
            row = conn.execute(f"SELECT {_RELEASE_COLUMNS} FROM releases WHERE id = ?", (int(release_id),)).fetchone()
        return self._stored(row) if row else None

    def latest(self, fp: str, settings_key: str) -> StoredRelease | None:
        """The newest release of a dataset made with exactly these settings."""
        with self.database.connect() as conn:
            row = conn.execute(
                f"SELECT {_RELEASE_COLUMNS} FROM releases WHERE fingerprint = ? AND "
                "settings_key = ? ORDER BY id DESC LIMIT 1",
                (fp, settings_key),
            ).fetchone()
        return self._stored(row) if row else None

    def draws_with(self, fp: str, settings_key: str) -> int:
        """How many releases of a dataset were made with exactly these settings."""
        with self.database.connect() as conn:
            return conn.execute(
                "SELECT COUNT(*) FROM releases WHERE fingerprint = ? AND settings_key = ?", (fp, settings_key)
            ).fetchone()[0]

    def typical_seconds(self, fp: str, method: str) -> float | None:
        """How long the last draws of this method on this data took (for time-left estimates)."""
        with self.database.connect() as conn:
            rows = conn.execute(
                "SELECT seconds FROM releases WHERE fingerprint = ? AND method = ? AND seconds "
                "IS NOT NULL ORDER BY id DESC LIMIT 3",
                (fp, method),
            ).fetchall()
        return sorted(r[0] for r in rows)[len(rows) // 2] if rows else None

    def blob(self, release_id: int) -> bytes:
        """A release's synthetic file as kept (gzip CSV), written first if it was kept for later."""
        self.write_tables()
        with self.database.connect() as conn:
            blob = conn.execute("SELECT csv_gzip FROM releases WHERE id = ?", (release_id,)).fetchone()[0]
        if not blob:
            raise TableNotKept(
                f"the synthetic file of release #{release_id} was not kept: the app stopped before writing it "
                "(its card and its spend are recorded)"
            )
        return blob

    def _stored(self, row) -> StoredRelease:
        rid, fp, created, method, settings, card, report, rows, metrics, seconds, source = row
        return StoredRelease(
            rid,
            fp,
            created,
            method,
            json.loads(settings),
            json.loads(card),
            json.loads(report),
            rows,
            json.loads(metrics) if metrics else {},
            seconds,
            source,
            self,
        )

    # --- stakeholder reports ------------------------------------------------------------------

    def record_report(
        self,
        fp: str,
        release_id: int,
        *,
        events,
        figures: dict,
        html: str,
        source: str = "app",
        spend_id: int | None = None,
    ) -> int:
        """Record a stakeholder report and its spend in one transaction (refused past the budget);
        with ``spend_id``, the report is attached to the spend :meth:`Ledger.reserve` recorded for it."""
        events = list(events)
        epsilon = math.fsum(e.epsilon for e in events)
        with self.database.transaction() as conn:
            stamp = now()
            if spend_id is None:
                self.ledger.check_in(conn, fp, Spend(tuple(events)), "This report")
                spend = self.ledger.insert_spend(conn, fp, Spend(tuple(events)), "report", "report", source, release_id)
            else:
                spend = int(spend_id)
                conn.execute("UPDATE spends SET release_id = ? WHERE id = ?", (int(release_id), spend))
            return conn.execute(
                "INSERT INTO reports (release_id, spend_id, created, epsilon, figures, html) VALUES (?, ?, ?, ?, ?, ?)",
                (int(release_id), spend, stamp, epsilon, to_json(figures), html),
            ).lastrowid

    def reports(self, release_id: int) -> list[dict]:
        """Reports of a release, newest first (the HTML is included)."""
        with self.database.connect() as conn:
            rows = conn.execute(
                "SELECT id, created, epsilon, figures, html, spend_id FROM reports WHERE release_id = ? "
                "ORDER BY id DESC",
                (int(release_id),),
            ).fetchall()
        return [
            {"id": r[0], "created": r[1], "epsilon": r[2], "figures": json.loads(r[3]), "html": r[4], "spend_id": r[5]}
            for r in rows
        ]


#: The digests of the files releases were written to (made on first use; older workspaces lack it).
_FILES_TABLE = (
    "CREATE TABLE IF NOT EXISTS release_files (digest TEXT PRIMARY KEY, release_id INTEGER NOT NULL, "
    "created TEXT NOT NULL)"
)


def file_digest(content: bytes | str) -> str:
    """SHA-256 (hex) of bytes, or of the file at a path, read in blocks (a release may be gigabytes)."""
    if isinstance(content, bytes):
        return hashlib.sha256(content).hexdigest()
    digest = hashlib.sha256()
    root = Path(content)
    files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]  # a folder of parts
    for path in files:
        if root.is_dir():
            digest.update(str(path.relative_to(root)).encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda handle=handle: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def _table_blob(table: pd.DataFrame) -> bytes:
    """A release's table as the workspace keeps it: its CSV, gzip level 1 (fast: this is on a draw's path)."""
    from ..release.writer import csv_text  # exactly table.to_csv(index=False), faster

    return gzip.compress(csv_text(table).encode("utf-8"), compresslevel=1)


# --- a stored release in plain words ------------------------------------------------------------


def epsilon_words(release: StoredRelease) -> str:
    """The release's ε in plain digits, or "no guarantee"."""
    return "no guarantee" if release.epsilon is None else format_epsilon(release.epsilon)


def settings_summary(release: StoredRelease) -> dict:
    """The release's settings and guarantee, one plain line each (the Releases page's side-by-side table)."""
    s, g = release.settings, release.card["guarantee"]
    return {
        "method": release.card["method"]["title"],
        "ε asked for": f"{s.get('epsilon', ''):g}" if isinstance(s.get("epsilon"), (int, float)) else "",
        "guarantee": "none"
        if g["epsilon"] is None
        else f"ε = {format_epsilon(g['epsilon'])}, δ = {format_delta(g['delta'])} ({g['composition']})",
        "privacy unit": g["neighbouring"] or "none",
        "tolerance for randomness": "not used"
        if release.card["parameters"].get("rho") is None
        else f"{release.card['parameters']['rho']:g}",
        "rows": f"{release.rows:,} ({release.card['rows']['policy'].split(':')[0]})",
        "column groups": "; ".join(", ".join(x) for x in s.get("groups") or []) or "none",
        "made": f"{release.created} ({'app' if release.source == 'app' else 'command line'})"
        + (f" in {release.seconds:.1f} s" if release.seconds else ""),
    }
