"""Wide tables: a release of the default method on a table of hundreds of columns, beside a 30-column slice of it.

    python -m benchmarks.large.wide                        # 300 columns x 100,000 rows, and its first 30 columns
    python -m benchmarks.large.wide --columns 1500 --rows 20000 --no-slice
    python -m benchmarks.large.wide --columns 300 --rows 100000 --engine duckdb

The table comes from :mod:`benchmarks.tools.make_wide_table` (public column kinds: categorical, integer in
public bins, 5-digit codes as text; blocks of 10 related columns), written under ``/tmp/dpsynth-wide``. Each
release runs as the CLI makes it (``python -m dpsynth_core synth ... --method marginals --epsilon 1``, default
options, no ledger) in a fresh subprocess, timed wall-clock with the peak resident memory of its process tree
(sampled every 50 ms; this process's own, about 0.1 GB, included), the CPU seconds of the release's process
(the figure that stays put when others share the machine) and the machine's load average before and after
(2 shared cores).

Accuracy per column, real against synthetic over the declared cells (integers by their public bins of 10, text
by its values): the 1-way total variation distance of every column, and the 2-way TVD of every pair of the
30-column slice, in both releases (the wide release restricted to the slice's columns), and of every pair inside
a block of the wide table with as many pairs across blocks (related and unrelated pairs). Results go to
``benchmarks/results/wide.json``; figures in ``docs/benchmarks/large-tables.md``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import RESULTS, TreeMemory
from benchmarks.tools.make_wide_table import BLOCK

OUT = Path("/tmp/dpsynth-wide")


def load() -> str:
    return os.getloadavg().__repr__()


def release(data: Path, domain: Path, out: Path, engine: str) -> dict:
    """One CLI release in a subprocess: seconds, CPU seconds (its own: not its helper process for model sizes),
    peak memory (GB), the load before and after, the exit code."""
    argv = [sys.executable, "-m", "dpsynth_core", "synth", str(data), "--domain", str(domain), "--epsilon", "1"]
    argv += ["--method", "marginals", "--engine", engine, "--no-ledger", "--out", str(out)]
    before = os.getloadavg()
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with TreeMemory() as memory:
        done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        print(done.stderr[-2000:], file=sys.stderr)
    return {
        "seconds": round(seconds, 1),
        "cpu_seconds": round(after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime, 1),
        "peak_gb": round(memory.peak / 1e9, 2),
        "load_before": [round(x, 2) for x in before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "exit": done.returncode,
    }


def cells(frame: pd.DataFrame, spec: dict) -> pd.DataFrame:
    """Each value as its declared cell: integers by their public bin of 10, the rest as they are."""
    out = {}
    for name, column in spec["columns"].items():
        values = frame[name]
        if column["type"] == "integer":
            values = (pd.to_numeric(values, errors="coerce") // column.get("bin_width", 1)).astype("Int64").astype(str)
        out[name] = values.astype(str)
    return pd.DataFrame(out)


def coded(real: pd.DataFrame, synthetic: pd.DataFrame) -> tuple[dict, dict, dict]:
    """Both tables' cells as integer codes over their union, per column, and each column's number of codes."""
    a, b, size = {}, {}, {}
    for name in synthetic.columns:
        codes, uniques = pd.factorize(
            pd.concat([real[name], synthetic[name]], ignore_index=True), use_na_sentinel=False
        )
        a[name], b[name], size[name] = codes[: len(real)], codes[len(real) :], len(uniques)
    return a, b, size


def tvd(a: dict, b: dict, size: dict, columns) -> float:
    """Total variation distance between the real (``a``) and synthetic (``b``) marginals of ``columns``."""
    key_a, key_b, cells = 0, 0, 1
    for c in columns:
        key_a, key_b, cells = key_a * size[c] + a[c], key_b * size[c] + b[c], cells * size[c]
    p = np.bincount(key_a, minlength=cells) / len(key_a)
    return float(0.5 * np.abs(p - np.bincount(key_b, minlength=cells) / len(key_b)).sum())


def accuracy(codes, columns, pairs) -> dict:
    one = [tvd(*codes, (c,)) for c in columns]
    two = [tvd(*codes, p) for p in pairs]
    return {
        "tvd1_mean": round(float(np.mean(one)), 4),
        "tvd1_max": round(float(np.max(one)), 4),
        "tvd2_mean": round(float(np.mean(two)), 4) if two else None,
        "tvd2_max": round(float(np.max(two)), 4) if two else None,
        "pairs": len(two),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=300)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--slice", type=int, default=30, help="the narrow release's width (its first columns)")
    parser.add_argument("--no-slice", action="store_true", help="the wide release only")
    parser.add_argument("--no-accuracy", action="store_true")
    parser.add_argument("--engine", default="pandas", choices=("pandas", "duckdb"))
    args = parser.parse_args(argv)
    wide = OUT / f"wide{args.columns}x{args.rows}.csv"
    if not wide.exists():  # in a subprocess, so that this one stays small (its memory counts in the peaks)
        make = [sys.executable, "-m", "benchmarks.tools.make_wide_table", "--columns", str(args.columns)]
        subprocess.run([*make, "--rows", str(args.rows), "--out", str(wide)], check=True)
    spec = json.loads(wide.with_suffix(".domain.json").read_text())
    runs = {"columns": args.columns, "rows": args.rows, "engine": args.engine}
    cases = [("wide", wide, list(spec["columns"]))]
    if not args.no_slice:
        narrow = OUT / f"wide{args.columns}x{args.rows}-first{args.slice}.csv"
        names = list(spec["columns"])[: args.slice]
        pd.read_csv(wide, usecols=names, dtype=str, keep_default_na=False).to_csv(narrow, index=False)
        narrow.with_suffix(".domain.json").write_text(json.dumps({"columns": {n: spec["columns"][n] for n in names}}))
        cases.append(("slice", narrow, names))
    first = list(spec["columns"])[: args.slice]
    slice_pairs = list(itertools.combinations(first, 2))
    for label, data, _ in cases:  # every release first, so the real table is not in memory while they run
        runs[label] = release(data, data.with_suffix(".domain.json"), data.with_suffix(".synthetic.csv"), args.engine)
        print(label, runs[label], flush=True)
    real = None if args.no_accuracy else cells(pd.read_csv(wide, dtype=str, keep_default_na=False), spec)
    for label, data, names in cases:
        out = data.with_suffix(".synthetic.csv")
        if real is None or runs[label]["exit"]:
            continue
        declared = {"columns": {n: spec["columns"][n] for n in names}}
        codes = coded(real, cells(pd.read_csv(out, dtype=str, keep_default_na=False), declared))
        runs[label]["slice_accuracy"] = accuracy(codes, first, slice_pairs)
        if label == "wide":
            rng = np.random.default_rng(0)
            block = {n: i // BLOCK for i, n in enumerate(names)}
            inside = [p for p in itertools.combinations(names, 2) if block[p[0]] == block[p[1]]]
            across = [p for p in itertools.combinations(names, 2) if block[p[0]] != block[p[1]]]
            across = [across[i] for i in rng.choice(len(across), min(len(inside), len(across)), replace=False)]
            runs[label]["related_pairs"] = accuracy(codes, names, inside)
            runs[label]["unrelated_pairs"] = accuracy(codes, names, across)
        print(label, {k: v for k, v in runs[label].items() if "accuracy" in k or "pairs" in k}, flush=True)
        out.unlink()
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"wide{args.columns}.json"
    path.write_text(json.dumps(runs, indent=1))
    print(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
