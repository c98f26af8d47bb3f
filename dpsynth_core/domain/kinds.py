"""One statement of each column kind: its keys, their types, allowed ranges, defaults and help.

Everything else is built from :data:`KIND_STATEMENTS`: the schema's pydantic models
(:mod:`.schema`: a key's ``type`` and ``rule``), the parser (:func:`.declaration.column_from_json`:
a key's ``attribute`` and ``convert``), and the Domain page's widgets (a key's ``widget``,
``label``, ``help``, ``placeholder``, ``row``, ``when``). To add a key to a kind, add one
:class:`Key` here (and the attribute to the kind's dataclass).

The types of the keys' values are :mod:`.value_types`'s; the plain parsing of what a person types
into the widgets is :mod:`.typed_values`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from .. import constraints as c
from .public_lists import TITLES, public_list
from .value_types import CategoryValue, CategoryValues, DateText, Labels, Number, PublicList, Whole, parse_date

DATE_UNITS = ("day", "month", "year")
#: How a date column's cells may write a date besides year first (2012-01-31, 2012/01/31): the publisher says
#: so (``written``), since 01/02/2012 is the first of February or the second of January.
DATE_ORDERS = ("day first", "month first")
#: How a number column's cells may write a number besides plainly (1234.5, -3, 1e6; a currency sign is always set
#: aside): with commas between thousands (1,234.5), or with a decimal comma (1.234,5 or 1234,5), as the publisher
#: says (``written``), since 1,234 is either; with a percent sign (97%, read as 97), since a spreadsheet's 97% is 0.97.
NUMBER_FORMATS = ("thousands comma", "decimal comma", "percent")
TEXT_GENERATORS = ("letters", "english_word", "word_pair", "digits", "any")
DEFAULT_ALPHABET = "abcdefghijklmnopqrstuvwxyz"

_BIG = f"10^{len(str(c.MAX_ABS_NUMBER)) - 1}"
_CELLS = f"{c.MAX_COLUMN_CELLS:,}"


@dataclass(frozen=True)
class Key:
    """One key of a column kind's declaration.

    ``type`` and ``rule`` (the allowed form in words) make the schema; ``attribute`` (when the
    dataclass field has another name) and ``convert`` (JSON to the dataclass's value) make the
    parser; ``widget`` (``whole``, ``number``, ``date``, ``numbers``, ``values``, ``public_list``,
    ``choice``, ``text``, ``flag``; empty: kept as declared, not edited), ``label``, ``help``,
    ``placeholder``, ``default``, ``low``/``high``/``step``, ``choices`` (value -> words), ``row``
    (keys of one row sit side by side) and ``when`` (shown only when another key has that value, or one
    of a tuple of values) make the Domain page's widgets.
    """

    name: str
    type: Any
    rule: str
    attribute: str | None = None
    convert: Callable | None = None
    widget: str = ""
    label: str = ""
    help: str | None = None
    placeholder: str | None = None
    default: Any = None
    low: Any = None
    high: Any = None
    step: Any = None
    choices: dict | None = None
    row: int = 0
    when: tuple | None = None
    nullable: bool = True

    @property
    def field(self) -> str:
        """The dataclass attribute this key sets."""
        return self.attribute or self.name


@dataclass(frozen=True)
class Kind:
    """A column kind: its name, its title in plain words, its keys, and notes the page shows."""

    name: str
    title: str
    keys: tuple
    #: Shown when the range is declared but no bins are: the release fits them with DP.
    adaptive_note: str = ""
    note: str = ""

    def key(self, name: str) -> Key:
        return next(k for k in self.keys if k.name == name)


def _tuple(convert=None):
    return lambda values: tuple(convert(v) for v in values) if convert else tuple(values)


MISSING = Key(
    "missing",
    bool,
    "true or false (a JSON boolean, not text)",
    widget="flag",
    label="Missing values may occur",
    default=True,
    nullable=False,
    help="When ticked, 'missing' is one more possible value, whether or not the data has any.",
)
_RANGE_NOTE = (
    "With no bins given, the release chooses them from the data with differential privacy (a small "
    "share of the budget, shown on the Privacy page), so values held by many people, such as 0 or 40, "
    "keep their exact value."
)
_SPECIAL_HELP = (
    "Public codes that must come out exactly as they are (such as -1 for 'never' or 999 for 'not "
    "asked'): each gets a bin of its own, whatever the data holds."
)
_WHOLES = f"whole numbers from -{_BIG} to {_BIG}"
_NUMBERS = f"finite numbers from -{_BIG} to {_BIG}"


def _bounds(value_type, rule: str, labels=("Smallest possible value", "Largest possible value"), **widget) -> tuple:
    """A range kind's ``min`` and ``max`` keys: one type, rule and widget, a label each."""
    return tuple(Key(name, value_type, rule, label=label, **widget) for name, label in zip(("min", "max"), labels))


def _written(forms: tuple, values: str) -> Key:
    """How the data file writes a range's values, when not in the form always read (a parsing choice of the
    publisher's: :mod:`dpsynth_core.data.cell_values`)."""
    examples = {
        "": "year first (2012-01-31)" if values == "dates" else "plainly (1234.5)",
        "day first": "day first (31/01/2012)",
        "month first": "month first (01/31/2012)",
        "thousands comma": "with thousands commas (1,234.5)",
        "decimal comma": "with a decimal comma (1.234,5)",
        "percent": "with a percent sign (97%, read as 97)",
    }
    always = (
        "year first (2012-01-31, 2012/01/31) or with the month's name (Jan 31 2012)"
        if values == "dates"
        else "plainly (1234.5, -3, 1e6, $12.50)"
    )
    return Key(
        "written",
        Literal[forms],  # type: ignore[valid-type]
        f"one of {', '.join(forms)}",
        widget="choice",
        label=f"The file writes its {values}",
        help=(
            f"How the data file writes its {values}. Written {always} they are always read; "
            + (
                "01/02/2012 is read only when you say which comes first."
                if values == "dates"
                else "1,234 is read only when you say whether its comma parts thousands or decimals, and 97% only "
                "when you say the file writes percentages (read as 97: declare the range in percent, 0 to 100)."
            )
            + " A cell that cannot be read becomes missing."
        ),
        choices={v: examples[v] for v in ("", *forms)},
    )


def _special(
    value_type,
    values: str,
    convert=None,
    label="Special values kept exact (optional)",
    placeholder="for example -1, 999",
) -> Key:
    """A range kind's ``special`` key: public values kept exact, each in a bin of its own."""
    return Key(
        "special",
        Annotated[list[value_type], Field(max_length=c.MAX_COLUMN_CELLS)],
        f"a list of at most {_CELLS} {values}",
        convert=_tuple(convert),
        widget="numbers",
        row=1,
        label=label,
        placeholder=placeholder,
        help=_SPECIAL_HELP,
    )


def _whole(name: str, most: int, most_words: str, *, step: int = 1, **widget) -> Key:
    """A key taking a whole number from 1 to ``most`` (``most_words``: how its rule writes it), typed in a
    whole-number widget from 1."""
    return Key(
        name,
        Annotated[int, Field(ge=1, le=most)],
        f"a whole number from 1 to {most_words}",
        widget="whole",
        low=1,
        step=step,
        **widget,
    )


def _text_length(name: str, label: str, default: int, high: int, generator: str) -> Key:
    """A text kind's length key, shown for one generator."""
    return _whole(
        name,
        c.MAX_TEXT_LENGTH,
        str(c.MAX_TEXT_LENGTH),
        label=label,
        default=default,
        high=high,
        row=1,
        when=("generator", generator),
    )


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
                    f"a list of at most {_CELLS} values, each text of at most "
                    f"{c.MAX_TEXT_CHARS:,} characters or a whole number from -{_BIG} to {_BIG}",
                    convert=tuple,
                    widget="values",
                    label="Possible values, one per line (or separated by commas)",
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
                    convert=lambda labels: {str(k): v for k, v in labels.items()},
                ),
                Key("other", CategoryValue, "one of the declared values"),
            ),
        ),
        Kind(
            "integer",
            "Whole numbers in a range",
            (
                MISSING,
                *_bounds(
                    Whole, f"a whole number from -{_BIG} to {_BIG}", widget="whole", placeholder="required", step=1
                ),
                _whole(
                    "bin_width",
                    c.MAX_ABS_NUMBER,
                    _BIG,
                    label="Bin width (blank = fitted to the data)",
                    placeholder="fitted",
                ),
                Key(
                    "edges",
                    Annotated[list[Whole], Field(min_length=1, max_length=c.MAX_COLUMN_CELLS)],
                    f"a list of 1 to {_CELLS} {_WHOLES}",
                    convert=_tuple(),
                    widget="numbers",
                    row=1,
                    label="Bin edges (optional): the first value of each bin, from the minimum",
                    placeholder="for example 0, 1, 10, 100",
                ),
                _special(Whole, _WHOLES),
                _written(NUMBER_FORMATS, "numbers"),
            ),
            adaptive_note=_RANGE_NOTE,
        ),
        Kind(
            "float",
            "Decimal numbers in a range",
            (
                MISSING,
                *_bounds(
                    Number,
                    f"a finite number from -{_BIG} to {_BIG}",
                    convert=float,
                    widget="number",
                    placeholder="required",
                ),
                _whole(
                    "bins",
                    c.MAX_COLUMN_CELLS,
                    _CELLS,
                    attribute="bins_requested",
                    label="Number of equal bins (blank = fitted to the data)",
                    placeholder="fitted",
                    high=10_000,
                ),
                Key(
                    "bin_width",
                    Annotated[float, Field(gt=0, le=c.MAX_ABS_NUMBER, allow_inf_nan=False)],
                    f"a finite number > 0 and at most {_BIG}",
                    convert=float,
                ),
                Key(
                    "edges",
                    Annotated[list[Number], Field(min_length=2, max_length=c.MAX_COLUMN_CELLS + 1)],
                    f"a list of 2 to {c.MAX_COLUMN_CELLS + 1:,} {_NUMBERS}",
                    convert=_tuple(float),
                    widget="numbers",
                    row=1,
                    label="Bin edges (optional): from the minimum to the maximum",
                    placeholder="for example 0, 0.5, 1",
                ),
                _special(Number, _NUMBERS, float),
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
                _written(NUMBER_FORMATS, "numbers"),
            ),
            adaptive_note=_RANGE_NOTE,
        ),
        Kind(
            "date",
            "Dates in a range",
            (
                MISSING,
                *_bounds(
                    DateText,
                    "a date written YYYY-MM-DD, from 0001-01-01 to 9999-12-31",
                    ("First possible date", "Last possible date"),
                    convert=parse_date,
                    widget="date",
                ),
                Key(
                    "unit",
                    Literal[DATE_UNITS],
                    f"one of {', '.join(DATE_UNITS)}",  # type: ignore[valid-type]
                    widget="choice",
                    label="Group by",
                    choices={"": "fitted to the data", "day": "day", "month": "month", "year": "year"},
                ),
                _written(DATE_ORDERS, "dates"),
                Key(
                    "edges",
                    Annotated[list[DateText], Field(min_length=1, max_length=c.MAX_COLUMN_CELLS)],
                    f"a list of 1 to {_CELLS} dates written YYYY-MM-DD (the first day of every bin)",
                    convert=_tuple(parse_date),
                ),
                _special(
                    DateText,
                    "dates written YYYY-MM-DD",
                    parse_date,
                    label="Special dates kept exact (optional, YYYY-MM-DD)",
                    placeholder="for example 1900-01-01",
                ),
            ),
            adaptive_note=_RANGE_NOTE,
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
                        "": "(choose one)",
                        "letters": "Any string of letters up to a length",
                        "english_word": "Any English word",
                        "word_pair": "Any pair of English words",
                        "digits": "A code of N digits (like a ZIP code)",
                        "any": "Any value, released as pseudonyms (value-123)",
                    },
                ),
                _text_length("max_length", "Longest length", 12, 40, "letters"),
                Key(
                    "alphabet",
                    Annotated[str, Field(min_length=1, max_length=c.MAX_TEXT_CHARS)],
                    f"text of 1 to {c.MAX_TEXT_CHARS:,} different characters",
                    widget="text",
                    label="Allowed characters",
                    default=DEFAULT_ALPHABET,
                    row=1,
                    when=("generator", "letters"),
                ),
                _text_length("length", "Number of digits", 5, 30, "digits"),
                _whole(
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
                    convert=_tuple(),
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
