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

The column models are built from the one statement of each kind in :mod:`.kinds` (a key's type
and its ``rule``, the allowed range in words); to add a key, add it there.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model

from .. import constraints as c
from .kinds import DATE_UNITS, KIND_STATEMENTS, Kind
from .value_types import Note, Text

__all__ = ["DATE_UNITS", "COLUMN_MODELS", "declaration_problems", "column_problems"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


def _column_model(kind: Kind) -> type[BaseModel]:
    """The pydantic model of one kind, built from its statement (:mod:`.kinds`): one field per key."""
    fields: dict = {}
    for key in kind.keys:
        annotation = Optional[key.type] if key.nullable else key.type  # noqa: UP045  (a typing alias at run time)
        fields[key.name] = (annotation, Field(key.default if key.name == "missing" else None, description=key.rule))
        if key.name == "missing":  # 'type' second, as in every message listing the known keys
            fields["type"] = (Literal[kind.name], ...)
    return create_model(f"{kind.name.capitalize()}Column", __base__=_Strict, **fields)


COLUMN_MODELS = {name: _column_model(kind) for name, kind in KIND_STATEMENTS.items()}
Column = Annotated[Union[tuple(COLUMN_MODELS.values())], Field(discriminator="type")]  # noqa: UP007  (built at run time)


class MissingValues(_Strict):
    markers: Annotated[list[Text], Field(max_length=c.MAX_MARKERS)] | None = Field(
        None, description=f"a list of at most {c.MAX_MARKERS} cell texts (each at most {c.MAX_TEXT_CHARS:,} characters)"
    )
    marker: Text | None = Field(None, description=f"text of at most {c.MAX_TEXT_CHARS:,} characters")
    source_marker: Text | None = Field(None, description=f"text of at most {c.MAX_TEXT_CHARS:,} characters")
    note: Note | None = Field(None, description=f"text of at most {c.MAX_NOTE_CHARS:,} characters")


class Person(_Strict):
    column: Annotated[str, Field(min_length=1, max_length=c.MAX_TEXT_CHARS)] = Field(
        description="the name of the declared column that identifies a person"
    )
    max_rows: Annotated[int, Field(ge=1, le=c.MAX_ROWS_PER_PERSON)] = Field(
        description=f"a whole number from 1 to {c.MAX_ROWS_PER_PERSON:,}: the public bound on rows per person"
    )
    name: Annotated[str, Field(min_length=1, max_length=c.MAX_TEXT_CHARS)] | None = Field(
        None, description="what a person is called in plain words, such as 'patient'"
    )
    ignore_case: bool = Field(
        False, description="true when identifiers that differ only in letter case ('P9', 'p9') are one person"
    )


class Declaration(_Strict):
    columns: Annotated[
        dict[Annotated[str, Field(min_length=1, max_length=c.MAX_TEXT_CHARS)], Column], Field(max_length=c.MAX_COLUMNS)
    ] = Field(description=f"an object with one declaration per column (at most {c.MAX_COLUMNS:,} columns)")
    missing_values: MissingValues | None = Field(None, description="an object with 'markers'")
    dataset: Text | None = Field(None, description=f"text of at most {c.MAX_TEXT_CHARS:,} characters")
    documentation: Note | None = Field(None, description=f"text of at most {c.MAX_NOTE_CHARS:,} characters")
    notes: dict[Text, Any] | None = Field(None, description="an object of free notes")
    person: Person | None = Field(None, description="an object with 'column' and 'max_rows' (and 'name')")
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
    return field.description if field is not None and field.description else "of the documented form"


def _locate(loc: list, column):
    """(column, model, rest of the location) of one error."""
    if column is None and loc[:1] == ["missing_values"]:
        return "missing_values", MissingValues, loc[1:]
    if column is None and loc[:1] == ["person"]:
        return "person", Person, loc[1:]
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
    where = f"{col}: " if col in ("missing_values", "person") else _where(col)
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
        if col == "person":
            return f"person ({_show(value)}) must be an object with 'column' and 'max_rows'"
        return f'{where}the declaration must be a JSON object such as {{"type": "integer", ...}}, not {_show(value)}'
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


_CONTAINERS = (dict, list, tuple)


def _too_deep(value, limit: int = c.MAX_JSON_DEPTH) -> bool:
    """True when containers are nested deeper than ``limit`` (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        if not any(issubclass(kind, _CONTAINERS) for kind in set(map(type, children))):
            continue  # a list of plain values (a declared list of a million labels): their types only
        stack.extend((child, depth + 1) for child in children if isinstance(child, _CONTAINERS))
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
