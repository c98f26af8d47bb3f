"""The budgeted draw: price it from public settings, check the lifetime budget and record, then draw.

Every release, from the app's Preview page, the command line's ``synth`` or a rerun script, goes
through here (a stakeholder report through :mod:`.budgeted_report`):

1. **price** it from public settings only: :func:`~dpsynth_core.release.prepare` checks every
   setting and prices the draw from the method
   (:meth:`~dpsynth_core.synthesizers.pricing.PricedMethod.charge`), a
   :class:`~dpsynth_core.privacy.spending.Spend`, before anything reads the data; the caller
   hands the :class:`~dpsynth_core.release.ReleaseSettings` it returns to :func:`reserve`;
2. **check** it against the dataset's lifetime budget in the ledger's own composition
   (:func:`~dpsynth_core.privacy.spending.compose`) and **record** it, in one transaction
   (:func:`reserve`, through :meth:`~dpsynth_core.workspace.ledger.Ledger.reserve`): a draw that does
   not fit is refused there, by a message built from public settings and earlier spends only, and
   the data is never read;
3. **draw** (:meth:`Reservation.draw`): the only step that reads the data;
4. attach the release to its recorded spend.

:func:`draw` runs the steps in one call. A caller with something to do between the record and the
draw (the command line's note on a seeded run, said before anything is drawn or written) calls
:func:`reserve`, then :meth:`Reservation.draw`.

So the projection shown before a draw (:func:`projection`) is what the ledger records after
it, digit for digit, and a draw that ran is always recorded: its spend is written before the
data is read and stays written whatever happens next.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass

from ..privacy.accounting import is_person_relation
from ..privacy.spending import Spend, Spending
from ..release import Release, ReleaseSettings
from ..wording import format_delta, format_epsilon


@dataclass(frozen=True)
class Draw:
    """A budgeted release: the release, its id in the workspace (None without one), its spend's
    id, the charge recorded and how long the draw took."""

    release: Release
    release_id: int | None
    spend_id: int | None
    charge: Spend
    seconds: float


def projection(workspace, fingerprint: str, charge: Spend, *, what: str = "This draw") -> Spending:
    """The dataset's spending after ``charge``, composed as the ledger will record it.

    Raises :class:`~dpsynth_core.workspace.ledger.BudgetExceeded` when it would pass the lifetime budget.
    """
    return workspace.ledger.check(fingerprint, charge, what=what)


def draw_label(charge: Spend, after: Spending | None, earlier: int, person: str = "person") -> str:
    """The draw button's words: what a draw costs (the ledger's own charge) and, after ``earlier``
    draws with the same settings, the total on this data it leads to (``after``, from
    :func:`projection`; None when refused). A person unit's figures are per ``person`` (what the unit
    calls one), its total too while every use of the records is per person like it (:func:`_per_person`'s
    rule), beside the total per record.
    """
    if not charge.guaranteed:
        cost = "no guarantee: this method's release is not differentially private"
    else:
        # a person unit's epsilon is per person, the total per record (a record's person removed and added back):
        # said, since "spends 1, the total becomes 4" after one draw reads as a miscount
        per_person = charge.neighbouring is not None and is_person_relation(charge.neighbouring)
        cost = f"spends ε = {format_epsilon(charge.epsilon)}" + (f" per {person}" if per_person else "")
        total = after.total_epsilon if after is not None and after.per_record is not None else None
        if earlier and total is not None:  # per record, every unit converted: what the lifetime budget counts
            own = _one_person_relation(after) if per_person else None
            if own is not None:  # nlswork's button said "per woman" beside a total "per record" only
                cost += (
                    f"; the total on this data becomes ε = {format_epsilon(own.epsilon)} per {person} "
                    f"(ε = {format_epsilon(total)} per record)"
                )
            else:
                cost += (
                    f"; the total{' per record' if per_person else ''} on this data becomes ε = {format_epsilon(total)}"
                )
            added = _added_up(after)  # "1.44" after two draws at 1 reads as a miscount
            if added is not None:
                cost += f"; adding up each draw's and report's ε would say {format_epsilon(added)}: hover for why"
    return ("Draw again" if earlier else "Generate synthetic data") + f" ({cost})"


def _one_person_relation(spending):
    """The records' one relation when every guaranteed use of them is per person under one column (the card's
    :func:`_per_person` rule), else None."""
    relations = getattr(spending, "relations", ())
    if len(relations) == 1 and is_person_relation(relations[0].neighbouring):
        return relations[0]
    return None


def draw_help(after: Spending | None) -> str | None:
    """The draw button's tooltip where the total it leads to (``after``, from :func:`projection`) is less than each
    draw's and report's epsilon added up: why (the ledger composes zero-concentrated events in their own currency,
    then states the sum as epsilon at a delta; or pure-DP ones by advanced composition); None where the two agree."""
    added = _added_up(after)
    if added is None:
        return None
    total = _stated(after)
    how = (
        "this method measures with Gaussian noise, whose privacy losses add up in their own measure "
        "(zero-concentrated DP, ρ), and the sum is stated as ε"
        if total.composition.startswith("zCDP")
        else "the privacy losses are composed by the advanced composition theorem, which states their sum as a "
        "smaller ε"
    )
    return (
        f"Why ε = {format_epsilon(total.epsilon)} and not {format_epsilon(added)}: {how} at "
        f"δ = {format_delta(total.delta)}. Adding up each draw's and report's ε ({format_epsilon(added)}) also "
        "holds, but overstates what the records have spent; "
        + (
            f"the ledger and the lifetime budget count ε = {format_epsilon(total.epsilon)}."
            if total is after.per_record
            else f"the ledger counts ε = {format_epsilon(total.epsilon)} per person, and the lifetime budget "
            f"ε = {format_epsilon(after.per_record.epsilon)} per record."
        )
    )


def _stated(after: Spending | None):
    """The total the draw button states first: per person while every use of the records is per person
    (:func:`_one_person_relation`), else per record (None: no total holds)."""
    if after is None or after.per_record is None:
        return None
    return _one_person_relation(after) or after.per_record


def _added_up(after: Spending | None) -> float | None:
    """Each draw's and report's epsilon added up, where the composed total the button states (:func:`_stated`) is
    clearly less (:attr:`~dpsynth_core.privacy.spending.RelationTotal.added_up`; else None)."""
    stated = _stated(after)
    return stated.added_up if stated is not None else None


@dataclass(frozen=True)
class Reservation:
    """A release priced, checked against the lifetime budget and recorded, not yet drawn (:func:`reserve`).

    ``workspace`` and ``fingerprint``: the ledger charged (None: no ledger); ``name``: the
    dataset's name in it; ``source``: who asked (``app``, ``cli``, ``rerun``); ``spend_id``: the
    recorded spend (None without a ledger).
    """

    settings: ReleaseSettings
    workspace: object
    fingerprint: str | None
    name: str
    source: str
    spend_id: int | None

    def draw(self, data, *, progress=None, stored_settings=None, settings_key=None, table_later=False) -> Draw:
        """Make the release from ``data`` (the only step that reads it) and record it with its spend.

        ``progress``: as for :meth:`~dpsynth_core.release.ReleaseSettings.run`. ``stored_settings``
        (default: the release's own public settings) and ``settings_key``: stored with the release.
        ``table_later``: the release is recorded at once but its table is written to the workspace
        when it is next read or :meth:`~dpsynth_core.workspace.releases.Releases.write_tables` is called (the
        app, once the table is on screen).
        """
        start = time.monotonic()
        release = self.settings.run(data, progress=progress)
        seconds = time.monotonic() - start
        release_id = None
        if self.workspace is not None:
            state_place(release.card, self.workspace, self.fingerprint)
            release_id = self.workspace.releases.record(
                self.fingerprint,
                release,
                name=self.name,
                settings=release.settings if stored_settings is None else stored_settings,
                settings_key=settings_key,
                source=self.source,
                seconds=seconds,
                spend_id=self.spend_id,
                table_later=table_later,
            )
        return Draw(release, release_id, self.spend_id, self.settings.charge, seconds)


def settings_digest(card: dict) -> str:
    """What makes two draws "the same settings": the method, its parameters and the declared columns,
    as the card states them (public), as a short digest."""
    public = [card["method"]["name"], card.get("parameters"), card.get("domain", {}).get("columns")]
    return hashlib.sha256(json.dumps(public, sort_keys=True, default=str).encode()).hexdigest()[:16]


def state_place(card: dict, workspace, fingerprint: str) -> None:
    """Write on ``card`` the draw's place, from the ledger at the time of the draw (its spend already
    recorded): which draw it is with these settings on these records, and what the records have
    spent in all so far per record. Cherry-picking the best of several draws is then visible to
    whoever reads the card."""
    digest = settings_digest(card)
    number = 1 + sum(settings_digest(r.card) == digest for r in workspace.releases.made_from(fingerprint))
    spending = workspace.ledger.spending(fingerprint)
    total = spending.total_epsilon if spending.per_record is not None and not spending.unconvertible else None
    card["draw"] = {
        "number_with_these_settings": number,
        "records_total_epsilon_per_record": total,
        "records_total_delta_per_record": spending.per_record.delta if total is not None else None,
        "lifetime_epsilon": spending.lifetime_epsilon,
        "draws_and_reports_on_these_records": spending.draws,
    }
    delta = spending.per_record.delta if total is not None else 0.0
    stated = f"ε = {format_epsilon(total)}" if total is not None else ""
    if total is not None and delta > 0:  # the composition's own delta, said where it appears
        stated += f", δ = {format_delta(delta)} ({spending.per_record.composition} composition)"
    spent = (
        _per_person(card, spending, stated)
        or f"the records have spent {stated} per record in all so far, this draw included"
        if total is not None
        else "no total per record holds for these records (a draw without a guarantee, or one per replaced record)"
    )
    card.setdefault("notes", []).append(
        f"This is draw {number} of {number} so far with these settings on these records "
        f"({spending.draws:,} {'draw or report' if spending.draws == 1 else 'draws and reports'} on them in all); "
        f"{spent}."
    )


def _per_person(card: dict, spending, per_record: str) -> str | None:
    """The records' total said per person first, when every guaranteed use of them is per person like this
    release (one relation, a person's): nlswork's card said "ε = 2.2 per record" beside "ε = 1 per woman", the
    release's own figure and a check's; per person the total is 1.1, and a record added to a person's rows counts
    twice (that person removed and added back: :func:`~dpsynth_core.privacy.spending.in_record_unit`)."""
    name = (card.get("privacy_unit") or {}).get("person")
    own = _one_person_relation(spending)
    if not name or own is None:
        return None
    stated = f"ε = {format_epsilon(own.epsilon)}"
    if own.delta > 0:
        stated += f", δ = {format_delta(own.delta)} ({own.composition} composition)"
    return (
        f"the records have spent {stated} per {name} in all so far, this draw included ({per_record} per record "
        f"added or removed, the lifetime budget's unit: a record added to a {name}'s rows is that {name} removed and "
        "added back)"
    )


def reserve(
    settings: ReleaseSettings, workspace=None, fingerprint: str | None = None, *, name: str = "", source: str = "app"
) -> Reservation:
    """Check the draw's charge (``settings.charge``) against the dataset's lifetime budget and record
    it, before anything reads the data; refused with
    :class:`~dpsynth_core.workspace.ledger.BudgetExceeded` when it does not fit. Without a ``workspace``
    nothing is checked or recorded.
    """
    spend_id = None
    if workspace is not None:
        spend_id = workspace.ledger.reserve(
            fingerprint, settings.charge, name=name, method=settings.method, source=source
        )
    return Reservation(settings, workspace, fingerprint, name, source, spend_id)


def draw(
    settings: ReleaseSettings,
    data,
    workspace=None,
    fingerprint: str | None = None,
    *,
    name: str = "",
    source: str = "app",
    progress=None,
    stored_settings=None,
    settings_key: str | None = None,
    table_later: bool = False,
) -> Draw:
    """Check, record and make one release of ``data`` (see the module docstring): :func:`reserve`,
    then :meth:`Reservation.draw`, whose arguments these are.

    ``settings``: the release's settings, checked and priced (:func:`~dpsynth_core.release.prepare`).
    """
    reservation = reserve(settings, workspace, fingerprint, name=name, source=source)
    return reservation.draw(
        data, progress=progress, stored_settings=stored_settings, settings_key=settings_key, table_later=table_later
    )
