"""The app's server and Chromium for the benchmarks that time it in a real browser (not tests).

``start_app`` runs ``streamlit run app.py`` headless on the loopback interface and returns once it
answers its health check; ``CHROMIUM_FLAGS`` are the flags Debian's Chromium runs with here.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(url: str, port: int, env: dict, profile: str | None = None) -> subprocess.Popen:
    """The server on ``port``, once ``url`` answers; ``profile``: sample it with py-spy into that file."""
    spy = ["py-spy", "record", "--format", "raw", "--threads", "--rate", "200", "-o", profile, "--"] if profile else []
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true"]
    server = subprocess.Popen([*spy, *command], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return server
        except OSError:
            if server.poll() is not None:
                raise SystemExit("the server stopped before answering") from None
            time.sleep(0.1)
