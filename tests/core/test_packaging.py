"""The package `pip install .` builds: its metadata, console script, modules and data files.

Building and installing takes minutes, so these tests check what the build reads instead: the
``[project]`` table, that the ``dpsynth`` entry point resolves to the CLI's ``main``, that every
folder of Python modules is a package the build finds, and that the bundled lists are package
data. (Checked by hand as well: ``pip install .`` in a fresh venv, then ``dpsynth --help`` and a
release.)
"""

from __future__ import annotations

import importlib
import re
import tomllib

from setuptools import find_packages

import dpsynth_core
from dpsynth_core.cli import main
from dpsynth_core.domain import public_lists
from tests.conftest import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_project_metadata_has_one_home_for_version_and_pins():
    project, dynamic = PROJECT["project"], PROJECT["tool"]["setuptools"]["dynamic"]
    assert project["name"] == "dpsynth" and project["requires-python"] == ">=3.11"
    assert set(project["dynamic"]) == {"version", "dependencies"}
    assert dynamic["version"] == {"attr": "dpsynth_core.__version__"} and re.fullmatch(
        r"\d+\.\d+\.\d+", dpsynth_core.__version__
    )
    assert dynamic["dependencies"] == {"file": ["requirements.txt"]}
    lines = [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    pins = [line for line in lines if line and not line.startswith("#")]
    assert pins and all(re.fullmatch(r"[A-Za-z0-9_.\[\]-]+==[\w.]+", pin) for pin in pins), pins


def test_console_script_is_the_cli():
    module, name = PROJECT["project"]["scripts"]["dpsynth"].split(":")
    assert getattr(importlib.import_module(module), name) is main
    assert main(["--help"]) == 0


def test_every_module_folder_is_a_package_the_build_finds():
    found = set(find_packages(where=ROOT, include=PROJECT["tool"]["setuptools"]["packages"]["find"]["include"]))
    folders = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "dpsynth_core").rglob("*.py")}
    assert folders <= found and all(name.startswith("dpsynth_core") for name in found)


def test_bundled_lists_are_package_data():
    data = PROJECT["tool"]["setuptools"]["package-data"]["dpsynth_core.domain"]
    package = ROOT / "dpsynth_core" / "domain"
    assert public_lists.LISTS_DIR.resolve().is_relative_to(package)
    shipped = {p.name for pattern in data for p in package.glob(pattern)}
    assert set(public_lists._FILES.values()) <= shipped
