"""Cells a declaration does not read that say what the publisher meant: a declared value in other capitals, with
other spaces or punctuation, or without its leading zeros, a declared value among other words, declared values joined
by commas (a value holding a comma, declared as its parts), a bracket of numbers in a number column.

Counts for the publisher's eyes only (:mod:`.misfits` words them), never a value: each function takes a column's
distinct cells with their counts and returns how many cells are of its sort, so a hint can name the sort ("declared
values written in other capitals", "brackets of numbers") and what to declare instead.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pandas as pd

from ..domain.spellings import keyed_positions, loose_key
from .encoding import encode_column

#: The share of a flagged column's unread cells of one sort from which that sort is told (a tenth: Marvel's ALIVE,
#: declared Alive and Deceased as its documentation says, is written "Living Characters" and "Deceased
#: Characters", so only some of its cells hold a declared word; yrbss's hispanic, declared Hispanic and Not
#: Hispanic, is written hispanic and not, a quarter of its cells in other capitals).
WORDED_SHARE = 0.1
#: The longest list of categories :func:`worded` looks for among a cell's words (one pattern of them all).
WORDED_VALUES = 500


def worded(column, distinct: pd.Series) -> int:
    """Of a categorical column's unread cells (``distinct``: each cell as the file writes it, with its count), how
    many hold a declared value as whole words among others, in any capitals (Marvel's wikia file writes ALIGN
    "Good Characters" where its documentation says Good; a file writes "1 - Strongly agree" where the codebook
    lists the code 1). Publisher-only, as the flag itself: a count, never a value."""
    declared = sorted({str(v).strip() for v in column.values} - {""}, key=len, reverse=True)
    if not declared or len(declared) > WORDED_VALUES or distinct.empty:
        return 0
    among = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, declared)) + r")(?!\w)", re.IGNORECASE)
    cells = distinct.index.astype(str)
    # a declared value, and a word beside it (a letter left once it is taken out: -1 is no code 1 with a word)
    held = [bool(among.search(cell)) and re.search(r"[^\W\d_]", among.sub("", cell)) is not None for cell in cells]
    return int(distinct.to_numpy()[held].sum())


#: :func:`shortened` reads at most this many distinct cells, the commonest (a list of categories declared for a
#: column of free text has as many as it has rows): a count of at least those cells.
SHORTENED_CELLS = 2000


def shortened(column, distinct: pd.Series) -> int:
    """Of a categorical column's cells (``distinct``: each cell as the file writes it, with its count), how many are
    some of a declared value's words without the rest, in any capitals: the file leaves out a word its documentation
    writes (the College Scorecard writes control "Nonprofit" and "For-profit" where its documentation says "Private
    nonprofit" and "Private for-profit"). A cell must hold a letter and be no declared value itself. Publisher-only,
    as the flag itself: a count, never a value."""
    declared = [str(v).strip() for v in column.values if str(v).strip()]
    if not declared or len(declared) > WORDED_VALUES or distinct.empty:
        return 0
    whole, joined = {value.casefold() for value in declared}, "\n".join(declared)  # one text: a search a cell
    cells = [str(cell).strip() for cell in distinct.index[:SHORTENED_CELLS]]  # the commonest cells, at most

    def inside(cell: str) -> bool:
        if cell.casefold() in whole or not re.search(r"[^\W\d_]", cell):
            return False
        return re.search(r"(?<!\w)" + re.escape(cell) + r"(?!\w)", joined, re.IGNORECASE) is not None

    return int(distinct.to_numpy()[: len(cells)][[inside(cell) for cell in cells]].sum())


def _unread(column, distinct: pd.Series) -> np.ndarray:
    """Which of a categorical column's distinct cells (``distinct``' index) its public rule does not read as a
    declared value (:func:`.encoding.encode_column`: as written, by a declared country's other name, by a label)."""
    cells = pd.Series(distinct.index.astype(str), dtype=object)
    codes = encode_column(replace(column, missing=True, other=None), cells, markers=()).codes
    return np.asarray(codes == column.bins, dtype=bool)


def respelled(column, distinct: pd.Series) -> tuple[int, int, int]:
    """Of a categorical column's cells (``distinct``: each cell as the file writes it, with its count) that are none
    of its declared values, how many are a declared value in other capitals; how many one with other spaces or
    punctuation, capitals aside (a file of R's factor levels writes ``Travel_Rarely`` and ``Research_Development``
    where IBM's documentation lists Travel Rarely and Research & Development); and how many a declared code without
    its leading zeros (as a spreadsheet writes codes stored as numbers). The first two are the cells a column
    declared ``any_spelling`` reads (:func:`~..domain.spellings.keyed_positions`)."""
    declared = {str(v) for v in column.values}
    folded, keyed = {v.casefold() for v in declared}, keyed_positions(column.values)
    distinct = distinct[_unread(column, distinct)]  # not a country's other name, nor a label, that the rule reads
    unpadded = {re.sub(r"^0+(?=[0-9])", "", v) for v in declared if re.fullmatch(r"0[0-9]+", v)}
    near = spaced = stripped = 0
    for cell, count in zip(distinct.index, distinct.to_numpy()):  # each distinct cell once: plain Python
        written = str(cell).strip()
        if written in declared:
            continue
        if loose_key(written) in keyed:  # in other capitals alone, or with other spaces or punctuation too
            near, spaced = (near + int(count), spaced) if written.casefold() in folded else (near, spaced + int(count))
        stripped += int(count) if written.casefold() in unpadded else 0
    return near, spaced, stripped


def any_respelled(column, distinct: pd.Series) -> bool:
    """Whether any of a categorical column's cells (``distinct``) is a declared value in other capitals, spaces or
    punctuation that its rule does not read (:func:`respelled`'s first two counts, not both zero): the cells' keys
    looked up first, so a column of free text none of whose cells is keyed is never read cell by cell."""
    keyed, declared = keyed_positions(column.values), {str(v) for v in column.values}
    cells = pd.Series(distinct.index.astype(str), dtype=object).str.strip()
    if not (cells.map(loose_key).isin(list(keyed)) & ~cells.isin(list(declared))).any():
        return False
    near, spaced, _ = respelled(column, distinct)
    return bool(near + spaced)


def joined(column, distinct: pd.Series) -> int:
    """Of a categorical column's unread cells (``distinct``: each cell as the file writes it, with its count), how
    many are two or more declared values joined by commas: a value that holds a comma, typed on one line without
    the double quotes that keep it whole, was declared as its parts (EPA's cbsa_name "Durham-Chapel Hill, NC" as
    "Durham-Chapel Hill" and "NC"). Publisher-only, as the flag itself: a count, never a value."""
    declared = {str(v).strip() for v in column.values}
    held = [
        "," in str(cell) and all(part.strip() in declared for part in str(cell).split(","))
        for cell in distinct.index  # each distinct cell once: plain Python
    ]
    return int(distinct.to_numpy()[held].sum()) if held else 0


_NUMBER = r"[0-9][0-9,]*(?:\.[0-9]+)?"
_UNIT = r"(?:\s*[^\W\d_]+\.?){0,2}"  # a unit or two after it: 1-2 days, 5+ hours, <1 hr.
#: A range of two numbers, low to high: 1-2, 10 - 19, 1–2, 1 to 2 (its two numbers captured, to check their order:
#: 2012-01 is a month, not a bracket).
_RANGE = re.compile(rf"^({_NUMBER})\s*(?:-|–|—|to)\s*({_NUMBER}){_UNIT}$", re.IGNORECASE)
#: An open bracket: 5+, 65 and over, 10 or more, <1, <= 5, less than 1, under 18, over 65, at least 3.
_OPEN = re.compile(
    rf"^(?:{_NUMBER}\s*\+|{_NUMBER}\s+(?:and|or)\s+(?:over|more|above|older|up|greater)"
    rf"|(?:[<>≤≥]=?|less than|fewer than|more than|greater than|under|over|at least|at most|up to)\s*{_NUMBER})"
    rf"{_UNIT}$",
    re.IGNORECASE,
)
#: The hint for a number column whose unread cells are largely brackets (:func:`bracketed`).
BRACKETS = "brackets of numbers such as 1-2, 5+ or <1"
BRACKETS_HOW = (
    "as a survey codes its answers: declare the column as categories, each bracket written as the file writes it"
)


def bracketed(distinct: pd.Series) -> int:
    """Of a number column's cells (``distinct``: each cell as the file writes it, with its count), how many are
    brackets of numbers: a range low to high (1-2, 10-19) or an open one (5+, <1, 65 and over), as a survey's
    answers are coded (yrbss's hours of television, ``<1`` to ``5+``). Such a column is a list of categories,
    not numbers. Publisher-only, as the flag itself: a count, never a value."""
    if distinct.empty:
        return 0
    cells = pd.Series(distinct.index.astype(str), dtype="string").str.strip()
    ends = cells.str.extract(_RANGE)
    low = pd.to_numeric(ends[0].str.replace(",", ""), errors="coerce")
    high = pd.to_numeric(ends[1].str.replace(",", ""), errors="coerce")
    held = (low < high).fillna(False).to_numpy(bool) | cells.str.match(_OPEN).fillna(False).to_numpy(bool)
    return int(distinct.to_numpy()[held].sum())


#: The hint for a whole-number column whose changed cells are partly fractions (:func:`fractional`).
FRACTIONS_HOW = "declared as decimal numbers they would keep their places"


def fractional(distinct: pd.Series) -> int:
    """Of a number column's cells (``distinct``: each cell as the file writes it, with its count), how many are
    numbers that are not whole (an infant's age of 0.5 years in a column declared whole numbers, which the rule
    rounds). Publisher-only, as the flag itself: a count, never a value."""
    numbers = pd.to_numeric(pd.Series(distinct.index, dtype=object), errors="coerce").to_numpy(dtype=float)
    return int(distinct.to_numpy()[(numbers % 1 != 0) & ~pd.isna(numbers)].sum())


#: A date known only in part, as ISO 8601 and CDISC's SDTM write one: a year, or a year and a month (2012, 2012-02).
_PARTIAL_DATE = re.compile(r"^[12][0-9]{3}(?:-(?:0[1-9]|1[0-2]))?$")
#: The hint for a date column some of whose changed cells are dates known only in part (:func:`partial_dates`).
PARTIAL_HOW = (
    "a year, or a year and a month, as a trial's records write a date not fully known: the release holds them as "
    'missing; a column written so throughout is declared by month, "written": "year and month"'
)


def partial_dates(distinct: pd.Series) -> int:
    """Of a date column's cells (``distinct``: each cell as the file writes it, with its count), how many are dates
    known only in part: a year alone or a year and a month (pharmaversesdtm's adverse events start in ``2012-02`` or
    ``2003``, beside full dates). Publisher-only, as the flag itself: a count, never a value."""
    cells = pd.Series(distinct.index.astype(str), dtype="string").str.strip()
    return int(distinct.to_numpy()[cells.str.match(_PARTIAL_DATE).fillna(False).to_numpy(bool)].sum())


#: The hint for a code of N digits some of whose changed cells extend such a code (:func:`extended_codes`).
EXTENDED_HOW = (
    "that begin with a code of {length} digits and go on, as a ZIP+4 code does, 12345-6789: the release holds them "
    "as missing; a file that writes only their first {length} digits keeps them"
)


def extended_codes(distinct: pd.Series, length: int) -> int:
    """Of a column's cells (``distinct``: each cell as the file writes it, with its count) declared codes of ``length``
    digits, how many are such a code extended by a hyphen and more digits or by 4 digits more (the College Scorecard's
    ZIP codes, 43% of them written ZIP+4). Publisher-only, as the flag itself: a count, never a value."""
    cells = pd.Series(distinct.index.astype(str), dtype="string").str.strip()
    pattern = rf"^[0-9]{{{length}}}(?:[- ][0-9]{{1,6}}|[0-9]{{4}})$"
    return int(distinct.to_numpy()[cells.str.match(pattern).fillna(False).to_numpy(bool)].sum())


def of_them(count: int, changed: int, one: str, many: str) -> str:
    """``count`` of a column's ``changed`` cells said as ``one`` thing or ``many`` ("it is a declared value in other
    capitals" for a single changed cell, "3 of them declared values in other capitals"); empty for none."""
    if not count:
        return ""
    what = one if count == 1 else many
    return f"it is {what}" if changed == 1 else f"{count:,} of them {what}"


def kind_hint(column, distinct: pd.Series, changed: int, unfit: int) -> str:
    """What a number, date or code ``column``'s ``changed`` cells (``unfit`` of them unread; ``distinct``: each cell as
    the file writes it, with its count) largely are, in words for its line of changed cells: brackets of numbers,
    fractions in whole numbers, codes of N digits extended (a ZIP+4), dates known only in part; empty when none.
    Publisher-only: counts, never a value."""
    kind = column.kind
    length = column.length if kind == "text" and column.generator == "digits" else None
    if kind in ("integer", "float") and unfit and (brackets := bracketed(distinct)) >= WORDED_SHARE * changed:
        return f" ({of_them(brackets, changed, 'a bracket of numbers', BRACKETS)}, {BRACKETS_HOW})"
    if kind == "integer" and (fractions := fractional(distinct)):  # the kind, not the range
        return f" ({of_them(fractions, changed, 'a fraction', 'fractions')}: {FRACTIONS_HOW})"
    if length and (longer := extended_codes(distinct, length)):
        return f" ({of_them(longer, changed, 'a longer code', 'longer codes')} {EXTENDED_HOW.format(length=length)})"
    if kind in ("date", "datetime") and (partial := partial_dates(distinct)):
        return f" ({of_them(partial, changed, 'a date known only in part', 'dates known only in part')}, {PARTIAL_HOW})"
    return ""


def respelling(near: int, spaced: int) -> str:
    """How ``near`` cells in other capitals and ``spaced`` ones with other spaces or punctuation
    (:func:`respelled`) write declared values, in words."""
    if not spaced:
        return "in other capitals"
    return "in other capitals, spaces or punctuation" if near else "with other spaces or punctuation"


#: How a changed line says its cells that hold a declared value among other words (``ok-disagree`` where ``ok`` is
#: declared: FiveThirtyEight's bechdel), or some of a declared value's words without the rest.
WORDED, SHORTENED = "declared values among other words", "some of a declared value's words without the rest"
#: ... counted so only for a list of at most this many declared values (adult's "South", beside the world's countries,
#: is some of "South Africa"'s words and "South Korea"'s: no hint).
WORDED_LIST = 30


def category_hint(column, distinct: pd.Series, changed: int) -> str:
    """What a list of categories' ``changed`` cells (``distinct``: each cell as the file writes it, with its count)
    are, in words for its line of changed cells: declared values in other capitals, spaces or punctuation, codes
    without their leading zeros, and (in a short list) declared values among other words or some of a declared value's
    words; empty when none. Publisher-only: counts, never a value."""
    near, spaced, stripped = respelled(column, distinct)
    how_written = respelling(near, spaced)
    said = [
        of_them(near + spaced, changed, f"a declared value {how_written}", f"declared values {how_written}"),
        of_them(
            stripped, changed, "a declared code without its leading zeros", "declared codes without their leading zeros"
        ),
    ]
    if len(column.values) <= WORDED_LIST:  # a long list (the world's countries) holds a word of many a cell by chance
        said += [
            of_them(worded(column, distinct), changed, "a declared value among other words", WORDED),
            of_them(shortened(column, distinct), changed, "a declared value's words", SHORTENED),
        ]
    said = [part for part in said if part]
    return f" ({' and '.join(said)})" if said else ""
