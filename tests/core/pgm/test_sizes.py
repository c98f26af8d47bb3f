"""Candidate sizes worked out a round ahead in another process are the sizes computed here, exactly;
with no other process (it cannot start, or it died) they are computed here."""

from __future__ import annotations

import itertools
import subprocess
import time
from types import SimpleNamespace

import numpy as np
import pytest

from dpsynth_core.pgm import JunctionTree, model_cells
from dpsynth_core.pgm import sizes as sizes_module
from dpsynth_core.pgm.sizes import CandidateSizes

#: Column names as a declaration may spell them (JSON carries them to the other process).
NAMES = ["age", "Ünïcode näme", 'a "quoted", name', "x\ny", "income", "c5", "c6", "c7", "c8", "c9"]


@pytest.fixture
def other(monkeypatch):
    """A fresh helper process for this test, ready before it starts."""
    fresh = sizes_module._Other()
    monkeypatch.setattr(sizes_module, "_OTHER", fresh)
    fresh.submit({"a": 2}, [], [])  # starts it; nothing is asked
    deadline = time.monotonic() + 30
    while not fresh._ready and time.monotonic() < deadline:
        time.sleep(0.05)
    assert fresh._ready, "the helper process did not start"
    yield fresh
    if fresh._process:
        fresh._process.kill()


def _rounds(seed: int):
    """A method's rounds on random columns: the groups measured so far, and one more chosen each round."""
    rng = np.random.default_rng(seed)
    names = NAMES[: int(rng.integers(5, len(NAMES) + 1))]
    cells = {name: int(rng.choice([2, 3, 7, 16])) for name in names}
    candidates = [tuple(p) for p in itertools.combinations(names, 2)]
    groups = [(name,) for name in names]
    for _ in range(8):
        chosen = candidates[int(rng.integers(len(candidates)))]
        yield cells, candidates, list(groups), chosen
        groups.append(chosen)


def _check(seed: int) -> None:
    sizes = None
    for j, (cells, candidates, groups, chosen) in enumerate(_rounds(seed)):
        sizes = sizes or CandidateSizes(cells, candidates)
        model = SimpleNamespace(tree=JunctionTree.build(cells, groups))
        got = sizes.of(model, groups)
        assert {c: got[c] for c in candidates} == {c: model_cells(cells, groups + [c]) for c in candidates}
        # the next round's groups, or (every third round) a guess that turns out wrong: then unused
        sizes.ahead(groups + [chosen if j % 3 else candidates[-1]])


def test_sizes_from_the_other_process_are_exact(other):
    answered = []
    collect, submit = other.collect, other.submit
    other.collect = lambda key: answered.append(collect(key)) or answered[-1]

    def patient(*args):  # as if each round took long enough for the other process to finish the one before
        with other._state:  # (after a wrong guess it is still busy, and this round's sizes would be made here)
            other._state.wait_for(lambda: not other._busy, timeout=30)
        return submit(*args)

    other.submit = patient
    for seed in range(6):
        _check(seed)
    assert len(answered) >= 12 and all(a is not None for a in answered)  # rounds answered there (at most 42)


def test_without_another_process_the_sizes_are_computed_here(monkeypatch):
    fresh = sizes_module._Other()
    monkeypatch.setattr(sizes_module, "_OTHER", fresh)

    def refused(*args, **kwargs):
        raise OSError("no processes here")

    monkeypatch.setattr(subprocess, "Popen", refused)
    _check(0)
    assert fresh._process is False


def test_a_helper_process_that_dies_leaves_the_sizes_to_this_one(other):
    cells, candidates, groups, _ = next(_rounds(1))
    sizes = CandidateSizes(cells, candidates)
    other._process.kill()
    other._process.wait()
    sizes.ahead(groups)  # asked of a dead process, or refused
    model = SimpleNamespace(tree=JunctionTree.build(cells, groups))
    got = sizes.of(model, groups)
    assert {c: got[c] for c in candidates} == {c: model_cells(cells, groups + [c]) for c in candidates}
