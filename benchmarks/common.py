"""What the benchmarks share: where the tables are, the declarations they release with, the tables as integer
codes and their marginal scores, the memory sampler, the app's server for the browser benchmarks, and the
check for the optional peers.

This module imports only the standard library, numpy and pandas at the top (the library lazily), so the
peers' workers can import it in their own environments (``requirements-bench*.txt``).
"""

from __future__ import annotations

import functools
import importlib
import itertools
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
#: The shared public tables (``shared/datasets``), looked for beside the checkout or above it, so that a git
#: worktree checked out below another folder reads the same tables as the main checkout.
SHARED = next(
    (p / "shared" / "datasets" for p in ROOT.parents if (p / "shared" / "datasets").is_dir()),
    ROOT.parent / "shared" / "datasets",
)
#: Public tables only the benchmarks read (statsmodels' public-domain datasets), each beside the declaration a
#: publisher wrote from its documentation (``benchmarks/datasets/README.md``).
DATASETS = ROOT / "benchmarks" / "datasets"
#: Where the benchmarks write their results (not committed, but for the peers' cache ``versus_aim.csv``).
RESULTS = ROOT / "benchmarks" / "results"
#: The bundled example's saved policy: numeric columns in public 1-2-5 bins.
ADULT_POLICY = ROOT / "assets" / "examples" / "adult.policy.json"
#: The 6-column subset of adult that the comparisons with the peers use.
SUBSET6 = ["age", "education", "sex", "relationship", "marital-status", "income"]
#: Declared as text (generator "any") in the large tables, so that their benchmarks exercise value counts.
LARGE_TEXT_COLUMNS = ("native-country",)


def results_file(name: str, *, append: bool = False):
    """A run's results file, ``benchmarks/results/NAME.jsonl`` (one JSON line per release), open for writing: a
    rerun with the same name replaces it (``append``: adds to it)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    return open(RESULTS / f"{name}.jsonl", "a" if append else "w")


def require(module: str, requirements: str):
    """Import an optional peer, or stop with a message naming the requirements file that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise SystemExit(
            f"{module} is missing: this part runs in an environment made from {requirements}, a benchmark-only "
            f"peer (python -m venv ENV && ENV/bin/pip install -r {requirements}, then ENV/bin/python; here: {exc})"
        ) from None


# --- declarations -------------------------------------------------------------------------------


def adult_declaration() -> dict:
    """The shared ``adult.domain.json`` with the public bounds a publisher supplies (as ``tests/conftest.py``):
    fnlwgt at most 2,000,000 and capital-loss at most 99,999; numeric columns by ``min`` and ``max`` only."""
    spec = json.loads((SHARED / "adult.domain.json").read_text())
    spec["columns"]["fnlwgt"]["max"] = 2_000_000
    spec["columns"]["capital-loss"]["max"] = 99_999
    return spec


def binned_adult_declaration(columns=None) -> dict:
    """The bundled policy with every numeric column in public bins (age by 5 years, hours by 10, capital gain
    and loss by 5,000, fnlwgt by 100,000): the cells the comparisons with the peers score on."""
    spec = json.loads(ADULT_POLICY.read_text())
    spec["columns"]["fnlwgt"] = {"type": "integer", "min": 1, "max": 2_000_000, "bin_width": 100_000}
    spec["columns"]["age"]["bin_width"] = 5
    spec["columns"]["hours-per-week"]["bin_width"] = 10
    if columns:
        spec["columns"] = {c: spec["columns"][c] for c in columns}
    return spec


def large_declaration() -> dict:
    """The declaration of the large resampled tables: :func:`adult_declaration`, native-country as text."""
    spec = adult_declaration()
    for name in LARGE_TEXT_COLUMNS:
        spec["columns"][name] = {"type": "text", "generator": "any", "size": 1000}
    return spec


# --- tables -------------------------------------------------------------------------------------

NUMERIC = ("integer", "float")


@functools.cache
def load_table(name: str, *, repository_copy: bool = False) -> tuple[pd.DataFrame, dict]:
    """A shared table with the tests' declaration (``tests/conftest.py``), compas without its text and dates.

    The whole table from ``shared/datasets`` where it lies beside the checkout; ``repository_copy``: the copy in
    this repository (``tests/datasets/``: compas's first 1,000 records) whatever lies beside the checkout, so
    that anyone who clones it reads the same table. A table of :data:`DATASETS` (``randhie``, ``anes96``,
    ``modechoice``) is read from there with its declaration as written. Loaded once per process: callers copy
    what they change."""
    if (DATASETS / f"{name}.domain.json").exists():
        return pd.read_csv(DATASETS / f"{name}.csv"), json.loads((DATASETS / f"{name}.domain.json").read_text())
    from tests.conftest import complete_domain, shared_path

    spec = complete_domain(name)
    whole = SHARED / f"{name}.csv"
    frame = pd.read_csv(whole if whole.exists() and not repository_copy else shared_path(f"{name}.csv"))
    if name == "compas":
        keep = [
            c
            for c, d in spec["columns"].items()
            if d.get("type") in NUMERIC + ("categorical",) and frame[c].notna().any()
        ]
        spec["columns"] = {c: spec["columns"][c] for c in keep}
        frame = frame[keep]
    return frame, spec


def encoded_codes(frame: pd.DataFrame, declaration) -> tuple[pd.DataFrame, dict]:
    """The table's integer codes over the declaration's cells, and each column's number of cells."""
    from dpsynth_core.data.encoding import encode_table
    from dpsynth_core.domain import TableDomain

    domain = TableDomain.from_json(declaration) if isinstance(declaration, dict) else declaration
    encoded = encode_table(frame, domain)
    return (
        pd.DataFrame({n: c.codes for n, c in encoded.columns.items()}),
        {n: c.cells for n, c in encoded.columns.items()},
    )


def coded_table(name: str, bins: int) -> tuple[pd.DataFrame, dict]:
    """A shared table as integer codes over public cells, and each column's number of cells: categorical
    columns by their declared values (plus "missing" where declared), numeric ranges in ``bins`` equal
    public bins. ``adult6`` is adult's :data:`SUBSET6`, ``adult15`` the whole of adult; every table is the
    repository's copy (compas: its first 1,000 records)."""
    from dpsynth_core.data.encoding import encode_table
    from dpsynth_core.domain import as_table_domain

    frame, spec = load_table("adult" if name.startswith("adult") else name, repository_copy=True)
    spec = json.loads(json.dumps(spec))
    if name == "adult6":
        spec["columns"] = {c: spec["columns"][c] for c in SUBSET6}
        frame = frame[SUBSET6]
    for column in spec["columns"].values():
        if column.get("type") in NUMERIC and "min" in column and "max" in column:
            width = (float(column["max"]) - float(column["min"])) / bins
            column["bin_width"] = max(1, int(np.ceil(width))) if column["type"] == "integer" else width
    domain = as_table_domain(spec)
    kept = [c for c in domain.kept if domain.kept[c].kind != "text"]
    encoded = encode_table(frame.astype(str).where(frame.notna(), ""), domain)
    codes = pd.DataFrame({c: encoded.columns[c].codes for c in kept})
    return codes, {c: int(encoded.columns[c].cells) for c in kept}


def save_codes(path: Path, codes: pd.DataFrame, cells: dict) -> None:
    """Integer codes and cell counts in one ``.npz`` file, for workers in other environments (which then need
    neither the library nor its declaration): ``names``, ``cells`` and one ``column_i`` array per column."""
    names = list(cells)
    np.savez(
        path,
        names=np.array(names),
        cells=np.array([cells[n] for n in names]),
        **{f"column_{i}": codes[n].to_numpy() for i, n in enumerate(names)},
    )


def load_codes(path: Path) -> tuple[pd.DataFrame, dict]:
    """The codes and cell counts that :func:`save_codes` wrote."""
    stored = np.load(path)
    names = [str(n) for n in stored["names"]]
    cells = {n: int(c) for n, c in zip(names, stored["cells"])}
    return pd.DataFrame({n: stored[f"column_{i}"] for i, n in enumerate(names)}), cells


# --- scores -------------------------------------------------------------------------------------


def marginal_tvd(real: pd.DataFrame, synthetic: pd.DataFrame, cells: dict, columns) -> float:
    """Total variation distance between the real and synthetic marginals of ``columns`` (integer codes)."""
    size = int(np.prod([cells[c] for c in columns]))
    a = np.zeros(len(real), dtype=np.int64)
    b = np.zeros(len(synthetic), dtype=np.int64)
    for c in columns:
        a = a * cells[c] + real[c].to_numpy()
        b = b * cells[c] + synthetic[c].to_numpy()
    return 0.5 * np.abs(np.bincount(a, minlength=size) / len(a) - np.bincount(b, minlength=size) / len(b)).sum()


def scores(real: pd.DataFrame, synthetic: pd.DataFrame, cells: dict, triples: list) -> dict:
    """``tvd2``, the mean 2-way TVD over every pair of columns, and ``score3``, 1 - the mean 3-way TVD over
    ``triples``."""
    two = [marginal_tvd(real, synthetic, cells, p) for p in itertools.combinations(list(cells), 2)]
    three = [marginal_tvd(real, synthetic, cells, t) for t in triples]
    return {"tvd2": float(np.mean(two)), "score3": float(1 - np.mean(three))}


def marginal_scores(real: pd.DataFrame, synthetic: pd.DataFrame, cells: dict) -> dict:
    """Mean and largest TVD over every 1-way and 2-way marginal, and ``score3`` over every 3-way marginal."""
    names = list(cells)
    one = [marginal_tvd(real, synthetic, cells, (c,)) for c in names]
    two = [marginal_tvd(real, synthetic, cells, p) for p in itertools.combinations(names, 2)]
    three = [marginal_tvd(real, synthetic, cells, t) for t in itertools.combinations(names, 3)]
    return {
        "tvd1_mean": float(np.mean(one)),
        "tvd1_max": float(np.max(one)),
        "tvd2_mean": float(np.mean(two)),
        "tvd2_max": float(np.max(two)),
        "score3": float(1 - np.mean(three)),
    }


def markdown(frame: pd.DataFrame, float_format: str = "g", *, index: bool = False) -> str:
    """A GitHub table of ``frame`` (no optional dependency); floats by ``float_format``."""
    if index:
        frame = frame.reset_index()
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    lines += [
        "| " + " | ".join(format(v, float_format) if isinstance(v, float) else str(v) for v in row) + " |"
        for row in frame.itertuples(index=False)
    ]
    return "\n".join(lines)


# --- memory -------------------------------------------------------------------------------------


class TreeMemory:
    """Peak resident memory (bytes) of this process and all its descendants, sampled in a thread (Linux)."""

    def __init__(self, interval: float = 0.05):
        self.peak, self.interval, self._stop = 0, interval, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        page = os.sysconf("SC_PAGE_SIZE")
        me = os.getpid()
        while not self._stop.is_set():
            parents, rss = {}, {}
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry}/stat") as handle:
                        fields = handle.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                parents[int(entry)] = int(fields[1])
                rss[int(entry)] = int(fields[21]) * page
            tree, grew = {me}, True
            while grew:
                more = {p for p, parent in parents.items() if parent in tree} - tree
                grew, tree = bool(more), tree | more
            self.peak = max(self.peak, sum(rss.get(p, 0) for p in tree))
            self._stop.wait(self.interval)


# --- the app in a browser -----------------------------------------------------------------------

#: The flags Debian's Chromium runs with here (the browser benchmarks and the browser tests).
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(url: str, port: int, env: dict, profile: str | None = None) -> subprocess.Popen:
    """``streamlit run app.py`` headless on the loopback interface, returned once ``url`` answers its health
    check; ``profile``: sample it with py-spy into that file."""
    spy = ["py-spy", "record", "--format", "raw", "--threads", "--rate", "200", "-o", profile, "--"] if profile else []
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true"]
    server = subprocess.Popen([*spy, *command], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return server
        except OSError:
            if server.poll() is not None:
                raise SystemExit("the server stopped before answering") from None
            time.sleep(0.1)
