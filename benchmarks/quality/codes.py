"""Codes declared 0 to 100: Rdatasets tables holding a whole-number column of at most 30 values, each such column
declared 0-100 as a publisher who knows it holds a code or a count but not which values occur would, every other
number ten times wider than its rounded range, categories by their values; 1,000 rows, `marginals` at epsilon 1.
Scores per table: the share of synthetic rows with a code outside its column's real range, and the largest share of
rows at a code no record holds (the declarations benchmark's point on codes, docs/benchmarks/quality.md). The rows
outside are also split by the released bin their code lies in: one that also holds real records, or one that holds
none.

    python -m benchmarks.quality.codes --root /tmp/Rdatasets                      # 21 tables, 6 seeds: about a minute
    python -m benchmarks.quality.codes --root /tmp/Rdatasets --set HALVINGS=false --out codes_off   # an ablation

The tables are drawn from the checkout in a fixed order (seed 7) among those with at least 1,000 rows and 3 to 30
columns; like :mod:`benchmarks.quality.rdatasets`, the declarations are written by reading the data (a codebook
would print them), which the app never does.
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import results_file
from benchmarks.quality.declarations import set_constant
from benchmarks.quality.rdatasets import documented_range, shuffled_files, without_row_names
from dpsynth_core import synthesize
from dpsynth_core.evaluation.values import beyond_real

#: A whole-number column with at most this many values, all within 0-100, is a code declared 0-100.
MOST_CODES = 30
ROWS = 1000


def declare(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict, list[str]]:
    """The columns kept, their declaration and the code columns (the module docstring says how)."""
    frame = without_row_names(frame).copy()
    spec, codes = {}, []
    for name in frame.columns:
        values = frame[name]
        present = values.dropna()
        if pd.api.types.is_bool_dtype(values) or present.nunique() < 2:
            continue
        if pd.api.types.is_numeric_dtype(values):
            whole = bool((present == present.round()).all())
            if whole and present.is_monotonic_increasing and present.is_unique:
                continue  # an id
            if whole and present.nunique() <= MOST_CODES and present.min() >= 0 and present.max() <= 100:
                spec[name] = {"type": "integer", "min": 0, "max": 100}
                codes.append(name)
                continue
            low, high = documented_range(float(present.min()), float(present.max()))
            span = high - low
            low, high = (low - 4.5 * span, high + 4.5 * span) if low < 0 else (low, low + 10 * span)
            spec[name] = (
                {"type": "integer", "min": int(low), "max": int(high)}
                if whole
                else {"type": "float", "min": low, "max": high}
            )
        elif 2 <= present.astype(str).nunique() <= MOST_CODES:
            spec[name] = {"type": "categorical", "values": sorted(present.astype(str).unique().tolist())}
            frame[name] = values.astype(str).where(values.notna())
    return frame[list(spec)].reset_index(drop=True), {"columns": spec}, codes


def tables(root: Path, count: int) -> list[tuple[str, pd.DataFrame, dict, list[str]]]:
    """``count`` tables of the checkout ``root`` holding codes, in a fixed random order (seed 7)."""
    found = []
    for path in shuffled_files(root, 7):
        try:
            frame = pd.read_csv(path, low_memory=False, nrows=5000)
        except (ValueError, UnicodeDecodeError, pd.errors.ParserError):
            continue
        if len(frame) < ROWS or not 3 <= frame.shape[1] <= MOST_CODES:
            continue
        kept, spec, codes = declare(frame)
        if codes:
            found.append((f"{path.parent.name}/{path.stem}", kept, spec, codes))
        if len(found) == count:
            break
    return found


def _outside(held, drawn) -> np.ndarray:
    """Which drawn codes lie outside the real range of ``held`` (the Preview's rule,
    :func:`dpsynth_core.evaluation.values.beyond_real`; a missing code is not outside)."""
    below, above = beyond_real(np.asarray(held, dtype=float), np.asarray(drawn, dtype=float))
    return below | above


def score(real: pd.DataFrame, synthetic: pd.DataFrame, codes: list[str]) -> tuple[float, float]:
    """The share of synthetic rows with a code outside its real range, and the largest share at a code no record
    holds."""
    outside, phantom = np.zeros(len(synthetic), dtype=bool), 0.0
    for name in codes:
        held = real[name].dropna()
        drawn = pd.to_numeric(synthetic[name], errors="coerce")
        outside |= _outside(held, drawn)
        shares = drawn.dropna().astype(int).value_counts() / max(len(synthetic), 1)
        unheld = shares[~shares.index.isin(set(held.astype(int)))]
        phantom = max(phantom, float(unheld.max()) if len(unheld) else 0.0)
    return float(outside.mean()), phantom


def outside_by_bin(real: pd.DataFrame, synthetic: pd.DataFrame, codes: list[str], edges: dict) -> tuple[float, float]:
    """Where the rows with a code outside its real range come from: the share of synthetic rows with such a code in
    a released bin that also holds real records (values spread inside a bin that straddles the data's edge), and the
    share with one in a bin that holds none (the model kept an empty bin). ``edges``: column -> the release's bin
    edges (the card's ``adaptive_bins``); a column without bins counts value by value. A row may be in both."""
    straddle, empty = np.zeros(len(synthetic), dtype=bool), np.zeros(len(synthetic), dtype=bool)
    for name in codes:
        held = real[name].dropna().to_numpy(dtype=float)
        drawn = pd.to_numeric(synthetic[name], errors="coerce").to_numpy(dtype=float)
        out = _outside(held, drawn)
        cuts = np.asarray(edges.get(name, np.arange(int(np.nanmax(drawn, initial=0)) + 2)), dtype=float)
        real_bins = np.zeros(len(cuts) + 1, dtype=bool)
        real_bins[np.searchsorted(cuts, held, side="right")] = True
        holds_real = real_bins[np.searchsorted(cuts, np.nan_to_num(drawn), side="right")]
        straddle |= out & holds_real
        empty |= out & ~holds_real
    return float(straddle.mean()), float(empty.mean())


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="a checkout of Rdatasets (its csv folder)")
    parser.add_argument("--tables", type=int, default=21, help="how many tables")
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--out", default="codes", help="results file name under benchmarks/results")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="as quality.declarations'")
    args = parser.parse_args(argv)
    for item in args.set:
        set_constant(parser, *item.split("=", 1))
    rows = []
    for name, frame, spec, codes in tables(args.root, args.tables):
        for seed in range(args.seeds):
            real = frame.iloc[np.random.default_rng(1000 + seed).permutation(len(frame))[:ROWS]].reset_index(drop=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                release = synthesize(real, spec, 1.0, random_state=seed)
            outside, phantom = score(real, release.data, codes)
            edges = {b["column"]: b["edges"] for b in release.card.get("adaptive_bins", [])}
            straddle, empty = outside_by_bin(real, release.data, codes, edges)
            rows.append(
                {
                    "table": name,
                    "seed": seed,
                    "outside": outside,
                    "phantom": phantom,
                    "straddle": straddle,
                    "empty": empty,
                }
            )
    found = pd.DataFrame(rows)
    with results_file(args.out) as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    per = found.groupby("table", sort=False)[["outside", "phantom", "straddle", "empty"]].mean()
    print(per.round(4).to_string())
    print(
        f"mean: rows with a code outside its real range {per['outside'].mean():.4f} "
        f"({int((per['outside'] <= 0.05).sum())} of {len(per)} tables at 5% or less); largest share at a code no "
        f"record holds {per['phantom'].mean():.4f} ({int((per['phantom'] <= 0.01).sum())} at 1% or less); rows "
        f"outside in a bin that also holds records {per['straddle'].mean():.4f}, in a bin holding none "
        f"{per['empty'].mean():.4f}"
    )
    return found


if __name__ == "__main__":
    main()
