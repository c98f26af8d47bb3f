"""The ``cathist`` method, independent columns: one DP histogram per column, rows drawn column by column.

Guarantee: epsilon-DP under adding or removing one record, by basic composition of one
histogram per kept column (L1 sensitivity 1 each) and the noisy row count. Categorical
and text columns use CatHist (Rodriguez and Howe 2018) over their declared domain plus
"missing"; integer, float and date columns use a discrete Laplace histogram over their
public bins, with values drawn uniformly inside the chosen bin. A text column with declared
``prefixes`` (hierarchical codes) is released level by level within its share
(:func:`~dpsynth_core.privacy.prefixes.release_levels`, the same function the other methods' vocabularies
use), and a released prefix ``P*`` is drawn for the records that fall back to it
(:func:`~dpsynth_core.privacy.prefixes.fallback_weights`). Must be declared in advance: every column's
domain. Relationships between columns are not kept.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..data.decoding import decode_codes
from ..domain import CategoricalDomain, ColumnDomain, TextDomain
from ..privacy.cathist import cathist, draw_from_generator, draw_from_range, expected_made_up, fidelity, threshold
from ..privacy.histogram import noisy_histogram, to_probabilities
from ..privacy.prefixes import fallback_codes, fallback_weights, level_budget, release_levels
from .base import Synthesizer
from .charges import CATHIST, HISTOGRAM
from .finite import empty_text_note
from .registry import register


@dataclass
class ColumnModel:
    """A column's released distribution: keys (cell codes or text labels) and their weights."""

    domain: ColumnDomain
    keys: list
    noisy_counts: np.ndarray
    epsilon: float
    mechanism: str
    tau: float | None = None
    cut: int | None = None
    weights: np.ndarray | None = None  # hierarchical codes: the records each released value stands for

    @property
    def probabilities(self) -> np.ndarray:
        if not len(self.keys):
            return np.zeros(0)
        return to_probabilities(self.noisy_counts if self.weights is None else self.weights)

    @property
    def is_empty(self) -> bool:
        return len(self.keys) == 0 or not (np.asarray(self.noisy_counts) > 0).any()

    def sample(self, n: int, noise) -> pd.Series:
        domain = self.domain
        if self.is_empty:
            return _uniform_column(domain, n, noise)
        picks = noise.rng.choice(len(self.keys), size=n, p=self.probabilities)
        if domain.binned:
            return decode_codes(domain, np.asarray(self.keys, dtype=np.int64)[picks], noise)
        return pd.Series(np.asarray(self.keys, dtype=object)[picks], dtype=object)


def _uniform_column(domain: ColumnDomain, n: int, noise) -> pd.Series:
    """Nothing survived the noise (a data-independent, public fallback).

    A binned column is drawn uniformly over its declared cells. A text column shows its
    domain's first value (``label_at(0)``), the public placeholder that
    :mod:`dpsynth_core.synthesizers.finite` also uses: drawing from a weakly constrained domain would
    invent about one value per row, while CatHist's made-up values follow rho (none with
    probability rho).
    """
    if domain.binned:
        cells = domain.bins + (1 if domain.missing else 0)
        return decode_codes(domain, noise.rng.integers(0, cells, size=n), noise)
    return pd.Series([domain.label_at(0)] * n, dtype=object)


def fit_column(
    source, domain: ColumnDomain, *, epsilon: float, rho: float, noise, label: str
) -> tuple[ColumnModel, dict]:
    """One column's DP histogram: CatHist for categorical and text, full histogram for numeric bins.

    ``source`` is a counting source (:mod:`dpsynth_core.engines`) and ``domain`` the column's
    declaration in the release (with its DP bins): the column is read through its exact value
    counts (text) or 1-way marginal (binned). Returns the model and the true counts of the
    present keys (publisher-only diagnostics).
    """
    name = domain.name
    if isinstance(domain, TextDomain) and domain.prefixes:
        counts = source.value_counts(name)
        keys, noisy, _, lengths = release_levels(
            domain, counts, epsilon=epsilon, rho=rho, noise=noise, label=label, with_missing=domain.missing
        )
        model = ColumnModel(domain, keys, noisy, epsilon, "CatHist", weights=fallback_weights(keys, noisy, lengths))
        return model, dict(counts)
    if isinstance(domain, TextDomain):
        counts = source.value_counts(name)
        size = domain.size + (1 if domain.missing else 0)
        result = cathist(
            list(counts.index),
            counts.to_numpy(dtype=np.int64),
            size,
            epsilon=epsilon,
            rho=rho,
            draw_inactive=draw_from_generator(domain, with_missing=domain.missing),
            noise=noise,
            label=label,
        )
        return (
            ColumnModel(domain, result.keys, result.counts, epsilon, "CatHist", result.tau, result.threshold.cut),
            dict(counts),
        )
    counts = source.marginal((name,))
    cells = int(counts.size)
    present = {i: int(c) for i, c in enumerate(counts) if c}
    if isinstance(domain, CategoricalDomain):
        active = np.flatnonzero(counts)
        result = cathist(
            active.tolist(),
            counts[active],
            cells,
            epsilon=epsilon,
            rho=rho,
            draw_inactive=draw_from_range(cells),
            noise=noise,
            label=label,
        )
        return (
            ColumnModel(domain, result.keys, result.counts, epsilon, "CatHist", result.tau, result.threshold.cut),
            present,
        )
    noisy = noisy_histogram(counts, epsilon=epsilon, noise=noise, label=label)
    return ColumnModel(domain, list(range(cells)), noisy, epsilon, "discrete Laplace histogram"), present


@register(
    "cathist",
    "Independent columns (CatHist)",
    """Each column is summarised on its own by a noisy histogram over its declared domain,
    and synthetic rows are drawn column by column. Categories and text use CatHist, which
    keeps a value only when its noisy count clears a threshold set by your tolerance for
    randomness, and may add a few made-up values so that rare real values stay deniable.
    Numbers use noisy counts in their public bins. Every column's distribution is kept;
    relationships between columns (say, age and income) are not.""",
    rank=2,
)
class CatHistSynthesizer(Synthesizer):
    """Independent columns via CatHist and public-bin histograms (see module docstring).

    Budget: after the row count's share, epsilon is split equally across kept columns.
    """

    reads_sources = True
    tolerance_columns = "category or text"

    @classmethod
    def uses_tolerance(cls, domain) -> bool:
        return True  # categories, like text, go through CatHist's threshold

    @classmethod
    def column_mechanism(cls, column, **options) -> str:
        return CATHIST if column.kind in ("categorical", "text") else HISTOGRAM

    @classmethod
    def _method_events(cls, domain, epsilon, left, common, *, rows=None, **options) -> list:
        names = list(domain.kept)
        share = left / len(names)
        return [
            cls._event(
                "CatHist" if domain.kept[n].kind in ("categorical", "text") else "discrete Laplace histogram",
                share,
                f"column {n}",
            )
            for n in names
        ]

    def _fit(self, source, epsilon: float) -> None:
        names = list(self.domain_.kept)
        share = epsilon / len(names)
        self.models_: dict[str, ColumnModel] = {}
        self.true_counts_ = {}
        for name in names:
            model, self.true_counts_[name] = fit_column(
                source, self.domain_.kept[name], epsilon=share, rho=self.rho_, noise=self.noise_, label=f"column {name}"
            )
            self._spend(model.mechanism, share, f"column {name}")
            self.models_[name] = model

    def _sample(self, n: int) -> pd.DataFrame:
        return pd.DataFrame(
            {name: model.sample(n, self.noise_).reset_index(drop=True) for name, model in self.models_.items()}
        )

    def card_details(self) -> dict:
        out = {}
        for name, model in self.models_.items():
            entry = {"mechanism": model.mechanism, "epsilon": model.epsilon}
            if model.weights is not None:
                entry.update(prefix_levels=_level_details(model.domain, model.epsilon, self.rho_))
            elif model.tau is not None:
                size = _cathist_size(model.domain)
                entry.update(
                    tau=round(model.tau, 4),
                    discrete_cut=model.cut,
                    expected_made_up_values=round(expected_made_up(size, self.rho_), 4),
                )
            out[name] = entry
        return {"columns": out}

    def release_notes(self) -> list[str]:
        """The base notes, and a column of which nothing came out (public: the release's own output)."""
        notes = super().release_notes()
        for name, model in self.models_.items():
            if not model.is_empty:
                continue
            if model.domain.binned:
                notes.append(
                    f"No value of the column '{name}' came out of its noisy counts, so its cells are drawn "
                    "evenly over its declared values."
                )
            else:
                kept = threshold(_cathist_size(model.domain), self.rho_, model.epsilon).smallest_count_kept(0.5)
                notes.append(empty_text_note(name, model.domain.label_at(0), epsilon=model.epsilon, needed=kept))
        return notes

    def text_facts(self) -> dict[str, dict]:
        """Each free-text column's public facts (see the base): placeholder, values out, records needed."""
        out = {}
        for name, model in self.models_.items():
            if model.domain.binned:
                continue
            plain = model.weights is None
            rule = threshold(_cathist_size(model.domain), self.rho_, model.epsilon) if plain else None
            out[name] = {
                "placeholder": model.domain.label_at(0),
                "values_out": 0 if model.is_empty else len(model.keys),
                "epsilon": model.epsilon if plain else None,
                "needed": rule.smallest_count_kept(0.5) if plain else None,
            }
        return out

    def publisher_details(self) -> dict:
        """Per column: fidelity F and whether values were made up (reveals the data)."""
        out = {}
        for name, model in self.models_.items():
            true = self.true_counts_[name]
            released = dict(zip(model.keys, model.noisy_counts if model.weights is None else model.weights))
            if model.weights is not None:  # every true value counted where the fallback rule puts it
                codes = fallback_codes(list(true), tuple(model.keys), model.domain.levels)
                keys = list(model.keys) + ["\x00other"]
                true = pd.Series(list(true.values())).groupby([keys[c] for c in codes], dropna=False).sum().to_dict()
            out[name] = {
                "fidelity": fidelity(true, released),
                "kept_values": len(model.keys),
                "true_values": len(self.true_counts_[name]),
            }
        return out


def _cathist_size(domain: ColumnDomain) -> int:
    return domain.size + (1 if domain.missing else 0)


def _level_details(domain: TextDomain, epsilon: float, rho: float) -> list[dict]:
    """Each level of a hierarchical text column on the card: its domain size, epsilon and expected made-up values."""
    each, rho_each, _ = level_budget(domain, epsilon, rho)
    sizes = [("full codes", _cathist_size(domain))] + [
        (f"first {length} characters", domain.prefix_domain(length).size) for length in domain.levels
    ]
    return [
        {
            "level": level,
            "domain_size": size,
            "epsilon": each,
            "expected_made_up_values": round(expected_made_up(size, rho_each), 4),
        }
        for level, size in sizes
    ]


__all__ = ["CatHistSynthesizer", "ColumnModel", "fit_column"]
