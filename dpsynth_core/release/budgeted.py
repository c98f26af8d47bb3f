"""One budgeted draw: price it from the method, check the lifetime budget, record, then draw.

Every use of the data that leaves a figure goes through :func:`draw` (a release, from the app's
Preview page, the command line's ``synth`` or a rerun script) or :func:`report` (a stakeholder report):

1. **price** it from public settings only: the method's charge
   (:meth:`~dpsynth_core.synthesizers.base.Synthesizer.charge`, via
   :func:`~dpsynth_core.release.prepare`) or the report's (:func:`~dpsynth_core.evaluation.report.report_charge`),
   a :class:`~dpsynth_core.privacy.spending.Spend`, before anything reads the data;
2. **check** it against the dataset's lifetime budget in the ledger's own composition
   (:func:`~dpsynth_core.privacy.spending.compose`) and **record** it, in one transaction
   (:meth:`~dpsynth_core.workspace.ledger.Ledger.reserve`): a draw that does not fit is refused
   there, by a message built from public settings and earlier spends only, and the data is
   never read;
3. **draw**: the only step that reads the data;
4. attach the release (or report) to its recorded spend.

So the projection shown before a draw (:func:`projection`) is what the ledger records after
it, digit for digit, and a draw that ran is always recorded: its spend is written before the
data is read and stays written whatever happens next.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..privacy.spending import Spend, Spending
from ..wording import format_epsilon
from . import Release, prepare


@dataclass
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


def draw_label(charge: Spend, after: Spending | None, earlier: int) -> str:
    """The draw button's words: what a draw costs (the ledger's own charge) and, after ``earlier``
    draws with the same settings, the total on this data it leads to (``after``, from
    :func:`projection`; None when refused).
    """
    if not charge.guaranteed:
        cost = "no guarantee: this method's release is not differentially private"
    else:
        cost = f"spends ε = {format_epsilon(charge.epsilon)}"
        total = after.total_epsilon if after is not None and after.per_record is not None else None
        if earlier and total is not None:  # per record, every unit converted: what the lifetime budget counts
            cost += f"; the total on this data becomes ε = {format_epsilon(total)}"
    return ("Draw again" if earlier else "Generate synthetic data") + f" ({cost})"


def draw(
    data,
    domain,
    epsilon: float,
    *,
    workspace=None,
    fingerprint: str | None = None,
    name: str = "",
    source: str = "app",
    settings: dict | None = None,
    settings_key: str | None = None,
    progress=None,
    open_ledger=None,
    ready=None,
    table_later: bool = False,
    **options,
) -> Draw:
    """Price, check, record and make one release (see the module docstring).

    ``data``, ``domain``, ``epsilon`` and ``options``: as for :func:`~dpsynth_core.release.synthesize`
    (checked there once). ``workspace`` and ``fingerprint``: the ledger to charge (None: no ledger,
    nothing is checked or recorded); ``name``: the dataset's name in it; ``settings`` (default: the
    release's own) and ``settings_key``: stored with the release; ``source``: ``app`` or ``cli``.

    ``open_ledger``: ``(request, data) -> (data, workspace, fingerprint)``, for a ledger found from the
    records themselves (the command line, given a file), in place of ``workspace`` and ``fingerprint``:
    called once every setting is checked and the draw priced, before the budget check. It may open
    the workspace and read the records to key their ledger (handing back the table it read, so that
    it is read once), nothing more: no mechanism has run, and a refusal that follows is worded from
    public settings and earlier spends only. ``ready``: called with the
    request once the spend is recorded, just before the data is drawn (for a note such as the
    command line's on a seeded run, said before anything is drawn or written). ``table_later``: the
    release is recorded at once but its table is written to the workspace when it is next read or
    :meth:`~dpsynth_core.workspace.releases.Releases.write_tables` is called (the app, once the table is on screen).
    """
    request = prepare(data, domain, epsilon, **options)
    if open_ledger is not None:
        data, workspace, fingerprint = open_ledger(request, data)
    spend_id = None
    if workspace is not None:
        spend_id = workspace.ledger.reserve(
            fingerprint, request.charge, name=name, method=request.method, source=source
        )
    if ready is not None:
        ready(request)
    start = time.monotonic()
    release = request.run(data, progress=progress)
    seconds = time.monotonic() - start
    release_id = None
    if workspace is not None:
        release_id = workspace.releases.record(
            fingerprint,
            release,
            name=name,
            settings=release.settings if settings is None else settings,
            settings_key=settings_key,
            source=source,
            seconds=seconds,
            spend_id=spend_id,
            table_later=table_later,
        )
    return Draw(release, release_id, spend_id, request.charge, seconds)


def report(
    workspace,
    fingerprint: str,
    release_id: int,
    real,
    synthetic,
    declaration,
    *,
    epsilon: float,
    name: str,
    render,
    pairs=(),
    chart_columns=(),
    source: str = "app",
    random_state=None,
) -> int:
    """Price, check, record and make one stakeholder report of a release; returns the report's id.

    ``real``: the real table (read only by the report's noisy statistics); ``synthetic``: the
    release; ``render``: ``figures -> HTML page``.
    """
    import math

    from ..domain import as_table_domain
    from ..evaluation.report import ReportError, check_choices, measure, report_charge

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
    return workspace.releases.record_report(
        fingerprint,
        release_id,
        events=figures.events,
        figures=figures.to_dict(),
        html=render(figures),
        source=source,
        spend_id=spend_id,
    )
