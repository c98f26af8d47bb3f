"""Missing cells and marginal distances of ``bayesnet`` (or ``deniability``) releases, against ``marginals``.
Not a test.

    python -m benchmarks.quality.missing_cells [--datasets adult,pums] [--epsilons 0.5,1,5] [--seeds 5]
        [--first-seed 0] [--methods bayesnet,marginals,deniability] [--k 50] [--out NAME] [--append]
        [--tag NAME]
    python -m benchmarks.quality.missing_cells --compare BEFORE.jsonl,AFTER.jsonl

The defaults (four tables, two methods, three epsilons, 5 seeds) take about 3 minutes.

Each table is the tests' copy (``tests/datasets``, ``assets/examples``) with the tests' complete
declaration (``tests.conftest.complete_domain``). For each method, epsilon and seed it releases
as many rows as the data has (a public ``rows``, so every release is the same size) and reports,
with the project's metrics (:mod:`dpsynth_core.evaluation.metrics`, both tables encoded over the
declaration):

* per column: the real and the synthetic share of missing cells;
* the mean over columns of the 1-way TVD and the mean over column pairs of the 2-way TVD;
* the number of rows released (``deniability`` runs ``rows`` candidates and releases those that pass
  its privacy test, with ``k`` plausible seeds, ``--k``; the other methods release ``rows``) and the
  pass rate. A release with no rows has no TVD (``nan``).

``--first-seed``, ``--append`` and ``--tag`` (a label stored with each line, e.g. the commit) let two
versions of the library be run alternately on blocks of seeds into one file, for a paired comparison.

Results (one JSON line per release) go to ``benchmarks/results/NAME.jsonl``; a summary is printed:
per table, method and epsilon, the mean over seeds and its standard error, and the synthetic
missing share of the columns with none in the data. Figures: docs/benchmarks/quality.md.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import results_file
from dpsynth_core import synthesize
from dpsynth_core.evaluation.metrics import one_way_distances, paired_codes, two_way_distances
from tests.conftest import complete_domain, shared_path

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


def one_release(frame, spec, method, epsilon, seed, options=None) -> dict:
    start = time.process_time()
    release = synthesize(frame, spec, epsilon, method=method, random_state=seed, rows=len(frame), **(options or {}))
    cpu = time.process_time() - start
    pairs = paired_codes(frame, release.data, spec)
    empty = len(release.data) == 0
    two = two_way_distances(pairs).to_numpy()
    upper = two[np.triu_indices(len(pairs), k=1)]
    return {
        "method": method,
        "epsilon": epsilon,
        "seed": seed,
        "tvd1": float("nan") if empty else float(np.mean(list(one_way_distances(pairs).values()))),
        "tvd2": float(upper.mean()) if upper.size and not empty else float("nan"),
        "missing": missing_shares(pairs),
        "released": len(release.data),
        "pass_rate": len(release.data) / len(frame),
        "cpu_s": cpu,
    }


def standard_error(values) -> float:
    return float(np.std(values, ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")


def summary(rows: list) -> None:
    frame = pd.DataFrame(rows)
    for (table, method, eps, tag), group in frame.groupby(["table", "method", "epsilon", "tag"], sort=False):
        n = len(group)
        columns = group["missing"].iloc[0]
        clean = [c for c, (real, _) in columns.items() if real == 0]
        synth = [np.mean([g[c][1] for g in group["missing"]]) for c in clean]
        worst = max(zip(synth, clean)) if clean else (0.0, "-")
        print(
            f"{table:10s} {method:9s} {tag} eps {eps:<4g} n={n}  tvd1 {group.tvd1.mean():.4f} ({standard_error(group.tvd1):.4f})"
            f"  tvd2 {group.tvd2.mean():.4f} ({standard_error(group.tvd2):.4f})"
            f"  missing in clean columns: mean {np.mean(synth) if synth else 0:.4f}, max {worst[0]:.4f} ({worst[1]})"
            f"  released {group.released.mean():.0f} (pass {group.pass_rate.mean():.3f})  cpu {group.cpu_s.mean():.1f}s"
        )


def clean_missing(row) -> float:
    """Mean synthetic share of blanks over the columns with none in the data (nan if nothing released)."""
    clean = [synth for real, synth in row["missing"].values() if real == 0]
    return float(np.mean(clean)) if clean and row.get("released", 1) else float("nan")


def compare(paths: list) -> None:
    """Paired differences (second file minus first) over the releases both files hold (same table,
    method, k, epsilon and seed): mean of each and mean difference with its standard error."""
    keys = ["table", "method", "k", "epsilon", "seed"]
    frames = []
    for path in paths:
        frame = pd.DataFrame([json.loads(line) for line in Path(path).read_text().splitlines()])
        frame["k"] = frame["k"] if "k" in frame else None
        frame["clean_missing"] = frame.apply(clean_missing, axis=1)
        frames.append(frame.set_index(keys))
    a, b = frames[0], frames[1].reindex(frames[0].index)
    metrics = ["tvd1", "tvd2", "pass_rate", "released", "clean_missing"]
    for group, rows in a.groupby(level=keys[:4], sort=False):
        line = [f"{group[0]:10s} {group[1]:11s} k={group[2]} eps {group[3]:<3g} n={len(rows)}"]
        for metric in metrics:
            x, y = rows[metric].to_numpy(float), b.loc[rows.index, metric].to_numpy(float)
            d = (y - x)[~np.isnan(y - x)]
            line.append(
                f"{metric} {np.nanmean(x):.4g} -> {np.nanmean(y):.4g} ({np.mean(d) if d.size else np.nan:+.4f}"
                f" se {standard_error(d):.4f}, n={d.size})"
            )
        print("  ".join(line))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--epsilons", default="0.5,1,5")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--methods", default="bayesnet,marginals")
    parser.add_argument("--k", type=int, default=None, help="deniability's k (default: the method's)")
    parser.add_argument("--out", default="bayesnet_missing")
    parser.add_argument("--append", action="store_true")
    parser.add_argument("--tag", default="")
    parser.add_argument("--compare", default=None, help="BEFORE.jsonl,AFTER.jsonl: paired differences only")
    args = parser.parse_args(argv)
    if args.compare:
        compare(args.compare.split(","))
        return
    rows = []
    with results_file(args.out, append=args.append) as sink:
        for table in args.datasets.split(","):
            frame, spec = load(table)
            for method in args.methods.split(","):
                options = {"k": args.k} if method == "deniability" and args.k is not None else {}
                for eps in [float(e) for e in args.epsilons.split(",")]:
                    for seed in range(args.first_seed, args.first_seed + args.seeds):
                        release = one_release(frame, spec, method, eps, seed, options)
                        row = {"table": table, "tag": args.tag, **options, **release}
                        sink.write(json.dumps(row) + "\n")
                        sink.flush()
                        rows.append(row)
    summary(rows)


if __name__ == "__main__":
    main()
