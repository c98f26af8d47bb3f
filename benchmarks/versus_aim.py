"""The default method against mbi 2.0's reference AIM and MST (issue 21, item 3). Not a test.

Every method sees the same table of integer codes: categorical columns by their declared
values (plus "missing" where the declaration allows it), numeric columns in ``--bins`` equal
public bins of their declared range (plus "missing"). Ours receives the codes as categorical
columns with every code declared, so no method fits bins or reads anything beyond the codes.
Each run is a fresh process (its peak resident memory is its own); times are wall-clock for
fit and sample, imports and JAX start-up excluded from ``seconds`` but counted in memory.

Scores compare synthetic with real codes: mean total variation distance over all 2-way
marginals (``tvd2``) and ``score3 = 1 - mean TVD over all 3-way marginals`` (a random sample of
at most 300 triples on wide tables, the same for every method).

The peers run in their own environment (mbi 2.0.0 and JAX: ``requirements-bench-mbi.txt``)
with mbi's reference mechanisms (``mechanisms/aim.py``, ``mst.py``, ``mechanism.py``,
``cdp2adp.py`` of the mbi repository; they are not in the wheel), whose folder is an argument:

    python -m venv /work/benchvenv && /work/benchvenv/bin/pip install -r requirements-bench-mbi.txt
    python benchmarks/versus_aim.py --peer-python /work/benchvenv/bin/python \\
        --mechanisms /path/to/mbi/mechanisms            # every table, 3 seeds, epsilon 1
    python benchmarks/versus_aim.py --methods marginals --tables adult6 pums --seeds 1   # ours alone

Tables: ``adult6`` (age, education, sex, relationship, marital-status, income), ``adult15``,
``pums``, ``compas`` (its numeric and categorical columns) and ``australian`` (wide numeric
ranges: up to 0-200,000). Results go to ``benchmarks/results/versus_aim.csv`` (not committed),
replacing the rows of the (method, table) pairs that ran; a run that fails or exceeds
``--timeout`` is reported as such.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TABLES = ("adult6", "adult15", "pums", "compas", "australian")
SUBSET6 = ["age", "education", "sex", "relationship", "marital-status", "income"]
PEERS = ("aim", "mst")


def coded_table(name: str, bins: int) -> tuple[pd.DataFrame, dict]:
    """The table as integer codes over public cells, and each column's number of cells."""
    from benchmarks.tails import load
    from dpsynth_core.data.encoding import encode_table
    from dpsynth_core.domain import as_table_domain

    frame, spec = load("adult" if name.startswith("adult") else name)
    spec = json.loads(json.dumps(spec))
    if name == "adult6":
        spec["columns"] = {c: spec["columns"][c] for c in SUBSET6}
        frame = frame[SUBSET6]
    for column in spec["columns"].values():
        if column.get("type") in ("integer", "float") and "min" in column and "max" in column:
            width = (float(column["max"]) - float(column["min"])) / bins
            column["bin_width"] = max(1, int(np.ceil(width))) if column["type"] == "integer" else width
    domain = as_table_domain(spec)
    kept = [c for c in domain.kept if domain.kept[c].kind != "text"]
    encoded = encode_table(frame.astype(str).where(frame.notna(), ""), domain)
    codes = pd.DataFrame({c: encoded.columns[c].codes for c in kept})
    return codes, {c: int(encoded.columns[c].cells) for c in kept}


def scores(real: pd.DataFrame, synthetic: pd.DataFrame, cells: dict, triples: list) -> dict:
    def tvd(cols):
        size = int(np.prod([cells[c] for c in cols]))
        a = np.zeros(len(real), dtype=np.int64)
        b = np.zeros(len(synthetic), dtype=np.int64)
        for c in cols:
            a = a * cells[c] + real[c].to_numpy()
            b = b * cells[c] + synthetic[c].to_numpy()
        return 0.5 * np.abs(np.bincount(a, minlength=size) / len(a) - np.bincount(b, minlength=size) / len(b)).sum()

    two = [tvd(p) for p in itertools.combinations(list(cells), 2)]
    return {"tvd2": float(np.mean(two)), "score3": float(1 - np.mean([tvd(t) for t in triples]))}


def ours(codes: pd.DataFrame, cells: dict, epsilon: float, delta: float, seed: int) -> tuple[pd.DataFrame, float]:
    """The default method on the codes declared as categorical values (delta as the peers')."""
    from dpsynth_core import synthesize

    spec = {"columns": {c: {"type": "categorical", "values": list(range(n)), "missing": False}
                        for c, n in cells.items()}}
    start = time.perf_counter()
    release = synthesize(codes, spec, epsilon, method="marginals", random_state=seed, delta=delta,
                         rows=len(codes))
    seconds = time.perf_counter() - start
    return release.data.astype(np.int64), seconds


def worker(args) -> None:
    """One run of ours, in a fresh process: prints one JSON line."""
    warnings.filterwarnings("ignore")
    stored = np.load(args.codes)
    names = [str(n) for n in stored["names"]]
    cells = {n: int(c) for n, c in zip(names, stored["cells"], strict=True)}
    codes = pd.DataFrame({n: stored[f"column_{i}"] for i, n in enumerate(names)})
    synthetic, seconds = ours(codes, cells, args.epsilon, args.delta, args.seed)
    np.savez(args.out, **{f"column_{i}": synthetic[n].to_numpy() for i, n in enumerate(names)})
    print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def run_one(method: str, codes_file: Path, names: list, args, seed: int) -> dict:
    out = Path(tempfile.mkdtemp()) / "synthetic.npz"
    common = ["--codes", str(codes_file), "--epsilon", str(args.epsilon), "--delta", str(args.delta),
              "--seed", str(seed), "--out", str(out)]
    if method in PEERS:
        if not args.peer_python or not args.mechanisms:
            return {"status": "skipped: give --peer-python and --mechanisms"}
        command = [args.peer_python, str(ROOT / "benchmarks" / "mbi_peer.py"), "--mechanisms", args.mechanisms,
                   "--method", method] + common
    else:
        command = [sys.executable, str(Path(__file__).resolve()), "--worker"] + common
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"status": f"over {args.timeout:g} s"}
    if done.returncode != 0 or not out.exists():
        return {"status": "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:120]}
    stored = np.load(out)
    synthetic = pd.DataFrame({n: stored[f"column_{i}"] for i, n in enumerate(names)})
    return {"status": "ok", "synthetic": synthetic, **json.loads(done.stdout.strip().splitlines()[-1])}


def _markdown(frame: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=TABLES)
    parser.add_argument("--methods", nargs="+", default=["marginals", "aim", "mst"], choices=("marginals",) + PEERS)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--delta", type=float, default=1e-9)
    parser.add_argument("--bins", type=int, default=16, help="public equal bins of each numeric range")
    parser.add_argument("--peer-python", help="the interpreter of the mbi 2.0 environment")
    parser.add_argument("--mechanisms", help="folder of the mbi repository's mechanisms/ (aim.py, mst.py)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"), help="folder of the results")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--codes", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:  # --out is then the file of synthetic codes
        worker(args)
        return pd.DataFrame()
    rows = []
    folder = Path(tempfile.mkdtemp())
    for table in args.tables:
        codes, cells = coded_table(table, args.bins)
        names = list(cells)
        codes_file = folder / f"{table}.npz"
        np.savez(codes_file, names=np.array(names), cells=np.array([cells[n] for n in names]),
                 **{f"column_{i}": codes[n].to_numpy() for i, n in enumerate(names)})
        triples = list(itertools.combinations(names, 3))
        if len(triples) > 300:
            triples = [triples[i] for i in np.random.default_rng(0).choice(len(triples), 300, replace=False)]
        for method in args.methods:
            for seed in range(args.seeds):
                result = run_one(method, codes_file, names, args, seed)
                row = {"table": table, "method": method, "seed": seed, "status": result["status"]}
                if result["status"] == "ok":
                    row.update(scores(codes, result["synthetic"], cells, triples), seconds=result["seconds"],
                               peak_mb=result["peak_mb"])
                rows.append(row)
                print(json.dumps(row), flush=True)
                if result["status"] != "ok":
                    break  # the other seeds would fail or time out the same way
    frame = pd.DataFrame(rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = out / "versus_aim.csv"
    if store.exists():
        old = pd.read_csv(store)
        ran = set(zip(frame["table"], frame["method"], strict=True))
        old = old[[(t, m) not in ran for t, m in zip(old["table"], old["method"], strict=True)]]
        frame = pd.concat([old, frame], ignore_index=True)
    frame.to_csv(store, index=False)
    ok = frame[frame["status"] == "ok"]
    summary = ok.groupby(["table", "method"], sort=False).agg(
        tvd2=("tvd2", "mean"), score3=("score3", "mean"), seconds=("seconds", "median"),
        peak_mb=("peak_mb", "max"), runs=("seed", "count")).reset_index()
    failed = frame[frame["status"] != "ok"].drop_duplicates(["table", "method"])
    print(_markdown(summary))
    for row in failed.itertuples(index=False):
        print(f"{row.table} / {row.method}: {row.status}")
    return frame


if __name__ == "__main__":
    main()
