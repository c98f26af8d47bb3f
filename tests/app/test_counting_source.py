"""The Preview's kept encoding: built once per data and declaration, and the same release as the frame's."""

import copy

from app_support import cached
from dpsynth_core import synthesize
from dpsynth_core.data.examples import example_csv, example_declaration
from dpsynth_core.data.tables import read_table
from dpsynth_core.synthesizers import METHODS
from tests.conftest import timeless


def example_frame(name):
    return read_table(example_csv(name))[0]


def test_kept_only_when_built_and_rebuilt_for_another_declaration():
    cached._SOURCE.clear()
    frame, declaration = example_frame("adult"), example_declaration("adult")
    assert cached.counting_source(None, "fp", declaration, build=False) is None  # a draw never encodes first
    source = cached.counting_source(frame, "fp", declaration)
    assert cached.counting_source(None, "fp", declaration, build=False) is source
    other = copy.deepcopy(declaration)
    other["columns"]["age"]["bin_width"] = 10
    assert cached.counting_source(None, "fp", other, build=False) is None
    assert cached.counting_source(None, "other data", declaration, build=False) is None
    cached._SOURCE.clear()


def test_a_draw_through_the_kept_encoding_is_the_frames():
    cached._SOURCE.clear()
    frame, declaration = example_frame("adult"), example_declaration("adult")
    source = cached.counting_source(frame, "fp", declaration)
    for method in [m for m in METHODS if METHODS[m].cls.reads_sources]:  # those that can count a source
        a = synthesize(frame, declaration, 1.0, method=method, random_state=5)
        b = synthesize(source, declaration, 1.0, method=method, random_state=5)
        assert (
            a.data.equals(b.data) and timeless(a.card) == timeless(b.card) and a.publisher_report == b.publisher_report
        )
    cached._SOURCE.clear()
