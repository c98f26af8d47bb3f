"""A wide synthetic table built from public column types only, for ``benchmarks.large.wide`` (never committed).

    python -m benchmarks.tools.make_wide_table --columns 300 --rows 100000 --out /tmp/dpsynth-wide/wide300.csv

Columns cycle through four kinds, as a survey extract mixes them: categorical (3 to 8 values), integer
(0 to 99 in bins of 10), a second categorical, and text (5-digit codes declared as ``digits`` of length 5,
about 20 codes in use). Each block of ``BLOCK`` neighbouring columns shares a hidden variable, so pairs
inside a block are related and pairs across blocks are not: a selection that finds the related pairs scores
well. The declaration (written beside the table as ``*.domain.json``) comes from the kinds alone.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.common import ROOT

#: Columns sharing one hidden variable (neighbours in the column order).
BLOCK = 10
#: Values of each block's hidden variable; a column follows it with this probability, else draws freely.
HIDDEN_VALUES = 6
FOLLOW = 0.7
KINDS = ("categorical", "integer", "categorical", "text")
TEXT_CODES = 20


def declaration(columns: int) -> dict:
    """The public declaration of a table of ``columns`` columns (kinds by position, see the module)."""
    spec = {}
    for i in range(columns):
        kind, name = KINDS[i % len(KINDS)], f"c{i:04d}"
        if kind == "categorical":
            spec[name] = {"type": "categorical", "values": [f"v{j}" for j in range(3 + i % 6)]}
        elif kind == "integer":
            spec[name] = {"type": "integer", "min": 0, "max": 99, "bin_width": 10}
        else:
            spec[name] = {"type": "text", "generator": "digits", "length": 5}
    return {"columns": spec}


def wide_table(columns: int, rows: int, seed: int = 38) -> tuple[pd.DataFrame, dict]:
    """``rows`` records of ``columns`` columns and their declaration (vectorised: one array per column)."""
    rng = np.random.default_rng(seed)
    spec = declaration(columns)
    hidden = rng.integers(0, HIDDEN_VALUES, size=(columns // BLOCK + 1, rows))
    data = {}
    for i, (name, column) in enumerate(spec["columns"].items()):
        follows = rng.random(rows) < FOLLOW
        if column["type"] == "categorical":
            size = len(column["values"])
            codes = np.where(follows, hidden[i // BLOCK] % size, rng.integers(0, size, rows))
            data[name] = np.array(column["values"])[codes]
        elif column["type"] == "integer":
            centre = hidden[i // BLOCK] * 16 + 10
            data[name] = np.where(
                follows, np.clip(centre + rng.integers(-8, 9, rows), 0, 99), rng.integers(0, 100, rows)
            )
        else:
            pool = np.array([f"{v:05d}" for v in rng.choice(100_000, TEXT_CODES, replace=False)])
            free = rng.zipf(1.6, rows) % TEXT_CODES
            data[name] = pool[np.where(follows, hidden[i // BLOCK] % TEXT_CODES, free)]
    return pd.DataFrame(data), spec


def build(columns: int, rows: int, out: Path, seed: int = 38) -> Path:
    """Write the table to ``out`` (CSV) and its declaration beside it; returns the path."""
    frame, spec = wide_table(columns, rows, seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False)
    out.with_suffix(".domain.json").write_text(json.dumps(spec))
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--columns", type=int, default=300)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--out", type=Path, required=True, help="outside the repository")
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args(argv)
    if ROOT in args.out.resolve().parents:
        sys.exit("write the table outside the repository (it must never be committed)")
    start = time.perf_counter()
    build(args.columns, args.rows, args.out, args.seed)
    print(f"{args.out}: {args.columns} columns x {args.rows:,} rows in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
