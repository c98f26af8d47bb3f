"""A method as the planner sees it before any data: what it is and what one draw costs.

:class:`PricedMethod` is the parent of :class:`~.base.Synthesizer`. It holds what the app, the CLI, the planner and
the release card ask of a method without fitting it: its title, guarantee, options and neighbouring relation, and the
exact charge of one draw (:meth:`PricedMethod.charge`), the plan per label (:meth:`PricedMethod.budget_plan`) and each
column's noise, all from public settings only (the declaration, epsilon, a public row count, the options). Nothing here
reads data: the ledger records this charge before a draw, and every method's ``fit`` is tested to spend exactly it
(tests/core/usecases/test_budgeted.py).
"""

from __future__ import annotations

from .. import constraints
from ..domain import as_table_domain
from ..errors import ParameterError
from ..privacy.accounting import ADD_REMOVE, Accountant, PrivacyEvent
from ..privacy.binning import binning_budget
from ..privacy.leaves import binning_events
from ..privacy.persons import person_ledger
from ..privacy.spending import Spend
from .charges import (
    HISTOGRAM,
    NO_GUARANTEE,
    PURE_DP,
    ROW_COUNT,
    VOCABULARY,
    binning_spends,
    gaussian_bin_counts,
    split_by_label,
)


class PricedMethod:
    """A method's public description and the price of one draw, from public settings only (no data).

    Subclasses (every method, through :class:`~.base.Synthesizer`) set the description's attributes and implement
    ``_method_events``: what their ``fit`` spends on the columns, :meth:`charge` composing it with the row count and
    the bins.
    """

    # --- what the method is: the app, the CLI, the planner and the card ask these -------------
    method_name = ""
    #: A short title and a paragraph for non-experts (set by :func:`~.registry.register`).
    title = ""
    summary = ""
    #: The guarantee it carries: one of :data:`~.charges.GUARANTEES`.
    guarantee = PURE_DP
    #: The publisher-facing options it takes (:class:`~.options.Option`), with defaults and ranges.
    options: tuple = ()
    #: Which columns the tolerance for randomness (rho) applies to, in words.
    tolerance_columns = "text"
    #: The label of a column's own measurement in the budget plan (``{}``: the column's name).
    column_label = "column {}"
    #: A public number of rows used when the publisher gives none (None: a noisy count, unless
    #: :attr:`row_count_is_public`).
    default_rows: int | None = None
    neighbouring = ADD_REMOVE
    #: True for methods whose neighbouring relation fixes the number of records (substitution):
    #: the true count is then public and is used as it is.
    row_count_is_public = False
    #: Share of epsilon spent on the noisy row count when the publisher gives none.
    row_count_share = constraints.ROW_COUNT_SHARE
    #: True for methods that read the data only through a counting source's calls
    #: (:mod:`dpsynth_core.engines`), so the table may be counted by DuckDB or Spark.
    reads_sources = False
    #: True for methods whose fitted whole-number columns cut a short kept range into a bin per value (up to
    #: ``constraints.SHORT_RANGE_BINS`` bins; :func:`~dpsynth_core.privacy.leaf_cuts.split_short`), measured for them.
    short_ranges = False
    #: True when rows drawn in chunks are post-processing of the fitted model alone, so each chunk
    #: may come from its own random stream, in any order, on any worker. False: chunks are drawn
    #: in order by :meth:`chunk_sampler` (deniability's sampling is itself a mechanism that counts
    #: its runs; dirichlet slices the one table of its fitted number of rows).
    independent_chunks = True
    #: Rough share of a release's time spent in ``fit`` (the rest in ``sample``), for progress bars.
    fit_share = 0.7

    # --- what a draw costs, from public settings only, before any data is read ---------------

    @classmethod
    def uses_tolerance(cls, domain) -> bool:
        """Whether the tolerance for randomness (rho) changes anything for this declaration."""
        return any(c.kind == "text" for c in as_table_domain(domain).measured().kept.values())

    @classmethod
    def charge(cls, domain, epsilon: float, *, rows: int | None = None, **options) -> Spend:
        """The exact charge of one draw, from public settings only, before any data is read.

        ``domain``: the declaration; ``epsilon``: the publisher's total; ``rows``: a public
        number of rows (None: the method's rule); ``options``: the method's options, checked.
        Returns the :class:`~dpsynth_core.privacy.spending.Spend` the ledger records for the
        draw: the events :meth:`fit` spends (an adaptive part is one event covering it), whether
        they carry a guarantee, and the delta of their zero-concentrated events; with a person
        unit, the per-row charge at ``epsilon / K`` stated per person as :meth:`ledger` states it.
        Every method's ``fit`` is tested to compose to exactly this.
        """
        domain = as_table_domain(domain).measured()
        unit = domain.person
        cls.check_unit(unit)
        per_row = cls._row_charge(domain, float(epsilon) / domain.rows_per_person, rows=rows, **options)
        if unit is None:
            return per_row
        ledger = person_ledger(
            Accountant(per_row.events, delta=per_row.zcdp_delta), unit, constraints.ADVANCED_COMPOSITION_DELTA
        )
        return Spend(ledger.events, per_row.guaranteed)

    @classmethod
    def _row_charge(cls, domain, epsilon: float, *, rows=None, **options) -> Spend:
        """The charge per row at the per-row ``epsilon`` (the method's own events)."""
        common, left = cls._common_events(domain, epsilon, rows, **options)
        events = common + cls._method_events(domain, epsilon, left, common, rows=rows, **options)
        return Spend(tuple(events), cls.guarantee != NO_GUARANTEE)

    @classmethod
    def _event(cls, mechanism: str, epsilon: float, label: str, delta: float = 0.0) -> PrivacyEvent:
        return PrivacyEvent(mechanism, epsilon, delta, cls.neighbouring, label)

    @classmethod
    def binning_rho(cls, epsilon: float, **options) -> float | None:
        """The zCDP budget the bins are priced against (:func:`~dpsynth_core.privacy.binning.binning_budget`):
        None for a method that composes in epsilon."""
        return None

    @classmethod
    def _common_events(cls, domain, epsilon: float, rows, **options) -> tuple[list, float]:
        """The noisy row count and the bins of adaptive columns (what :meth:`_fit_opened` spends),
        and the epsilon left for the columns."""
        events, left = [], epsilon
        if rows is None and not cls.row_count_is_public and cls.default_rows is None:
            row_epsilon = epsilon * cls.row_count_share
            left -= row_epsilon
            events.append(cls._event("discrete Laplace count", row_epsilon, ROW_COUNT))
        rho = cls.binning_rho(epsilon, **options)
        gaussian = gaussian_bin_counts(rho, cls.neighbouring)
        for name, column_epsilon in binning_budget(domain, epsilon, rho=rho).items():
            parts = binning_events(domain.columns[name], column_epsilon)
            tree, count = (parts[0], parts[1]) if len(parts) == 2 else (0.0, parts[0])
            events += binning_spends(domain.columns[name], tree, count, cls.neighbouring, gaussian=gaussian)
            left -= tree + count
        return events, left

    @classmethod
    def _method_events(
        cls, domain, epsilon: float, left: float, common: list, *, rows=None, **options
    ) -> list:  # pragma: no cover
        """The events the method spends on the columns, ``left`` being the epsilon left for them."""
        raise NotImplementedError

    @classmethod
    def budget_plan(
        cls, domain, epsilon: float, *, rows: int | None = None, expected_rows: int | None = None, **options
    ) -> dict[str, float]:
        """How the draw splits epsilon per label, before any data is read, as the card shows it (zCDP: shares
        of rho, in epsilon; a person unit: per row times K). ``expected_rows``: display only."""
        domain = as_table_domain(domain).measured()
        group = domain.rows_per_person
        plan = cls._row_plan(domain, float(epsilon) / group, rows=rows, expected_rows=expected_rows, **options)
        return {label: value * group for label, value in plan.items()}

    @classmethod
    def _row_plan(cls, domain, epsilon: float, *, rows=None, expected_rows=None, **options) -> dict[str, float]:
        return split_by_label(cls._row_charge(domain, epsilon, rows=rows, **options).events, epsilon)

    @classmethod
    def column_mechanism(cls, column, **options) -> str:
        """How the method measures one declared column: one of :data:`~.charges.COLUMN_MECHANISMS`."""
        return VOCABULARY if column.kind == "text" else HISTOGRAM

    @classmethod
    def column_noise(
        cls, domain, epsilon: float, *, rows: int | None = None, expected_rows: int | None = None, **options
    ) -> dict[str, dict]:
        """Per kept column, its own measurement's noise (from the plan): ``{"epsilon": ...}`` (and ``"sigma"``).
        ``epsilon``: per row, as the mechanisms run (a person unit's epsilon / K: :func:`~.planning.column_plan`)."""
        domain = as_table_domain(domain).measured()
        plan = cls._row_plan(domain, epsilon, rows=rows, expected_rows=expected_rows, **options)
        even = epsilon / max(len(domain.kept), 1)
        return {name: {"epsilon": plan.get(cls.column_label.format(name), even)} for name in domain.kept}

    @classmethod
    def privacy_note(cls, domain, epsilon: float, *, rows: int | None = None, **options):
        """A note the Privacy page shows under the plan: ``(level, text)`` with level ``info``,
        ``warning`` or ``error``, or None."""
        return None

    @classmethod
    def check_unit(cls, unit) -> None:
        """Refuse a person unit for a method whose relation fixes the number of records (before any reading)."""
        if unit is not None and cls.neighbouring != ADD_REMOVE:
            raise ParameterError(
                f"method '{cls.method_name}' protects one record with a public row count; it cannot "
                f"protect a {unit.name} with several rows: choose another method, or no person column"
            )
