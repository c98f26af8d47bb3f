"""How precise a stakeholder report will be, said before it is made, from public choices only.

A report shares its budget equally by its measurements (:func:`.report.report_charge`): on a wide table they are
many (a 32-column table at the defaults: 171, the row count, a distance per column and per pair, shares per charted
column and four value-by-value figures per numeric or date column), and each distance's error bar grows with their
number. At a report epsilon of 0.1 on 1,787 rows that bar spans the whole 0-to-1 scale, which the report said only
after it had spent the budget; the Release page now says it before (:func:`precision_words`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..domain import as_table_domain
from ..wording import format_epsilon
from .intervals import CONFIDENCE, laplace_margin
from .report import report_charge, value_columns

#: A distance's error bar at most this wide (as a share of the rows, either way) says something; the Release
#: page offers the epsilon that reaches it.
USEFUL_MARGIN = 0.05
#: From this error bar on, the Release page warns that the report's figures would say little.
LOOSE_MARGIN = 0.25


@dataclass(frozen=True)
class ReportPrecision:
    """A report's plan: its ``measurements`` and a column distance's 95% error bar (``margin``: a share of the
    release's rows, either way), from public choices and the release's public row count."""

    measurements: int
    margin: float
    #: The report epsilon at which the error bar is ``USEFUL_MARGIN``.
    useful_epsilon: float
    #: Of the measurements: the columns with a distance each, and the numeric or date columns compared value by value.
    columns: int = 0
    numbers: int = 0


def report_precision(epsilon: float, domain, rows: int, *, pairs=(), chart_columns=()) -> ReportPrecision:
    """The plan of a report at ``epsilon`` on a release over ``domain`` of ``rows`` rows (its DP or public row
    count, public once released): each of its ``k`` measurements (:func:`.report.report_charge`) gets
    ``epsilon / k``, so a distance's Laplace noise has scale ``k / epsilon`` records, and its error bar is about that
    noise's margin at :func:`.report.draw_noise`'s level over the rows (the row count's own noise, which widens it
    in proportion to the distance, aside: 0.00487 planned, 0.00487 to 0.00504 made on the adult example); with a
    person unit of at most ``K`` rows a person, ``K`` times that (:func:`.report.add_noise`). Reads no data.

    >>> from dpsynth_core.domain import TableDomain
    >>> domain = TableDomain.from_json({"columns": {"x": {"type": "integer", "min": 0, "max": 9}}})
    >>> plan = report_precision(0.1, domain, 1000)
    >>> plan.measurements, round(plan.margin, 3), round(plan.useful_epsilon, 3)
    (6, 0.221, 0.443)
    >>> per_person = TableDomain.from_json({**domain.to_json(), "person": {"column": "id", "max_rows": 3}})
    >>> round(report_precision(0.1, per_person, 1000).margin, 3)
    0.664
    """
    domain = as_table_domain(domain)
    measurements = len(report_charge(epsilon, domain, pairs=pairs, chart_columns=chart_columns).events)
    moved = domain.rows_per_person  # one person moves each statistic by up to K
    per_epsilon = laplace_margin(moved * measurements, (1 - CONFIDENCE) / 2) / max(int(rows), 1)  # at epsilon 1
    return ReportPrecision(
        measurements, per_epsilon / epsilon, per_epsilon / USEFUL_MARGIN, len(domain.kept), len(value_columns(domain))
    )


def precision_words(plan: ReportPrecision, epsilon: float) -> str:
    """The plan in a sentence for the Release page, with the epsilon that would make it useful when it is not.

    >>> precision_words(ReportPrecision(171, 0.95, 1.9), 0.1)  # doctest: +NORMALIZE_WHITESPACE
    "At ε = 0.1 the report's 171 measurements get ε = 0.000585 each: a column's distance (0 to 1) comes with an
    error bar of about ±0.95. For about ±0.05 the report needs ε = 1.9."
    >>> precision_words(ReportPrecision(45, 0.0509, 0.102), 0.1).endswith("about ±0.05.")
    True
    >>> precision_words(ReportPrecision(45, 0.00442, 0.102), 2.0).endswith("about ±0.0044.")  # never ±0.00
    True
    """
    if plan.margin >= 1:
        bar = "wider than the whole scale"
    else:  # hundredths, or two significant digits under one hundredth
        digits = 2 if plan.margin >= 0.01 else 1 - math.floor(math.log10(plan.margin))
        bar = f"of about ±{plan.margin:.{digits}f}"
    said = (
        f"At ε = {format_epsilon(epsilon)} the report's {plan.measurements} measurements get "
        f"ε = {epsilon / plan.measurements:.3g} each: a column's distance (0 to 1) comes with an error bar {bar}."
    )
    if round(plan.margin, 2) > USEFUL_MARGIN:  # as shown: a bar said to be ±0.05 already is
        said += f" For about ±{USEFUL_MARGIN:.2f} the report needs ε = {format_epsilon(plan.useful_epsilon)}."
    return said


#: Columns a report charts value by value unless the publisher chooses (:func:`default_charts`).
DEFAULT_CHARTS = 4


def default_charts(declaration, columns) -> list[str]:
    """The columns a report charts value by value unless the publisher chooses: the first :data:`DEFAULT_CHARTS` of
    ``columns`` whose values the declaration lists or bounds, free-text ones last (their values come out made up, or
    as one placeholder where none came out of the vocabulary's count: a chart of them says little). Public: the
    declaration alone.

    >>> spec = {"columns": {"name": {"type": "text", "generator": "letters", "max_length": 9},
    ...                     "year": {"type": "integer", "min": 1975, "max": 2024}}}
    >>> default_charts(spec, ["name", "year"])
    ['year', 'name']
    """
    kinds = {name: column.kind for name, column in as_table_domain(declaration).columns.items()}
    return ([c for c in columns if kinds.get(c) != "text"] + [c for c in columns if kinds.get(c) == "text"])[
        :DEFAULT_CHARTS
    ]
