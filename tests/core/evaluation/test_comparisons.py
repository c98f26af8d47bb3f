"""Every comparison reads the released representation once (issue 20, point 3).

The real column is put into the released form (pseudonyms, labels, bins, dates, missing);
a synthetic column, already in that form, is not transformed again. So a table compared with
itself, or the real table with a release holding the same records, is at distance 0, and the
distinguishing game cannot beat a coin flip.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpsynth_core.domain import TableDomain
from dpsynth_core.evaluation import metrics, report
from tests.every_kind import DOMAIN, ROWS, real_table, released_form


@pytest.fixture(scope="module")
def tables():
    real = real_table()
    return real, released_form(real, DOMAIN)


def test_released_pseudonyms_are_not_hashed_again():
    column = TableDomain.from_json(DOMAIN).columns["name"]
    once = column.normalise(["Ann Smith", "value-07", "value-7", "value-50", None])
    assert once[1] == "value-07" and once[2] != "value-7" and once[3] != "value-50" and once[4] is None
    assert column.normalise(once) == once


@pytest.mark.parametrize("which", ["itself", "a release of the same records"])
def test_distances_are_zero_and_fidelity_one(tables, which):
    real, released = tables
    other = real if which == "itself" else released
    pairs = metrics.paired_codes(real, other, DOMAIN)
    assert metrics.one_way_distances(pairs) == pytest.approx({n: 0.0 for n in pairs}, abs=1e-12)
    assert np.allclose(metrics.two_way_distances(pairs).to_numpy(), 0.0)
    assert metrics.fidelity_by_column(pairs) == pytest.approx({n: 1.0 for n in pairs})
    exact = report.exact_statistics(
        real, other, DOMAIN, pairs=[("name", "age"), ("day", "zip")], chart_columns=["name", "gain"]
    )
    assert {k: v[1] for k, v in exact.distances.items()} == pytest.approx({k: 0.0 for k in exact.distances})
    for _labels, synthetic_shares, counts in exact.shares.values():  # real and synthetic shares agree
        assert np.allclose(np.asarray(counts) / ROWS, synthetic_shares)


def test_the_game_is_a_coin_flip_against_a_release_of_the_same_distribution():
    # Other records of the same law, released: an exact copy would let the classifier learn records by
    # heart (a record in training as real, its copy held out as synthetic), which is not the question.
    real, other = real_table(0), released_form(real_table(7), DOMAIN)
    game = metrics.distinguishing_game(metrics.paired_codes(real, other, DOMAIN), random_state=3)
    assert game.low < 0.5 < game.high


def test_exact_values_compare_equal_against_a_release_of_the_same_values(tables):
    real, _ = tables
    domain = TableDomain.from_json(DOMAIN)
    for name in ("age", "gain", "score", "day"):
        values = metrics.value_comparison(real[name], real[name], domain.columns[name], markers=domain.missing_markers)
        assert values.max_cdf_gap == 0.0 and values.value_tvd in (None, 0.0)
