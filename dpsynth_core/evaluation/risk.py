"""The empirical privacy risk that remains in a synthetic table: what an attacker could actually do.

Three attacks after Giomi et al., "A Unified Framework for Quantifying Privacy Risk in Synthetic
Data" (PETS 2023), the method of the ``anonymeter`` package, written here vectorised over the
declared cells (``anonymeter`` 1.1 pins numpy < 1.27 and pyarrow < 22, and its multivariate
singling-out took 163 s for 500 attacks on adult):

* **singling out**: predicates on 3 columns that match exactly one synthetic record are tried on
  the real records; success when one matches exactly one real record;
* **linkability**: the attacker knows two halves of a person's columns from two sources and links
  them through the synthetic table (one synthetic record is among the nearest on both halves);
* **attribute inference**: the attacker knows every column but one and guesses it from the nearest
  synthetic record.

Each attack runs on *training* records (rows the synthetic table was made from) and on *control*
records (held out, never seen by the method); by default half the rows each, because a
singling-out predicate is tried on equal numbers of training and control records (a predicate
isolates one record more easily among fewer). Only the excess of the first over the second is
privacy risk: ``risk = (training rate - control rate) / (1 - control rate)``, with a 95% interval
from Wilson score intervals on both rates, propagated (as ``anonymeter`` does). Success on control
records is what the synthetic table teaches about people *in general*, which is its purpose.

These figures read the real data and are **not** differentially private: for the publisher only.
Differential privacy bounds the risk for every person and every attack in advance; these estimate
the success of three particular attacks on this table, so they are a check, not a guarantee.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import sqrt

import numpy as np
import pandas as pd

from ..domain import RANGE_KINDS, as_table_domain
from .metrics import paired_codes

#: The z of a two-sided 95% interval.
Z95 = 1.959963984540054
#: Columns in one singling-out predicate (anonymeter's default for its multivariate attack).
PREDICATE_COLUMNS = 3
#: Target records per chunk of a nearest-neighbour search (bounds memory: chunk x synthetic floats).
CHUNK = 256


@dataclass(frozen=True)
class Rate:
    """A success rate with its 95% Wilson error (``successes`` of ``attempts``)."""

    successes: int
    attempts: int

    @property
    def value(self) -> float:
        n = self.attempts
        return (self.successes + 0.5 * Z95**2) / (n + Z95**2) if n else 0.0

    @property
    def error(self) -> float:
        n, k = self.attempts, self.successes
        return Z95 / (n + Z95**2) * sqrt(k * (n - k) / n + 0.25 * Z95**2) if n else 1.0


@dataclass(frozen=True)
class Risk:
    """One attack: success on training records, on control records and by random guessing, and the
    risk (the excess over control, from 0 to 1) with its 95% interval."""

    attack: str
    training: Rate
    control: Rate
    baseline: Rate
    detail: str = ""

    @property
    def _residual(self) -> tuple[float, float]:
        a, c = self.training, self.control
        if c.value >= 1:
            return 0.0, 1.0
        value = (a.value - c.value) / (1 - c.value)
        error = sqrt((a.error / (1 - c.value)) ** 2 + (c.error * (a.value - 1) / (1 - c.value) ** 2) ** 2)
        return value, error

    @property
    def value(self) -> float:
        return min(max(self._residual[0], 0.0), 1.0)

    @property
    def interval(self) -> tuple[float, float]:
        value, error = self._residual
        return min(max(value - error, 0.0), 1.0), min(max(value + error, 0.0), 1.0)

    @property
    def meaningful(self) -> bool:
        """False when the attack did no better than random guessing (then its risk says nothing)."""
        return self.training.value - self.training.error > self.baseline.value + self.baseline.error

    def as_json(self) -> dict:
        low, high = self.interval
        return {
            "attack": self.attack,
            "risk": self.value,
            "low": low,
            "high": high,
            "detail": self.detail,
            "training": self.training.value,
            "control": self.control.value,
            "baseline": self.baseline.value,
            "attempts": self.training.attempts,
            "meaningful": self.meaningful,
        }


@dataclass
class RiskReport:
    """The three attacks' results, and how the records were split."""

    singling_out: Risk
    linkability: Risk
    inference: list[Risk] = field(default_factory=list)
    training_rows: int = 0
    control_rows: int = 0

    def as_json(self) -> dict:
        return {
            "singling_out": self.singling_out.as_json(),
            "linkability": self.linkability.as_json(),
            "inference": [r.as_json() for r in self.inference],
            "training_rows": self.training_rows,
            "control_rows": self.control_rows,
        }


def split_rows(rows: int, control_share: float = 0.5, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """Row positions of the training and the control records, drawn at random (control: at least 1)."""
    rng = rng if rng is not None else np.random.default_rng()
    order = rng.permutation(rows)
    control = max(1, int(round(rows * control_share)))
    return np.sort(order[control:]), np.sort(order[:control])


def empirical_risk(
    real: pd.DataFrame,
    synthesize_from,
    declaration,
    *,
    control_share: float = 0.5,
    attacks: int = 500,
    rng=None,
    progress=lambda done, message: None,
) -> RiskReport:
    """Split ``real`` into training and control records, make a synthetic table from the training
    records alone with ``synthesize_from(training_frame)`` (the release's own method and settings),
    and run the three attacks with ``attacks`` targets each. The control records must be unseen by
    the method, which is why the synthetic table is drawn again from the training records."""
    rng = rng if rng is not None else np.random.default_rng()
    train_at, control_at = split_rows(len(real), control_share, rng)
    progress(0.05, f"Making a synthetic table from {len(train_at):,} rows ({len(control_at):,} held out)")
    synthetic = synthesize_from(real.iloc[train_at].reset_index(drop=True))
    progress(0.4, "Encoding the records over the declared cells")
    return risk_of(
        real.iloc[train_at], real.iloc[control_at], synthetic, declaration, attacks=attacks, rng=rng, progress=progress
    )


def risk_of(
    training: pd.DataFrame,
    control: pd.DataFrame,
    synthetic: pd.DataFrame,
    declaration,
    *,
    attacks: int = 500,
    rng=None,
    progress=lambda done, message: None,
) -> RiskReport:
    """The three attacks on a synthetic table made from ``training`` (and never from ``control``)."""
    rng = rng if rng is not None else np.random.default_rng()
    domain = as_table_domain(declaration)
    real = pd.concat([training, control], ignore_index=True)
    pairs = paired_codes(real, synthetic, domain)
    names = list(pairs)
    real_codes = np.column_stack([pairs[n].real for n in names]).astype(np.int64)
    syn = np.column_stack([pairs[n].synthetic for n in names]).astype(np.int64)
    cells = np.array([pairs[n].cells for n in names], dtype=np.int64)
    ordinal = np.array([domain.kept[n].kind in RANGE_KINDS for n in names])
    bins = np.array([getattr(domain.kept[n], "bins", 1) if ordinal[i] else 1 for i, n in enumerate(names)])
    train, held = real_codes[: len(training)], real_codes[len(training) :]
    n = min(attacks, len(held), len(train))
    train_targets = train[rng.choice(len(train), n, replace=False)]
    control_targets = held[rng.choice(len(held), n, replace=False)]
    features = _Features(cells, ordinal, bins)
    syn_features = features.encode(syn)
    train_features, control_features = features.encode(train_targets), features.encode(control_targets)

    progress(0.45, "Singling out: trying predicates that match one synthetic record")
    same_size = train[rng.choice(len(train), len(held), replace=False)]
    singling = _singling_out(syn, same_size, held, cells, n, rng)
    progress(0.6, "Linkability: linking two halves of each record through the synthetic table")
    order = rng.permutation(len(names))
    half_a, half_b = np.zeros(len(names), bool), np.zeros(len(names), bool)
    half_a[order[: len(names) // 2]], half_b[order[len(names) // 2 :]] = True, True
    link = Risk(
        "linkability",
        _links(train_features, syn_features, features, half_a, half_b),
        _links(control_features, syn_features, features, half_a, half_b),
        Rate(int(np.sum(rng.integers(len(syn), size=n) == rng.integers(len(syn), size=n))), n),
        detail=f"{', '.join(np.array(names)[half_a])} | {', '.join(np.array(names)[half_b])}",
    )
    progress(0.75, f"Inference: guessing each of {len(names)} columns from the others")
    inference = []
    hits_train = _inference_hits(train_features, train_targets, syn_features, syn, features, rng)
    hits_control = _inference_hits(control_features, control_targets, syn_features, syn, features, rng)
    for i, name in enumerate(names):
        guesses = syn[rng.integers(len(syn), size=n), i]
        inference.append(
            Risk(
                "inference",
                Rate(int(hits_train[:, i].sum()), n),
                Rate(int(hits_control[:, i].sum()), n),
                Rate(int(np.sum(guesses == train_targets[:, i])), n),
                detail=name,
            )
        )
    progress(1.0, "Done")
    return RiskReport(singling, link, inference, len(training), len(control))


def _keys(codes: np.ndarray, columns: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """One integer per record for its values on ``columns`` (mixed radix over the columns' cells)."""
    key = np.zeros(len(codes), dtype=np.int64)
    for c in columns:
        key = key * cells[c] + codes[:, c]
    return key


def _counts(keys: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """How many of ``keys`` equal each query."""
    values, counts = np.unique(keys, return_counts=True)
    at = np.clip(np.searchsorted(values, queries), 0, max(len(values) - 1, 0))
    return np.where(values[at] == queries, counts[at], 0) if len(values) else np.zeros(len(queries), np.int64)


def _singling_out(syn, train, control, cells, attacks: int, rng) -> Risk:
    """Predicates on random sets of columns that single out one synthetic record, tried on equal-size
    sets of training and control records; the baseline tries predicates of random values."""
    width = min(PREDICATE_COLUMNS, syn.shape[1])
    found, baseline = [], []
    for _ in range(64):  # column sets; each offers every synthetic record unique on it
        columns = np.sort(rng.choice(syn.shape[1], width, replace=False))
        keys = _keys(syn, columns, cells)
        values, counts = np.unique(keys, return_counts=True)
        unique = values[counts == 1]
        if len(unique):
            take = rng.choice(unique, min(len(unique), max(1, attacks // 8)), replace=False)
            found += [(columns, take)]
        random_codes = np.column_stack(
            [rng.integers(cells[c], size=max(1, attacks // 64)) for c in range(syn.shape[1])]
        )
        baseline += [(columns, _keys(random_codes, columns, cells))]
    queries = [(c, k) for c, ks in found for k in ks]
    if len(queries) > attacks:
        queries = [queries[i] for i in rng.choice(len(queries), attacks, replace=False)]

    def successes(codes, sets) -> int:
        total = 0
        for columns in {tuple(c) for c, _ in sets}:
            wanted = np.array([k for c, k in sets if tuple(c) == columns], dtype=np.int64).ravel()
            total += int(np.sum(_counts(_keys(codes, np.array(columns), cells), wanted) == 1))
        return total

    base = [(c, k) for c, ks in baseline for k in ks][: max(len(queries), 1)]
    return Risk(
        "singling out",
        Rate(successes(train, queries), len(queries)),
        Rate(successes(control, queries), len(queries)),
        Rate(successes(train, base), len(base)),
        detail=f"{len(queries):,} predicates on {width} columns, on {len(control):,} records each",
    )


class _Features:
    """Records as weighted binary features, so that a Gower distance over any set of columns is one
    matrix product: ``d(a, b) = |a| + |b| - 2 a.b`` (weighted). A category (and missing) is one
    indicator of weight 1; an ordinal column's bin is a thermometer (bin > j, j = 0..bins-2) of
    weight 1/(bins-1) each, so two bins are apart by their distance over the range."""

    def __init__(self, cells, ordinal, bins):
        self.blocks = []  # per column: (offset, width)
        self.weights = []
        offset = 0
        for c in range(len(cells)):
            if ordinal[c] and bins[c] > 1:
                width = int(bins[c] - 1) + int(cells[c] > bins[c])  # thermometer, then 'missing'
                w = np.full(width, 1.0 / (bins[c] - 1), dtype=np.float32)
                if cells[c] > bins[c]:
                    w[-1] = 1.0
            else:
                width = int(cells[c])
                w = np.ones(width, dtype=np.float32)
            self.blocks.append((offset, width))
            self.weights.append(w)
            offset += width
        self.weight = np.concatenate(self.weights)
        self.ordinal, self.bins, self.cells = ordinal, bins, cells
        self.size = offset

    def encode(self, codes: np.ndarray) -> np.ndarray:
        out = np.zeros((len(codes), self.size), dtype=np.float32)
        rows = np.arange(len(codes))
        for c, (offset, width) in enumerate(self.blocks):
            v = codes[:, c]
            if self.ordinal[c] and self.bins[c] > 1:
                thermometer = np.arange(self.bins[c] - 1)[None, :] < np.minimum(v, self.bins[c] - 1)[:, None]
                missing = v >= self.bins[c]
                out[:, offset : offset + self.bins[c] - 1] = thermometer & ~missing[:, None]
                if width > self.bins[c] - 1:
                    out[rows, offset + width - 1] = missing
            else:
                out[rows, offset + v] = 1.0
        return out

    def select(self, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(positions of the features of ``columns``, their weights)."""
        at = np.concatenate([np.arange(o, o + w) for c, (o, w) in enumerate(self.blocks) if columns[c]])
        return at, self.weight[at]


def _distances(a: np.ndarray, b: np.ndarray, features) -> np.ndarray:
    """Weighted Hamming distances between encoded records (a x b) over the features ``(at, weight)``,
    by one matrix product."""
    at, weight = features
    a, b = a[:, at], b[:, at]
    return (a @ weight)[:, None] + (b @ weight)[None, :] - 2 * (a * weight) @ b.T


def _links(targets, syn, features, half_a, half_b) -> Rate:
    """A target is linked when one synthetic record is among its nearest on both halves (every record
    at the smallest distance counts as nearest: with binned columns, ties are the rule)."""
    a, b = features.select(half_a), features.select(half_b)
    linked = 0
    for start in range(0, len(targets), CHUNK):
        chunk = targets[start : start + CHUNK]
        d_a, d_b = _distances(chunk, syn, a), _distances(chunk, syn, b)
        near_a = d_a <= d_a.min(axis=1, keepdims=True) + 1e-4
        near_b = d_b <= d_b.min(axis=1, keepdims=True) + 1e-4
        linked += int(np.any(near_a & near_b, axis=1).sum())
    return Rate(linked, len(targets))


def _inference_hits(targets, target_codes, syn, syn_codes, features, rng) -> np.ndarray:
    """targets x columns: whether the nearest synthetic record on all other columns has the target's
    value (bin) in that column. The distance over every column is computed once; each column's own
    part is taken off in turn."""
    columns = syn_codes.shape[1]
    hits = np.zeros((len(targets), columns), dtype=bool)
    each = [features.select(np.arange(columns) == c) for c in range(columns)]
    every = features.select(np.ones(columns, dtype=bool))
    for start in range(0, len(targets), CHUNK):
        chunk = targets[start : start + CHUNK]
        total = _distances(chunk, syn, every)
        total += rng.random(total.shape, dtype=np.float32) * 1e-4
        for c in range(columns):
            nearest = np.argmin(total - _distances(chunk, syn, each[c]), axis=1)
            hits[start : start + CHUNK, c] = syn_codes[nearest, c] == target_codes[start : start + CHUNK, c]
    return hits
