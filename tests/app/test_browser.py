"""The app in a real headless Chromium: the newcomer's walk, the workspace across a server restart,
the stakeholder report as HTML and PDF, and a bad upload.

Starts ``streamlit run app.py`` on a free local port with a workspace of its own, drives
Debian's Chromium with Playwright (its own browser download is not used), asserts on
visible text and saves a screenshot of every page. Set ``DPSYNTH_UPDATE_SCREENSHOTS=1`` to
refresh the copies in ``docs/screenshots/`` that the README and the documentation show.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from benchmarks.common import free_port
from tests.app.conftest import streamlit_command
from tests.app.test_accessibility import assert_no_violation, scan
from tests.app.test_app import PRIVATE, PRIVATE_NAME, private_marks_in
from tests.conftest import ROOT, shared_path
from tests.core.data.test_tables import _png

pytestmark = pytest.mark.browser

SCREENSHOTS = ROOT / "docs" / "screenshots"


class Server:
    """``streamlit run app.py`` on a fixed port and workspace, which can be stopped and started again."""

    def __init__(self, workspace: Path, log_path: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workspace, self.log_path = workspace, log_path
        self.proc = None
        self.address = "127.0.0.1"  # "0.0.0.0": served beyond this computer (publisher pages need a login)

    def start(self) -> None:
        env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "DPSYNTH_WORKSPACE": str(self.workspace)}
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            streamlit_command(self.port, self.address, "--server.headless", "true"),
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2).read() == b"ok":
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        pytest.fail("streamlit did not start: " + self.log_path.read_text(errors="replace")[-2000:])

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        self.proc = None


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("server")
    running = Server(folder / "workspace", folder / "streamlit.log")
    running.start()
    yield running
    running.stop()


#: True once the app's script has run and nothing has run for ``quiet`` ms: Streamlit marks its root
#: with the script's state (``data-test-script-state``: initial before the first run, then running
#: or notRunning), and no status widget shows (a slow run, a lost connection). A run that starts
#: within the quiet time (a rerun) starts the wait again.
_IDLE = """quiet => {
    const app = document.querySelector("[data-testid='stApp']");
    const now = performance.now();
    if (!app || app.getAttribute("data-test-script-state") !== "notRunning"
            || document.querySelector("[data-testid='stStatusWidget']")) {
        window.__dpsynthIdleSince = undefined;
        return false;
    }
    window.__dpsynthIdleSince ??= now;
    return now - window.__dpsynthIdleSince >= quiet;
}"""
#: Every Plotly chart on the page has drawn its SVG.
_CHARTS_DRAWN = """() => [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
    .every(chart => chart.querySelector(".main-svg"))"""


def _idle(page, quiet: int = 500, timeout: int = 60_000) -> None:
    """Wait until the app's script has finished and stayed idle for ``quiet`` ms (see ``_IDLE``)."""
    page.evaluate("() => { window.__dpsynthIdleSince = undefined; }")
    page.wait_for_function(_IDLE, arg=quiet, timeout=timeout)


def _drawn(page) -> None:
    """The app (if the page is one) idle and its charts drawn, instead of a fixed pause."""
    if page.url.startswith("http"):
        _idle(page, 300)
    page.wait_for_function(_CHARTS_DRAWN, timeout=30_000)


def _shot(page, tmp_dir: Path, name: str, full_page: bool = True, readme: bool = True) -> Path:
    update = readme and os.environ.get("DPSYNTH_UPDATE_SCREENSHOTS") == "1"
    if update:  # the published copies show the finished page
        _drawn(page)
        page.wait_for_timeout(700)  # and let animations end
    else:  # a test's own copy: the charts shown so far drawn (the page may still be running)
        page.wait_for_function(_CHARTS_DRAWN, timeout=30_000)
    path = tmp_dir / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    assert path.stat().st_size > 10_000
    if update:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SCREENSHOTS / path.name)
    return path


def _go(page, link_text: str, heading: str) -> None:
    """Click a page link once the page in view has finished its run, as a person clicks a page they have
    read, and wait for the next page's heading (a click during a run could race the run's end)."""
    _idle(page, 300)
    page.get_by_role("link", name=link_text).first.click()
    page.get_by_role("heading", name=heading).first.wait_for(timeout=60_000)


def _no_exception(page) -> None:
    shown = page.locator("[data-testid='stException']")
    assert shown.count() == 0, shown.first.inner_text()[-3000:]


def _without_markup_noise(html: str) -> str:
    """The page's HTML without what is random or fixed by Streamlit's build rather than by the app's
    content: scripts (the cookie's random value), style sheets and class names (hashed styles), links."""
    html = re.sub(r"<(script|style)\b[^>]*>.*?</\1>", "", html, flags=re.S)
    return re.sub(r'\s(class|href|src)="[^"]*"', "", html)


def _sidebar(page) -> str:
    return page.locator("[data-testid='stSidebar']").inner_text()


def _drew(page, timeout: int = 90_000) -> None:
    """Wait for a Generate's table, then for the sidebar that counts it: the page sends the table before
    it redraws the sidebar's ledger (4_Preview's ``settle``), so the sidebar is read once the run is over."""
    page.get_by_text("Synthetic table ready").wait_for(timeout=timeout)
    _idle(page, 300)


def _tab(page, label: str, wait_for: str) -> None:
    page.get_by_role("tab", name=label).click()
    page.locator(wait_for).first.wait_for(timeout=60_000)


def _not_blank(png: Path) -> bool:
    """True when an image has real content (more than a few distinct colours)."""
    from PIL import Image

    with Image.open(png) as image:
        colours = image.convert("RGB").resize((200, 280)).getcolors(maxcolors=100_000)
    return colours is not None and len(colours) > 20


def test_newcomer_walk(server, browser, tmp_path):
    """The walk of a newcomer on the example, with every page's accessibility scan on the way
    (tests/app/test_accessibility.py): the home page first, the others after a Generate."""
    context = browser.new_context(viewport={"width": 1400, "height": 1500}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(server.url)
    page.get_by_role("heading", name="Share a private synthetic copy of a sensitive table").wait_for()
    nav = page.locator("[data-testid='stSidebarNav']").inner_text()
    assert "Home" in nav and "Releases" in nav and "app" not in nav.split()
    assert page.get_by_role("button", name="Deploy").count() == 0
    _no_exception(page)
    _shot(page, tmp_path, "0_home")
    violations = {"Home": scan(page)}

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
    page.locator("[data-testid='stPlotlyChart']").first.evaluate("e => e.scrollIntoView({block: 'end'})")
    _shot(page, tmp_path, "3_privacy_plan", full_page=False)

    _go(page, "Next: generate and preview", "4. Preview")
    page.get_by_role("button", name="Generate synthetic data").click()
    _drew(page)
    page.get_by_text("For you only.").wait_for()
    assert "ε = 1" in _sidebar(page)
    _no_exception(page)
    _shot(page, tmp_path, "4_preview")
    violations["4. Preview"] = scan(page)
    for tab, name in (
        ("Marginal distances", "4_preview_distances"),
        ("Distinguishing game", "4_preview_game"),
        ("One column", "4_preview_column"),
    ):
        _tab(page, tab, "[data-testid='stPlotlyChart']")
        _no_exception(page)
        _shot(page, tmp_path, name)

    _go(page, "Next: download the release and make a report", "5. Release")
    page.get_by_text("The guarantee").first.wait_for()
    violations["5. Release"] = scan(page)
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
    page.get_by_role("button", name="Make the report").click()
    page.get_by_text("Report made").first.wait_for(timeout=90_000)
    with page.expect_download() as report_info:
        page.get_by_role("button", name="Report (HTML)").click()
    report_path = tmp_path / "report.html"
    report_info.value.save_as(report_path)
    with page.expect_download(timeout=90_000) as pdf_info:
        page.get_by_role("button", name="Report (PDF)").click()
    pdf_path = tmp_path / "report.pdf"
    pdf_info.value.save_as(pdf_path)
    _no_exception(page)
    _shot(page, tmp_path, "5_release")
    _check_report(browser, report_path, pdf_path, tmp_path)

    _go(page, "Privacy", "3. Privacy")
    violations["3. Privacy"] = scan(page)
    page.get_by_text("Independent columns (CatHist)", exact=True).click()
    page.get_by_text("Tolerance for randomness ρ (rho)").wait_for()
    page.get_by_role("slider").nth(1).wait_for()  # ρ applies to this method: its slider appears
    _go(page, "Preview", "4. Preview")
    page.get_by_role("button", name="Generate synthetic data").click()
    page.get_by_text("Synthetic table ready").wait_for(timeout=90_000)
    _go(page, "Releases", "Releases")
    page.get_by_role("button", name="Compute the comparisons for these two").click()
    page.get_by_role("button", name="Compute the comparisons for these two").wait_for(state="detached", timeout=90_000)
    page.get_by_text("Download again").wait_for()
    assert page.get_by_text("not computed yet").count() == 0
    _no_exception(page)
    _shot(page, tmp_path, "6_releases")
    violations["Releases"] = scan(page)

    page.get_by_role("link", name="Learn").first.click()
    page.get_by_role("heading", name="How it works").wait_for()
    page.get_by_text("How often the release shows").first.wait_for()
    _no_exception(page)
    _shot(page, tmp_path, "7_learn")
    violations["Learn"] = scan(page)
    for link, heading in (("1. Data", "1. Data"), ("2. Domain", "2. Domain")):  # seen before the Generate
        _go(page, link, heading)
        violations[link] = scan(page)
    context.close()
    assert_no_violation(violations)


def _check_report(browser, report_path: Path, pdf_path: Path, tmp_path: Path) -> None:
    """The report as stakeholders see it: the HTML page in Chromium, and every PDF page as an image."""
    text = report_path.read_text()
    assert "What each number covers" in text and "<svg" in text and "<script" not in text
    page = browser.new_page(viewport={"width": 1100, "height": 1700})
    page.goto(report_path.as_uri())
    page.get_by_text("How to read it").wait_for()
    assert _not_blank(_shot(page, tmp_path, "5_report_whole", readme=False))
    shot = _shot(page, tmp_path, "5_report", full_page=False)
    assert _not_blank(shot)
    page.close()
    assert pdf_path.read_bytes().startswith(b"%PDF")
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        pytest.fail("pdftoppm is not installed: `apt-get install poppler-utils` (.ci/run does this)")
    subprocess.run([pdftoppm, "-r", "40", "-png", str(pdf_path), str(tmp_path / "pdf")], check=True, timeout=120)
    pages = sorted(tmp_path.glob("pdf-*.png"))
    assert len(pages) >= 3 and all(_not_blank(p) for p in pages[:3])


def test_malformed_upload_in_browser(server, browser, tmp_path):
    page = browser.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{server.url}/Data")
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
    picture = tmp_path / "picture.csv"  # a PNG renamed .csv: refused, the table in use stays
    picture.write_bytes(_png() + b"\n" * 600)
    page.locator("input[type='file']").set_input_files(str(picture))
    page.get_by_text("picture.csv is a PNG image, not a CSV").wait_for()
    assert "malformed.csv" in _sidebar(page) and "picture" not in _sidebar(page)
    _shot(page, tmp_path, "1_data_binary_upload", readme=False)
    _publishers_files_in_browser(page, tmp_path)
    page.close()


def _publishers_files_in_browser(page, tmp_path: Path) -> None:
    """One upload of each family of the publisher's own files, written by openpyxl and pyreadstat from the
    CE survey: workbooks (Excel, its sheets offered by name, and LibreOffice), an SPSS and a Stata file (their
    codebook starts the declaration), a Parquet file, and a workbook with a password (one sentence); Streamlit's
    own "files are not allowed" never shows."""
    import io

    import pandas as pd

    from tests.publisher_files import encrypted_workbook, ods_bytes, package_bytes, typed, xlsx_bytes

    table = typed(pd.read_csv(shared_path("ce.csv"), dtype=str))
    files = {
        "ce.xlsx": xlsx_bytes(table, "records"),
        "ce.ods": ods_bytes(table, "survey"),
        "ce.sav": package_bytes(table, ".sav", variable_value_labels={"Race": {1: "White", 2: "Black"}}),
        "ce.dta": package_bytes(table.astype({c: "int32" for c in table if table[c].dtype.kind == "i"}), ".dta"),
        "locked.xlsx": encrypted_workbook(),
    }
    table.to_parquet(parquet := io.BytesIO())
    files["ce.parquet"] = parquet.getvalue()
    for name, raw in files.items():
        (tmp_path / name).write_bytes(raw)
    upload = page.locator("input[type='file']")
    upload.set_input_files(str(tmp_path / "ce.xlsx"))
    page.get_by_text("Read sheet 'records'").wait_for()
    assert "ce.xlsx" in _sidebar(page) and "994 rows" in _sidebar(page)
    upload.set_input_files(str(tmp_path / "ce.ods"))
    page.get_by_text("Read sheet 'survey'").wait_for()
    upload.set_input_files(str(tmp_path / "ce.dta"))
    page.get_by_text("Read as a Stata data file").wait_for()
    upload.set_input_files(str(tmp_path / "ce.parquet"))
    page.get_by_text("Read as Parquet").wait_for()
    upload.set_input_files(str(tmp_path / "ce.sav"))
    page.get_by_text("Read as an SPSS data file").wait_for()
    upload.set_input_files(str(tmp_path / "locked.xlsx"))
    page.get_by_text("locked.xlsx is encrypted with a password").wait_for()
    assert "ce.sav" in _sidebar(page) and "not allowed" not in page.content()


# --- a browser's table stays in that browser ---------------------------------------------------

PAGE_PATHS = {
    "": "Share a private synthetic copy",
    "Data": "1. Data",
    "Domain": "2. Domain",
    "Privacy": "3. Privacy",
    "Preview": "4. Preview",
    "Release": "5. Release",
    "Releases": "Releases",
    "Learn": "How it works",
}


def _upload_private(page, server, tmp_path: Path) -> None:
    path = tmp_path / PRIVATE_NAME
    path.write_bytes(PRIVATE)
    page.goto(f"{server.url}/Data")
    page.get_by_role("heading", name="1. Data").wait_for()
    page.get_by_text("My own file").click()
    page.locator("input[type='file']").set_input_files(str(path))
    page.get_by_text(f"Read {PRIVATE_NAME}").wait_for()
    assert PRIVATE_NAME in _sidebar(page) and "1,357 rows" in _sidebar(page)


def _settled(page, heading: str) -> str:
    """The page's whole HTML once its heading shows and the script has finished running."""
    page.get_by_role("heading", name=heading).first.wait_for(timeout=60_000)
    page.locator("[data-testid='stSidebar']").get_by_text("Data in use").wait_for()
    _idle(page)
    return page.content()


def test_a_second_browser_sees_nothing_of_the_first_ones_upload(server, browser, tmp_path):
    first = browser.new_context(viewport={"width": 1400, "height": 1200})
    page = first.new_page()
    page.set_default_timeout(30_000)
    _upload_private(page, server, tmp_path)
    _go(page, "Domain", "2. Domain")
    cookie = next(c for c in first.cookies() if c["name"] == "dpsynth_browser")
    assert len(cookie["value"]) == 43 and cookie["sameSite"] == "Strict"

    second = browser.new_context(viewport={"width": 1400, "height": 1200})
    other = second.new_page()
    other.set_default_timeout(30_000)
    for path, heading in PAGE_PATHS.items():
        other.goto(f"{server.url}/{path}")
        shown = _settled(other, heading)
        _no_exception(other)
        assert not private_marks_in(_without_markup_noise(shown)), path
        assert "adult.csv" in _sidebar(other), path
    _shot(other, tmp_path, "second_browser_learn", readme=False)
    assert next(c for c in second.cookies() if c["name"] == "dpsynth_browser")["value"] != cookie["value"]

    page.reload()  # the first browser resumes its upload, in this tab and in a new one
    page.get_by_role("heading", name="2. Domain").wait_for()
    page.locator("[data-testid='stSidebar']").get_by_text(PRIVATE_NAME).wait_for()
    tab = first.new_page()
    tab.goto(f"{server.url}/Data")
    tab.locator("[data-testid='stSidebar']").get_by_text(PRIVATE_NAME).wait_for()
    assert "1,357 rows" in _sidebar(tab)
    first.close()
    second.close()


def test_after_a_server_restart_a_draw_resumes_and_an_upload_is_asked_for_again(browser, tmp_path):
    """One restart, two browsers: the one that drew on the example resumes its release and budget
    (after a reload and in a new tab); the one that uploaded a file is asked for it again, never
    given another table."""
    server = Server(tmp_path / "workspace", tmp_path / "streamlit.log")
    server.start()
    try:
        drew = browser.new_context(viewport={"width": 1400, "height": 1200})
        page = drew.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{server.url}/Preview")
        page.get_by_role("button", name="Generate synthetic data").click()
        _drew(page)
        assert "ε = 1" in _sidebar(page)
        uploaded = browser.new_context(viewport={"width": 1400, "height": 1000})
        upload = uploaded.new_page()
        upload.set_default_timeout(30_000)
        _upload_private(upload, server, tmp_path)
        _go(upload, "Privacy", "3. Privacy")

        server.stop()
        server.start()

        page.reload()
        page.get_by_role("heading", name="4. Preview").wait_for()
        page.get_by_text("Synthetic table ready").wait_for(timeout=60_000)
        assert "ε = 1" in _sidebar(page) and "nothing drawn yet" not in _sidebar(page)
        assert page.get_by_role("button", name="Draw again").count() == 1
        other = drew.new_page()  # a new tab of the same browser resumes too
        other.goto(f"{server.url}/Release")
        other.get_by_text("The guarantee").first.wait_for()
        assert "ε = 1" in _sidebar(other)

        upload.goto(f"{server.url}/Preview")
        upload.get_by_text(f"You were working on {PRIVATE_NAME}, which must be uploaded again").wait_for()
        assert "adult" not in upload.content() and "32,561" not in upload.content()
        assert "None" in _sidebar(upload) and upload.get_by_role("button").filter(has_text="Generate").count() == 0
        _no_exception(upload)
        _shot(upload, tmp_path, "4_preview_upload_again", full_page=False, readme=False)
        _go(upload, "Go to Data", "1. Data")
        upload.locator("input[type='file']").set_input_files(str(tmp_path / PRIVATE_NAME))
        upload.get_by_text("You have worked on this file before").wait_for()
        assert PRIVATE_NAME in _sidebar(upload)
        drew.close()
        uploaded.close()
    finally:
        server.stop()


def _on_the_domain_page(server, browser, path: Path, text: str):
    """A new page that uploaded ``text`` as the file ``path`` on the Data page and went on to the Domain page."""
    path.write_text(text)
    page = browser.new_page(viewport={"width": 1400, "height": 1400})
    page.set_default_timeout(30_000)
    page.goto(f"{server.url}/Data")
    page.get_by_role("heading", name="1. Data").wait_for()
    page.get_by_text("My own file").click()
    page.locator("input[type='file']").set_input_files(str(path))
    page.get_by_text(f"Read {path.name}").wait_for()
    _go(page, "Next: declare each column's domain", "2. Domain")
    return page


def test_a_sets_words_typed_in_the_box_of_allowed_characters_name_that_set(server, browser, tmp_path):
    """A newcomer in Chromium typed the words of a set of allowed characters, 'letters (small and capital)', into
    its box and pressed Enter: the box took the typed words as the characters (each letter of them), refused for
    their repeats. Typed words that begin one set's name, and repeat a character, now stand for that set."""
    text = "codename,cores\n" + "".join(f"Zen {i % 3},{i % 8 + 1}\n" for i in range(40))
    page = _on_the_domain_page(server, browser, tmp_path / "chips.csv", text)
    column = page.locator("[data-testid='stExpander']").filter(has_text="codename:").first

    def choose(label: str, typed: str) -> None:
        box = column.locator("[data-testid='stSelectbox']").filter(has_text=label).first.get_by_role("combobox")
        box.click()
        box.fill(typed)
        page.wait_for_timeout(300)
        box.press("Enter")
        _idle(page)

    choose("What kind of values?", "Free text or codes")
    choose("Which values are possible?", "Any string of letters up to a length")
    choose("Allowed characters", "letters (small and capital)")
    column = page.locator("[data-testid='stExpander']").filter(has_text="codename:").first
    said = column.inner_text()
    assert "among letters (small and capital), digits, spaces, hyphens and apostrophes" in said, said
    assert "repeat" not in said
    _no_exception(page)
    page.close()


def test_a_bound_kept_when_a_whole_number_column_becomes_a_decimal_one(server, browser, tmp_path):
    """Stata's SLID (carData) walked in Chromium: education, started from 0 as whole numbers by its codebook, changed
    to decimal numbers (it holds 13.2 years): its minimum showed 0.00, and typing its maximum lost it ("no public
    minimum"), the browser still holding the field's 0 as a whole number and sending none for a decimal field. The
    bound is kept, in the field's own type; and back to whole numbers, a whole bound is kept too."""
    text = "years,age\n" + "".join(f"{10 + i % 9}.5,{20 + i}\n" for i in range(40))
    page = _on_the_domain_page(server, browser, tmp_path / "schooling.csv", text)

    def column():
        return page.locator("[data-testid='stExpander']").filter(has_text="years:").first

    def choose(typed: str) -> None:
        box = column().locator("[data-testid='stSelectbox']").filter(has_text="What kind of values?").first
        box.get_by_role("combobox").click()
        box.get_by_role("combobox").fill(typed)
        page.wait_for_timeout(300)
        box.get_by_role("combobox").press("Enter")
        _idle(page)

    def bound(label: str, typed: str | None = None) -> str:
        field = column().get_by_role("spinbutton", name=label).first
        if typed is not None:
            field.fill(typed)
            field.press("Enter")
            _idle(page)
        return column().get_by_role("spinbutton", name=label).first.input_value()

    choose("Whole numbers in a range")
    bound("Smallest possible value", "0")
    choose("Decimal numbers in a range")
    assert bound("Smallest possible value") == "0.00"
    assert bound("Largest possible value", "25") == "25.00"
    said = column().locator("summary").inner_text()
    assert bound("Smallest possible value") == "0.00" and "real numbers from 0 to 25" in said, said
    choose("Whole numbers in a range")
    bound("Largest possible value", "30")
    said = column().locator("summary").inner_text()
    assert bound("Smallest possible value") == "0" and "whole numbers from 0 to 30" in said, said
    _no_exception(page)
    page.close()
