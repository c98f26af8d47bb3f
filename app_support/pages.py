"""The app's pages, each stated once: its file, title, icon and url path, and what the home page says of it.

``app.py`` builds its navigation from these lists (:meth:`AppPage.st_page`); the home page links to the
steps with the same titles and icons, and each page heads itself with its title.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st


@dataclass(frozen=True)
class AppPage:
    """One page of the app."""

    path: str
    title: str
    icon: str
    url_path: str | None = None
    #: What the page is for, after its title in the home page's link to it.
    summary: str = ""
    #: False for the pages that work before a table is chosen (the frame asks for the file on the others).
    needs_data: bool = True

    def st_page(self, *, default: bool = False) -> st.Page:
        """The navigation's page."""
        return st.Page(self.path, title=self.title, icon=self.icon, url_path=self.url_path, default=default)


HOME = AppPage("app_pages/0_Home.py", "Home", ":material/home:", needs_data=False)
DATA = AppPage(
    "app_pages/1_Data.py",
    "1. Data",
    ":material/description:",
    "Data",
    "pick the example or upload a CSV file",
    needs_data=False,
)
DOMAIN = AppPage(
    "app_pages/2_Domain.py", "2. Domain", ":material/rule:", "Domain", "say what values each column could take"
)
PRIVACY = AppPage("app_pages/3_Privacy.py", "3. Privacy", ":material/tune:", "Privacy", "choose the protection level")
PREVIEW = AppPage(
    "app_pages/4_Preview.py", "4. Preview", ":material/bar_chart:", "Preview", "generate and compare with the real data"
)
RELEASE = AppPage(
    "app_pages/5_Release.py",
    "5. Release",
    ":material/download:",
    "Release",
    "download the synthetic table, its card and a report",
)
RELEASES = AppPage(
    "app_pages/6_Releases.py",
    "Releases",
    ":material/history:",
    "Releases",
    "every release made from this data, side by side",
)
LEARN = AppPage(
    "app_pages/7_Learn.py", "Learn", ":material/school:", "Learn", "how it works, with live examples", needs_data=False
)
REVIEW = AppPage("app_pages/8_Review.py", "Shared releases", ":material/verified:", "Review")

#: The steps of a release, in the order of the walk.
STEPS = (DATA, DOMAIN, PRIVACY, PREVIEW, RELEASE)
#: The pages beside the steps.
KEEP_TRACK = (RELEASES, LEARN)
#: A publisher's navigation, by section; the home page is its default.
PUBLISHER = {"": (HOME,), "Make a release": STEPS, "Keep track": KEEP_TRACK}
#: A reviewer's whole app (no publisher page exists for the session: see :mod:`.access`); the first is its default.
REVIEWER = (REVIEW, LEARN)


def titled(title: str) -> AppPage:
    """The publisher's page with this title."""
    return next(page for pages in PUBLISHER.values() for page in pages if page.title == title)
