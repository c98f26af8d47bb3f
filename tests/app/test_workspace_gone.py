"""The workspace folder removed while the app runs: every page says so in one line and stops, never a
traceback, and the folder is not made again (an empty ledger would show a dataset that has spent budget as
if nothing had been drawn)."""

from __future__ import annotations

import shutil

import pytest

from app_support import state
from dpsynth_core.workspace import default_folder
from tests.app.test_app import PAGES, _app, _generate, _visit


@pytest.fixture(autouse=True)
def _forget_the_open_workspace():
    """The server's open workspace is kept per folder for the process's life; a later test may get a
    folder of the same name (the removed one's number is free again): it must open it afresh."""
    yield
    state._open_workspace.clear()


def _refused_in_one_line(at, where: str = "") -> None:
    assert not at.exception, (where, [e.value for e in at.exception])
    shown = [e.value for e in at.error]
    assert len(shown) == 1, (where, shown)
    assert shown[0].startswith(f"The workspace folder {default_folder()} was removed while the app was running")
    assert "restart the app" in shown[0] and "nothing more was released or recorded" in shown[0]
    assert not default_folder().exists()  # refused, not made again empty


def test_moving_the_epsilon_slider_after_the_folder_is_removed():
    at = _visit(_app().run(), "app_pages/3_Privacy.py")
    shutil.rmtree(default_folder())
    at.select_slider(key="privacy_epsilon").set_value(0.5).run()
    _refused_in_one_line(at)


def test_generate_after_the_folder_is_removed_draws_nothing():
    at = _visit(_app().run(), "app_pages/4_Preview.py")
    shutil.rmtree(default_folder())
    at.button(key="preview_generate").click().run()
    _refused_in_one_line(at)
    assert at.session_state["current_release"] is None


def test_every_page_after_a_draw_and_the_folder_removed():
    """One draw, then every page in turn (each run meets the removed folder afresh)."""
    at = _generate(_app().run())
    shutil.rmtree(default_folder())
    for path in PAGES:
        at.switch_page(path).run()
        _refused_in_one_line(at, path)
