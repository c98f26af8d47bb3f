"""What a draw costs, from public settings only, before any data is read: the charge the ledger
records, the budget plan the card shows, each column's noise, and the names of the mechanisms and
guarantees they are stated in."""

from __future__ import annotations

from .. import constraints
from ..domain import as_table_domain
from ..privacy.accounting import Accountant, PrivacyEvent, Spend
from ..privacy.binning import binning_budget, binning_events, binning_label, either_path
from ..privacy.persons import person_ledger

#: How a method measures one column (:meth:`Synthesizer.column_mechanism`): CatHist over the declared
#: values; CatHist choosing a text column's values, then counted with the others; a noisy histogram over
#: the declared cells; a Gaussian-noise marginal (zCDP); a Dirichlet prior on every declared cell.
CATHIST, VOCABULARY, HISTOGRAM, GAUSSIAN, PRIOR = (
    "CatHist",
    "CatHist vocabulary",
    "histogram",
    "Gaussian marginal",
    "Dirichlet prior",
)
COLUMN_MECHANISMS = (CATHIST, VOCABULARY, HISTOGRAM, GAUSSIAN, PRIOR)
TREE_MECHANISM = "PrivTree (the range split while a biased noisy count clears a threshold)"
BIN_COUNTS_MECHANISM = "discrete Laplace histogram (counts that place the bins)"
#: The label of the noisy row count's spend.
ROW_COUNT = "row count"
#: A range of 33 to 256 values: PrivTree, or on a table dense enough by its DP row count a first count per value.
TREE_OR_COUNTS_MECHANISM = (
    "PrivTree, or on a table dense enough by its DP row count a first discrete Laplace count per value"
)


def first_binning_mechanism(column) -> str:
    """How the plan, the ledger and the card name a column's first binning measurement (public)."""
    return TREE_OR_COUNTS_MECHANISM if either_path(column) else TREE_MECHANISM


def split_by_label(events, epsilon: float) -> dict[str, float]:
    """Each label's share of a charge, in epsilon: its epsilon, or for a zero-concentrated charge its
    share of rho times ``epsilon`` (the parts then add up to ``epsilon``, as on the card)."""
    events = list(events)
    ledger = Accountant(events)
    rho = ledger.rho()
    split: dict[str, float] = {}
    for event in events:
        cost = event.rho_cost / rho * epsilon if ledger.has_zcdp and rho > 0 else event.epsilon
        split[event.label] = split.get(event.label, 0.0) + cost
    return split


#: The guarantees a method can carry.
PURE_DP, ZCDP, APPROXIMATE_DP, NO_GUARANTEE = "pure DP", "zCDP", "approximate DP", "none"
GUARANTEES = (PURE_DP, ZCDP, APPROXIMATE_DP, NO_GUARANTEE)


class PublicCharge:
    """The price of a draw (a part of :class:`~.base.Synthesizer`, whose class attributes it reads:
    ``guarantee``, ``neighbouring``, ``default_rows``, ``row_count_is_public``, ``row_count_share``,
    ``column_label``, and its ``check_unit``)."""

    @classmethod
    def uses_tolerance(cls, domain) -> bool:
        """Whether the tolerance for randomness (rho) changes anything for this declaration."""
        return any(c.kind == "text" for c in as_table_domain(domain).kept.values())

    @classmethod
    def charge(cls, domain, epsilon: float, *, rows: int | None = None, **options) -> Spend:
        """The exact charge of one draw, from public settings only, before any data is read.

        ``domain``: the declaration; ``epsilon``: the publisher's total; ``rows``: a public
        number of rows (None: the method's rule); ``options``: the method's options, checked.
        Returns the :class:`~dpsynth_core.privacy.accounting.Spend` the ledger records for the
        draw: the events :meth:`fit` spends (an adaptive part is one event covering it), whether
        they carry a guarantee, and the delta of their zero-concentrated events; with a person
        unit, the per-row charge at ``epsilon / K`` stated per person as :meth:`ledger` states it.
        Every method's ``fit`` is tested to compose to exactly this.
        """
        domain = as_table_domain(domain)
        unit = domain.person
        cls.check_unit(unit)
        per_row = cls._row_charge(
            domain, float(epsilon) / (unit.max_rows if unit is not None else 1), rows=rows, **options
        )
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
        for name, column_epsilon in binning_budget(domain, epsilon, rho=cls.binning_rho(epsilon, **options)).items():
            parts = binning_events(domain.columns[name], column_epsilon)
            tree, count = (parts[0], parts[1]) if len(parts) == 2 else (0.0, parts[0])
            label = binning_label(domain.columns[name])
            if tree:
                events.append(cls._event(first_binning_mechanism(domain.columns[name]), tree, label))
            events.append(cls._event(BIN_COUNTS_MECHANISM, count, label))
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
        domain = as_table_domain(domain)
        group = domain.person.max_rows if domain.person is not None else 1
        plan = cls._row_plan(domain, float(epsilon) / group, rows=rows, expected_rows=expected_rows, **options)
        return {label: value * group for label, value in plan.items()}

    @classmethod
    def _row_plan(cls, domain, epsilon: float, *, rows=None, expected_rows=None, **options) -> dict[str, float]:
        return split_by_label(cls._row_charge(domain, epsilon, rows=rows, **options).events, epsilon)

    @classmethod
    def column_mechanism(cls, column, **options) -> str:
        """How the method measures one declared column: one of :data:`COLUMN_MECHANISMS`."""
        return VOCABULARY if column.kind == "text" else HISTOGRAM

    @classmethod
    def column_noise(
        cls, domain, epsilon: float, *, rows: int | None = None, expected_rows: int | None = None, **options
    ) -> dict[str, dict]:
        """Per kept column, its own measurement's noise (from the plan): ``{"epsilon": ...}`` (and ``"sigma"``)."""
        domain = as_table_domain(domain)
        plan = cls._row_plan(domain, epsilon, rows=rows, expected_rows=expected_rows, **options)
        even = epsilon / max(len(domain.kept), 1)
        return {name: {"epsilon": plan.get(cls.column_label.format(name), even)} for name in domain.kept}

    @classmethod
    def privacy_note(cls, domain, epsilon: float, *, rows: int | None = None, **options):
        """A note the Privacy page shows under the plan: ``(level, text)`` with level ``info``,
        ``warning`` or ``error``, or None."""
        return None


def row_count_event(events) -> PrivacyEvent | None:
    """The noisy row count's spend among ``events`` (None: the number of rows is not a noisy count)."""
    return next((e for e in events if e.label == ROW_COUNT), None)
