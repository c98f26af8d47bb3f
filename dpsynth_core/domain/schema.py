"""The schema of a domain declaration's JSON form: every key, its type and its allowed range.

One validation layer for the CLI, the Python API and the app: :meth:`TableDomain.from_json
<dpsynth_core.domain.TableDomain.from_json>` and :func:`~dpsynth_core.domain.column_from_json`
call :func:`declaration_problems` / :func:`column_problems` before anything is built or
allocated. The schema is written with pydantic (strict types: ``"missing": "false"`` is a
string, not a boolean, and is refused) and every problem is named with its column, its key,
the value and what is allowed; all problems are named, not only the first.

What the schema checks is the *form*: types, ranges, sizes, unknown keys, nesting. Whether a
declaration is complete and consistent (a bound still to supply, ``min`` above ``max``, too
many bins) is :meth:`TableDomain.problems <dpsynth_core.domain.TableDomain.problems>`.

To add a key, add a field (with its ``description``, the allowed range in words) to the model
of its kind below.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError

from .. import constraints as c
from .public_lists import TITLES

DATE_UNITS = ("day", "month", "year")

_BIG = f"10^{len(str(c.MAX_ABS_NUMBER)) - 1}"
_CELLS = f"{c.MAX_COLUMN_CELLS:,}"
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.+-Z]{0,30})?")


def _date_text(value):
    """A date written YYYY-MM-DD (a ``datetime.date`` from Python is accepted and written so)."""
    if isinstance(value, dt.date):
        return value.isoformat()[:10]
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        raise ValueError("not a date")
    dt.date.fromisoformat(value[:10])  # raises for 2021-02-30
    return value


Whole = Annotated[int, Field(ge=-c.MAX_ABS_NUMBER, le=c.MAX_ABS_NUMBER)]
Number = Annotated[float, Field(ge=-c.MAX_ABS_NUMBER, le=c.MAX_ABS_NUMBER, allow_inf_nan=False)]
Text = Annotated[str, Field(max_length=c.MAX_TEXT_CHARS)]
Note = Annotated[str, Field(max_length=c.MAX_NOTE_CHARS)]
DateText = Annotated[str, BeforeValidator(_date_text)]
CategoryValue = Union[Text, Whole]
CategoryValues = Annotated[list[CategoryValue], Field(max_length=c.MAX_COLUMN_CELLS)]
PublicList = Literal[tuple(TITLES)]  # type: ignore[valid-type]
Labels = Annotated[dict[Union[Text, Whole], Text], Field(max_length=c.MAX_COLUMN_CELLS)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _Column(_Strict):
    missing: bool = Field(True, description="true or false (a JSON boolean, not text)")


class DropColumn(_Column):
    type: Literal["drop"]


class CategoricalColumn(_Column):
    type: Literal["categorical"]
    values: CategoryValues | None = Field(
        None, description=f"a list of at most {_CELLS} values, each text of at most {c.MAX_TEXT_CHARS:,} "
                          f"characters or a whole number from -{_BIG} to {_BIG}")
    list: PublicList | None = Field(
        None, description=f"the name of a bundled public list: {', '.join(TITLES)}")
    labels: Labels | None = Field(
        None, description=f"an object mapping each value to its label (text of at most {c.MAX_TEXT_CHARS:,} "
                          "characters)")
    other: CategoryValue | None = Field(None, description="one of the declared values")


class IntegerColumn(_Column):
    type: Literal["integer"]
    min: Whole | None = Field(None, description=f"a whole number from -{_BIG} to {_BIG}")
    max: Whole | None = Field(None, description=f"a whole number from -{_BIG} to {_BIG}")
    bin_width: Annotated[int, Field(ge=1, le=c.MAX_ABS_NUMBER)] | None = Field(
        None, description=f"a whole number from 1 to {_BIG}")
    edges: Annotated[list[Whole], Field(min_length=1, max_length=c.MAX_COLUMN_CELLS)] | None = Field(
        None, description=f"a list of 1 to {_CELLS} whole numbers from -{_BIG} to {_BIG}")
    special: Annotated[list[Whole], Field(max_length=c.MAX_COLUMN_CELLS)] | None = Field(
        None, description=f"a list of at most {_CELLS} whole numbers from -{_BIG} to {_BIG}")


class FloatColumn(_Column):
    type: Literal["float"]
    min: Number | None = Field(None, description=f"a finite number from -{_BIG} to {_BIG}")
    max: Number | None = Field(None, description=f"a finite number from -{_BIG} to {_BIG}")
    bins: Annotated[int, Field(ge=1, le=c.MAX_COLUMN_CELLS)] | None = Field(
        None, description=f"a whole number from 1 to {_CELLS}")
    bin_width: Annotated[float, Field(gt=0, le=c.MAX_ABS_NUMBER, allow_inf_nan=False)] | None = Field(
        None, description=f"a finite number > 0 and at most {_BIG}")
    edges: Annotated[list[Number], Field(min_length=2, max_length=c.MAX_COLUMN_CELLS + 1)] | None = Field(
        None, description=f"a list of 2 to {c.MAX_COLUMN_CELLS + 1:,} finite numbers from -{_BIG} to {_BIG}")
    special: Annotated[list[Number], Field(max_length=c.MAX_COLUMN_CELLS)] | None = Field(
        None, description=f"a list of at most {_CELLS} finite numbers from -{_BIG} to {_BIG}")


class DateColumn(_Column):
    type: Literal["date"]
    min: DateText | None = Field(None, description="a date written YYYY-MM-DD, from 0001-01-01 to 9999-12-31")
    max: DateText | None = Field(None, description="a date written YYYY-MM-DD, from 0001-01-01 to 9999-12-31")
    unit: Literal[DATE_UNITS] | None = Field(  # type: ignore[valid-type]
        None, description=f"one of {', '.join(DATE_UNITS)}")
    edges: Annotated[list[DateText], Field(min_length=1, max_length=c.MAX_COLUMN_CELLS)] | None = Field(
        None, description=f"a list of 1 to {_CELLS} dates written YYYY-MM-DD (the first day of every bin)")
    special: Annotated[list[DateText], Field(max_length=c.MAX_COLUMN_CELLS)] | None = Field(
        None, description=f"a list of at most {_CELLS} dates written YYYY-MM-DD")


class TextColumn(_Column):
    type: Literal["text"]
    generator: Annotated[str, Field(max_length=40)] | None = Field(
        None, description="the name of a generator (letters, english_word, word_pair, digits, any)")
    max_length: Annotated[int, Field(ge=1, le=c.MAX_TEXT_LENGTH)] | None = Field(
        None, description=f"a whole number from 1 to {c.MAX_TEXT_LENGTH}")
    alphabet: Annotated[str, Field(min_length=1, max_length=c.MAX_TEXT_CHARS)] | None = Field(
        None, description=f"text of 1 to {c.MAX_TEXT_CHARS:,} different characters")
    length: Annotated[int, Field(ge=1, le=c.MAX_TEXT_LENGTH)] | None = Field(
        None, description=f"a whole number from 1 to {c.MAX_TEXT_LENGTH}")
    size: Annotated[int, Field(ge=1, le=c.MAX_TEXT_DOMAIN_SIZE)] | None = Field(
        None, description=f"a whole number from 1 to 10^{len(str(c.MAX_TEXT_DOMAIN_SIZE)) - 1}")


COLUMN_MODELS = {m.model_fields["type"].annotation.__args__[0]: m
                 for m in (CategoricalColumn, IntegerColumn, FloatColumn, DateColumn, TextColumn, DropColumn)}
Column = Annotated[Union[tuple(COLUMN_MODELS.values())], Field(discriminator="type")]


class MissingValues(_Strict):
    markers: Annotated[list[Text], Field(max_length=c.MAX_MARKERS)] | None = Field(
        None, description=f"a list of at most {c.MAX_MARKERS} cell texts (each at most {c.MAX_TEXT_CHARS:,} "
                          "characters)")
    marker: Text | None = Field(None, description=f"text of at most {c.MAX_TEXT_CHARS:,} characters")
    source_marker: Text | None = Field(None, description=f"text of at most {c.MAX_TEXT_CHARS:,} characters")
    note: Note | None = Field(None, description=f"text of at most {c.MAX_NOTE_CHARS:,} characters")


class Declaration(_Strict):
    columns: Annotated[dict[Annotated[str, Field(min_length=1, max_length=c.MAX_TEXT_CHARS)], Column],
                       Field(max_length=c.MAX_COLUMNS)] = Field(
        description=f"an object with one declaration per column (at most {c.MAX_COLUMNS:,} columns)")
    missing_values: MissingValues | None = Field(None, description="an object with 'markers'")
    dataset: Text | None = Field(None, description=f"text of at most {c.MAX_TEXT_CHARS:,} characters")
    documentation: Note | None = Field(None, description=f"text of at most {c.MAX_NOTE_CHARS:,} characters")
    notes: dict[Text, Any] | None = Field(None, description="an object of free notes")
    schema_: Text | None = Field(None, alias="$schema", description="the address of this schema")


_DECLARATION = TypeAdapter(Declaration)
_COLUMN = TypeAdapter(Column)
_KINDS = ", ".join(COLUMN_MODELS)


# --- messages ---------------------------------------------------------------------------------

def _show(value) -> str:
    """A short rendering of a user's value (never a huge string, list or number)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) >= 10**30:
        return f"{'-' if value < 0 else ''}about 10^{int(abs(value).bit_length() * 0.30103)}"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value):,}" if len(value) > 5 else "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, dict):
        return f"an object of {len(value):,} keys"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _where(column) -> str:
    return f"column '{_short(column)}': " if column is not None else ""


def _short(name) -> str:
    name = str(name)
    return name if len(name) <= 60 else name[:57] + "..."


def _rule(model, key: str) -> str:
    field = model.model_fields.get(key) if model is not None else None
    return (field.description if field is not None and field.description else "of the documented form")


def _locate(loc: list, column):
    """(column, model, rest of the location) of one error."""
    if column is None and loc[:1] == ["missing_values"]:
        return "missing_values", MissingValues, loc[1:]
    if column is None and not (loc[:1] == ["columns"] and len(loc) >= 2):
        return None, Declaration, loc
    if column is None:
        column, loc = loc[1], loc[2:]
    if loc and loc[0] in COLUMN_MODELS:  # a discriminated union puts the kind first
        return column, COLUMN_MODELS[loc[0]], loc[1:]
    return column, None, loc


def _messages(errors, column=None) -> list[str]:
    """Turn pydantic errors into one message per (column, key), in order, naming every problem."""
    grouped: dict = {}
    for error in errors:
        col, model, rest = _locate(list(error["loc"]), column)
        key = rest[0] if rest else None
        entry = grouped.setdefault((col, key), {"error": error, "rest": rest, "model": model, "items": set()})
        if len(rest) > 1:
            entry["items"].add(rest[1])
    return [_message(col, key, **entry) for (col, key), entry in grouped.items()]


def _message(col, key, *, error, rest, model, items) -> str:
    kind_of, value = error["type"], error["input"]
    where = "missing_values: " if col == "missing_values" else _where(col)
    if "[key]" in rest:  # a key of an object (a column name, a label's value) of the wrong type
        if key == "[key]":
            return f"column names must be text; {_show(value)} is not"
        return f"{where}the keys of {key} must be text or whole numbers; {_show(value)} is not"
    if kind_of == "union_tag_invalid":
        return f"{where}type ({_show(value.get('type'))}) must be one of {_KINDS}"
    if kind_of == "union_tag_not_found":
        return f"{where}'type' is required (one of {_KINDS})"
    if key is None:
        if col is None:
            return "a domain declaration must be a JSON object with a 'columns' object"
        if col == "missing_values":
            return f"missing_values ({_show(value)}) must be an object with 'markers'"
        return f"{where}the declaration must be a JSON object such as {{\"type\": \"integer\", ...}}, " \
               f"not {_show(value)}"
    if kind_of == "extra_forbidden":
        names = [model.model_fields[k].alias or k for k in model.model_fields]
        known = ", ".join(sorted(names, key=lambda k: k != "type"))
        kind = ""
        if model in COLUMN_MODELS.values():
            tag = model.model_fields["type"].annotation.__args__[0]
            kind = f" for {'an' if tag[0] in 'aeiou' else 'a'} {tag} column"
        return f"{where}unknown key '{_short(key)}'{kind} (known keys: {known})"
    rule = _rule(model, key)
    if kind_of == "missing":
        return f"{where}'{key}' is required: {rule}"
    if items and isinstance(rest[1], int):
        count = f"{len(items):,} items do not fit" if len(items) > 1 else "one item does not fit"
        return f"{where}{key} must be {rule}; {count} (first: {key}[{rest[1]}] = {_show(value)})"
    if items:
        count = f"{len(items):,} entries do not fit" if len(items) > 1 else "one entry does not fit"
        return f"{where}{key} must be {rule}; {count} (first: {_show(rest[1])} = {_show(value)})"
    return f"{where}{key} ({_show(value)}) must be {rule}"


def _too_deep(value, limit: int = c.MAX_JSON_DEPTH) -> bool:
    """True when containers are nested deeper than ``limit`` (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple)))
    return False


def _deep_message():
    return f"the declaration is nested more than {c.MAX_JSON_DEPTH} levels deep"


def declaration_problems(spec) -> list[str]:
    """Every problem with the form of a whole declaration (an empty list when it is well formed)."""
    found = [_deep_message()] if isinstance(spec, (dict, list)) and _too_deep(spec) else []
    try:
        _DECLARATION.validate_python(spec)
    except ValidationError as exc:
        found += _messages(exc.errors(include_url=False))
    columns = spec.get("columns") if isinstance(spec, dict) else None
    if isinstance(columns, dict):
        found += [p for name, col in columns.items() for p in _consistency(name, col)]
    return found


def column_problems(name: str, spec) -> list[str]:
    """Every problem with the form of one column's declaration."""
    found = [f"{_where(name)}{_deep_message()}"] if isinstance(spec, (dict, list)) and _too_deep(spec) else []
    try:
        _COLUMN.validate_python(spec)
    except ValidationError as exc:
        found += _messages(exc.errors(include_url=False), column=name)
    return found + _consistency(name, spec)


def _consistency(name: str, spec: dict) -> list[str]:
    """Key combinations the types alone cannot refuse."""
    if not isinstance(spec, dict) or spec.get("type") != "categorical":
        return []
    if spec.get("values") is not None and spec.get("list") is not None:
        return [f"{_where(name)}give either 'values' or 'list', not both"]
    return []
