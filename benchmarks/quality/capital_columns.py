"""The bundled Adult example's capital-gain and capital-loss, seed by seed: shares of 0 and means. Not a test.

    python -m benchmarks.quality.capital_columns                 # epsilon 1, seeds 0-19: about a minute
    python -m benchmarks.quality.capital_columns --seeds 12 --first 20 --epsilon 1

Releases assets/examples/adult.csv with its saved policy and the default method, and prints per seed
the synthetic share of 0 minus the real one (points) and the synthetic mean against the real one
(percent) for both columns, with the mean 2-way TVD over every pair of columns scored on the
policy's own cells; then how many seeds keep the share of 0 within 5 points and the mean within 25%.
The test ``test_the_adult_example_keeps_the_zeros_and_means_of_capital_gain_and_loss`` runs 4 seeds.
Figures: docs/benchmarks/quality.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from benchmarks.common import encoded_codes, marginal_scores
from dpsynth_core.data.examples import example_csv, example_declaration
from dpsynth_core.domain import TableDomain
from dpsynth_core.release import synthesize

COLUMNS = ("capital-gain", "capital-loss")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--first", type=int, default=0, help="the first seed")
    args = parser.parse_args(argv)
    real = pd.read_csv(example_csv("adult"), skipinitialspace=True)
    spec = example_declaration("adult")
    domain = TableDomain.from_json(spec)
    raw = pd.read_csv(example_csv("adult"), dtype=str, keep_default_na=False, skipinitialspace=True)
    codes, cells = encoded_codes(raw, domain)
    rows = []
    for seed in range(args.first, args.first + args.seeds):
        start = time.perf_counter()
        synthetic = synthesize(example_csv("adult"), spec, args.epsilon, random_state=seed).data
        row = {"seed": seed, "seconds": round(time.perf_counter() - start, 1)}
        for column in COLUMNS:
            r, s = (pd.to_numeric(t[column], errors="coerce") for t in (real, synthetic))
            row[f"{column} zero pts"] = round(100 * ((s == 0).mean() - (r == 0).mean()), 2)
            row[f"{column} mean %"] = round(100 * (s.mean() / r.mean() - 1), 1)
        scored, _ = encoded_codes(synthetic.astype(str).reindex(columns=raw.columns, fill_value=""), domain)
        row["tvd2"] = marginal_scores(codes, scored, cells)["tvd2_mean"]
        rows.append(row)
        print(row, flush=True)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    for column in COLUMNS:
        zero = int((table[f"{column} zero pts"].abs() <= 5).sum())
        mean = int((table[f"{column} mean %"].abs() <= 25).sum())
        print(f"{column}: share of 0 within 5 points in {zero}/{len(table)}, mean within 25% in {mean}/{len(table)}")
    print(f"mean 2-way TVD {table['tvd2'].mean():.5f} (sd {np.std(table['tvd2'], ddof=1):.5f})")


if __name__ == "__main__":
    main()
