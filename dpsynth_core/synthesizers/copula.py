"""DP Gaussian copula over dummy-coded columns (Asghar, Ding, Rakotoarivelo, Mrabet, Kaafar).

Guarantee: (epsilon, delta)-DP under adding or removing one record, by advanced
composition (delta = 1e-6) of: the noisy row count; one noisy 1-way margin per original
attribute (its dummies' counts of 1s form one histogram: a record adds one to one cell,
so the budget is per attribute, not per binary column, their Lemma 1); one noisy 2-way
table per pair of attributes, whose cells are the positive conjunction counts of every
pair of their dummies. Every measurement is a discrete Laplace histogram over declared
cells (numeric columns in public bins; weakly constrained text through a CatHist
vocabulary, see :mod:`dpsynth_core.synthesizers.finite`, with its public share of the
budget: :func:`measurement_epsilons`). Must be declared in advance: every domain.

From the noisy margins ``p_i`` and conjunctions ``p_ij``, each pair of dummies gets the
Gaussian correlation ``r`` for which ``P(Z_i > t_i, Z_j > t_j) = p_ij`` with
``t = Phi^-1(1 - p)``, found by bisection on the bivariate normal orthant probability for
all pairs at once. The matrix is projected to the nearest correlation matrix (Higham
2002, alternating projections) and forced positive definite; rows are sampled through its
Cholesky factor.

Decoding rule (exactly one category per attribute): each attribute takes the category
whose latent value most exceeds its threshold, ``argmax_j (Z_j - t_j + c_j)``. The offsets
``c_j`` are calibrated on the sampled latents (public) so the categories' frequencies
match the noisy margins.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pandas as pd

from .. import constraints
from ..data.encoding import EncodedTable
from ..domain import as_table_domain
from ..errors import ParameterError
from ..privacy.accounting import fit_to_budget
from ..privacy.histogram import noisy_histogram, to_probabilities
from .base import Synthesizer
from .charges import APPROXIMATE_DP
from .finite import FiniteColumn, coded_table, finite_column, vocabulary_shares
from .registry import register

#: Most indicators (one per category, bin, vocabulary value, "other" and "missing") the copula fits: its
#: pair tables and correlation matrix grow with their square, its eigendecompositions with their cube.
#: On a 2-core machine, 546 indicators took 9 s, 1,041 took 37 s (0.8 GB), 1,537 took 104 s (1.5 GB),
#: and 7,106 (a year of birth over 7,101 one-year bins) went past 24 GB and was killed.
MAX_INDICATORS = 1_000

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(24)
_ERFC = np.frompyfunc(math.erfc, 1, 1)
_INV_CDF = np.frompyfunc(NormalDist().inv_cdf, 1, 1)


def ndtr(x) -> np.ndarray:
    """The standard normal distribution function, elementwise (``math.erfc``: importing scipy's would cost
    a cold start a few tenths of a second)."""
    values, where = np.unique(np.asarray(x, float), return_inverse=True)  # pairs repeat a few hundred values
    return (_ERFC(-values / math.sqrt(2)).astype(float) / 2)[where]


def ndtri(p) -> np.ndarray:
    """The standard normal quantile function, elementwise (``statistics.NormalDist``, Wichura's AS241,
    about 1e-16 relative error); ``-inf`` at 0 and ``inf`` at 1."""
    values, where = np.unique(np.asarray(p, float), return_inverse=True)
    inside = np.where((values > 0) & (values < 1), values, 0.5)
    return np.where(values <= 0, -np.inf, np.where(values >= 1, np.inf, _INV_CDF(inside).astype(float)))[where]


def orthant_probability(h: np.ndarray, k: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``P(X > h, Y > k)`` for standard bivariate normals with correlation ``r`` (vectorised).

    Sheppard's formula ``Phi(-h) Phi(-k) + 1/(2 pi) int_0^asin(r) exp(-(h^2 + k^2 - 2hk sin t) /
    (2 cos^2 t)) dt`` with 24-point Gauss-Legendre quadrature.
    """
    h, k, r = np.broadcast_arrays(np.asarray(h, float), np.asarray(k, float), np.asarray(r, float))
    upper = np.arcsin(np.clip(r, -1.0, 1.0))
    theta = 0.5 * upper[..., None] * (_NODES + 1.0)
    sin, cos2 = np.sin(theta), np.cos(theta) ** 2
    hh, kk = h[..., None], k[..., None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        integrand = np.exp(-(hh * hh + kk * kk - 2 * hh * kk * sin) / (2 * np.maximum(cos2, 1e-300)))
    integrand = np.where(cos2 > 1e-300, integrand, 0.0)
    integral = 0.5 * upper * (integrand * _WEIGHTS).sum(axis=-1)
    return np.clip(ndtr(-h) * ndtr(-k) + integral / (2 * math.pi), 0.0, 1.0)


def gaussian_correlation(p_i: np.ndarray, p_j: np.ndarray, p_ij: np.ndarray) -> np.ndarray:
    """Correlation ``r`` with ``P(Z_i > t_i, Z_j > t_j) = p_ij``, for all pairs at once.

    The orthant probability increases with ``r`` and its derivative is the bivariate normal
    density at ``(t_i, t_j)`` (Plackett 1954), so 10 bisection steps bracket the root and
    safeguarded Newton steps finish it.
    """
    t_i, t_j = ndtri(1 - p_i), ndtri(1 - p_j)
    low = np.full(np.shape(p_ij), -1.0)
    high = np.full(np.shape(p_ij), 1.0)
    for _ in range(10):
        mid = 0.5 * (low + high)
        too_low = orthant_probability(t_i, t_j, mid) < p_ij
        low, high = np.where(too_low, mid, low), np.where(too_low, high, mid)
    r = 0.5 * (low + high)
    for _ in range(6):
        gap = orthant_probability(t_i, t_j, r) - p_ij
        low, high = np.where(gap < 0, r, low), np.where(gap < 0, high, r)
        one_minus = np.maximum(1 - r * r, 1e-12)
        density = np.exp(-(t_i**2 - 2 * r * t_i * t_j + t_j**2) / (2 * one_minus)) / (2 * math.pi * np.sqrt(one_minus))
        step = r - gap / np.maximum(density, 1e-300)
        r = np.where((step > low) & (step < high), step, 0.5 * (low + high))
    return r


def nearest_correlation(matrix: np.ndarray, iterations: int = 60, floor: float = 1e-4) -> np.ndarray:
    """Higham's alternating projections (with Dykstra's correction), then forced positive definite.

    On one BLAS thread (as in the app): a few hundred rows are too small to share, and on a busy
    2-core machine two threads made its 60 eigendecompositions 20 times slower.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        return _nearest_correlation(matrix, iterations, floor)


def _nearest_correlation(matrix: np.ndarray, iterations: int, floor: float) -> np.ndarray:
    y = (matrix + matrix.T) / 2
    correction = np.zeros_like(y)
    for _ in range(iterations):
        r = y - correction
        values, vectors = np.linalg.eigh(r)
        x = (vectors * np.clip(values, 0, None)) @ vectors.T
        correction = x - r
        y_next = x.copy()
        np.fill_diagonal(y_next, 1.0)
        if np.linalg.norm(y_next - y) < 1e-5 * max(1.0, np.linalg.norm(y)):
            y = y_next
            break
        y = y_next
    values, vectors = np.linalg.eigh((y + y.T) / 2)
    y = (vectors * np.clip(values, floor, None)) @ vectors.T
    scale = 1 / np.sqrt(np.diag(y))
    return y * scale[:, None] * scale[None, :]


def planned_indicators(column) -> int:
    """A column's indicators as far as the declaration tells: its declared bins or values, at most the
    fitted bins' cap, and a text column at least its "other" (its vocabulary comes with the data)."""
    if not column.binned or not column.complete:  # an incomplete one is counted once it is declared
        cells = 1
    elif getattr(column, "adaptive", False):
        cells = column.most_bins(short_ranges=False) + len(column.special)  # copula cuts no short range into values
    else:
        cells = column.bins
    return cells + (1 if column.missing else 0)


def check_indicators(cells: dict) -> None:
    """Refuse a table of more than :data:`MAX_INDICATORS` indicators, naming the largest columns."""
    total = sum(cells.values())
    if total > MAX_INDICATORS:
        largest = sorted(cells.items(), key=lambda item: -item[1])[:3]
        raise ParameterError(
            f"copula turns every value or bin of every column into an indicator: {total:,} indicators "
            f"({', '.join(f'{name} {count:,}' for name, count in largest)}), more than the "
            f"{MAX_INDICATORS:,} it can fit in reasonable time and memory; declare fewer bins (a wider "
            "bin_width, or none to have them fitted) or fewer values, or use 'marginals'"
        )


def per_measurement_epsilon(total: float, fixed: list, count: int, delta: float) -> float:
    """Largest epsilon0 such that ``count`` measurements of epsilon0, plus ``fixed`` ones, stay
    within ``total`` by the better of basic and advanced composition."""
    remaining = total - sum(fixed)
    return fit_to_budget(total, fixed, [(count, remaining / count)], delta)[0]


def measurement_count(domain) -> int:
    """The 1-way margins and pair tables measured: one per column and one per pair of columns."""
    m = len(domain.kept)
    return m + m * (m - 1) // 2


def measurement_epsilons(domain, total: float, fixed: list, delta: float) -> tuple[float, dict[str, float]]:
    """The epsilon of each 1-way margin and pair table, and of each text column's CatHist vocabulary, that
    fill ``total`` after the ``fixed`` spends (row count, bins) by the better of basic and advanced
    composition (delta slack ``delta``).

    Each vocabulary gets its share of :func:`~dpsynth_core.synthesizers.finite.vocabulary_shares`
    (the declaration alone) of the sum of squared epsilons, which advanced composition charges (as zCDP
    charges rho, the unit of that share under ``marginals``): with ``M`` margins and tables of ``e0`` and
    shares ``s`` totalling ``S``, a vocabulary gets ``e0 * sqrt(s * M / (1 - S))``. An equal part with the
    margins and tables (0.0232 on compas at epsilon 1, 10 columns, 3 of them free text) needed about 487
    records for a value to come out: no value of the column whose commonest value has 258 came out.
    """
    count = measurement_count(domain)
    shares = vocabulary_shares(domain)
    rest = 1 - sum(shares.values())
    weights = {name: math.sqrt(share * count / rest) for name, share in shares.items()}
    eps0, *text = fit_to_budget(total, fixed, [(count, 1.0)] + [(1, w) for w in weights.values()], delta)
    return eps0, dict(zip(weights, text))


@register(
    "copula",
    "Gaussian copula",
    """Turns every column into yes/no indicators (one per category or public bin), measures
    with noise how often each indicator is on and how often every two indicators are on
    together, and fits a multivariate normal model whose correlations reproduce those
    rates. Synthetic rows are drawn from that model. It keeps pairwise relationships
    across all columns at once; its guarantee has a tiny failure probability delta.""",
    rank=3,
)
class GaussianCopula(Synthesizer):
    """DP Gaussian copula over dummy-coded columns (see module docstring)."""

    guarantee = APPROXIMATE_DP
    column_label = "1-way margin {}"

    @classmethod
    def _method_events(cls, domain, epsilon, left, common, *, rows=None, **options) -> list:
        names = list(domain.kept)
        check_indicators({n: planned_indicators(domain.kept[n]) for n in names})
        eps0, text = measurement_epsilons(
            domain, epsilon, [e.epsilon for e in common], constraints.ADVANCED_COMPOSITION_DELTA
        )
        return (
            [cls._event("CatHist", e, f"vocabulary {n}") for n, e in text.items()]
            + [cls._event("discrete Laplace histogram", eps0, f"1-way margin {n}") for n in names]
            + [
                cls._event("discrete Laplace histogram", eps0, f"2-way conjunctions {a} x {b}")
                for i, a in enumerate(names)
                for b in names[i + 1 :]
            ]
        )

    @classmethod
    def _row_plan(cls, domain, epsilon, *, rows=None, expected_rows=None, **options) -> dict:
        """Every measurement's own epsilon (the pair tables as one bar: they all get the same)."""
        plan, pairs = {}, 0
        for event in cls._row_charge(domain, epsilon, rows=rows, **options).events:
            if event.label.startswith("2-way conjunctions"):
                pairs += 1
                plan["pair tables"] = event.epsilon
            else:
                plan[event.label] = event.epsilon
        if pairs:
            plan[f"each of {pairs} pair tables"] = plan.pop("pair tables")
        return plan

    @classmethod
    def column_noise(cls, domain, epsilon, *, rows=None, expected_rows=None, **options) -> dict:
        """A column's 1-way margin, or a text column's vocabulary (its share: :func:`measurement_epsilons`), with
        the trade-off the outlook states: the margins' and tables' noise beside a release without vocabularies."""
        noise = super().column_noise(domain, epsilon, rows=rows, expected_rows=expected_rows, **options)
        domain = as_table_domain(domain).measured()
        shares = vocabulary_shares(domain)
        if not shares:
            return noise
        plan = cls._row_plan(domain, epsilon, rows=rows, expected_rows=expected_rows, **options)
        common, _ = cls._common_events(domain, epsilon, rows, **options)
        alone = per_measurement_epsilon(
            epsilon, [e.epsilon for e in common], measurement_count(domain), constraints.ADVANCED_COMPOSITION_DELTA
        )
        others = alone / next(v for k, v in plan.items() if k.startswith("1-way margin"))
        for name, share in shares.items():
            noise[name] = {
                "epsilon": plan[f"vocabulary {name}"],
                "budget_share": share,
                "text_share": sum(shares.values()),
                "others_noise": others,
            }
        return noise

    @classmethod
    def privacy_note(cls, domain, epsilon, *, rows=None, **options):
        return (
            "info",
            "Every measurement gets the ε shown; they are combined by advanced composition, whose "
            f"guarantee has a failure probability δ = {constraints.ADVANCED_COMPOSITION_DELTA:g}, so the "
            "bars add up to more than the total ε.",
        )

    def _fit(self, encoded: EncodedTable, epsilon: float) -> None:
        names = list(encoded.columns)
        fixed = [e.epsilon for e in self.accountant_.events]
        eps0, text = measurement_epsilons(self.domain_, self.epsilon_, fixed, constraints.ADVANCED_COMPOSITION_DELTA)
        self.measurement_epsilon_ = eps0
        self.columns_: dict[str, FiniteColumn] = {}
        for name in names:
            self.columns_[name] = finite_column(
                encoded.columns[name],
                text_epsilon=text.get(name, 0.0),
                rho=self.rho_,
                noise=self.noise_,
                label=f"vocabulary {name}",
            )
            if self.columns_[name].vocabulary is not None:
                self._spend("CatHist", text[name], f"vocabulary {name}")
        check_indicators({n: self.columns_[n].cells for n in names})
        offsets = np.cumsum([0] + [self.columns_[n].cells for n in names])
        self.offsets_ = offsets
        margins, pairs = measure(coded_table(self.columns_, encoded.n_rows), eps0, self.noise_)
        for name in names:
            self._spend("discrete Laplace histogram", eps0, f"1-way margin {name}")
        for a, b in pairs:
            self._spend("discrete Laplace histogram", eps0, f"2-way conjunctions {a} x {b}")
        d = offsets[-1]
        margin = np.concatenate([to_probabilities(margins[n]) for n in names])
        conjunction = np.zeros((d, d))
        for (a, b), noisy in pairs.items():
            i, j = names.index(a), names.index(b)
            block = to_probabilities(noisy).reshape(self.columns_[a].cells, self.columns_[b].cells)
            conjunction[offsets[i] : offsets[i + 1], offsets[j] : offsets[j + 1]] = block
        p = np.clip(margin, 1e-6, 1 - 1e-6)
        upper_i, upper_j = np.triu_indices(d, 1)
        target = conjunction[upper_i, upper_j]  # zero inside an attribute: its dummies exclude each other
        lowest = np.maximum(0.0, p[upper_i] + p[upper_j] - 1) + 1e-9
        highest = np.minimum(p[upper_i], p[upper_j]) - 1e-9
        target = np.clip(target, lowest, highest)
        correlation = np.eye(d)
        correlation[upper_i, upper_j] = gaussian_correlation(p[upper_i], p[upper_j], target)
        correlation[upper_j, upper_i] = correlation[upper_i, upper_j]
        self.margin_ = p
        self.thresholds_ = ndtri(1 - p)
        self.correlation_ = nearest_correlation(correlation)
        self.cholesky_ = np.linalg.cholesky(self.correlation_)
        self.calibration_ = self._calibrate()

    def _latent(self, n: int) -> np.ndarray:
        """``n`` rows of the latent normals (float32: the decoding only compares them, and half the bytes
        halve the time of drawing, multiplying and comparing)."""
        factor = self.cholesky_.T.astype(np.float32)
        return self.noise_.rng.standard_normal((n, len(self.margin_)), dtype=np.float32) @ factor

    def _blocks(self, latent: np.ndarray) -> list:
        """Each attribute's latent values minus their thresholds, one contiguous array per attribute."""
        t = self.thresholds_.astype(np.float32)
        return [np.ascontiguousarray(latent[:, lo:hi] - t[lo:hi]) for lo, hi in zip(self.offsets_, self.offsets_[1:])]

    def _choose(self, blocks: list, shift: np.ndarray) -> dict:
        shift = shift.astype(np.float32)
        return {
            name: np.argmax(block + shift[lo:hi], axis=1)
            for name, block, lo, hi in zip(self.columns_, blocks, self.offsets_, self.offsets_[1:])
        }

    def _calibrate(self, rows: int = 20_000, rounds: int = 30) -> np.ndarray:
        """Offsets so each attribute's argmax frequencies match its noisy margin (post-processing).

        Each attribute's choice depends on its own offsets only, so each is calibrated on its own and
        stops as soon as every category's frequency is within half a standard error of its target
        (the sampling error of ``rows`` latent rows: more rounds would only fit that noise). A tiny
        category can make the updates oscillate, so the offsets kept are the round's that came closest.
        """
        blocks = self._blocks(self._latent(rows))
        shift = np.zeros(len(self.margin_))
        for block, lo, hi in zip(blocks, self.offsets_, self.offsets_[1:]):
            target = self.margin_[lo:hi] / self.margin_[lo:hi].sum()
            tolerance = 0.5 * np.sqrt(target * (1 - target) / rows) + 0.5 / rows
            own, best, best_gap = np.zeros(hi - lo, dtype=np.float32), None, np.inf
            for _ in range(rounds):
                freq = np.bincount(np.argmax(block + own, axis=1), minlength=hi - lo) / rows
                gap = float(np.max(np.abs(freq - target) / tolerance))
                if gap < best_gap:
                    best, best_gap = own.copy(), gap
                if gap <= 1:
                    break
                own += (0.5 * (np.log(target + 1e-6) - np.log(freq + 1e-6))).astype(np.float32)
            shift[lo:hi] = best
        return shift

    def _sample(self, n: int, chunk: int = 50_000) -> pd.DataFrame:
        # In chunks: a million rows of a few hundred latent normals would need gigabytes at once.
        parts = [
            self._choose(self._blocks(self._latent(min(chunk, n - start))), self.calibration_)
            for start in range(0, n, chunk)
        ]
        chosen = {name: np.concatenate([p[name] for p in parts]) for name in self.columns_}
        return pd.DataFrame(
            {
                name: self.columns_[name].decode(chosen[name], self.noise_).reset_index(drop=True)
                for name in self.columns_
            }
        )

    def card_details(self) -> dict:
        return {
            "binary_columns": int(len(self.margin_)),
            "measurement_epsilon": self.measurement_epsilon_,
            "decoding_rule": "each attribute takes the category whose latent most exceeds its threshold, "
            "with offsets calibrated to the noisy margins",
        }


def measure(table, epsilon: float, noise) -> tuple[dict, dict]:
    """The copula's only reads of the data: noisy 1-way margins and 2-way conjunction tables.

    Each is a discrete Laplace histogram of L1 sensitivity 1 with ``epsilon`` (a record
    adds one to one cell of each attribute's margin and of each pair's table).
    ``table``: a :class:`~dpsynth_core.data.counting.CodedTable` of the attributes.
    """
    names = list(table.codes)
    margins = {
        n: noisy_histogram(table.marginal((n,)), epsilon=epsilon, noise=noise, label=f"margin {n}") for n in names
    }
    pairs = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            pairs[(a, b)] = noisy_histogram(
                table.marginal((a, b)).ravel(), epsilon=epsilon, noise=noise, label=f"pair {a} x {b}"
            )
    return margins, pairs
