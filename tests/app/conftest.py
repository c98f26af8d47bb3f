"""One headless Chromium for every real-browser test of the session (they run on one worker), and the
command that serves the app to the tests that start it."""

from __future__ import annotations

import functools
import shutil
import sys

import pytest
from streamlit.components.v2 import manifest_scanner

from benchmarks.common import CHROMIUM_FLAGS

#: Each new ``AppTest`` scans every installed package for Streamlit components before its first run: about
#: 0.23 s of a fresh session's 0.45 s (Streamlit 1.67), over the 150 sessions the app tests start. The
#: installed packages do not change while the tests run, so one scan per test process serves them all.
_scan_once = functools.cache(manifest_scanner.scan_component_manifests)
manifest_scanner.scan_component_manifests = lambda *args, **kwargs: list(_scan_once(*args, **kwargs))


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        pytest.fail("Chromium is not installed: `apt-get install chromium chromium-driver` (.ci/run does this)")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


def streamlit_command(port: int, address: str, *extra: str) -> list[str]:
    """``streamlit run app.py`` on ``port`` at ``address``, then ``extra`` settings (run it from the repository)."""
    served = ["app.py", "--server.port", str(port), "--server.address", address, *extra]
    return [sys.executable, "-m", "streamlit", "run", *served]
