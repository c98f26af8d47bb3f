"""How much of the default method's budget free-text vocabularies get, and what it buys. Not a test: prints a table.

    python -m benchmarks.quality.text_budget [--seeds 6] [--texts 1 2 3] [--epsilon 1] [--data compas.csv]

The defaults (36 releases of the whole compas) take about a minute.

Compas (7,214 records): sex, age_cat, race, c_charge_degree, is_recid, decile_score, two_year_recid,
priors_count, age, with 1 to 3 charge descriptions as free text (``{"type": "text", "generator": "any",
"size": 100000}``). For the rule before (5% of the budget for all vocabularies together) and the rule now
(:func:`~dpsynth_core.synthesizers.finite.vocabulary_shares`), at epsilon 1, seeded, it reports
the first text column's epsilon, its surviving values, the share of its synthetic cells whose value is not
in the data (made up), and the mean 2-way TVD over all pairs of columns and over the pairs without text.
Figures: docs/benchmarks/quality.md.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from benchmarks.common import SHARED

OTHERS = ["sex", "age_cat", "race", "c_charge_degree", "is_recid", "decile_score", "two_year_recid", "priors_count"]
TEXT = ["c_charge_desc", "r_charge_desc", "vr_charge_desc"]


def table(texts: int, data: str | None = None):
    from tests.conftest import complete_domain, shared_path

    columns = TEXT[:texts] + OTHERS + ["age"]
    path = data or (SHARED / "compas.csv" if (SHARED / "compas.csv").exists() else shared_path("compas.csv"))
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame = frame.loc[:, ~frame.columns.duplicated()][columns]
    spec = complete_domain("compas")
    spec["columns"] = {c: spec["columns"][c] for c in columns}
    return frame, spec


def _now():
    from dpsynth_core.synthesizers.finite import vocabulary_shares

    return vocabulary_shares


NOW = _now()


def old_rule(domain) -> dict:
    texts = [n for n, c in domain.kept.items() if not c.binned]
    return {n: 0.05 / len(texts) for n in texts}


def run(texts: int, rule: str, seeds: int, epsilon: float, data: str | None = None) -> dict:
    from dpsynth_core.domain import TableDomain
    from dpsynth_core.evaluation.metrics import paired_codes, two_way_distances
    from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer, budget, synthesizer

    synthesizer.vocabulary_shares = budget.vocabulary_shares = old_rule if rule == "before" else NOW
    frame, spec = table(texts, data)
    domain = TableDomain.from_json(spec)
    first = TEXT[0]
    real = pd.Series(domain.kept[first].normalise([None if v == "" else v for v in frame[first]]), dtype=object)
    rows = []
    for seed in range(seeds):
        model = MarginalsSynthesizer(epsilon=epsilon, random_state=seed).fit(frame, domain)
        synthetic = model.sample()
        fake = synthetic[first].dropna()
        matrix = two_way_distances(paired_codes(frame, synthetic, domain))
        names = list(matrix.index)
        pairs = {(a, b): matrix.loc[a, b] for i, a in enumerate(names) for b in names[i + 1 :]}
        rows.append(
            {
                "text epsilon": next(
                    e.epsilon for e in model.accountant_.events if e.label.startswith(f"vocabulary {first}")
                ),
                "surviving values": len(model.columns_[first].vocabulary),
                "made-up share": float((~fake.isin(set(real.dropna()))).mean()),
                "2-way TVD": float(np.mean(list(pairs.values()))),
                "2-way TVD without text": float(np.mean([v for k, v in pairs.items() if not set(k) & set(TEXT)])),
            }
        )
    return {"texts": texts, "rule": rule, **pd.DataFrame(rows).mean().round(4).to_dict()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--texts", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--data", help="compas.csv (default: the shared 7,214 records, else the tests' 1,000)")
    args = parser.parse_args(argv)
    results = [run(t, rule, args.seeds, args.epsilon, args.data) for t in args.texts for rule in ("before", "now")]
    print(pd.DataFrame(results).to_string(index=False))


if __name__ == "__main__":
    main()
