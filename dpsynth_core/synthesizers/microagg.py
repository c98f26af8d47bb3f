"""Micro-aggregation with a noisy Gaussian per cluster (book chapter 6, section 6.4). No DP guarantee.

Steps: every column becomes a number in [-1, 1] (its cell's position among the declared
cells, "missing" first, scaled by the declared number of cells, so no bound is read off
the data; "missing" sits at the low end so that spread-out draws around a text column's
large "other" cell, its last, do not turn into missing cells); features are
grouped by agglomerative clustering on the distance ``1 - |Pearson correlation|``; within
each group, MDAV (maximum distance to average record, Domingo-Ferrer) forms clusters of
``k`` similar records; each cluster's mean and covariance get Laplace noise; synthetic
records are drawn from the noisy Gaussians, kept inside [-1, 1] (a draw outside is drawn again, not
clipped onto the end cells: :func:`_truncated_draws`), and rounded back to cells.

Honest guarantee: **none**. The feature groups come from the real correlations and the
clusters from the real records, both without noise: adding one record can change which
records share a cluster, and the noise on the means and covariances does not cover that.
The card reports the noise's epsilon as a parameter, not as a guarantee. (A DP version
would need private clustering, for instance fixed public cells, which is what the
histogram methods already are.) Useful for teaching and comparison.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..data.encoding import EncodedTable
from ..errors import ParameterError
from ..privacy.noise import real_laplace
from .base import Synthesizer
from .charges import NO_GUARANTEE
from .registry import register

MAX_ROWS = 200_000


def mdav(points: np.ndarray, k: int) -> list[np.ndarray]:
    """MDAV clusters (row indices) of at least ``k`` rows each, the last one up to ``2k - 1``.

    Worked on the distinct points with their counts of rows (codes repeat: a few thousand distinct points where a
    table has tens of thousands of rows), which is MDAV itself up to how ties are broken: records at one point
    are interchangeable, and a cluster's mean and covariance read only its points. Still quadratic in the distinct
    points (about ``n / k`` rounds, each scanning them a few times; hence :data:`MAX_ROWS`)."""
    distinct, inverse, counts = np.unique(points, axis=0, return_inverse=True, return_counts=True)
    by_point = np.argsort(inverse.ravel(), kind="stable")  # the rows, grouped by their point
    first = np.cumsum(counts) - counts  # each point's first place in by_point
    alive, left, at = np.arange(len(distinct)), counts.copy(), distinct  # points with rows left, and how many
    clusters = []

    def distances(centre):
        apart = at - centre
        return np.einsum("ij,ij->i", apart, apart)  # squared distances, in one pass

    def farthest(centre):
        return at[np.argmax(distances(centre))].copy()

    def centroid():
        return left @ at / left.sum()

    def rows_of(places, taken):
        """The next ``taken`` rows of each of the points at ``places`` (among those with rows left)."""
        points = alive[places]
        starts = first[points] + counts[points] - left[places]  # past the rows already in a cluster
        return by_point[np.repeat(starts - (np.cumsum(taken) - taken), taken) + np.arange(taken.sum())]

    def take(centre) -> None:
        """The ``k`` rows nearest ``centre`` (the last point reached gives only what is needed) become a cluster."""
        nonlocal alive, left, at
        d = distances(centre)
        near = np.argpartition(d, min(k, len(d)) - 1)[:k]  # k points hold at least k rows
        near = near[np.argsort(d[near], kind="stable")]
        reached = np.cumsum(left[near])
        near = near[: np.searchsorted(reached, k) + 1]
        taken = left[near].copy()
        taken[-1] -= reached[len(near) - 1] - k
        clusters.append(rows_of(near, taken))
        left[near] -= taken
        kept = left > 0
        alive, left, at = alive[kept], left[kept], at[kept]

    while left.sum() >= 3 * k:
        r = farthest(centroid())
        s = farthest(r)
        take(r)
        take(s)
    if left.sum() >= 2 * k:
        take(farthest(centroid()))
    if len(alive):
        clusters.append(rows_of(np.arange(len(alive)), left))
    return clusters


def feature_groups(points: np.ndarray, count: int) -> list[list[int]]:
    """Agglomerative clustering of the columns on ``1 - |correlation|`` (average linkage).

    Exactly ``min(count, columns)`` groups (the tree is cut there), so their number is public.
    """
    from scipy.cluster.hierarchy import cut_tree, linkage  # here: scipy costs every other start a few tenths
    from scipy.spatial.distance import squareform

    d = points.shape[1]
    if count >= d or d == 1:
        return [[j] for j in range(d)]
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.nan_to_num(np.corrcoef(points, rowvar=False))
    distance = np.clip(1 - np.abs(corr), 0, None)
    np.fill_diagonal(distance, 0)
    labels = cut_tree(linkage(squareform(distance, checks=False), method="average"), n_clusters=count).ravel()
    return [list(np.flatnonzero(labels == g)) for g in np.unique(labels)]


@register(
    "microagg",
    "Micro-aggregation (no formal guarantee)",
    """Groups similar records into small clusters, describes each cluster by an average and
    a spread with noise added, and draws new records from those descriptions. Shown for
    teaching and comparison: because the clusters are formed from the real records without
    noise, it does not carry a differential-privacy guarantee, and the release card says so.""",
    rank=7,
)
class MicroAggregation(Synthesizer):
    """MDAV micro-aggregation with a noisy Gaussian per cluster (see module docstring).

    Args:
        k: records per cluster; feature_groups: number of feature groups (default: a quarter of the
            columns, at least 1).
    """

    guarantee = NO_GUARANTEE

    def __init__(self, *, epsilon, rho=0.9, random_state=None, k: int = 50, feature_groups: int | None = None):
        super().__init__(epsilon=epsilon, rho=rho, random_state=random_state)
        # Not ``groups``: elsewhere that names publisher-chosen column groups (a list of column lists).
        self.k, self.feature_groups = k, feature_groups

    @classmethod
    def _method_events(cls, domain, epsilon, left, common, *, rows=None, feature_groups=None, **options) -> list:
        """The noise it adds (no guarantee: the events only say how epsilon is split)."""
        names = list(domain.kept)
        texts = [n for n in names if not domain.kept[n].binned]
        text_eps = left / (2 * len(names)) if texts else 0.0
        count = min(len(names), feature_groups or max(1, math.ceil(len(names) / 4)))
        per_group = (left - text_eps * len(texts)) / count
        return [cls._event("CatHist", text_eps, f"vocabulary {n}") for n in texts] + [
            cls._event("Laplace on cluster means and covariances", per_group, f"feature group {i}")
            for i in range(1, count + 1)
        ]

    @classmethod
    def budget_plan(cls, domain, epsilon, *, rows=None, **options) -> dict:
        plan = super().budget_plan(domain, epsilon, rows=rows, **options)
        groups = [label for label in plan if label.startswith("feature group")]
        if groups:
            plan["noise on cluster means and covariances (no guarantee)"] = sum(plan.pop(g) for g in groups)
        return plan

    @classmethod
    def privacy_note(cls, domain, epsilon, *, rows=None, **options):
        return (
            "error",
            "Micro-aggregation gives **no differential-privacy guarantee**. It groups the real records "
            "into clusters of at least k similar people with **MDAV** (maximum distance to average "
            "vector: take the record furthest from the average and its k − 1 nearest neighbours, then "
            "the record furthest from that one and its neighbours, and repeat), then releases noisy "
            "averages per cluster. The clusters themselves are formed from the real records without "
            "noise, so one person can change them. Use it only for teaching or comparison.",
        )

    def _fit(self, encoded: EncodedTable, epsilon: float) -> None:
        if encoded.n_rows > MAX_ROWS:
            # (no exact count in a message: it could be copied where the publisher-only report is not)
            raise ParameterError(
                f"microagg clusters at most {MAX_ROWS:,} rows (MDAV is quadratic); this table "
                "has more: choose another method"
            )
        if self.k < 2:
            raise ParameterError(f"k ({self.k}) must be at least 2")
        if self.k > encoded.n_rows:  # (no exact count in a message, as above)
            raise ParameterError(
                f"microagg replaces each group of k = {self.k} records by its average, and this table has fewer "
                "records than that: choose another method (or, in Python, a smaller k)"
            )
        names = list(encoded.columns)
        texts = [n for n, c in encoded.columns.items() if not c.domain.binned]
        text_eps = epsilon / (2 * len(names)) if texts else 0.0
        self._measure_vocabularies(encoded, text_eps)
        epsilon -= text_eps * len(texts)
        cells = np.array([self.columns_[n].cells for n in names], dtype=float)
        positions = np.column_stack([_position(self.columns_[n], self.columns_[n].codes) for n in names])
        points = positions / np.maximum(cells - 1, 1) * 2 - 1
        count = self.feature_groups or max(1, math.ceil(len(names) / 4))
        self.groups_ = [[names[j] for j in g] for g in feature_groups(points, count)]
        per_group = epsilon / len(self.groups_)
        self.models_ = []
        for index, group in enumerate(self.groups_, start=1):
            columns = [names.index(c) for c in group]
            sub = points[:, columns]
            g = len(columns)
            clusters = mdav(sub, self.k)
            sizes = np.array([len(c) for c in clusters])
            means = np.array([sub[c].mean(axis=0) for c in clusters])
            covs = np.array([np.cov(sub[c], rowvar=False).reshape(g, g) for c in clusters])
            # Within a cluster of s records in [-1, 1]^g, one record moves the mean by at most
            # 2/s per coordinate and a covariance entry by at most about 8/s (substitution).
            mean_scale = 2 * g / (self.k * per_group / 2)
            cov_scale = 8 * g * g / (self.k * per_group / 2)
            noisy_means = real_laplace(self.noise_, means.ravel(), mean_scale, label="cluster means").reshape(
                means.shape
            )
            noisy_covs = real_laplace(self.noise_, covs.ravel(), cov_scale, label="cluster covariances").reshape(
                covs.shape
            )
            # Labelled by index: which columns form a group comes from the real correlations
            # without noise, so the lists go to the publisher only (publisher_details).
            self._spend("Laplace on cluster means and covariances", per_group, f"feature group {index}")
            self.models_.append((group, sizes, np.clip(noisy_means, -1, 1), [_psd(c) for c in noisy_covs]))

    def _sample(self, n: int) -> pd.DataFrame:
        rng = self.noise_.rng
        names = list(self.columns_)
        codes = {}
        for group, sizes, means, factors in self.models_:
            choice = rng.choice(len(sizes), size=n, p=sizes / sizes.sum())
            values = _truncated_draws(means[choice], np.asarray(factors)[choice], rng)
            for j, name in enumerate(group):
                cells = self.columns_[name].cells
                position = np.clip(np.rint((values[:, j] + 1) / 2 * (cells - 1)), 0, cells - 1)  # values in [-1, 1]
                codes[name] = _code(self.columns_[name], position.astype(np.int64))
        return pd.DataFrame(
            {name: self.columns_[name].decode(codes[name], self.noise_).reset_index(drop=True) for name in names}
        )

    def missing_guarantee(self) -> str | None:
        return (
            "the clusters (MDAV) and feature groups are computed from the real records without noise; "
            "noise covers only each cluster's mean and covariance"
        )

    def card_details(self) -> dict:
        return {"k": self.k, "feature_groups": len(self.groups_)}

    def publisher_details(self) -> dict:
        """The feature groups come from the real correlations without noise: publisher only."""
        return {"feature_groups": self.groups_}


#: Rounds of drawing again a row (then a coordinate) that fell outside [-1, 1], before the rest is clipped.
REDRAWS = 20


def _truncated_draws(means: np.ndarray, factors: np.ndarray, rng) -> np.ndarray:
    """One draw per row from ``N(means[i], factors[i] factors[i]^T)`` kept inside ``[-1, 1]``: a row with a
    coordinate outside is drawn again whole, up to ``REDRAWS`` times (a truncated normal, correlations kept),
    then each coordinate still outside alone from its own normal, up to ``REDRAWS`` times, then clipped.

    Clipped at once, every draw past the low end became the first cell, "missing" (:func:`_position`), and
    past the high end a text column's "other": with the noisy covariances' wide spread, about 30% missing
    cells in every column of a table that has none (epsilon 1). Sampling only: nothing is read again."""
    values = means + np.einsum("nij,nj->ni", factors, rng.standard_normal(means.shape))
    for _ in range(REDRAWS):
        outside = np.flatnonzero((np.abs(values) > 1).any(axis=1))
        if not outside.size:
            return values
        noise = rng.standard_normal((outside.size, means.shape[1]))
        values[outside] = means[outside] + np.einsum("nij,nj->ni", factors[outside], noise)
    spread = np.sqrt((factors**2).sum(axis=2))  # each coordinate's own standard deviation
    for _ in range(REDRAWS):
        rows, cols = np.nonzero(np.abs(values) > 1)
        if not rows.size:
            break
        values[rows, cols] = means[rows, cols] + spread[rows, cols] * rng.standard_normal(rows.size)
    return np.clip(values, -1, 1)


def _position(column, codes: np.ndarray) -> np.ndarray:
    """A cell's place on the numeric axis: "missing" (the last code, when allowed) first, then the others."""
    if column.missing_code is None:
        return codes
    return np.where(codes == column.missing_code, 0, codes + 1)


def _code(column, position: np.ndarray) -> np.ndarray:
    """The inverse of :func:`_position`."""
    if column.missing_code is None:
        return position
    return np.where(position == 0, column.missing_code, position - 1)


def _psd(matrix: np.ndarray) -> np.ndarray:
    """A square-root factor of the nearest positive semi-definite matrix (eigenvalues clipped)."""
    sym = (matrix + matrix.T) / 2
    values, vectors = np.linalg.eigh(sym)
    return vectors * np.sqrt(np.clip(values, 0, None))
