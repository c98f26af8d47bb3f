"""The parts a column kind's statement is made of (:mod:`.kinds`): :class:`Key` (one key of a declaration,
with its type, its rule in words and its widget on the Domain page), :class:`Kind`, and the keys several kinds
share (``missing``, a range's bounds, how its values are written, its special values, a whole-number key)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from .. import constraints as c

BIG = f"10^{len(str(c.MAX_ABS_NUMBER)) - 1}"
CELLS = f"{c.MAX_COLUMN_CELLS:,}"


@dataclass(frozen=True)
class Key:
    """One key of a column kind's declaration.

    ``type`` and ``rule`` (the allowed form in words) make the schema; ``attribute`` (when the
    dataclass field has another name) and ``convert`` (JSON to the dataclass's value) make the
    parser; ``widget`` (``whole``, ``number``, ``date``, ``numbers``, ``values``, ``public_list``,
    ``choice``, ``presets`` (a choice among named values, or any other typed in), ``text``, ``flag``, ``derived``
    (a column computed from others, :mod:`.derived`: the page's own editors); empty: kept
    as declared, not edited), ``label``, ``help``,
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


def tuple_of(convert=None):
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
#: A categorical column's reading of a declared value written in other capitals, spaces or punctuation
#: (:attr:`~.column.CategoricalDomain.read_spellings`).
ANY_SPELLING = Key(
    "any_spelling",
    bool,
    "true or false (a JSON boolean, not text)",
    widget="flag",
    label="Read a value written in other capitals, spaces or punctuation as the declared one",
    default=False,
    nullable=False,
    help="For values typed from documentation that the file writes another way: 'ta_to' is read as the declared "
    "'TA/TO', 'transient_party' as 'Transient-party', and the release writes the declared value. Two declared values "
    "written alike but for capitals or punctuation ('a' and 'A') are read only as written.",
)
RANGE_NOTE = (
    "With no bins given, the release chooses them from the data with differential privacy (a small "
    "share of the budget, shown on the Privacy page), so values held by many people, such as 0 or 40, "
    "keep their exact value."
)
SPECIAL_HELP = (
    "Public codes that must come out exactly as they are (such as -1 for 'never' or 999 for 'not "
    "asked'): each gets a bin of its own, whatever the data holds."
)
WHOLES = f"whole numbers from -{BIG} to {BIG}"
NUMBERS = f"finite numbers from -{BIG} to {BIG}"


def bounds(value_type, rule: str, labels=("Smallest possible value", "Largest possible value"), **widget) -> tuple:
    """A range kind's ``min`` and ``max`` keys: one type, rule and widget, a label each."""
    return tuple(Key(name, value_type, rule, label=label, **widget) for name, label in zip(("min", "max"), labels))


def written_key(forms: tuple, values: str) -> Key:
    """How the data file writes a range's values, when not in the form always read (a parsing choice of the
    publisher's: :mod:`dpsynth_core.data.cell_values`)."""
    examples = {
        "": "year first (2012-01-31)" if values == "dates" else "plainly (1234.5)",
        "day first": "day first (31/01/2012)",
        "month first": "month first (01/31/2012)",
        "year and month": "a year and a month, no day (2012-01, Jan 2012, 01/2012; written back 2012-01)",
        "year and quarter": "a year and a quarter (2012 Q3, 2012-Q3, 2012Q3, Q3 2012; written back 2012-Q3)",
        "thousands comma": "with thousands commas (1,234.5)",
        "decimal comma": "with a decimal comma (1.234,5 or 1 234,5)",
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


def special_key(
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
        f"a list of at most {CELLS} {values}",
        convert=tuple_of(convert),
        widget="numbers",
        row=1,
        label=label,
        placeholder=placeholder,
        help=SPECIAL_HELP,
    )


def whole_key(name: str, most: int, most_words: str, *, step: int = 1, **widget) -> Key:
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


def text_length_key(name: str, label: str, default: int, high: int, generator: str) -> Key:
    """A text kind's length key, shown for one generator."""
    return whole_key(
        name,
        c.MAX_TEXT_LENGTH,
        str(c.MAX_TEXT_LENGTH),
        label=label,
        default=default,
        high=high,
        row=1,
        when=("generator", generator),
    )


def unit_key(units: tuple) -> Key:
    """A date kind's ``unit``: the calendar unit its bins group by (none: bins fitted to the data)."""
    return Key(
        "unit",
        Literal[units],  # type: ignore[valid-type]
        f"one of {', '.join(units)}",
        widget="choice",
        label="Group by",
        choices={"": "fitted to the data", **{u: u for u in units}},
    )
