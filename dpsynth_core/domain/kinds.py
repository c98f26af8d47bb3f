"""One statement of each column kind: its keys, their types, allowed ranges, defaults and help.

Everything else is built from :data:`KIND_STATEMENTS`: the schema's pydantic models
(:mod:`.schema`: a key's ``type`` and ``rule``), the parser (:func:`.declaration.column_from_json`:
a key's ``attribute`` and ``convert``), and the Domain page's widgets (a key's ``widget``,
``label``, ``help``, ``placeholder``, ``row``, ``when``). To add a key to a kind, add one
:class:`.keys.Key` here (and the attribute to the kind's dataclass).

The types of the keys' values are :mod:`.value_types`'s; the plain parsing of what a person types
into the widgets is :mod:`.typed_values`'s.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Literal

from pydantic import Field

from .. import constraints as c
from .derived import CATEGORY_RULE, GAP_RULE, SUM_RULE
from .keys import (
    ANY_SPELLING,
    BIG,
    CELLS,
    MISSING,
    NUMBERS,
    RANGE_NOTE,
    WHOLES,
    Key,
    Kind,
    bounds,
    special_key,
    text_length_key,
    tuple_of,
    unit_key,
    whole_key,
    written_key,
)
from .public_lists import TITLES, public_list
from .value_types import (
    CategoryValue,
    CategoryValues,
    DateText,
    DateTimeText,
    Labels,
    Number,
    PublicList,
    TimeText,
    Whole,
    parse_date,
    parse_datetime,
    parse_time,
)

#: What a column's ``multiple_of`` does, on the Domain page.
MULTIPLE_HELP = (
    "As the documentation gives them (incomes recorded in brackets of 2,500, a score in halves, sizes in tens): the "
    "synthetic values are rounded to multiples of this step inside the range, so a bracket's 15,000 comes out 15,000, "
    "not 14,873. Leave empty for any value."
)
#: The kinds whose values lie in a public range, in order (numbers, dates, dates with a time).
RANGE_KINDS = ("integer", "float", "date", "datetime", "time")
#: The range kinds whose values are points in time.
TIME_KINDS = ("date", "datetime", "time")
DATE_UNITS = ("day", "month", "quarter", "year")
#: The bins a date-and-time column may be grouped by.
DATETIME_UNITS = ("minute", "hour", "day", "month", "year")
#: How finely a date-and-time column's values are kept, with the seconds in one step: the release reads each
#: cell's time down to the step (13:47:21 is 13:47 at a minute) and writes its values so.
DATETIME_STEPS = {"second": 1, "minute": 60, "hour": 3600}
#: The bins a time of day may be grouped by.
TIME_UNITS = ("minute", "hour")
#: How a time column's cells may write a time besides H:MM or HH:MM:SS (always read, with AM or PM or none): as
#: the digits of hours and minutes (517 for 05:17, as flight data write times).
TIME_FORMS = ("HHMM",)
#: How a date column's cells may write a date besides year first (2012-01-31, 2012/01/31): the publisher says
#: so (``written``), since 01/02/2012 is the first of February or the second of January.
DATE_ORDERS = ("day first", "month first")
#: How a date column's file may write its dates: in an order, or as a year and a month with no day (read as the
#: month's first day and written back so: 2012-01), or as a year and a quarter (read as the quarter's first day and
#: written back so: 2012-Q3), as official statistics write them.
DATE_FORMS = (*DATE_ORDERS, "year and month", "year and quarter")
#: How a number column's cells may write a number besides plainly (1234.5, -3, 1e6; a currency sign is always set
#: aside): with commas between thousands (1,234.5), or with a decimal comma (1.234,5 or 1234,5), as the publisher
#: says (``written``), since 1,234 is either; with a percent sign (97%, read as 97), since a spreadsheet's 97% is 0.97.
NUMBER_FORMATS = ("thousands comma", "decimal comma", "percent")
TEXT_GENERATORS = ("letters", "english_word", "word_pair", "digits", "any")
#: A choice's entry that chooses nothing yet: a column whose kind is chosen keeps it as ``""`` (a free-text column
#: with ``"generator": ""`` is started, its values still to choose), where an untouched column holds no such key.
UNCHOSEN = "(choose one)"
DEFAULT_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
#: Names, places and labels as files write them: letters small and capital, digits, spaces, hyphens, apostrophes.
WIDE_ALPHABET = DEFAULT_ALPHABET + DEFAULT_ALPHABET.upper() + "0123456789 -'"
#: The allowed characters the Domain page offers by name (any other set is typed in).
ALPHABETS = {
    DEFAULT_ALPHABET: "small letters a to z",
    WIDE_ALPHABET: "letters (small and capital), digits, spaces, hyphens and apostrophes",
}


#: How finely a date and time or a time of day is kept (both kinds' ``step``).
STEP = Key(
    "step",
    Literal[tuple(DATETIME_STEPS)],
    f"one of {', '.join(DATETIME_STEPS)}",  # type: ignore[valid-type]
    widget="choice",
    label="Times kept to the",
    choices={"": "second", "minute": "minute", "hour": "hour"},
    help="How finely the times are read and written: hourly readings need only the hour, and their synthetic times "
    "then come out on the hour too. Times the file writes as digits (1345) hold no seconds: they are kept to the "
    "minute at the finest.",
)


#: Times that come every so many steps (half-hourly meter readings kept to the minute: 30), both time kinds'.
EVERY = whole_key(
    "multiple_of",
    c.MAX_TIME_MULTIPLE,
    f"{c.MAX_TIME_MULTIPLE:,}",
    label="Times come every (optional, in steps)",
    help="As the documentation gives them: readings every 30 minutes, kept to the minute, are every 30 steps; the "
    "synthetic times then come out on them (:00 and :30), not at any minute. Leave empty for any time.",
    placeholder="any",
    row=1,
)


def _trimmed(value):
    """A declared category without the spaces around it, as a cell is read (``"C1 "``, a code padded to three
    characters, is the cell ``C1``): a value declared with them would match no cell."""
    return value.strip() if isinstance(value, str) else value


KIND_STATEMENTS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "categorical",
            "Categories: a list of values",
            (
                MISSING,
                Key(
                    "values",
                    CategoryValues,
                    f"a list of at most {CELLS} values, each text of at most "
                    f"{c.MAX_TEXT_CHARS:,} characters or a whole number from -{BIG} to {BIG}",
                    convert=lambda values: tuple(map(_trimmed, values)),
                    widget="values",
                    label="Possible values, one per line (or separated by commas: a value holding a comma in double "
                    "quotes)",
                ),
                Key(
                    "list",
                    PublicList,
                    f"the name of a bundled public list: {', '.join(TITLES)}",
                    attribute="values",
                    convert=public_list,
                    widget="public_list",
                    label="Fill from a public list (optional)",
                ),
                Key(
                    "labels",
                    Labels,
                    f"an object mapping each value to its label (text of at most {c.MAX_TEXT_CHARS:,} characters)",
                    convert=lambda labels: {str(k).strip(): v for k, v in labels.items()},
                ),
                Key("other", CategoryValue, "one of the declared values", convert=_trimmed),
                ANY_SPELLING,
                CATEGORY_RULE,
            ),
        ),
        Kind(
            "integer",
            "Whole numbers in a range",
            (
                MISSING,
                *bounds(Whole, f"a whole number from -{BIG} to {BIG}", widget="whole", placeholder="required", step=1),
                whole_key(
                    "bin_width",
                    c.MAX_ABS_NUMBER,
                    BIG,
                    label="Bin width (blank = fitted to the data)",
                    placeholder="fitted",
                ),
                Key(
                    "edges",
                    Annotated[list[Whole], Field(min_length=1, max_length=c.MAX_COLUMN_CELLS)],
                    f"a list of 1 to {CELLS} {WHOLES}",
                    convert=tuple_of(),
                    widget="numbers",
                    row=1,
                    label="Bin edges (optional): the first value of each bin, from the minimum",
                    placeholder="for example 0, 1, 10, 100",
                ),
                special_key(Whole, WHOLES),
                whole_key(
                    "multiple_of",
                    c.MAX_ABS_NUMBER,
                    BIG,
                    label="Values come in steps of (optional)",
                    help=MULTIPLE_HELP,
                    placeholder="any",
                    row=1,
                ),
                written_key(NUMBER_FORMATS, "numbers"),
                SUM_RULE,
            ),
            adaptive_note=RANGE_NOTE,
        ),
        Kind(
            "float",
            "Decimal numbers in a range",
            (
                MISSING,
                *bounds(
                    Number,
                    f"a finite number from -{BIG} to {BIG}",
                    convert=float,
                    widget="number",
                    placeholder="required",
                ),
                whole_key(
                    "bins",
                    c.MAX_COLUMN_CELLS,
                    CELLS,
                    attribute="bins_requested",
                    label="Number of equal bins (blank = fitted to the data)",
                    placeholder="fitted",
                    high=10_000,
                ),
                Key(
                    "bin_width",
                    Annotated[float, Field(gt=0, le=c.MAX_ABS_NUMBER, allow_inf_nan=False)],
                    f"a finite number > 0 and at most {BIG}",
                    convert=float,
                ),
                Key(
                    "edges",
                    Annotated[list[Number], Field(min_length=2, max_length=c.MAX_COLUMN_CELLS + 1)],
                    f"a list of 2 to {c.MAX_COLUMN_CELLS + 1:,} {NUMBERS}",
                    convert=tuple_of(float),
                    widget="numbers",
                    row=1,
                    label="Bin edges (optional): from the minimum to the maximum",
                    placeholder="for example 0, 0.5, 1",
                ),
                special_key(Number, NUMBERS, float),
                Key(
                    "decimals",
                    Annotated[int, Field(ge=0, le=c.MAX_DECIMALS)],
                    f"a whole number from 0 to {c.MAX_DECIMALS}",
                    widget="whole",
                    low=0,
                    high=c.MAX_DECIMALS,
                    label="Decimal places in the synthetic values (optional)",
                    help="As the documentation gives them (2 for amounts in cents, 1 for a reading to a tenth): the "
                    "synthetic values are rounded to them, so a value written 2.5 comes out 2.5, not 2.50013. "
                    "Leave empty to keep every digit.",
                ),
                Key(
                    "multiple_of",
                    Annotated[float, Field(gt=0, le=c.MAX_ABS_NUMBER, allow_inf_nan=False)],
                    f"a finite number > 0 and at most {BIG}",
                    convert=float,
                    widget="number",
                    label="Values come in steps of (optional)",
                    help=MULTIPLE_HELP,
                    placeholder="any",
                    row=1,
                ),
                written_key(NUMBER_FORMATS, "numbers"),
                SUM_RULE,
            ),
            adaptive_note=RANGE_NOTE,
        ),
        Kind(
            "date",
            "Dates in a range",
            (
                MISSING,
                *bounds(
                    DateText,
                    "a date written YYYY-MM-DD, from 0001-01-01 to 9999-12-31",
                    ("First possible date", "Last possible date"),
                    convert=parse_date,
                    widget="date",
                ),
                unit_key(DATE_UNITS),
                written_key(DATE_FORMS, "dates"),
                Key(
                    "edges",
                    Annotated[list[DateText], Field(min_length=1, max_length=c.MAX_COLUMN_CELLS)],
                    f"a list of 1 to {CELLS} dates written YYYY-MM-DD (the first day of every bin)",
                    convert=tuple_of(parse_date),
                ),
                special_key(
                    DateText,
                    "dates written YYYY-MM-DD",
                    parse_date,
                    label="Special dates kept exact (optional, YYYY-MM-DD)",
                    placeholder="for example 1900-01-01",
                ),
                GAP_RULE,
            ),
            adaptive_note=RANGE_NOTE,
        ),
        Kind(
            "datetime",
            "Dates with a time of day in a range",
            (
                MISSING,
                *bounds(
                    DateTimeText,
                    "a date and time written YYYY-MM-DD HH:MM or YYYY-MM-DD HH:MM:SS (a date alone is its midnight)",
                    ("First possible date and time", "Last possible date and time"),
                    convert=parse_datetime,
                    widget="text",
                    placeholder="for example 2010-01-01 00:00",
                ),
                # on a row of their own: beside them, the bounds' boxes were too narrow to show how to write them
                replace(STEP, row=1),
                EVERY,
                replace(unit_key(DATETIME_UNITS), row=1),
                replace(written_key(DATE_ORDERS, "dates"), row=1),
                GAP_RULE,
            ),
            adaptive_note=RANGE_NOTE,
        ),
        Kind(
            "time",
            "Times of day",
            (
                MISSING,
                *bounds(
                    TimeText,
                    "a time of day written HH:MM or HH:MM:SS",
                    ("First possible time", "Last possible time"),
                    convert=parse_time,
                    widget="text",
                    placeholder="empty: the whole day",
                ),
                STEP,
                EVERY,
                unit_key(TIME_UNITS),
                Key(
                    "written",
                    Literal[TIME_FORMS],  # type: ignore[valid-type]
                    f"one of {', '.join(TIME_FORMS)}",
                    widget="choice",
                    label="The file writes its times",
                    help="Times written 13:45, 13:45:07 or 1:45 PM are always read (a date before them is read past); "
                    "as the digits of hours and minutes (517 for 05:17, 2400 for midnight) only when you say so. "
                    "The synthetic times are written the same way. A cell that cannot be read becomes missing.",
                    choices={"": "as a clock (13:45)", "HHMM": "as digits (1345, 517)"},
                ),
            ),
            note="A time of day's range is the whole day (00:00 to 23:59:59) unless you give a narrower one.",
            adaptive_note=RANGE_NOTE,
        ),
        Kind(
            "text",
            "Free text or codes (large, weakly constrained)",
            (
                MISSING,
                Key(
                    "generator",
                    Annotated[str, Field(max_length=40)],
                    f"the name of a generator ({', '.join(TEXT_GENERATORS)})",
                    widget="choice",
                    label="Which values are possible?",
                    choices={
                        "": UNCHOSEN,
                        "letters": "Any string of letters up to a length",
                        "english_word": "Any English word",
                        "word_pair": "Any pair of English words",
                        "digits": "A code of N digits (like a ZIP code)",
                        "any": "Any value, released as pseudonyms (value-123)",
                    },
                ),
                text_length_key("max_length", "Longest length", 12, 40, "letters"),
                Key(
                    "alphabet",
                    Annotated[str, Field(min_length=1, max_length=c.MAX_TEXT_CHARS)],
                    f"text of 1 to {c.MAX_TEXT_CHARS:,} different characters",
                    widget="presets",
                    label="Allowed characters (choose, or type your own)",
                    default=DEFAULT_ALPHABET,
                    choices=ALPHABETS,
                    row=1,
                    when=("generator", "letters"),
                    help="Typed: every character allowed, each once; a range such as A-Z, a-z or 0-9 stands for "
                    "each character in it (A-Z and a space: words in capitals).",
                ),
                text_length_key("length", "Number of digits", 5, 30, "digits"),
                whole_key(
                    "size",
                    c.MAX_TEXT_DOMAIN_SIZE,
                    f"10^{len(str(c.MAX_TEXT_DOMAIN_SIZE)) - 1}",
                    attribute="declared_size",
                    label="How many different values could there be?",
                    default=1_000_000,
                    step=1000,
                    row=1,
                    when=("generator", "any"),
                    help="Values are replaced by public pseudonyms (value-000123) through a fixed hash: printing the "
                    "original strings could never be private.",
                ),
                Key(
                    "prefixes",
                    Annotated[list[Annotated[int, Field(ge=1, le=c.MAX_TEXT_LENGTH)]], Field(max_length=4)],
                    f"a list of at most 4 whole numbers from 1 to {c.MAX_TEXT_LENGTH}, each shorter than the codes",
                    convert=tuple_of(),
                    widget="numbers",
                    label="Meaningful prefix lengths (optional, codes only)",
                    placeholder="for example 3, 2",
                    row=2,
                    when=("generator", ("letters", "digits")),
                    help="For codes whose first characters mean something (diagnosis codes such as 428.31, ZIP codes, "
                    "occupation codes): a code held by too few people to be released comes out as its longest "
                    "released prefix (428*, then 42*) instead of being replaced by another code. The column's budget "
                    "is split equally between the full codes and each prefix length.",
                ),
            ),
        ),
        Kind(
            "drop",
            "Drop: leave out of the release (identifiers)",
            (MISSING,),
            note="This column will not appear in the synthetic table.",
        ),
    )
}


def column_attributes(spec: dict) -> dict:
    """The dataclass attributes of one column from its JSON form (checked by the schema first):
    every key given, converted; keys not given keep the dataclass's defaults."""
    out = {}
    for key in KIND_STATEMENTS[spec["type"]].keys:
        value = spec.get(key.name)
        if value is not None:
            out[key.field] = key.convert(value) if key.convert else value
    return out
