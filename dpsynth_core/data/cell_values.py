"""How a cell of a number or date column is read: a per-cell public rule and the declaration's ``written``, never
guessed from the column.

A number is read as Python reads one (1234.5, -3, 1e6, with spaces around it), a currency sign before or after it
set aside ($1234.50, -$3, 12 €, USD 5: one reading), negative in parentheses or after a typographic minus ((12), −5);
written with commas between thousands (1,234.5) or with a decimal comma (1.234,5 or 1234,5) only as the column's
``written`` says (``thousands comma``, ``decimal comma``), since 1,234 is either a thousand and more or one and a bit;
with a percent sign (97%) as the number before it (97) only as it says ``percent``, since a spreadsheet's 97% is the
fraction 0.97 and the publisher says which unit the range is in.

A date is read from the start of a cell, with one separator (``-``, ``/`` or ``.``, the same twice) between
its parts and the end of the cell, a ``T`` or a space after it (a time, ignored, so no time zone moves a
day). Written year first (2012-01-31, 2012/1/31, 2012.01.31) it is always read; day first (31/01/2012) or
month first (01/31/2012) only as the column's ``written`` says, since 01/02/2012 could be either. A month
written by its English name or its first three letters, in any case, has one reading and is always read, before
the day or after it: Jan 31 2012, January 31, 2012, Sept. 5 2012, 31 Jan 2012, 31-JAN-2012, 31JAN2012 (SAS's
``DATE9.``), 5th September 2012.
A two-digit year is read only in a date written day or month first (5/10/18, as Excel writes a date and time) or a
month named with no day (Aug-62), and only where one century of 1800, 1900 and 2000 puts it inside the declared
range (a public rule: the declaration's, never the data's); a day that does not exist (2012-02-30) is never read.

The ledger's column fingerprints (:mod:`.fingerprint`) read cells with no declaration, so only where a form can be
read one way only: :mod:`.one_reading`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

EPOCH64 = np.datetime64("1970-01-01", "D")
#: Three parts of 4, 1-2 and 1-2 digits (year first), or of 1-2, 1-2 and 4 digits (day or month first).
_FIRST, _LAST = r"^([0-9]{4})([-/.])([0-9]{1,2})\2([0-9]{1,2})", r"^([0-9]{1,2})([-/.])([0-9]{1,2})\2([0-9]{4})"
#: ... then the end of the cell, a ``T`` or a space (a time, ignored); the ``WHOLE`` forms: the end of the cell only.
YEAR_FIRST, YEAR_LAST = _FIRST + r"(?:[T ]|$)", _LAST + r"(?:[T ]|$)"
YEAR_FIRST_WHOLE, YEAR_LAST_WHOLE = _FIRST + "$", _LAST + "$"
#: Day or month first with a two-digit year (5/10/18 4:01, Excel's m/d/yy h:mm): read only by the declared range.
YEAR_SHORT = r"^([0-9]{1,2})([-/.])([0-9]{1,2})\2([0-9]{2})(?:[T ]|$)"
#: The centuries a two-digit year may belong to (:func:`in_century`).
CENTURIES = (1800, 1900, 2000)

_MONTH_NAMES = "january february march april may june july august september october november december".split()
#: Each English month's name, its first three letters and "sept", lower case, with its number.
MONTH_NUMBERS = {
    **{name[:3]: f"{i:02d}" for i, name in enumerate(_MONTH_NAMES, start=1)},
    **{name: f"{i:02d}" for i, name in enumerate(_MONTH_NAMES, start=1)},
    "sept": "09",
}
_DAY, _NAME, _YEAR = r"([0-9]{1,2})(?:st|nd|rd|th)?", r"([A-Za-z]{3,9})\.?", r"([0-9]{4})"
_WEEKDAY = r"(?i:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?"
#: A month's name, then the day and the year (Jan 31 2012, January 31, 2012); the day, then the name and the year
#: (31 Jan 2012, 31-JAN-2012, 31JAN2012), a weekday before either (Tuesday, January 31, 2012). Then the end of the
#: cell, a ``T`` or a space (``END``), or the end only (``WHOLE``).
_NAMED = (_NAME + r"[ -]?" + _DAY + r",?[ -]" + _YEAR, _DAY + r"[ -]?" + _NAME + r",?[ -]?" + _YEAR)
NAMED_END = tuple("^" + _WEEKDAY + form + r"(?:[T ]|$)" for form in _NAMED)
NAMED_WHOLE = tuple("^" + _WEEKDAY + form + "$" for form in _NAMED)


def in_century(two_digits: pd.Series, years: tuple) -> pd.Series:
    """Each two-digit year (text) as the four-digit year (text) that the one century of :data:`CENTURIES` puts
    between the declared first and last ``years``, NaN where none or two do: a rule of the declaration only.

    >>> in_century(pd.Series(["62", "13", "99", None]), (1939, 2014)).tolist()
    ['1962', '2013', '1999', nan]
    >>> in_century(pd.Series(["62"]), (1850, 2014)).tolist()
    [nan]
    """
    candidates = pd.to_numeric(two_digits, errors="coerce").to_numpy(float) + np.array([[c] for c in CENTURIES])
    inside = (candidates >= years[0]) & (candidates <= years[1])
    one = inside.sum(axis=0) == 1
    out = two_digits.where(np.zeros(len(two_digits), dtype=bool))  # none yet, in the cells' own text type
    if one.any():
        out[one] = (candidates * inside).sum(axis=0)[one].astype(int).astype(str)
    return out


def iso_dates(text: pd.Series, written: str | None, years: tuple | None = None) -> pd.Series:
    """Each cell's leading date as YYYY-MM-DD text (NaN where there is none), by the module's rule; ``years``: the
    declared range's first and last years, which read a two-digit year written day or month first (:func:`in_century`).

    >>> iso_dates(pd.Series(["2012/1/31", "01/02/2012", "2012-01-31T08:00"]), "day first").tolist()
    ['2012-01-31', '2012-02-01', '2012-01-31']
    >>> iso_dates(pd.Series(["Jan 31 2012", "September 5, 2012", "31JAN2012", "5-sep-2012", "Jam 3 2012"]), "").tolist()
    ['2012-01-31', '2012-09-05', '2012-01-31', '2012-09-05', nan]
    >>> iso_dates(pd.Series(["Tuesday, January 31, 2012", "Tue 31 Jan 2012 08:00", "JAN 31 2012"]), None).tolist()
    ['2012-01-31', '2012-01-31', '2012-01-31']
    >>> iso_dates(pd.Series(["5/10/18 4:01", "12/31/99", "5/10/20"]), "month first", (1990, 2019)).tolist()
    ['2018-05-10', '1999-12-31', nan]
    """

    def iso(year, month, day):
        return year + "-" + month.str.zfill(2) + "-" + day.str.zfill(2)

    first = text.str.extract(YEAR_FIRST)
    out = iso(first[0], first[2], first[3])
    if written in ("day first", "month first"):
        last = text.str.extract(YEAR_LAST)
        day, month = (last[0], last[2]) if written == "day first" else (last[2], last[0])
        out = out.fillna(iso(last[3], month, day))
        if years is not None and out.isna().any():  # 5/10/18: the one century the declared range allows
            short = text.str.extract(YEAR_SHORT)
            day, month = (short[0], short[2]) if written == "day first" else (short[2], short[0])
            out = out.fillna(iso(in_century(short[3], years), month, day))
    named = out.isna() & text.str.contains("[A-Za-z]", regex=True, na=False)
    if named.any():  # only the cells with a letter are taken apart for a month's name
        out[named] = named_month_dates(text[named])
    return out


#: A time after a date's space or ``T``: hours, minutes, perhaps seconds and their fraction, perhaps AM or PM
#: (a 12-hour clock: 12:30 AM is 00:30, 1:05 PM is 13:05).
_TIME = r"[T ]([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}(?:[.][0-9]*)?))?(?:\s*([AaPp])\.?[Mm]\.?(?![A-Za-z]))?"


def _clock(text: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each cell's time after its date (:data:`_TIME`) as hours (0-23 on a 24-hour clock), minutes and seconds
    (0 where there is none), whether it is a time of day (a 12-hour clock's hour must be 1 to 12; none is), and
    whether the cell holds a time at all."""
    parts = text.str.extract(_TIME)
    hours, minutes, seconds = (pd.to_numeric(parts[i], errors="coerce").fillna(0).to_numpy(float) for i in range(3))
    half = parts[3].str.upper().fillna("").to_numpy(dtype=str)
    twelve = half != ""
    valid = np.where(twelve, (hours >= 1) & (hours <= 12), hours < 24) & (minutes < 60) & (seconds < 61)
    hours = np.where(twelve, hours % 12 + np.where(half == "P", 12, 0), hours)
    return hours, minutes, seconds, valid, parts[0].notna().to_numpy()


def time_of_day(text: pd.Series) -> np.ndarray:
    """Whether each cell (text) carries a time of day other than midnight after a date (2010-01-01 13:00,
    Jan 1 2010 08:30:00; not 2010-01-01 00:00:00, which a spreadsheet writes for a plain date).

    >>> time_of_day(pd.Series(["2010/01/01 13:00:00", "2010-01-01T00:00Z", "2010-01-01", "Jan 1 2010 0:30"])).tolist()
    [True, False, False, True]
    >>> time_of_day(pd.Series(["1/31/2012 12:00:00 AM", "1/31/2012 12:00:00 PM"])).tolist()
    [False, True]
    """
    hours, minutes, seconds, _, _ = _clock(text)
    return (hours > 0) | (minutes > 0) | (seconds > 0)


def named_month_dates(text: pd.Series, forms: tuple = NAMED_END) -> pd.Series:
    """Each cell's leading date written with the month's English name (:data:`NAMED_END`; :data:`NAMED_WHOLE`: the
    whole cell) as YYYY-MM-DD text, NaN where there is none (an unknown name included)."""
    first, second = text.str.extract(forms[0]), text.str.extract(forms[1])
    name, day, year = first[0].fillna(second[1]), first[1].fillna(second[0]), first[2].fillna(second[2])
    month = name.str.lower().map(MONTH_NUMBERS)
    out = pd.Series(np.nan, index=text.index, dtype=object)
    found = (year.notna() & month.notna() & day.notna()).to_numpy()
    if found.any():
        out[found] = (
            year[found].astype(str) + "-" + month[found].astype(str) + "-" + day[found].astype(str).str.zfill(2)
        )
    return out


#: A year and a month with no day: year first (2012-01, 2012/1), the month first (01/2012, 1-2012), or the month's
#: English name before or after the year (Jan 2012, January 2012, Jan-2012, Sept. 2012; DC's wikia file: 1939, May).
_YEAR_MONTH = r"^([0-9]{4})[-/.]([0-9]{1,2})$"
_MONTH_YEAR = r"^([0-9]{1,2})[-/.]([0-9]{4})$"
_NAMED_MONTH = r"^([A-Za-z]{3,9})\.?[ ,.-]*([0-9]{4})$"
_YEAR_NAMED = r"^([0-9]{4})[ ,.-]*([A-Za-z]{3,9})\.?$"
#: The month's name and a two-digit year, as Excel's month format mmm-yy writes it (Aug-62, Marvel's wikia file):
#: read only where one century puts the year inside the declared range (:func:`month_dates`' ``years``).
_NAMED_SHORT = r"^([A-Za-z]{3,9})\.?[ ,.'-]*([0-9]{2})$"


def month_dates(text: pd.Series, years: tuple | None = None) -> pd.Series:
    """Each cell's year and month as the month's first day, YYYY-MM-01 text (NaN where there is none): a year and
    a month with no day (:data:`_YEAR_MONTH`, :data:`_MONTH_YEAR`, :data:`_NAMED_MONTH`, :data:`_YEAR_NAMED`), else a
    whole date read by the module's rule, taken to its month (a column declared ``"written": "year and month"``).
    ``years``: the declared range's first and last years, which read a month named with a two-digit year
    (:data:`_NAMED_SHORT`: Aug-62) in the one century of 1800, 1900 and 2000 that puts it inside them, and in none
    when two do (a public rule: the declaration's, never the data's).

    >>> cells = ["2012-01", "2012/3", "07/2012", "Sept. 2012", "Jan-2012", "1939, May", "2012-05-17", "2012"]
    >>> month_dates(pd.Series(cells)).tolist()
    ['2012-01-01', '2012-03-01', '2012-07-01', '2012-09-01', '2012-01-01', '1939-05-01', '2012-05-01', nan]
    >>> month_dates(pd.Series(["Aug-62", "Apr-13", "May 99"]), (1939, 2014)).tolist()
    ['1962-08-01', '2013-04-01', '1999-05-01']
    >>> month_dates(pd.Series(["Aug-62"]), (1850, 2014)).tolist(), month_dates(pd.Series(["Aug-62"])).tolist()
    ([nan], [nan])
    """
    first = text.str.extract(_YEAR_MONTH)
    out = first[0] + "-" + first[1].str.zfill(2) + "-01"
    last = text.str.extract(_MONTH_YEAR)
    out = out.fillna(last[1] + "-" + last[0].str.zfill(2) + "-01")
    named = text.str.extract(_NAMED_MONTH)
    out = out.fillna(named[1] + "-" + named[0].str.lower().map(MONTH_NUMBERS) + "-01")
    named = text.str.extract(_YEAR_NAMED)
    out = out.fillna(named[0] + "-" + named[1].str.lower().map(MONTH_NUMBERS) + "-01")
    if years is not None and out.isna().any():  # Aug-62: the one century that puts it in the declared years
        short = text.str.extract(_NAMED_SHORT)
        out = out.fillna(in_century(short[1], years) + "-" + short[0].str.lower().map(MONTH_NUMBERS) + "-01")
    rest = out.isna()
    if rest.any():  # a whole date: its month
        out[rest] = iso_dates(text[rest], None).str.slice(0, 8) + "01"
    return out


_YEAR_QUARTER = r"^([0-9]{4})[ ./-]?[Qq]([1-4])$"
_QUARTER_YEAR = r"^[Qq]([1-4])[ ./-]?([0-9]{4})$"
#: A quarter's first month, by the quarter's number.
_QUARTER_MONTHS = {str(q): f"{3 * q - 2:02d}" for q in range(1, 5)}


def quarter_dates(text: pd.Series) -> pd.Series:
    """Each cell's year and quarter as the quarter's first day, YYYY-MM-01 text (NaN where there is none): a year
    and a quarter (:data:`_YEAR_QUARTER`: 2012 Q3, 2012-Q3, 2012Q3; :data:`_QUARTER_YEAR`: Q3 2012), for a column
    declared ``"written": "year and quarter"``. A month or a whole date is not read (it would tie with the other
    readings when the check before a release names the one that reads a column).

    >>> cells = ["2012 Q3", "2012-q1", "2012Q4", "Q2 2012", "Q3/2012", "2012-05", "2012-12-31", "2012 Q5", "2012"]
    >>> quarter_dates(pd.Series(cells)).tolist()
    ['2012-07-01', '2012-01-01', '2012-10-01', '2012-04-01', '2012-07-01', nan, nan, nan, nan]
    """
    first = text.str.extract(_YEAR_QUARTER)
    out = first[0] + "-" + first[1].map(_QUARTER_MONTHS) + "-01"
    last = text.str.extract(_QUARTER_YEAR)
    return out.fillna(last[1] + "-" + last[0].map(_QUARTER_MONTHS) + "-01")


def date_days(text: pd.Series, written: str | None, years: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each cell as days since 1970-01-01 (int64; 0 where unreadable) and whether it could be read (a missing
    cell is NaN in ``text``: unreadable here). A column written ``year and month`` reads each cell as its month's
    first day (:func:`month_dates`, a two-digit year placed by the declared ``years``), one written ``year and
    quarter`` as its quarter's (:func:`quarter_dates`)."""
    if written == "year and quarter":
        found = quarter_dates(text)
    else:
        found = month_dates(text, years) if written == "year and month" else iso_dates(text, written, years)
    stamps = pd.to_datetime(found, errors="coerce", format="%Y-%m-%d")
    readable = ~pd.isna(stamps).to_numpy()
    days = (stamps.to_numpy().astype("datetime64[D]") - EPOCH64).astype("timedelta64[D]").astype(np.int64)
    return np.where(readable, days, 0), readable


def datetime_steps(
    text: pd.Series, written: str | None, seconds: int, years: tuple | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Each cell as whole steps of ``seconds`` since 1970-01-01 00:00 (int64; 0 where unreadable) and whether it
    could be read: the date by :func:`iso_dates`' rule, then the time after it (:data:`_TIME`: hours, minutes,
    perhaps seconds; none is midnight) read down to the step. A time zone after the time is not applied.

    >>> datetime_steps(pd.Series(["2010-01-01 13:47:21", "2010/01/01", "Jan 1 1970 0:01", "2010-01-01 25:00", None]),
    ...                None, 60)[0].tolist()
    [21039227, 21038400, 1, 0, 0]
    >>> datetime_steps(pd.Series(["1/1/1970 12:05 AM", "1/1/1970 1:05 p.m.", "1/1/1970 13:05 PM"]), "month first", 60)
    (array([  5, 785,   0]), array([ True,  True, False]))
    >>> datetime_steps(pd.Series(["10/5/18 4:01", "10/5/18 4:01 PM"]), "day first", 60, (2018, 2018))[0].tolist()
    [25432081, 25432801]
    """
    days, readable = date_days(text, written, years)
    hours, minutes, secs, valid, _ = _clock(text)
    readable &= valid
    clock = hours * 3600 + minutes * 60 + np.floor(secs)
    steps = (days * 86_400 + clock.astype(np.int64)) // seconds
    return np.where(readable, steps, 0), readable


#: A time written as the digits of its hours and minutes (517, 1345, 2400), when a time column says so.
_HHMM = r"^\s*([0-9]{1,4})\s*$"


def time_steps(text: pd.Series, written: str | None, seconds: int) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's time of day as whole steps of ``seconds`` since midnight (int64; 0 where unreadable) and whether
    it could be read: H:MM or HH:MM:SS with AM or PM or none (:data:`_TIME`), a date before it read past; with
    ``written`` ``HHMM`` also the digits of hours and minutes (517 is 05:17, 2400 midnight).

    >>> time_steps(pd.Series(["13:47:21", "1:05 PM", "2010-01-01 07:30", "517", "x", None]), None, 60)[0].tolist()
    [827, 785, 450, 0, 0, 0]
    >>> time_steps(pd.Series(["517", "2400", "1375", "13:00"]), "HHMM", 60)
    (array([317,   0,   0, 780]), array([ True,  True, False,  True]))
    """
    spaced = " " + text.str.strip()  # a time follows a space or a T
    hours, minutes, secs, valid, found = _clock(spaced)
    readable = found & valid
    clock = hours * 3600 + minutes * 60 + np.floor(secs)
    if written == "HHMM":
        digits = pd.to_numeric(text.str.extract(_HHMM)[0], errors="coerce").to_numpy(float)
        whole = ~readable & np.isfinite(digits) & (np.nan_to_num(digits) % 100 < 60) & (np.nan_to_num(digits) <= 2400)
        clock = np.where(whole, (np.nan_to_num(digits) // 100 % 24) * 3600 + np.nan_to_num(digits) % 100 * 60, clock)
        readable = readable | whole
    steps = np.where(readable, clock, 0).astype(np.int64) // seconds
    return steps, readable


#: Thousands grouped by commas (1,234 or -12,345,678.5) or by dots with a decimal comma (1.234 or 1.234,5).
THOUSANDS_COMMA = r"^[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?$"
THOUSANDS_DOT = r"^[+-]?[0-9]{1,3}(?:\.[0-9]{3})+(?:,[0-9]*)?$"
#: Thousands grouped by a space with a decimal comma (1 234,5: a space, a no-break space or a narrow one, as French
#: and Nordic spreadsheets save numbers).
THOUSANDS_SPACE = "^[+-]?[0-9]{1,3}(?:[ \u00a0\u202f][0-9]{3})+(?:,[0-9]*)?$"
DECIMAL_COMMA = r"^[+-]?[0-9]*,[0-9]+$|^[+-]?[0-9]+,$"


#: Currency signs, and the ISO 4217 codes of the most used currencies (a public list), set aside around a number.
CURRENCY_SIGNS = "$€£¥₹₩₽₺₪"
CURRENCY_CODES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "NZD", "SEK", "NOK", "DKK", "CNY", "INR", "BRL")
_CURRENCY = f"(?:[{CURRENCY_SIGNS}]|(?:{'|'.join(CURRENCY_CODES)})(?![A-Za-z]))"
#: A currency sign or code before a number (after its minus, or before it) or after it, with spaces or none.
_CURRENCY_BEFORE = rf"^([+-]?)\s*{_CURRENCY}\s*"
_CURRENCY_AFTER = rf"(?<=[0-9.,])\s*(?:[{CURRENCY_SIGNS}]|(?<![A-Za-z])(?:{'|'.join(CURRENCY_CODES)}))$"
_PERCENT = r"(?<=[0-9.,])\s*%$"
#: A number in parentheses, an accountant's negative ((1,234.50) is -1,234.50, as Excel reads it typed).
_ACCOUNTING = r"^\(\s*([^()+\-\s][^()]*?)\s*\)$"
#: The typographic minus sign (U+2212) that Nordic spreadsheets and typeset tables write before a negative number.
MINUS_SIGN = "\u2212"


def plain_numbers(text: pd.Series, written: str | None) -> pd.Series:
    """Each cell as a number is written plainly, by the module's rule (a cell of another form is left as it is,
    to be read plainly or not at all).

    >>> plain_numbers(pd.Series(["1,234.5", "12", "1,23", "-$1,200.50"]), "thousands comma").tolist()
    ['1234.5', '12', '1,23', '-1200.50']
    >>> plain_numbers(pd.Series(["1.234,5", "3,25", "2.5", "1.234", "12,50 €", "1 234,5"]), "decimal comma").tolist()
    ['1234.5', '3.25', '2.5', '1234', '12.50', '1234.5']
    >>> plain_numbers(pd.Series(["97%", "12.5 %", "3", "$-2"]), "percent").tolist()
    ['97', '12.5', '3', '-2']
    >>> plain_numbers(pd.Series(["97%"]), None).tolist()
    ['97%']
    >>> plain_numbers(pd.Series(["(1,234.50)", "($12)", "\u22125", "(x)"]), "thousands comma").tolist()
    ['-1234.50', '-12', '-5', '-x']
    >>> plain_numbers(pd.Series(["USD 1,200", "12,50 EUR", "₹500", "EURO 5", "5 USDT"]), "thousands comma").tolist()
    ['1200', '12,50', '500', 'EURO 5', '5 USDT']
    """
    text = text.str.strip().str.replace(MINUS_SIGN, "-", regex=False)
    text = text.str.replace(_ACCOUNTING, r"-\1", regex=True).str.replace(_CURRENCY_BEFORE, r"\1", regex=True)
    text = text.str.replace(_CURRENCY_AFTER, "", regex=True)
    if written == "percent":
        return text.str.replace(_PERCENT, "", regex=True)
    if written == "thousands comma":
        return text.where(~text.str.match(THOUSANDS_COMMA, na=False), text.str.replace(",", "", regex=False))
    if written == "decimal comma":
        grouped = text.str.match(THOUSANDS_DOT, na=False) | text.str.match(THOUSANDS_SPACE, na=False)
        text = text.where(~grouped, text.str.replace("[. \u00a0\u202f]", "", regex=True))
        decimal = grouped | text.str.match(DECIMAL_COMMA, na=False)
        return text.where(~decimal, text.str.replace(",", ".", regex=False))
    return text


def read_numbers(text: pd.Series, written: str | None) -> np.ndarray:
    """Each cell (text; NaN where missing) as the number the module's rule reads, NaN where it reads none. Cells
    written plainly are parsed at once; only the others go through :func:`plain_numbers` (with a decimal comma every
    cell does: 1.234 is a thousand and more there).

    >>> read_numbers(pd.Series(["12", " 3.5 ", "$1,200.50", "97%", None]), "thousands comma").tolist()
    [12.0, 3.5, 1200.5, nan, nan]
    """
    if written == "decimal comma":
        return pd.to_numeric(plain_numbers(text, written), errors="coerce").to_numpy(dtype=float)
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float, copy=True)
    other = np.isnan(values) & text.notna().to_numpy()
    if other.any():
        values[other] = pd.to_numeric(plain_numbers(text[other], written), errors="coerce").to_numpy(dtype=float)
    return values
