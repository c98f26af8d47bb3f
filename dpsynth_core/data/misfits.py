"""Columns whose declaration does not fit the data file: cells the public rule would change or hold as missing.

A date column whose file writes 31/01/2012, a number column that holds text, a list of country names
for a file that writes PRT: the public rule (:mod:`.encoding`) turns every such cell into missing, and
the release then says nothing about the column. This check says so before any draw, so a declaration of
the wrong kind or format costs no budget. It reads the data, so its words are for the publisher only and
never enter a release (as the Preview's counts of changed cells); it names no value and flags a column (stopping
the command line's release) only when at least :data:`MISFIT_SHARE` of its filled cells do not fit, so it tells a
wrong kind or format, never which rare value a list leaves out (the declaration stays the publisher's, from
documentation). Fewer such cells are counted by column (:func:`changed_columns`, a note that stops nothing), with
how many are declared values in other capitals, spaces or punctuation or codes that lost their leading zeros: what a
release would note after the draw, said before it.

The checks that tell what else a file writes that its declaration does not say (times of day in dates, fractions in
percent, missing values spelled NA, spreadsheet totals, places by other names) are in :mod:`.file_notes`;
:func:`fit_notes` runs them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import pandas as pd

from ..domain import CategoricalDomain, TableDomain
from ..domain.kinds import KIND_STATEMENTS
from ..domain.public_lists import TITLES, public_list, read_as_named
from .banded import banded_columns, banded_how
from .encoding import encode_column, missing_cells
from .file_notes import (
    FRACTION_HOW,
    MISFIT_SHARE,
    MISSING_SPELLINGS_HOW,
    NOTE_HOW,
    RENAMED_HOW,
    TIME_OF_DAY_HOW,
    TOTAL_HOW,
    coarse_columns,
    coarse_how,
    distinct_cells,
    fraction_columns,
    missing_spellings,
    note_rows,
    renamed_cells,
    timed_columns,
    told_spellings,
    total_rows,
)
from .gaps import with_gaps
from .near_misses import (
    BRACKETS,
    BRACKETS_HOW,
    WORDED_SHARE,
    any_respelled,
    bracketed,
    category_hint,
    joined,
    kind_hint,
    respelled,
    respelling,
    shortened,
    worded,
)
from .person_notes import REPEATED_HOW, repeated_identifiers
from .rule_notes import CHANGED_HOW, EMPTY_HOW, empty_in_required
from .text_misfits import text_reading

#: Where a column is declared to read a declared value in any capitals, spaces and punctuation.
ANY_SPELLING_HOW = '"any_spelling": true; the Domain page\'s box "Read a value written in other capitals ..."'
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
    "so (with a two-digit year, 5/10/18, in the one century the declared range allows).",
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


def _cell_fits(column, series: pd.Series, markers=("",)) -> tuple[int, int, int]:
    """A column's filled cells (not missing by the declaration's markers), how many of them the public rule turns
    into missing (or the column's ``other`` value), and how many it changes in all (numbers and dates outside the
    range clamped, fractions in a whole-number column rounded, as well)."""
    allowing = replace(column, missing=True)  # a column declared without missing values: its misfits still show
    encoded = encode_column(allowing, series, markers)
    filled = len(series) - missing_cells(series, markers)
    changed = int(encoded.out_of_domain)
    if column.kind in ("categorical", "text"):
        return filled, changed, changed
    return filled, int(encoded.missing) - (len(series) - filled), changed


def unfit_cells(column, series: pd.Series, markers=("",)) -> tuple[int, int]:
    """A column's filled cells (not missing by the declaration's markers) and how many of them the public rule
    turns into missing (or the column's ``other`` value): unreadable as its kind, or outside its values.
    Numbers outside the range are clamped, not counted."""
    return _cell_fits(column, series, markers)[:2]


def _fits(data: pd.DataFrame, domain: TableDomain, fits: dict | None = None, counts: dict | None = None) -> dict:
    """``fits`` when given (:func:`fit_notes` counts once for both checks), else, by name, every kept column of a
    checked kind's :func:`_cell_fits` and the markers it was counted with: the declared ones and the cells other
    notes tell of (written as files write a missing value, ``NA``, or a spreadsheet's total:
    :func:`.file_notes.told_spellings`), which are read as missing here, not counted again as cells outside the
    declaration (an R file's ``NA`` in a column of codes is not a misfit of the codes)."""
    if fits is not None:
        return fits
    found = {}
    for name, column in domain.kept.items():
        if name in data and column.kind in _WHAT:
            told = told_spellings(column, distinct_cells(data, name, counts), domain.missing_markers)
            markers = (*domain.missing_markers, *told)
            found[name] = (*_cell_fits(column, data[name], markers), markers)
    return found


def misfit_columns(data: pd.DataFrame, domain: TableDomain, fits: dict | None = None) -> tuple[list[str], list[str]]:
    """For the publisher only (it reads the data): each kept column at least :data:`MISFIT_SHARE` of whose
    filled cells would become missing, one line each naming the column and the counts (and what would read it,
    :func:`_other_reading`), and how the rule reads the kinds named (one sentence a kind, for the columns told
    nothing more). Two empty lists when every column fits."""
    lines, how, kept = [], [], domain.kept  # ``kept`` is built on each read: once here
    for name, (filled, unfit, _, markers) in _fits(data, domain, fits).items():
        column = kept[name]
        if filled and unfit >= MISFIT_SHARE * filled:
            line = f"Column '{name}': {unfit:,} of its {filled:,} filled cells {_WHAT[column.kind]}."
            other = _other_reading(column, data[name], markers, filled, unfit)
            lines.append(line + other)
            how += [] if other or _HOW[column.kind] in how else [_HOW[column.kind]]  # a column told what reads it
    return lines, how


def respelled_columns(lines: list, data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """Of the columns the checks' ``lines`` name (cells that would become missing, or that the rule changes), the
    lists of categories not declared ``any_spelling`` some of whose unread cells are declared values written in other
    capitals, spaces or punctuation (:func:`.near_misses.respelled`): declared so, they would be read (the app offers
    it in one click). Publisher-only: names of columns the publisher's declaration lists, never a value."""
    named = dict.fromkeys(m.group(1) for m in map(_NAMED.match, lines) if m)  # the few told columns, in order
    kept, out = domain.kept, []
    for name in named:
        column = kept.get(name)
        if isinstance(column, CategoricalDomain) and not column.any_spelling and not column.integer_codes:
            out += [name] if any_respelled(column, distinct_cells(data, name, counts)) else []
    return out


_NAMED = re.compile(r"Column '(.+?)'(?: \(|: )")


def _other_reading(column, series: pd.Series, markers, filled: int, unfit: int) -> str:
    """For a flagged column: the other way of writing its kind's values (its ``written`` choices: thousands
    commas, day first, ...) that reads the most of its cells, when that reads most of them, in words naming the
    choice (never a value); for a list of categories, how many cells are declared values written another way. Empty
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
    if column.kind in ("integer", "float", "categorical"):
        written = series.dropna().astype("string").str.strip()  # the cells as the file writes them, once
        written = written[~written.isin(list(markers))]  # a told NA is no other list's value (nor Namibia's code)
        distinct = written.value_counts()
    if column.kind in ("integer", "float") and (brackets := bracketed(distinct)) >= WORDED_SHARE * unfit:
        return f" {brackets:,} of them are {BRACKETS}, {BRACKETS_HOW}."
    if column.kind == "categorical":
        near, spaced, stripped = respelled(column, distinct)
        how_written = respelling(near, spaced)
        near += spaced
        capitals = (
            f" {near:,} of them {'is a declared value' if near == 1 else 'are declared values'} written "
            f"{how_written}: declared to read any spelling ({ANY_SPELLING_HOW}), the column reads them."
        )
        if near >= MISFIT_SHARE * unfit:
            return capitals
        if (commas := joined(column, distinct)) >= MISFIT_SHARE * unfit:
            return (
                f" {commas:,} of them are declared values joined by commas: a value that holds a comma is typed in "
                'double quotes ("Washington, D.C."), or one value per line, to be declared whole.'
            )
        if stripped >= MISFIT_SHARE * unfit:
            return (
                f" {stripped:,} of them are declared codes without their leading zeros, as a spreadsheet drops them "
                "from numbers: save the file with the column formatted as text, or declare the codes as the file "
                "writes them."
            )
        listed, name = _listed(column, written, unfit)
        worded_cells = worded(column, distinct)
        parts = shortened(column, distinct) if name or worded_cells < WORDED_SHARE * unfit else 0
        if name and listed >= max(worded_cells, parts):  # not a list that reads fewer cells than the words do
            return (
                f" {listed:,} of them are values of the bundled list '{TITLES[name]}': declare that list instead "
                f'(the Domain page\'s public lists; "list": "{name}" in a declaration).'
            )
        if worded_cells >= WORDED_SHARE * unfit:
            return (
                f" {worded_cells:,} of them hold a declared value among other words (a file may add a word its "
                "documentation leaves out, or write a code with its label): a category is read only as the "
                "declaration writes it, so write the values as the file does."
            )
        if parts >= WORDED_SHARE * unfit:
            return (
                f" {parts:,} of them are some of a declared value's words without the rest (a file may leave out a "
                "word its documentation writes): a category is read only as the declaration writes it, so write the "
                "values as the file does."
            )
        codes = int(written.str.fullmatch(r"-?[0-9]+").sum())
        if codes >= MISFIT_SHARE * unfit and not any(re.fullmatch(r"-?[0-9]+", str(v)) for v in column.values):
            return (
                f" {codes:,} of them are whole numbers, where the declaration lists words: the file writes codes, so "
                'declare the codes as the values, with the words as their labels ("labels": {"1": "North"}; from an '
                "SPSS, Stata or SAS file's codebook, the command line's declare and the Domain page start them so)."
            )
        negative = int((written.str.fullmatch(r"-[0-9]+") & ~written.isin([str(v) for v in column.values])).sum())
        if negative >= MISFIT_SHARE * unfit:  # FiveThirtyEight's non-voters poll: -1 for a box not ticked
            return (
                f' {negative:,} of them are negative whole numbers, as surveys code a refusal, a "don\'t know", a '
                "question not asked or a box not ticked (-1, -9, ...) beside the answers: declare each such code as a "
                'value with its label, or as a missing value ("Missing values are also written as" on the Domain '
                "page)."
            )
        declared = tuple(str(v) for v in column.values)
        bundled = next((n for n in TITLES if public_list(n) == declared), None) if len(declared) > 2 else None
        if bundled:  # fpp3's Australian accommodation: a column named State started as the US states
            return (
                f" The declared values are the bundled list '{TITLES[bundled]}', which the column's name started it "
                "with: declare the values its documentation lists instead."
            )
        if near >= WORDED_SHARE * unfit:  # some in other capitals, the rest none of them (yrbss's hispanic and not)
            return capitals
    if column.kind == "text":
        return text_reading(column, series, markers, filled, unfit)
    return ""


def changed_columns(
    data: pd.DataFrame, domain: TableDomain, fits: dict | None = None, counts: dict | None = None, *, mostly=False
) -> list[str]:
    """For the publisher only (it reads the data): each kept column some (but fewer than :data:`MISFIT_SHARE`, which
    :func:`misfit_columns` flags) of whose filled cells the public rule changes, one line each with the counts, and
    for a list of categories how many are declared values written another way or codes without their leading zeros
    (no value named): what the command line notes after a draw, said before it. Cells that other notes tell of
    (written as files write a missing value, or a spreadsheet's total) are left out, as :func:`_fits` counts.
    ``mostly``: instead, the number and date columns at least :data:`MISFIT_SHARE` of whose filled cells lie outside
    the declared range or are fractions (clamped or rounded: a range or a kind the file does not hold)."""
    lines, kept = [], domain.kept  # ``kept`` is built on each read: once here
    for name, (filled, unfit, changed, _) in _fits(data, domain, fits, counts).items():
        moved = filled and kept[name].kind not in ("categorical", "text") and changed - unfit >= MISFIT_SHARE * filled
        if not changed or (filled and unfit >= MISFIT_SHARE * filled) or bool(moved) != mostly:
            continue
        column, distinct = kept[name], distinct_cells(data, name, counts)
        if column.kind in ("categorical", "text"):
            what = _WHAT[column.kind]
        else:
            outside = "lie outside the declared range" + (" or are fractions" if column.kind == "integer" else "")
            what = f"{_WHAT[column.kind]} or {outside}" if unfit else outside
        if changed == 1:  # one cell: "is", "lies", "does not"
            what = re.sub(r"\b(are|lie|do)\b", lambda m: {"are": "is", "lie": "lies", "do": "does"}[m[1]], what)
            what = what.replace("is fractions", "is a fraction").replace("is not dates", "is not a date")
            what = what.replace("is not numbers", "is not a number").replace("is not times", "is not a time")
        line = f"Column '{name}': {changed:,} of its {filled:,} filled cells {what}"
        if column.kind == "categorical":
            line += category_hint(column, distinct, changed)
        else:
            line += kind_hint(column, distinct, changed, unfit)
        lines.append(line + ".")
    return lines


#: The bundled lists a flagged list of categories is tried against (:func:`_listed`): another way of writing the
#: same things (a country's name, its ISO code of three or two letters; a US state's name or code; F for Female).
LISTS_TRIED = (
    *("countries", "country_codes_3", "country_codes_2", "us_states", "us_state_codes", "months", "weekdays"),
    *("sex", "sex_codes", "yes_no", "yes_no_codes", "true_false"),
)


#: :func:`_listed` reads at most this many distinct unread cells, the commonest: a bundled list names a few hundred
#: places or words (each in a few spellings), and a column of free text declared as categories has a distinct cell a
#: row (100,000 of them took 5 s, each spelled for each of the 12 lists tried).
LISTED_CELLS = 5000


def _listed(column, stripped: pd.Series, unfit: int) -> tuple[int, str | None]:
    """For a flagged list of categories: the bundled list (:data:`LISTS_TRIED`, other than the one declared) that
    reads the most of its unread cells as the file writes them, and how many, when that is most of them (a
    ``country`` column started as the countries' names, in a file that writes PRT or PT); else ``(0, None)``.
    Publisher-only, as the flag itself: it names a public list, never a value."""
    declared = {str(v) for v in column.values}
    cells = stripped.value_counts()  # the flagged column's filled cells, stripped, each once with its count
    unread = cells[~cells.index.isin(list(declared))].iloc[:LISTED_CELLS]  # the commonest: a list names few
    lists = [n for n in LISTS_TRIED if set(public_list(n)) != declared]
    cells = unread.index.tolist()

    def read(n: str) -> int:  # the unread cells the list would read: its values, and a country's other names
        listed = public_list(n)
        return int(unread[unread.index.isin(listed) | (read_as_named(listed, cells) >= 0)].sum())

    count, name = max(((read(n), n) for n in lists), default=(0, None))
    return (count, name) if count and count >= MISFIT_SHARE * unfit else (0, None)


@dataclass(frozen=True)
class FitNotes:
    """What a check of the data file against its declaration found, for the publisher only (it reads the data;
    no line names a value): ``missing``, the columns most of whose cells would become missing, and ``how``, how the
    rule reads their kinds (:func:`misfit_columns`); ``timed``, date columns whose times a release drops
    (:func:`timed_columns`); ``spelled``, cells written as a missing value usually is (:func:`missing_spellings`);
    ``fractions``, shares stored as fractions in a percent range (:func:`fraction_columns`); ``totals``, rows that
    are a spreadsheet's totals (:func:`total_rows`); ``renamed``, cells naming a declared country or state another way
    (:func:`renamed_cells`); ``changed``, the columns some of whose cells the public rule changes
    (:func:`changed_columns`); ``notes_below``, rows holding a note below the table (:func:`note_rows`);
    ``decimals``, real numbers and times written more coarsely than their columns keep them
    (:func:`coarse_columns`); ``clamped``, the columns most of whose cells lie outside the range (its ``mostly``);
    ``empty``, missing cells in columns declared without them (:func:`.rule_notes.empty_in_required`); ``banded``,
    columns that are others in bands, groups or sums, or dates or numbers past others (:func:`.banded.banded_columns`);
    ``repeated``, dropped identifiers that repeat while the release protects rows
    (:func:`.person_notes.repeated_identifiers`); ``respelled``, the told lists of categories that would read more
    cells in any spelling (:func:`respelled_columns`)."""

    missing: list
    how: list
    timed: list
    spelled: list
    fractions: list
    totals: list
    renamed: list
    changed: list = ()
    notes_below: list = ()
    decimals: list = ()
    clamped: list = ()
    empty: list = ()
    banded: list = ()
    repeated: list = ()
    respelled: list = ()

    #: The heading of the lines that would become missing (a release is stopped by them on the command line).
    MISSING_HEADING = "a release would hold these cells as missing."
    #: ... and of the columns most of whose cells would be clamped to the declared range or rounded (``clamped``).
    CLAMPED_HEADING = "a release would move most of these columns' cells to the ends of their declared range."

    def advice(self) -> list[tuple[str, str, list, str]]:
        """The notes that do not stop a release, in order, each as ``(which, heading, lines, what to do)``."""
        notes = (
            ("timed", "a release would keep the day of these cells, not their time.", self.timed, TIME_OF_DAY_HOW),
            ("spelled", "cells written as files usually write a missing value.", self.spelled, MISSING_SPELLINGS_HOW),
            ("fractions", "shares stored as fractions, in a range declared in percent.", self.fractions, FRACTION_HOW),
            (
                "decimals",
                "numbers, dates and times written more coarsely than their columns keep them.",
                list(self.decimals),
                coarse_how(self.decimals),
            ),
            ("totals", "rows that look like a spreadsheet's totals.", self.totals, TOTAL_HOW),
            ("notes_below", "rows that look like a note below the table.", list(self.notes_below), NOTE_HOW),
            ("renamed", "cells read as the declared value they name another way.", self.renamed, RENAMED_HOW),
            ("empty", "missing cells in columns declared without missing values.", list(self.empty), EMPTY_HOW),
            ("changed", "cells a release would change by the public rule.", list(self.changed), CHANGED_HOW),
            (
                "banded",
                "columns that are others in bands, groups or sums, or dates or numbers past others.",
                list(self.banded),
                banded_how(self.banded),
            ),
            (
                "repeated",
                "dropped columns whose values repeat, as a person's identifier does.",
                list(self.repeated),
                REPEATED_HOW,
            ),
        )
        return [note for note in notes if note[2]]


def _as_written(raw: pd.DataFrame, declared: TableDomain, measured: TableDomain, counts: dict) -> tuple:
    """What the note on places and steps reads: a column past another as its own numbers, not its gap, since its
    declared places and step round the column itself (:func:`~.decoding.derived_values`); the other columns as
    measured, with the cells already counted."""
    gaps = declared.gaps
    if not gaps:
        return raw, measured, counts
    own = {n: replace(c, derived=None) for n, c in gaps.items()}
    counted = {k: v for k, v in counts.items() if k not in own}
    return raw, replace(measured, columns={**measured.columns, **own}), counted


def fit_notes(data: pd.DataFrame, domain: TableDomain) -> FitNotes:
    """Every check of this module, for the command line's ``check-declaration`` and the app's gates alike; a column
    computed from another one (``derived``) is never read by a release, so its cells are not checked, and a column
    declared past another is checked as its gap (:mod:`.gaps`)."""
    declared, domain = domain, domain.measured()
    raw, data = data, with_gaps(data, declared)  # a column past another is read as its gap, as a release reads it
    counts: dict = {}  # each column's distinct cells, counted once for the checks that read them
    fits = _fits(data, domain, None, counts)  # each column's filled, unread and changed cells, once for two checks
    missing, how = misfit_columns(data, domain, fits)
    gaps = {f"Column '{n}':": f"Column '{n}' (its gap past '{c.derived.source}'):" for n, c in declared.gaps.items()}

    def said(lines: list) -> list:  # a gap column's lines say that its cells were read as its gap
        return [next((line.replace(k, v, 1) for k, v in gaps.items() if line.startswith(k)), line) for line in lines]

    changed = changed_columns(data, domain, fits, counts)
    return FitNotes(
        said(missing),
        how,
        timed_columns(data, domain, counts),
        missing_spellings(data, domain, counts),
        fraction_columns(data, domain),
        total_rows(data, domain, counts),
        renamed_cells(data, domain, counts),
        said(changed),
        note_rows(data, domain),
        coarse_columns(*_as_written(raw, declared, domain, counts)),
        said(changed_columns(data, domain, fits, counts, mostly=True)),
        empty_in_required(data, domain),
        banded_columns(data, declared),
        repeated_identifiers(data, declared, counts),
        respelled_columns(missing + changed, data, domain, counts),
    )
