"""Where the default method's error comes from: an ablation, one part changed at a time. Not a test.

On the integer codes of :mod:`benchmarks.peers.mbi_reference` (the same tables, the same scores), each
variant changes one part of ``marginals`` (module constants or options, restored after) and is
run over several seeds in this process. Three numbers per variant separate the parts:

* ``model``: mean 2-way TVD of the fitted model's own marginals (selection and estimation);
* ``records``: the same for the synthetic records (``records - model``: generation's share);
* ``seconds``: wall time of fit and sample.

    python -m benchmarks.quality.marginals_ablation --tables pums adult6 --seeds 6     # about 5 minutes
    python -m benchmarks.quality.marginals_ablation --tables pums --variants base "rounds 8/col" --epsilon 0.5

Figures: docs/benchmarks/history.md (the variants tried and the ones kept).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import itertools
import time
import warnings

import numpy as np
import pandas as pd

from benchmarks.common import coded_table, scores
from dpsynth_core.synthesizers.marginals import budget, measurements, selection
from dpsynth_core.synthesizers.marginals import synthesizer as M

G = importlib.import_module("dpsynth_core.pgm.generate")  # the module (the package names its function)
#: Where the method's constants are read (a constant imported by name is read where it is imported too).
MODULES = (M, budget, selection, measurements, G)

#: variant -> (module constants to set, options of the synthesizer)
VARIANTS = {
    "base": ({}, {}),
    "no top-up": ({"TOP_UP": False}, {}),
    "1-way share at most 0.3": ({"SMALL_ONE_WAY_SHARE": 0.3}, {}),
    "1-way share at most 0.45": ({"SMALL_ONE_WAY_SHARE": 0.45}, {}),
    "1-way share at most 0.75": ({"SMALL_ONE_WAY_SHARE": 0.75}, {}),
    "1-way noise 0.01 n": ({"ONE_WAY_NOISE": 0.01}, {}),
    "1-way noise 0.025 n": ({"ONE_WAY_NOISE": 0.025}, {}),
    "noisy count": ({}, {"rows": None}),
    "noisy count, AIM 1-way share": ({"SMALL_ONE_WAY_SHARE": 0.0}, {"rows": None}),
    "noisy count, 16 rounds/col": ({"MIN_ROUNDS_PER_COLUMN": 16}, {"rows": None}),
    "3-way candidates <= 5,000 cells": ({"TRIPLE_CELLS": 5000}, {}),
    "3-way candidates <= 50,000 cells": ({"TRIPLE_CELLS": 50000}, {}),
    "2-way candidates only": ({"MIN_CANDIDATE_SIZE": 2}, {}),
    "2-way cands, noisy count": ({"MIN_CANDIDATE_SIZE": 2}, {"rows": None}),
    "rounds 4/col": ({"ROUNDS_PER_COLUMN": 4, "MIN_ROUNDS_PER_COLUMN": 4}, {}),
    "rounds 2/col": ({"ROUNDS_PER_COLUMN": 2, "MIN_ROUNDS_PER_COLUMN": 2}, {}),
    "iid": ({}, {"generation": "iid"}),
    "clique drawn whole": ({"SEQUENTIAL": False}, {}),
    "iterations x5": ({"ROUND_ITERATIONS": 50, "FINAL_ITERATIONS": 750, "FINE_FIT_SIGNAL": 0}, {}),
    "1-way share AIM": ({"SMALL_ONE_WAY_SHARE": 0.0}, {}),
    "rounds 8/col": ({"ROUNDS_PER_COLUMN": 8}, {}),
    "rounds 32/col": ({"ROUNDS_PER_COLUMN": 32, "MIN_ROUNDS_PER_COLUMN": 16}, {}),
    "model 10M cells": ({}, {"max_model_cells": 10_000_000}),
    "select share 0.05": ({"SELECT_SHARE": 0.05}, {}),
    "full iterations always": ({"FINE_FIT_SIGNAL": 0}, {}),
    "fewer iterations always": ({"FINE_FIT_SIGNAL": float("inf")}, {}),
}


@contextlib.contextmanager
def patched(constants: dict):
    """Set module constants wherever they are read (the method's modules and the generation's)."""
    old = {(m, k): getattr(m, k) for k in constants for m in MODULES if hasattr(m, k)}
    for m, k in old:
        setattr(m, k, constants[k])
    try:
        yield
    finally:
        for (m, k), v in old.items():
            setattr(m, k, v)


def run(codes: pd.DataFrame, cells: dict, epsilon: float, seed: int, constants: dict, options: dict) -> dict:
    spec = {
        "columns": {c: {"type": "categorical", "values": list(range(n)), "missing": False} for c, n in cells.items()}
    }
    with patched(constants):
        start = time.perf_counter()
        options = dict(options)
        rows = options.pop("rows", len(codes))
        synth = M.MarginalsSynthesizer(epsilon=epsilon, random_state=seed, delta=1e-9, **options)
        synth.fit(codes, spec, rows=rows)
        synthetic = synth.sample(len(codes)).astype(np.int64)
        seconds = time.perf_counter() - start
    pairs = list(itertools.combinations(list(cells), 2))
    model = synth.model_
    answers = model.project_many(pairs)
    real = {p: codes.groupby(list(p)).size() for p in pairs}
    tvds = []
    for p in pairs:
        truth = np.zeros([cells[a] for a in p])
        index = real[p].index
        truth[tuple(np.asarray(index.get_level_values(i)) for i in range(2))] = real[p].to_numpy()
        fitted = np.clip(answers[p], 0, None)
        tvds.append(0.5 * np.abs(truth / truth.sum() - fitted / fitted.sum()).sum())
    out = scores(codes, synthetic, cells, [])
    return {
        "model": float(np.mean(tvds)),
        "records": out["tvd2"],
        "seconds": seconds,
        "cliques": len(model.tree.cliques),
        "max_clique": max(len(c) for c in model.tree.cliques),
    }


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["pums", "adult6"])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--epsilon", type=float, default=1.0)
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    rows = []
    for table in args.tables:
        codes, cells = coded_table(table, 16)
        for variant in args.variants:
            constants, options = VARIANTS[variant]
            runs = [run(codes, cells, args.epsilon, seed, constants, options) for seed in range(args.seeds)]
            row = {
                "table": table,
                "variant": variant,
                **{k: float(np.mean([r[k] for r in runs])) for k in runs[0]},
                "sd_records": float(np.std([r["records"] for r in runs]) / np.sqrt(len(runs))),
            }
            rows.append(row)
            print(row, flush=True)
    frame = pd.DataFrame(rows)
    print(frame.to_string(index=False, float_format="{:.4g}".format))
    return frame


if __name__ == "__main__":
    main()
