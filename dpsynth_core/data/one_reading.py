"""Cells read one way only, with no declaration: the ledger's column fingerprints (:mod:`.fingerprint`) read a
column's dates and its numbers written with commas or signs as what they name wherever a cell (or, for dates written
day or month first, the column) can be read one way only, so a file re-saved in another spreadsheet's form finds its
ledger. The forms are :mod:`.cell_values`' own; most cells of a column (plain numbers, words) match none, and are
passed over at once by one wide pattern in Arrow before pandas' string methods read the rest.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .cell_values import (  # the private forms are cell_values' own rules, read here as written there
    _CURRENCY,
    _PERCENT,
    CURRENCY_CODES,
    CURRENCY_SIGNS,
    DECIMAL_COMMA,
    MINUS_SIGN,
    NAMED_WHOLE,
    THOUSANDS_COMMA,
    THOUSANDS_DOT,
    THOUSANDS_SPACE,
    YEAR_FIRST_WHOLE,
    YEAR_LAST_WHOLE,
    iso_dates,
    named_month_dates,
    plain_numbers,
)

#: 1,234: a thousand and more, or one and a bit (:func:`one_reading_numbers`).
_EITHER = r"^[+-]?[1-9][0-9]{0,2},[0-9]{3}$"


#: Every cell :func:`one_reading_numbers` may read holds one of these (a sign, a comma, two dots or two spaces): the
#: others, most of a column of plain numbers or words, are passed over at once.
_MAYBE_NUMBER = (
    f"(?s)[{CURRENCY_SIGNS}%(){MINUS_SIGN},]|{'|'.join(CURRENCY_CODES)}|\\..*\\.|[ \u00a0\u202f].*[ \u00a0\u202f]"
)
#: ... and every whole date :func:`one_reading_dates` reads year first or year last matches these (no back-reference:
#: RE2 has none; the exact forms, :data:`YEAR_FIRST_WHOLE` and :data:`YEAR_LAST_WHOLE`, then check the few that do).
_MAYBE_YEAR_FIRST = r"^[0-9]{4}[-/.][0-9]{1,2}[-/.][0-9]{1,2}$"
_MAYBE_YEAR_LAST = r"^[0-9]{1,2}[-/.][0-9]{1,2}[-/.][0-9]{4}$"


def _arrow_matches(cells: pd.Series, pattern: str) -> np.ndarray:
    """Which cells (text; missing: none) hold a match of ``pattern`` (RE2, Arrow's vectorised regular expressions:
    a column of a million distinct cells in a tenth of a second, where pandas' string methods loop in Python)."""
    found = pc.match_substring_regex(pa.array(cells.to_numpy(dtype=object), pa.string(), from_pandas=True), pattern)
    return pc.fill_null(found, False).to_numpy(zero_copy_only=False)


def _matches_within(cells: pd.Series, wider: str, exact: str) -> np.ndarray:
    """Which cells match ``exact`` (Python's regular expressions, from the start), looked for only among those
    matching ``wider`` (RE2: a superset of them, found at once)."""
    out = _arrow_matches(cells, wider)
    if out.any():
        out[out] = cells[out].str.match(exact, na=False).to_numpy()
    return out


def one_reading_numbers(cells: pd.Series) -> np.ndarray:
    """Each cell (text) as the number it names when written with commas in a form that has one reading only,
    else NaN: thousands commas with a decimal point or two groups or more (1,234.5, 1,234,567), dots or spaces
    between thousands with a decimal comma or two groups or more (1.234,5, 1.234.567, 1 234,5), a decimal comma
    (1234,5, 0,125), but not 1,234 (each read as :func:`plain_numbers` reads its form); and a number with a
    currency or percent sign set aside ($12.50, 97%: the number written, whatever unit the publisher declares).

    >>> one_reading_numbers(pd.Series(["1,234.5", "1.234,5", "0,125", "1,234", "12", "$1,200.50", "97 %"])).tolist()
    [1234.5, 1234.5, 0.125, nan, nan, 1200.5, 97.0]
    >>> one_reading_numbers(pd.Series(["1 234,5", "1 234 567", "1 234", "12 345,00"])).tolist()
    [1234.5, 1234567.0, nan, 12345.0]
    >>> one_reading_numbers(pd.Series(["(1,234.50)", "(12)", "\u22125", "(1,234)"])).tolist()
    [-1234.5, -12.0, -5.0, nan]
    """
    out = np.full(len(cells), np.nan)
    rest = _arrow_matches(cells, _MAYBE_NUMBER)  # a superset of the cells below, found at once (RE2 in Arrow)
    if not rest.any():
        return out
    cells = cells[rest]
    signed = cells.str.contains(f"[{CURRENCY_SIGNS}%(){MINUS_SIGN}]|{_CURRENCY}", regex=True, na=False).to_numpy()
    spaces = cells.str.count("[ \u00a0\u202f]")
    maybe = signed | (cells.str.count(",") > 0).to_numpy() | (cells.str.count(r"\.") > 1).to_numpy()
    maybe |= (spaces > 1).to_numpy()
    if not maybe.any():  # plain numbers and text: nothing here to read (plain numbers are read as numbers anyway)
        return out
    rest[rest] = maybe
    cells, signed = cells[maybe], signed[maybe]
    bare = plain_numbers(cells, None).str.replace(_PERCENT, "", regex=True)
    commas, dots = bare.str.count(","), bare.str.count(r"\.")
    by_commas = bare.str.match(THOUSANDS_COMMA) & ((dots > 0) | (commas > 1))
    by_dots = bare.str.match(THOUSANDS_DOT) & ((commas > 0) | (dots > 1))
    by_dots |= bare.str.match(DECIMAL_COMMA) & ~bare.str.match(_EITHER)
    by_dots |= bare.str.match(THOUSANDS_SPACE) & ((commas > 0) | (spaces[maybe] > 1))
    text = plain_numbers(bare.where(by_commas), "thousands comma").fillna(
        plain_numbers(bare.where(by_dots), "decimal comma")
    )
    plain = signed & bare.str.match(r"^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)$").to_numpy()
    out[rest] = pd.to_numeric(text.fillna(bare.where(plain)), errors="coerce").to_numpy(dtype=float)
    return out


def one_reading_dates(cells: pd.Series) -> pd.Series:
    """Each cell (text) as the YYYY-MM-DD date it names where it can be read one way only, else NaN: a year-first
    date written whole (2012/1/31; not followed by a time), one with the month's name written whole (Jan 31 2012),
    and a date written day or month first when the whole column reads one way only (some day after the 12th, and
    every cell a real date that way: 31/01/2012 beside 01/02/2012 makes both day first).

    >>> one_reading_dates(pd.Series(["31/01/2012", "01/02/2012", "2012/1/5", "x", "5 Jan 2012"])).tolist()
    ['2012-01-31', '2012-02-01', '2012-01-05', nan, '2012-01-05']
    """
    out = pd.Series(np.nan, index=cells.index, dtype=object)
    whole = _matches_within(cells, _MAYBE_YEAR_FIRST, YEAR_FIRST_WHOLE)
    if whole.any():  # only the cells of a date's form are taken apart (a column of numbers has none)
        out[whole] = iso_dates(cells[whole], None)
    last = _matches_within(cells, _MAYBE_YEAR_LAST, YEAR_LAST_WHOLE)
    if last.any():
        ways = [iso_dates(cells[last], way) for way in ("day first", "month first")]
        valid = [pd.to_datetime(w, errors="coerce", format="%Y-%m-%d").notna() for w in ways]
        if valid[0].all() != valid[1].all():  # one way reads every cell, the other not: the column's way
            out[last] = out[last].fillna(ways[0] if valid[0].all() else ways[1])
    # a letter, then a year ending the cell (RE2 in Arrow: a column of a million distinct words in 0.1 s)
    named = _arrow_matches(cells, "[A-Za-z].*[0-9]{4}$")
    if named.any():
        out[named] = named_month_dates(cells[named], NAMED_WHOLE)
    return out
