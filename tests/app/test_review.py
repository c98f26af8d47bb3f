"""Review mode: a reviewer link shows shared releases only; publisher pages need a login beyond this computer.

AppTest for the session's pages, and headless Chromium against a server listening on every interface
(``--server.address 0.0.0.0``): the rendered text of every page a reviewer can reach is searched for
the real table's file name and its distinctive values.
"""

from __future__ import annotations

import contextlib

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dpsynth_core import synthesize
from dpsynth_core.workspace import Workspace
from tests.app.test_browser import Server, _idle
from tests.conftest import ROOT

FILE_NAME = "zanzibar_patients.csv"
SECRETS = ("zanzibar", "Xanthippe", "Orbison")
PUBLISHER_HEADINGS = (
    "1. Data",
    "2. Domain",
    "3. Privacy",
    "4. Preview",
    "5. Release",
    "Data in use",
    "Privacy budget spent",
)


def _shared_release(folder) -> tuple[Workspace, str]:
    """A workspace holding one release of a table with a dropped column of names, and a link to it."""
    workspace = Workspace(folder)
    real = pd.DataFrame(
        {
            "ward": ["north", "south", "east"] * 100,
            "age": [str(20 + i % 60) for i in range(300)],
            "patient": [f"Xanthippe Orbison-{i}" for i in range(300)],
        }
    )
    declaration = {
        "dataset": FILE_NAME,
        "columns": {
            "ward": {"type": "categorical", "values": ["north", "south", "east", "west"]},
            "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
            "patient": {"type": "drop"},
        },
    }
    fingerprint = "a" * 64
    workspace.ledger.remember_dataset(fingerprint, FILE_NAME)
    release_id = workspace.releases.record(
        fingerprint,
        synthesize(real, declaration, 1.0, method="cathist"),
        name=FILE_NAME,
        settings={"method": "cathist", "epsilon": 1.0},
    )
    return workspace, workspace.access.create_link([release_id], note="board")


def _reviewer_app(token: str) -> AppTest:
    """The app opened with a reviewer link, run once."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["review"] = token
    return at.run()


def test_a_reviewer_link_opens_only_the_review_pages(tmp_path, monkeypatch):
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(tmp_path))
    _, token = _shared_release(tmp_path)
    at = _reviewer_app(token)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Releases shared with you"
    shown = " ".join(str(node.proto) for node in at._tree if hasattr(node, "proto")) + str(at.sidebar)
    assert not [s for s in SECRETS if s in shown] and "Data in use" not in shown
    with pytest.raises(Exception):  # noqa: B017  a publisher page is not part of a reviewer's app
        at.switch_page("app_pages/4_Preview.py").run()
    bad = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    bad.query_params["review"] = "not-a-token"
    bad.run()
    assert "does not open anything" in bad.title[0].value


@pytest.mark.browser
def test_in_chromium_a_reviewer_sees_no_real_value_and_no_publisher_page(browser, tmp_path):
    workspace, token = _shared_release(tmp_path / "workspace")
    server = Server(tmp_path / "workspace", tmp_path / "streamlit.log")
    server.address = "0.0.0.0"
    server.start()
    try:
        with contextlib.closing(browser.new_page(viewport={"width": 1280, "height": 900})) as page:
            page.goto(f"{server.url}/?review={token}")
            page.get_by_role("heading", name="Releases shared with you").wait_for(timeout=60_000)
            page.get_by_text("Synthetic data release").first.wait_for(timeout=30_000)
            assert page.get_by_text("Page not found").count() == 0
            texts = [page.inner_text("body")]
            page.screenshot(path=str(tmp_path / "review.png"), full_page=True)
            page.get_by_role("tab", name="Synthetic rows").click()
            page.get_by_text("The synthetic table:").wait_for()
            texts.append(page.inner_text("body"))
            nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
            assert "Shared releases" in nav and "Learn" in nav and "Data" not in nav and "Preview" not in nav
            for path in ("Data", "Domain", "Preview", "Release", "Releases"):  # a publisher page's address
                page.goto(f"{server.url}/{path}?review={token}")
                _idle(page)
                texts.append(page.inner_text("body"))
            page.goto(f"{server.url}/Preview")  # no link, server beyond this computer: a login
            page.get_by_role("heading", name="Sign in").wait_for(timeout=60_000)
            page.screenshot(path=str(tmp_path / "sign_in.png"))
    finally:
        server.stop()
    shown = "\n".join(texts)
    assert not [s for s in SECRETS if s.lower() in shown.lower()], "a real value or the file's name was shown"
    assert not [h for h in PUBLISHER_HEADINGS if h in shown], "a publisher page was shown to a reviewer"
    assert "north" in shown or "south" in shown  # the synthetic rows are there


def test_the_releases_page_makes_a_reviewer_link(tmp_path, monkeypatch):
    from tests.app.test_app import _app, _generate, _visit

    at = _visit(_generate(_app().run()), "app_pages/6_Releases.py")
    at.button(key="review_make").click().run()
    assert not at.exception, [e.value for e in at.exception]
    link = at.code[0].value
    token = link.split("?review=")[1]
    assert Workspace().access.releases_for(token) == [at.session_state["current_release"]]


def test_revoking_a_link_ends_an_open_review_session_at_its_next_interaction(tmp_path, monkeypatch):
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(tmp_path))
    workspace, token = _shared_release(tmp_path)
    at = _reviewer_app(token)
    assert at.title[0].value == "Releases shared with you"
    [link] = workspace.access.links()
    workspace.access.revoke_link(link["id"])
    at.run()  # the reviewer's next interaction: the same session, its link revoked meanwhile
    assert "does not open anything" in at.title[0].value
    shown = " ".join(str(node.proto) for node in at._tree if hasattr(node, "proto"))
    assert "Releases shared with you" not in shown


def test_publisher_pages_need_a_login_on_loopback_once_an_account_exists(tmp_path, monkeypatch):
    """A server on 127.0.0.1 behind a reverse proxy or a tunnel is reached from elsewhere: once any account
    exists (or DPSYNTH_REQUIRE_LOGIN=1), the publisher pages need a sign-in, on any address."""
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(tmp_path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert at.title[0].value != "Sign in"  # no account yet, loopback (AppTest): the publisher's own computer
    monkeypatch.setenv("DPSYNTH_REQUIRE_LOGIN", "1")
    assert AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run().title[0].value == "Sign in"
    monkeypatch.delenv("DPSYNTH_REQUIRE_LOGIN")
    Workspace(tmp_path).access.add_account("alice", "correct horse battery")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert at.title[0].value == "Sign in"
    at.text_input(key="sign_in_name").set_value("alice")
    at.text_input(key="sign_in_password").set_value("correct horse battery")
    at.button[0].click().run()
    assert at.title[0].value != "Sign in" and not at.exception
