"""The app's entry point: the navigation (titled pages, in the order of the walk) and the shared frame.

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

from app_support import access, state
from app_support.sidebar import frame
from dpsynth_core.workspace import WorkspaceGone

PAGES = {
    "": [st.Page("app_pages/0_Home.py", title="Home", icon=":material/home:", default=True)],
    "Make a release": [
        st.Page("app_pages/1_Data.py", title="1. Data", icon=":material/description:", url_path="Data"),
        st.Page("app_pages/2_Domain.py", title="2. Domain", icon=":material/rule:", url_path="Domain"),
        st.Page("app_pages/3_Privacy.py", title="3. Privacy", icon=":material/tune:", url_path="Privacy"),
        st.Page("app_pages/4_Preview.py", title="4. Preview", icon=":material/bar_chart:", url_path="Preview"),
        st.Page("app_pages/5_Release.py", title="5. Release", icon=":material/download:", url_path="Release"),
    ],
    "Keep track": [
        st.Page("app_pages/6_Releases.py", title="Releases", icon=":material/history:", url_path="Releases"),
        st.Page("app_pages/7_Learn.py", title="Learn", icon=":material/school:", url_path="Learn"),
    ],
}

#: A reviewer's whole app: no publisher page exists for the session (see app_support/access.py).
REVIEW_PAGES = [
    st.Page(
        "app_pages/8_Review.py", title="Shared releases", icon=":material/verified:", url_path="Review", default=True
    ),
    st.Page("app_pages/7_Learn.py", title="Learn", icon=":material/school:", url_path="Learn"),
]

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
        frame(navigation.title, needs_data=navigation.title not in ("Home", "1. Data", "Learn"))
    elif role == "reviewer":
        access.review_sidebar()
    navigation.run()
except WorkspaceGone as gone:  # whichever page, button or sidebar found it: one line, never a traceback
    state.workspace_gone(gone)
