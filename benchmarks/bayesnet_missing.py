"""Missing cells and marginal distances of ``bayesnet`` releases, against ``marginals``. Not a test.

    python benchmarks/bayesnet_missing.py [--datasets adult,pums] [--epsilons 0.5,1,5] [--seeds 5]
        [--methods bayesnet,marginals] [--out NAME]

Each table is the tests' copy (``tests/datasets``, ``assets/examples``) with the tests' complete
declaration (``tests.conftest.complete_domain``). For each method, epsilon and seed it releases
as many rows as the data has (a public ``rows``, so every release is the same size) and reports,
with the project's metrics (:mod:`dpsynth_core.evaluation.metrics`, both tables encoded over the
declaration):

* per column: the real and the synthetic share of missing cells;
* the mean over columns of the 1-way TVD and the mean over column pairs of the 2-way TVD.

Results (one JSON line per release) go to ``benchmarks/results/NAME.jsonl``; a summary is printed:
per table, method and epsilon, the mean over seeds and its standard error, and the synthetic
missing share of the columns with none in the data.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dpsynth_core import synthesize  # noqa: E402
from dpsynth_core.evaluation.metrics import one_way_distances, paired_codes, two_way_distances  # noqa: E402
from tests.conftest import complete_domain, shared_path  # noqa: E402

DATASETS = ("adult", "compas", "pums", "australian")


def load(name: str):
    frame = pd.read_csv(shared_path(f"{name}.csv"), dtype=str, keep_default_na=False)
    return frame, complete_domain(name)


def missing_shares(pairs) -> dict:
    out = {}
    for name, c in pairs.items():
        if "(missing)" not in c.labels:
            out[name] = (0.0, 0.0)
            continue
        code = c.labels.index("(missing)")
        out[name] = (float(np.mean(c.real == code)), float(np.mean(c.synthetic == code)))
    return out


def one_release(frame, spec, method, epsilon, seed) -> dict:
    start = time.process_time()
    release = synthesize(frame, spec, epsilon, method=method, random_state=seed, rows=len(frame))
    cpu = time.process_time() - start
    pairs = paired_codes(frame, release.data, spec)
    two = two_way_distances(pairs).to_numpy()
    upper = two[np.triu_indices(len(pairs), k=1)]
    return {
        "method": method,
        "epsilon": epsilon,
        "seed": seed,
        "tvd1": float(np.mean(list(one_way_distances(pairs).values()))),
        "tvd2": float(upper.mean()) if upper.size else float("nan"),
        "missing": missing_shares(pairs),
        "cpu_s": cpu,
    }


def standard_error(values) -> float:
    return float(np.std(values, ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")


def summary(rows: list) -> None:
    frame = pd.DataFrame(rows)
    for (table, method, eps), group in frame.groupby(["table", "method", "epsilon"], sort=False):
        n = len(group)
        columns = group["missing"].iloc[0]
        clean = [c for c, (real, _) in columns.items() if real == 0]
        synth = [np.mean([g[c][1] for g in group["missing"]]) for c in clean]
        worst = max(zip(synth, clean)) if clean else (0.0, "-")
        print(
            f"{table:10s} {method:9s} eps {eps:<4g} n={n}  tvd1 {group.tvd1.mean():.4f} ({standard_error(group.tvd1):.4f})"
            f"  tvd2 {group.tvd2.mean():.4f} ({standard_error(group.tvd2):.4f})"
            f"  missing in clean columns: mean {np.mean(synth) if synth else 0:.4f}, max {worst[0]:.4f} ({worst[1]})"
            f"  cpu {group.cpu_s.mean():.1f}s"
        )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--epsilons", default="0.5,1,5")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--methods", default="bayesnet,marginals")
    parser.add_argument("--out", default="bayesnet_missing")
    args = parser.parse_args(argv)
    out = ROOT / "benchmarks" / "results" / f"{args.out}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = []
    with out.open("w") as sink:
        for table in args.datasets.split(","):
            frame, spec = load(table)
            for method in args.methods.split(","):
                for eps in [float(e) for e in args.epsilons.split(",")]:
                    for seed in range(args.seeds):
                        row = {"table": table, **one_release(frame, spec, method, eps, seed)}
                        sink.write(json.dumps(row) + "\n")
                        sink.flush()
                        rows.append(row)
    summary(rows)


if __name__ == "__main__":
    main()
