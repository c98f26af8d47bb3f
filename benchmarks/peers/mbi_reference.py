"""The default method against mbi 2.0's reference AIM and MST: 2-way and 3-way accuracy, time, memory. Not a test.

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

    python -m venv /path/to/mbi-env && /path/to/mbi-env/bin/pip install -r requirements-bench-mbi.txt
    python -m benchmarks.peers.mbi_reference --peer-python /path/to/mbi-env/bin/python \\
        --mechanisms /path/to/mbi/mechanisms            # every table, 3 seeds, epsilon 1: hours
    python -m benchmarks.peers.mbi_reference --methods marginals --tables adult6 pums --seeds 1   # ours: 10 s
    python -m benchmarks.peers.mbi_reference --methods marginals --epsilons 0.5 1 5   # ours: about 2 minutes
    python -m benchmarks.peers.mbi_reference --summary      # the tables of the stored results, nothing run

Tables: ``adult6`` (age, education, sex, relationship, marital-status, income), ``adult15``,
``pums``, ``compas`` (its numeric and categorical columns; the repository's copy, its first 1,000 records,
wherever the script runs) and ``australian`` (wide numeric
ranges: up to 0-200,000). Results go to ``benchmarks/results/versus_aim.csv`` (committed: it caches
the peers' runs, which take minutes to hours, with the date and the versions that made each row),
replacing the rows of the (method, table, epsilon, seed) that ran (``--first-seed 1 --seeds 2`` adds
seeds 1 and 2 beside a stored seed 0); a run that fails or exceeds
``--timeout`` is kept as such (its status says which), so the table states it. Peers run under
``nice -n 10``, one at a time (the machine is shared); a peer's run takes minutes (pums) to more than half
an hour (AIM on wide tables), ours about a second. ``--summary`` prints the table of the stored
results without running anything. Figures: docs/benchmarks/versus-peers.md.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import RESULTS, ROOT, coded_table, load_codes, markdown, save_codes, scores

TABLES = ("adult6", "adult15", "pums", "compas", "australian")
PEERS = ("aim", "mst")


def ours(codes: pd.DataFrame, cells: dict, epsilon: float, delta: float, seed: int) -> tuple[pd.DataFrame, float]:
    """The default method on the codes declared as categorical values (delta as the peers')."""
    from dpsynth_core import synthesize

    spec = {
        "columns": {c: {"type": "categorical", "values": list(range(n)), "missing": False} for c, n in cells.items()}
    }
    start = time.perf_counter()
    release = synthesize(codes, spec, epsilon, method="marginals", random_state=seed, delta=delta, rows=len(codes))
    seconds = time.perf_counter() - start
    return release.data.astype(np.int64), seconds


def worker(args) -> None:
    """One run of ours, in a fresh process: prints one JSON line."""
    warnings.filterwarnings("ignore")
    codes, cells = load_codes(args.codes)
    synthetic, seconds = ours(codes, cells, args.epsilon, args.delta, args.seed)
    save_codes(args.out, synthetic, cells)
    print(json.dumps({"seconds": seconds, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def version(method: str, args) -> str:
    """What made a row: mbi's version for the peers, the checkout's commit for ours."""
    if method in PEERS:
        if not args.peer_python:
            return ""
        done = subprocess.run(
            [args.peer_python, "-c", "import importlib.metadata as m; print(m.version('mbi'))"],
            capture_output=True,
            text=True,
        )
        return f"mbi {done.stdout.strip()}"
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return f"dpsynth {done.stdout.strip()}"


def run_one(method: str, codes_file: Path, args, seed: int, epsilon: float) -> dict:
    out = Path(tempfile.mkdtemp()) / "synthetic.npz"
    common = [
        "--codes",
        str(codes_file),
        "--epsilon",
        str(epsilon),
        "--delta",
        str(args.delta),
        "--seed",
        str(seed),
        "--out",
        str(out),
    ]
    if method in PEERS:
        if not args.peer_python or not args.mechanisms:
            return {"status": "skipped: give --peer-python and --mechanisms"}
        # the mechanisms import one another as top-level modules: their folder goes on the worker's path
        command = ["nice", "-n", "10", args.peer_python, "-m", "benchmarks.peers.mbi_worker", "--method", method]
        env = {**os.environ, "PYTHONPATH": str(Path(args.mechanisms).resolve())}
    else:
        command, env = [sys.executable, "-m", __spec__.name, "--worker"], None
    try:
        done = subprocess.run(command + common, capture_output=True, text=True, timeout=args.timeout, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired:
        return {"status": f"over {args.timeout:g} s"}
    if done.returncode != 0 or not out.exists():
        return {"status": "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1][:120]}
    synthetic, _ = load_codes(out)
    return {"status": "ok", "synthetic": synthetic, **json.loads(done.stdout.strip().splitlines()[-1])}


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=TABLES)
    parser.add_argument("--methods", nargs="+", default=["marginals", "aim", "mst"], choices=("marginals",) + PEERS)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--first-seed", type=int, default=0, help="seeds run: first-seed, ..., first-seed + seeds - 1")
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0])
    parser.add_argument("--delta", type=float, default=1e-9)
    parser.add_argument("--bins", type=int, default=16, help="public equal bins of each numeric range")
    parser.add_argument("--peer-python", help="the interpreter of the mbi 2.0 environment")
    parser.add_argument("--mechanisms", help="folder of the mbi repository's mechanisms/ (aim.py, mst.py)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    parser.add_argument("--out", default=str(RESULTS), help="folder of the results")
    parser.add_argument("--keep", help="folder to keep each run's synthetic codes in (table_method_epsilon_seed.npz)")
    parser.add_argument("--summary", action="store_true", help="print the stored results' table, run nothing")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--epsilon", type=float, default=1.0, help=argparse.SUPPRESS)
    parser.add_argument("--codes", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:  # --out is then the file of synthetic codes
        worker(args)
        return pd.DataFrame()
    out = Path(args.out)
    store = out / "versus_aim.csv"
    if args.summary:
        return summarise(pd.read_csv(store))
    folder = Path(tempfile.mkdtemp())
    versions = {m: version(m, args) for m in args.methods}
    today = datetime.date.today().isoformat()
    for epsilon in args.epsilons:
        for table in args.tables:
            codes, cells = coded_table(table, args.bins)
            names = list(cells)
            codes_file = folder / f"{table}.npz"
            save_codes(codes_file, codes, cells)
            triples = list(itertools.combinations(names, 3))
            if len(triples) > 300:
                triples = [triples[i] for i in np.random.default_rng(0).choice(len(triples), 300, replace=False)]
            for method in args.methods:
                rows = []
                for seed in range(args.first_seed, args.first_seed + args.seeds):
                    result = run_one(method, codes_file, args, seed, epsilon)
                    row = {
                        "table": table,
                        "method": method,
                        "epsilon": epsilon,
                        "seed": seed,
                        "status": result["status"],
                        "date": today,
                        "version": versions[method],
                    }
                    if result["status"] == "ok":
                        row.update(
                            scores(codes, result["synthetic"], cells, triples),
                            seconds=result["seconds"],
                            peak_mb=result["peak_mb"],
                        )
                    rows.append(row)
                    if args.keep and result["status"] == "ok":
                        Path(args.keep).mkdir(parents=True, exist_ok=True)
                        kept = result["synthetic"]
                        np.savez(
                            Path(args.keep) / f"{table}_{method}_{epsilon:g}_{seed}.npz",
                            **{n: kept[n].to_numpy() for n in names},
                        )
                    print(json.dumps(row), flush=True)
                    if result["status"] != "ok":
                        break  # the other seeds would fail or time out the same way
                store_rows(
                    store, pd.DataFrame(rows)
                )  # after every (method, table, epsilon): a long run keeps its parts
    return summarise(pd.read_csv(store))


def store_rows(store: Path, frame: pd.DataFrame) -> None:
    """Replace the stored rows of the (table, method, epsilon, seed) in ``frame`` by its rows."""
    store.parent.mkdir(parents=True, exist_ok=True)
    keys = ["table", "method", "epsilon", "seed"]
    if store.exists():
        old = pd.read_csv(store)
        ran = set(zip(*(frame[k] for k in keys), strict=True))
        old = old[[k not in ran for k in zip(*(old[k] for k in keys), strict=True)]]
        frame = pd.concat([old, frame], ignore_index=True)
    frame.sort_values(["epsilon", "table", "method", "seed"], kind="stable").to_csv(store, index=False)


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """The tables of the docs, failures stated.

    First every (epsilon, table, method): tvd2 and score3 as means over seeds, ``tvd2_sd`` their
    spread (standard deviation over seeds), median seconds, largest peak memory. Then ours against
    each peer where both ran: the difference of mean tvd2 (negative: ours is ahead), whether it
    exceeds the sum of the spreads (``ahead`` / ``behind``; ``level`` otherwise) and ours / peer of
    time and memory.
    """
    ok = frame[frame["status"] == "ok"]
    failed = frame[frame["status"] != "ok"].drop_duplicates(["epsilon", "table", "method"])
    if ok.empty:  # nothing to score: say what failed
        for row in failed.itertuples(index=False):
            print(f"epsilon {row.epsilon:g}, {row.table} / {row.method}: {row.status}")
        return frame
    summary = (
        ok.groupby(["epsilon", "table", "method"], sort=False)
        .agg(
            tvd2=("tvd2", "mean"),
            tvd2_sd=("tvd2", "std"),
            score3=("score3", "mean"),
            seconds=("seconds", "median"),
            peak_mb=("peak_mb", "max"),
            runs=("seed", "count"),
        )
        .reset_index()
    )
    print(markdown(summary, ".4g"))
    for row in failed.itertuples(index=False):
        print(f"epsilon {row.epsilon:g}, {row.table} / {row.method}: {row.status}")
    keyed = summary.set_index(["epsilon", "table", "method"])
    rows = []
    for epsilon, table in summary[["epsilon", "table"]].drop_duplicates().itertuples(index=False):
        for peer in PEERS:
            if (epsilon, table, "marginals") not in keyed.index or (epsilon, table, peer) not in keyed.index:
                continue
            us, them = keyed.loc[(epsilon, table, "marginals")], keyed.loc[(epsilon, table, peer)]
            difference = us["tvd2"] - them["tvd2"]
            spread = np.nan_to_num(us["tvd2_sd"]) + np.nan_to_num(them["tvd2_sd"])
            verdict = "level" if abs(difference) <= spread else ("ahead" if difference < 0 else "behind")
            rows.append(
                {
                    "epsilon": epsilon,
                    "table": table,
                    "peer": peer,
                    "ours - peer (tvd2)": difference,
                    "verdict": verdict,
                    "time ours / peer": us["seconds"] / them["seconds"],
                    "memory ours / peer": us["peak_mb"] / them["peak_mb"],
                    "peer runs": int(them["runs"]),
                }
            )
    if rows:
        print()
        print(markdown(pd.DataFrame(rows), ".4g"))
    return frame


if __name__ == "__main__":
    main()
