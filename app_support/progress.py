"""Long steps with honest progress: the work runs in a worker thread and reports at coarse steps;
the page moves a bar with those reports and says how long is left.

The estimate of the time left comes from how long the same step took last time when that is
known (the workspace keeps it), else from the share of the work reported done so far.
"""

from __future__ import annotations

import threading
import time

import streamlit as st


def time_left(elapsed: float, done: float, expected: float | None) -> str:
    """A short phrase for the time left: ``about 4 s left``, ``almost done``, ``estimating…``."""
    if expected:
        left = expected - elapsed
        if left > 0.5:
            return f"about {left:.0f} s left (it took {expected:.0f} s last time)" if left >= 1.5 else "about 1 s left"
        return "almost done" if done >= 0.9 else "taking longer than last time"
    if done < 0.05 or elapsed < 0.5:
        return "estimating the time left…"
    left = elapsed / done - elapsed
    return "almost done" if left < 1 else f"about {left:.0f} s left"


#: The bar moves at most this often (seconds), as often as its text counts seconds. Each move is a message
#: to the browser, a redraw of the page there and about 0.4 s of its compositor: some 0.15 CPU seconds
#: in headless Chromium, which on a small machine shares the cores with the work. Moved every 0.1 s,
#: the browser took 1.0-1.6 CPU seconds of a 1-2 s Generate (``benchmarks.speed.app_generate``). The
#: end of the work is still noticed within 0.1 s.
BAR_INTERVAL = 1.0


def run_with_progress(work, *, title: str, expected: float | None = None):
    """Run ``work(report)`` in a worker thread, ``report(done, message)`` moving the bar.

    Returns ``(result, seconds)``; an exception raised by ``work`` is raised here.
    """
    bar = st.progress(0.0, text=title)
    shared = {"done": 0.0, "message": title}
    lock = threading.Lock()

    def report(done: float, message: str) -> None:
        with lock:
            shared["done"] = max(shared["done"], min(1.0, float(done)))
            shared["message"] = message

    outcome: dict = {}

    def target() -> None:
        from threadpoolctl import threadpool_limits

        try:
            with threadpool_limits(1):  # BLAS/OpenMP threads fighting over 2 cores cost far more than they give
                outcome["value"] = work(report)
        except BaseException as problem:  # handed to the page thread
            outcome["error"] = problem

    start = time.monotonic()
    worker = threading.Thread(target=target, name="dpsynth-work", daemon=True)
    worker.start()
    shown, moved = (0.0, title), start
    while worker.is_alive():
        worker.join(0.1)
        if time.monotonic() - moved < BAR_INTERVAL:
            continue
        elapsed = time.monotonic() - start
        with lock:
            done, message = shared["done"], shared["message"]
        now = (done, f"{message} · {elapsed:.0f} s · {time_left(elapsed, done, expected)}")
        if now != shown:  # a message to the browser (and a redraw there) only when the bar changed
            bar.progress(now[0], text=now[1])
            shown, moved = now, time.monotonic()
    bar.empty()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"], time.monotonic() - start
