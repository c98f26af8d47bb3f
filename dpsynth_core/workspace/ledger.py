"""The budget ledger: which ledger a table belongs to, every spend on it, its lifetime budget, and the
one budget transaction that checks a spend against that budget and records it.

:meth:`Ledger.reserve` is that transaction, in one ``BEGIN IMMEDIATE``: the dataset is noted, the
spending after the new spend is composed by the accountant, per neighbouring relation as stated
(:func:`~dpsynth_core.privacy.spending.compose`) and per record with every unit converted
(:func:`~dpsynth_core.privacy.spending.per_record_total`), and the total per record is checked against
the lifetime budget (:class:`BudgetExceeded`, nothing recorded), then the
spend is inserted. Two tabs or processes drawing at once both get recorded (or the second is
refused), never lost.

What the ledger can catch, and what it cannot (the README's "The budget ledger" says the same):

* **It follows the records, not the bytes.** A table's ledger is found by the keyed
  fingerprint of its records (:mod:`dpsynth_core.data.fingerprint`): the same records
  shuffled, with other line ends, blank lines, another delimiter, saved as Parquet or split
  into parts, or read under another declaration, find the same ledger; and the file around them
  changed (a column renamed, dropped or added, dates written another way) finds it by the
  fingerprints of its columns (:mod:`.matching`).
* **Versions of a table share a budget only when named.** A record added or a cell changed
  makes other data with its own fingerprint; the publisher names a dataset
  (``--dataset NAME``, or the name field of the app) so that monthly extracts or corrected
  versions count against one lifetime budget. Once a table's records are in a named dataset,
  they find it without the name too, and they cannot join another name.
* **It is one workspace's ledger.** Another workspace folder (another ``--workspace``, another
  machine, another account) has its own ledger and its own key: nothing links them. A
  draw made with ``--no-ledger`` or through the Python API is in no ledger, and its card
  says so when it comes from the command line.
* **Who can see what.** The workspace folder is its owner's alone (:mod:`.database`). A
  fingerprint shown on screen is an HMAC under the workspace's key, so it confirms nothing
  about the data to anyone who does not hold the workspace file.
* **Every change of a lifetime budget is kept**, with its time, old and new value
  (``ledger --limit`` prints them), so removing a limit leaves a trace.
"""

from __future__ import annotations

import json
import math
import sqlite3

import pandas as pd

from ..data.fingerprint import RecordsIdentity, check_source, records_identity
from ..errors import DPSynthError
from ..privacy.accounting import expanded_events, grouped_events
from ..privacy.spending import Spend, Spending, compose, in_record_unit, per_record_total
from ..wording import format_epsilon
from .database import Database, now, secret
from .matching import known_columns, matching_records, remember

#: What a release's card says when the command line recorded it in no ledger (``--no-ledger``).
NO_LEDGER = (
    "This release is in no budget ledger (made with --no-ledger): its privacy spend counts against no lifetime budget."
)
_NAME_PREFIX = "name:"


class BudgetExceeded(DPSynthError):
    """A draw or report would take a dataset past its lifetime budget (nothing was recorded)."""


class Ledger:
    """The ledger of a workspace's :class:`~dpsynth_core.workspace.database.Database` (a part of
    :class:`~dpsynth_core.workspace.Workspace`)."""

    def __init__(self, database: Database):
        self.database = database
        #: The identities :meth:`records_key` computed, by fingerprint (a read-only workspace keeps none).
        self._seen: dict[str, RecordsIdentity] = {}

    # --- the budget transaction: check the lifetime budget, then record -----------------------

    def reserve(
        self,
        fp: str,
        spend: Spend,
        *,
        name: str,
        method: str,
        purpose: str = "release",
        source: str = "app",
        what: str = "This draw",
    ) -> int:
        """Check ``spend`` against the lifetime budget and record it, in one transaction, before the data
        is read; returns its id. Raises :class:`BudgetExceeded` (nothing recorded) when it does not fit
        (:mod:`dpsynth_core.usecases.budgeted_draw`)."""
        with self.database.transaction() as conn:
            self.ensure_dataset(conn, fp, name)
            self.check_in(conn, fp, spend, what)
            return self.insert_spend(conn, fp, spend, purpose, method, source)

    @staticmethod
    def ensure_dataset(conn, fp: str, name: str) -> None:
        """Note the dataset (in the caller's transaction); a spend with no name keeps the dataset's name."""
        stamp = now()
        conn.execute(
            "INSERT INTO datasets (fingerprint, name, first_seen, last_seen) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (fingerprint) DO UPDATE SET name = CASE WHEN excluded.name = '' THEN datasets.name "
            "ELSE excluded.name END, last_seen = excluded.last_seen",
            (fp, name, stamp, stamp),
        )

    def check_in(self, conn, fp: str, spend: Spend, what: str) -> Spending:
        """The spending after ``spend`` (read in the caller's transaction); raises :class:`BudgetExceeded`
        when it would exceed the lifetime budget, or has no guarantee to count against one."""
        guaranteed = spend.guaranteed
        after = self._spending(conn, fp, [spend])
        limit = after.lifetime_epsilon
        if limit is None:
            return after
        name = _shown_dataset(conn, fp)
        if not guaranteed:
            raise BudgetExceeded(
                f"{what} has no differential-privacy guarantee (its method has none, or it is "
                "seeded), so it cannot be "
                f"counted against the lifetime budget of ε = {limit:g} on {name}: remove the "
                "lifetime budget to use it anyway"
            )
        if after.unconvertible:
            raise BudgetExceeded(
                f"{what if in_record_unit(spend) is None else 'An earlier draw on ' + name} is protected only "
                "against a record being replaced by another, with the exact row count released: that says "
                "nothing when a record is added or removed, so it cannot be counted against the lifetime "
                f"budget of ε = {limit:g} per record on {name}. Choose another method, or remove the "
                "lifetime budget to use it anyway"
            )
        if after.total_epsilon > limit * (1 + 1e-9):  # the spending before it, composed only for the message
            spent = self._spending(conn, fp).total_epsilon
            raise BudgetExceeded(
                f"{what} would bring the total on {name} to ε = {format_epsilon(after.total_epsilon)} per "
                f"record (every spend, whatever its unit, converted to one record added or removed), over "
                f"its lifetime budget of ε = {limit:g}: ε = {format_epsilon(spent)} is already spent, so at "
                f"most ε = {format_epsilon(max(0.0, limit - spent), down=True)} is left. Lower ε or raise "
                "the lifetime budget"
            )
        return after

    def _spending(self, conn, fp: str, extra=()) -> Spending:
        spends = _spend_rows(conn, fp) + list(extra)
        relations, unguaranteed = compose(spends)
        per_record, unconvertible = per_record_total(spends)
        return Spending(relations, unguaranteed, len(spends), _limit(conn, fp), per_record, unconvertible)

    @staticmethod
    def insert_spend(
        conn, fp: str, spend: Spend, purpose: str, method: str, source: str, release_id: int | None = None
    ) -> int:
        """Record a spend (in the caller's transaction, after :meth:`check_in`); returns its id."""
        return conn.execute(
            "INSERT INTO spends (fingerprint, created, purpose, method, guaranteed, events, zcdp_delta, source, "
            "release_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                fp,
                now(),
                purpose,
                method,
                int(spend.guaranteed),
                json.dumps(grouped_events(spend.events), default=float),  # a run of equal events once
                spend.zcdp_delta,
                source,
                release_id,
            ),
        ).lastrowid

    def check(
        self, fp: str, events, *, guaranteed: bool = True, what: str = "This draw", zcdp_delta: float = 0.0
    ) -> Spending:
        """The spending after ``events`` (a :class:`Spend` or a list of events), composed as :meth:`reserve`
        records it, without recording anything; raises :class:`BudgetExceeded` if it would exceed the
        lifetime budget."""
        spend = events if isinstance(events, Spend) else Spend(tuple(events), guaranteed, zcdp_delta)
        with self.database.connect() as conn:
            return self.check_in(conn, fp, spend, what)

    # --- what was spent -------------------------------------------------------------------------

    def spending(self, fp: str) -> Spending:
        """The composed totals of every spend recorded on a dataset."""
        with self.database.connect() as conn:
            return self._spending(conn, fp)

    def spend(self, spend_id: int | None) -> dict | None:
        """One recorded spend (as :meth:`spends` lists it), or None."""
        if spend_id is None:
            return None
        found = self.spends(spend_id=int(spend_id))
        return found[0] if found else None

    def spends(self, fp: str | None = None, *, spend_id: int | None = None) -> list[dict]:
        """Every recorded spend (of one dataset, or all; or the one ``spend_id``), oldest first, each with its
        own composed cost."""
        query = (
            "SELECT s.id, s.fingerprint, d.name, s.created, s.purpose, s.method, s.guaranteed, s.events, "
            "s.source, s.release_id, s.zcdp_delta FROM spends s LEFT JOIN datasets d ON "
            "d.fingerprint = s.fingerprint"
        )
        with self.database.connect() as conn:
            where, params = (" WHERE s.id = ?", (spend_id,)) if spend_id is not None else ("", ())
            if fp:
                where, params = where + (" AND" if where else " WHERE") + " s.fingerprint = ?", (*params, fp)
            rows = conn.execute(query + where + " ORDER BY s.id", params).fetchall()
        out = []
        for sid, fpr, name, created, purpose, method, guaranteed, events, source, release_id, zcdp_delta in rows:
            parsed = expanded_events(json.loads(events))
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
                    "composition": relations[0].composition if relations and guaranteed else None,
                    # its events' epsilons added up (pure events only): the figure a composition improved on
                    "basic_epsilon": math.fsum(e.epsilon for e in parsed)
                    if guaranteed and parsed and not any(e.is_zcdp for e in parsed)
                    else None,
                }
            )
        return out

    # --- datasets and their lifetime budgets ------------------------------------------------------

    def remember_dataset(self, fp: str, name: str) -> None:
        with self.database.transaction() as conn:
            self.ensure_dataset(conn, fp, name)

    def datasets(self) -> list[dict]:
        if not self.database.exists:  # opened read-only where no workspace was ever made
            return []
        with self.database.connect() as conn:
            rows = conn.execute(
                "SELECT fingerprint, name, first_seen, last_seen, lifetime_epsilon FROM datasets "
                "ORDER BY last_seen DESC"
            ).fetchall()
        return [dict(zip(("fingerprint", "name", "first_seen", "last_seen", "lifetime_epsilon"), r)) for r in rows]

    def dataset_name(self, fp: str) -> str | None:
        with self.database.connect() as conn:
            row = conn.execute("SELECT name FROM datasets WHERE fingerprint = ?", (fp,)).fetchone()
        return row[0] if row else None

    def lifetime_budget(self, fp: str) -> float | None:
        with self.database.connect() as conn:
            return _limit(conn, fp)

    def set_lifetime_budget(
        self, fp: str, epsilon: float | None, *, name: str = "this data", source: str = "app"
    ) -> None:
        """Set (or with None, remove) the lifetime epsilon of a dataset; the change is kept with its time."""
        if epsilon is not None and not (math.isfinite(epsilon) and epsilon > 0):
            raise DPSynthError(f"lifetime budget ({epsilon}) must be a number > 0")
        with self.database.transaction() as conn:
            self.ensure_dataset(conn, fp, name)
            record_limit(conn, fp, epsilon, now(), source)

    def limit_changes(self, fp: str) -> list[dict]:
        """Every change of a dataset's lifetime budget, oldest first: ``created``, ``old``, ``new``, ``source``."""
        if not self.database.exists:
            return []
        with self.database.connect() as conn:
            try:
                rows = conn.execute(
                    "SELECT created, old, new, source FROM limit_changes WHERE fingerprint = ? ORDER BY id", (fp,)
                ).fetchall()
            except sqlite3.OperationalError:  # a workspace older than the table, opened read-only
                return []
        return [dict(zip(("created", "old", "new", "source"), r)) for r in rows]

    # --- which ledger a table belongs to ------------------------------------------------------------

    def records_key(
        self, data, *, encoding=None, delimiter=None, sheet=None, header_row=None, header_rows=None, names=None
    ) -> str | None:
        """The keyed fingerprint of a table's records (:func:`~dpsynth_core.data.fingerprint.records_identity`)
        under this workspace's key: the same records, in any file form, give the same key. The
        fingerprints of its columns, computed in the same pass, are kept for :meth:`dataset_key`.
        ``data``: a DataFrame, a path (read as the release reads it: a CSV's ``encoding`` and ``delimiter``,
        a spreadsheet's ``sheet``, the header's ``header_row`` and ``header_rows``, the columns' ``names`` for a
        file without a header), or a counting source that computes them in its own pass
        (``records_identity(secret)``, DuckDB's and Spark's). None for a read-only workspace with no key yet."""
        own_pass = getattr(data, "records_identity", None)
        if not isinstance(data, pd.DataFrame) and own_pass is None:
            check_source(data)
        if not self.database.exists:
            return None
        with self.database.connect() as conn:
            key = secret(conn)
        if key is None:
            return None
        reading = {"encoding": encoding, "delimiter": delimiter, "sheet": sheet, "header_row": header_row}
        reading.update(header_rows=header_rows, names=names)
        identity = own_pass(key) if own_pass is not None else records_identity(data, key, **reading)
        self._seen[identity.fingerprint] = identity
        if not self.database.read_only:
            with self.database.transaction() as conn:
                remember(conn, identity)
        return identity.fingerprint

    def dataset_key(self, records: str | None, name: str | None = None) -> str | None:
        """The ledger key of a table: its named dataset's (``name``, or the one its records joined
        before), else that of earlier records whose columns it matches (:mod:`.matching`), else its
        records' own. Naming records puts them, and the records that matched them, into the named
        dataset for good (:func:`join_named`); a match joins the records to the ledger found for good."""
        if name is not None:
            key = name_key(name)
            if records is not None and not self.database.read_only:
                with self.database.transaction() as conn:
                    current = self._found(conn, records)
                    if current not in (records, key):
                        if shown_name(current) is not None:
                            raise _named_elsewhere(current)
                        join_named(conn, current, key, now())  # the ledger they matched takes the name
                    join_named(conn, records, key, now())
                    self.ensure_dataset(conn, key, shown_name(key))
            return key
        if records is None or not self.database.exists:
            return records
        if self.database.read_only:
            with self.database.connect() as conn:
                try:
                    return self._found(conn, records)
                except sqlite3.OperationalError:  # an older workspace, opened read-only
                    return records
        with self.database.transaction() as conn:
            found = self._found(conn, records)
            if found != records and named_by(conn, records) is None:
                join_named(conn, records, found, now())
            return found

    def _found(self, conn, records: str) -> str:
        """The ledger ``records`` belong to: the dataset they joined, else the one of the records their
        columns match (:func:`~.matching.matching_records`), else their own."""
        joined = named_by(conn, records)
        if joined is not None:
            return joined
        identity = self._seen.get(records) or known_columns(conn, records)
        matched = matching_records(conn, identity) if identity is not None else None
        if matched is None:
            return records
        return named_by(conn, matched) or matched


# --- reading the ledger's rows (inside a connection) ---------------------------------------------


def _spend_rows(conn, fp: str) -> list[Spend]:
    rows = conn.execute(
        "SELECT events, guaranteed, zcdp_delta FROM spends WHERE fingerprint = ? ORDER BY id", (fp,)
    ).fetchall()
    return [
        Spend(expanded_events(json.loads(events)), bool(guaranteed), zcdp_delta)
        for events, guaranteed, zcdp_delta in rows
    ]


def _limit(conn, fp: str) -> float | None:
    row = conn.execute("SELECT lifetime_epsilon FROM datasets WHERE fingerprint = ?", (fp,)).fetchone()
    return row[0] if row else None


def _shown_dataset(conn, fp: str) -> str:
    """The dataset as a refusal names it: its name in quotes, else "this data"."""
    row = conn.execute("SELECT name FROM datasets WHERE fingerprint = ?", (fp,)).fetchone()
    return f"'{row[0]}'" if row else "this data"


# --- named datasets and their limits -------------------------------------------------------------


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


def join_named(conn, records: str, key: str, when: str) -> None:
    """Put a table's records into a dataset (a named one, or the ledger of records they matched),
    moving any ledger they had alone into it, with the records that had joined them.

    Their spends, releases and declaration follow; of two lifetime budgets the smaller holds
    (the change is recorded). Records already in another named dataset are refused.
    """
    current = named_by(conn, records)
    if current == key:
        return
    if current is not None:
        raise _named_elsewhere(current)
    conn.execute("INSERT INTO dataset_records (records, dataset, joined) VALUES (?, ?, ?)", (records, key, when))
    conn.execute("UPDATE dataset_records SET dataset = ? WHERE dataset = ?", (key, records))
    for table in ("spends", "releases"):
        conn.execute(f"UPDATE {table} SET fingerprint = ? WHERE fingerprint = ?", (key, records))
    conn.execute("UPDATE OR IGNORE declarations SET fingerprint = ? WHERE fingerprint = ?", (key, records))
    own = conn.execute("SELECT lifetime_epsilon FROM datasets WHERE fingerprint = ?", (records,)).fetchone()
    if own is not None and own[0] is not None:
        theirs = conn.execute("SELECT lifetime_epsilon FROM datasets WHERE fingerprint = ?", (key,)).fetchone()
        if theirs is None or theirs[0] is None or own[0] < theirs[0]:
            conn.execute(
                "INSERT OR IGNORE INTO datasets (fingerprint, name, first_seen, last_seen) VALUES (?, ?, ?, ?)",
                (key, shown_name(key) or "", when, when),
            )
            record_limit(conn, key, own[0], when, "joined")
    conn.execute("DELETE FROM datasets WHERE fingerprint = ?", (records,))


def _named_elsewhere(current: str) -> DPSynthError:
    return DPSynthError(
        f"these records are already counted in the dataset '{shown_name(current)}': use that "
        "name, so that one lifetime budget holds for them"
    )


def record_limit(conn, key: str, epsilon: float | None, when: str, source: str) -> None:
    """Set a dataset's lifetime budget and keep the change (time, old and new value)."""
    row = conn.execute("SELECT lifetime_epsilon FROM datasets WHERE fingerprint = ?", (key,)).fetchone()
    old = row[0] if row else None
    conn.execute("UPDATE datasets SET lifetime_epsilon = ? WHERE fingerprint = ?", (epsilon, key))
    if old != epsilon:
        conn.execute(
            "INSERT INTO limit_changes (fingerprint, created, old, new, source) VALUES (?, ?, ?, ?, ?)",
            (key, when, old, epsilon, source),
        )
