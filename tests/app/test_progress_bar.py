"""The Preview's progress bar (app_support.progress): honest, and sparing with the browser."""

from __future__ import annotations

import math
import time

import pytest

from app_support import progress


class FakeBar:
    """Stands for ``st.progress``: records every move (what the browser would be sent)."""

    def __init__(self, value, text):
        self.moves = [(time.monotonic(), value, text)]
        self.emptied = False

    def progress(self, value, text):
        self.moves.append((time.monotonic(), value, text))

    def empty(self):
        self.emptied = True


@pytest.fixture
def bar(monkeypatch):
    made = []

    def fake_progress(value, text):
        made.append(FakeBar(value, text))
        return made[-1]

    monkeypatch.setattr(progress.st, "progress", fake_progress)
    return made


def test_the_bar_moves_at_most_every_interval_and_ends_with_the_result(bar, monkeypatch):
    monkeypatch.setattr(progress, "BAR_INTERVAL", 0.3)  # several moves in a short test

    def work(report):
        for step in range(60):  # 60 reports in about 1.5 s, each a change
            report(step / 60, f"Round {step}")
            time.sleep(0.025)
        return "made"

    start = time.monotonic()
    result, seconds = progress.run_with_progress(work, title="Measuring")
    elapsed = time.monotonic() - start
    moves = bar[0].moves[1:]
    assert result == "made" and bar[0].emptied and seconds == pytest.approx(elapsed, abs=0.05)
    assert 2 <= len(moves) <= math.ceil(elapsed / progress.BAR_INTERVAL)  # it moves, and not at every report
    gaps = [later[0] - earlier[0] for earlier, later in zip([bar[0].moves[0], *moves], moves)]
    assert min(gaps) >= progress.BAR_INTERVAL - 0.01
    assert [value for _, value, _ in moves] == sorted(value for _, value, _ in moves) and moves[-1][1] > 0.3
    assert all("Round" in text and " s · " in text for _, _, text in moves)


def test_a_failure_in_the_work_is_raised_on_the_page_thread(bar):
    def work(report):
        report(0.5, "half")
        raise ValueError("the declaration is wrong")

    with pytest.raises(ValueError, match="declaration is wrong"):
        progress.run_with_progress(work, title="Measuring")
    assert bar[0].emptied


def test_the_time_left_reads_plainly():
    assert progress.time_left(1.0, 0.5, 5.0) == "about 4 s left (it took 5 s last time)"
    assert progress.time_left(4.0, 0.95, 4.2) == "almost done"
    assert progress.time_left(6.0, 0.5, 4.0) == "taking longer than last time"
    assert progress.time_left(0.2, 0.01, None) == "estimating the time left…"
    assert progress.time_left(2.0, 0.25, None) == "about 6 s left"
