"""Free text and missing cells in the multi-column methods: made-up values, missing shares. Not a test.

    python -m benchmarks.quality.text_and_missing [--seeds 3] [--methods marginals,copula,...]

Every method with 3 seeds takes about 5 minutes (``microagg`` runs on compas only).

Compas, a few columns, with the three charge descriptions declared as weakly constrained
codes (``{"type": "text", "generator": "any", "size": 17000}``), and adult with its own
declaration. For each method that codes columns through ``dpsynth_core.synthesizers.finite`` (and
``cathist`` as the reference), at epsilon 1, seeded, it reports per text column:

* the real and synthetic shares of missing cells;
* the distinct values in the data and in the synthetic column;
* the share of synthetic (non-missing) cells whose value occurs nowhere in the data, and the
  number of such distinct made-up values (the public placeholder an empty vocabulary decodes
  to, the domain's first value, is counted apart);

and for adult the number of missing cells in columns that have none in the data. Figures:
docs/benchmarks/quality.md.
"""

from __future__ import annotations

import argparse
import json
import time

import pandas as pd

from benchmarks.common import SHARED, adult_declaration

COMPAS_COLUMNS = [
    "sex",
    "age_cat",
    "race",
    "c_charge_degree",
    "c_charge_desc",
    "r_charge_desc",
    "vr_charge_desc",
    "is_recid",
    "decile_score",
    "two_year_recid",
]
TEXT = ("c_charge_desc", "r_charge_desc", "vr_charge_desc")
METHODS = ("cathist", "marginals", "copula", "bayesnet", "deniability", "microagg")


def compas():
    frame = pd.read_csv(SHARED / "compas.csv", dtype=str, keep_default_na=False)
    frame = frame.loc[:, ~frame.columns.duplicated()][COMPAS_COLUMNS]
    spec = json.loads((SHARED / "compas.domain.json").read_text())
    columns = {c: spec["columns"][c] for c in COMPAS_COLUMNS}
    for c in TEXT:
        columns[c] = {"type": "text", "generator": "any", "size": 17_000}
    spec["columns"] = columns
    return frame, spec


def adult():
    frame = pd.read_csv(SHARED / "adult.csv", dtype=str, keep_default_na=False)
    return frame, adult_declaration()


def text_rows(method, frame, spec, synthetic) -> list[dict]:
    from dpsynth_core.domain import TableDomain

    domain = TableDomain.from_json(spec)
    out = []
    for c in TEXT:
        real = pd.Series(domain.columns[c].normalise([None if v == "" else v for v in frame[c]]), dtype=object)
        present = set(real.dropna())
        fake = synthetic[c]
        filled = fake.dropna()
        placeholder = domain.columns[c].label_at(0)  # an empty vocabulary's public placeholder
        made_up = ~filled.isin(present) & (filled != placeholder)
        out.append(
            {
                "method": method,
                "column": c,
                "real missing": round(real.isna().mean(), 3),
                "synthetic missing": round(fake.isna().mean(), 3),
                "real distinct": len(present),
                "synthetic distinct": filled.nunique(),
                "made-up cells": round(float(made_up.mean()) if len(filled) else 0.0, 3),
                "made-up values": int(filled[made_up].nunique()),
                "placeholder cells": round(float((filled == placeholder).mean()) if len(filled) else 0.0, 3),
                "rows": len(fake),
            }
        )
    return out


def main(argv=None) -> None:
    from dpsynth_core import synthesize

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--methods", default=",".join(METHODS))
    args = parser.parse_args(argv)
    methods = args.methods.split(",")
    c_frame, c_spec = compas()
    a_frame, a_spec = adult()
    rows, adult_rows = [], []
    for method in methods:
        for seed in range(args.seeds):
            start = time.perf_counter()
            release = synthesize(c_frame, c_spec, 1.0, method=method, random_state=seed)
            rows += [
                dict(r, seed=seed, seconds=round(time.perf_counter() - start, 2))
                for r in text_rows(method, c_frame, c_spec, release.data)
            ]
            if method == "microagg":
                continue  # MDAV on 32,561 adult rows takes minutes; compas covers it
            release = synthesize(a_frame, a_spec, 1.0, method=method, random_state=seed)
            data = release.data
            no_missing = [c for c in data.columns if (a_frame[c] == "").sum() == 0 and (a_frame[c] == "?").sum() == 0]
            adult_rows.append(
                {
                    "method": method,
                    "seed": seed,
                    "rows": len(data),
                    "sex missing cells": int(data["sex"].isna().sum()),
                    "missing cells in columns with none (share)": round(
                        float(data[no_missing].isna().to_numpy().mean()), 4
                    ),
                }
            )
    table = pd.DataFrame(rows)
    summary = table.groupby(["method", "column"], sort=False).mean(numeric_only=True).drop(columns="seed").round(3)
    print("compas, charge descriptions as 'any' with size 17,000, epsilon 1, mean over seeds")
    print(summary.to_string())
    print()
    print("adult, epsilon 1")
    print(
        pd.DataFrame(adult_rows)
        .groupby("method", sort=False)
        .mean(numeric_only=True)
        .drop(columns="seed")
        .round(4)
        .to_string()
    )


if __name__ == "__main__":
    main()
