"""Generate on the app's Preview page, timed in headless Chromium over several draws. Not a test: prints a table.

    python -m benchmarks.speed.app_generate              # 5 draws, the default method, the bundled example: 30 s
    python -m benchmarks.speed.app_generate --runs 8 --method cathist

Starts ``streamlit run app.py`` on a free port with an empty workspace, opens the Preview page
in Debian's Chromium (``--headless --no-sandbox --disable-gpu``, through Playwright) and
presses Generate (then Draw again) ``--runs`` times. Each time is wall clock from the click to
the moment the new release's synthetic table is visible, as a publisher sees it: both read in the
browser, from the click event to the first paint after the release's line and its table are in the
page (``WATCH``; Playwright's polling wait, shown in the last column, sees it later); beside it,
the release alone as the app reports it (the core, in its worker thread), and the server
process's CPU seconds (every thread) from the click to the end of the page's run, which hold
better than wall times on a shared machine (not with ``--profile``: py-spy is the process then). The first draw is
reported apart (a cold server: imports and caches); the median is over the others. The server
and the browser share this machine's cores with whatever else runs: the load average is printed. Figures:
docs/benchmarks/speed.md.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import CHROMIUM_FLAGS, free_port, require, start_app

READY = re.compile(r"Synthetic table ready: [\d,]+ rows(?: in ([\d.]+) s)? \(release #(\d+);")
#: Installed in the page before each click: the browser's own clock at the click and at the first paint
#: after release #n's line and its synthetic table are both in the page (not stale: a rerun greys the old
#: elements, data-stale="true", until it replaces them). A frame's callback runs just before the paint, so
#: a task queued from it runs just after. Playwright's own wait polls, and saw the table 0.05-0.5 s later.
WATCH = """(n) => {
  const seen = window.__dpsynth = {click: null, table: null};
  const target = `release #${n};`;
  document.addEventListener('click', () => { seen.click = performance.now(); }, {capture: true, once: true});
  const shown = () => {
    const line = [...document.querySelectorAll('[data-testid="stAlertContentSuccess"]')]
      .find(e => e.textContent.includes(target) && e.closest('[data-stale="false"]'));
    if (!line) return false;
    return [...document.querySelectorAll('[data-stale="false"] [data-testid="stDataFrame"]')]
      .some(t => line.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING);
  };
  const watcher = new MutationObserver(() => {
    if (shown()) {
      watcher.disconnect();
      requestAnimationFrame(() => setTimeout(() => { seen.table = performance.now(); }, 0));
    }
  });
  watcher.observe(document.body, {childList: true, subtree: true, characterData: true, attributes: true,
                                  attributeFilter: ['data-stale']});
}"""


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="draws to time (default 5)")
    parser.add_argument("--method", default=None, help="a method's name (default: the app's default method)")
    parser.add_argument("--profile", metavar="FILE", help="sample the server with py-spy into FILE (collapsed stacks)")
    args = parser.parse_args(argv)
    sync_playwright = require("playwright.sync_api", "requirements-dev.txt").sync_playwright

    workspace = tempfile.mkdtemp(prefix="dpsynth-bench-")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "DPSYNTH_WORKSPACE": workspace, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    times: list[tuple[float, float, float, float, float]] = []
    server = start_app(url, port, env, args.profile)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium") or "/usr/bin/chromium", args=CHROMIUM_FLAGS
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1200})
            page.set_default_timeout(180_000)
            if args.method:
                from dpsynth_core import METHODS

                page.goto(f"{url}/Privacy")
                page.get_by_text("What these choices imply").wait_for()
                page.get_by_text(METHODS[args.method].title, exact=True).click()
                page.wait_for_timeout(1500)
                page.get_by_role("link", name="4. Preview").first.click()
            else:
                page.goto(f"{url}/Preview")
            page.get_by_role("heading", name="4. Preview").wait_for()
            last = 0
            for _ in range(args.runs):
                button = page.get_by_role("button", name=re.compile("^(Generate synthetic data|Draw again)"))
                button.wait_for()
                page.evaluate(WATCH, last + 1)
                cpu = server_cpu(server.pid)
                began = time.perf_counter()
                button.click()
                ready = page.get_by_text(re.compile(rf"release #{last + 1};"))
                ready.wait_for()
                polled = time.perf_counter() - began
                page.wait_for_function("() => window.__dpsynth.table !== null")
                page.locator("[data-testid='stStatusWidget']").wait_for(state="hidden")  # the page's run is over
                settled = time.perf_counter() - began
                cpu = server_cpu(server.pid) - cpu
                seen = page.evaluate("window.__dpsynth")
                seconds = (seen["table"] - seen["click"]) / 1000
                found = READY.search(ready.inner_text())
                core = float(found.group(1)) if found and found.group(1) else float("nan")
                last += 1
                times.append((seconds, core, settled, cpu, polled))
                page.wait_for_timeout(300)
            browser.close()
    finally:
        server.send_signal(signal.SIGINT) if args.profile else server.terminate()
        server.wait()
        shutil.rmtree(workspace, ignore_errors=True)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {os.cpu_count()} cores")
    print(
        "| draw | click to table (s) | click to the page done (s) | the release in the core (s) "
        "| server CPU, click to the page done (s) | Playwright's wait saw the table (s) |\n|---|---|---|---|---|---|"
    )
    for index, (seconds, core, settled, cpu, polled) in enumerate(times, 1):
        print(
            f"| {index}{' (first on a fresh server)' if index == 1 else ''} | {seconds:.2f} | {settled:.2f} | "
            f"{core:.2f} | {cpu:.2f} | {polled:.2f} |"
        )
    rest = times[1:] or times
    print(
        f"| median of draws 2-{len(times)} | "
        + " | ".join(f"{statistics.median(t[i] for t in rest):.2f}" for i in (0, 2, 1, 3, 4))
        + " |"
    )


def server_cpu(pid: int) -> float:
    """The server process's CPU seconds so far (user + system, every thread; Linux), NaN elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
