"""The app's walk timed in headless Chromium, as a publisher sees it. Not a test: prints a table.

    python -m benchmarks.speed.app_walk            # the walk, Generate with every method: about a minute
    python -m benchmarks.speed.app_walk --quick    # marginals only

Starts ``streamlit run app.py`` with an empty workspace, drives Debian's Chromium through
Playwright (``requirements-dev.txt``), and times each step from the click to the moment its
result is visible on the page (the synthetic table, a chart, a downloaded file). Every time
is wall clock on this machine, with the server and the browser sharing its cores. Figures:
docs/benchmarks/speed.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

from benchmarks.common import CHROMIUM_FLAGS, free_port, require, start_app
from dpsynth_core import METHODS


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Generate with marginals only")
    args = parser.parse_args(argv)
    sync_playwright = require("playwright.sync_api", "requirements-dev.txt").sync_playwright

    rows: list[tuple[str, float]] = []
    workspace = tempfile.mkdtemp(prefix="dpsynth-bench-")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "DPSYNTH_WORKSPACE": workspace, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    start = time.perf_counter()
    server = start_app(url, port, env)
    try:
        rows.append(("server start (until it answers)", time.perf_counter() - start))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_FLAGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1200}, accept_downloads=True)
            page.set_default_timeout(180_000)

            def timed(label: str, action, *, visible) -> None:
                began = time.perf_counter()
                action()
                visible()
                rows.append((label, time.perf_counter() - began))

            timed(
                "Home page, first load",
                lambda: page.goto(url),
                visible=lambda: page.get_by_role("heading", name="Share a private synthetic copy").wait_for(),
            )
            timed(
                "1. Data",
                lambda: page.get_by_role("link", name="1. Data").first.click(),
                visible=lambda: page.get_by_text("32,561").first.wait_for(),
            )
            timed(
                "2. Domain (15 columns declared)",
                lambda: page.get_by_role("link", name="2. Domain").first.click(),
                visible=lambda: page.get_by_text("All 15 columns are declared").wait_for(),
            )
            timed(
                "3. Privacy (column-by-column plan)",
                lambda: page.get_by_role("link", name="3. Privacy").first.click(),
                visible=lambda: page.get_by_text("What these choices imply").wait_for(),
            )
            methods = ["marginals"] if args.quick else list(METHODS)
            for index, method in enumerate(methods):
                if index:
                    page.get_by_role("link", name="3. Privacy").first.click()
                    page.get_by_text("What these choices imply").wait_for()
                    page.get_by_text(METHODS[method].title, exact=True).click()
                    page.wait_for_timeout(1500)  # the page reruns with the method
                page.get_by_role("link", name="4. Preview").first.click()
                page.get_by_role("heading", name="4. Preview").wait_for()
                button = page.get_by_role("button", name="Generate synthetic data")
                timed(
                    f"Generate with {method}: click to synthetic table shown",
                    button.click,
                    visible=lambda: page.get_by_text("Synthetic table ready").wait_for(),
                )
                ready = page.get_by_text("Synthetic table ready").inner_text()
                core = float(ready.split(" rows in ")[1].split(" s")[0]) if " rows in " in ready else float("nan")
                rows.append(("  of which the release itself (the core, in its worker thread)", core))
                if method == "marginals":
                    for tab in ("Fidelity", "Marginal distances", "Distinguishing game", "One column"):
                        timed(
                            f"  tab '{tab}' (first opening: computed)",
                            page.get_by_role("tab", name=tab).click,
                            visible=lambda: page.locator("[data-testid='stPlotlyChart']").first.wait_for(),
                        )
                    timed(
                        "  tab 'Distinguishing game' again (kept)",
                        lambda: (
                            page.get_by_role("tab", name="Synthetic rows").click(),
                            page.get_by_role("tab", name="Distinguishing game").click(),
                        ),
                        visible=lambda: page.locator("[data-testid='stPlotlyChart']").first.wait_for(),
                    )
                    timed(
                        "5. Release page",
                        lambda: page.get_by_role("link", name="5. Release").first.click(),
                        visible=lambda: page.get_by_text("The guarantee").first.wait_for(),
                    )
                    timed(
                        "  stakeholder report (DP figures, charts, HTML)",
                        page.get_by_role("button", name="Make the report").click,
                        visible=lambda: page.get_by_text("Report made").first.wait_for(),
                    )
                    began = time.perf_counter()
                    with page.expect_download() as pdf:
                        page.get_by_role("button", name="Report (PDF)").click()
                    pdf.value.path()
                    rows.append(("  report as PDF (headless Chromium), click to file", time.perf_counter() - began))
            timed(
                "Releases page",
                lambda: page.get_by_role("link", name="Releases").first.click(),
                visible=lambda: page.get_by_text("Two releases side by side").wait_for(),
            )
            browser.close()
    finally:
        server.terminate()
        server.wait()
        shutil.rmtree(workspace, ignore_errors=True)
    print("| step | seconds |\n|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
