"""The papers' evaluation tables for every method: distinguishing game, ML utility, query errors. Not a test.

    python -m benchmarks.quality.papers              # adult tables + the book's three datasets: about an hour
    python -m benchmarks.quality.papers --quick      # one seed, fewer methods: a few minutes
    python -m benchmarks.quality.papers --only book  # one part: adult or book

Adult (plausible-deniability paper, Tables 3 and 5; copula paper, Table 2), at epsilon 1:
* distinguishing game: random forest and decision tree accuracy at telling 5,000 real from
  5,000 synthetic records (50% = indistinguishable);
* ML utility on the income label: accuracy on the real test split (adult_test.csv) of a
  random forest trained on real vs on synthetic data, and the two classifiers' agreement;
* query errors: absolute count errors of all 1-way counts and 2-way and 3-way positive
  conjunctions (dummy columns of distinct attributes), mean and max over the best 95%,
  99% and 100% of queries, against answering each query with Laplace noise directly.

The book's section 6.4 scenarios on diabetes, breast cancer and australian: scenario 1
(train on 70% real, test on synthetic made from the other 30%), scenario 2 (train on
synthetic made from 80%, test on the other 20% real); SVM accuracy, linear-regression MSE
(predicting the last numeric column), and k-means agreement with the label. Figures:
docs/benchmarks/quality.md.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np
import pandas as pd

from benchmarks.common import ADULT_POLICY, SHARED, markdown
from dpsynth_core import synthesize
from dpsynth_core.evaluation import metrics

METHODS = ["cathist", "marginals", "copula", "dirichlet", "bayesnet", "deniability", "microagg"]
LABELS = {"diabetes": "Outcome", "breast_cancer": "class", "australian": "A15"}


def declaration(name: str) -> dict:
    from tests.conftest import complete_domain  # the test-owned public bounds for the shared datasets

    spec = complete_domain(name)
    if name == "adult":
        spec = json.loads(ADULT_POLICY.read_text())
    return spec


def adult_tables(methods, seeds) -> None:
    real = pd.read_csv(SHARED / "adult.csv", dtype=str, keep_default_na=False)
    test = pd.read_csv(SHARED / "adult_test.csv", dtype=str, keep_default_na=False)
    spec = declaration("adult")
    games, utility, queries = [], [], []
    for method in methods:
        for seed in seeds:
            start = time.perf_counter()
            options = {"rows": 5000} if method == "deniability" else {}
            data = synthesize(real, spec, 1.0, method=method, random_state=seed, **options).data
            seconds = time.perf_counter() - start
            pairs = metrics.paired_codes(real, data, spec)
            row = {"method": method, "seed": seed, "seconds": seconds}
            for model in ("random forest", "decision tree"):
                row[model] = metrics.distinguishing_game(pairs, random_state=seed, classifier=model).accuracy
            games.append(row)
            utility.append(
                {
                    "method": method,
                    "seed": seed,
                    **metrics.ml_utility(real, data, test, spec, "income", random_state=seed),
                }
            )
            errors = metrics.query_errors(real, data, spec, epsilon=1.0, random_state=seed)
            for order, result in errors.items():
                for source in ("synthetic", "independent Laplace"):
                    for share, stats in result[source].items():
                        queries.append(
                            {
                                "method": method,
                                "queries": f"{order} ({result['queries']:,})",
                                "answers": source,
                                "subset": share,
                                "mean": stats["mean"],
                                "max": stats["max"],
                            }
                        )
    print("## Distinguishing game on adult, epsilon 1 (accuracy; 0.5 = indistinguishable)\n")
    print(
        markdown(
            pd.DataFrame(games).groupby("method", sort=False).mean(numeric_only=True).drop(columns="seed").round(3),
            index=True,
        )
    )
    print("\n## Machine-learning utility on adult (income), epsilon 1\n")
    print(
        markdown(
            pd.DataFrame(utility).groupby("method", sort=False).mean(numeric_only=True).drop(columns="seed").round(3),
            index=True,
        )
    )
    print("\n## Query errors on adult, epsilon 1 (absolute count errors)\n")
    table = (
        pd.DataFrame(queries).groupby(["queries", "method", "answers", "subset"], sort=False).mean(numeric_only=True)
    )
    print(markdown(table.round(1), index=True))


def book_scenarios(methods, seeds, epsilons) -> None:
    rows = []
    for name, label in LABELS.items():
        frame = pd.read_csv(SHARED / f"{name}.csv", dtype=str, keep_default_na=False)
        spec = declaration(name)
        numeric = [c for c, s in spec["columns"].items() if s["type"] in ("integer", "float") and c != label]
        regress = numeric[-1]
        for method in methods:
            for eps in epsilons:
                for seed in seeds:
                    rng = np.random.default_rng(seed)
                    order = rng.permutation(len(frame))
                    cut1, cut2 = int(0.7 * len(frame)), int(0.8 * len(frame))
                    train1, seed1 = frame.iloc[order[:cut1]], frame.iloc[order[cut1:]]
                    seed2, test2 = frame.iloc[order[:cut2]], frame.iloc[order[cut2:]]
                    # the papers' k suits large tables; these have a few hundred records
                    options = {"microagg": {"k": 25}, "deniability": {"k": 10}}.get(method, {})
                    syn1 = synthesize(seed1, spec, eps, method=method, random_state=seed, **options).data
                    syn2 = synthesize(seed2, spec, eps, method=method, random_state=seed, **options).data
                    s1 = metrics.ml_utility(train1, syn1, syn1, spec, label, model="svm")
                    s2 = metrics.ml_utility(seed2, syn2, test2, spec, label, model="svm")
                    r2 = metrics.regression_mse(seed2, syn2, test2, spec, regress)
                    km = metrics.kmeans_agreement(frame, syn2, spec, label, random_state=seed)
                    rows.append(
                        {
                            "dataset": name,
                            "method": method,
                            "epsilon": eps,
                            "scenario 1 SVM acc": s1["train real, test synthetic"],
                            "scenario 2 SVM acc": s2["train synthetic, test real"],
                            "SVM acc, real only": s2["train real, test real"],
                            "scenario 2 LR MSE": r2["train synthetic, test real"],
                            "LR MSE, real only": r2["train real, test real"],
                            "k-means, synthetic": km["synthetic"],
                            "k-means, real": km["real"],
                        }
                    )
    print("\n## Book section 6.4 scenarios (mean over seeds)\n")
    print(
        markdown(
            pd.DataFrame(rows).groupby(["dataset", "method", "epsilon"], sort=False).mean(numeric_only=True).round(3),
            index=True,
        )
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["adult", "book"], help="print only one part")
    opts = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    seeds = [0] if opts.quick else [0, 1, 2]
    methods = ["cathist", "marginals", "copula"] if opts.quick else METHODS
    if opts.only != "book":
        adult_tables(methods, seeds)
    if opts.only != "adult":
        book_scenarios(
            ["marginals", "microagg"] if opts.quick else METHODS, seeds, [1.0] if opts.quick else [0.1, 0.5, 1.0]
        )


if __name__ == "__main__":
    main()
