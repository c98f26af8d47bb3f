"""benchmarks.quality.surveys: the Star Wars survey's skipped questions, as the benchmark reports them."""

import json

import pytest

from benchmarks.quality import surveys


def test_the_benchmark_reports_the_skips_the_blocks_keep():
    """One release (the blocks' effect against no blocks is tests/core/synthesizers/marginals/test_blocks.py's)."""
    declaration = json.loads(surveys.STAR_WARS.with_suffix(".domain.json").read_text())
    path = surveys.STAR_WARS.with_suffix(".csv")
    real, rows = surveys.run(path, declaration, 2, seeds=1, epsilon=1.0, game=0, pairs=10)
    characters = [q for q in real if q.startswith("Please state whether")][0]
    assert len(real) == 3 and real[characters] == pytest.approx((0.297, 0.062), abs=0.001)
    every, some = (
        rows[f"Q{list(real).index(characters) + 1} all"][0],
        rows[f"Q{list(real).index(characters) + 1} some"][0],
    )
    assert every == pytest.approx(0.297, abs=0.06) and some < 0.5
    assert 0 < rows["2-way TVD"][0] < 0.3 and 0 < rows["1-way TVD"][0] < 0.15 and "game" not in rows
