"""Measuring a release against the real data: fidelity, marginal distances, the distinguishing game.

Every function here reads the real data, so its results are for the publisher's eyes
only: they are not covered by the release's guarantee and never go into the release card.
Both tables are first encoded over the same declared domain, so a synthetic value and a
real value are compared cell for cell (public bins, categories, text labels).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import constraints
from ..data.counting import flat_index
from ..data.encoding import encode_column
from ..domain import as_table_domain
from ..privacy.cathist import fidelity
from ..privacy.noise import make_noise_source, real_laplace


@dataclass
class PairedColumn:
    """One column of the real and the synthetic table as codes over shared cells."""

    real: np.ndarray
    synthetic: np.ndarray
    cells: int
    labels: list


#: The label of a column's missing cell, the last of its labels when either table holds one.
MISSING_CELL = "(missing)"


def paired_codes(real: pd.DataFrame, synthetic: pd.DataFrame, domain) -> dict[str, PairedColumn]:
    """Encode both tables over ``domain``; text labels are indexed jointly over both tables."""
    domain = as_table_domain(domain)
    out = {}
    for name, col in domain.kept.items():
        a = encode_column(col, real[name], domain.missing_markers)
        b = encode_column(col, synthetic[name], domain.missing_markers)
        if col.binned:
            labels = col.bin_labels() + ([MISSING_CELL] if col.missing else [])
            out[name] = PairedColumn(a.codes, b.codes, a.cells, labels)
        else:
            both = np.concatenate([a.labels, b.labels])
            both = np.where(pd.isna(both), "\x00missing", both).astype(str)
            codes, uniques = pd.factorize(both)
            labels = [MISSING_CELL if u == "\x00missing" else u for u in uniques]
            out[name] = PairedColumn(codes[: len(a.labels)], codes[len(a.labels) :], len(uniques), labels)
    return out


def shown_shares(pair: PairedColumn, *, declared: bool, min_rows: int = constraints.SHOWN_MIN_ROWS):
    """A column's labels with its real and synthetic counts, as the publisher-only views show them.

    Declared cells (categories, public bins) are public and all shown. The labels of a text column are
    values read from the tables: a value held by fewer than ``min_rows`` real rows is not shown by name
    (it could single out a person), its rows go to one bar "other values"; a synthetic value that no
    real row holds (made up by the mechanism) is shown, since it is not a person's value.
    """
    real = np.bincount(pair.real, minlength=pair.cells)
    synthetic = np.bincount(pair.synthetic, minlength=pair.cells)
    if declared:
        return list(pair.labels), real, synthetic
    hidden = (real > 0) & (real < min_rows)
    if not hidden.any():
        return list(pair.labels), real, synthetic
    shown = ~hidden
    labels = [label for label, keep in zip(pair.labels, shown) if keep]
    labels.append(f"other values (each in fewer than {min_rows} real rows)")
    return (labels, np.append(real[shown], real[hidden].sum()), np.append(synthetic[shown], synthetic[hidden].sum()))


def _distribution(codes: np.ndarray, cells: int) -> np.ndarray:
    counts = np.bincount(codes, minlength=cells).astype(float)
    return counts / counts.sum() if counts.sum() else counts


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    """Total variation distance: half the L1 distance between two distributions."""
    return float(0.5 * np.abs(p - q).sum())


def one_way_distances(pairs: dict[str, PairedColumn]) -> dict[str, float]:
    """TVD of every column's distribution, real vs synthetic (0 = identical, 1 = disjoint)."""
    return {
        n: total_variation(_distribution(c.real, c.cells), _distribution(c.synthetic, c.cells))
        for n, c in pairs.items()
    }


def two_way_distances(pairs: dict[str, PairedColumn]) -> pd.DataFrame:
    """TVD of every pair of columns' joint distribution, as a symmetric matrix (diagonal: 1-way)."""
    names, columns = list(pairs), list(pairs.values())
    values = np.empty((len(names), len(names)))  # filled as numbers: a frame's .loc took 0.3 ms a pair
    for i, pa in enumerate(columns):
        values[i, i] = total_variation(_distribution(pa.real, pa.cells), _distribution(pa.synthetic, pa.cells))
        for j in range(i + 1, len(columns)):
            pb = columns[j]
            cells = pa.cells * pb.cells
            values[i, j] = values[j, i] = total_variation(
                _distribution(pa.real * pb.cells + pb.real, cells),
                _distribution(pa.synthetic * pb.cells + pb.synthetic, cells),
            )
    return pd.DataFrame(values, index=names, columns=names)


def fidelity_by_column(pairs: dict[str, PairedColumn]) -> dict[str, float]:
    """Fidelity F (Rodriguez and Howe) per column, on the cells each table uses."""
    out = {}
    for name, c in pairs.items():
        true = np.bincount(c.real, minlength=c.cells)
        released = np.bincount(c.synthetic, minlength=c.cells)
        out[name] = fidelity(
            {i: int(v) for i, v in enumerate(true) if v}, {i: int(v) for i, v in enumerate(released) if v}
        )
    return out


#: Fewest real and synthetic records each for the distinguishing game to mean anything.
MIN_GAME_RECORDS = 20


@dataclass
class GameResult:
    """Held-out accuracy of a classifier telling real from synthetic records."""

    accuracy: float
    low: float
    high: float
    test_records: int
    classifier: str


def distinguishing_game(
    pairs: dict[str, PairedColumn], *, max_records: int = 5000, random_state=None, classifier: str = "gradient boosting"
) -> GameResult:
    """Train a classifier on an equal mix of real and synthetic records; score it on held-out ones.

    Accuracy near 50% means the records are hard to tell apart. The interval is a 95%
    Wilson interval over the test records.
    """
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(random_state)
    names = list(pairs)
    n_real, n_syn = len(pairs[names[0]].real), len(pairs[names[0]].synthetic)
    size = min(max_records, n_real, n_syn)
    if size < MIN_GAME_RECORDS:  # too few records of one kind to train and test a classifier
        return GameResult(float("nan"), float("nan"), float("nan"), 0, classifier)
    real_rows = rng.choice(n_real, size=size, replace=False)
    syn_rows = rng.choice(n_syn, size=size, replace=False)
    features = np.vstack(
        [
            np.column_stack([pairs[n].real[real_rows] for n in names]),
            np.column_stack([pairs[n].synthetic[syn_rows] for n in names]),
        ]
    )
    target = np.concatenate([np.zeros(size, int), np.ones(size, int)])
    seed = int(rng.integers(2**31))
    x_train, x_test, y_train, y_test = train_test_split(
        features, target, test_size=0.3, stratify=target, random_state=seed
    )
    if classifier == "random forest":
        model = RandomForestClassifier(n_estimators=100, n_jobs=2, random_state=seed)
    elif classifier == "decision tree":
        model = DecisionTreeClassifier(random_state=seed)
    else:
        model = HistGradientBoostingClassifier(max_iter=150, random_state=seed)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # OpenMP threads spinning against a busy 2-core machine cost 10x here
        model.fit(x_train, y_train)
        accuracy = float((model.predict(x_test) == y_test).mean())
    low, high = wilson_interval(accuracy, len(y_test))
    return GameResult(accuracy, low, high, len(y_test), classifier)


def wilson_interval(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


# --- machine-learning utility and query errors (issue: the papers' evaluations) -------------


def _features(pairs: dict[str, PairedColumn], target: str, which: str) -> tuple[np.ndarray, np.ndarray]:
    names = [n for n in pairs if n != target]
    x = np.column_stack([getattr(pairs[n], which) / max(pairs[n].cells - 1, 1) * 2 - 1 for n in names])
    return x, getattr(pairs[target], which)


def ml_utility(
    train: pd.DataFrame,
    synthetic: pd.DataFrame,
    test: pd.DataFrame,
    domain,
    target: str,
    *,
    model: str = "random forest",
    random_state=None,
) -> dict:
    """Train on real vs on synthetic, test on held-out real records (and the reverse).

    Returns accuracies for: train-real/test-real, train-synthetic/test-real (book scenario 2),
    train-real/test-synthetic (scenario 1), and the agreement rate of the real-trained and
    synthetic-trained classifiers on the real test records (plausible-deniability paper,
    Table 3). Features are cell codes scaled to [-1, 1].
    """
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier

    domain = as_table_domain(domain)
    if len(synthetic) == 0:  # e.g. a privacy test that released nothing
        nan = float("nan")
        return {
            "train real, test real": nan,
            "train synthetic, test real": nan,
            "train real, test synthetic": nan,
            "agreement": nan,
        }
    train_pairs = paired_codes(train, synthetic, domain)
    test_pairs = paired_codes(test, test, domain)
    x_real, y_real = _features(train_pairs, target, "real")
    x_syn, y_syn = _features(train_pairs, target, "synthetic")
    x_test, y_test = _features(test_pairs, target, "real")

    def make():
        if model == "svm":
            return SVC(C=1.0, gamma="scale")
        if model == "decision tree":
            return DecisionTreeClassifier(max_depth=12, random_state=random_state)
        return RandomForestClassifier(n_estimators=100, n_jobs=2, random_state=random_state)

    on_real = make().fit(x_real, y_real)
    if len(np.unique(y_syn)) < 2:
        on_syn = None
    else:
        on_syn = make().fit(x_syn, y_syn)
    real_pred = on_real.predict(x_test)
    syn_pred = on_syn.predict(x_test) if on_syn is not None else np.full(len(y_test), y_syn[0])
    return {
        "train real, test real": float((real_pred == y_test).mean()),
        "train synthetic, test real": float((syn_pred == y_test).mean()),
        "train real, test synthetic": float((on_real.predict(x_syn) == y_syn).mean()),
        "agreement": float((real_pred == syn_pred).mean()),
    }


def regression_mse(train: pd.DataFrame, synthetic: pd.DataFrame, test: pd.DataFrame, domain, target: str) -> dict:
    """Linear regression of a (scaled) column on the others: test MSE when trained on real vs synthetic."""
    from sklearn.linear_model import LinearRegression

    domain = as_table_domain(domain)
    if len(synthetic) == 0:
        return {
            k: float("nan")
            for k in ("train real, test real", "train synthetic, test real", "train real, test synthetic")
        }
    pairs = paired_codes(train, synthetic, domain)
    test_pairs = paired_codes(test, test, domain)
    scale = max(pairs[target].cells - 1, 1)
    x_real, y_real = _features(pairs, target, "real")
    x_syn, y_syn = _features(pairs, target, "synthetic")
    x_test, y_test = _features(test_pairs, target, "real")
    y_real, y_syn, y_test = (y / scale * 2 - 1 for y in (y_real, y_syn, y_test))
    real = LinearRegression().fit(x_real, y_real)
    syn = LinearRegression().fit(x_syn, y_syn)
    return {
        "train real, test real": float(np.mean((real.predict(x_test) - y_test) ** 2)),
        "train synthetic, test real": float(np.mean((syn.predict(x_test) - y_test) ** 2)),
        "train real, test synthetic": float(np.mean((real.predict(x_syn) - y_syn) ** 2)),
    }


def kmeans_agreement(real: pd.DataFrame, synthetic: pd.DataFrame, domain, target: str, *, random_state=None) -> dict:
    """k-means with 2 clusters on each table (50 restarts); how well each clustering matches the label."""
    from sklearn.cluster import KMeans

    if len(synthetic) < 2:
        return {"real": float("nan"), "synthetic": float("nan")}
    pairs = paired_codes(real, synthetic, as_table_domain(domain))
    out = {}
    for which in ("real", "synthetic"):
        x, y = _features(pairs, target, which)
        labels = KMeans(n_clusters=2, n_init=50, random_state=random_state).fit_predict(x)
        match = (labels == (y == np.bincount(y).argmax())).mean()
        out[which] = float(max(match, 1 - match))
    return out


def _conjunction_counts(pairs: dict[str, PairedColumn], which: str, order: int) -> np.ndarray:
    """Counts of every positive conjunction of ``order`` dummy columns from distinct attributes."""
    import itertools

    names = list(pairs)
    pieces = []
    for combo in itertools.combinations(names, order):
        cells = [pairs[c].cells for c in combo]
        index = flat_index([getattr(pairs[c], which) for c in combo], cells, len(getattr(pairs[combo[0]], which)))
        pieces.append(np.bincount(index, minlength=int(np.prod(cells))))
    return np.concatenate(pieces).astype(float)


def query_errors(
    real: pd.DataFrame, synthetic: pd.DataFrame, domain, *, epsilon: float, random_state=None, orders=(1, 2, 3)
) -> dict:
    """Absolute count errors of all 1-way counts and 2- and 3-way positive conjunctions (copula paper, Table 2).

    For each order: the mean and the max error over the best 95%, 99% and 100% of queries,
    for the synthetic table (counts rescaled to the real row count) and for answering every
    query directly with Laplace noise at the same epsilon (one record changes C(m, order) of
    the queries, so the noise scale is C(m, order) / epsilon).
    """
    pairs = paired_codes(real, synthetic, as_table_domain(domain))
    rng = np.random.default_rng(random_state)
    n_real, n_syn = len(real), len(synthetic)
    m = len(pairs)
    out = {}
    for order in orders:
        truth = _conjunction_counts(pairs, "real", order)
        fake = _conjunction_counts(pairs, "synthetic", order) * (n_real / n_syn)
        scale = math.comb(m, order) / epsilon
        baseline = np.abs(real_laplace(make_noise_source(rng), np.zeros(truth.size), scale, label="baseline"))
        out[f"{order}-way"] = {
            "queries": int(truth.size),
            "synthetic": _best(np.abs(fake - truth)),
            "independent Laplace": _best(baseline),
        }
    return out


def _best(errors: np.ndarray) -> dict:
    ordered = np.sort(errors)
    out = {}
    for share in (95, 99, 100):
        kept = ordered[: max(1, int(math.ceil(len(ordered) * share / 100)))]
        out[f"best {share}%"] = {"mean": float(kept.mean()), "max": float(kept.max())}
    return out
