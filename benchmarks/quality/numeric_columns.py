"""Numeric columns declared with only min and max: do they keep their shape? Not a test.

    python -m benchmarks.quality.numeric_columns              # marginals, epsilon 1, 3 seeds: about a minute
    python -m benchmarks.quality.numeric_columns --method cathist --epsilon 0.5 --seeds 5
    python -m benchmarks.quality.numeric_columns --secure     # also time releases on the secure path

On the shared adult.csv, three declarations are released with the same method, epsilon and
seeds:

* ``min/max only``: the shared adult.domain.json as a publisher would complete it (fnlwgt
  max 2,000,000 and capital-loss max 99,999, as tests/conftest.py supplies), so age,
  education-num, fnlwgt, capital-gain, capital-loss and hours-per-week have a public
  range and no bins: the release chooses their bins (data-adaptive bins paid for with DP,
  see :mod:`dpsynth_core.privacy.binning`);
* ``default bins``: the same, with today's fixed default bins written out (one bin per
  value up to 120 values, else a 1-2-5 width giving at most 50 bins): what a min/max
  declaration gave before adaptive bins, so "before" can be rerun on any version;
* ``hand-made bins``: :func:`benchmarks.common.binned_adult_declaration` (the bundled
  policy assets/examples/adult.policy.json, age in 5-year and hours in 10-hour bins,
  fnlwgt in bins of 100,000).

Scores, per seed, then averaged: the total variation distance (TVD) between the real and
synthetic distributions of exact integer values per numeric column (missing counted as one
value); the share of zeros in capital-gain and capital-loss and of 40 in hours-per-week; the
mean 1- and 2-way TVD over the 15 columns scored on those hand-made public bins
(so every declaration is scored on the same cells); and the wall time of the release
(seeded numpy noise; with --secure also one release per declaration on the secure path,
after a warm-up release that loads OpenDP). Figures: docs/benchmarks/quality.md.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
import pandas as pd

from benchmarks.common import SHARED, adult_declaration, binned_adult_declaration, encoded_codes, marginal_scores
from dpsynth_core import constraints, synthesize
from dpsynth_core.domain import TableDomain

NUMERIC = ["age", "education-num", "fnlwgt", "capital-gain", "capital-loss", "hours-per-week"]
TARGETS = ["age", "education-num", "capital-gain", "capital-loss", "hours-per-week"]


def _old_default_width(low: int, high: int) -> int:
    """The fixed default bin width before adaptive bins (what a min/max declaration gave before them)."""
    size = high - low + 1
    if size <= 120:
        return 1
    raw = size / 50
    exponent = math.floor(math.log10(raw))
    for step in (1, 2, 5, 10):
        width = step * 10.0**exponent
        if width >= raw:
            break
    return max(1, int(round(width)))


def default_bins_declaration() -> dict:
    spec = adult_declaration()
    for name in NUMERIC:
        column = spec["columns"][name]
        column["bin_width"] = _old_default_width(column["min"], column["max"])
    return spec


DECLARATIONS = {
    "min/max only": adult_declaration,
    "default bins": default_bins_declaration,
    "hand-made bins": binned_adult_declaration,
}


def value_tvd(real: pd.Series, synthetic: pd.Series) -> float:
    """TVD between the distributions of exact values (integers; missing is one more value)."""
    a = pd.to_numeric(real, errors="coerce").round().astype("Int64").astype(str).value_counts(normalize=True)
    b = pd.to_numeric(synthetic, errors="coerce").round().astype("Int64").astype(str).value_counts(normalize=True)
    both = a.index.union(b.index)
    return float(0.5 * np.abs(a.reindex(both, fill_value=0) - b.reindex(both, fill_value=0)).sum())


def share(series: pd.Series, value: int) -> float:
    return float((pd.to_numeric(series, errors="coerce") == value).mean())


def run(raw: pd.DataFrame, label: str, method: str, epsilon: float, seed, codes, cells, score_domain) -> dict:
    spec = DECLARATIONS[label]()
    start = time.perf_counter()
    release = synthesize(raw, spec, epsilon, method=method, random_state=seed)
    seconds = time.perf_counter() - start
    synthetic = release.data
    row = {"declaration": label, "seed": seed, "seconds": seconds}
    for name in NUMERIC:
        if name in synthetic:
            row[f"tvd {name}"] = value_tvd(raw[name], synthetic[name])
    for name, value in (("capital-gain", 0), ("capital-loss", 0), ("hours-per-week", 40)):
        row[f"{name}={value} real"] = share(raw[name], value)
        row[f"{name}={value} synthetic"] = share(synthetic[name], value)
    scored, _ = encoded_codes(synthetic.reindex(columns=raw.columns, fill_value=""), score_domain)
    row.update(marginal_scores(codes, scored, cells))
    bins = release.card.get("adaptive_bins") or []
    row["bins found"] = ", ".join(f"{b['column']}:{len(b['edges'])}" for b in bins)
    row["epsilon on bins"] = sum(b["epsilon"] for b in bins)
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="marginals")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument(
        "--secure",
        action="store_true",
        help="also time one release per declaration on the secure (OpenDP, unseeded) path",
    )
    parser.add_argument("--declarations", nargs="+", default=list(DECLARATIONS), choices=list(DECLARATIONS))
    opts = parser.parse_args(argv)
    raw = pd.read_csv(SHARED / "adult.csv", dtype=str, keep_default_na=False)
    score_domain = TableDomain.from_json(binned_adult_declaration())
    codes, cells = encoded_codes(raw, score_domain)
    rows = []
    if opts.secure:  # the first secure release loads OpenDP's library: keep that out of the timings
        synthesize(raw.head(200), adult_declaration(), opts.epsilon, method=opts.method)
    for label in opts.declarations:
        seeds = list(range(opts.seeds)) + ([None] if opts.secure else [])
        for seed in seeds:
            rows.append(run(raw, label, opts.method, opts.epsilon, seed, codes, cells, score_domain))
            print(f"{label}, seed {seed}: {rows[-1]['seconds']:.2f} s", file=sys.stderr, flush=True)
    frame = pd.DataFrame(rows)
    seeded = frame[frame["seed"].notna()]
    numeric = seeded.drop(columns=["seed", "bins found"]).groupby("declaration", sort=False).mean()
    if opts.secure:
        numeric["seconds (secure)"] = frame[frame["seed"].isna()].groupby("declaration", sort=False)["seconds"].mean()
    print(
        f"## adult.csv, {opts.method}, epsilon {opts.epsilon:g}, mean of {opts.seeds} seeds "
        f"(binning share {getattr(constraints, 'BINNING_SHARE', 0):g})\n"
    )
    table = numeric.T
    table.index.name = "score"
    print(table.to_string(float_format=lambda v: f"{v:.4f}"))
    print("\nbins found per seed:")
    for _, row in seeded.iterrows():
        if row["bins found"]:
            print(f"  {row['declaration']}, seed {row['seed']}: {row['bins found']}")


if __name__ == "__main__":
    main()
