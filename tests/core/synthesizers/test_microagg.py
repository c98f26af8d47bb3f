"""Micro-aggregation: MDAV cluster sizes, feature groups, and an honest card."""

import numpy as np
import pytest

from dpsynth_core import synthesize
from dpsynth_core.errors import ParameterError
from dpsynth_core.synthesizers.microagg import MicroAggregation, feature_groups, mdav
from tests.core.synthesizers.methods_common import adult_small, assert_in_domain


def test_mdav_clusters_have_at_least_k_records_and_cover_all():
    points = np.random.default_rng(0).normal(size=(1037, 3))
    clusters = mdav(points, 25)
    sizes = [len(c) for c in clusters]
    assert min(sizes) >= 25 and max(sizes) <= 49
    assert sorted(np.concatenate(clusters).tolist()) == list(range(1037))


def test_mdav_groups_near_points():
    points = np.concatenate([np.zeros((10, 2)), np.full((10, 2), 100.0)])
    clusters = mdav(points, 10)
    assert all(len(set(points[c][:, 0])) == 1 for c in clusters)


def test_feature_groups_follow_correlation():
    rng = np.random.default_rng(1)
    a = rng.normal(size=2000)
    b = rng.normal(size=2000)
    points = np.column_stack([a, a + 0.01 * rng.normal(size=2000), b, b + 0.01 * rng.normal(size=2000)])
    groups = sorted(sorted(g) for g in feature_groups(points, 2))
    assert groups == [[0, 1], [2, 3]]


def test_card_states_there_is_no_guarantee():
    frame, spec = adult_small(2000)
    release = synthesize(frame, spec, 1.0, method="microagg", random_state=0, k=25)
    assert release.card["guarantee"]["epsilon"] is None
    assert "without noise" in release.card["guarantee"]["plain_words"]
    assert_in_domain(release.data, spec)


def test_rejects_bad_k():
    frame, spec = adult_small(100)
    with pytest.raises(ParameterError, match="k"):
        MicroAggregation(epsilon=1.0, random_state=0, k=1).fit(frame, spec)


def test_card_does_not_list_data_derived_feature_groups():
    frame, spec = adult_small(2000)
    release = synthesize(frame, spec, 1.0, method="microagg", random_state=1, k=25)
    assert isinstance(release.card["method_details"]["feature_groups"], int)
    assert isinstance(release.publisher_report["columns"]["feature_groups"], list)
