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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..domain import as_table_domain
from ..evaluation.report import ReportError, ReportFigures, check_choices, measure, report_charge
from ..evaluation.report_render import render_html, total_sentence


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
    source: str = "app",
    random_state=None,
) -> Report:
    """Price, check, record and make one stakeholder report of a release (see the module docstring).

    ``release_id`` and ``card``: the release reported on, as the workspace stores it; ``real``: the
    real table (read only by the report's noisy statistics); ``synthetic``: the release;
    ``declaration``: the release's; ``epsilon``: the report's own budget; ``name``: the dataset's
    name in the ledger; ``source``: who asked (``app``, ``cli``).
    """
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, (int, float))
        or not (math.isfinite(epsilon) and epsilon > 0)
    ):
        raise ReportError(f"report epsilon ({epsilon!r}) must be a number > 0")
    pairs, chart_columns = check_choices(declaration, synthetic, pairs, chart_columns)
    charge = report_charge(epsilon, as_table_domain(declaration), pairs=pairs, chart_columns=chart_columns)
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
    page = render_html(card, figures, total=total_sentence(card, epsilon))
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
