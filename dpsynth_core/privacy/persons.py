"""The privacy unit when one person has several rows: contribution bounding and group privacy.

A declaration may name the column that identifies a person and a public bound ``K`` on rows
per person (:class:`~dpsynth_core.domain.PersonUnit`). Then a release:

1. keeps at most ``K`` rows of each person, chosen uniformly at random with the release's own
   generator (:func:`bound_rows`), before any statistic is computed. Each person's rows are
   thinned on their own, so adding or removing a whole person (however many rows they have)
   adds or removes at most ``K`` rows of the bounded table, and the other people's kept rows
   have the same distribution either way (OpenDP's contribution bounding does the same);
2. runs the method, unchanged, at a per-row budget of ``epsilon / K`` (what the mechanisms
   spend, recorded per row in the method's own ledger);
3. states the guarantee per person by group privacy over ``K`` rows (:func:`group_guarantee`):
   an (e, d)-DP mechanism for one row is (K e, d (1 + e^e + ... + e^{(K-1)e}))-DP for K rows
   (chain the definition K times along the rows; Dwork and Roth 2014, Theorem 2.2, for d = 0).
   So the per-person epsilon is exactly the publisher's, for every method whatever its
   composition (basic, advanced, zCDP): group privacy is applied to the method's whole
   composed (epsilon, delta) guarantee, and a pure-DP method keeps delta = 0.

For a zCDP ledger the alternative, scaling rho by K² (Bun and Steinke 2016, group privacy),
would keep delta and lose epsilon; at the same per-row noise the two statements are close
(for small rho, epsilon grows about like K sqrt(rho)), and this one keeps the epsilon the
publisher chose. The neighbouring relation becomes "add/remove one person" (all rows sharing
an identifier in the raw table, compared by :func:`person_codes`); rows with a missing or empty
identifier are together one person.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .accounting import Accountant, PrivacyEvent, unit_relation


def person_codes(ids: pd.Series, *, ignore_case: bool = False) -> np.ndarray:
    """One whole-number code per row, equal for the rows of one person (a public rule, read off no data).

    Identifiers are compared as text with surrounding spaces removed (``'P9'`` and ``'P9 '`` are one
    person), in letter case too when ``ignore_case`` (the publisher's declaration says so). Rows whose
    identifier is missing or empty are together one person: a person may lack an identifier on
    several rows, so counting each such row as a person of its own would let one person past ``K``.
    """
    text = ids.astype("string").str.strip()
    if ignore_case:
        text = text.str.casefold()
    codes, _ = pd.factorize(text.mask(text == ""), use_na_sentinel=True)
    codes = codes.astype(np.int64)
    codes[codes < 0] = codes.max(initial=-1) + 1
    return codes


def bound_rows(
    frame: pd.DataFrame, column: str, max_rows: int, rng: np.random.Generator, *, ignore_case: bool = False
) -> pd.DataFrame:
    """At most ``max_rows`` rows of each person (rows whose ``column`` identifies the same person by
    :func:`person_codes`), chosen uniformly at random with ``rng`` (a release's generator: ChaCha20 for a
    real release), in their original order.

    Vectorised: one random key per row, then each row's rank within its person by one sort.
    """
    if max_rows < 1:
        raise ValueError(f"max_rows ({max_rows}) must be >= 1")
    codes = person_codes(frame[column], ignore_case=ignore_case)
    keys = rng.random(len(codes))
    order = np.lexsort((keys, codes))
    sorted_codes = codes[order]
    starts = np.r_[True, sorted_codes[1:] != sorted_codes[:-1]] if len(codes) else np.zeros(0, bool)
    first = np.maximum.accumulate(np.where(starts, np.arange(len(codes)), 0))
    rank = np.empty(len(codes), dtype=np.int64)
    rank[order] = np.arange(len(codes)) - first
    return frame[rank < max_rows]


def group_guarantee(epsilon: float, delta: float, group: int) -> tuple[float, float]:
    """An (epsilon, delta)-DP guarantee for one row, stated for ``group`` rows (group privacy):
    ``(group * epsilon, delta * sum_{i < group} e^(i epsilon))`` (delta capped at 1)."""
    if group == 1:
        return epsilon, delta
    if delta == 0:
        return group * epsilon, 0.0
    if group * epsilon > 700:  # e^(group epsilon) overflows: the delta is vacuous
        return group * epsilon, 1.0
    growth = group if epsilon == 0 else math.expm1(group * epsilon) / math.expm1(epsilon)
    return group * epsilon, min(1.0, delta * growth)


def person_ledger(row_ledger: Accountant, unit, delta_slack: float) -> Accountant:
    """The ledger of a release whose privacy unit is ``unit`` (a :class:`~dpsynth_core.domain.PersonUnit`):
    one event, the per-row ledger's composed total (``row_ledger.total(delta_slack)``) stated per
    person by :func:`group_guarantee`, under :func:`person_relation`."""
    total = row_ledger.total(delta_slack)
    epsilon, delta = group_guarantee(total["epsilon"], total["delta"], unit.max_rows)
    rows = "1 row" if unit.max_rows == 1 else f"{unit.max_rows:,} rows"
    mechanism = (
        f"group privacy over up to {rows} of the release's per-row guarantee (epsilon "
        f"{total['epsilon']:.6g}, delta {total['delta']:.3g}, {total['composition']} composition)"
    )
    return Accountant(
        [PrivacyEvent(mechanism, epsilon, delta, unit_relation(unit, ""), f"the whole release, {unit.in_words()}")]
    )
