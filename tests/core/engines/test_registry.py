"""Engines are listed once (:mod:`dpsynth_core.engines.registry`): the command line's choices, ``auto``
and the release ask that list, and no module above the engines tests an engine's name."""

from __future__ import annotations

import argparse
import ast

import pytest

from dpsynth_core.cli.parser import build_parser
from dpsynth_core.engines import AUTO, ENGINE_CHOICES, ENGINES, IN_MEMORY, LARGE_FILES, get_engine
from dpsynth_core.errors import ParameterError
from tests.conftest import ROOT


def test_the_command_line_offers_the_listed_engines():
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    engine = next(a for a in commands.choices["synth"]._actions if a.dest == "engine")
    assert tuple(engine.choices) == ENGINE_CHOICES == (AUTO, *ENGINES) and engine.default == AUTO
    assert all(name in engine.help for name in ENGINES)


def test_every_engine_opens_a_source_and_auto_has_one_choice_of_each_kind():
    assert [e.name for e in ENGINES.values() if e.in_memory] == [IN_MEMORY]
    assert [e.name for e in ENGINES.values() if e.large_files] == [LARGE_FILES]
    for engine in ENGINES.values():
        assert ":" in engine.source and engine.summary
    with pytest.raises(ParameterError, match=r"engine \('dask'\) must be one of auto, "):
        get_engine("dask")


@pytest.mark.parametrize("folder", ["release", "usecases", "cli", "data", "workspace", "evaluation"])
def test_no_module_above_the_engines_tests_an_engines_name(folder):
    """The release asks an engine's properties (in memory, writes Parquet itself...), never its name."""
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in (ROOT / "dpsynth_core" / folder).rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Compare)
        for side in [node.left, *node.comparators]
        if isinstance(side, ast.Constant) and side.value in ENGINES
    ]
    assert found == []
