"""Every page passes an axe-core scan (WCAG 2.1 A and AA) in a real Chromium, after a Generate.

Publishers are often public bodies bound by accessibility rules. axe-core (Deque, MPL-2.0) is the
file ``tests/app/vendor/axe.min.js`` as published in the npm package ``axe-core`` (version in its
header), injected into each page. Any violation the project causes fails the test, with the rule,
its help text and the elements it found.

The pages are scanned where the newcomer's walk (``tests/app/test_browser.py``) shows them, on its
server and in its browser: the home page before the example is chosen, every other page after a
Generate (a second walk through the same pages cost the browser tests about a minute). Here, the
scan itself is checked: it finds the violations of a page made to have some, and none on a clean one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text()
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: Streamlit's own sidebar navigation puts its links in a <ul> with non-<li> children (axe's "list"
#: and "listitem" rules). That markup is Streamlit's, not the project's, so the navigation list is
#: left out of the scan; every other part of the sidebar and the page is scanned.
EXCLUDE = [["[data-testid='stSidebarNavItems']"]]

#: Every page, by its link in the sidebar (the home page by its name) and its heading.
PAGES = [
    ("Home", "Share a private synthetic copy of a sensitive table"),
    ("1. Data", "1. Data"),
    ("2. Domain", "2. Domain"),
    ("3. Privacy", "3. Privacy"),
    ("4. Preview", "4. Preview"),
    ("5. Release", "5. Release"),
    ("Releases", "Releases"),
    ("Learn", "How it works"),
]


def scan(page) -> list[dict]:
    """axe-core's WCAG 2.1 A and AA violations on the page, once an app's script has finished and its
    charts are drawn."""
    from tests.app.test_browser import _drawn

    _drawn(page)
    page.add_script_tag(content=AXE)
    result = page.evaluate(
        """([exclude, tags]) => axe.run({include: [document], exclude: exclude},
                                  {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})""",
        [EXCLUDE, TAGS],
    )
    return [
        {
            "rule": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [(n["target"], n.get("failureSummary", "")[:300]) for n in v["nodes"][:5]],
        }
        for v in result["violations"]
    ]


def assert_no_violation(found: dict) -> None:
    """``found``: each page's name and its scan's violations."""
    assert sorted(found) == sorted(name for name, _ in PAGES), "a page was not scanned"
    problems = {name: v for name, v in found.items() if v}
    assert not problems, json.dumps(problems, indent=1, ensure_ascii=False)


_BROKEN = """<!doctype html><html><head><title>t</title></head><body><main>
<h1>A page with faults</h1><img src="data:,"><p style="color:#bbbbbb;background:#ffffff">pale text</p>
<ul><div>not a list item</div></ul>
</main></body></html>"""
_CLEAN = """<!doctype html><html lang="en"><head><title>t</title></head><body><main>
<h1>A clean page</h1><img src="data:," alt="a picture"><p style="color:#111111">dark text</p>
<div data-testid="stSidebarNavItems"><ul><div>Streamlit's list, left out</div></ul></div>
</main></body></html>"""


def test_the_scan_finds_violations_and_passes_a_clean_page(browser):
    page = browser.new_page()
    try:
        page.set_content(_BROKEN)
        rules = {v["rule"] for v in scan(page)}
        assert {"image-alt", "color-contrast", "list", "html-has-lang"} <= rules, rules
        page.set_content(_CLEAN)
        assert scan(page) == []  # the navigation's list markup is left out
        with pytest.raises(AssertionError, match="image-alt"):
            assert_no_violation({name: [] for name, _ in PAGES[:-1]} | {"Learn": [{"rule": "image-alt"}]})
        with pytest.raises(AssertionError, match="not scanned"):
            assert_no_violation({name: [] for name, _ in PAGES[1:]})
    finally:
        page.close()
