"""Who may see what when the app is served to others: publisher accounts, reviewer links, and the
parts of a release a reviewer is shown.

* **Accounts** (publishers) have a password hashed with scrypt (``hashlib.scrypt``: n = 2^15,
  r = 8, p = 1, a 16-byte salt from :mod:`secrets`), compared in constant time
  (:func:`hmac.compare_digest`). Created from the command line:
  ``python -m dpsynth_core account add NAME``.
* **Reviewer links** carry a token of 32 random bytes from :mod:`secrets` (256 bits; unguessable,
  so a fast hash is enough): only its SHA-256 is stored, with the releases the link opens.
* **What a reviewer sees** (:meth:`Access.reviewer_view`): the release's card, its DP reports and the
  synthetic rows, with the data file's name taken out. Never the real data, the Preview's
  comparisons, the publisher-only report or the publisher pages.

Both stores live in the workspace's SQLite file (tables ``accounts`` and ``review_links``, made on first
use); :class:`Access` is the part of :class:`~dpsynth_core.workspace.Workspace` that reads and writes them.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import html
import ipaddress
import json
import math
import os
import re
import secrets
import sqlite3
import time
import unicodedata
from dataclasses import dataclass

from ..errors import DPSynthError
from .database import Database
from .ledger import Ledger
from .releases import Releases

SCRYPT = {"n": 2**15, "r": 8, "p": 1}
#: scrypt with these settings uses 128 * r * n = 32 MiB; OpenSSL's default cap is 32 MiB, so raise it.
_MAXMEM = 64 * 1024 * 1024
MIN_PASSWORD = 10
_NAME = re.compile(r"[A-Za-z0-9_.@-]{1,64}")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (name TEXT PRIMARY KEY, created TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS review_links (digest TEXT PRIMARY KEY, created TEXT NOT NULL, note TEXT NOT NULL,
                                         releases TEXT NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS sign_in_failures (key TEXT PRIMARY KEY, failures INTEGER NOT NULL, last REAL NOT NULL);
"""
#: Set to 1, the publisher pages need a signed-in account even on a loopback address with no account yet.
REQUIRE_LOGIN_VARIABLE = "DPSYNTH_REQUIRE_LOGIN"
#: Failed sign-ins in a row (for an account name, or from a client) before each further try must wait.
SIGN_IN_FREE_TRIES = 5
#: The longest wait between tries, in seconds; the wait doubles with each failure past the free ones.
SIGN_IN_MAX_WAIT = 300.0
_FAILURES_OF = "SELECT key, failures, last FROM sign_in_failures WHERE key IN ({marks})"


def _pause(failures: int) -> float:
    """Seconds to wait after ``failures`` failed sign-ins in a row: none for the first few, then 1, 2, 4, ..."""
    return 0.0 if failures < SIGN_IN_FREE_TRIES else min(SIGN_IN_MAX_WAIT, 2.0 ** (failures - SIGN_IN_FREE_TRIES))


class SignInPaused(DPSynthError):
    """Too many failed sign-ins in a row: the next try is taken after ``seconds``."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        super().__init__(f"too many failed sign-ins: try again in {math.ceil(seconds)} s")


#: What stands in for the data file's name in everything a reviewer sees.
NAME_STAND_IN = "the data"


# --- passwords and where a login is needed ----------------------------------------------------


def _normal(password: str) -> str:
    """A password as Unicode NFC: the same characters typed composed ("é") or decomposed ("e" + accent,
    as some keyboards and systems send them) are one password (as RFC 8265's OpaqueString)."""
    return unicodedata.normalize("NFC", password)


def hash_password(password: str, salt: bytes | None = None) -> str:
    """``scrypt$n$r$p$salt$hash`` (hex) of a password."""
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(_normal(password).encode("utf-8"), salt=salt, dklen=32, maxmem=_MAXMEM, **SCRYPT)
    return f"scrypt${SCRYPT['n']}${SCRYPT['r']}${SCRYPT['p']}${salt.hex()}${digest.hex()}"


def password_matches(password: str, stored: str) -> bool:
    """True when ``password`` hashes to ``stored`` (compared in constant time)."""
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        again = hashlib.scrypt(
            _normal(password).encode("utf-8"),
            salt=bytes.fromhex(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(digest) // 2,
            maxmem=_MAXMEM,
        )
    except (ValueError, TypeError):
        return False
    return kind == "scrypt" and hmac.compare_digest(again.hex(), digest)


def login_required(address: str | None) -> bool:
    """True unless the server listens on this computer only (a loopback address). Unset means
    every interface, so a login is required then too."""
    if not address:
        return True
    if address == "localhost":
        return False
    try:
        return not ipaddress.ip_address(address).is_loopback
    except ValueError:
        return True


@dataclass
class ReviewerView:
    """One release as a reviewer sees it."""

    id: int
    created: str
    card: dict
    reports: list  # HTML pages of the DP reports
    csv: bytes


class Access:
    """Publisher accounts and reviewer links of a workspace (a part of
    :class:`~dpsynth_core.workspace.Workspace`); a link opens releases of its :class:`Releases`."""

    def __init__(self, database: Database, releases: Releases, ledger: Ledger):
        self.database = database
        self.releases = releases
        self.ledger = ledger

    def _run(self, sql: str, params=()) -> list:
        """One statement in a write transaction on the workspace, its two tables made on first use."""
        with self.database.transaction() as conn:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            return conn.execute(sql, params).fetchall()

    # --- accounts ---------------------------------------------------------------------------------

    def check_new_account(self, name: str, *, replace: bool = False) -> None:
        """Refuse a bad account name, or an existing one unless ``replace`` (before any password is asked)."""
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise DPSynthError("an account name is 1 to 64 letters, digits or . _ @ -")
        if not replace and name in self.accounts():
            raise DPSynthError(f"the account {name} exists: to set a new password, say --replace")

    def add_account(self, name: str, password: str, *, replace: bool = False) -> None:
        """Create a publisher account (or, with ``replace``, set a new password for an existing one).
        Raises :class:`DPSynthError` for a bad name, an existing name without ``replace``, or a password
        shorter than :data:`MIN_PASSWORD` characters (counted after Unicode normalisation)."""
        self.check_new_account(name, replace=replace)
        if len(unicodedata.normalize("NFC", password)) < MIN_PASSWORD:
            raise DPSynthError(f"a password needs at least {MIN_PASSWORD} characters")
        self._run(
            "INSERT OR REPLACE INTO accounts (name, created, hash) VALUES (?, datetime('now'), ?)",
            (name, hash_password(password)),
        )

    def login_needed(self, address: str | None) -> bool:
        """Whether the publisher pages need a signed-in account: when the server listens beyond this
        computer (:func:`login_required`), whenever any account exists (a server on 127.0.0.1 behind a
        reverse proxy or an SSH tunnel is reached from elsewhere), or when ``$DPSYNTH_REQUIRE_LOGIN`` is 1."""
        if login_required(address) or os.environ.get(REQUIRE_LOGIN_VARIABLE) == "1":
            return True
        with self.database.connect() as conn:
            try:
                return conn.execute("SELECT 1 FROM accounts LIMIT 1").fetchone() is not None
            except sqlite3.OperationalError:  # no account was ever made here: no table
                return False

    def accounts(self) -> list[str]:
        return [row[0] for row in self._run("SELECT name FROM accounts ORDER BY name")]

    def remove_account(self, name: str) -> None:
        """Remove an account; :class:`DPSynthError` when there is none of that name."""
        if name not in self.accounts():
            raise DPSynthError(f"there is no account {_shown(name)}")
        self._run("DELETE FROM accounts WHERE name = ?", (name,))

    def sign_in(self, name: str, password: str, *, client: str = "", clock=time.time) -> bool:
        """True when the account exists and the password is right. An unknown name costs the same
        scrypt work as a wrong password, so the time taken does not tell which it was.

        Guessing is slowed down: after :data:`SIGN_IN_FREE_TRIES` failures in a row for an account name,
        or from a client (its address, when the app knows it), each further try must wait twice as
        long as the last, up to :data:`SIGN_IN_MAX_WAIT` seconds (:class:`SignInPaused` says how long,
        before any password is checked). A success clears the account's and the client's count.
        """
        keys = [f"account:{name}"] + ([f"client:{client}"] if client else [])
        now = clock()
        rows = self._run(_FAILURES_OF.format(marks=", ".join("?" * len(keys))), keys)
        counts = {key: (failures, last) for key, failures, last in rows}
        waits = [_pause(counts[key][0]) - (now - counts[key][1]) for key in keys if key in counts]
        if waits and max(waits) > 0:
            raise SignInPaused(max(waits))
        rows = self._run("SELECT hash FROM accounts WHERE name = ?", (name,))
        stored = rows[0][0] if rows else hash_password("not an account", b"\0" * 16)
        right = password_matches(password, stored) and bool(rows)
        with self.database.transaction() as conn:
            for key in keys:
                if right:
                    conn.execute("DELETE FROM sign_in_failures WHERE key = ?", (key,))
                else:
                    conn.execute(
                        "INSERT INTO sign_in_failures (key, failures, last) VALUES (?, 1, ?) ON CONFLICT(key) "
                        "DO UPDATE SET failures = failures + 1, last = excluded.last",
                        (key, now),
                    )
        return right

    # --- reviewer links ---------------------------------------------------------------------------

    def create_link(self, release_ids, note: str = "") -> str:
        """A new reviewer link's token (shown once; only its hash is kept) opening ``release_ids``."""
        ids = sorted({int(i) for i in release_ids})
        if not ids:
            raise DPSynthError("choose at least one release for the reviewer link")
        missing = [i for i in ids if self.releases.get(i) is None]
        if missing:
            raise DPSynthError(f"no release #{missing[0]} in this workspace")
        token = secrets.token_urlsafe(32)
        self._run(
            "INSERT INTO review_links (digest, created, note, releases) VALUES (?, datetime('now'), ?, ?)",
            (_digest(token), note[:200], json.dumps(ids)),
        )
        return token

    def releases_for(self, token: str | None) -> list[int] | None:
        """The releases a reviewer token opens, or None for an unknown or revoked token."""
        if not token or len(token) > 200:
            return None
        rows = self._run("SELECT releases FROM review_links WHERE digest = ? AND revoked = 0", (_digest(token),))
        return json.loads(rows[0][0]) if rows else None

    def links(self) -> list[dict]:
        """Every link (without its token): when, note, releases, revoked; newest first."""
        rows = self._run("SELECT digest, created, note, releases, revoked FROM review_links ORDER BY created DESC")
        return [
            {"id": r[0][:12], "created": r[1], "note": r[2], "releases": json.loads(r[3]), "revoked": bool(r[4])}
            for r in rows
        ]

    def revoke_link(self, link_id: str) -> None:
        """Revoke the link whose id (the first 12 characters of its hash, as ``links`` lists it) is
        ``link_id``; :class:`DPSynthError` for an id that is malformed, unknown or already revoked."""
        self.check_revocable(link_id)
        self._run("UPDATE review_links SET revoked = 1 WHERE substr(digest, 1, 12) = ?", (link_id,))

    def check_revocable(self, link_id: str) -> None:
        """:class:`DPSynthError` unless ``link_id`` names an open link."""
        if not isinstance(link_id, str) or not re.fullmatch(r"[0-9a-f]{12}", link_id):
            raise DPSynthError(f"{_shown(link_id)} is not a link id: 12 characters 0-9 a-f ('review-link list')")
        found = {link["id"]: link for link in self.links()}.get(link_id)
        if found is None:
            raise DPSynthError(f"there is no reviewer link {link_id}")
        if found["revoked"]:
            raise DPSynthError(f"the reviewer link {link_id} is already revoked")

    # --- what a reviewer sees ---------------------------------------------------------------------

    def reviewer_view(self, release_id: int) -> ReviewerView:
        """A release with the data file's name (and its stem) replaced by "the data" everywhere: card,
        reports, the synthetic file's text (:meth:`shareable`). Nothing publisher-only is included."""
        release = self.releases.get(release_id)
        if release is None:
            raise DPSynthError(f"no release #{release_id}")
        card = json.loads(self.shareable(release_id, json.dumps(copy.deepcopy(release.card))))
        reports = [self.shareable(release_id, r["html"]) for r in self.releases.reports(release_id)]
        return ReviewerView(release.id, release.created, card, reports, release.csv_bytes())

    def shareable(self, release_id: int, text: str) -> str:
        """``text`` (a card, a report, a script about release ``release_id``) as a reviewer or a shareable
        download receives it: the one scrub of the data file's name (and its stem), in every form it can
        take in the text (as typed, HTML-escaped either way, JSON-escaped), replaced by :data:`NAME_STAND_IN`."""
        release = self.releases.get(release_id)
        if release is None:
            return text
        name = self.ledger.dataset_name(release.fingerprint) or ""
        dataset = release.card.get("domain", {}).get("dataset") or ""
        names = {n for base in (name, dataset) if base for n in (base, base.rsplit(".", 1)[0]) if len(n) >= 3}
        return scrub_names(text, names)


def scrub_names(text: str, names) -> str:
    """``text`` with every form of each of ``names`` (longest first) replaced by :data:`NAME_STAND_IN`:
    as typed, HTML-escaped (``&amp; &lt; &gt; &quot; &#x27;`` or ``&#39; &#34;``) and JSON-escaped."""
    forms = set()
    for name in names:
        escaped = html.escape(name, quote=True)
        forms |= {name, html.escape(name, quote=False), escaped, json.dumps(name)[1:-1]}
        forms |= {escaped.replace("&#x27;", "&#39;").replace("&quot;", "&#34;"), json.dumps(escaped)[1:-1]}
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, NAME_STAND_IN)
    return text


def _shown(value) -> str:
    """A user's value for a message: printable characters only (never a control character), and short."""
    text = "".join(ch if ch.isprintable() else "?" for ch in str(value))
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
