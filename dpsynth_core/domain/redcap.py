"""A REDCap data dictionary (the CSV its *Data Dictionary* page downloads, one row per field) read as a starting
declaration: the project's own documentation of every field it collects, public metadata, never a record.

REDCap's CSV export writes one column per field in the dictionary's order, a checkbox field as one column per
choice (``race___1``, ``race___2``: 0 or 1), and after each instrument's fields its status (``demographics_complete``:
0 Incomplete, 1 Unverified, 2 Complete); a descriptive field writes nothing. Each becomes a column of that name:

* the first field (the record's id), a field marked ``Identifier?`` ``y`` and an uploaded file or signature:
  dropped;
* ``radio`` and ``dropdown``: categories, the choices' codes with their labels (``0, Female | 1, Male``);
  ``yesno`` and ``truefalse``: 1 and 0 with their labels; ``checkbox``: each choice's column 0 (Unchecked) or 1
  (Checked);
* ``text`` by its validation: ``integer`` whole numbers and ``number`` real numbers (``number_2dp``: 2
  decimals; ``_comma_decimal``: written with a decimal comma) between the validation's min and max; ``date_*``
  dates and ``datetime_*`` dates with a time (REDCap exports both year first); ``time`` a time of day; a US
  zip code or a postal code of digits (France, Germany, Australia) its digits; ``email``, ``phone``, ``ssn``
  and the medical record numbers dropped, as identifiers; without a validation (or another one), the column
  name's template (:func:`~.templates.template_for`: ``age``), else free text still to declare;
* ``slider``: whole numbers between the validation's min and max, 0 to 100 by default; ``calc``: real numbers,
  the range still to supply; ``notes`` and ``sql``: free text still to declare.

A bound the dictionary does not give stays to declare (never taken from the data), and so does a generator for
free text. Columns the export adds beside the fields (a longitudinal project's ``redcap_event_name``, a repeating
instrument's ``redcap_repeat_instance``) are not in the dictionary: they start from their names' templates.
"""

from __future__ import annotations

import csv
import io
import re

from ..errors import DomainError
from .templates import categories, documented_number, template_for

#: The first cell of a REDCap data dictionary's header, and the columns read from it.
FIELD = "Variable / Field Name"
FORM, TYPE, LABEL = "Form Name", "Field Type", "Field Label"
CHOICES = "Choices, Calculations, OR Slider Labels"
VALIDATION, LOW, HIGH = "Text Validation Type OR Show Slider Number", "Text Validation Min", "Text Validation Max"
IDENTIFIER = "Identifier?"
#: The same columns as older REDCap versions and tools that write its dictionaries name them (REDCap 4's "Choices
#: OR Calculations", "Text Validation Type"; "Min" and "Max"), read as today's names; compared in lower case.
ALIASES = {
    "choices or calculations": CHOICES,
    "choices calculations or slider labels": CHOICES,
    "text validation type": VALIDATION,
    "text validation": VALIDATION,
    "min": LOW,
    "validation min": LOW,
    "max": HIGH,
    "validation max": HIGH,
    "identifier": IDENTIFIER,
}

#: An instrument's status column, its codes and REDCap's labels.
STATUS = {"0": "Incomplete", "1": "Unverified", "2": "Complete"}
CHECKED = {"0": "Unchecked", "1": "Checked"}

#: Text validations that name or reach a person (dropped, as identifiers).
_IDENTIFYING = re.compile(r"^(email|phone.*|ssn|mrn.*|vmrn)$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MOMENT = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$")
_TIME = re.compile(r"^\d{2}:\d{2}(:\d{2})?$")
#: Postal codes of digits only, by their validation: how many digits.
_POSTAL_DIGITS = {"zipcode": 5, "postalcode_french": 5, "postalcode_germany": 5, "postalcode_australia": 4}


def redcap_fields(text: str, name: str = "the dictionary") -> list[dict] | None:
    """The fields of a REDCap data dictionary (its rows, by header name), or None when ``text`` is none (its
    header does not start with ``Variable / Field Name``). A dictionary without a ``Field Type`` column, without a
    field, or naming a field twice is refused in one line (:class:`~dpsynth_core.errors.DomainError`).

    >>> redcap_fields('"Variable / Field Name","Form Name","Field Type"\\nrecord_id,intake,text\\n')
    [{'Variable / Field Name': 'record_id', 'Form Name': 'intake', 'Field Type': 'text'}]
    >>> redcap_fields('{"columns": {}}') is None
    True
    """
    if not text.lstrip().startswith((FIELD, f'"{FIELD}"')):
        return None
    reader = csv.DictReader(io.StringIO(text))
    if TYPE not in (reader.fieldnames or ()):
        raise DomainError(
            f"domain file {name} is a REDCap data dictionary without its '{TYPE}' column: download it again"
        )
    named = {k: ALIASES.get(" ".join(k.lower().split()), k) for k in reader.fieldnames or () if k is not None}
    named = {k: k if v in reader.fieldnames else v for k, v in named.items()}  # today's name, when present, wins
    rows = (row for row in reader if row.get(FIELD))
    fields = [{named[k]: (v or "").strip() for k, v in row.items() if k is not None} for row in rows]
    if not fields:
        raise DomainError(f"domain file {name} is a REDCap data dictionary that describes no field")
    seen: set = set()
    for field in fields:
        if field[FIELD] in seen:
            raise DomainError(
                f"domain file {name} is a REDCap data dictionary that names the field '{field[FIELD]}' twice"
            )
        seen.add(field[FIELD])
    return fields


def _choices(text: str) -> dict:
    """``code -> label`` of a choice list written ``0, Female | 1, Male`` (a label may hold commas)."""
    out = {}
    for part in text.split("|"):
        code, _, label = part.partition(",")
        if code.strip():
            out[code.strip()] = label.strip() or code.strip()
    return out


def _bounded(spec: dict, field: dict, read) -> dict:
    """``spec`` with the validation's min and max where they are literal values ``read`` accepts (a bound such as
    ``today`` or a piped ``[field]`` is no public value: it stays to declare)."""
    for key, name in ((LOW, "min"), (HIGH, "max")):
        value = read(field.get(key, ""))
        if value is not None:
            spec[name] = value
    return spec


def _number(text: str):
    """A bound as REDCap writes it (a decimal comma allowed), or None."""
    return documented_number(text.replace(",", "."))


def _whole(text: str):
    """A whole-number bound, or None."""
    value = _number(text)
    return value if isinstance(value, int) else None


def _matching(pattern: re.Pattern):
    return lambda text: text if pattern.match(text) else None


def _text_column(name: str, validation: str, field: dict) -> dict:
    """A text field's declaration by its validation (the module docstring)."""
    if _IDENTIFYING.match(validation):
        return {"type": "drop"}
    if validation in ("integer", "int"):
        return _bounded({"type": "integer"}, field, _whole)
    if validation.startswith("number") or validation == "float":
        spec = {"type": "float"}
        if places := re.search(r"_(\d)dp", validation):
            spec["decimals"] = int(places.group(1))
        if validation.endswith("comma_decimal"):
            spec["written"] = "decimal comma"
        return _bounded(spec, field, _number)
    if validation.startswith("datetime"):
        return _bounded({"type": "datetime"}, field, _matching(_MOMENT))
    if validation.startswith("date"):
        return _bounded({"type": "date"}, field, _matching(_DATE))
    if validation in ("time", "time_hh_mm_ss"):
        return _bounded({"type": "time"}, field, _matching(_TIME))
    if validation in _POSTAL_DIGITS:
        return {"type": "text", "generator": "digits", "length": _POSTAL_DIGITS[validation]}
    if validation.startswith("postalcode"):  # Canada's (K1A 0B1): letters and digits, a generator to choose
        return {"type": "text"}
    return template_for(name)


def _field_columns(field: dict, first: bool) -> dict:
    """The columns one field exports, with their declarations."""
    name, kind = field[FIELD], field.get(TYPE, "").lower()
    validation = field.get(VALIDATION, "").lower()
    if kind == "descriptive":
        return {}
    if first or field.get(IDENTIFIER, "").lower() == "y" or kind == "file":
        return {name: {"type": "drop"}}
    if kind in ("radio", "dropdown"):
        return {name: categories(_choices(field.get(CHOICES, "")))}
    if kind == "yesno":
        return {name: categories({"1": "Yes", "0": "No"})}
    if kind == "truefalse":
        return {name: categories({"1": "True", "0": "False"})}
    if kind == "checkbox":
        return {
            f"{name}___{re.sub(r'[^a-z0-9_]', '_', code.lower())}": categories(CHECKED)
            for code in _choices(field.get(CHOICES, ""))
        }
    if kind == "slider":
        spec = _bounded({"type": "integer"}, field, _whole)
        return {name: {"type": "integer", "min": spec.get("min", 0), "max": spec.get("max", 100)}}
    if kind == "calc":
        return {name: {"type": "float"}}
    if kind == "text":
        return {name: _text_column(name, validation, field)}
    return {name: {"type": "text"}}  # notes, sql, and any type REDCap adds later


def project_name(name: str) -> str:
    """The project a dictionary's file is named after (REDCap downloads ``MyStudy_DataDictionary_2026-01-31.csv``).

    >>> project_name("MyStudy_DataDictionary_2026-01-31.csv"), project_name("trial.dictionary.csv")
    ('MyStudy', 'trial')
    """
    stem = re.sub(r"\.csv$", "", name, flags=re.I)
    return re.sub(r"(?i)[._ -]*data[._ -]?dictionary.*$|\.dictionary$", "", stem)


def from_redcap_dictionary(fields: list[dict], name: str = "") -> dict:
    """The starting declaration a REDCap data dictionary describes, its columns in the export's order (see the
    module docstring)."""
    columns: dict = {}
    for i, field in enumerate(fields):
        columns.update(_field_columns(field, i == 0))
        form = field.get(FORM, "")
        if form and (i + 1 == len(fields) or fields[i + 1].get(FORM, "") != form):
            columns[f"{form}_complete"] = categories(STATUS)
    return {
        "dataset": project_name(name),
        "documentation": f"started from the REDCap data dictionary {name}".rstrip() + "; check every column",
        "columns": columns,
    }
