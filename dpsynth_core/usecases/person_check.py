"""The rows-per-person check: an opt-in DP measurement before a release whose privacy unit is a person.

It tells the publisher, before the draw, how many rows bounding to ``K`` rows per person will drop and
which ``K`` would keep most rows, from a DP histogram of rows per person
(:func:`~dpsynth_core.privacy.persons.count_rows_per_person`). It reads the data, so it goes the way of
every use of the data (:mod:`.budgeted_draw`): priced from public settings (its epsilon, the person
column), checked against the lifetime budget and recorded in the ledger, then measured. It costs budget
of its own, on top of the release's, which is why it is opt-in; the plan shows its cost and the card of
a release drawn after it states what it found.
"""

from __future__ import annotations

import pandas as pd

from .. import constraints
from ..privacy.accounting import PrivacyEvent, person_relation
from ..privacy.noise import make_noise_source
from ..privacy.persons import RowsPerPerson, count_rows_per_person, rows_histogram
from ..privacy.spending import Spend
from ..validation import check_epsilon

#: How the check's spend is named in the ledger and on the card.
CHECK_LABEL = "rows per person (check before the release)"
CHECK_MECHANISM = "discrete Laplace histogram of rows per person (each person in one count)"


def check_charge(column: str, epsilon: float, *, seeded: bool = False) -> Spend:
    """The check's price, from public settings only: one epsilon-DP event per person (a seeded check claims
    no guarantee, as a seeded release)."""
    event = PrivacyEvent(CHECK_MECHANISM, check_epsilon(epsilon), 0.0, person_relation(column), CHECK_LABEL)
    return Spend((event,), not seeded)


def person_check(
    workspace,
    fingerprint: str,
    frame,
    domain,
    epsilon: float = constraints.PERSON_CHECK_EPSILON,
    *,
    name: str = "",
    source: str = "app",
    random_state=None,
) -> RowsPerPerson:
    """Price, check and record, then measure the rows per person of ``frame`` (a DataFrame, or an engine's counting
    source) for ``domain``'s person unit.

    ``workspace`` None records nothing (tests, a headless what-if); otherwise a check that does not fit the
    lifetime budget is refused by the ledger before the data is read.
    """
    unit = domain.person
    if unit is None:
        raise ValueError("the declaration names no person column: there is nothing to check")
    charge = check_charge(unit.column, epsilon, seeded=random_state is not None)
    if workspace is not None:
        workspace.ledger.reserve(
            fingerprint, charge, name=name, method="check", purpose="rows per person", source=source, what="This check"
        )
    noise = make_noise_source(random_state)
    if isinstance(frame, pd.DataFrame):
        return count_rows_per_person(
            frame,
            unit.column,
            epsilon=epsilon,
            noise=noise,
            cap=constraints.PERSON_CHECK_CAP,
            ignore_case=unit.ignore_case,
        )
    from ..engines.persons import rows_of_each_person

    per_person = rows_of_each_person(frame, unit)  # an engine's source: the same counts, from its distinct values
    return rows_histogram(per_person, epsilon=epsilon, noise=noise, cap=constraints.PERSON_CHECK_CAP)
