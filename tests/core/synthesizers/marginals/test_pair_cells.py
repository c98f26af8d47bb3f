"""A small table's pairs over merged bins (:mod:`.pair_cells`): the maps, when they are used, the merged counts as a
partition of the pair's, the score's sensitivity, the card, and the ablation."""

import numpy as np
import pytest

from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer, pair_cells, selection
from dpsynth_core.synthesizers.marginals.pair_cells import (
    PAIR_CELLS,
    equal_runs,
    heaviest_groups,
    merged_counts,
    pair_maps,
)
from tests.core.synthesizers.methods_common import adult_small


def test_equal_runs_merge_ordered_cells_by_weight_and_keep_the_rest_apart():
    runs = equal_runs(np.array([1.0] * 12), 1)
    assert runs[:12].tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5] and runs[12] == PAIR_CELLS
    heavy = equal_runs(np.array([0.0, 0, 90, 1, 1, 1, 1, 1, 1, 1, 1, 1]), 0)  # a heavy bin starts a run of its own
    assert heavy.tolist() == [0, 0] + [1] * 10


def _fit(rows: int, seed: int = 0, **options):
    frame, spec = adult_small(rows)
    return MarginalsSynthesizer(epsilon=1.0, random_state=seed, **options).fit(frame, spec)


def test_a_small_table_measures_pairs_of_a_range_over_its_merged_bins_and_a_large_one_does_not(monkeypatch):
    """At 1,000 records a round's noise reaches what age's bins hold in a pair: its pairs are merged (the card lists
    the cells measured); at 20,000 some stay whole. The merged counts partition the pair's records."""
    seen = []

    def spy(counts, maps):
        out = merged_counts(counts, maps)
        seen.append((int(np.sum(counts)), int(out.sum()), maps is not None))
        return out

    monkeypatch.setattr("dpsynth_core.synthesizers.marginals.synthesizer.merged_counts", spy)
    small = _fit(1000)
    assert set(small.maps_) == {"age", "education"} and max(small.maps_["age"]) < small.cells_["age"]
    merged = [m for m in small.measured_ if "cells" in m]
    assert merged and all(
        any(c in m["marginal"] and m["cells"][m["marginal"].index(c)] <= PAIR_CELLS + 1 for c in small.maps_)
        for m in merged
    )
    assert [m.maps is not None for m in small.measurements_].count(True) == len(merged)
    assert seen and all(fine == total for fine, total, _ in seen) and any(flag for *_, flag in seen)
    large = _fit(20_000)
    age_pairs = [m for m in large.measured_ if len(m["marginal"]) == 2 and "age" in m["marginal"]]
    assert any("cells" not in m for m in age_pairs)


def test_heaviest_groups_keep_a_heavy_category_alone_and_pool_the_light_ones():
    """Equal runs of the weights sorted heaviest first: a category over a sixth of the weight is a group of its own,
    and the light ones share the last group (with what takes the running total past five sixths)."""
    weights = np.array([3.0, 400, 1, 250, 0, 2, 200, 5, 4, 2, 1, 0, 150])
    groups = heaviest_groups(weights)
    assert len(set(groups.tolist())) <= PAIR_CELLS
    assert groups[1] != groups[3] and sum(groups == groups[1]) == 1 and sum(groups == groups[3]) == 1
    light = np.flatnonzero(weights < 10)
    assert len(set(groups[light].tolist())) == 1 and groups[light[0]] not in (groups[1], groups[3])


def test_a_pair_merges_its_categories_only_beside_no_merged_range_and_when_the_noise_drowns_its_cells(monkeypatch):
    """education (16 categories) is mapped at 1,000 records. Beside age, whose bins are merged, it stays whole (a
    state's latitudes merged by both columns lost airports' geography: 2-way TVD 0.124 to 0.203 at full size); beside
    another category its groups are used only when a cell holds under ``CATEGORY_SIGNAL`` deviations of the noise."""
    model = _fit(1000)
    assert model.zcdp_  # a round's noise parameter is its Gaussian deviation
    tiny = 1e-6  # a round whose noise is negligible: nothing is merged
    loud = 1e6  # a round whose noise drowns every cell
    age = pair_maps(model, ("age", "education"), loud)
    assert age is not None and age[1] is None and age[0] is model.maps_["age"]
    assert pair_maps(model, ("education", "sex"), loud)[0] is model.maps_["education"]
    assert pair_maps(model, ("education", "sex"), tiny) is None
    monkeypatch.setattr(pair_cells, "CATEGORY_SIGNAL", 0.0)
    assert pair_maps(model, ("education", "sex"), loud) is None
    assert pair_maps(model, ("age", "sex"), loud)[0] is model.maps_["age"]


def test_without_category_maps_only_ranges_are_merged(monkeypatch):
    """The ablation (``PAIR_CATEGORIES = False``): the ranges' maps only, as before the sixty-seventh round."""
    monkeypatch.setattr(pair_cells, "PAIR_CATEGORIES", False)
    assert set(_fit(1000).maps_) == {"age"}


def test_without_maps_every_pair_is_measured_whole(monkeypatch):
    """The ablation (``PAIR_CELLS = 0``): no maps, no merged measurement."""
    monkeypatch.setattr(pair_cells, "PAIR_CELLS", 0)
    model = _fit(1000)
    assert model.maps_ == {} and all("cells" not in m for m in model.measured_)
    assert all(m.maps is None for m in model.measurements_)


def test_a_wide_table_keeps_its_pairs_whole(monkeypatch):
    """Past ``selection.BATCH_FROM`` columns the rounds choose in batches and pairs stay whole (merged pairs' slower
    annealing took 300 columns of 20,000 rows from 874 rounds to 988, and from 13.5 s to 30.2 s)."""
    monkeypatch.setattr(selection, "BATCH_FROM", 6)  # adult_small's 7 columns count as wide
    model = _fit(1000)
    assert model.maps_ == {} and all(m.maps is None for m in model.measurements_)


def test_a_rounds_movement_is_counted_on_the_cells_it_measured():
    """The annealing compares the refit's movement with the noise on the cells measured: over merged cells, the
    movement inside a merged cell cancels."""
    model = _fit(1000)
    pair = ("age", "sex")
    before = model.model_.project(pair)
    runs = model.maps_["age"]
    i = int(np.flatnonzero(runs[1:] == runs[:-1])[0])  # two neighbouring bins in one merged cell
    moved = before.copy()
    moved[[i, i + 1], 0] += [5.0, -5.0]
    model.model_.project = lambda group: moved
    maps = {pair: (runs, None)}
    assert pair_cells.movement(model.model_, [pair], [before], maps) == pytest.approx(0.0, abs=1e-9)
    assert pair_cells.movement(model.model_, [pair], [before], {pair: None}) == pytest.approx(10.0)


def test_a_merged_score_moves_by_at_most_the_weight_when_a_record_is_added():
    """The exponential mechanism's sensitivity: one record more moves a merged candidate's L1 term by at most 1,
    so its score by at most its weight, whatever the maps and the support."""
    rng = np.random.default_rng(3)
    maps = {("a", "b"): (np.array([0, 0, 1, 1, 2]), None), ("b",): None}
    support = {"a": np.array([True, True, False, True, True])}
    weights = {("a", "b"): 2.0, ("b",): 1.0}
    for _ in range(200):
        truth = {("a", "b"): rng.integers(0, 5, (5, 3)).astype(float), ("b",): rng.integers(0, 9, 3).astype(float)}
        answers = {g: t + rng.normal(0, 2, t.shape) for g, t in truth.items()}
        neighbour = {g: t.copy() for g, t in truth.items()}
        cell = (rng.integers(5), rng.integers(3))
        neighbour[("a", "b")][cell] += 1
        neighbour[("b",)][cell[1]] += 1
        before = selection.score(list(truth), truth, answers, weights, 0.5, support, maps)
        after = selection.score(list(truth), neighbour, answers, weights, 0.5, support, maps)
        assert all(abs(x - y) <= weights[g] + 1e-9 for g, x, y in zip(truth, before, after))


def test_used_cells_count_the_merged_cells_holding_a_usable_one():
    cells, support = {"a": 5, "b": 3}, {"a": np.array([True, True, False, False, True])}
    assert selection.used_cells(("a", "b"), cells, support) == 9
    assert selection.used_cells(("a", "b"), cells, support, (np.array([0, 0, 1, 1, 2]), None)) == 6


def test_the_charge_is_the_release_epsilon_with_merged_pairs():
    model = _fit(4000)
    assert any(m.maps is not None for m in model.measurements_)
    assert model.accountant_.total()["epsilon"] == pytest.approx(1.0)
