"""One command line: ``dpsynth`` (the console script) and ``python -m dpsynth_core`` are the same parser,
every subcommand listed in ``--help``; ``synth``'s flags come from the option descriptions."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from dpsynth_core.cli import main
from dpsynth_core.cli.parser import build_parser
from dpsynth_core.synthesizers import DEFAULT_METHOD, METHODS
from dpsynth_core.synthesizers.options import METHOD_OPTIONS, SETTINGS
from tests.conftest import ROOT

COMMANDS = [
    "synth",
    "methods",
    "ledger",
    "tau",
    "declare",
    "compare",
    "report",
    "account",
    "review-link",
    "check-persons",
    "check-declaration",
]


def _subcommands(parser) -> list[str]:
    return list(next(a for a in parser._actions if a.dest == "command").choices)


def test_both_entry_points_are_the_one_parser_with_every_subcommand():
    script = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]["dpsynth"]
    assert script == "dpsynth_core.cli:main"
    assert "main()" in (ROOT / "dpsynth_core" / "__main__.py").read_text()  # no second dispatcher
    assert _subcommands(build_parser()) == COMMANDS
    for prog in (
        ["-m", "dpsynth_core"],
        ["-c", "import sys; sys.argv[0] = 'dpsynth'; from dpsynth_core.cli import main; sys.exit(main())"],
    ):
        done = subprocess.run([sys.executable, *prog, "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert done.returncode == 0, done.stderr
        assert all(c in done.stdout for c in COMMANDS), done.stdout
    assert "usage: dpsynth " in done.stdout


@pytest.mark.parametrize("argv", [["account", "list"], ["review-link", "list"]])
def test_account_and_review_links_run_through_the_one_command_line(argv, tmp_path, capsys):
    assert main([*argv, "--workspace", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() in ("no accounts", "")
    assert main(["account", "remove", "--workspace", str(tmp_path)]) == 2  # one line, exit 2
    assert capsys.readouterr().err.count("\n") == 1


def test_synth_flags_come_from_the_option_descriptions():
    synth = build_parser()._subparsers._group_actions[0].choices["synth"]
    flags = {a.option_strings[0]: a for a in synth._actions if a.option_strings}
    for option in SETTINGS + METHOD_OPTIONS:
        action = flags[option.flag]
        assert action.dest == option.name and action.required == option.required and action.default is None
        assert option.help in action.help and (not option.default_words or option.default_words in action.help)
    assert flags["--method"].default == DEFAULT_METHOD


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_option_is_one_the_command_line_offers(method):
    offered = {o.name: o for o in METHOD_OPTIONS}
    for option in METHODS[method].cls.options:
        assert option.name in offered, option.name
        same = offered[option.name]
        assert (option.flag, option.parse, option.repeat, option.check) == (
            same.flag,
            same.parse,
            same.repeat,
            same.check,
        )
