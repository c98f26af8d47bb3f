"""Finding a table's ledger when the file around its records changed, by the fingerprints of its columns.

The records' fingerprint (:mod:`dpsynth_core.data.fingerprint`) follows the records in any file form,
but one column renamed, dropped or added makes other records. A publisher does that without
thinking: a column the declaration drops is deleted from the file, an index column is written by
pandas (``Unnamed: 0``), a column is renamed together with its declaration, dates are written
``2020-02-10T00:00:00Z`` instead of ``2020-02-10``. The release reads the same values from each of
these files, so each must find the same lifetime budget.

So the ledger keeps, for every table it has seen, the keyed fingerprints of its columns
(:class:`~dpsynth_core.data.fingerprint.RecordsIdentity`: each column's cells alone, free of its
name, dates read as the moment they name and numbers with commas of one reading as that number; a column of
one repeated value has none). A table
whose records are new **joins the ledger of earlier records** when both have the same number of rows
and they share at least one column fingerprint, and at least half of the columns of the one with
fewer (:func:`matching_dataset`). The join is for good (as for a named dataset): its spends, releases
and declaration move to that ledger.

Why half: two different tables of equal length may share a column by design (a quota sample with
exactly 500 women in each wave, an index column ``0 .. n-1``); they share few of their columns, while
the same records behind a changed file share all but the changed ones. A wrong join can only make
a budget stricter, never looser.

What it cannot catch (``docs/workspace.md`` lists the same, each with a test): a record added or
removed (name the dataset, ``--dataset``); more than half of the columns changed at once (every
code re-coded, numbers rounded); dates written day or month first in a column whose days all stop at the
12th, or numbers such as ``1,234``, together with half of the other columns changed; records seen only by
an older version of the workspace, until their file is read once more.
"""

from __future__ import annotations

from ..data.fingerprint import RecordsIdentity

#: The share of the columns of the narrower table that a table must share to join a ledger (with at least one).
MATCH_SHARE = 0.5


def remember(conn, identity: RecordsIdentity) -> None:
    """Keep a table's column fingerprints (in the caller's transaction)."""
    conn.executemany(
        "INSERT OR IGNORE INTO record_columns (records, rows, hash) VALUES (?, ?, ?)",
        [(identity.fingerprint, identity.rows, h) for h in sorted(identity.columns)],
    )


def known_columns(conn, records: str) -> RecordsIdentity | None:
    """The column fingerprints kept for ``records`` (None when they were never kept)."""
    rows = conn.execute("SELECT rows, hash FROM record_columns WHERE records = ?", (records,)).fetchall()
    return RecordsIdentity(records, rows[0][0], frozenset(h for _, h in rows)) if rows else None


def matching_records(conn, identity: RecordsIdentity) -> str | None:
    """The earlier records that ``identity``'s table matches (see the module docstring), the one sharing
    the most columns (the first seen on a tie), else None."""
    mine = sorted(identity.columns)
    if not mine:
        return None
    marks = ", ".join("?" * len(mine))
    shared = conn.execute(
        f"SELECT records, COUNT(*), MIN(rowid) FROM record_columns WHERE rows = ? AND records != ? "
        f"AND hash IN ({marks}) GROUP BY records ORDER BY COUNT(*) DESC, MIN(rowid)",
        (identity.rows, identity.fingerprint, *mine),
    ).fetchall()
    for records, count, _ in shared:
        (theirs,) = conn.execute("SELECT COUNT(*) FROM record_columns WHERE records = ?", (records,)).fetchone()
        if count >= MATCH_SHARE * min(len(mine), theirs):
            return records
    return None
