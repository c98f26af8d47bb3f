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
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..wording import plural
from .accounting import Accountant, PrivacyEvent, unit_relation


def person_codes(ids: pd.Series, *, ignore_case: bool = False) -> np.ndarray:
    """One whole-number code per row, equal for the rows of one person (a public rule, read off no data).

    Identifiers are compared as text with surrounding spaces removed (``'P9'`` and ``'P9 '`` are one
    person), in letter case too when ``ignore_case`` (the publisher's declaration says so). Rows whose
    identifier is missing or empty are together one person: a person may lack an identifier on
    several rows, so counting each such row as a person of its own would let one person past ``K``.
    Persons are numbered in the order of their identifiers' text (the missing one last), so an engine
    that codes a column's distinct values gives each person the code the whole column gives it.
    """
    text = ids.astype("string").str.strip()
    if ignore_case:
        text = text.str.casefold()
    codes, uniques = pd.factorize(text.mask(text == ""), sort=True, use_na_sentinel=True)
    codes = codes.astype(np.int64)
    codes[codes < 0] = len(uniques)
    return codes


def rows_per_person(codes: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """How many rows each person code holds: ``codes`` one per row (``counts`` None), or one per distinct
    identifier with ``counts`` the rows holding it (what an engine counts)."""
    if not len(codes):
        return np.zeros(0, dtype=np.int64)
    return np.bincount(codes, weights=counts).astype(np.int64) if counts is not None else np.bincount(codes)


def kept_ranks(per_person: np.ndarray, max_rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Which rows each person with more than ``max_rows`` rows keeps: ``(persons, ranks)``, one pair per kept
    row (grouped by the persons' number of rows), ``ranks`` counting a person's rows ``0, 1, ...`` in the
    table's order (a person with at most ``max_rows`` rows keeps them all and is not listed).

    Each such person's kept ranks are a uniformly random ``max_rows``-subset of their rows, independent of
    every other person's: one uniform key per row of those persons from ``rng`` (a release's generator:
    ChaCha20 for a real release), drawn in (person, rank) order, and the ranks of the ``max_rows`` smallest
    keys kept (ties, of probability about 2^-53 a pair, to the earlier rank). The draw depends only on the
    rows per person, so every engine that counts them keeps the same rows. Vectorised over the persons
    that hold one number of rows (a loop over the distinct numbers, never over persons or rows).
    """
    if max_rows < 1:
        raise ValueError(f"max_rows ({max_rows}) must be >= 1")
    over = np.flatnonzero(per_person > max_rows)
    sizes = per_person[over]
    starts = np.cumsum(sizes) - sizes
    keys = rng.random(int(sizes.sum()))
    persons, ranks = [], []
    for size in np.unique(sizes):
        mine = np.flatnonzero(sizes == size)
        block = keys[starts[mine][:, None] + np.arange(size)]  # one row of keys per person of this size
        chosen = np.argsort(block, axis=1, kind="stable")[:, :max_rows]
        persons.append(np.repeat(over[mine], max_rows))
        ranks.append(chosen.ravel())
    if not persons:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(persons), np.concatenate(ranks).astype(np.int64)


def bound_rows(
    frame: pd.DataFrame, column: str, max_rows: int, rng: np.random.Generator, *, ignore_case: bool = False
) -> pd.DataFrame:
    """At most ``max_rows`` rows of each person (rows whose ``column`` identifies the same person by
    :func:`person_codes`), chosen uniformly at random by :func:`kept_ranks`, in their original order.

    Vectorised: each person's rows in the table's order by one stable sort. The engines for large tables keep
    the same rows (``bound_persons`` of their sources): ranks in the file's order, the same draw.
    """
    codes = person_codes(frame[column], ignore_case=ignore_case)
    per_person = rows_per_person(codes)
    persons, ranks = kept_ranks(per_person, max_rows, rng)
    order = np.argsort(codes, kind="stable")  # each person's rows together, in the table's order
    starts = np.cumsum(per_person) - per_person
    keep = per_person[codes] <= max_rows
    keep[order[starts[persons] + ranks]] = True  # the row of rank r of person p sits at starts[p] + r
    return frame[keep]


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


@dataclass(frozen=True)
class RowsPerPerson:
    """A DP histogram of rows per person: ``noisy[j - 1]`` persons with ``j`` rows for ``j < cap``, and
    ``noisy[cap - 1]`` persons with ``cap`` rows or more (:func:`count_rows_per_person`). Every figure
    below is post-processing of these noisy counts, so it may be shown and put on a card.

    Sums use the noisy counts as drawn (unbiased: discrete Laplace noise has mean 0), not clipped at 0;
    persons with ``cap`` rows or more count ``cap`` rows each, so the rows before bounding are "at least".
    """

    noisy: tuple
    epsilon: float
    cap: int

    def _rows(self) -> np.ndarray:
        return np.arange(1, self.cap + 1)

    def rows_before(self) -> float:
        """About how many rows the table holds before bounding (at least: the top bin counts ``cap`` each)."""
        return max(0.0, float(np.dot(self._rows(), self.noisy)))

    def rows_kept(self, max_rows: int) -> float:
        """About how many rows bounding to ``max_rows`` per person keeps."""
        return max(0.0, float(np.dot(np.minimum(self._rows(), max_rows), self.noisy)))

    def persons(self) -> float:
        return max(0.0, float(np.sum(self.noisy)))

    def dropped(self, max_rows: int) -> float:
        """About how many rows bounding to ``max_rows`` drops (at least, for ``max_rows < cap``)."""
        return max(0.0, self.rows_before() - self.rows_kept(max_rows))

    def suggested(self, keep: float) -> int:
        """The smallest bound that keeps at least ``keep`` of the rows, by these estimates (at most ``cap``)."""
        before = self.rows_before()
        return next((k for k in range(1, self.cap) if self.rows_kept(k) >= keep * before), self.cap)

    def typical_error(self) -> float:
        """Typical error, in rows, of :meth:`rows_before` (the noise's standard deviation over the weighted sum)."""
        return self._count_std() * math.sqrt(float(np.sum(self._rows() ** 2)))

    def tells_rows(self) -> bool:
        """Whether :meth:`rows_before` stands clear of its noise (at least three typical errors): else the counts say
        nothing of how the rows lie over persons, and no bound is suggested from them (statsmodels' Grunfeld, 10 firms
        of 20 rows, at epsilon 0.1: "about 109 firms hold at least 1,317 rows, give or take 547", and a bound of 13
        "would keep about 90% of the rows", where it keeps 65%; found by the Rdatasets hunt)."""
        return self.rows_before() >= 3 * self.typical_error()

    def dropped_error(self, max_rows: int) -> float:
        """Typical error, in rows, of :meth:`dropped` (each count's noise weighs the rows it holds past the bound)."""
        past = np.maximum(self._rows() - max_rows, 0)
        return self._count_std() * math.sqrt(float(np.sum(past**2)))

    def tells_dropped(self, max_rows: int) -> bool:
        """Whether :meth:`dropped` stands clear of its noise (at least two typical errors): else the check cannot
        tell how many rows bounding drops, many or none."""
        return self.dropped(max_rows) >= 2 * self.dropped_error(max_rows)

    def past_cap(self, max_rows: int) -> bool:
        """Whether :meth:`dropped` for ``max_rows`` is a floor: the count of persons with ``cap`` rows or more stands
        clear of its noise (three deviations), and those persons count ``cap`` rows each where they hold more.
        (FiveThirtyEight's aging Congress file: 222 members in 16 to 30 Congresses; bounded to 10, the check's
        2,714 rows dropped against 3,287.)"""
        return max_rows < self.cap and self.noisy[-1] >= 3 * self._count_std()

    def _count_std(self) -> float:
        alpha = math.exp(-self.epsilon)
        return math.sqrt(2 * alpha) / (1 - alpha)  # of one discrete Laplace count with scale 1 / epsilon

    def as_dict(self) -> dict:
        return {"noisy": [int(v) for v in self.noisy], "epsilon": self.epsilon, "cap": self.cap}

    @classmethod
    def from_dict(cls, spec: dict) -> RowsPerPerson:
        return cls(tuple(int(v) for v in spec["noisy"]), float(spec["epsilon"]), int(spec["cap"]))


def count_rows_per_person(
    frame: pd.DataFrame, column: str, *, epsilon: float, noise, cap: int, ignore_case: bool = False
) -> RowsPerPerson:
    """How many persons have 1, 2, ... rows (``cap`` or more in the last count), with discrete Laplace noise.

    Guarantee: epsilon-DP under adding or removing one person (all rows sharing an identifier, by
    :func:`person_codes`): a person is in exactly one count, so the histogram's L1 sensitivity is 1 whatever
    their rows. The bins are public (``1 .. cap``); the caller records the spend (a person-relation event).
    """
    per_person = rows_per_person(person_codes(frame[column], ignore_case=ignore_case))
    return rows_histogram(per_person, epsilon=epsilon, noise=noise, cap=cap)


def rows_histogram(per_person: np.ndarray, *, epsilon: float, noise, cap: int) -> RowsPerPerson:
    """:func:`count_rows_per_person` from the rows each person holds (:func:`rows_per_person`; an engine's)."""
    counts = np.bincount(np.minimum(per_person[per_person > 0], cap), minlength=cap + 1)[1:]
    noisy = counts + noise.discrete_laplace(cap, 1.0 / epsilon, label="rows per person")
    return RowsPerPerson(tuple(int(v) for v in noisy), float(epsilon), int(cap))


def bounding_plan_words(check: RowsPerPerson, max_rows: int | None, name: str, keep: float) -> list[str]:
    """What bounding to ``max_rows`` rows per ``name`` will cost, and a bound to consider, in plain words, from
    the DP check alone (the Privacy page's plan); with no bound planned (``None``: the command line's check of a
    person column alone), the rows and a bound to consider only."""
    before, error = check.rows_before(), check.typical_error()
    suggested, names = check.suggested(keep), plural(name)
    more = f"{check.cap:,} or more" if suggested >= check.cap else f"{suggested:,}"
    counted = (
        f"About {check.persons():,.0f} {names} hold at least {before:,.0f} rows (give or take {error:,.0f}; "
        f"estimated with ε = {check.epsilon:g}, recorded in the ledger)."
    )
    told, trade = check.tells_rows(), BOUND_TRADE.format(name=name)
    consider = (
        f"A bound of {more} rows per {name} would keep about {100 * keep:.0f}% of the rows"
        + (" or fewer" if check.past_cap(suggested) else "")
        + ", by these noisy counts"
        if told
        else f"At ε = {check.epsilon:g} these counts cannot tell how the rows lie over {names} (their noise is a third "
        "or more of the rows they find), so they suggest no bound: a check with a larger ε, on its own budget, could"
    )
    if max_rows is None:
        hedge = " (as uncertain as the rows above)" if told else ""
        return [counted, consider + f"{hedge}. {trade}"]
    rows, clear = "1 row" if max_rows == 1 else f"{max_rows:,} rows", check.tells_dropped(max_rows)
    drops = dropped_words(check, max_rows, name)
    return [
        counted,
        f"Keeping at most {rows} per {name} {drops}. Rows dropped are "
        f"gone from every figure of the release: {names} with many rows weigh less than in your table, so "
        "shares that depend on them shift. That is the bounded table's truth, not noise.",
        consider + ("" if clear or not told else " (as uncertain as the line above)") + f". {trade}",
    ]


def dropped_words(check: RowsPerPerson, max_rows: int, name: str) -> str:
    """What keeping at most ``max_rows`` rows per ``name`` drops, by the check's own counts and their error alone
    (``drops about 10 rows, give or take 14 (...)``): the Privacy page's plan and the release card say it so. The
    rows before and after bounding are one measurement's, so their difference carries only its own noise; the
    release's count of the rows it kept is another measurement, whose noise (at a person unit's per-row ε) is no
    part of it (nlswork's 4,711 women, none past 15 waves: the check's rows before less the release's count said
    "about 6% of the rows were dropped", where none were)."""
    before, dropped, names = check.rows_before(), check.dropped(max_rows), plural(name)
    share = dropped / before if before > 0 else 0.0
    drop_error, clear = check.dropped_error(max_rows), check.tells_dropped(max_rows)
    if clear and check.past_cap(max_rows):
        return (
            f"drops at least about {dropped:,.0f} rows ({100 * share:.0f}% or more, give or take {drop_error:,.0f}: "
            f"about {check.noisy[-1]:,} {names} hold {check.cap:,} rows or more, counted as {check.cap:,} each here)"
        )
    if clear:
        return f"drops about {dropped:,.0f} rows ({100 * share:.0f}%, give or take {drop_error:,.0f})"
    if before > 0 and not check.past_cap(max_rows) and dropped + 2 * drop_error <= FEW_DROPPED * before:
        most = 100 * (dropped + 2 * drop_error) / before  # nlswork's women, 15 waves: 0 rows, give or take 14
        return (
            f"drops about {dropped:,.0f} rows, give or take {drop_error:,.0f} (at most about {most:.2g}% of the rows "
            f"by these counts, which count a {name} with {check.cap:,} rows or more as {check.cap:,}); {names} with "
            f"many more, if any, are too few for these counts to show, and each would lose every row past {max_rows:,}"
        )
    return (
        f"drops about {dropped:,.0f} rows, give or take {drop_error:,.0f}: at ε = {check.epsilon:g} this check "
        "cannot tell whether it drops many rows or none (a check with a larger ε, on its own budget, could)"
    )


#: Rows dropped that stand within two typical errors of none and below this share of the rows are said as that bound,
#: among persons the check counts one by one (:func:`bounding_plan_words`), where "many or none" said less.
FEW_DROPPED = 0.01

#: What a larger bound on rows per person costs (the last words of :func:`bounding_plan_words`).
BOUND_TRADE = (
    "A larger bound keeps more rows but splits ε over more rows per {name}: each row's noise grows with the bound."
)
