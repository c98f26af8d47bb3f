"""Privacy accounting: immutable spend events composed by one accountant.

Every access to the data records a :class:`PrivacyEvent`. The :class:`Accountant` adds
them up by basic composition (epsilons and deltas add) and by advanced composition
(Dwork, Rothblum and Vadhan 2010, heterogeneous form), and reports the smaller. Events
under different neighbouring relations are never mixed in one total.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

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
    """

    mechanism: str
    epsilon: float
    delta: float = 0.0
    neighbouring: str = ADD_REMOVE
    label: str = ""

    def __post_init__(self):
        if not (self.epsilon >= 0 and math.isfinite(self.epsilon)):
            raise ValueError(f"epsilon ({self.epsilon}) must be finite and >= 0")
        if not 0 <= self.delta <= 1:
            raise ValueError(f"delta ({self.delta}) must be in [0, 1]")

    def as_dict(self) -> dict:
        return asdict(self)


class Accountant:
    """A ledger of privacy events with their composed total."""

    def __init__(self, events=()):
        self._events: list[PrivacyEvent] = []
        for event in events:
            self.spend(event)

    def spend(self, event: PrivacyEvent) -> PrivacyEvent:
        """Record an event; refuse one whose neighbouring relation differs from the ledger's."""
        if self._events and event.neighbouring != self._events[0].neighbouring:
            raise ValueError(
                f"cannot compose '{event.neighbouring}' with '{self._events[0].neighbouring}' "
                "in one total: the neighbouring relations differ")
        self._events.append(event)
        return event

    @property
    def events(self) -> tuple[PrivacyEvent, ...]:
        return tuple(self._events)

    @property
    def neighbouring(self) -> str | None:
        return self._events[0].neighbouring if self._events else None

    def basic(self) -> tuple[float, float]:
        """(epsilon, delta) by basic composition: both add up."""
        return (math.fsum(e.epsilon for e in self._events), min(1.0, math.fsum(e.delta for e in self._events)))

    def advanced(self, delta_slack: float) -> tuple[float, float]:
        """(epsilon, delta) by advanced composition with slack ``delta_slack``.

        ``eps = sqrt(2 ln(1/delta_slack) sum eps_i^2) + sum eps_i (e^eps_i - 1)`` and
        ``delta = sum delta_i + delta_slack``.
        """
        if not 0 < delta_slack < 1:
            raise ValueError(f"delta_slack ({delta_slack}) must be in (0, 1)")
        if any(e.epsilon > 50 for e in self._events):
            return math.inf, 1.0  # the bound is vacuous; basic composition is reported
        squares = math.fsum(e.epsilon**2 for e in self._events)
        drift = math.fsum(e.epsilon * math.expm1(e.epsilon) for e in self._events)
        epsilon = math.sqrt(2 * math.log(1 / delta_slack) * squares) + drift
        return epsilon, min(1.0, math.fsum(e.delta for e in self._events) + delta_slack)

    def total(self, delta_slack: float | None = None) -> dict:
        """The guarantee to state: basic, advanced (when a slack is given) and the better one."""
        basic_eps, basic_delta = self.basic()
        out = {"basic": {"epsilon": basic_eps, "delta": basic_delta},
               "epsilon": basic_eps, "delta": basic_delta, "composition": "basic"}
        if delta_slack is not None and self._events:
            adv_eps, adv_delta = self.advanced(delta_slack)
            out["advanced"] = {"epsilon": adv_eps, "delta": adv_delta}
            if adv_eps < basic_eps:
                out.update(epsilon=adv_eps, delta=adv_delta, composition="advanced")
        return out

    def as_list(self) -> list[dict]:
        return [e.as_dict() for e in self._events]


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
    fixed = list(fixed)

    def spent(scale: float) -> float:
        events = [PrivacyEvent("fixed", e) for e in fixed]
        for count, weight in groups:
            events += [PrivacyEvent("m", scale * weight)] * count
        return Accountant(events).total(delta_slack)["epsilon"]

    low, high = 0.0, 1.0
    while spent(high) <= total and high < 1e6:
        low, high = high, high * 2
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if spent(mid) <= total else (low, mid)
    return [low * weight for _, weight in groups]
