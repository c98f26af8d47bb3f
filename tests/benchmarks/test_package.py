"""The benchmarks as a package: every module imports, says what it measures and how to run it, and shows
its options without running anything."""

import importlib
import re

import pytest

from tests.conftest import ROOT

FOLDER = ROOT / "benchmarks"
MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts) for p in FOLDER.rglob("*.py") if p.name != "__init__.py"
)
RUNNABLE = [m for m in MODULES if m != "benchmarks.common"]


def test_every_group_holds_benchmarks_and_no_script_edits_the_path():
    assert {m.split(".")[1] for m in RUNNABLE} == {"speed", "large", "quality", "peers", "tools", "robustness"}
    for path in FOLDER.rglob("*.py"):
        text = path.read_text()
        assert "sys.path" not in text, path
        assert not re.search(r"\bissue \d", text), path  # the history is in docs/benchmarks/history.md


@pytest.mark.parametrize("name", RUNNABLE)
def test_each_benchmark_says_how_to_run_it_and_shows_its_options(name, capsys):
    module = importlib.import_module(name)
    assert f"python -m {name}" in module.__doc__ or f"-m {name}" in module.__doc__
    with pytest.raises(SystemExit) as done:
        module.main(["--help"])
    assert done.value.code == 0 and "usage:" in capsys.readouterr().out
