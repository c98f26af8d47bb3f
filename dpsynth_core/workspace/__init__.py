"""The publisher's workspace: one SQLite file that keeps the budget ledger, releases and policies.

What it holds, per dataset (keyed by a *fingerprint* of its records under the workspace's secret
key, or by the name the publisher gave it, so the same records in any file form find their
history: :mod:`dpsynth_core.release.ledger` says what the ledger can and cannot catch):

* the **budget ledger**: every draw and every stakeholder report, with the privacy events
  the accountant recorded; totals are composed per neighbouring relation by
  :class:`~dpsynth_core.privacy.accounting.Accountant` (events under different relations are never
  added up), and a draw with no differential-privacy guarantee is counted as such;
* an optional **lifetime budget**: a draw or report that would take the total of any
  relation above it is refused with an explanation (:class:`BudgetExceeded`);
* every **release**: its settings, card, publisher-only report and metrics, and the
  synthetic file itself (gzip CSV), so any release can be downloaded again. The real data
  is never stored here;
* the last **declaration** used with it, and named, reusable **policies** (declarations);
* the app's last **session** per browser (which data, which settings), so a reload or a new
  tab of the same browser resumes, and another browser never sees it (:meth:`Workspace.save_session`).

The ledger check and the insert happen in one ``BEGIN IMMEDIATE`` transaction, so two tabs
or processes drawing at once both get recorded (or the second is refused), never lost.
The file lives in ``$DPSYNTH_WORKSPACE`` if set, else ``~/.dpsynth/``; the folder is made
readable by its owner only. One workspace serves one publisher.
"""

from __future__ import annotations

import atexit
import gzip
import json
import math
import threading
from dataclasses import fields

import pandas as pd

from ..errors import DPSynthError
from ..privacy.accounting import Accountant, PrivacyEvent, Spend, Spending, compose, planned_events  # noqa: F401
from ..release import ledger
from ..release.stored import StoredRelease
from ..wording import format_delta, format_epsilon, ledger_text  # noqa: F401  (re-exported for the app and CLI)
from .choices import SavedChoices
from .database import ENVIRONMENT_VARIABLE, FILE_NAME, WorkspaceGone, _json, _now, default_folder  # noqa: F401


class BudgetExceeded(DPSynthError):
    """A draw or report would take a dataset past its lifetime budget (nothing was recorded)."""


class TableNotKept(DPSynthError):
    """A release's synthetic file was never written (the process stopped between recording the release and
    writing its table, see :meth:`Workspace.record_release`'s ``table_later``); its card and spend are kept."""


#: Workspaces holding tables for later (kept alive until written): a process that ends normally writes them.
_HOLDING: set = set()
atexit.register(lambda: [workspace.write_tables() for workspace in list(_HOLDING)])


def _event(data: dict) -> PrivacyEvent:
    known = {f.name for f in fields(PrivacyEvent)}
    return PrivacyEvent(**{k: v for k, v in data.items() if k in known})


class Workspace(ledger.LedgerKeys, SavedChoices):
    """The workspace database in ``folder`` (default :func:`default_folder`), created on first use: the
    ledger and the releases here, the publisher's saved choices in :class:`SavedChoices`, the file and
    its connections in :class:`~dpsynth_core.workspace.database.Database`."""

    def __init__(self, folder=None, *, read_only: bool = False):
        super().__init__(folder, read_only=read_only)
        self._unwritten: dict = {}  # release id -> its table, until :meth:`write_tables`
        self._writing = threading.Lock()

    # --- datasets and the ledger ----------------------------------------------------------

    def remember_dataset(self, fp: str, name: str) -> None:
        with self._transaction() as conn:
            self._ensure_dataset(conn, fp, name)

    @staticmethod
    def _ensure_dataset(conn, fp: str, name: str) -> None:
        now = _now()
        conn.execute(
            "INSERT INTO datasets (fingerprint, name, first_seen, last_seen) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (fingerprint) DO UPDATE SET name = CASE WHEN excluded.name = '' THEN datasets.name "
            "ELSE excluded.name END, last_seen = excluded.last_seen",  # a spend with no name keeps the name
            (fp, name, now, now),
        )

    def datasets(self) -> list[dict]:
        if not self.exists:  # opened read-only where no workspace was ever made
            return []
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT fingerprint, name, first_seen, last_seen, lifetime_epsilon FROM datasets "
                "ORDER BY last_seen DESC"
            ).fetchall()
        return [dict(zip(("fingerprint", "name", "first_seen", "last_seen", "lifetime_epsilon"), r)) for r in rows]

    def dataset_name(self, fp: str) -> str | None:
        with self._connect() as conn:
            row = conn.execute("SELECT name FROM datasets WHERE fingerprint = ?", (fp,)).fetchone()
        return row[0] if row else None

    def lifetime_budget(self, fp: str) -> float | None:
        with self._connect() as conn:
            return self._limit(conn, fp)

    @staticmethod
    def _limit(conn, fp: str) -> float | None:
        row = conn.execute("SELECT lifetime_epsilon FROM datasets WHERE fingerprint = ?", (fp,)).fetchone()
        return row[0] if row else None

    @staticmethod
    def _spend_rows(conn, fp: str) -> list[Spend]:
        rows = conn.execute(
            "SELECT events, guaranteed, zcdp_delta FROM spends WHERE fingerprint = ? ORDER BY id", (fp,)
        ).fetchall()
        return [
            Spend(tuple(_event(e) for e in json.loads(events)), bool(guaranteed), zcdp_delta)
            for events, guaranteed, zcdp_delta in rows
        ]

    def _spending(self, conn, fp: str, extra=()) -> Spending:
        spends = self._spend_rows(conn, fp) + list(extra)
        relations, unguaranteed = compose(spends)
        return Spending(relations, unguaranteed, len(spends), self._limit(conn, fp))

    def spending(self, fp: str) -> Spending:
        """The composed totals of every spend recorded on a dataset."""
        with self._connect() as conn:
            return self._spending(conn, fp)

    def check(
        self, fp: str, events, *, guaranteed: bool = True, what: str = "This draw", zcdp_delta: float = 0.0
    ) -> Spending:
        """The spending after ``events`` (a :class:`Spend` or a list of events), composed as :meth:`reserve`
        records it; raises :class:`BudgetExceeded` if it would exceed the lifetime budget."""
        spend = events if isinstance(events, Spend) else Spend(tuple(events), guaranteed, zcdp_delta)
        with self._connect() as conn:
            return self._check(conn, fp, spend, what)

    def _check(self, conn, fp: str, spend: Spend, what: str) -> Spending:
        guaranteed = spend.guaranteed
        after = self._spending(conn, fp, [spend])
        limit = after.lifetime_epsilon
        if limit is None:
            return after
        name = self.dataset_name_in(conn, fp)
        if not guaranteed:
            raise BudgetExceeded(
                f"{what} has no differential-privacy guarantee (its method has none, or it is "
                "seeded), so it cannot be "
                f"counted against the lifetime budget of ε = {limit:g} on {name}: remove the "
                "lifetime budget to use it anyway"
            )
        for total in after.relations:
            if total.epsilon > limit * (1 + 1e-9):  # the spending before it, composed only for the message
                spent = next(
                    (r.epsilon for r in self._spending(conn, fp).relations if r.neighbouring == total.neighbouring), 0.0
                )
                raise BudgetExceeded(
                    f"{what} would bring the total on {name} to ε = {format_epsilon(total.epsilon)} "
                    f"({total.neighbouring}), over its lifetime budget of ε = {limit:g}: "
                    f"ε = {format_epsilon(spent)} is already spent, so at most ε = "
                    f"{format_epsilon(max(0.0, limit - spent))} is left. Lower ε or raise the lifetime budget"
                )
        return after

    @staticmethod
    def dataset_name_in(conn, fp: str) -> str:
        row = conn.execute("SELECT name FROM datasets WHERE fingerprint = ?", (fp,)).fetchone()
        return f"'{row[0]}'" if row else "this data"

    def spends(self, fp: str | None = None) -> list[dict]:
        """Every recorded spend (of one dataset, or all), oldest first, each with its own composed cost."""
        query = (
            "SELECT s.id, s.fingerprint, d.name, s.created, s.purpose, s.method, s.guaranteed, s.events, "
            "s.source, s.release_id, s.zcdp_delta FROM spends s LEFT JOIN datasets d ON "
            "d.fingerprint = s.fingerprint"
        )
        with self._connect() as conn:
            rows = conn.execute(
                query + (" WHERE s.fingerprint = ?" if fp else "") + " ORDER BY s.id", (fp,) if fp else ()
            ).fetchall()
        out = []
        for sid, fpr, name, created, purpose, method, guaranteed, events, source, release_id, zcdp_delta in rows:
            parsed = tuple(_event(e) for e in json.loads(events))
            relations, _ = compose([Spend(parsed, bool(guaranteed), zcdp_delta)])
            out.append(
                {
                    "id": sid,
                    "fingerprint": fpr,
                    "dataset": name,
                    "created": created,
                    "purpose": purpose,
                    "method": method,
                    "guaranteed": bool(guaranteed),
                    "source": source,
                    "release_id": release_id,
                    "epsilon": relations[0].epsilon if relations and guaranteed else None,
                    "delta": relations[0].delta if relations and guaranteed else None,
                    "neighbouring": relations[0].neighbouring if relations else None,
                }
            )
        return out

    # --- releases --------------------------------------------------------------------------

    def record_release(
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
        """Record a release (attached to the spend :meth:`reserve` recorded, ``spend_id``; else its charge is
        checked and recorded here, :class:`BudgetExceeded` if it does not fit); returns the release id.

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
        with self._transaction() as conn:
            self._ensure_dataset(conn, fp, name)
            if spend_id is None:
                self._check(conn, fp, spend, "This draw")
            release_id = conn.execute(
                "INSERT INTO releases (fingerprint, created, method, settings_key, settings, card, publisher_report, "
                "rows, csv_gzip, metrics, seconds, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    fp,
                    _now(),
                    card["method"]["name"],
                    settings_key,
                    _json(settings),
                    _json(card),
                    _json(release.publisher_report),
                    release.rows,
                    csv,
                    None,
                    seconds,
                    source,
                ),
            ).lastrowid
            if spend_id is None:
                self._insert_spend(conn, fp, spend, "release", card["method"]["name"], source, release_id)
            else:
                conn.execute("UPDATE spends SET release_id = ? WHERE id = ?", (release_id, int(spend_id)))
        if table_later:
            with self._writing:
                self._unwritten[release_id] = table
                _HOLDING.add(self)
        return release_id

    def write_tables(self) -> None:
        """Write the tables :meth:`record_release` kept for later (``table_later``); cheap when there are none."""
        with self._writing:  # a reader waits here until a table being written is in the file
            while self._unwritten:
                release_id, table = next(iter(self._unwritten.items()))
                blob = _table_blob(table)
                with self._transaction() as conn:
                    conn.execute("UPDATE releases SET csv_gzip = ? WHERE id = ?", (blob, release_id))
                del self._unwritten[release_id]
            _HOLDING.discard(self)

    _RELEASE_COLUMNS = (
        "id, fingerprint, created, method, settings, card, publisher_report, rows, metrics, seconds, source"
    )

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

    def releases(self, fp: str) -> list[StoredRelease]:
        """Every release made from a dataset, newest first."""
        with self._connect() as conn:
            rows = conn.execute(
                f"SELECT {self._RELEASE_COLUMNS} FROM releases WHERE fingerprint = ? ORDER BY id DESC", (fp,)
            ).fetchall()
        return [self._stored(r) for r in rows]

    def release(self, release_id: int) -> StoredRelease | None:
        with self._connect() as conn:
            row = conn.execute(
                f"SELECT {self._RELEASE_COLUMNS} FROM releases WHERE id = ?", (int(release_id),)
            ).fetchone()
        return self._stored(row) if row else None

    def latest_release(self, fp: str, settings_key: str) -> StoredRelease | None:
        """The newest release of a dataset made with exactly these settings."""
        with self._connect() as conn:
            row = conn.execute(
                f"SELECT {self._RELEASE_COLUMNS} FROM releases WHERE fingerprint = ? AND "
                "settings_key = ? ORDER BY id DESC LIMIT 1",
                (fp, settings_key),
            ).fetchone()
        return self._stored(row) if row else None

    def draws_with(self, fp: str, settings_key: str) -> int:
        with self._connect() as conn:
            return conn.execute(
                "SELECT COUNT(*) FROM releases WHERE fingerprint = ? AND settings_key = ?", (fp, settings_key)
            ).fetchone()[0]

    def _blob(self, release_id: int) -> bytes:
        self.write_tables()
        with self._connect() as conn:
            blob = conn.execute("SELECT csv_gzip FROM releases WHERE id = ?", (release_id,)).fetchone()[0]
        if not blob:
            raise TableNotKept(
                f"the synthetic file of release #{release_id} was not kept: the app stopped before writing it "
                "(its card and its spend are recorded)"
            )
        return blob

    def save_metrics(self, release_id: int, metrics: dict) -> None:
        """Keep publisher-only metrics with their release (they never enter a release or report)."""
        with self._transaction() as conn:
            conn.execute("UPDATE releases SET metrics = ? WHERE id = ?", (_json(metrics), int(release_id)))

    def typical_seconds(self, fp: str, method: str) -> float | None:
        """How long the last draws of this method on this data took (for time-left estimates)."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT seconds FROM releases WHERE fingerprint = ? AND method = ? AND seconds "
                "IS NOT NULL ORDER BY id DESC LIMIT 3",
                (fp, method),
            ).fetchall()
        return sorted(r[0] for r in rows)[len(rows) // 2] if rows else None

    # --- reports ---------------------------------------------------------------------------

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
        with ``spend_id``, the report is attached to the spend :meth:`reserve` recorded for it."""
        events = list(events)
        epsilon = math.fsum(e.epsilon for e in events)
        with self._transaction() as conn:
            now = _now()
            if spend_id is None:
                self._check(conn, fp, Spend(tuple(events)), "This report")
                spend = self._insert_spend(conn, fp, Spend(tuple(events)), "report", "report", source, release_id)
            else:
                spend = int(spend_id)
                conn.execute("UPDATE spends SET release_id = ? WHERE id = ?", (int(release_id), spend))
            return conn.execute(
                "INSERT INTO reports (release_id, spend_id, created, epsilon, figures, html) VALUES (?, ?, ?, ?, ?, ?)",
                (int(release_id), spend, now, epsilon, _json(figures), html),
            ).lastrowid

    def reports(self, release_id: int) -> list[dict]:
        """Reports of a release, newest first (the HTML is included)."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT id, created, epsilon, figures, html FROM reports WHERE release_id = ? ORDER BY id DESC",
                (int(release_id),),
            ).fetchall()
        return [{"id": r[0], "created": r[1], "epsilon": r[2], "figures": json.loads(r[3]), "html": r[4]} for r in rows]


def _table_blob(table: pd.DataFrame) -> bytes:
    """A release's table as the workspace keeps it: its CSV, gzip level 1 (fast: this is on a draw's path)."""
    from ..release.writer import csv_text  # exactly table.to_csv(index=False), faster

    return gzip.compress(csv_text(table).encode("utf-8"), compresslevel=1)
