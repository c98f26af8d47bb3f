"""benchmarks.quality.surveys: the Star Wars survey's skipped questions, with and without question blocks."""

import json

import pytest

from benchmarks.quality import surveys


def test_the_benchmark_reports_the_skips_the_blocks_keep():
    declaration = json.loads(surveys.STAR_WARS.with_suffix(".domain.json").read_text())
    path = surveys.STAR_WARS.with_suffix(".csv")
    real, on = surveys.run(path, declaration, 2, seeds=1, epsilon=1.0, game=0)
    _, off = surveys.run(path, declaration, 2, seeds=1, epsilon=1.0, game=0, blocks_on=False)
    characters = [q for q in real if q.startswith("Please state whether")][0]
    assert real[characters] == pytest.approx((0.297, 0.062), abs=0.001)
    column = f"Q{list(real).index(characters) + 1} all"
    assert on[column][0] == pytest.approx(0.297, abs=0.06) and off[column][0] < 0.05
    assert on["2-way TVD"][0] < off["2-way TVD"][0] and "game" not in on
