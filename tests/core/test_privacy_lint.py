"""Code review rules that an audit cannot see (checklist items 1 and 9), run over the app's real folders."""

import re

import pytest

from tests.conftest import ROOT

#: Every folder of code that ships: the core, the app's pages and its Streamlit helpers.
FOLDERS = [ROOT / "dpsynth_core", ROOT / "app_support"] + [
    p for p in (ROOT / "pages", ROOT / "app_pages") if p.is_dir()
]
NOISE_MODULE = ROOT / "dpsynth_core" / "privacy" / "noise.py"
SAMPLERS = re.compile(r"\.(laplace|exponential|normal|gumbel)\(")
DEFAULT_SEED = re.compile(r"(random_state|seed)\s*=\s*\d")
STREAMLIT = re.compile(r"^\s*(import|from) streamlit", re.M)
DOMAIN_FROM_DATA = re.compile(r"\[[^\]]+\]\.(unique|min|max|quantile|value_counts)\(\)")


def code_files(folders=None) -> list:
    files = [p for d in (folders or FOLDERS) for p in d.rglob("*.py")]
    return files + ([ROOT / "app.py"] if folders is None else [])


def sampler_offenders(files) -> list[str]:
    """Continuous noise samplers outside the one reviewed noise module."""
    return [p.name for p in files if p != NOISE_MODULE and SAMPLERS.search(p.read_text())]


def seed_offenders(files) -> list[str]:
    return [p.name for p in files if DEFAULT_SEED.search(p.read_text())]


def streamlit_offenders(files) -> list[str]:
    return [p.name for p in files if STREAMLIT.search(p.read_text())]


def domain_offenders(files) -> list[str]:
    """unique(), min(), max() or quantiles of a data column would derive a domain from values."""
    return [p.name for p in files if DOMAIN_FROM_DATA.search(p.read_text())]


def test_the_lint_scans_the_folders_that_exist():
    files = code_files()
    assert NOISE_MODULE in files and any("app_support" in p.parts for p in files)
    assert any(p.parent.name in ("pages", "app_pages") for p in files), "no page folder is scanned"


def test_continuous_noise_samplers_only_in_noise_module():
    assert sampler_offenders(code_files()) == []


def test_no_default_seed():
    assert seed_offenders(code_files()) == []


def test_core_has_no_streamlit():
    assert streamlit_offenders(code_files([ROOT / "dpsynth_core"])) == []


def test_no_domain_from_data_idioms_in_core():
    assert domain_offenders(code_files([ROOT / "dpsynth_core"])) == []


@pytest.mark.parametrize(
    "check, line",
    [
        (sampler_offenders, "noisy = counts + rng.laplace(0, 1 / epsilon, size=3)"),
        (seed_offenders, "def draw(random_state=0): ..."),
        (streamlit_offenders, "import streamlit as st"),
        (domain_offenders, "edges = frame['age'].quantile()"),
    ],
)
def test_a_planted_violation_is_caught(tmp_path, check, line):
    planted = tmp_path / "planted.py"
    planted.write_text(f"{line}\n")
    assert check([planted]) == ["planted.py"]
