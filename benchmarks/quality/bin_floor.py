"""What a release's bins alone cost on another's cells: a noise-free model of a table over given bins, scored on the
expert's cells and on them moved by half a cell (``benchmarks.quality.declarations``' ``tvd2`` and
``tvd2_shifted``). Not a test.

    python -m benchmarks.quality.bin_floor              # the declarations benchmark's shared and unseen tables, full size
    python -m benchmarks.quality.bin_floor --tables adult6 randhie --seeds 3

A release over bins keeps, at best, each record's bins (every count exact), and draws the values inside a bin from
that bin's values, whatever the record's other columns: the model knows a numeric column's bin, not where in it a
record lies. This benchmark builds that best case from the real table itself: every record keeps its bins, and the
values of each numeric column are shuffled among the records of the same bin (the column's spread inside each bin
exact, its tie to the other columns inside a bin gone). Scored against the real table it is the floor of any release
over those bins, noise aside. Two sets of bins:

* ``publisher``: the bins the default method fits with DP to the publisher's declaration (min and max only), read
  from a release's card (``adaptive_bins``; seed ``--seeds``);
* ``expert``: the expert's 16 equal public bins (:data:`benchmarks.quality.declarations.BINS`).

Scores: ``expert_cells`` and ``shifted_cells``, the mean 2-way TVD on the expert's cells and on those moved by half a
cell, and ``expert_release``, the expert's own release at epsilon 1 on the expert's cells (the denominator of the
declarations benchmark's ratio), from the same seed. Date columns keep their real values (the expert's months are
not bins of a range of numbers here), so the floors are of the numbers only. Results: one JSON line per table and
seed in ``benchmarks/results/bin_floor.jsonl``; figures in docs/benchmarks/quality.md.
"""

from __future__ import annotations

import argparse
import json
import warnings

import numpy as np
import pandas as pd

from benchmarks.common import NUMERIC, results_file
from benchmarks.quality.declarations import TABLES, UNSEEN, expert, publisher, shifted, table
from dpsynth_core import synthesize
from dpsynth_core.domain import as_table_domain
from dpsynth_core.evaluation.metrics import paired_codes, two_way_distances


def shuffled_within(frame: pd.DataFrame, cuts: dict, rng) -> pd.DataFrame:
    """``frame`` with each column of ``cuts`` (column -> the inner edges of its bins, increasing) shuffled among the
    records of each of its bins (missing cells stay where they are)."""
    out = frame.copy()
    for name, inner in cuts.items():
        values = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=float)
        present = np.flatnonzero(~np.isnan(values))
        bins = np.searchsorted(np.asarray(inner, dtype=float), values[present], side="right")
        places = np.argsort(bins, kind="stable")  # the records by bin
        order = np.lexsort((rng.random(len(present)), bins))  # by bin too, at random inside each
        shuffled = values.copy()
        shuffled[present[places]] = values[present[order]]  # each bin's records take its values, shuffled
        out[name] = shuffled
    return out


def publisher_cuts(card: dict, numeric: list) -> dict:
    """The inner edges of the bins a release fitted (its card's ``adaptive_bins``) for the ``numeric`` columns."""
    return {
        b["column"]: np.asarray(b["edges"], dtype=float)
        for b in card.get("adaptive_bins", [])
        if b["column"] in numeric
    }


def expert_cuts(spec: dict, numeric: list) -> dict:
    """The inner edges of the expert's equal public bins of each ``numeric`` column."""
    domain = as_table_domain(expert(spec))
    cuts = {}
    for name in numeric:
        column = domain.columns[name]
        cuts[name] = column.all_edges[1:-1] if column.kind == "float" else np.asarray(column.lows[1:], dtype=float)
    return cuts


def mean_two_way(real: pd.DataFrame, synthetic: pd.DataFrame, cells: dict) -> float:
    two = two_way_distances(paired_codes(real, synthetic, cells)).to_numpy()
    return float(two[np.triu_indices(len(two), k=1)].mean())


def run(name: str, seed: int) -> list[dict]:
    """The two floors of table ``name`` at full size, and the expert's release, at ``seed``."""
    frame, spec = table(name)
    numeric = [c for c, s in spec["columns"].items() if s.get("type") in NUMERIC]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = synthesize(frame, publisher(spec), 1.0, random_state=seed)
        own = synthesize(frame, expert(spec), 1.0, random_state=seed)
    rows, rng = [], np.random.default_rng(seed)
    for style, cuts in (("publisher", publisher_cuts(fitted.card, numeric)), ("expert", expert_cuts(spec, numeric))):
        floor = shuffled_within(frame, cuts, rng)
        rows.append(
            {
                "table": name,
                "seed": seed,
                "bins": style,
                "bins_per_column": {c: len(v) + 1 for c, v in cuts.items()},
                "expert_cells": mean_two_way(frame, floor, expert(spec)),
                "shifted_cells": mean_two_way(frame, floor, shifted(spec)),
                "expert_release": mean_two_way(frame, own.data, expert(spec)),
            }
        )
    return rows


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=[*TABLES, *UNSEEN])
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--out", default="bin_floor", help="results file name under benchmarks/results (replaced)")
    args = parser.parse_args(argv)
    rows = [row for name in args.tables for seed in range(args.seeds) for row in run(name, seed)]
    with results_file(args.out) as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    found = pd.DataFrame(rows)
    shown = found.pivot_table(index="table", columns="bins", values=["expert_cells", "shifted_cells"], sort=False)
    shown[("expert release", "expert cells")] = found.groupby("table", sort=False)["expert_release"].mean()
    print(shown.round(4).to_string())
    return found


if __name__ == "__main__":
    main()
