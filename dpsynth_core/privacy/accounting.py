"""Privacy accounting: immutable spend events composed by one accountant.

Every access to the data records a :class:`PrivacyEvent`. The :class:`Accountant` adds
them up by basic composition (epsilons and deltas add) and by advanced composition
(Dwork, Rothblum and Vadhan 2010, heterogeneous form), and reports the smaller. Events
under different neighbouring relations are composed per relation as stated, and also all together
once converted to one record added or removed (:func:`in_record_unit`, :func:`per_record_total`):
the total a lifetime budget counts.

Zero-concentrated DP (Bun and Steinke 2016). A ledger may also hold *zCDP events*, whose
cost is ``rho`` (the Gaussian mechanism on counts of L2 sensitivity 1 with scale
``sigma`` costs ``1 / (2 sigma**2)``; the exponential mechanism with ``eps`` costs
``eps**2 / 8``). Then the whole ledger composes in zCDP: rhos add, and every pure
``eps``-DP event counts as ``eps**2 / 2`` (their Proposition 1.4). The total is stated as
(epsilon, delta)-DP at the ledger's ``delta`` by OpenDP's conversion (Canonne, Kamath and
Steinke 2020, the optimal bound for a rho-zCDP guarantee); events with their own delta are
added on top by basic composition. :func:`~dpsynth_core.privacy.zcdp.zcdp_budget` inverts the conversion, so a method
can calibrate its noise to spend exactly the epsilon the publisher chose.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import lru_cache
from itertools import chain, groupby, repeat

from .zcdp import zcdp_to_epsilon

ADD_REMOVE = "add/remove one record"
SUBSTITUTE = "substitute one record (row count public)"


@dataclass(frozen=True)
class PrivacyEvent:
    """One use of the data and what it cost.

    Attributes:
        mechanism: the mechanism, e.g. ``"discrete Laplace histogram"``.
        epsilon: its epsilon.
        delta: its delta (0 for pure DP).
        neighbouring: the neighbouring relation the cost holds under.
        label: what was measured, e.g. ``"column age"``.
        rho: for a zCDP event, its cost in rho (then ``epsilon`` and ``delta`` are 0);
            None for an (epsilon, delta) event.
    """

    mechanism: str
    epsilon: float
    delta: float = 0.0
    neighbouring: str = ADD_REMOVE
    label: str = ""
    rho: float | None = None

    def __post_init__(self):
        if not (self.epsilon >= 0 and math.isfinite(self.epsilon)):
            raise ValueError(f"epsilon ({self.epsilon}) must be finite and >= 0")
        if not 0 <= self.delta <= 1:
            raise ValueError(f"delta ({self.delta}) must be in [0, 1]")
        if self.rho is not None:
            if not (self.rho >= 0 and math.isfinite(self.rho)):
                raise ValueError(f"rho ({self.rho}) must be finite and >= 0")
            if self.epsilon or self.delta:
                raise ValueError("a zCDP event states its cost as rho only (epsilon = delta = 0)")

    @classmethod
    def zcdp(cls, mechanism: str, rho: float, label: str = "", neighbouring: str = ADD_REMOVE) -> PrivacyEvent:
        """A zero-concentrated DP event costing ``rho``."""
        return cls(mechanism, 0.0, 0.0, neighbouring, label, float(rho))

    @property
    def is_zcdp(self) -> bool:
        return self.rho is not None

    @property
    def rho_cost(self) -> float | None:
        """Its cost in zCDP: ``rho``, or ``epsilon**2 / 2`` for a pure event; None when delta > 0."""
        if self.rho is not None:
            return self.rho
        return self.epsilon**2 / 2 if self.delta == 0 else None

    def as_dict(self) -> dict:
        out = {name: getattr(self, name) for name in _EVENT_FIELDS}  # (asdict's deep copy: 55 us an event)
        if self.rho is None:
            out.pop("rho")
        return out


_EVENT_FIELDS = tuple(f.name for f in fields(PrivacyEvent))


def grouped_events(events) -> list[dict]:
    """The events as dicts (:meth:`PrivacyEvent.as_dict`), each run of equal events one dict with its
    ``"repeats"`` (when more than one): ``bayesnet`` on 641 columns measures 206,403 entropies alike, 35 MB of a
    card listed one by one. :func:`expanded_events` gives the events back.

    >>> grouped_events([PrivacyEvent("m", 0.5)] * 3 + [PrivacyEvent("m", 0.25)])[0]["repeats"]
    3
    """
    out = []
    for event, run in groupby(events):
        entry, count = event.as_dict(), sum(1 for _ in run)
        if count > 1:
            entry["repeats"] = count
        out.append(entry)
    return out


def expanded_events(entries) -> tuple:
    """The events of :func:`grouped_events`' dicts (or of plain event dicts, unknown keys left out), a run
    as one event repeated."""
    events = []
    for entry in entries:
        event = PrivacyEvent(**{k: v for k, v in entry.items() if k in _EVENT_FIELDS})
        events.extend(repeat(event, int(entry.get("repeats", 1))))
    return tuple(events)


def _add_exact(partials: list, x: float) -> None:
    """Add ``x`` to the exact sum held by ``partials`` (floats of increasing magnitude whose sum, without
    rounding, is the sum of everything added: Shewchuk's algorithm, as ``math.fsum`` keeps it). Then
    ``math.fsum(partials)`` is the correctly rounded sum of everything added: the very number ``math.fsum``
    gives over all the values, at the cost of a few partials rather than of every value.

    >>> partials = []
    >>> for x in (0.1, 0.2, 0.3, 1e-20, -0.6):
    ...     _add_exact(partials, x)
    >>> math.fsum(partials) == math.fsum((0.1, 0.2, 0.3, 1e-20, -0.6))
    True
    """
    i = 0
    for y in partials:
        if abs(x) < abs(y):
            x, y = y, x
        high = x + y
        low = y - (high - x)
        if low:
            partials[i] = low
            i += 1
        x = high
    partials[i:] = [x]


def _add_repeated(partials: list, x: float, count: int) -> None:
    """Add ``count`` copies of ``x`` to the exact sum ``partials`` (:func:`_add_exact`): ``x`` times each power of two
    in ``count``, each of them exact (a float times a power of two is, short of overflow), so the sum stays exact.

    >>> partials = []
    >>> _add_repeated(partials, 0.1, 1000)
    >>> math.fsum(partials) == math.fsum([0.1] * 1000)
    True
    """
    power = 0
    while count:
        if count & 1:
            try:
                _add_exact(partials, math.ldexp(x, power))
            except OverflowError:  # a sum past the largest float
                _add_exact(partials, math.inf)
        count >>= 1
        power += 1


#: Up to this many distinct values, :func:`_repeated_sum` adds them as exact fractions (a few microseconds each);
#: beyond, it lets ``fsum`` add every repeat (50,000 distinct epsilons: 0.8 s as fractions, 0.02 s by fsum).
_FEW_VALUES = 64


def _repeated_sum(counted) -> float:
    """``math.fsum`` of each value of ``counted`` ((value, count) pairs) repeated count times, without the
    repeats: the exact sum, rounded once (a :class:`~fractions.Fraction` holds a float exactly, and rounds to
    the nearest float, ties to even, as ``fsum`` does).

    >>> _repeated_sum([(0.1, 3), (0.2, 1)]) == math.fsum([0.1, 0.1, 0.1, 0.2])
    True
    """
    counted = [(float(value), int(count)) for value, count in counted if count]
    if not all(math.isfinite(value) for value, _ in counted):
        return math.fsum(value for value, _ in counted)  # an infinity or a NaN, as fsum gives it
    if len(counted) > _FEW_VALUES:  # many distinct values: fsum of the repeats is quicker than as many fractions
        return math.fsum(chain.from_iterable(repeat(value, count) for value, count in counted))
    return float(sum((Fraction(value) * count for value, count in counted), Fraction(0)))


def _advanced_epsilon(counted, delta_slack: float) -> float:
    """Advanced composition's epsilon over pure events, ``counted`` as (epsilon, how many events) pairs
    (:meth:`Accountant.advanced`'s formula, its one home); infinite when an epsilon exceeds 50 (the bound is
    vacuous). Sums are correctly rounded (:func:`_repeated_sum`), so a group of equal events costs one term."""
    if not 0 < delta_slack < 1:
        raise ValueError(f"delta_slack ({delta_slack}) must be in (0, 1)")
    counted = [(e, count) for e, count in counted if count]
    if any(e > 50 for e, _ in counted):
        return math.inf
    squares = _repeated_sum((e**2, count) for e, count in counted)
    drift = _repeated_sum((e * math.expm1(e), count) for e, count in counted)
    return math.sqrt(2 * math.log(1 / delta_slack) * squares) + drift


class Accountant:
    """A ledger of privacy events with their composed total.

    Args:
        events: events to start with.
        delta: the delta at which a ledger with zCDP events states its total as
            (epsilon, delta); 0 (pure DP) gives an infinite epsilon for any rho > 0.
    """

    def __init__(self, events=(), *, delta: float = 0.0):
        self._events: list[PrivacyEvent] = []
        # the events' rho costs and epsilons as exact running sums (:func:`_add_exact`): a release's rounds
        # ask for what is left after each of their thousand events, which summing them all each time made
        # quadratic in the events
        self._rho_sum: list[float] = []
        self._epsilon_sum: list[float] = []
        self.delta = delta
        for event, run in groupby(events):  # a run of equal events added at once (a ledger's 206,403 entropies)
            self._spend(event, sum(1 for _ in run))

    def spend(self, event: PrivacyEvent, times: int = 1) -> PrivacyEvent:
        """Record an event (``times`` times: as many equal events, added at once); refuse one whose neighbouring
        relation differs from the ledger's."""
        if times < 0:
            raise ValueError(f"an event is spent a whole number of times, not {times}")
        if times:
            self._spend(event, int(times))
        return event

    def _spend(self, event: PrivacyEvent, count: int) -> None:
        if self._events and event.neighbouring != self._events[0].neighbouring:
            raise ValueError(
                f"cannot compose '{event.neighbouring}' with '{self._events[0].neighbouring}' "
                "in one total: the neighbouring relations differ"
            )
        self._events.extend(repeat(event, count))
        if event.rho_cost is not None:
            _add_repeated(self._rho_sum, event.rho_cost, count)
        _add_repeated(self._epsilon_sum, event.epsilon, count)

    @property
    def events(self) -> tuple[PrivacyEvent, ...]:
        return tuple(self._events)

    @property
    def neighbouring(self) -> str | None:
        return self._events[0].neighbouring if self._events else None

    @property
    def delta(self) -> float:
        return self._delta

    @delta.setter
    def delta(self, value: float) -> None:
        if not 0 <= value < 1:
            raise ValueError(f"delta ({value}) must be in [0, 1)")
        self._delta = float(value)

    @property
    def has_zcdp(self) -> bool:
        return any(e.is_zcdp for e in self._events)

    def rho(self) -> float:
        """The zCDP cost of every event that has one (zCDP events, and pure events as eps**2 / 2)."""
        return math.fsum(self._rho_sum)  # the same number as math.fsum over every event's cost

    def zcdp_total(self) -> dict:
        """The ledger composed in zCDP, stated as (epsilon, delta) at the ledger's delta."""
        rho = self.rho()
        approx = [e for e in self._events if e.rho_cost is None]
        epsilon = zcdp_to_epsilon(rho, self.delta) + math.fsum(e.epsilon for e in approx)
        delta = min(1.0, self.delta + math.fsum(e.delta for e in approx))
        return {"rho": rho, "epsilon": epsilon, "delta": delta}

    def basic(self) -> tuple[float, float]:
        """(epsilon, delta) by basic composition: both add up (zCDP events are not counted here)."""
        return (self.epsilon_sum(), min(1.0, math.fsum(e.delta for e in self._events)))

    def epsilon_sum(self) -> float:
        """The events' epsilons added up (basic composition's epsilon), from the running sums: no pass over them."""
        return math.fsum(self._epsilon_sum)

    def advanced(self, delta_slack: float) -> tuple[float, float]:
        """(epsilon, delta) by advanced composition with slack ``delta_slack``.

        ``eps = sqrt(2 ln(1/delta_slack) sum eps_i^2) + sum eps_i (e^eps_i - 1)`` and
        ``delta = sum delta_i + delta_slack``.
        """
        epsilon = _advanced_epsilon(Counter(e.epsilon for e in self._events).items(), delta_slack)
        if math.isinf(epsilon):
            return math.inf, 1.0  # the bound is vacuous; basic composition is reported
        return epsilon, min(1.0, math.fsum(e.delta for e in self._events) + delta_slack)

    def total(self, delta_slack: float | None = None) -> dict:
        """The guarantee to state: basic, advanced (when a slack is given) and the better one.

        A ledger with zCDP events is composed in zCDP instead (``composition`` is ``"zCDP"``,
        with ``rho`` beside epsilon and delta).
        """
        if self.has_zcdp:
            zcdp = self.zcdp_total()
            return {
                "zcdp": zcdp,
                "epsilon": zcdp["epsilon"],
                "delta": zcdp["delta"],
                "rho": zcdp["rho"],
                "composition": "zCDP",
            }
        basic_eps, basic_delta = self.basic()
        out = {
            "basic": {"epsilon": basic_eps, "delta": basic_delta},
            "epsilon": basic_eps,
            "delta": basic_delta,
            "composition": "basic",
        }
        if delta_slack is not None and self._events:
            adv_eps, adv_delta = self.advanced(delta_slack)
            out["advanced"] = {"epsilon": adv_eps, "delta": adv_delta}
            if adv_eps < basic_eps:
                out.update(epsilon=adv_eps, delta=adv_delta, composition="advanced")
        return out

    def as_list(self) -> list[dict]:
        """The events as dicts, a run of equal ones as one with its ``"repeats"`` (:func:`grouped_events`)."""
        return grouped_events(self._events)


def default_delta(rows_bound: float, cap: float) -> float:
    """The public default rule: the largest power of ten at most ``min(cap, 1 / rows_bound**2)``.

    ``rows_bound`` must be public or DP (never the exact row count): a publisher's figure, or
    a noisy count plus a margin.
    """
    limit = min(cap, 1.0 / max(float(rows_bound), 1.0) ** 2)
    return 10.0 ** math.floor(math.log10(limit) + 1e-12)


def split_budget(epsilon: float, weights: dict) -> dict:
    """Split ``epsilon`` across named parts in proportion to ``weights`` (exact sum)."""
    total = math.fsum(weights.values())
    if total <= 0:
        raise ValueError("budget weights must add up to a positive number")
    return {name: epsilon * w / total for name, w in weights.items()}


def fit_to_budget(total: float, fixed, groups, delta_slack: float) -> list[float]:
    """Per-measurement epsilons for groups of equal measurements that fill ``total`` exactly.

    ``fixed``: epsilons already spent. ``groups``: ``(count, weight)`` pairs; a group's
    measurements get ``s * weight`` each, with the largest ``s`` for which the whole ledger
    stays within ``total`` by the better of basic and advanced composition. With
    ``sum(count * weight) + sum(fixed) == total``, ``s >= 1`` (basic composition alone fits).
    """
    return list(_fitted_scales(float(total), tuple(fixed), tuple(map(tuple, groups)), delta_slack))


@lru_cache(maxsize=256)
def _fitted_scales(total: float, fixed: tuple, groups: tuple, delta_slack: float) -> tuple[float, ...]:
    """:func:`fit_to_budget` on hashable public settings, remembered: its bisection composes the
    whole ledger about 80 times, and a method fitted again at the same settings asks the same."""

    def spent(scale: float) -> float:  # the ledger's total (:meth:`Accountant.total`) over its epsilons alone, the
        # same correctly rounded sums, a group of equal epsilons one term: a ledger of 205,761 events built 80 times
        # took 34 s for 641 columns, and their fsum 4 s more
        counted = [(e, 1) for e in fixed] + [(scale * weight, count) for count, weight in groups]
        basic = _repeated_sum(counted)
        return basic if delta_slack is None else min(basic, _advanced_epsilon(counted, delta_slack))

    low, high = 0.0, 1.0
    while spent(high) <= total and high < 1e6:
        low, high = high, high * 2
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if spent(mid) <= total else (low, mid)
    return tuple(low * weight for _, weight in groups)


# --- composed totals of a dataset's spends -------------------------------------------------


def person_relation(column: str) -> str:
    """The neighbouring relation of a release whose unit is a person identified by ``column``
    (:mod:`dpsynth_core.privacy.persons`)."""
    return f"add/remove one person (all rows with the same {column})"


def is_person_relation(relation: str) -> bool:
    """Whether ``relation`` is a person unit's (:func:`person_relation`)."""
    return relation.startswith("add/remove one person")


def unit_relation(unit, neighbouring: str) -> str:
    """The relation a release states: :func:`person_relation` with a person unit, else the method's own."""
    return neighbouring if unit is None else person_relation(unit.column)


def planned_events(epsilon: float, neighbouring: str, unit=None) -> list[PrivacyEvent]:
    """The cost a method states before it runs (its epsilon under its relation, or per person with a
    person ``unit``), for pre-checks."""
    return [PrivacyEvent("planned draw", float(epsilon), 0.0, unit_relation(unit, neighbouring), "planned")]
