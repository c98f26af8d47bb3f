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

from .cathist import fidelity
from .domain import TableDomain, as_table_domain
from .encoding import encode_column


@dataclass
class PairedColumn:
    """One column of the real and the synthetic table as codes over shared cells."""

    real: np.ndarray
    synthetic: np.ndarray
    cells: int
    labels: list


def paired_codes(real: pd.DataFrame, synthetic: pd.DataFrame, domain) -> dict[str, PairedColumn]:
    """Encode both tables over ``domain``; text labels are indexed jointly over both tables."""
    domain = as_table_domain(domain)
    out = {}
    for name, col in domain.kept.items():
        a = encode_column(col, real[name], domain.missing_markers)
        b = encode_column(col, synthetic[name], domain.missing_markers)
        if col.binned:
            labels = col.bin_labels() + (["(missing)"] if col.missing else [])
            out[name] = PairedColumn(a.codes, b.codes, a.cells, labels)
        else:
            both = np.concatenate([a.labels, b.labels])
            both = np.where(pd.isna(both), "\x00missing", both).astype(str)
            codes, uniques = pd.factorize(both)
            labels = ["(missing)" if u == "\x00missing" else u for u in uniques]
            out[name] = PairedColumn(codes[: len(a.labels)], codes[len(a.labels):], len(uniques), labels)
    return out


def _distribution(codes: np.ndarray, cells: int) -> np.ndarray:
    counts = np.bincount(codes, minlength=cells).astype(float)
    return counts / counts.sum() if counts.sum() else counts


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    """Total variation distance: half the L1 distance between two distributions."""
    return float(0.5 * np.abs(p - q).sum())


def one_way_distances(pairs: dict[str, PairedColumn]) -> dict[str, float]:
    """TVD of every column's distribution, real vs synthetic (0 = identical, 1 = disjoint)."""
    return {n: total_variation(_distribution(c.real, c.cells), _distribution(c.synthetic, c.cells))
            for n, c in pairs.items()}


def two_way_distances(pairs: dict[str, PairedColumn]) -> pd.DataFrame:
    """TVD of every pair of columns' joint distribution, as a symmetric matrix (diagonal: 1-way)."""
    names = list(pairs)
    matrix = pd.DataFrame(np.nan, index=names, columns=names)
    for i, a in enumerate(names):
        for b in names[i:]:
            pa, pb = pairs[a], pairs[b]
            if a == b:
                value = total_variation(_distribution(pa.real, pa.cells), _distribution(pa.synthetic, pa.cells))
            else:
                cells = pa.cells * pb.cells
                value = total_variation(_distribution(pa.real * pb.cells + pb.real, cells),
                                        _distribution(pa.synthetic * pb.cells + pb.synthetic, cells))
            matrix.loc[a, b] = matrix.loc[b, a] = value
    return matrix


def fidelity_by_column(pairs: dict[str, PairedColumn]) -> dict[str, float]:
    """Fidelity F (Rodriguez and Howe) per column, on the cells each table uses."""
    out = {}
    for name, c in pairs.items():
        true = np.bincount(c.real, minlength=c.cells)
        released = np.bincount(c.synthetic, minlength=c.cells)
        out[name] = fidelity({i: int(v) for i, v in enumerate(true) if v},
                             {i: int(v) for i, v in enumerate(released) if v})
    return out


@dataclass
class GameResult:
    """Held-out accuracy of a classifier telling real from synthetic records."""

    accuracy: float
    low: float
    high: float
    test_records: int
    classifier: str


def distinguishing_game(pairs: dict[str, PairedColumn], *, max_records: int = 5000, random_state=None,
                        classifier: str = "gradient boosting") -> GameResult:
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
    real_rows = rng.choice(n_real, size=size, replace=False)
    syn_rows = rng.choice(n_syn, size=size, replace=False)
    features = np.vstack([np.column_stack([pairs[n].real[real_rows] for n in names]),
                          np.column_stack([pairs[n].synthetic[syn_rows] for n in names])])
    target = np.concatenate([np.zeros(size, int), np.ones(size, int)])
    seed = int(rng.integers(2**31))
    x_train, x_test, y_train, y_test = train_test_split(features, target, test_size=0.3, stratify=target,
                                                        random_state=seed)
    if classifier == "random forest":
        model = RandomForestClassifier(n_estimators=100, n_jobs=2, random_state=seed)
    elif classifier == "decision tree":
        model = DecisionTreeClassifier(random_state=seed)
    else:
        model = HistGradientBoostingClassifier(max_iter=150, random_state=seed)
    model.fit(x_train, y_train)
    accuracy = float((model.predict(x_test) == y_test).mean())
    low, high = wilson_interval(accuracy, len(y_test))
    return GameResult(accuracy, low, high, len(y_test), classifier)


def wilson_interval(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def evaluate(real: pd.DataFrame, synthetic: pd.DataFrame, domain, *, random_state=None) -> dict:
    """Everything the Preview page shows, in one call (publisher-only)."""
    domain: TableDomain = as_table_domain(domain)
    pairs = paired_codes(real, synthetic, domain)
    return {"fidelity": fidelity_by_column(pairs), "one_way": one_way_distances(pairs),
            "two_way": two_way_distances(pairs), "game": distinguishing_game(pairs, random_state=random_state),
            "pairs": pairs}
