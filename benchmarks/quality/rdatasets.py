"""Thirty more public tables the project had not seen, from a checkout of Vincent Arel-Bundock's Rdatasets (the
datasets of R packages as CSV files), in the two declaration styles of :mod:`benchmarks.quality.declarations`.
Not a test, and not part of the repository's data: the tables are read from the user's checkout.

    git clone --depth 1 https://github.com/vincentarelbundock/Rdatasets /tmp/Rdatasets
    python -m benchmarks.quality.rdatasets --root /tmp/Rdatasets                 # 30 tables, 3 sizes, 3 seeds: 5 min
    python -m benchmarks.quality.rdatasets --root /tmp/Rdatasets --sizes 5000    # at most 5,000 rows: 2 min
    python -m benchmarks.quality.rdatasets --root /tmp/Rdatasets --tables wooldridge/smoke --seeds 10
    python -m benchmarks.quality.rdatasets --root /tmp/Rdatasets --set SPARSE_LEVELS=8 --out sparse8   # an ablation
    python -m benchmarks.quality.rdatasets --root /tmp/Rdatasets --sizes 5000 --seeds 2 --widen 10 --out wide10
    python -m benchmarks.quality.rdatasets --root /tmp/Rdatasets --draw 30 --draw-seed 66 --sizes 5000 1000 --seeds 2 --widen 10

The tables (:data:`TABLES`) were drawn at random (seed 7) from those with 500 to 30,000 rows, 5 to 20 usable
columns, at least three numeric columns with 20 values or more and one category, none the project had read
before; an R package's name and its dataset's name, ``csv/PACKAGE/NAME.csv`` in the checkout.
``--draw N`` draws N more by the same criteria (:func:`drawn`, at ``--draw-seed``), none of them this module's:
tables no change was tuned on, to measure a change on (a new seed draws tables nobody has looked at).

**The declarations are written by reading the data.** Rdatasets' documentation pages give each column's meaning
but seldom a range or a code list, so the harness stands in for a publisher who read them: every numeric range
is the real range rounded outward to half a power of ten of its span (:func:`documented_range`: years 1994-2016
declared 1990-2020, a share 0.013-0.93 declared 0-0.95), a whole-number column with at most 6 values and a text column
with 2 to 30 values are categories with exactly their values, an increasing whole-number column with no repeat
(an id), a text column with more values and a column with one value are left out. That is what a codebook would
say, not what the app does: the app never reads a value to declare a column. Both styles get the same ranges,
so the comparison is fair; what the figures cannot show is a publisher's range much wider than the data (the
shared tables' ``adult_wide`` does, and ``--widen K`` declares the publisher's ranges ``K`` times as wide, from
their min, scored on the same cells against the same expert).

**Or by reading the help page only** (``--documented``, :data:`DOCUMENTED`): a publisher's declaration written from
each table's documentation, stored in ``benchmarks/datasets/rdatasets/PACKAGE_NAME.domain.json`` (the data still read
from the checkout): ranges as the documentation or common knowledge gives them, often ten times wider than the data
(money to 10,000,000, counts to 100), code lists that name values the table does not hold, ``missing`` at its
default. That is what the app invites, and what the figures above cannot show.

    python -m benchmarks.quality.rdatasets --root /tmp/Rdatasets --documented --out documented    # 3 tables: 4 min

Results: one JSON line per release in ``benchmarks/results/rdatasets.jsonl`` (the scores of
:func:`benchmarks.quality.declarations.run`); figures in docs/benchmarks/quality.md.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import warnings
from pathlib import Path

import pandas as pd

from benchmarks.common import DATASETS, results_file
from benchmarks.quality import declarations

TABLES = (
    "causaldata/gapminder",
    "mstate/prothr",
    "wooldridge/k401ksubs",
    "Stat2Data/Goldenrod",
    "MLDataR/stroke_classification",
    "wooldridge/charity",
    "AER/CreditCard",
    "survival/udca2",
    "usdatasets/county_tbl_df",
    "camerondata/fishing",
    "dslabs/mice_weights",
    "fivethirtyeight/senate_seat_forecast",
    "bayesrules/bikes",
    "AER/GSS7402",
    "mosaicData/BirthsSSA",
    "stevedata/PPGE",
    "modeldata/biomass",
    "wooldridge/expendshares",
    "AER/USSeatBelts",
    "ISLR/Weekly",
    "HSAUR/Forbes2000",
    "wooldridge/smoke",
    "DAAG/psid1",
    "MLDataR/PreDiabetes",
    "ratdat/complete_old",
    "DAAG/spam7",
    "stevedata/CFT15",
    "Stat2Data/MathPlacement",
    "fivethirtyeight/state_words",
    "usdatasets/births14_tbl_df",
)
#: Tables declared from their help page only (the module docstring), each declaration in :func:`documented`.
DOCUMENTED = ("openintro/loans_full_schema", "survival/flchain", "Ecdat/Computers")
#: :func:`drawn`'s criteria, those :data:`TABLES` were drawn by: rows, usable columns, and at least this many
#: numeric columns with at least NUMERIC_VALUES values each (and one category).
DRAW_ROWS = (500, 30_000)
DRAW_COLUMNS = (5, 20)
DRAW_NUMERIC = 3
NUMERIC_VALUES = 20
#: A whole-number column with at most this many values is declared a category; text with at most
#: :data:`MAX_CATEGORIES` values too.
FEW_CODES = 6
MAX_CATEGORIES = 30


def documented_range(low: float, high: float) -> tuple[float, float]:
    """The real range ``[low, high]`` rounded outward to a multiple of half a power of ten of its span: what a
    codebook would print.

    >>> documented_range(1994, 2016)
    (1990.0, 2020.0)
    >>> documented_range(0.013, 0.93)
    (0.0, 0.95)
    >>> documented_range(-1.1e-20, 1.7e-20)  # modeldata's pd_speech: kept apart, not both rounded to 0
    (-1.5e-20, 2e-20)
    """
    span = high - low
    if span <= 0:
        return low - 1, high + 1
    step = 10 ** math.floor(math.log10(span)) / 2
    places = max(12, 12 - math.floor(math.log10(step)))  # a tiny step keeps its digits
    return round(math.floor(low / step) * step, places), round(math.ceil(high / step) * step, places)


def without_row_names(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` without the row index R or pandas wrote as a column (``rownames``, ``Unnamed: 0``)."""
    return frame.drop(columns=[c for c in frame.columns if str(c).lower() in ("rownames", "unnamed: 0")])


def declare(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """The columns kept and the declaration written from their values (the module docstring says why and how)."""
    frame = without_row_names(frame)
    spec = {}
    for name in frame.columns:
        values = frame[name]
        if pd.api.types.is_bool_dtype(values):
            values = frame[name] = values.astype(str).where(values.notna())
        present = values.dropna()
        if pd.api.types.is_numeric_dtype(values):
            if present.nunique() < 2:
                continue
            whole = bool((present == present.round()).all())
            if whole and present.nunique() <= FEW_CODES:
                spec[name] = {"type": "categorical", "values": sorted(int(v) for v in present.unique())}
                frame[name] = values.astype("Int64")
            elif whole and present.is_monotonic_increasing and present.is_unique:
                continue
            else:
                low, high = documented_range(float(present.min()), float(present.max()))
                spec[name] = (
                    {"type": "integer", "min": int(low), "max": int(high)}
                    if whole
                    else {"type": "float", "min": float(low), "max": float(high)}
                )
        elif 2 <= present.astype(str).nunique() <= MAX_CATEGORIES:
            spec[name] = {"type": "categorical", "values": sorted(present.astype(str).unique().tolist())}
            frame[name] = values.astype(str).where(values.notna())
    return frame[list(spec)].reset_index(drop=True), {"columns": spec}


def shuffled_files(root: Path, seed: int) -> list[Path]:
    """Every table file of the checkout ``root`` (``csv/PACKAGE/NAME.csv``), in a fixed random order (``seed``)."""
    files = sorted((root / "csv").glob("*/*.csv"))
    if not files:
        raise SystemExit(f"no CSV under {root / 'csv'}: --root names a checkout of Rdatasets")
    random.Random(seed).shuffle(files)
    return files


def drawn(root: Path, count: int, seed: int) -> list[str]:
    """``count`` tables of the checkout ``root`` that meet the criteria :data:`TABLES` were drawn by (the module
    docstring) and are neither those nor :data:`DOCUMENTED`, in a fixed random order (``seed``): ``PACKAGE/NAME``.
    Files that do not read as a table, or hold a value no range can declare, are passed over; a file is read only as far as its row criterion needs."""
    seen, found = set(TABLES) | set(DOCUMENTED), []
    for path in shuffled_files(root, seed):
        name = f"{path.parent.name}/{path.stem}"
        if name in seen:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kept, spec = declare(pd.read_csv(path, low_memory=False, nrows=DRAW_ROWS[1] + 1))  # enough to judge
        except (ArithmeticError, ValueError, TypeError, UnicodeDecodeError, pd.errors.ParserError):
            continue  # not a table, or one no codebook could declare (an infinite value)
        columns = spec["columns"]
        numeric = [
            c for c, d in columns.items() if d["type"] in ("integer", "float") and kept[c].nunique() >= NUMERIC_VALUES
        ]
        if (
            DRAW_ROWS[0] <= len(kept) <= DRAW_ROWS[1]
            and DRAW_COLUMNS[0] <= len(columns) <= DRAW_COLUMNS[1]
            and len(numeric) >= DRAW_NUMERIC
            and any(d["type"] == "categorical" for d in columns.values())
        ):
            found.append(name)
        if len(found) == count:
            break
    return found


def documented(name: str) -> Path:
    """Where the declaration of ``PACKAGE/NAME`` written from its help page is stored (:data:`DOCUMENTED`)."""
    return DATASETS / "rdatasets" / f"{name.replace('/', '_')}.domain.json"


def loader(root: Path):
    """name -> (frame, declaration) for ``PACKAGE/NAME`` under the checkout ``root``, read once: the stored
    declaration written from its help page when there is one (:func:`documented`, its dropped columns left out),
    else one written from the data (:func:`declare`)."""

    @functools.cache
    def load(name: str) -> tuple[pd.DataFrame, dict]:
        path = root / "csv" / f"{name}.csv"
        if not path.exists():
            raise SystemExit(f"{path} not found: --root names a checkout of Rdatasets (with its csv folder)")
        frame = pd.read_csv(path, low_memory=False)
        if not documented(name).exists():
            return declare(frame)
        spec = json.loads(documented(name).read_text(encoding="utf-8"))
        spec["columns"] = {c: d for c, d in spec["columns"].items() if d.get("type") != "drop"}
        return frame[list(spec["columns"])], spec

    return load


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per table and size, the publisher's mean 2-way TVD beside the expert's, their ratio on the expert's cells
    and on the shifted cells, and the publisher's outside, phantom, absent and seconds."""
    means = frame.groupby(["table", "n", "style"], sort=False)[
        ["tvd2", "tvd2_shifted", "outside", "phantom", "absent", "seconds"]
    ].mean()
    wide = means.unstack("style")
    out = pd.DataFrame({"publisher": wide["tvd2"]["publisher"], "expert": wide["tvd2"]["expert"]})
    out["ratio"] = out["publisher"] / out["expert"]
    out["shifted ratio"] = wide["tvd2_shifted"]["publisher"] / wide["tvd2_shifted"]["expert"]
    for score in ("outside", "phantom", "absent", "seconds"):
        out[score] = wide[score]["publisher"]
    return out


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, required=True, help="a checkout of Rdatasets (its csv folder)")
    parser.add_argument("--tables", nargs="+", default=list(TABLES), help="PACKAGE/NAME")
    parser.add_argument("--documented", action="store_true", help="the tables declared from their help page only")
    parser.add_argument("--draw", type=int, default=0, metavar="N", help="N more tables drawn from the checkout")
    parser.add_argument("--draw-seed", type=int, default=66, help="the order --draw draws them in")
    parser.add_argument("--sizes", nargs="+", default=["full", "5000", "1000"], help="'full' or a row count")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--out", default="rdatasets", help="results file name under benchmarks/results (replaced)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="as quality.declarations'")
    parser.add_argument(
        "--widen", type=float, default=1, help="the publisher's numeric ranges this many times as wide (from min)"
    )
    args = parser.parse_args(argv)
    for item in args.set:
        declarations.set_constant(parser, *item.split("=", 1))
    load, tables = loader(args.root), list(DOCUMENTED) if args.documented else args.tables
    if args.draw:
        tables = drawn(args.root, args.draw, args.draw_seed)
        print("drawn:", " ".join(tables), flush=True)
    rows = []
    with results_file(args.out) as out:
        for name in tables:
            for size in sizes(len(load(name)[0]), args.sizes):
                for seed in range(args.seeds):
                    for style in ("publisher", "expert"):
                        row = declarations.run(name, size, style, seed, args.epsilon, load=load, widen=args.widen)
                        del row["columns"]
                        rows.append(row)
                        out.write(json.dumps(row) + "\n")
                        out.flush()
            print(name, "done", flush=True)
    found = summary(pd.DataFrame(rows))
    pd.set_option("display.width", 160)
    print(found.round(4).to_string())
    above = pd.DataFrame(rows).query("style == 'publisher'")["above"].mean()
    print(f"the publisher's rows above the real maximum, mean over the releases: {above:.4f}")
    for label, part in by_size(found).items():
        within = (part["ratio"] <= 1.10).sum()
        print(f"{label}: mean ratio {part['ratio'].mean():.3f}; within 1.10: {within} of {len(part)}")
    return found


def sizes(length: int, wanted) -> list[int]:
    """The row counts to release a table of ``length`` rows at: ``'full'``, or a count above ``length``, is the
    whole table; each count once, largest first.

    >>> sizes(807, ["full", "5000", "1000"]), sizes(28353, ["full", "5000", "1000"])
    ([807], [28353, 5000, 1000])
    """
    return sorted({length if s == "full" else min(int(s), length) for s in wanted}, reverse=True)


def by_size(found: pd.DataFrame) -> dict:
    """The summary's rows by the number of rows released: at most 1,000, up to 5,000, and more (whole tables)."""
    n = found.index.get_level_values("n")
    return {
        "1,000 rows or fewer": found[n <= 1000],
        "1,001 to 5,000": found[(n > 1000) & (n <= 5000)],
        "above 5,000": found[n > 5000],
    }


if __name__ == "__main__":
    main()
