"""The one-number summaries of the publisher-only measures (the Releases page's comparison rows)."""

from __future__ import annotations

from dpsynth_core.evaluation.summaries import HEADLINES, MEASURES, headlines


def test_each_measure_has_a_headline_and_only_computed_ones_are_shown():
    assert tuple(HEADLINES) == MEASURES
    measures = {
        "fidelity": {"a": 1.0, "b": 0.5},
        "two_way": {"columns": ["a", "b", "c"], "values": [[0, 0.1, 0.2], [0.1, 0, 0.3], [0.2, 0.3, 0]]},
        "game": {"accuracy": 0.514, "test_records": 40},
    }
    assert headlines(measures) == {
        HEADLINES["fidelity"]: "0.750",
        HEADLINES["two_way"]: "0.200",  # the mean over pairs, the diagonal left out
        HEADLINES["game"]: "51%",
    }
    assert headlines({"game": {"accuracy": 0.5, "test_records": 0}}) == {}  # a game too small to play
    assert headlines({"two_way": {"columns": ["a"], "values": [[0.0]]}}) == {HEADLINES["two_way"]: ""}
