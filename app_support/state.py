"""Session state: the keys the pages share, their defaults, the workspace behind them, and accessors.

Widget keys are prefixed by their page (``privacy_epsilon``); the values pages share live
under plain keys (``epsilon``) because Streamlit forgets a widget's key when its page is
left. :func:`ensure_state` runs before every page (from ``app.py``), so any page can be
opened directly.

What must outlive the browser tab lives in the workspace (``dpsynth_core.workspace``): the
budget ledger, every release, the last declaration per dataset and, per browser, the session
itself (which data and settings), so a reload, a new tab or a restarted server resumes where
the publisher was.

**A browser's table stays in that browser.** Each browser has a secret identity: 32 bytes
from ``secrets`` (a CSPRNG), kept in the cookie ``dpsynth_browser``. Streamlit can read
cookies (``st.context.cookies``, as sent when the tab connected) but not set them, so a
browser that sent none gets a new identity and a one-line script (``st.html`` with
JavaScript) stores it as a cookie for the next reload or tab; JavaScript must be able to read
it, which is harmless: it is only ever compared with itself. The uploaded file is kept in this
server process's memory under that identity (:data:`_BROWSER_FILES`, the file in use of the
last few browsers), never written to the workspace, and the workspace keeps the session
under it too: another browser, which does not know the identity, starts afresh with the
bundled example and never sees the file, its name, its counts or anything computed from it.
After a restart (or once a browser's file has left memory) the session resumes without the
file and the pages say plainly that it must be uploaded again; its fingerprint then finds its
ledger, releases and declaration. Another dataset is never shown in its place.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import threading
from collections import OrderedDict

import streamlit as st

from dpsynth_core import constraints
from dpsynth_core.data.examples import EXAMPLES, example_csv, example_declaration
from dpsynth_core.domain.templates import restored_declaration
from dpsynth_core.synthesizers import DEFAULT_METHOD
from dpsynth_core.workspace import Workspace, WorkspaceGone, default_folder

DATA = "data"  # {"frame", "info", "source", "hash", "name"}
DECLARATION = "declaration"  # the working domain declaration, in the core's JSON form
EPSILON = "epsilon"
RHO = "rho"
METHOD = "method"
ROWS = "rows"  # None: noisy row count; an int: a public row count
GROUPS = "groups"  # publisher-chosen column groups (for the methods that take them)
RELEASES = "releases"  # release id -> entry (a few recent ones, with their tables)
CURRENT = "current_release"  # id of the release on show
DECLARATION_VERSION = "declaration_version"  # bumped when a declaration is loaded: resets its widgets
NOTICE = "notice"  # a message to show once on the next run (e.g. after an upload)
MISSING_UPLOAD = "missing_upload"  # {"name", "fingerprint"} of a file to upload again after a restart
BROWSER = "browser"  # this browser's secret identity (the value of its cookie)
_NEW_BROWSER = "_new_browser"  # True when the browser sent no identity: the page stores one as a cookie
CODEBOOK_OFFER = "codebook_offer"  # the file's codebook's start, offered beside a saved declaration
PERSON_CHECK = "person_check"  # {"hash", "column", "check"}: the last rows-per-person check (DP output)
DOMAIN_OPENED = "domain_opened"  # name -> open: the Domain page's columns, as the publisher left them (or told)
_SAVED = "_saved_session"

#: Releases whose tables a session keeps in memory (all of them stay in the workspace).
KEPT_RELEASES = 5
#: The cookie holding the browser's identity, and its form (``secrets.token_urlsafe(32)``).
COOKIE = "dpsynth_browser"
_IDENTITY = re.compile(r"[A-Za-z0-9_-]{43}")
#: Browsers whose uploaded file this server process keeps in memory, so a reload or a new tab resumes.
KEPT_BROWSERS = 4
#: The publisher's choices a file is read with (the Data page's; :func:`dpsynth_core.data.formats.read_data`'s).
READING = ("encoding", "delimiter", "sheet", "header_row", "header_rows", "names")
#: browser identity -> its file in use: {"raw", "name", "hash", "encoding", "delimiter", "sheet", "header_row",
#: "header_rows", "names"}. Only the browser that holds the identity can reach its entry.
_BROWSER_FILES: OrderedDict[str, dict] = OrderedDict()
_BROWSER_FILES_LOCK = threading.Lock()


@st.cache_resource(show_spinner=False)
def _open_workspace(folder: str) -> Workspace:
    return Workspace(folder)


def workspace() -> Workspace:
    """The publisher's workspace (``$DPSYNTH_WORKSPACE`` or ``~/.dpsynth``)."""
    return _open_workspace(str(default_folder()))


def workspace_gone(gone: WorkspaceGone) -> None:
    """The workspace folder went away while the app ran: say so in one line and stop the page. Never made
    again in its place (:class:`~dpsynth_core.workspace.WorkspaceGone`): an empty ledger would show a
    dataset that has spent budget as if nothing had been drawn, and let it spend again."""
    st.error(
        f"The workspace folder {gone.folder} was removed while the app was running, and its privacy ledger "
        "with it: nothing more was released or recorded. Put the folder back, or restart the app to begin a new, "
        "empty workspace (budget already spent on your data still counts, though the new ledger will not show it).",
        icon=":material/folder_off:",
    )
    st.stop()


def browser() -> str:
    """This browser's secret identity: the one its cookie sent, else a new one (see the module's docstring)."""
    ss = st.session_state
    if BROWSER not in ss:
        sent = st.context.cookies.get(COOKIE)
        if isinstance(sent, str) and _IDENTITY.fullmatch(sent):
            ss[BROWSER] = sent
        else:
            ss[BROWSER], ss[_NEW_BROWSER] = secrets.token_urlsafe(32), True
    return ss[BROWSER]


def store_identity() -> None:
    """For a browser that sent no identity: store the new one as a cookie (a year; this site only)."""
    if st.session_state.get(_NEW_BROWSER):
        cookie = f"{COOKIE}={browser()}; path=/; max-age=31536000; SameSite=Strict"
        st.sidebar.html(
            f"<script>document.cookie = '{cookie}' + (location.protocol === 'https:' ? '; Secure' : '');</script>",
            unsafe_allow_javascript=True,
        )


def ensure_state() -> None:
    """Set every shared key once per session, resuming this browser's last session from the workspace."""
    ss = st.session_state
    ss.setdefault(EPSILON, constraints.EPSILON_DEFAULT)
    ss.setdefault(RHO, constraints.RHO_DEFAULT)
    ss.setdefault(METHOD, DEFAULT_METHOD)
    ss.setdefault(ROWS, None)
    ss.setdefault(GROUPS, [])
    ss.setdefault(RELEASES, OrderedDict())
    ss.setdefault(CURRENT, None)
    ss.setdefault(DECLARATION_VERSION, 0)
    if DATA not in ss and MISSING_UPLOAD not in ss and not _resume():
        use_example("adult")


def _resume() -> bool:
    """Load this browser's last session from the workspace; False if there is none to resume.

    Its uploaded file comes back from this process's memory if it is still there; otherwise
    no data is loaded (``MISSING_UPLOAD`` says which file to upload again).
    """
    last = workspace().choices.last_session(browser()) or {}
    ss = st.session_state
    source = last.get("source", "")
    with _BROWSER_FILES_LOCK:
        kept = _BROWSER_FILES.get(browser())
    if source.startswith("example: ") and source.removeprefix("example: ") in EXAMPLES:
        use_example(source.removeprefix("example: "), declaration=last.get("declaration"))
    elif source.startswith("upload: ") and kept is not None and kept["hash"] == last.get("data"):
        from app_support.cached import read_upload

        reading = {k: kept.get(k) for k in READING}
        frame, info = read_upload(kept["raw"], kept["name"], **reading)
        set_data(frame, info, source=source, raw=kept["raw"], reading=reading)
        set_declaration(last.get("declaration") or {"columns": {}})
    elif source.startswith("upload: "):
        ss[MISSING_UPLOAD] = {"name": source.removeprefix("upload: "), "fingerprint": last.get("data")}
    else:  # a browser never seen (or a bundled example no longer bundled)
        return False
    for key in (EPSILON, RHO, METHOD, ROWS, GROUPS):
        if key in last:
            ss[key] = last[key]
    if has_data():
        ss[CURRENT] = last.get("current_release")
        ss[_SAVED] = _snapshot()
    return True


def _snapshot() -> dict:
    ss = st.session_state
    return {
        "source": ss[DATA]["source"],
        "data": ss[DATA]["hash"],
        "declaration": ss.get(DECLARATION),
        EPSILON: ss[EPSILON],
        RHO: ss[RHO],
        METHOD: ss[METHOD],
        ROWS: ss[ROWS],
        GROUPS: ss[GROUPS],
        "current_release": ss.get(CURRENT),
    }


def save_session() -> None:
    """Write this browser's session to the workspace when it changed (cheap when it did not)."""
    ss = st.session_state
    if DATA not in ss:
        return
    snapshot = _snapshot()
    if snapshot != ss.get(_SAVED):
        choices = workspace().choices
        choices.save_session(browser(), snapshot)
        if snapshot["declaration"] != (ss.get(_SAVED) or {}).get("declaration"):
            choices.remember_declaration(snapshot["data"], snapshot["declaration"])
        ss[_SAVED] = snapshot


def use_example(name: str, declaration: dict | None = None) -> None:
    from app_support.cached import read_upload

    raw = example_csv(name).read_bytes()
    frame, info = read_upload(raw, f"{name}.csv")
    set_data(frame, info, source=f"example: {name}", raw=raw)
    set_declaration(declaration or workspace().choices.declaration_for(data()["hash"]) or example_declaration(name))


def use_upload(
    frame,
    info: dict,
    *,
    name: str,
    raw: bytes,
    declaration: dict | None,
    codebook: dict | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    sheet: str | None = None,
    header_row: int | None = None,
    header_rows: int | None = None,
    names: tuple[str, ...] | None = None,
) -> dict | None:
    """Load an uploaded table (read with ``encoding`` and ``delimiter``, or a spreadsheet's ``sheet``, and the
    header's ``header_row`` and ``header_rows``, the columns' ``names`` for a file without one) for this browser
    only, with the last declaration saved for its records, else ``declaration`` (the one kept while re-reading the
    same upload): either wins over the file's ``codebook``, which is then offered beside it
    (:func:`~dpsynth_core.domain.templates.restored_declaration`); else the start its codebook and names give.

    Returns the declaration saved for these records when the workspace already knew them (same fingerprint),
    else None.
    """
    reading = dict(zip(READING, (encoding, delimiter, sheet, header_row, header_rows, names), strict=True))
    set_data(frame, info, source=f"upload: {name}", raw=raw, reading=reading)
    key = data()["hash"]
    with _BROWSER_FILES_LOCK:
        _BROWSER_FILES[browser()] = {"raw": raw, "name": name, "hash": key, **reading}
        _BROWSER_FILES.move_to_end(browser())
        while len(_BROWSER_FILES) > KEPT_BROWSERS:
            _BROWSER_FILES.popitem(last=False)
    known = workspace().choices.declaration_for(key)
    started, offered = restored_declaration(known or declaration, info["columns"], dataset=name, codebook=codebook)
    set_declaration(started)
    st.session_state[CODEBOOK_OFFER] = offered
    return known


def kept_upload() -> dict | None:
    """The uploaded file in use, as this server process keeps it for this browser ({"raw", "name", "hash", and how it
    was read: :data:`READING`}), so the Data page can read it again with other choices after the uploader let it go
    (a visit to another page); None for an example, or when the process no longer keeps it."""
    if not has_data() or not data()["source"].startswith("upload: "):
        return None
    with _BROWSER_FILES_LOCK:
        kept = _BROWSER_FILES.get(browser())
    return kept if kept is not None and kept["hash"] == data()["hash"] else None


def set_data(frame, info: dict, *, source: str, raw: bytes, reading: dict | None = None) -> None:
    """Make a table the one in use; ``reading``: the publisher's choices it was read with (:data:`READING`; None
    where the default), kept with the release's settings so that its rerun script reads the file as the app did."""
    # the ledger follows the records, whatever the file's form (dpsynth_core.workspace.ledger)
    ledger = workspace().ledger
    records = ledger.records_key(frame)
    key = ledger.dataset_key(records)
    name = source.split(": ", 1)[-1]
    st.session_state[DATA] = {
        "frame": frame,
        "info": info,
        "source": source,
        "hash": key,
        "records": records,
        "name": name if "." in name else f"{name}.csv",
        "reading": {k: v for k, v in (reading or {}).items() if v is not None},
    }
    st.session_state[CURRENT] = None
    st.session_state.pop(MISSING_UPLOAD, None)
    st.session_state.pop(CODEBOOK_OFFER, None)
    ledger.remember_dataset(key, st.session_state[DATA]["name"])


def set_declaration(spec: dict) -> None:
    st.session_state[DECLARATION] = spec
    st.session_state[DECLARATION_VERSION] = st.session_state.get(DECLARATION_VERSION, 0) + 1


def has_data() -> bool:
    """False only when this browser's uploaded file must be uploaded again (``MISSING_UPLOAD``)."""
    return DATA in st.session_state


def data() -> dict:
    return st.session_state[DATA]


def declaration() -> dict:
    return st.session_state[DECLARATION]


def person_check(unit) -> dict | None:
    """The rows-per-person check drawn on this data for the person ``unit``'s column (its DP counts), or None."""
    kept = st.session_state.get(PERSON_CHECK)
    if not kept or unit is None or kept["column"] != unit.column or kept["hash"] != data()["hash"]:
        return None
    return kept["check"]


def settings() -> dict:
    """Everything that decides a release; two equal settings must not silently redraw."""
    ss = st.session_state
    return {
        "data": ss[DATA]["hash"],
        "declaration": ss[DECLARATION],
        "epsilon": float(ss[EPSILON]),
        "rho": float(ss[RHO]),
        "method": ss[METHOD],
        "rows": ss[ROWS],
        "groups": ss[GROUPS] if _takes(ss[METHOD], "groups") else [],
        **ss[DATA].get("reading", {}),  # how the file was read, for the rerun script (none: the defaults)
    }


def _takes(method: str, option: str) -> bool:
    from dpsynth_core.synthesizers import METHODS

    return method in METHODS and METHODS[method].takes(option)


def settings_key(values: dict) -> str:
    return hashlib.sha256(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[:16]


# --- releases ------------------------------------------------------------------------------


def _keep(release_id: int, entry: dict) -> dict:
    """Keep a release's table in the session as the most recent (only the last few are kept)."""
    releases = st.session_state[RELEASES]
    releases.pop(release_id, None)
    releases[release_id] = entry
    while len(releases) > KEPT_RELEASES:
        releases.popitem(last=False)
    return entry


def remember_release(release_id: int, entry: dict) -> dict:
    """Keep a release's table in the session (the most recent few) and make it current."""
    st.session_state[CURRENT] = release_id
    return _keep(release_id, entry)


def release_entry(release_id: int | None) -> dict | None:
    """A release by id: from the session, else loaded from the workspace (its table read back)."""
    if release_id is None:
        return None
    releases = st.session_state[RELEASES]
    if release_id in releases:
        return releases[release_id]
    stored = workspace().releases.get(release_id)
    if stored is None or stored.fingerprint != data()["hash"]:
        return None
    entry = {
        "id": stored.id,
        "data": stored.data(),
        "card": stored.card,
        "settings": stored.settings,
        "publisher_report": stored.publisher_report,
        "metrics": dict(stored.metrics),
        "seconds": stored.seconds,
        "created": stored.created,
    }
    return _keep(release_id, entry)


def current_release() -> dict | None:
    return release_entry(st.session_state.get(CURRENT))


def save_metrics(entry: dict) -> None:
    """Persist an entry's publisher-only metrics with its release."""
    workspace().releases.save_metrics(entry["id"], entry["metrics"])


def field_widget(prefix: str, field: str, value) -> str:
    """The widget key of one column's field on the Domain page, given its declared value the first time it is
    drawn (the column editor's and the derived-column editor's widgets alike)."""
    key = f"{prefix}_{field}"
    if key not in st.session_state:
        st.session_state[key] = value
    return key


def bind_widget(widget_key: str, state_key: str) -> None:
    """Start a page's widget from the shared value (the widget's own key is forgotten off-page)."""
    if widget_key not in st.session_state:
        st.session_state[widget_key] = st.session_state[state_key]


def flash(kind: str, message: str) -> None:
    """Show a message on the next run (after ``st.rerun``)."""
    st.session_state[NOTICE] = (kind, message)


def take_flash() -> tuple | None:
    """The message :func:`flash` left, ``(kind, text)``, forgotten once taken (None: none)."""
    return st.session_state.pop(NOTICE, None)


def show_flash() -> None:
    notice = take_flash()
    if notice:
        getattr(st, notice[0])(notice[1])


# --- the draw's settings, public ----------------------------------------------------------------


def options(values: dict | None = None) -> dict:
    """The method's own options among the settings (the ones it takes, as its option specs name them)."""
    from dpsynth_core.synthesizers import get_method

    values = settings() if values is None else values
    info = get_method(values["method"])
    chosen = {"groups": [tuple(g) for g in values.get("groups") or []] or None}
    return {name: value for name, value in chosen.items() if info.takes(name) and value is not None}


def expected_rows() -> int:
    """Rows a draw will have: the public number asked for, else about the real count."""
    ss = st.session_state
    return int(ss[ROWS] or ss[DATA]["info"]["rows"])


def download_stem(release_id: int) -> str:
    """The start of the file name of every download of release ``release_id``: its number, never the data
    file's name (the declaration's dataset defaults to it, and these downloads are for sharing: the file
    names keep to the rule :func:`shareable` holds their contents to)."""
    return f"dpsynth_release{int(release_id)}"


def shareable(release_id: int, text: str) -> bytes:
    """A card, report or script of release ``release_id`` as a shareable download gets it: through the one
    scrub of the data file's name (``Access.shareable``), as a reviewer sees it; UTF-8 bytes."""
    return workspace().access.shareable(release_id, text).encode("utf-8")
