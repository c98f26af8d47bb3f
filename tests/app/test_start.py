"""First start on a fresh machine: no question on the terminal, a browser where there is a display.

Streamlit asks "Welcome to Streamlit! ... Email:" on its first start with a display unless told not
to (``server.showEmailPrompt`` in ``.streamlit/config.toml``). Each test starts the app as
``scripts/start-app.sh`` does, with an empty HOME (a first start) and a terminal that never answers,
and a stand-in ``xdg-open`` that records the address it was asked to open.
"""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request

import pytest

from benchmarks.common import free_port
from tests.app.conftest import streamlit_command
from tests.conftest import ROOT


def _first_start(tmp_path, display: bool) -> tuple[str, str]:
    """Start the app, wait until it answers; its terminal output and what it asked xdg-open to open."""
    bin_dir, opened = tmp_path / "bin", tmp_path / "opened"
    bin_dir.mkdir()
    (bin_dir / "xdg-open").write_text(f'#!/bin/sh\necho "$@" >> {opened}\n')
    (bin_dir / "xdg-open").chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", DPSYNTH_WORKSPACE=str(tmp_path / "ws"))
    if display:
        env["DISPLAY"] = ":0"
    port = free_port()
    log = tmp_path / "log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            streamlit_command(port, "127.0.0.1"),
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.STDOUT,
        )  # never answered
        try:
            deadline, up = time.time() + 60, False
            while time.time() < deadline and not up and proc.poll() is None:
                try:
                    up = urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok"
                except OSError:
                    time.sleep(0.3)
            deadline = time.time() + 10
            while display and up and not opened.exists() and time.time() < deadline:
                time.sleep(0.2)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdin.close()
    output = log.read_text(errors="replace")
    assert up, f"the app did not start: {output[-1500:]}"
    return output, opened.read_text() if opened.exists() else ""


@pytest.mark.parametrize("display", [True, False], ids=["display", "headless"])
def test_first_start_asks_nothing(tmp_path, display):
    output, opened = _first_start(tmp_path, display)
    assert "Email" not in output and "Welcome to Streamlit" not in output
    assert (opened.strip().startswith("http://") and "127.0.0.1" in opened) if display else opened == ""
