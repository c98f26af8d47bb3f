"""Shared test fixtures: the real public datasets in the repository, complete declarations, and
``dpsynth synth`` run as a test runs it."""

from __future__ import annotations

import collections
import importlib.util
import json
import os
import shutil
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The real public datasets the tests read (provenance and licences in tests/datasets/README.md); adult
#: and ce are the app's bundled examples, the same files, kept once.
DATA_FOLDERS = (ROOT / "tests" / "datasets", ROOT / "assets" / "examples")
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# What the published domain files leave out, supplied here as a publisher would: from public
# policy (top-codes, plausible ranges, a generator for free text), never from the data.
_DATES = {"type": "date", "min": "2000-01-01", "max": "2020-12-31"}
_DROP = {"type": "drop"}
SUPPLIED = {
    "adult": {"fnlwgt": {"max": 2_000_000}, "capital-loss": {"max": 99_999}},
    "adult_test": {"fnlwgt": {"max": 2_000_000}, "capital-loss": {"max": 99_999}},
    "ce": {"Income": {"min": -100_000, "max": 1_000_000}, "Expenditure": {"max": 200_000}},
    "australian": {
        "A2": {"min": 0, "max": 100},
        "A3": {"min": 0, "max": 50},
        "A7": {"min": 0, "max": 50},
        "A10": {"min": 0, "max": 100},
        "A13": {"min": 0, "max": 5000},
        "A14": {"min": 0, "max": 200_000},
    },
    "kakadu": {"age": {"max": 100}, "schooling": {"max": 30}, "income": {"max": 1000}},
    "doctor_visits": {"visits": {"max": 100}, "income": {"max": 10}, "illness": {"max": 100}},
    "diabetes": {
        "Pregnancies": {"max": 20},
        "Glucose": {"max": 300},
        "BloodPressure": {"max": 200},
        "SkinThickness": {"max": 100},
        "Insulin": {"max": 1000},
        "BMI": {"max": 80},
        "DiabetesPedigreeFunction": {"max": 3},
    },
    "compas": {
        **{c: _DROP for c in ("id", "name", "first", "last", "c_case_number", "r_case_number", "vr_case_number")},
        **{
            c: _DATES
            for c in (
                "compas_screening_date",
                "c_offense_date",
                "c_arrest_date",
                "r_offense_date",
                "vr_offense_date",
                "screening_date",
                "v_screening_date",
                "in_custody",
                "out_custody",
                "c_jail_in",
                "c_jail_out",
                "r_jail_in",
                "r_jail_out",
            )
        },
        "dob": {"type": "date", "min": "1900-01-01", "max": "2010-12-31", "unit": "year"},
        **{
            c: {"type": "text", "generator": "any", "size": 100_000}
            for c in ("c_charge_desc", "r_charge_desc", "vr_charge_desc")
        },
        **{c: {"type": "text", "generator": "any", "size": 100} for c in ("r_charge_degree", "vr_charge_degree")},
        **{
            c: {"max": 100}
            for c in ("juv_fel_count", "juv_misd_count", "juv_other_count", "priors_count", "priors_count.1")
        },
        **{c: {"min": -10_000, "max": 10_000} for c in ("days_b_screening_arrest", "r_days_from_arrest")},
        **{c: {"max": 10_000} for c in ("c_days_from_compas", "start", "end")},
    },
}
DATASETS = ("adult", "adult_test", "australian", "breast_cancer", "ce", "compas", "diabetes", "pums")


def shared_path(name: str) -> Path:
    """A file of the public datasets the tests share (``adult.csv``, ``compas.domain.json``...)."""
    for folder in DATA_FOLDERS:
        if (folder / name).exists():
            return folder / name
    pytest.fail(f"{name} is in none of {', '.join(str(f) for f in DATA_FOLDERS)}")


def complete_domain(dataset: str) -> dict:
    """The published declaration of a dataset with the test-owned bounds filled in."""
    spec = json.loads(shared_path(f"{dataset}.domain.json").read_text())
    for column, extra in SUPPLIED.get(dataset, {}).items():
        if "type" in extra:
            spec["columns"][column] = dict(extra)
        else:
            spec["columns"][column].update(extra)
    return spec


def synth_argv(data, domain, *extra, epsilon=1, **flags) -> list[str]:
    """The arguments of ``dpsynth synth``: the input, its declaration and epsilon, then a flag for each
    keyword (``card_html=path`` gives ``--card-html path``, ``no_ledger=True`` the bare ``--no-ledger``),
    then ``extra`` as given."""
    argv = ["synth", str(data), "--domain", str(domain), "--epsilon", str(epsilon)]
    for name, value in flags.items():
        flag = f"--{name.replace('_', '-')}"
        argv += [flag] if value is True else [flag, str(value)]
    return argv + [str(arg) for arg in extra]


def run_cli_synth(data, domain, *extra, epsilon=1, **flags) -> int:
    """Run ``dpsynth synth`` in this process with :func:`synth_argv`'s arguments; its exit status."""
    from dpsynth_core.cli import main  # the command line, only for the tests that run it

    return main(synth_argv(data, domain, *extra, epsilon=epsilon, **flags))


#: The groups that start first, each on its own worker: the real-browser tests (the longest group),
#: then the Spark tests; the other groups follow, the largest first, then single tests in file order.
FIRST_GROUPS = ("browser", "spark")


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: one worker more than the machine has cores. The browser and Spark groups spend much
    of their time waiting for another process (the app server, Chromium, Java), so a third worker on
    two cores keeps the cores busy: the suite took 8 min 29 s at three workers against 10 min 19 s at two
    (2 cores, 1,153 tests, 26 November 2026; two later runs at three workers, 9 min 55 s and 10 min 39 s)."""
    return (os.cpu_count() or 1) + 1


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups into the tests' ids
def pytest_collection_modifyitems(items):
    """Keep what is shared on one pytest-xdist worker, and start the longest work first (pyproject's
    addopts: ``-n auto --dist loadgroup --no-loadscope-reorder``).

    Tests go to the workers one by one, except: every real-browser test runs on one worker (one
    Chromium, one app server at a time, so their time limits hold on two cores); every test that
    runs Spark in the test process (marked ``spark``) runs on one worker, so one Java process and one
    session serve them all; and the tests of a module that share a module-scoped fixture (a fit, a
    server) run on one worker, so the fixture is made once.

    pytest-xdist hands out the groups in the order of their first test, so the tests are put in the
    order of ``FIRST_GROUPS``: the two longest groups start at once on two workers, and the
    many short single tests at the end even out the workers' finishing times.
    """
    groups = {}
    for item in items:
        groups[item] = next((m for m in FIRST_GROUPS if item.get_closest_marker(m)), None) or _module_group(item)
        if groups[item]:
            item.add_marker(pytest.mark.xdist_group(groups[item]))
    sizes = collections.Counter(groups.values())

    def rank(item) -> tuple:
        group = groups[item]
        if group in FIRST_GROUPS:
            return (FIRST_GROUPS.index(group), 0, "")
        return (len(FIRST_GROUPS), -sizes[group], group) if group else (len(FIRST_GROUPS) + 1, 0, "")

    items.sort(key=rank)  # stable: file order within each group and among single tests


def _module_group(item) -> str | None:
    """The module's name when the test shares a module-scoped fixture with the module's other tests."""
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    if any(defs and defs[-1].scope in ("module", "package") for defs in definitions.values()):
        return item.module.__name__
    return None


@pytest.fixture(scope="session")
def adult_domain() -> dict:
    return complete_domain("adult")


#: The tests' JVMs compile with the client compiler only (C1) and collect garbage on one thread: their
#: Spark jobs are short, and a session's start and first job then take about 21 CPU seconds of Java
#: instead of 37 (measured on 2 cores, 26 November 2026); what is counted is the same.
QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture(scope="session")
def spark():
    """One local Spark session (two cores) for every test marked ``spark``: starting Java and a
    session costs more than most of those tests, so they share one (on one worker, see above)."""
    pytest.importorskip("pyspark")
    from dpsynth_core.engines.spark_source import local_session

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # PySpark's note about pandas 3
        session = local_session(cores="2", java_options=QUICK_JVM)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def spark_available() -> bool:
    """PySpark is installed and a Java runtime is there (CI installs one: a missing one fails there)."""
    return importlib.util.find_spec("pyspark") is not None and bool(shutil.which("java") or os.environ.get("CI"))


@pytest.fixture(autouse=True)
def _spark_session_first(request):
    """A test marked ``spark`` that runs Spark through the library (which takes the active session)
    gets the shared session, whether or not it names the fixture."""
    if request.node.get_closest_marker("spark") and spark_available():
        request.getfixturevalue("spark")


@pytest.fixture(autouse=True)
def _own_workspace(tmp_path_factory, monkeypatch):
    """Every test gets an empty workspace (never the user's ~/.dpsynth)."""
    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(tmp_path_factory.mktemp("workspace")))


@pytest.fixture(autouse=True)
def _warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


def timeless(card: dict) -> dict:
    """A card without its creation time (minutes: two releases may straddle a minute)."""
    return {k: v for k, v in card.items() if k != "created"}


def stated(card: dict) -> dict:
    """What a card's guarantee states for its mechanism: a seeded release (a repeatable test) claims
    none, and keeps what the same draw from the secure source would guarantee under ``unseeded``."""
    return card["guarantee"].get("unseeded", card["guarantee"])


def keyword_spy(monkeypatch, owner, name: str, keyword: str) -> list:
    """Wrap ``owner.name`` (a function another module calls by that name) so each call records its ``keyword``
    argument (None when not given) in the returned list, and still runs."""
    seen, original = [], getattr(owner, name)

    def recorded(*args, **kwargs):
        seen.append(kwargs.get(keyword))
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, recorded)
    return seen


def run_script(script, *args, cwd):
    """A rerun script run as a publisher runs it: its own Python process, the library on its path, in ``cwd``."""
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, str(script), *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
