"""k-anonymity, l-diversity and the homogeneity attack on hand-worked tables."""

import pandas as pd

from dpsynth_core.evaluation.kanonymity import (
    ADULT_HIERARCHIES,
    age_band,
    equivalence_classes,
    homogeneity_attack,
    k_anonymize,
    keep,
    l_diversity,
    suppress,
)
from tests.conftest import shared_path

TABLE = pd.DataFrame(
    {
        "age": ["21", "23", "24", "36", "38", "39"],
        "zip": ["33620", "33620", "33620", "33700", "33700", "33701"],
        "disease": ["heart", "heart", "heart", "flu", "cancer", "flu"],
    }
)
HIERARCHY = {"age": [keep, age_band(10), suppress], "zip": [keep, suppress]}


def test_least_generalisation_that_is_3_anonymous():
    result = k_anonymize(TABLE, HIERARCHY, 3, max_suppressed=0)
    assert result.levels == {"age": 1, "zip": 1} and result.suppressed == 0
    assert set(result.table["age"]) == {"20-29", "30-39"}


def test_suppression_within_the_limit():
    # k = 2: age bands with exact zips leave classes of 3, 2 and 1; suppressing the 1 is allowed
    result = k_anonymize(TABLE, HIERARCHY, 2, max_suppressed=0.2)
    assert result.levels == {"age": 1, "zip": 0} and result.suppressed == 1  # the 33701 record


def test_homogeneity_attack_and_l_diversity():
    result = k_anonymize(TABLE, HIERARCHY, 3, max_suppressed=0)
    classes = equivalence_classes(result.table, ["age", "zip"], "disease")
    attacked = homogeneity_attack(classes)
    assert len(attacked) == 1 and attacked.iloc[0]["most common value"] == "heart"
    assert l_diversity(classes) == 1


def test_adult_example_is_k_anonymous():
    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False)
    result = k_anonymize(frame, ADULT_HIERARCHIES, 10)
    sizes = result.table.groupby(list(ADULT_HIERARCHIES)).size()
    assert sizes.min() >= 10 and result.suppressed <= 0.01 * len(frame)
