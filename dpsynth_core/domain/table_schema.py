"""A Frictionless Table Schema (https://specs.frictionlessdata.io/table-schema/), the data dictionary many open-data
portals publish beside a table, read as a starting declaration: public metadata, never a record.

Each field becomes a column of the same name:

* ``integer`` and ``year``: whole numbers, ``number``: real numbers, ``date``, ``datetime`` and ``time``: their
  kinds; the range is the field's ``constraints`` ``minimum`` and ``maximum`` (a bound the schema does not give
  stays to declare: it is never taken from the data); an ``enum`` of any type: categories, its values;
* a ``string`` or ``integer`` field without ``enum`` or bounds whose ``description`` lists its codes with their labels
  (``Full Time Result (H=Home Win, D=Draw, A=Away Win)``, ``1 = Yes; 2 = No``: two or more, each code once): categories,
  those codes, each with its label (an integer field's codes must be whole numbers);
* ``boolean``: the categories of its ``trueValues`` and ``falseValues`` (the specification's defaults when absent);
* ``yearmonth``: dates written as a year and a month (``"written": "year and month"``), from the first day of its
  ``minimum``'s month to the last of its ``maximum``'s;
* ``string`` with a date's ``format`` (``%Y-%m-%d``; with ``%H``, a date and time): that kind, as a ``date``;
* ``string`` without ``enum`` and every other type (``duration``, ``geopoint``, ``object``, ...): free text still to
  declare (a generator, or drop);
* a field of the ``primaryKey``: dropped, as an identifier (no documentation describes its values);
* ``constraints`` ``required``: no missing value; the schema's ``missingValues``: the table's missing markers;
* a number field's ``decimalChar`` ``,``: ``"written": "decimal comma"``, its ``groupChar`` ``,``: ``"written":
  "thousands comma"``; a date field's ``format`` that starts with the day (``%d/%m/%Y``) or the month: ``"written"``
  ``day first`` or ``month first``.

A data package (``datapackage.json``) is read through the schema of its resource that describes the table: its one
resource with a schema, or, when it describes several tables, the one whose fields name most of the table's columns
(the header's names, never a record; tables that share one schema are one choice); a package whose tables cannot be
told apart that way, or whose schema is a separate file, is refused with what to load instead. The result is an
ordinary declaration (:func:`~.declaration.parse_declaration` returns it), which the publisher still completes and
checks against the documentation. How the resource says its file is written (its CSV ``dialect``'s ``delimiter``,
``header`` or ``headerRows``, and its ``encoding``), where that is not the reader's default, goes in the declaration's
``notes`` as ``reading`` (:func:`reading_of`), in the reader's own options: the command line and the Domain page read
the file so.
"""

from __future__ import annotations

import codecs
import datetime as dt
import re

from ..errors import DomainError
from .header import names_hint

#: The specification's default spellings of a boolean.
TRUE_VALUES = ("true", "True", "TRUE", "1")
FALSE_VALUES = ("false", "False", "FALSE", "0")
_RANGE_KINDS = {
    "integer": "integer",
    "year": "integer",
    "number": "float",
    "date": "date",
    "datetime": "datetime",
    "time": "time",
}


def table_schema_of(spec, columns=None, name: str = "the data package") -> dict | None:
    """The Table Schema ``spec`` is, or the schema of the data package's resource describing the table whose columns
    are ``columns`` (the module docstring says which); None for anything else (a declaration has ``columns``, a
    schema ``fields``). Raises :class:`DomainError` when a data package's table cannot be chosen."""
    found = schema_and_resource(spec, columns, name)
    return None if found is None else found[0]


def schema_and_resource(spec, columns=None, name: str = "the data package") -> tuple[dict, dict | None] | None:
    """:func:`table_schema_of`'s schema, with the data package's resource that holds it (None for a bare schema)."""
    if not isinstance(spec, dict) or "columns" in spec:
        return None
    if isinstance(spec.get("fields"), list) and all(isinstance(f, dict) and "name" in f for f in spec["fields"]):
        return spec, None
    resources = spec.get("resources")
    if not isinstance(resources, list):
        return None
    tables = [r for r in resources if isinstance(r, dict) and isinstance(r.get("schema"), dict)]
    if not tables:
        apart = [str(r["schema"]) for r in resources if isinstance(r, dict) and isinstance(r.get("schema"), str)]
        if apart:
            raise DomainError(f"{name} keeps its table's schema in a separate file ({apart[0]}): load that file")
        return None
    resource = tables[0] if len(tables) == 1 else _resource_for(tables, columns, name)
    schema = table_schema_of(resource["schema"])
    return None if schema is None else (schema, resource)


def reading_of(resource: dict | None) -> dict:
    """How a data package's ``resource`` says its file is written, as the reader's options, where that is not the
    reader's default: ``delimiter`` (its CSV dialect's), ``header_rows`` 0 with ``names`` the schema's fields (a
    dialect's ``header`` false, or ``headerRows`` empty), ``header_row`` and ``header_rows`` (``headerRows`` of
    consecutive lines from the second on: line numbers from 1, the reader's from 0) and ``encoding`` (one the
    reader's automatic choice would not read: :data:`AUTOMATIC_ENCODINGS`).
    A dialect kept in a separate file, or keys the reader has no option for (``commentChar``, ``quoteChar``, ...),
    give nothing: the file is then read as the publisher says.

    >>> reading_of({"dialect": {"delimiter": ";", "header": False}, "schema": {"fields": [{"name": "a"}]}})
    {'delimiter': ';', 'header_rows': 0, 'names': ['a']}
    >>> reading_of({"dialect": {"headerRows": [2, 3]}, "encoding": "windows-1250"})
    {'header_row': 1, 'header_rows': 2, 'encoding': 'windows-1250'}
    >>> reading_of({"dialect": {"delimiter": ","}, "encoding": "ISO-8859-1"}), reading_of(None)
    ({}, {})
    """
    if not isinstance(resource, dict):
        return {}
    dialect = resource.get("dialect") if isinstance(resource.get("dialect"), dict) else {}
    out = {}
    if isinstance(dialect.get("delimiter"), str) and dialect["delimiter"] not in ("", ","):
        out["delimiter"] = dialect["delimiter"]
    lines = dialect.get("headerRows")
    if dialect.get("header") is False or lines == []:
        fields = [str(f.get("name")) for f in _fields(resource)] if isinstance(resource.get("schema"), dict) else []
        out.update({"header_rows": 0, **({"names": fields} if fields else {})})
    elif isinstance(lines, list) and lines and all(isinstance(k, int) and not isinstance(k, bool) for k in lines):
        if lines[0] >= 1 and lines == list(range(lines[0], lines[0] + len(lines))) and lines != [1]:
            out.update({"header_row": lines[0] - 1} if lines[0] > 1 else {})
            out.update({"header_rows": len(lines)} if len(lines) > 1 else {})
    encoding = resource.get("encoding")
    if isinstance(encoding, str) and encoding.strip() and _codec(encoding) not in AUTOMATIC_ENCODINGS:
        out["encoding"] = encoding.strip()
    return out


#: Encodings the reader's automatic choice reads as they are (each line as UTF-8, else as Windows-1252, a superset
#: of Latin-1's letters), which a package's ``encoding`` does not override: portals label many UTF-8 files
#: ISO-8859-1 (datahub's covid-19 package labels its ASCII files so), and a UTF-8 file read as Latin-1 would turn
#: every accented letter into two.
AUTOMATIC_ENCODINGS = ("utf-8", "ascii", "iso8859-1", "cp1252")


def _codec(name: str) -> str:
    try:
        return codecs.lookup(name.strip()).name
    except LookupError:
        return name.strip()


def _resource_for(tables: list, columns, name: str) -> dict:
    """Of a data package's resources with schemas, the one whose fields name most of ``columns``, and of those the
    one with the fewest fields the table lacks (a unique best, or several with one schema, as a package's seasonally
    adjusted table beside its raw one). For a table read without its header line (columns column_1, ...), the one
    table with as many fields, whose names the publisher is then told to give it (:func:`~.header.names_hint`)."""
    names = {str(c) for c in columns or ()}
    sized = [r for r in tables if names_hint(list(columns or ()), [str(f.get("name")) for f in _fields(r)])]
    if len(sized) == 1:  # a file read without its header line: the one table with as many fields, to name it by
        return sized[0]
    named = [[str(f.get("name")) in names for f in _fields(r)] for r in tables]
    scores = [(sum(found), sum(found) - len(found)) for found in named]
    best = max(scores)
    tied = [r["schema"] for r, score in zip(tables, scores) if score == best]
    if names and best[0] and all(schema == tied[0] for schema in tied):  # one best, or the same schema repeated
        return tables[scores.index(best)]
    listed = ", ".join(str(r.get("name") or r.get("path") or "?") for r in tables)
    if not names:
        why = "load it as the table's data dictionary (the Domain page, or declare --dictionary) to choose by columns"
    elif not best[0]:
        why = "none of them names this table's columns"
    else:
        why = "which one describes this table cannot be told from its column names"
    raise DomainError(f"{name} describes {len(tables)} tables ({listed}): {why}")


def _fields(resource: dict) -> list:
    fields = resource["schema"].get("fields")
    return [f for f in fields if isinstance(f, dict)] if isinstance(fields, list) else []


#: One ``code = label`` of a description's list (a label runs to the next comma, semicolon or closing bracket).
_CODE_LABEL = re.compile(r"(?:^|(?<=[\s(,;:]))([A-Za-z0-9][A-Za-z0-9_.-]{0,11})\s*=\s*([^,;=()]+?)\s*(?=[,;)]|$)")


def codes_in(description, whole: bool = False) -> dict | None:
    """The codes a field's description lists with their labels (two or more, each code once; ``whole``: whole
    numbers only), or None.

    >>> codes_in("Full Time Result (H=Home Win, D=Draw, A=Away Win)")
    {'H': 'Home Win', 'D': 'Draw', 'A': 'Away Win'}
    >>> codes_in("Smoker: 1 = Yes; 2 = No", whole=True)
    {'1': 'Yes', '2': 'No'}
    >>> codes_in("Pain from 0=none to 10=worst"), codes_in("Shots (x = home)"), codes_in("H=a, H=b")
    (None, None, None)
    """
    pairs = _CODE_LABEL.findall(str(description or ""))
    codes = [code for code, _ in pairs]
    if len(pairs) < 2 or len(set(codes)) < len(codes) or (whole and not all(c.isdigit() for c in codes)):
        return None
    return {code: label.strip() for code, label in pairs}


def _column(field: dict, key: set) -> dict:
    """One field's starting declaration (the module docstring's mapping)."""
    kind, constraints = field.get("type", "string"), field.get("constraints") or {}
    pattern = str(field.get("format") or "")
    if kind == "string" and "%Y" in pattern and ("%m" in pattern or "%b" in pattern):  # a date kept as a string
        kind = "datetime" if "%H" in pattern else "date"
    if str(field["name"]) in key:
        return {"type": "drop"}
    listed = None
    if kind in ("string", "integer") and not {"enum", "minimum", "maximum"} & set(constraints):
        listed = codes_in(field.get("description"), whole=kind == "integer")
    if isinstance(constraints.get("enum"), list) and constraints["enum"]:
        out = {"type": "categorical", "values": list(constraints["enum"])}
    elif listed:
        out = {"type": "categorical", "values": list(listed), "labels": listed}
    elif kind == "boolean":
        out = {
            "type": "categorical",
            "values": [*(field.get("trueValues") or TRUE_VALUES), *(field.get("falseValues") or FALSE_VALUES)],
        }
    elif kind == "yearmonth":
        out = {"type": "date", "written": "year and month"}
        for bound, name in (("minimum", "min"), ("maximum", "max")):
            if isinstance(constraints.get(bound), str) and len(constraints[bound]) >= 7:
                first = dt.date.fromisoformat(constraints[bound][:7] + "-01")
                last = (first.replace(day=28) + dt.timedelta(days=4)).replace(day=1) - dt.timedelta(days=1)
                out[name] = (first if name == "min" else last).isoformat()
    elif kind in _RANGE_KINDS:
        out = {"type": _RANGE_KINDS[kind]}
        for bound, name in (("minimum", "min"), ("maximum", "max")):
            if constraints.get(bound) is not None:
                out[name] = constraints[bound]
                if kind == "datetime" and isinstance(out[name], str):  # ISO 8601's 2019-01-01T00:00:00Z
                    out[name] = out[name].replace("T", " ").removesuffix("Z")
        if kind == "number" and field.get("decimalChar") == ",":
            out["written"] = "decimal comma"
        elif kind in ("number", "integer") and field.get("groupChar") == ",":
            out["written"] = "thousands comma"
        if kind in ("date", "datetime") and pattern.startswith("%d"):
            out["written"] = "day first"
        elif kind in ("date", "datetime") and pattern.startswith("%m"):
            out["written"] = "month first"
    else:
        out = {"type": "text"}
    if constraints.get("required") is True:
        out["missing"] = False
    return out


def from_table_schema(schema: dict, name: str = "") -> dict:
    """The starting declaration a Table Schema describes (see the module docstring)."""
    key = schema.get("primaryKey") or []
    key = {str(k) for k in ([key] if isinstance(key, str) else key)}
    spec = {
        "dataset": str(schema.get("name") or schema.get("title") or ""),
        "documentation": f"started from the Table Schema {name}".rstrip() + "; check every column",
        "columns": {str(f["name"]): _column(f, key) for f in schema["fields"]},
    }
    markers = schema.get("missingValues")
    if isinstance(markers, list) and all(isinstance(m, str) for m in markers):
        spec["missing_values"] = {"markers": list(markers)}
    return spec
