"""Our synthesizers against AIM and MST from OpenDP 0.16 and SmartNoise 1.0.8 on adult: accuracy, time, memory.

Not a test. The peers are benchmark-only and cannot share one environment (SmartNoise 1.0.8
pins opendp < 0.15 and mbi < 2; OpenDP 0.16 runs on mbi 2.0), so each method runs in its
own subprocess, with the interpreter of the environment that has it:

    python -m venv /path/to/sn-env && /path/to/sn-env/bin/pip install torch==2.13.0 \\
        -r requirements-bench.txt           # SmartNoise (CPU torch first, or pip fetches CUDA)
    python -m venv /path/to/odp-env && /path/to/odp-env/bin/pip install -r requirements-bench-opendp.txt
    python -m benchmarks.peers.smartnoise_opendp --subset6 \\
        --python sn=/path/to/sn-env/bin/python --python odp=/path/to/odp-env/bin/python   # about an hour
    python -m benchmarks.peers.smartnoise_opendp --methods marginals --epsilons 1    # ours alone: 30 s

Methods: any registered name (``marginals``, ``cathist``, ...), and the peers ``sn-aim``,
``sn-mst`` (SmartNoise) and ``odp-aim``, ``odp-mst`` (OpenDP's ``dp.mbi``, on mbi 1.1).
Every method sees the same table: adult encoded over one public declaration (numeric
columns in public bins: age by 5 years, hours by 10, capital gain and loss by 5000,
fnlwgt by 100,000), handed to the peers as integer codes with every code of the declared
domain as a public key (OpenDP) or as categories (SmartNoise). Every method runs at the
same (epsilon, delta): ours with ``delta``; OpenDP with the rho that OpenDP's own conversion
turns into that (epsilon, delta); SmartNoise converts (epsilon, delta) itself.

Scores compare synthetic with real codes: mean and max total variation distance (TVD)
over all 1-way and 2-way marginals, and 1 - mean TVD over all 3-way marginals (score3).
Times are wall-clock for fit + sample in a warm process (the first run's imports are not
counted: a warm-up run on 1,000 rows comes first); the table shows the median over seeds
and scores' means. Peak memory is the worker's resident peak (imports included).
Results go to ``benchmarks/results/`` (not committed); each run replaces the rows of the
methods it ran, so the table can be built up one environment at a time. A peer run in an environment
without it fails with the name of the requirements file to install. Figures: docs/benchmarks/versus-peers.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import (
    RESULTS,
    ROOT,
    SHARED,
    SUBSET6,
    binned_adult_declaration,
    encoded_codes,
    load_codes,
    marginal_scores,
    markdown,
    require,
    save_codes,
)

PEERS = {"sn-aim": "sn", "sn-mst": "sn", "odp-aim": "odp", "odp-mst": "odp"}
#: The requirements file of each peer's environment.
REQUIREMENTS = {"sn": "requirements-bench.txt", "odp": "requirements-bench-opendp.txt"}


def load(columns):
    spec = binned_adult_declaration(columns)
    raw = pd.read_csv(SHARED / "adult.csv", dtype=str, keep_default_na=False)
    if columns:
        raw = raw[columns]
    codes, cells = encoded_codes(raw, spec)
    return spec, raw, codes, cells


# --- one run of each kind of method -----------------------------------------------------


def run_ours(method, raw, spec, codes, cells, eps, delta, seed, options):
    from dpsynth_core import synthesize

    extra = dict(options)
    if method == "marginals":
        extra["delta"] = delta
    release = synthesize(raw, spec, eps, method=method, random_state=seed, **extra)
    return {"": encoded_codes(release.data, spec)[0]}


def run_smartnoise(kind, codes, cells, eps, delta, seed, options):
    Synthesizer = require("snsynth", REQUIREMENTS["sn"]).Synthesizer

    np.random.seed(seed)  # smartnoise draws from numpy's global generator
    model = Synthesizer.create(kind, epsilon=eps, delta=delta, **options)
    model.fit(codes, preprocessor_eps=0.0, categorical_columns=list(codes.columns))
    out = {"": model.sample(len(codes))}
    if kind == "mst":
        data = model.synthesizer.synthetic_data(rows=len(codes), method="sample")
        rows = [tuple(t[1:]) for t in model.undo_compress_fn(data).df.itertuples()]
        out[" (i.i.d.)"] = model._transformer.inverse_transform(rows)
    return {k: v[list(codes.columns)].astype(int) for k, v in out.items()}


def run_opendp(kind, codes, cells, eps, delta, seed, options):
    require("mbi", REQUIREMENTS["odp"])
    require("polars", REQUIREMENTS["odp"])
    jax = require("jax", REQUIREMENTS["odp"])
    jax.config.update("jax_enable_x64", True)  # mbi warns that float32 can stall estimation
    import opendp.prelude as dp
    import polars as pl

    dp.enable_features("contrib")
    np.random.seed(seed)
    rho = options.pop("_rho")  # from the parent: OpenDP's own conversion makes rho-zCDP (eps, delta)-DP
    columns = list(codes.columns)
    context = dp.Context.compositor(
        data=pl.LazyFrame(codes.astype(np.int64)),
        privacy_unit=dp.unit_of(contributions=1),
        privacy_loss=dp.loss_of(rho=rho),
        split_evenly_over=1,
    )
    algorithm = dp.mbi.AIM(**options) if kind == "aim" else dp.mbi.MST(**options)
    table = (
        context.query()
        .select(columns)
        .contingency_table(keys={c: list(range(cells[c])) for c in columns}, algorithm=algorithm)
        .release()
    )
    # OpenDP adds a null key to every column (values outside the keys); the few synthetic nulls
    # are scored as the column's first code
    synthetic = table.synthesize(rows=len(codes)).to_pandas()
    return {"": synthetic[columns].fillna(0).astype(int)}


def worker(opts) -> None:
    warnings.filterwarnings("ignore")
    columns = SUBSET6 if opts.subset6 else None
    method = opts.worker
    if method in PEERS:
        spec, raw = None, None
        codes, cells = load_codes(Path(opts.codes))
    else:
        spec, raw, codes, cells = load(columns)
    options = json.loads(opts.options.get(method, "{}")) if isinstance(opts.options, dict) else {}

    def once(eps, seed, rows=None):
        sub_codes = codes if rows is None else codes.head(rows)
        sub_raw = raw if rows is None or raw is None else raw.head(rows)
        if method in PEERS:
            kind = method.split("-")[1]
            run = run_smartnoise if PEERS[method] == "sn" else run_opendp
            extra = dict(options, _rho=opts.rhos[str(eps)]) if PEERS[method] == "odp" else dict(options)
            return run(kind, sub_codes, cells, eps, opts.delta, seed, extra)
        return run_ours(
            method, sub_raw, spec, sub_codes, cells, eps, opts.delta, None if opts.secure else seed, options
        )

    once(opts.epsilons[0], 0, rows=1000)  # warm-up: imports and first compilations
    for eps in opts.epsilons:
        for seed in range(opts.seeds):
            start, cpu_start = time.perf_counter(), time.process_time()
            outputs = once(eps, seed)
            seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
            for suffix, synthetic in outputs.items():
                row = {
                    "method": method + suffix,
                    "epsilon": eps,
                    "delta": opts.delta,
                    "seed": seed,
                    "seconds": seconds,
                    "cpu_seconds": cpu,
                    **marginal_scores(codes, synthetic, cells),
                    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                }
                print("ROW " + json.dumps(row), flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.3, 1.0, 3.0])
    parser.add_argument(
        "--delta",
        type=float,
        default=1e-10,
        help="delta for every method (default 1e-10: the engine's default rule on adult)",
    )
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument(
        "--methods", nargs="+", default=["marginals", "cathist", "sn-mst", "sn-aim", "odp-mst", "odp-aim"]
    )
    parser.add_argument("--subset6", action="store_true", help="the 6-column subset")
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="ENV=PATH",
        help="interpreter for the peers of one environment: sn=... (SmartNoise), odp=... (OpenDP)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="METHOD=JSON",
        help="keyword options for one method, e.g. sn-aim='{\"rounds\": 40}'",
    )
    parser.add_argument(
        "--seeded",
        dest="secure",
        action="store_false",
        help="our methods from seeded numpy instead of the secure source",
    )
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per method (all runs)")
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--options", type=json.loads, default={}, help=argparse.SUPPRESS)
    parser.add_argument("--codes", help=argparse.SUPPRESS)
    parser.add_argument("--rhos", type=json.loads, default={}, help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    if opts.worker:
        worker(opts)
        return
    pythons = dict(p.split("=", 1) for p in opts.python)
    options = dict(o.split("=", 1) for o in opts.option)
    name = "compare_adult6" if opts.subset6 else "compare_adult15"
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    store = out / f"{name}.csv"
    frame = pd.read_csv(store) if store.exists() else pd.DataFrame()
    codes_file = out / f"{name}.codes.npz"
    if any(m in PEERS for m in opts.methods):  # the peers' workers need neither the library nor its declaration
        save_codes(codes_file, *load(SUBSET6 if opts.subset6 else None)[2:])
    from dpsynth_core.privacy.zcdp import zcdp_budget

    rhos = {str(eps): zcdp_budget(eps, opts.delta) for eps in opts.epsilons}
    for method in opts.methods:
        python = pythons.get(PEERS.get(method, ""), sys.executable)
        command = [
            python,
            "-m",
            __spec__.name,
            "--worker",
            method,
            "--delta",
            str(opts.delta),
            "--seeds",
            str(opts.seeds),
            "--epsilons",
            *map(str, opts.epsilons),
            "--options",
            json.dumps(options),
            "--codes",
            str(codes_file),
            "--rhos",
            json.dumps(rhos),
        ]
        command += (["--subset6"] if opts.subset6 else []) + ([] if opts.secure else ["--seeded"])
        rows, status = [], "done"
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=opts.timeout, cwd=ROOT)
            rows = [json.loads(line[4:]) for line in done.stdout.splitlines() if line.startswith("ROW ")]
            if done.returncode:
                status = "failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]
        except subprocess.TimeoutExpired as exc:
            stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            rows = [json.loads(line[4:]) for line in stdout.splitlines() if line.startswith("ROW ")]
            status = f"timed out after {opts.timeout:.0f} s"
        print(f"{method}: {status} ({len(rows)} runs)", file=sys.stderr, flush=True)
        if rows:
            new = pd.DataFrame(rows)
            if len(frame):
                frame = frame[~frame["method"].isin(new["method"].unique())]
            frame = pd.concat([frame, new], ignore_index=True)
            frame.to_csv(store, index=False)
    if not len(frame):
        return
    grouped = frame.groupby(["method", "epsilon"], sort=False)
    table = grouped.mean(numeric_only=True).drop(columns=["seed", "delta"])
    table["seconds"] = grouped["seconds"].median()
    table["runs"] = grouped.size()
    title = (
        f"adult, {'6-column subset' if opts.subset6 else 'all 15 columns'}, delta = {opts.delta:g}; "
        "scores: mean over runs; seconds: median"
    )
    text = f"## {title}\n\n" + markdown(table.round(4).reset_index()) + "\n"
    print(text)
    (out / f"{name}.md").write_text(text)


if __name__ == "__main__":
    main()
