"""The hostile-input corpus (tests/corpus.py) through the Python API and the command line.

Every case must end within 30 s with a one-line refusal (exit status 2 on the command line,
a ``DPSynthError`` in the API) or, for odd but legitimate input, a release; never a
traceback, never a changed file, never more than 1 GB of memory. The whole corpus runs
through the API, each case in its own fresh process (``tests/isolated.py``: forked from a
server that imported the library, so its peak resident memory is the call's own, whatever
ran before); the cases marked ``cli`` also run through ``python -m dpsynth_core``'s own
``__main__`` in such a forked process, with its own standard streams and exit status (the
interpreter's start-up, a second or two per case, is paid once). A few of them run again as real
subprocesses, each with its own peak resident memory measured by a small launcher process, so the
two ways are checked to agree.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.corpus import api_kwargs, build_cases, cli_argv, prepare, write_shared
from tests.isolated import Isolated

CASES = build_cases()
TIME_LIMIT = 30.0
MEMORY_LIMIT = 1 << 30
_STATS: dict = {}


def _id(case) -> str:
    return f"{case.kind}: {case.name}"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    write_shared(root / "shared")
    yield root
    summary = _summary()
    (root / "summary.json").write_text(json.dumps(summary, indent=2))
    print("\ncorpus summary:", json.dumps(summary))


def _summary() -> dict:
    kinds: dict = {}
    for case in CASES:
        kinds[case.kind] = kinds.get(case.kind, 0) + 1
    out = {
        "cases": len(CASES),
        "by kind": kinds,
        "expected refusals": sum(c.expect == "error" for c in CASES),
        "through the API": sum(c.api for c in CASES),
        "through the CLI": sum(c.cli for c in CASES),
    }
    for channel in ("api", "cli"):
        runs = [(k[1], v) for k, v in _STATS.items() if k[0] == channel]
        if runs:
            biggest = max(runs, key=lambda kv: kv[1]["peak_bytes"])
            ranked = sorted(runs, key=lambda kv: -kv[1]["seconds"])[:5]
            out[channel] = {
                "runs": len(runs),
                "slowest": [[k, round(v["seconds"], 2)] for k, v in ranked],
                "peak memory MB": [biggest[0], round(biggest[1]["peak_bytes"] / 2**20)],
                "total seconds": round(sum(v["seconds"] for _, v in runs), 1),
            }
    return out


def _snapshot(*folders: Path) -> dict:
    """Every regular file under the folders, with a hash of its content (devices are left alone)."""
    files = {}
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file() and not path.is_symlink():
                files[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def _changed(before: dict, after: dict, allowed: set) -> list[str]:
    keys = set(before) | set(after)
    return sorted(k for k in keys if before.get(k) != after.get(k) and k not in allowed)


#: What the library imports only inside the functions that need them (the p-values' scipy.special, OpenDP's
#: accounting, the secure generator's randomgen, the encodings' readers): the server imports them once as well,
#: so a case's child pays for its own call and not for these imports again (about 0.7 s of each release's time,
#: 0.2 s of a refusal's). A child's peak memory then starts from a larger server, never a smaller one.
LAZY_IMPORTS = (
    "scipy.special",
    "scipy.cluster.hierarchy",
    "opendp.combinators",
    "opendp.domains",
    "opendp.measurements",
    "opendp.measures",
    "opendp.metrics",
    "randomgen",
    "pyarrow.csv",
    "charset_normalizer",
)


@pytest.fixture(scope="module")
def isolated():
    """Each API case runs in its own fresh process (forked from a server that imported the library)."""
    with Isolated("dpsynth_core.*", "tests.corpus", *LAZY_IMPORTS) as server:
        yield server


@pytest.mark.parametrize("case", [c for c in CASES if c.api], ids=_id)
def test_api(case, corpus, isolated):
    folder = corpus / f"api-{CASES.index(case):03d}"
    paths = prepare(case, folder, corpus / "shared")
    domain = case.domain if isinstance(case.domain, dict) else paths["domain"]
    before = _snapshot(folder, corpus / "shared")
    run = isolated.run("tests.corpus:run_api", paths["data"], domain, api_kwargs(paths), timeout=2 * TIME_LIMIT)
    _STATS[("api", case.name)] = {"seconds": run["seconds"], "peak_bytes": run["peak_bytes"]}
    assert run["outcome"] == "ok", run["value"]  # not a crash, an unexpected exception or a timeout
    outcome, message = run["value"]
    assert outcome == case.expect, message
    assert message and "\n" not in message and len(message) < 20_000
    assert run["seconds"] < TIME_LIMIT, f"took {run['seconds']:.1f} s"
    assert run["peak_bytes"] < MEMORY_LIMIT, f"peak memory {run['peak_bytes'] >> 20} MB"
    assert not _changed(before, _snapshot(folder, corpus / "shared"), set())


def test_the_memory_limit_catches_a_blow_up(isolated):
    """The measurement itself: a call that holds 1.1 GiB fails the limit, a small one is far below it."""
    big = isolated.run("tests.isolated:allocate", 1126)
    small = isolated.run("tests.isolated:allocate", 1)
    assert big["outcome"] == small["outcome"] == "ok"
    assert big["peak_bytes"] >= MEMORY_LIMIT > 4 * small["peak_bytes"]


#: Runs the CLI as its own child and writes that child's peak resident memory to a file. A child
#: forked straight from pytest would inherit pytest's own peak (Linux keeps it across exec).
_LAUNCHER = (
    "import resource, subprocess, sys; done = subprocess.run(sys.argv[2:]); "
    "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
    "sys.exit(done.returncode)"
)


def _run_cli(argv: list[str], folder: Path) -> dict:
    """Run the CLI in a subprocess; its exit status, output, time and own peak memory."""
    out, err, peak = folder / ".stdout", folder / ".stderr", folder / ".peak"
    command = [sys.executable, "-c", _LAUNCHER, str(peak), sys.executable, "-m", "dpsynth_core", *argv]
    with out.open("wb") as stdout, err.open("wb") as stderr:
        start = time.perf_counter()
        proc = subprocess.Popen(
            command,
            stdout=stdout,
            stderr=stderr,
            cwd=ROOT,
            start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        try:
            status = proc.wait(timeout=2 * TIME_LIMIT)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            status = proc.wait()
        seconds = time.perf_counter() - start
    result = {
        "status": status,
        "stdout": out.read_text(errors="replace"),
        "stderr": err.read_text(errors="replace"),
        "seconds": seconds,
        "peak_bytes": int(peak.read_text() or 0) * 1024 if peak.exists() else 0,
    }
    for path in (out, err, peak):
        path.unlink(missing_ok=True)
    return result


def _run_forked(argv: list[str], folder: Path, isolated: Isolated) -> dict:
    """Run the CLI's ``__main__`` in a fresh forked process; the same result as :func:`_run_cli`."""
    out, err = folder / ".stdout", folder / ".stderr"
    run = isolated.run(
        "tests.isolated:cli", argv, str(out), str(err), os.environ["DPSYNTH_WORKSPACE"], timeout=2 * TIME_LIMIT
    )
    status = run["value"] if run["outcome"] == "ok" else f"{run['outcome']}: {run['value']}"
    result = {
        "status": status,
        "stdout": out.read_text(errors="replace") if out.exists() else "",
        "stderr": err.read_text(errors="replace") if err.exists() else "",
        "seconds": run["seconds"],
        "peak_bytes": run["peak_bytes"],
    }
    for path in (out, err):
        path.unlink(missing_ok=True)
    return result


def _check_cli(case, corpus, isolated=None) -> list[str]:
    """A case through the CLI, in a forked process (``isolated``) or else a real subprocess."""
    folder = corpus / f"cli-{'forked' if isolated else 'process'}-{CASES.index(case):03d}"
    paths = prepare(case, folder, corpus / "shared")
    before = _snapshot(folder, corpus / "shared")
    argv = cli_argv(case, paths)
    run = _run_forked(argv, folder, isolated) if isolated else _run_cli(argv, folder)
    _STATS[("cli" if isolated else "process", case.name)] = {"seconds": run["seconds"], "peak_bytes": run["peak_bytes"]}
    problems = []
    expected_status = 2 if case.expect == "error" else 0
    if run["status"] != expected_status:
        problems.append(f"exit status {run['status']}, expected {expected_status}: {run['stderr'][-300:]}")
    lines = run["stderr"].strip().splitlines()
    if "Traceback" in run["stderr"]:
        problems.append("a traceback")
    if case.expect == "error" and (len(lines) != 1 or not lines[0].startswith("error: ")):
        problems.append(f"not one line: {run['stderr'][:300]!r}")
    if case.expect == "ok" and any(not line.startswith("note: ") for line in lines):
        problems.append(f"stderr beyond notes: {run['stderr'][:300]!r}")
    if run["seconds"] >= TIME_LIMIT:
        problems.append(f"took {run['seconds']:.1f} s")
    if run["peak_bytes"] >= MEMORY_LIMIT:
        problems.append(f"peak memory {run['peak_bytes'] >> 20} MB")
    allowed = set(paths["outputs"].values()) if case.expect == "ok" else set()
    changed = _changed(before, _snapshot(folder, corpus / "shared"), allowed)
    if changed:
        problems.append(f"changed files: {changed}")
    return [f"{_id(case)}: {p}" for p in problems]


def test_cli(corpus, isolated):
    found = [p for case in CASES if case.cli for p in _check_cli(case, corpus, isolated)]
    assert not found, "\n".join(found)


#: Cases run again as real ``python -m dpsynth_core`` processes: a release, a refusal of the data, of the
#: declaration, of the options and of the outputs, a device, and the memory-hungry 20 MB record.
AS_PROCESSES = (
    "a 20 MB record",
    "header only",
    "not JSON",
    "epsilon nan",
    "--out is the input",
    "/dev/zero as the declaration",
)


def test_cli_as_real_processes(corpus):
    cases = [c for c in CASES if c.cli and c.name in AS_PROCESSES]
    assert len(cases) == len(AS_PROCESSES)
    with ThreadPoolExecutor(max_workers=2) as pool:
        found = [p for problems in pool.map(lambda c: _check_cli(c, corpus), cases) for p in problems]
    assert not found, "\n".join(found)


def test_corpus_is_big_and_varied():
    kinds = {c.kind for c in CASES}
    assert len(CASES) >= 150 and kinds == {"csv", "domain", "parameters", "paths", "devices", "parquet", "files"}
    assert len({(c.kind, c.name) for c in CASES}) == len(CASES)
    assert sum(c.cli for c in CASES) >= 50 and sum(c.expect == "ok" for c in CASES) >= 20
