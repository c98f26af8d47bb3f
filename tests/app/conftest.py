"""AppTest as the real server runs the app: through app.py's st.navigation, never the pages/ folder."""

from __future__ import annotations

import pytest
from streamlit.runtime.pages_manager import PagesManager


@pytest.fixture(autouse=True)
def _navigation_not_pages_folder(monkeypatch):
    # AppTest resets Streamlit's "pages/ folder" flag before every run, so a switched-to page would
    # run on its own (the old multipage mode), without app.py's frame and sidebar. The real server
    # turns the flag off as soon as app.py calls st.navigation; do the same here.
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
