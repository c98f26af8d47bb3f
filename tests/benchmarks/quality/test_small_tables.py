"""benchmarks.quality.small_tables: the publisher-side checks of small tables (out-of-range rows, 2-way TVD)."""

import numpy as np
import pandas as pd
import pytest

from benchmarks.quality import small_tables as tails

SPEC = {
    "columns": {"age": {"type": "integer", "min": 0, "max": 120}, "sex": {"type": "categorical", "values": ["F", "M"]}}
}


def test_outside_share_counts_rows_beyond_the_real_range():
    real = pd.DataFrame({"age": [20, 30, 40, 50], "sex": ["F", "M", "F", "M"]})
    synthetic = pd.DataFrame({"age": [10, 30, 45, 90, 50], "sex": ["F"] * 5})
    share, per = tails.outside_share(real, synthetic, SPEC)
    assert share == pytest.approx(2 / 5) and per == {"age": pytest.approx(2 / 5)}


def test_two_way_distance_is_zero_on_a_copy_and_counts_outside_values():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"age": rng.integers(20, 60, 500), "sex": rng.choice(["F", "M"], 500)})
    shifted = real.assign(age=real["age"] + 100)  # every value above the real range
    (a, b, c), cells = tails.evaluation_codes(real, [real, real.copy(), shifted], SPEC)
    assert tails.mean_two_way(a, b, cells) == 0
    assert tails.mean_two_way(a, c, cells) == pytest.approx(1.0)  # one pair, fully disjoint


def test_one_small_run_reports_every_figure():
    result = tails.run("pums", 300, 0, 1.0, "marginals", {})
    assert result["n"] == 300 and 0 <= result["outside"] <= 1 and result["floor"] > 0
    assert result["ratio"] == pytest.approx(result["tvd2"] / result["floor"])


def test_empty_bin_share_counts_rows_in_bins_without_real_records():
    real = pd.DataFrame({"age": [20, 25, 60]})
    synthetic = pd.DataFrame({"age": [22, 45, 61, 5, np.nan]})
    bins = [{"column": "age", "edges": [0, 18, 30, 50, 120]}]  # real records in [18, 30) and [50, 120]
    assert tails.empty_bin_share(real, synthetic, bins) == pytest.approx(2 / 5)
