"""Small tables and tails: out-of-range rows, and the 2-way TVD against the sampling floor.

Not a test. For each shared table (``shared/datasets`` beside the checkout, else the tests' copies, with
the declarations of ``tests/conftest.py``: numeric columns declared by ``min`` and ``max`` only, so their bins are
fitted with DP), a subsample of ``n`` rows (1,000 and 5,000; a smaller table is used whole)
is released with ``marginals`` at epsilon 1, and compared with the subsample it came from:

* ``outside``: the share of synthetic rows with at least one numeric value outside the range
  of the real subsample (a publisher-side check: the real range is never shown to the method);
* ``empty_bins``: the share of synthetic rows with a value in one of the release's DP bins that
  holds no real record (the model's part of ``outside``; the rest comes from how values spread
  inside a bin, :mod:`dpsynth_core.privacy.binning`);
* ``tvd2``: mean total variation distance over every pair of columns, on evaluation cells
  fitted to the real subsample (numeric: its deciles, plus one cell below and one above its
  range, so values outside the real range count as errors; text: its 20 commonest values
  and "other");
* ``floor``: the same distance between the real subsample and another real sample of the
  same size (disjoint from it when the table has ``2n`` rows, else drawn with replacement
  from the whole table): what an ideal synthesizer's sampling alone would cost;
* ``ratio``: ``tvd2 / floor``.

    python -m benchmarks.quality.small_tables     # every table, n = 1000 and 5000, 3 seeds: about a minute
    python -m benchmarks.quality.small_tables --tables adult pums --sizes 1000 --seeds 1

Compas keeps its numeric and categorical columns (its names, case numbers, dates and free
text are left out: they are not what this measures). Figures: docs/benchmarks/quality.md.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import time
import warnings

import numpy as np
import pandas as pd

from benchmarks.common import NUMERIC, load_table

TABLES = ("adult", "australian", "breast_cancer", "ce", "compas", "diabetes", "pums")


def numeric_columns(spec: dict) -> list[str]:
    return [c for c, d in spec["columns"].items() if d.get("type") in NUMERIC]


def outside_share(real: pd.DataFrame, synthetic: pd.DataFrame, spec: dict) -> tuple[float, dict]:
    """Share of synthetic rows with a numeric value outside the real range, overall and per column."""
    any_out = np.zeros(len(synthetic), dtype=bool)
    per = {}
    for c in numeric_columns(spec):
        values = pd.to_numeric(real[c], errors="coerce")
        fake = pd.to_numeric(synthetic[c], errors="coerce").to_numpy(dtype=float)
        low, high = values.min(), values.max()
        out = (fake < low) | (fake > high)
        per[c] = float(out.mean())
        any_out |= out
    return float(any_out.mean()), per


def empty_bin_share(real: pd.DataFrame, synthetic: pd.DataFrame, adaptive: list) -> float:
    """Share of synthetic rows with a value in a DP-fitted bin (the card's ``adaptive_bins``) that holds
    no real record: the part of ``outside`` that comes from the model's cells, not from how values
    spread inside a bin."""
    hit = np.zeros(len(synthetic), dtype=bool)
    for found in adaptive:
        c, edges = found["column"], np.asarray(found["edges"])
        if edges.dtype.kind not in "if":  # dates: not measured here
            continue
        real_bins = np.searchsorted(edges, pd.to_numeric(real[c], errors="coerce").dropna(), side="right")
        fake = pd.to_numeric(synthetic[c], errors="coerce").to_numpy(dtype=float)
        fake_bins = np.searchsorted(edges, fake, side="right")
        hit |= ~np.isnan(fake) & ~np.isin(fake_bins, np.unique(real_bins))
    return float(hit.mean())


def evaluation_codes(real: pd.DataFrame, tables: list, spec: dict) -> tuple[list, dict]:
    """Codes of each table over cells fitted to ``real`` (publisher-side evaluation only)."""
    coded = [dict() for _ in tables]
    cells = {}
    for c, d in spec["columns"].items():
        if d.get("type") == "drop":
            continue
        if d.get("type") in NUMERIC:
            values = pd.to_numeric(real[c], errors="coerce").dropna().to_numpy(dtype=float)
            edges = np.unique(np.quantile(values, np.linspace(0, 1, 11))) if len(values) else np.array([0.0])
            inner = edges[1:-1]
            for out, table in zip(coded, tables, strict=True):
                x = pd.to_numeric(table[c], errors="coerce").to_numpy(dtype=float)
                code = 1 + np.searchsorted(inner, x, side="right")  # 1 .. len(inner) + 1
                code = np.where(x < edges[0], 0, np.where(x > edges[-1], len(inner) + 2, code))
                out[c] = np.where(np.isnan(x), len(inner) + 3, code)
            cells[c] = len(inner) + 4
        else:
            labels = real[c].astype(str).where(real[c].notna(), "\x00")
            top = labels.value_counts().index[:20].tolist()
            index = {v: i for i, v in enumerate(top)}
            for out, table in zip(coded, tables, strict=True):
                lab = table[c].astype(str).where(table[c].notna(), "\x00")
                out[c] = lab.map(index).fillna(len(top)).to_numpy(dtype=np.int64)
            cells[c] = len(top) + 1
    return coded, cells


def mean_two_way(a: dict, b: dict, cells: dict) -> float:
    names = list(cells)
    out = []
    for x, y in itertools.combinations(names, 2):
        size = cells[x] * cells[y]
        pa = np.bincount(a[x] * cells[y] + a[y], minlength=size) / len(a[x])
        pb = np.bincount(b[x] * cells[y] + b[y], minlength=size) / len(b[x])
        out.append(0.5 * np.abs(pa - pb).sum())
    return float(np.mean(out))


def run(table: str, n: int, seed: int, epsilon: float, method: str, options: dict) -> dict:
    from dpsynth_core import synthesize

    frame, spec = load_table(table)
    spec = copy.deepcopy(spec)
    rng = np.random.default_rng(1000 + seed)
    size = min(n, len(frame))
    order = rng.permutation(len(frame))
    real = frame.iloc[order[:size]].reset_index(drop=True)
    if len(frame) >= 2 * size:
        other = frame.iloc[order[size : 2 * size]].reset_index(drop=True)
    else:
        other = frame.iloc[rng.integers(0, len(frame), size)].reset_index(drop=True)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(real, spec, epsilon, method=method, random_state=seed, **options)
    seconds = time.perf_counter() - start
    synthetic = release.data
    outside, per = outside_share(real, synthetic, spec)
    empty = empty_bin_share(real, synthetic, release.card.get("adaptive_bins", []))
    (a, b, s), cells = evaluation_codes(real, [real, other, synthetic], spec)
    floor = mean_two_way(a, b, cells)
    tvd2 = mean_two_way(a, s, cells)
    worst = max(per, key=per.get) if per else ""
    return {
        "table": table,
        "n": size,
        "seed": seed,
        "outside": outside,
        "empty_bins": empty,
        "tvd2": tvd2,
        "floor": floor,
        "ratio": tvd2 / floor,
        "seconds": seconds,
        "worst_column": worst,
        "worst_outside": per.get(worst, 0.0),
    }


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(TABLES))
    parser.add_argument("--sizes", nargs="+", type=int, default=[1000, 5000])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--method", default="marginals")
    parser.add_argument("--per-seed", action="store_true", help="print every run, not only the means")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="for ablations: a module constant of the package dpsynth_core.synthesizers.marginals (JSON value)",
    )
    args = parser.parse_args(argv)
    if args.set:
        import json

        from dpsynth_core.synthesizers.marginals import budget, measurements, selection, synthesizer

        for item in args.set:
            name, value = item.split("=", 1)
            holders = [m for m in (synthesizer, budget, selection, measurements) if hasattr(m, name)]
            if not holders:
                parser.error(f"no constant {name} in dpsynth_core.synthesizers.marginals")
            for module in holders:  # wherever it is read (a constant imported by name too)
                setattr(module, name, json.loads(value))
    rows = []
    for table in args.tables:
        seen = set()
        for n in args.sizes:
            size = min(n, len(load_table(table)[0]))
            for seed in range(args.seeds):
                if (size, seed) in seen:
                    continue
                seen.add((size, seed))
                result = run(table, n, seed, args.epsilon, args.method, {})
                rows.append(result)
                if args.per_seed:
                    print(result, flush=True)
    frame = pd.DataFrame(rows)
    summary = frame.groupby(["table", "n"], sort=False)[
        ["outside", "empty_bins", "tvd2", "floor", "ratio", "seconds"]
    ].mean()
    pd.set_option("display.width", 140)
    print(summary.round(4).to_string())
    print("mean", summary[["outside", "empty_bins", "tvd2", "floor", "ratio"]].mean().round(4).to_dict())
    return frame


if __name__ == "__main__":
    main()
