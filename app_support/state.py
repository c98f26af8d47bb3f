"""Session state: the keys the pages share, their defaults, and accessors.

Widget keys are prefixed by their page (``privacy_epsilon``); the values pages share live
under plain keys (``epsilon``) because Streamlit forgets a widget's key when its page is
left. Every page calls :func:`ensure_state` first, so any page can be opened directly.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import streamlit as st

from dpsynth_core import constraints
from dpsynth_core.examples import example_csv, example_declaration

DATA = "data"                # {"frame", "info", "source", "hash"}
DECLARATION = "declaration"  # the working domain declaration, in the core's JSON form
EPSILON = "epsilon"
RHO = "rho"
METHOD = "method"
ROWS = "rows"                # None: noisy row count; an int: a public row count
GROUPS = "groups"            # publisher-chosen column groups (marginals, dirichlet)
RELEASES = "releases"        # settings key -> {"release", "metrics", "settings", "draw"}
CURRENT = "current_release"  # settings key of the release on show
LEDGER = "ledger"            # data hash -> list of {"epsilon", "method", "when"}
DECLARATION_VERSION = "declaration_version"  # bumped when a declaration is loaded: resets its widgets


def ensure_state() -> None:
    """Set every shared key to its default once per session; the adult example is preselected."""
    ss = st.session_state
    ss.setdefault(EPSILON, constraints.EPSILON_DEFAULT)
    ss.setdefault(RHO, constraints.RHO_DEFAULT)
    ss.setdefault(METHOD, "marginals")  # the recommended method for whole-table releases
    ss.setdefault(ROWS, None)
    ss.setdefault(GROUPS, [])
    ss.setdefault(RELEASES, {})
    ss.setdefault(CURRENT, None)
    ss.setdefault(LEDGER, {})
    ss.setdefault(DECLARATION_VERSION, 0)
    if DATA not in ss:
        use_example("adult")


def use_example(name: str) -> None:
    from app_support.cached import read_csv_bytes

    raw = example_csv(name).read_bytes()
    frame, info = read_csv_bytes(raw, f"{name}.csv")
    set_data(frame, info, source=f"example: {name}", raw=raw)
    set_declaration(example_declaration(name))


def set_data(frame, info: dict, *, source: str, raw: bytes) -> None:
    st.session_state[DATA] = {"frame": frame, "info": info, "source": source,
                              "hash": hashlib.sha256(raw).hexdigest()}
    st.session_state[CURRENT] = None


def set_declaration(spec: dict) -> None:
    st.session_state[DECLARATION] = spec
    st.session_state[DECLARATION_VERSION] = st.session_state.get(DECLARATION_VERSION, 0) + 1


def data() -> dict:
    return st.session_state[DATA]


def declaration() -> dict:
    return st.session_state[DECLARATION]


def settings() -> dict:
    """Everything that decides a release; two equal settings must not silently redraw."""
    ss = st.session_state
    return {"data": ss[DATA]["hash"], "declaration": ss[DECLARATION], "epsilon": float(ss[EPSILON]),
            "rho": float(ss[RHO]), "method": ss[METHOD], "rows": ss[ROWS],
            "groups": ss[GROUPS] if ss[METHOD] in ("marginals", "dirichlet") else []}


def settings_key(values: dict) -> str:
    return hashlib.sha256(json.dumps(values, sort_keys=True, default=str).encode()).hexdigest()[:16]


def spent_on_current_data() -> tuple[float, int]:
    """Total epsilon spent on the current data in this session, and the number of draws."""
    entries = st.session_state[LEDGER].get(st.session_state[DATA]["hash"], [])
    return sum(e["epsilon"] for e in entries), len(entries)


def record_draw(epsilon: float, method: str) -> None:
    ledger = st.session_state[LEDGER].setdefault(st.session_state[DATA]["hash"], [])
    ledger.append({"epsilon": epsilon, "method": method,
                   "when": dt.datetime.now().strftime("%H:%M:%S")})


#: Releases kept in a session (older ones are dropped; their draws stay in the ledger).
KEPT_RELEASES = 5


def store_release(key: str, entry: dict) -> None:
    releases = st.session_state[RELEASES]
    releases.pop(key, None)
    releases[key] = entry
    while len(releases) > KEPT_RELEASES:
        releases.pop(next(iter(releases)))


def current_release() -> dict | None:
    key = st.session_state.get(CURRENT)
    return st.session_state[RELEASES].get(key) if key else None


def bind_widget(widget_key: str, state_key: str) -> None:
    """Start a page's widget from the shared value (the widget's own key is forgotten off-page)."""
    if widget_key not in st.session_state:
        st.session_state[widget_key] = st.session_state[state_key]
