"""What one dataset has spent: its recorded spends and their totals, per relation as each spend stated
it and per record with every unit converted (the figure a lifetime budget counts).

The workspace's ledger (:mod:`dpsynth_core.workspace.ledger`) records :class:`Spend` values and composes
them here, with the accountant of :mod:`.accounting`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import constraints
from .accounting import ADD_REMOVE, SUBSTITUTE, Accountant, PrivacyEvent, is_person_relation


@dataclass(frozen=True)
class RelationTotal:
    """The composed guarantee of every guaranteed spend under one neighbouring relation.

    ``basic_epsilon`` is what adding up each spend's own epsilon gives (for comparison).
    """

    neighbouring: str
    epsilon: float
    delta: float
    composition: str
    basic_epsilon: float
    draws: int

    @property
    def added_up(self) -> float | None:
        """``basic_epsilon`` where it is clearly more than the composed ``epsilon`` (by more than half a percent): the
        figure said beside the total (the sidebar, the draw button), else None."""
        return self.basic_epsilon if self.basic_epsilon > self.epsilon * 1.005 else None


@dataclass(frozen=True)
class Spend:
    """One recorded use of a dataset: its privacy events, whether it has a guarantee, and the delta
    at which its zero-concentrated events (if any) were stated.

    A method's charge (:meth:`dpsynth_core.synthesizers.pricing.PricedMethod.charge`) is a Spend computed
    from public settings before a draw; the ledger records exactly it.
    """

    events: tuple
    guaranteed: bool = True
    zcdp_delta: float = 0.0

    def total(self) -> RelationTotal | None:
        """Its own guarantee, composed as the ledger composes it (None: no guarantee, or no event)."""
        relations, _ = compose([self])
        return relations[0] if relations and self.guaranteed else None

    @property
    def epsilon(self) -> float | None:
        """Its composed epsilon (None: no guarantee)."""
        total = self.total()
        return None if not self.guaranteed else (total.epsilon if total else 0.0)

    @property
    def delta(self) -> float | None:
        total = self.total()
        return None if not self.guaranteed else (total.delta if total else 0.0)

    @property
    def neighbouring(self) -> str | None:
        return self.events[0].neighbouring if self.events else None


@dataclass(frozen=True)
class Spending:
    """What has been spent on one dataset.

    Attributes:
        relations: one composed total per neighbouring relation, as each spend stated it.
        unguaranteed: draws made with a method that has no differential-privacy guarantee.
        draws: all recorded spends (releases and reports).
        lifetime_epsilon: the publisher's limit (per record: :data:`RECORD_UNIT`), or None.
        per_record: every guaranteed spend converted to :data:`RECORD_UNIT` (:func:`in_record_unit`)
            and composed together: what the records have spent in all, the figure the lifetime
            budget is checked against (None when nothing guaranteed was spent).
        unconvertible: guaranteed spends whose relation says nothing per record added or removed
            (:data:`SUBSTITUTE`: the exact row count is released), so no total per record holds.
    """

    relations: tuple[RelationTotal, ...]
    unguaranteed: int
    draws: int
    lifetime_epsilon: float | None
    per_record: RelationTotal | None = None
    unconvertible: int = 0

    @property
    def total_epsilon(self) -> float:
        """What the records have spent in all, per record (the lifetime budget's unit)."""
        return self.per_record.epsilon if self.per_record is not None else 0.0

    def left(self) -> float | None:
        """Epsilon per record that still fits the lifetime budget by plain addition (None: no limit)."""
        if self.lifetime_epsilon is None:
            return None
        if self.unconvertible:
            return 0.0
        return max(0.0, self.lifetime_epsilon - self.total_epsilon)


#: The unit a lifetime budget is stated in, and every spend is converted to: one record added or removed.
RECORD_UNIT = ADD_REMOVE
#: How :func:`in_record_unit` converts each relation, in words (the ledger page and ``ledger --json``).
CONVERSIONS = {
    ADD_REMOVE: "as stated",
    "person": "per person, times 2 per record (group privacy: a record added or removed is its person "
    "removed and added back with one row more or fewer, two steps; delta becomes delta (1 + e^epsilon))",
    SUBSTITUTE: "none: a guarantee for a record replaced by another, with the exact row count released, "
    "says nothing when a record is added or removed",
}


def in_record_unit(spend: Spend) -> Spend | None:
    """``spend``'s events stated per record added or removed (:data:`RECORD_UNIT`), by a conversion that is
    proved; None when there is none (:data:`CONVERSIONS`).

    * add/remove one record: unchanged;
    * add/remove one person (any identifying column, any bound ``K``): adding or removing one record
      changes one person's rows, which is that person removed and added back (two neighbouring steps
      of the person relation), so an (e, d) guarantee per person is (2e, d (1 + e^e)) per record (group
      privacy; Dwork and Roth 2014, Theorem 2.2 for d = 0);
    * substitute one record (row count public): none. The count is released exactly, so a record
      added or removed is told apart with certainty.
    """
    events = []
    for event in spend.events:
        if event.neighbouring == ADD_REMOVE:
            events.append(event)
        elif is_person_relation(event.neighbouring) and not event.is_zcdp:
            delta = 0.0 if event.delta == 0 else min(1.0, event.delta * (1 + math.exp(min(event.epsilon, 700))))
            label = f"{event.label} (per person, x2 per record)"
            events.append(PrivacyEvent(event.mechanism, 2 * event.epsilon, delta, ADD_REMOVE, label))
        else:
            return None
    return Spend(tuple(events), spend.guaranteed, spend.zcdp_delta)


def per_record_total(spends) -> tuple[RelationTotal | None, int]:
    """Every guaranteed spend in :data:`RECORD_UNIT`, composed together (:func:`compose`); and how many
    guaranteed spends have no conversion."""
    converted, unconvertible = [], 0
    for spend in spends:
        if not spend.guaranteed:
            continue
        inside = in_record_unit(spend)
        if inside is None:
            unconvertible += 1
        elif inside.events:
            converted.append(inside)
    totals, _ = compose(converted)
    return (totals[0] if totals else None), unconvertible


def _accountant_total(events, delta: float) -> dict:
    """The accountant's total of some events (zCDP ones stated at ``delta``)."""
    return Accountant(events, delta=delta).total(constraints.ADVANCED_COMPOSITION_DELTA)


def compose_events(events, zcdp_delta: float = 0.0) -> dict:
    """The best guarantee the accountant gives for events of one relation: ``epsilon``, ``delta``, ``composition``.

    With zero-concentrated events among pure ones, two statements are valid: everything in
    zCDP (pure events count as epsilon²/2), or the zCDP events stated at ``zcdp_delta`` plus the
    pure ones by basic or advanced composition, added up. The smaller epsilon is reported.
    """
    events = list(events)
    whole = _accountant_total(events, zcdp_delta)
    best = {"epsilon": whole["epsilon"], "delta": whole["delta"], "composition": whole["composition"]}
    zcdp = [e for e in events if e.is_zcdp]
    rest = [e for e in events if not e.is_zcdp]
    if zcdp and rest:
        first, second = _accountant_total(zcdp, zcdp_delta), _accountant_total(rest, zcdp_delta)
        if first["epsilon"] + second["epsilon"] < best["epsilon"]:
            best = {
                "epsilon": first["epsilon"] + second["epsilon"],
                "delta": min(1.0, first["delta"] + second["delta"]),
                "composition": f"zCDP, then {second['composition']} for the pure-DP spends",
            }
    return best


def compose(spends) -> tuple[tuple[RelationTotal, ...], int]:
    """Totals per relation of :class:`Spend` records, composed by the accountant.

    Two statements are valid and the smaller epsilon is kept: all the events composed together
    (zCDP events stated at the largest delta their spends used), or each spend's own guarantee
    (as on its card) added up by basic composition. A single release's total is its card's.
    """
    by_relation: dict[str, list] = {}
    unguaranteed = 0
    for spend in spends:
        if not spend.guaranteed:
            unguaranteed += 1
            continue
        for relation in {e.neighbouring for e in spend.events}:
            by_relation.setdefault(relation, []).append(spend)
    totals = []
    for relation, group in by_relation.items():
        events = [e for spend in group for e in spend.events if e.neighbouring == relation]
        delta = max((spend.zcdp_delta for spend in group), default=0.0)
        total = compose_events(events, delta)
        each = [
            compose_events([e for e in spend.events if e.neighbouring == relation], spend.zcdp_delta) for spend in group
        ]
        added = math.fsum(t["epsilon"] for t in each)
        if len(group) > 1 and added < total["epsilon"]:
            total = {
                "epsilon": added,
                "delta": min(1.0, math.fsum(t["delta"] for t in each)),
                "composition": "each spend's own guarantee, added up",
            }
        totals.append(
            RelationTotal(relation, total["epsilon"], total["delta"], total["composition"], added, len(group))
        )
    return tuple(totals), unguaranteed


def conversion_words(relation: str) -> str:
    """How the ledger states a relation's spends per record (:data:`CONVERSIONS`)."""
    return CONVERSIONS["person" if is_person_relation(relation) else relation]
