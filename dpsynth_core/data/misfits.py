"""Columns whose declaration does not fit the data file: most filled cells would become missing.

A date column whose file writes 31/01/2012, a number column that holds text, a list of country names
for a file that writes PRT: the public rule (:mod:`.encoding`) turns every such cell into missing, and
the release then says nothing about the column. This check says so before any draw, so a declaration of
the wrong kind or format costs no budget. It reads the data, so its words are for the publisher only and
never enter a release (as the Preview's counts of changed cells); it names no value and flags a column only
when at least :data:`MISFIT_SHARE` of its filled cells do not fit, so it tells a wrong kind or format,
never which rare value a list leaves out (the declaration stays the publisher's, from documentation).

A date column whose cells carry a time of day (2010-01-01 13:00) keeps the day only: :func:`timed_columns` says so
on the same terms, since an hourly table released as days has lost what the publisher may have wanted. Cells
written as a missing value usually is (NA from R, . from SAS and Stata) but not declared so: :func:`missing_spellings`
names the spelling, one of a public list, and counts them, so the publisher can declare it. Cells that name a
declared country or US state another way (United-States, USA, NEW YORK) are read as it: :func:`renamed_cells`
counts them, so the publisher knows the release writes the declared name.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, replace

import pandas as pd

from ..domain import CategoricalDomain, TableDomain
from ..domain.kinds import DEFAULT_ALPHABET, KIND_STATEMENTS
from ..domain.public_lists import TITLES, public_list, read_as_named
from .cell_values import read_numbers, time_of_day
from .encoding import encode_column, missing_cells

#: A column is flagged when at least this share of its filled cells cannot be read as its kind or lies
#: outside its declared values.
MISFIT_SHARE = 0.5

#: What the flagged cells are, per kind, and (once per kind, after the columns) how the rule reads that kind.
_WHAT = {
    "date": "are not dates the release can read",
    "datetime": "are not dates (with a time or none) the release can read",
    "time": "are not times of day the release can read",
    "integer": "are not numbers the release can read",
    "float": "are not numbers the release can read",
    "categorical": "are none of its declared values",
    "text": "do not fit its declared kind of text",
}
_HOW = {
    "date": "Dates are read written year first (2012-01-31, 2012/01/31) or with the month's English name "
    "(Jan 31 2012, 31-JAN-2012), and day or month first (31/01/2012) when the Domain page says the file writes them "
    "so, always with a four-digit year.",
    "datetime": "Dates with a time are read as dates are, followed by a time (13:00, 13:00:00, 1:00 PM) or none "
    "(midnight).",
    "time": "Times of day are read written 13:45, 13:45:07 or 1:45 PM (a date before them read past), and as digits "
    "(1345, 517) when the Domain page says the file writes them so.",
    "integer": "Numbers are read written plainly (1234.5, with a currency sign or none), and with thousands commas "
    "(1,234.5), a decimal comma (1.234,5 or 1 234,5) or a percent sign (97%) when the Domain page says the file "
    "writes them so.",
    "categorical": "A category is read when a cell is one of the declared values, as the file writes it.",
    "text": "Text is read when a cell fits the declared kind of text.",
}
_HOW["float"] = _HOW["integer"]


def _distinct(data: pd.DataFrame, name, counts: dict | None) -> pd.Series:
    """Each distinct cell of a column with its count (read for the publisher's eyes only), kept in ``counts`` when
    given so that the checks of one :func:`fit_notes` count each column once."""
    if counts is not None and name in counts:
        return counts[name]
    series = data[name]  # counted for the publisher's eyes only: nothing declared comes from it
    distinct = series.value_counts()
    if counts is not None:
        counts[name] = distinct
    return distinct


def unfit_cells(column, series: pd.Series, markers=("",)) -> tuple[int, int]:
    """A column's filled cells (not missing by the declaration's markers) and how many of them the public rule
    turns into missing (or the column's ``other`` value): unreadable as its kind, or outside its values.
    Numbers outside the range are clamped, not counted."""
    allowing = replace(column, missing=True)  # a column declared without missing values: its misfits still show
    encoded = encode_column(allowing, series, markers)
    filled = len(series) - missing_cells(series, markers)
    if column.kind in ("categorical", "text"):
        return filled, int(encoded.out_of_domain)
    return filled, int(encoded.missing) - (len(series) - filled)


def misfit_columns(data: pd.DataFrame, domain: TableDomain) -> tuple[list[str], list[str]]:
    """For the publisher only (it reads the data): each kept column at least :data:`MISFIT_SHARE` of whose
    filled cells would become missing, one line each naming the column and the counts (and what would read it,
    :func:`_other_reading`), and how the rule reads the kinds named (one sentence a kind, for the columns told
    nothing more). Two empty lists when every column fits."""
    lines, how = [], []
    for name, column in domain.kept.items():
        if name not in data or column.kind not in _WHAT:
            continue
        filled, unfit = unfit_cells(column, data[name], domain.missing_markers)
        if filled and unfit >= MISFIT_SHARE * filled:
            line = f"Column '{name}': {unfit:,} of its {filled:,} filled cells {_WHAT[column.kind]}."
            other = _other_reading(column, data[name], domain.missing_markers, filled, unfit)
            lines.append(line + other)
            how += [] if other or _HOW[column.kind] in how else [_HOW[column.kind]]  # a column told what reads it
    return lines, how


def _other_reading(column, series: pd.Series, markers, filled: int, unfit: int) -> str:
    """For a flagged column: the other way of writing its kind's values (its ``written`` choices: thousands
    commas, day first, ...) that reads the most of its cells, when that reads most of them, in words naming the
    choice (never a value); for a list of categories, how many cells are declared values in other capitals. Empty
    when neither helps. Publisher-only, as the flag itself."""
    kind = KIND_STATEMENTS[column.kind]
    if any(k.name == "written" for k in kind.keys):
        key = kind.key("written")
        tried = {w: unfit_cells(replace(column, written=w or None), series, markers)[1] for w in key.choices}
        fewest = min(tried.values())
        best = [w for w in tried if tried[w] == fewest and (w or None) != column.written]
        if best and fewest < MISFIT_SHARE * filled:
            ways = " or ".join(key.choices[w] for w in best)
            which = "which the file writes" if len(best) > 1 else "that"
            declared = " or ".join(f'"written": "{w}"' if w else 'no "written"' for w in best)
            return (
                f" Read as written {ways}, {filled - fewest:,} of them would be: choose {which} for "
                f'"{key.label}" on the Domain page ({declared} in a declaration).'
            )
    if column.kind == "categorical":
        declared = {str(v).casefold() for v in column.values}
        written = series.dropna().astype("string").str.strip()  # the cells as the file writes them, once
        texts = written.str.casefold()
        near = int(texts.isin(list(declared)).sum()) - (filled - unfit)
        if near >= MISFIT_SHARE * unfit:
            return (
                f" {near:,} of them are declared values written in other capitals: a category is read only as the "
                "declaration writes it, so write the values as the file does."
            )
        unpadded = {re.sub(r"^0+(?=[0-9])", "", str(v)) for v in column.values if re.fullmatch(r"0[0-9]+", str(v))}
        stripped = int(texts.isin(list(unpadded)).sum()) if unpadded else 0
        if stripped >= MISFIT_SHARE * unfit:
            return (
                f" {stripped:,} of them are declared codes without their leading zeros, as a spreadsheet drops them "
                "from numbers: save the file with the column formatted as text, or declare the codes as the file "
                "writes them."
            )
        listed, name = _listed(column, written, unfit)
        if name:
            return (
                f" {listed:,} of them are values of the bundled list '{TITLES[name]}': declare that list instead "
                f'(the Domain page\'s public lists; "list": "{name}" in a declaration).'
            )
        codes = int(texts.str.fullmatch(r"-?[0-9]+").sum())
        if codes >= MISFIT_SHARE * unfit and not any(re.fullmatch(r"-?[0-9]+", str(v)) for v in column.values):
            return (
                f" {codes:,} of them are whole numbers, where the declaration lists words: the file writes codes, so "
                'declare the codes as the values, with the words as their labels ("labels": {"1": "North"}; from an '
                "SPSS, Stata or SAS file's codebook, the command line's declare and the Domain page start them so)."
            )
    if column.kind == "text":
        return _text_reading(column, series, markers, filled, unfit)
    return ""


#: The kinds of text a flagged text column is tried as (:func:`_text_reading`), narrowest first, each a public
#: declaration with its words: one or two English words, codes of 1 to 12 digits, and letters (small and capital),
#: digits, spaces, hyphens and apostrophes up to the longest length the Domain page offers.
TEXT_TRIED = (
    ({"generator": "english_word"}, "any English word"),
    ({"generator": "word_pair"}, "any pair of English words"),
    *(({"generator": "digits", "length": n}, f"a code of {n} digits") for n in range(1, 13)),
    (
        {
            "generator": "letters",
            "max_length": 40,
            "alphabet": DEFAULT_ALPHABET + DEFAULT_ALPHABET.upper() + "0123456789 -'",
        },
        "any string of up to 40 letters (small and capital), digits, spaces, hyphens and apostrophes",
    ),
)


def _text_reading(column, series: pd.Series, markers, filled: int, unfit: int) -> str:
    """For a flagged text column: the kind of text of :data:`TEXT_TRIED` that reads the most of its cells (the
    narrowest of those that read as many), when that reads most of them, in words naming the kind and its settings
    (never a value). Publisher-only, as the flag itself."""
    cells = series.dropna().astype(str).str.strip()
    filled_cells = cells[~cells.isin(list(markers))]  # read for the publisher's eyes only, as the flag itself
    distinct = filled_cells.value_counts()  # each filled cell once, read by the text rule
    values, counts = distinct.index.tolist(), distinct.to_numpy()
    unread = (int(counts[pd.isna(replace(column, prefixes=(), **k).normalise(values))].sum()) for k, _ in TEXT_TRIED)
    fewest, best = min((n, i) for i, n in enumerate(unread))
    if fewest >= MISFIT_SHARE * filled or fewest >= unfit:
        return ""
    kind, words = TEXT_TRIED[best]
    declared = ", ".join(f'"{k}": {json.dumps(v)}' for k, v in kind.items())
    return f" Declared as {words}, {filled - fewest:,} of them would be read ({declared} in a declaration)."


#: The bundled lists a flagged list of categories is tried against (:func:`_listed`): another way of writing the
#: same things (a country's name, its ISO code of three or two letters; a US state's name or code; F for Female).
LISTS_TRIED = (
    *("countries", "country_codes_3", "country_codes_2", "us_states", "us_state_codes", "months", "weekdays"),
    *("sex", "sex_codes", "yes_no", "yes_no_codes", "true_false"),
)


def _listed(column, stripped: pd.Series, unfit: int) -> tuple[int, str | None]:
    """For a flagged list of categories: the bundled list (:data:`LISTS_TRIED`, other than the one declared) that
    reads the most of its unread cells as the file writes them, and how many, when that is most of them (a
    ``country`` column started as the countries' names, in a file that writes PRT or PT); else ``(0, None)``.
    Publisher-only, as the flag itself: it names a public list, never a value."""
    declared = {str(v) for v in column.values}
    cells = stripped.value_counts()  # the flagged column's filled cells, stripped, each once with its count
    unread = cells[~cells.index.isin(list(declared))]
    lists = [n for n in LISTS_TRIED if set(public_list(n)) != declared]
    cells = unread.index.tolist()

    def read(n: str) -> int:  # the unread cells the list would read: its values, and a country's other names
        listed = public_list(n)
        return int(unread[unread.index.isin(listed) | (read_as_named(listed, cells) >= 0)].sum())

    count, name = max(((read(n), n) for n in lists), default=(0, None))
    return (count, name) if count and count >= MISFIT_SHARE * unfit else (0, None)


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
        distinct = _distinct(data, name, counts)  # each distinct cell once (an hourly column repeats its times)
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


#: How files commonly write a missing value (R, SAS and Stata, spreadsheets, databases): a public list, matched
#: to a whole cell whatever its case.
MISSING_SPELLINGS = ("NA", "N/A", "#N/A", "NaN", "null", "None", ".", "-", "?", "missing")
#: What to do about such cells, after the lines naming them.
MISSING_SPELLINGS_HOW = (
    "Such cells are read as missing (or, in a text column, as a value). If the file writes a missing value so, "
    'say it on the Domain page (\'Missing values are also written as\'; "missing_values": {"markers": ["", '
    '"NA"]} in a declaration): they then count as missing, not as cells outside the declaration.'
)


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
        distinct = _distinct(data, name, counts)  # for the publisher's eyes only; nothing declared comes from it
        texts = distinct.index.to_series().astype("string").str.strip().str.lower()
        values = {str(v).lower() for v in getattr(column, "values", ()) or ()}
        hits = texts.isin(list(spellings)) & ~texts.isin(list(values))
        for text, count in zip(texts[hits.to_numpy()], distinct.to_numpy()[hits.to_numpy()]):
            found[spellings[text]][name] += int(count)
    lines = []
    for spelling, columns in found.items():
        names = ", ".join(f"'{n}'" for n in list(columns)[:5]) + (
            f" and {len(columns) - 5:,} more" if len(columns) > 5 else ""
        )
        lines.append(f"{sum(columns.values()):,} cells written '{spelling}' in {len(columns):,} column(s): {names}.")
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
        distinct = _distinct(data, name, counts)  # for the publisher's eyes only; nothing declared comes from it
        texts = distinct.index.to_series().astype("string").str.strip().str.rstrip(":").str.casefold()
        hits = distinct.index[texts.isin(words).to_numpy()]
        if len(hits):
            rows |= data[name].isin(list(hits))
            columns.append(name)
    if not columns:
        return []
    names = ", ".join(f"'{n}'" for n in columns[:5]) + (f" and {len(columns) - 5:,} more" if len(columns) > 5 else "")
    return [f"{int(rows.sum()):,} row(s) read as a total (Total, Sum, ...) in column(s) {names}."]


#: What the release does with cells read by another name of their country.
RENAMED_HOW = (
    "Each is read as the declared country or US state it names (the bundled lists of their names, spellings and "
    "other names), so it counts as that place and the release writes the declared name. To keep a spelling as "
    "written, declare it as a value of its own."
)


def renamed_cells(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """For the publisher only (it reads the data): per categorical column, how many cells name a declared country
    or US state another way (``USA`` where ``United States`` is declared:
    :func:`~..domain.public_lists.read_as_named`), in one line a column that has any (no value named)."""
    lines = []
    for name, column in domain.kept.items():
        if name not in data or not isinstance(column, CategoricalDomain) or column.integer_codes:
            continue
        distinct = _distinct(data, name, counts)  # for the publisher's eyes only; nothing declared comes from it
        keys = tuple(str(v) for v in column.values)
        texts = distinct.index.to_series().astype(str).str.strip()
        other = ~texts.isin(keys).to_numpy() & (read_as_named(keys, texts.tolist()) >= 0)
        if other.any():
            cells = int(distinct.to_numpy()[other].sum())
            lines.append(f"Column '{name}': {cells:,} cells name a declared country or US state another way.")
    return lines


@dataclass(frozen=True)
class FitNotes:
    """What a check of the data file against its declaration found, for the publisher only (it reads the data;
    no line names a value): ``missing``, the columns most of whose cells would become missing, and ``how``, how the
    rule reads their kinds (:func:`misfit_columns`); ``timed``, date columns whose times a release drops
    (:func:`timed_columns`); ``spelled``, cells written as a missing value usually is (:func:`missing_spellings`);
    ``fractions``, shares stored as fractions in a percent range (:func:`fraction_columns`); ``totals``, rows that
    are a spreadsheet's totals (:func:`total_rows`); ``renamed``, cells naming a declared country or state another way
    (:func:`renamed_cells`)."""

    missing: list
    how: list
    timed: list
    spelled: list
    fractions: list
    totals: list
    renamed: list

    #: The heading of the lines that would become missing (a release is stopped by them on the command line).
    MISSING_HEADING = "a release would hold these cells as missing."

    def advice(self) -> list[tuple[str, str, list, str]]:
        """The notes that do not stop a release, in order, each as ``(which, heading, lines, what to do)``."""
        notes = (
            ("timed", "a release would keep the day of these cells, not their time.", self.timed, TIME_OF_DAY_HOW),
            ("spelled", "cells written as files usually write a missing value.", self.spelled, MISSING_SPELLINGS_HOW),
            ("fractions", "shares stored as fractions, in a range declared in percent.", self.fractions, FRACTION_HOW),
            ("totals", "rows that look like a spreadsheet's totals.", self.totals, TOTAL_HOW),
            ("renamed", "cells read as the country or US state they name.", self.renamed, RENAMED_HOW),
        )
        return [note for note in notes if note[2]]


def fit_notes(data: pd.DataFrame, domain: TableDomain) -> FitNotes:
    """Every check of this module, for the command line's ``check-declaration`` and the app's gates alike."""
    missing, how = misfit_columns(data, domain)
    counts: dict = {}  # each column's distinct cells, counted once for the three checks that read them
    return FitNotes(
        missing,
        how,
        timed_columns(data, domain, counts),
        missing_spellings(data, domain, counts),
        fraction_columns(data, domain),
        total_rows(data, domain, counts),
        renamed_cells(data, domain, counts),
    )
