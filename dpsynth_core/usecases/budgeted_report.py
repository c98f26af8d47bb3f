"""The budgeted report: price a stakeholder report from public settings, check and record, then measure.

A stakeholder report (:mod:`dpsynth_core.evaluation.report`) reads the real data, so it is a draw
like a release, and goes the same way (:mod:`.budgeted_draw`):

1. **price** it from public settings only: the report's epsilon, the declaration and the chosen
   pairs and charted columns (:func:`~dpsynth_core.evaluation.report.report_charge`), checked first;
2. **check** it against the dataset's lifetime budget and **record** it, in one transaction
   (:meth:`~dpsynth_core.workspace.ledger.Ledger.reserve`): a report that does not fit is refused
   there, and the real data is never read;
3. **measure** the figures with noise (the only step that reads the real data) and render the page;
4. attach the report to the release and to its recorded spend.

The report's privacy unit is its release's (:func:`release_unit`, from the stored card), whatever
declaration it was given; a seeded report (``random_state``) is recorded as having no guarantee (so it
is refused under a lifetime budget) and its page says it is not private.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ..domain import as_table_domain
from ..evaluation.report import ReportError, ReportFigures, check_choices, measure, report_charge
from ..evaluation.report_plan import LOOSE_MARGIN, ReportPrecision, report_precision
from ..evaluation.report_render import render_html, total_sentence
from ..privacy.spending import Spend
from ..wording import noun


def release_unit(domain, card: dict):
    """``domain`` with the privacy unit of the release its report describes (read from the release's
    card, never from the report's own declaration): a report on a release per person bounds the rows
    per person the same way, and is priced, measured and recorded per person; a report on a release
    per record is per record."""
    unit = card.get("privacy_unit") or {}
    column, max_rows = unit.get("person_column"), unit.get("max_rows_per_person")
    if column is None or max_rows is None:
        return domain.with_person(None)
    bound = domain.with_person_bound(column, int(max_rows))
    return bound.with_person(replace(bound.person, ignore_case=bool(unit.get("ignore_case"))))


def measured_domain(declaration, card: dict, columns=None):
    """The declaration a report measures: the release's (its privacy unit, :func:`release_unit`), keeping only
    ``columns`` when the publisher chose some of the release's columns (None: all of them). Public choices only."""
    domain = release_unit(as_table_domain(declaration).underived(), card)  # a derived column's real cells measured
    if columns is None:
        return domain
    columns = list(columns)
    unknown = [c for c in columns if c not in domain.kept]
    if unknown:
        raise ReportError(f"the report names {noun(len(unknown), 'column')} not in the release: {', '.join(unknown)}")
    if not columns:
        raise ReportError("choose at least one column for the report to measure")
    return domain.covering(columns)


def plan(
    card: dict, declaration, rows: int, *, epsilon: float, pairs=(), chart_columns=(), columns=None
) -> ReportPrecision:
    """How many measurements :func:`report` would make with these choices and how wide a column distance's error
    bar would be (:func:`~dpsynth_core.evaluation.report_plan.report_precision`), on the release's own privacy unit
    as :func:`report` takes it (:func:`measured_domain`): said before anything is read or spent. ``rows``: the
    release's row count (public)."""
    domain = measured_domain(declaration, card, columns)
    return report_precision(epsilon, domain, rows, pairs=pairs, chart_columns=chart_columns)


def default_columns(card: dict, declaration, rows: int, *, epsilon: float, pairs=(), chart_columns=()) -> list[str]:
    """The columns a report measures unless the publisher chooses: all of the release's, unless a report on them
    all at ``epsilon`` would say little (:data:`~dpsynth_core.evaluation.report_plan.LOOSE_MARGIN`); then those of
    its ``pairs`` and ``chart_columns`` (the pairs the method joined, from the card). Each column measured is one
    more distance, and a number's or a date's four more figures, sharing the budget: a 55-column loans table's
    report at epsilon 0.1 made 234 measurements, its distances ±0.87 on a 0-to-1 scale. Public: the card, the
    declaration, the release's row count and the choices."""
    everything = list(measured_domain(declaration, card).kept)
    if plan(card, declaration, rows, epsilon=epsilon, pairs=pairs, chart_columns=chart_columns).margin < LOOSE_MARGIN:
        return everything
    named = {c for pair in pairs for c in pair} | set(chart_columns)
    return [c for c in everything if c in named] or everything


@dataclass(frozen=True)
class Report:
    """A budgeted report: its id in the workspace, its DP figures and its HTML page (both shareable)."""

    report_id: int
    figures: ReportFigures
    page: str


def report(
    workspace,
    fingerprint: str,
    release_id: int,
    *,
    card: dict,
    real,
    synthetic,
    declaration,
    epsilon: float,
    name: str = "",
    pairs=(),
    chart_columns=(),
    columns=None,
    source: str = "app",
    random_state=None,
) -> Report:
    """Price, check, record and make one stakeholder report of a release (see the module docstring).

    ``release_id`` and ``card``: the release reported on, as the workspace stores it; ``real``: the
    real table (read only by the report's noisy statistics); ``synthetic``: the release;
    ``declaration``: the release's; ``epsilon``: the report's own budget; ``name``: the dataset's
    name in the ledger; ``columns``: the release's columns it measures (None: all; :func:`default_columns`), its
    ``pairs`` and ``chart_columns`` among them; ``source``: who asked (``app``, ``cli``).
    """
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, (int, float))
        or not (math.isfinite(epsilon) and epsilon > 0)
    ):
        raise ReportError(f"report epsilon ({epsilon!r}) must be a number > 0")
    released = measured_domain(declaration, card)
    declaration = measured_domain(declaration, card, columns)
    named = {c for pair in pairs for c in pair} | set(chart_columns)
    outside = [c for c in released.kept if c in named and c not in declaration.kept]
    if outside:
        raise ReportError(f"the report's pairs and charts name columns it does not measure: {', '.join(outside)}")
    pairs, chart_columns = check_choices(declaration, synthetic, pairs, chart_columns)
    charge = report_charge(epsilon, declaration, pairs=pairs, chart_columns=chart_columns)
    if random_state is not None:  # a fixed seed: its noise can be removed, so nothing is guaranteed
        charge = Spend(charge.events, guaranteed=False)
    spend_id = workspace.ledger.reserve(
        fingerprint, charge, name=name, method="report", purpose="report", source=source, what="This report"
    )
    figures = measure(
        real,
        synthetic,
        declaration,
        epsilon=epsilon,
        pairs=pairs,
        chart_columns=chart_columns,
        random_state=random_state,
    )
    page = render_html(card, figures, total=total_sentence(card, epsilon), seeded=random_state is not None)
    report_id = workspace.releases.record_report(
        fingerprint,
        release_id,
        events=figures.events,
        figures=figures.to_dict(),
        html=page,
        source=source,
        spend_id=spend_id,
    )
    return Report(report_id, figures, page)
