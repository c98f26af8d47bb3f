"""What a person types into the Domain page's widgets, read plainly: a list of values, a list of
numbers or dates (and what could not be read), a list written back as one line to edit, and the
values a categorical declaration lists. The page only gathers the text and shows what could not be read."""

from __future__ import annotations

import datetime as dt
import re

import numpy as np

from ..wording import line_text, line_values
from .public_lists import TITLES, public_list


def parse_values(text: str) -> list:
    r"""Category values typed one per line, or on one line separated by commas (a value holding a comma in double
    quotes, as a CSV file writes it); all whole numbers become ints.

    >>> parse_values('"Adult, 1 Egg Stage", Chick'), parse_values("Adult, 1 Egg Stage\nChick")
    (['Adult, 1 Egg Stage', 'Chick'], ['Adult, 1 Egg Stage', 'Chick'])
    """
    items = [v.strip() for v in (text.split("\n") if "\n" in text else line_values(text))]
    values = [v for v in items if v]
    if values and all(re.fullmatch(r"-?(0|[1-9][0-9]*)", v) for v in values):
        return [int(v) for v in values]
    return values


_EXPECTED = {"integer": "a whole number", "float": "a number", "date": "a date written YYYY-MM-DD"}


def parse_numbers(text: str, kind: str) -> tuple[list | None, list[str]]:
    """A typed list of numbers or dates (commas, spaces or semicolons) for a column of ``kind``:
    (the values, or None when nothing was typed; one message per entry that could not be read)."""
    out, bad = [], []
    for item in (t for t in re.split(r"[,\s;]+", text.strip()) if t):
        try:
            out.append(
                int(item)
                if kind == "integer"
                else float(item)
                if kind == "float"
                else dt.date.fromisoformat(item).isoformat()
            )
        except ValueError:
            bad.append(f"'{item}' is not {_EXPECTED[kind]}")
    return out or None, bad


def values_text(values) -> str:
    r"""Category values as the text to edit, one per line, that :func:`parse_values` reads back as the same values:
    a lone value holding a comma (or opening with a double quote) is written in double quotes, since one line is
    read as values separated by commas.

    >>> values_text(["Adult, 1 Egg Stage"]), values_text(["a, b", "c"])
    ('"Adult, 1 Egg Stage"', 'a, b\nc')
    """
    texts = [str(v) for v in values or []]
    return line_text(texts) if len(texts) == 1 else "\n".join(texts)


def edited_values(text: str, declared) -> list:
    r"""The values a category text box holds: the ``declared`` list itself while the text is still the one it was
    shown as (:func:`values_text`; its text without surrounding spaces, as cells are read), so that codes declared as
    text stay text; else the text as typed (:func:`parse_values`).

    >>> edited_values("1\n2", ["1", "2"]), edited_values("1\n2\n3", ["1", "2"])
    (['1', '2'], [1, 2, 3])
    """
    if text != values_text(declared):
        return parse_values(text)
    return [v.strip() if isinstance(v, str) else v for v in declared]


def list_text(values) -> str:
    """A list of numbers or dates as one line to edit, each number in the fewest plain digits that read back as it
    (:func:`parse_numbers`: a loaded bin edge of 250000.25 stays itself, where six significant digits made it 250000).

    >>> list_text([0, 0.5, 1.0, 250000.25, 1234567.5, 1e-07, "2020-01-01"])
    '0, 0.5, 1, 250000.25, 1234567.5, 0.0000001, 2020-01-01'
    """
    return ", ".join(np.format_float_positional(v, trim="-") if isinstance(v, float) else str(v) for v in values or [])


def declared_values(spec: dict) -> list:
    """The values a categorical declaration lists, directly or through a public list."""
    if isinstance(spec.get("values"), list):
        return spec["values"]
    return list(public_list(spec["list"])) if spec.get("list") in TITLES else []
