"""The app's entry point: the navigation (the pages of ``app_support/pages.py``, in the order of the walk) and
the shared frame.

Run with ``streamlit run app.py``. Pages live in ``app_pages/``; each gathers choices, calls the
core and draws. The frame (state resumed from the workspace, the sidebar) runs before each.

The folder is deliberately not called ``pages/`` (the name the brief gives), checked in headless
Chromium with Streamlit 1.67: the first server process that sees a ``pages/`` folder beside the
entry script sets ``PagesManager.uses_pages_directory`` and runs every request through the old
multipage mode (``_mpa_v1``) until ``st.navigation`` has run once in that process. Opening or
reloading ``/Preview`` on a freshly (re)started server then ran ``pages/4_Preview.py`` on its own:
no frame, no state, a blank page under a navigation of file names headed "app". ``st.navigation``
ignoring ``pages/`` applies only after it has run; ``tests/app/test_app.py`` keeps the folder away.
"""

import streamlit as st

from app_support import access, pages, state
from app_support.sidebar import frame
from dpsynth_core.workspace import WorkspaceGone

PAGES = {
    section: [page.st_page(default=page is pages.HOME) for page in listed]
    for section, listed in pages.PUBLISHER.items()
}
#: A reviewer's whole app: no publisher page exists for the session (see app_support/access.py).
REVIEW_PAGES = [page.st_page(default=page is pages.REVIEW) for page in pages.REVIEWER]

try:
    role = access.role()
except WorkspaceGone as gone:
    state.workspace_gone(gone)  # one line, and the page stops
if role == "reviewer":
    navigation = st.navigation(REVIEW_PAGES)
elif role == "publisher":
    navigation = st.navigation(PAGES)
elif role == "sign in":  # that page alone
    navigation = st.navigation([st.Page(access.sign_in_page, title="Sign in", url_path="SignIn", default=True)])
else:
    navigation = st.navigation([st.Page(access.invalid_link_page, title="Review", url_path="Review", default=True)])
st.set_page_config(page_title=f"{navigation.title} · DP Synth", page_icon=":material/lock:", layout="wide")
try:
    if role == "publisher":
        frame(navigation.title, needs_data=pages.titled(navigation.title).needs_data)
    elif role == "reviewer":
        access.review_sidebar()
    navigation.run()
except WorkspaceGone as gone:  # whichever page, button or sidebar found it: one line, never a traceback
    state.workspace_gone(gone)
