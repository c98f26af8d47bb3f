"""A file dropped on the Data page is read even when the publisher clicks on at once (``app_support/uploads.py``).

In a browser, clicking *2. Domain* while the Data page's run reads a dropped file stops that run at its next
Streamlit call, and the uploader's value is gone with its page: the app went on with the table before, silently.
The Data page now only keeps the file; the frame reads it before whichever page runs next, and forgets it only
once it is in use. AppTest cannot click during a run, so these tests put the kept file where the Data page puts
it and stop a run half-way as Streamlit does (``StopException``)."""

from __future__ import annotations

import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException
from streamlit.testing.v1 import AppTest

from app_support import state, uploads
from tests.conftest import ROOT

RAW = b"id,age,sex,notes\n1,34,Female,\n2,51,Male,\n3,29,Female,\n4,,Male,\n5,40,Female,\n"
CSV = {"encoding": None, "delimiter": None, "header_row": None, "header_rows": None}


def _dropped_then(page: str, monkeypatch=None) -> AppTest:
    """A session on the bundled example whose Data page kept ``tiny.csv``, then a run of ``page``."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    browser = at.session_state[state.BROWSER]
    previous = {"source": "example: adult", "columns": [], "declaration": at.session_state[state.DECLARATION]}
    uploads._DROPPED[browser] = {"name": "tiny.csv", "raw": RAW, "options": CSV, "previous": previous}
    return at.switch_page(page)


@pytest.fixture(autouse=True)
def _nothing_kept():
    uploads._DROPPED.clear()
    yield
    uploads._DROPPED.clear()


def test_a_kept_file_is_read_before_whichever_page_runs_next():
    at = _dropped_then("app_pages/2_Domain.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state[state.DATA]["source"] == "upload: tiny.csv"
    assert list(at.session_state[state.DECLARATION]["columns"]) == ["id", "age", "sex", "notes"]
    assert [t.value for t in at.toast] == ["Read tiny.csv. Next, declare what values each column could take."]
    assert not uploads._DROPPED  # forgotten once in use: the next run reads nothing


def test_a_read_stopped_half_way_is_done_again_on_the_next_run(monkeypatch):
    """Stopped after the table was set but before its declaration: the next run reads it again from the start,
    and does not take the table before's declaration for this one's (it was kept when the file was dropped)."""
    real = state.use_upload

    def stopped(frame, info, **kwargs):
        state.set_data(frame, info, source=f"upload: {kwargs['name']}", raw=kwargs["raw"])
        raise StopException()

    monkeypatch.setattr(state, "use_upload", stopped)
    at = _dropped_then("app_pages/2_Domain.py").run()
    assert at.session_state[state.DATA]["source"] == "upload: tiny.csv" and uploads._DROPPED  # still kept
    assert "workclass" in at.session_state[state.DECLARATION]["columns"]  # the half-way state
    monkeypatch.setattr(state, "use_upload", real)
    at.switch_page("app_pages/3_Privacy.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert list(at.session_state[state.DECLARATION]["columns"]) == ["id", "age", "sex", "notes"]
    assert not uploads._DROPPED


def test_a_kept_file_that_cannot_be_read_is_said_and_forgotten():
    at = _dropped_then("app_pages/2_Domain.py")
    uploads._DROPPED[at.session_state[state.BROWSER]]["raw"] = b"PK\x03\x04 a zip file"
    at.run()
    assert any("could not be read" in e.value and "previous table is still loaded" in e.value for e in at.error)
    assert at.session_state[state.DATA]["source"] == "example: adult" and not uploads._DROPPED


def test_only_the_last_few_browsers_files_are_kept():
    """A browser that left before its dropped file was read does not keep it in memory for ever."""
    for i in range(state.KEPT_BROWSERS + 2):
        uploads._keep(f"browser-{i}", {"name": f"f{i}.csv", "raw": RAW, "options": CSV, "previous": None})
    assert list(uploads._DROPPED) == [f"browser-{i}" for i in range(2, state.KEPT_BROWSERS + 2)]


def test_a_notice_the_data_page_left_unshown_shows_on_the_next_page_not_later_stale():
    """A Data page's run stopped after the read but before its notice showed (the publisher clicked on): the next
    page shows it at once, and a later visit to the Data page does not show it again."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.session_state[state.NOTICE] = ("success", "Read tiny.csv. Next, declare what values each column could take.")
    at.switch_page("app_pages/2_Domain.py").run()
    assert [t.value for t in at.toast] == ["Read tiny.csv. Next, declare what values each column could take."]
    at.switch_page("app_pages/1_Data.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Read tiny.csv" not in " ".join(s.value for s in at.success)
