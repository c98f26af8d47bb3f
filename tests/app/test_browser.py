"""The app in a real headless Chromium: the newcomer's walk from the home page to the downloads.

Starts ``streamlit run app.py`` on a free local port, drives Debian's Chromium with
Playwright (its own browser download is not used), asserts on visible text and saves a
screenshot of every page. Set ``DPSYNTH_UPDATE_SCREENSHOTS=1`` to refresh the copies in
``assets/screenshots/`` that the README shows.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.browser

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-quic"]
SCREENSHOTS = ROOT / "assets" / "screenshots"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    log_path = tmp_path_factory.mktemp("server") / "streamlit.log"
    log = open(log_path, "wb")
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--server.headless", "true"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        log.close()
        pytest.fail("streamlit did not start: " + log_path.read_text(errors="replace")[-2000:])
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        pytest.fail("Chromium is not installed: `apt-get install chromium chromium-driver` (.ci/run does this)")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


def _shot(page, tmp_dir: Path, name: str) -> None:
    page.wait_for_timeout(600)  # let charts finish drawing
    path = tmp_dir / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    if os.environ.get("DPSYNTH_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SCREENSHOTS / path.name)


def _go(page, link_text: str, heading: str) -> None:
    page.get_by_role("link", name=link_text).first.click()
    page.get_by_role("heading", name=heading).first.wait_for(timeout=30_000)


def _no_exception(page) -> None:
    assert page.locator("[data-testid='stException']").count() == 0


def test_newcomer_walk(server, browser, tmp_path):
    context = browser.new_context(viewport={"width": 1400, "height": 1500}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(server)
    page.get_by_role("heading", name="Share a private synthetic copy of a sensitive table").wait_for()
    _no_exception(page)
    _shot(page, tmp_path, "0_home")

    page.get_by_role("button", name="Start with the example").click()
    page.get_by_role("heading", name="1. Data").wait_for()
    page.get_by_text("32,561").first.wait_for()
    _no_exception(page)
    _shot(page, tmp_path, "1_data")

    _go(page, "Next: declare each column's domain", "2. Domain")
    page.get_by_text("All 15 columns are declared").wait_for()
    _no_exception(page)
    _shot(page, tmp_path, "2_domain")

    _go(page, "Next: choose the privacy level", "3. Privacy")
    page.get_by_text("What these choices imply, column by column").wait_for()
    _no_exception(page)
    _shot(page, tmp_path, "3_privacy")

    _go(page, "Next: generate and preview", "4. Preview")
    page.get_by_role("button", name="Generate synthetic data").click()
    page.get_by_text("Synthetic table ready").wait_for(timeout=90_000)
    page.get_by_text("For you only.").wait_for()
    _no_exception(page)
    _shot(page, tmp_path, "4_preview")
    for tab, name in (("Marginal distances", "4_preview_distances"), ("Distinguishing game", "4_preview_game"),
                      ("One column", "4_preview_column")):
        page.get_by_role("tab", name=tab).click()
        page.wait_for_timeout(800)
        _shot(page, tmp_path, name)

    _go(page, "Next: download the release", "5. Release")
    page.get_by_text("The guarantee").first.wait_for()
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Synthetic data (CSV)").click()
    csv_path = tmp_path / "synthetic.csv"
    download_info.value.save_as(csv_path)
    lines = csv_path.read_text().splitlines()
    assert lines[0].startswith("age,workclass") and len(lines) > 30_000
    with page.expect_download() as card_info:
        page.get_by_role("button", name="Release card (HTML)").click()
    card_path = tmp_path / "card.html"
    card_info.value.save_as(card_path)
    assert "What the guarantee covers" in card_path.read_text()
    _no_exception(page)
    _shot(page, tmp_path, "5_release")

    page.get_by_role("link", name="Learn").first.click()
    page.get_by_role("heading", name="How it works").wait_for()
    page.get_by_text("How often the release shows").first.wait_for()
    _no_exception(page)
    _shot(page, tmp_path, "6_learn")
    context.close()


def test_malformed_upload_in_browser(server, browser, tmp_path):
    page = browser.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{server}/Data")
    page.get_by_role("heading", name="1. Data").wait_for()
    page.get_by_text("My own file").click()
    page.locator("input[type='file']").set_input_files(str(ROOT / "tests" / "fixtures" / "malformed.csv"))
    page.get_by_text("1 of 3 lines could not be read").wait_for()  # one broken line, for the publisher only
    assert page.get_by_text("wrong number of fields").count() >= 1
    _shot(page, tmp_path, "1_data_bad_upload")
    archive = tmp_path / "table.csv"
    archive.write_bytes(b"PK\x03\x04 not a table")
    page.locator("input[type='file']").set_input_files(str(archive))
    page.get_by_text("This file could not be read").wait_for()
    assert page.get_by_text("previous table is still loaded").count() >= 1
    page.close()
