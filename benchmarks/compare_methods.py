"""Compare our synthesizers with smartnoise-synth's MST and AIM on adult.csv (not a test).

Set up once (a separate environment: smartnoise-synth needs pandas 2 and, through opacus,
PyTorch; install the CPU build of torch first or pip fetches several GB of CUDA):

    python -m venv .bench && .bench/bin/pip install torch==2.13.0 -r requirements-bench.txt
    .bench/bin/python benchmarks/compare_methods.py                    # all 15 columns
    .bench/bin/python benchmarks/compare_methods.py --subset6 --with-aim  # the 6-column subset

Every method sees the same table: adult encoded over one public declaration (numeric
columns in public bins: age by 5 years, hours by 10, capital gain and loss by 5000,
fnlwgt by 100,000), handed to MST and AIM as integer codes. Data is read once, then each
method runs in its own forked process (so its peak memory is its own) through every
epsilon and seed. Scores compare synthetic with real codes: mean and max total variation
distance (TVD) over all 1-way and 2-way marginals, and the 3-way marginal score
1 - mean TVD over all 3-way marginals. MST is scored both with its own sampler (rounding)
and sampled i.i.d. from its fitted model.

Note: smartnoise-synth infers each column's categories from the data it is given; here
that only means the codes that occur, which is fine for a benchmark but not DP.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing as mp
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpsynth_core import synthesize  # noqa: E402
from dpsynth_core.domain import TableDomain  # noqa: E402
from dpsynth_core.encoding import encode_table  # noqa: E402

SHARED = ROOT.parent / "shared" / "datasets"
SUBSET6 = ["age", "education", "sex", "relationship", "marital-status", "income"]


def declaration(columns=None) -> dict:
    spec = json.loads((ROOT / "assets" / "examples" / "adult.policy.json").read_text())
    spec["columns"]["fnlwgt"] = {"type": "integer", "min": 1, "max": 2_000_000, "bin_width": 100_000}
    spec["columns"]["age"]["bin_width"] = 5
    spec["columns"]["hours-per-week"]["bin_width"] = 10
    if columns:
        spec["columns"] = {c: spec["columns"][c] for c in columns}
    return spec


def scores(real: pd.DataFrame, synthetic: pd.DataFrame, cells: dict) -> dict:
    names = list(cells)

    def tvd(cols):
        size = int(np.prod([cells[c] for c in cols]))
        a = np.zeros(len(real), dtype=np.int64)
        b = np.zeros(len(synthetic), dtype=np.int64)
        for c in cols:
            a = a * cells[c] + real[c].to_numpy()
            b = b * cells[c] + synthetic[c].to_numpy()
        return 0.5 * np.abs(np.bincount(a, minlength=size) / len(a) - np.bincount(b, minlength=size) / len(b)).sum()

    one = [tvd((c,)) for c in names]
    two = [tvd(p) for p in itertools.combinations(names, 2)]
    three = [tvd(t) for t in itertools.combinations(names, 3)]
    return {"tvd1_mean": np.mean(one), "tvd1_max": np.max(one), "tvd2_mean": np.mean(two),
            "tvd2_max": np.max(two), "score3": 1 - np.mean(three)}


def run_ours(method, raw, spec, codes, cells, eps, seed):
    release = synthesize(raw, spec, eps, method=method, random_state=seed)
    encoded = encode_table(release.data, TableDomain.from_json(spec))
    return {"": pd.DataFrame({n: c.codes for n, c in encoded.columns.items()})}


def run_smartnoise(kind, codes, eps, seed):
    from snsynth import Synthesizer

    np.random.seed(seed)  # smartnoise draws from numpy's global generator
    model = Synthesizer.create(kind, epsilon=eps, delta=1e-9)
    model.fit(codes, preprocessor_eps=0.0, categorical_columns=list(codes.columns))
    out = {"": model.sample(len(codes))}
    if kind == "mst":
        data = model.synthesizer.synthetic_data(rows=len(codes), method="sample")
        rows = [tuple(t[1:]) for t in model.undo_compress_fn(data).df.itertuples()]
        out[" (i.i.d.)"] = model._transformer.inverse_transform(rows)
    return {k: v[list(codes.columns)].astype(int) for k, v in out.items()}


def worker(method, raw, spec, codes, cells, epsilons, seeds, queue):
    warnings.filterwarnings("ignore")
    rows = []
    for eps in epsilons:
        for seed in seeds:
            start = time.perf_counter()
            if method in ("mst", "aim"):
                outputs = run_smartnoise(method, codes, eps, seed)
            else:
                outputs = run_ours(method, raw, spec, codes, cells, eps, seed)
            seconds = time.perf_counter() - start
            for suffix, synthetic in outputs.items():
                rows.append({"method": method + suffix, "epsilon": eps, "seed": seed, "seconds": seconds,
                             **scores(codes, synthetic, cells)})
    queue.put((rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.3, 1.0, 3.0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--methods", nargs="+", default=["cathist", "marginals", "copula", "dirichlet", "mst"])
    parser.add_argument("--subset6", action="store_true", help="the 6-column subset used for the AIM target")
    parser.add_argument("--with-aim", action="store_true", help="add AIM (minutes per run)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    opts = parser.parse_args()
    columns = SUBSET6 if opts.subset6 else None
    spec = declaration(columns)
    raw = pd.read_csv(SHARED / "adult.csv", dtype=str, keep_default_na=False)
    if columns:
        raw = raw[columns]
    encoded = encode_table(raw, TableDomain.from_json(spec))
    codes = pd.DataFrame({n: c.codes for n, c in encoded.columns.items()})
    cells = {n: c.cells for n, c in encoded.columns.items()}
    methods = opts.methods + (["aim"] if opts.with_aim else [])
    results, peaks = [], {}
    context = mp.get_context("fork")
    for method in methods:
        queue = context.Queue()
        proc = context.Process(target=worker, args=(method, raw, spec, codes, cells, opts.epsilons,
                                                    range(opts.seeds), queue))
        proc.start()
        rows, peak = queue.get()
        proc.join()
        results += rows
        peaks[method] = peak
        print(f"{method}: done ({peak:.0f} MB peak)", file=sys.stderr, flush=True)
    frame = pd.DataFrame(results)
    frame["peak_mb"] = frame["method"].str.split(" ").str[0].map(peaks)
    table = frame.groupby(["method", "epsilon"], sort=False).mean(numeric_only=True).drop(columns="seed")
    title = f"adult, {'6-column subset' if columns else 'all 15 columns'}, mean of {opts.seeds} seeds"
    text = f"## {title}\n\n" + table.round(4).to_markdown() + "\n"
    print(text)
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    name = "compare_adult6" if columns else "compare_adult15"
    (out / f"{name}.md").write_text(text)
    frame.to_csv(out / f"{name}.csv", index=False)


if __name__ == "__main__":
    main()
