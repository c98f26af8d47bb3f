"""Declarations in and out of JSON: parsing, checking against the schema, building each column kind."""

from __future__ import annotations

import json
from pathlib import Path

from .. import constraints
from ..errors import DomainError
from .column import CategoricalDomain, ColumnDomain, DropDomain
from .dates import DateDomain, DateTimeDomain, TimeDomain
from .ddi import ddi_codebook, from_ddi_codebook
from .kinds import column_attributes
from .ranges import FloatDomain, IntegerDomain
from .redcap import from_redcap_dictionary, redcap_fields
from .schema import column_problems
from .table_schema import from_table_schema, reading_of, schema_and_resource
from .text import TextDomain
from .xlsform import WORKBOOK_MAGIC, from_xlsform, xlsform_sheets

KINDS = {
    cls.kind: cls
    for cls in (
        CategoricalDomain,
        IntegerDomain,
        FloatDomain,
        DateDomain,
        DateTimeDomain,
        TimeDomain,
        TextDomain,
        DropDomain,
    )
}


def column_from_json(name: str, spec: dict) -> ColumnDomain:
    """Build one column's domain from its JSON form (the format in the README).

    The form is checked first (:func:`~dpsynth_core.domain.schema.column_problems`): a wrong type,
    an unknown key or a value out of range raises :class:`DomainError` naming every problem.
    """
    found = column_problems(name, spec)
    if found:
        raise DomainError.from_problems(found)
    return _build_column(name, spec)


def _build_column(name: str, spec: dict) -> ColumnDomain:
    """Build a column from a declaration whose form has been checked: the kind's class with the
    attributes its statement (:mod:`.kinds`) converts from the JSON keys."""
    return KINDS[spec["type"]](name=name, **column_attributes(spec))


def read_declaration_bytes(path) -> bytes:
    """The bytes of a declaration file, read with a cap (a device or a huge file is refused early)."""
    path = Path(path)
    limit = constraints.MAX_DECLARATION_BYTES
    try:
        if path.is_dir():
            raise DomainError(f"domain file {path} is a folder, not a file")
        if path.is_char_device() or path.is_block_device():
            raise DomainError(f"domain file {path} is a device, not a file")
        with path.open("rb") as handle:
            raw = handle.read(constraints.BINARY_SNIFF_BYTES)
            if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                raise DomainError(f"domain file {path} is not UTF-8 text (it is UTF-16): save it as UTF-8")
            if b"\x00" in raw and not raw.startswith(WORKBOOK_MAGIC):  # an XLSForm is a workbook
                raise DomainError(f"domain file {path} holds binary data (NUL bytes), not JSON text")
            if len(raw) <= limit:
                raw += handle.read(limit + 1 - len(raw))
    except FileNotFoundError:
        raise DomainError(f"domain file not found: {path}") from None
    except OSError as exc:
        raise DomainError(f"domain file {path} cannot be read: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise DomainError(f"domain file {path} is larger than {limit >> 20} MB: is it a domain declaration?")
    return raw


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _no_duplicate_keys(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _json_problem(exc: json.JSONDecodeError) -> str:
    """The parser's words, with what usually causes them in a declaration typed by hand."""
    at = exc.doc[exc.pos : exc.pos + 1]
    if at in ("}", "]") and exc.doc[: exc.pos].rstrip().endswith(","):
        return f"a comma before '{at}', which JSON does not allow; remove it"
    if at == "'":
        return "text in single quotes; JSON writes text and names in double quotes"
    return exc.msg


#: What a published data dictionary gives a declaration, in the publisher's words (the Domain page says it beside
#: its loader): each is read from its metadata alone.
DICTIONARY_WORDS = (
    "A published data dictionary loads as a declaration too: a portal's Table Schema (JSON), a REDCap project's "
    "data dictionary (the CSV its *Data Dictionary* page downloads), a survey's XLSForm (the spreadsheet a "
    "KoboToolbox or ODK survey is written in) or its DDI codebook (XML, as data archives publish them) declares "
    "every variable it documents: codes as categories with their labels, "
    "documented ranges as bounds, identifiers dropped; a bound it leaves out stays for you to give, and no "
    "statistic of the data it may hold is read."
)


def parse_declaration(raw: bytes, name: str = "the declaration", columns=None) -> dict:
    """Parse a declaration's JSON text strictly: UTF-8 (a BOM is allowed), no NaN or Infinity,
    no key twice in one object, no nesting deeper than ``MAX_JSON_DEPTH``. A Frictionless Table Schema (or a
    data package with one) is read as the starting declaration it describes (:mod:`.table_schema`), and so are a
    REDCap data dictionary, a CSV file (:mod:`.redcap`), an XLSForm, a spreadsheet (:mod:`.xlsform`), and a DDI
    codebook, an XML file (:mod:`.ddi`). ``columns``: the table's column names, which choose a data package's
    table when it describes several."""
    sheets = xlsform_sheets(raw, name)
    if sheets is not None:
        return from_xlsform(*sheets, Path(str(name)).name)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DomainError(f"domain file {name} is not UTF-8 text") from None
    fields = redcap_fields(text, name)
    if fields is not None:
        return from_redcap_dictionary(fields, Path(str(name)).name)
    codebook = ddi_codebook(text, name)
    if codebook is not None:
        return from_ddi_codebook(codebook, Path(str(name)).name)
    try:
        spec = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise DomainError(f"domain file {name} is not valid JSON (line {exc.lineno}: {_json_problem(exc)})") from None
    except ValueError as exc:
        raise DomainError(f"domain file {name} is not valid JSON: {exc}") from None
    except RecursionError:  # deeper than the parser's own limit; shallower nesting is refused by the schema
        raise DomainError(f"domain file {name} is nested more than {constraints.MAX_JSON_DEPTH} levels deep") from None
    found = schema_and_resource(spec, columns, Path(str(name)).name)
    if found is None:
        return spec
    described = from_table_schema(found[0], Path(str(name)).name)
    reading = reading_of(found[1])
    return {**described, "notes": {"reading": reading}} if reading else described
