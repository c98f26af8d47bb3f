"""An XLSForm (the spreadsheet a KoboToolbox, ODK or SurveyCTO survey is written in) read as a starting
declaration: the survey's own definition of every question, public metadata, never a response.

An XLSForm's ``survey`` sheet lists the questions (``type``, ``name``, ``label``, ``constraint``, ``parameters``),
its ``choices`` sheet each list's answers (``list_name``, ``name``, ``label``). A survey tool's CSV export writes a
column per question, named by the question's ``name`` (KoboToolbox's "include groups in headers" writes
``group/name``, which reads as ``name``), and KoboToolbox writes a ``select_multiple`` question twice: its
answers together (``fruit``: ``apple banana``) and a column per answer (``fruit/apple``: 1 or 0). Each becomes:

* ``select_one L``: categories, the list's answer names with their labels (the first label column: ``label`` or
  ``label::English (en)``); ``select_multiple L``: each answer's column 1 (selected) or 0, and the answers
  together dropped (one cell of several answers is no category: the answers' columns hold the same);
* ``integer`` and ``decimal``: whole and real numbers between the bounds the ``constraint`` writes
  (``. >= 0 and . <= 120``; ``. > 0`` is 1 for a whole number), still to give where it writes none; ``range``:
  its ``parameters``' ``start`` and ``end``;
* ``date``, ``datetime`` and ``time`` (and the metadata ``start``, ``end``, ``today``): dates, date-times and times,
  the range still to give; ``calculate``: real numbers, the range still to give;
* ``text``: the column name's template (:func:`~.templates.template_for`), else free text still to declare;
* the device's and the respondent's identifiers (``deviceid``, ``phonenumber``, ``username``, ``email``, ``audit``
  and the rest), locations (``geopoint``, ``geotrace``, ``geoshape``), media and files (``image``, ``audio``,
  ``file``, ``barcode``): dropped; a ``note`` writes nothing. A repeat's questions go to a file of their own
  (one row per repetition), not the main one: left out. The first XLSForms' words read alike (``select one from
  sexes``, ``select all that apply from toilets``, a ``list name`` column).

A bound the form does not give stays to declare (never taken from the data), and so does a generator for free
text. The columns the export adds (``_id``, ``_uuid``, ``_submission_time``) are not in the form: they start from
their names' templates.
"""

from __future__ import annotations

import io
import re

from ..errors import DomainError
from .templates import categories, documented_number, template_for

#: How a workbook starts: ``.xlsx`` and ``.ods`` are ZIP archives, ``.xls`` an OLE compound file.
WORKBOOK_MAGIC = (b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")
#: The first XLSForms' names of question types, by today's.
TYPE_ALIASES = {"int": "integer", "string": "text", "select1": "select_one", "float": "decimal"}
#: The first XLSForms' names of the columns read (``bind:constraint``), by today's.
HEADER_ALIASES = {"bind:constraint": "constraint", "list": "list_name"}
#: Question types whose column names or reaches a person or a place, or holds a file (dropped).
DROPPED = {
    "deviceid", "subscriberid", "simserial", "phonenumber", "username", "email", "audit", "geopoint", "geotrace",
    "geoshape", "image", "audio", "video", "file", "barcode", "background-audio", "signature", "phone_number",
}  # fmt: skip
#: Question types that write no column.
SILENT = {"note", "begin_group", "end_group"}
#: Question types of a moment, and their declarations' type.
MOMENTS = {
    "date": "date", "today": "date", "datetime": "datetime", "start": "datetime", "end": "datetime", "time": "time",
}  # fmt: skip
#: A sheet of more rows than this is no survey's form (a form of a thousand questions is long).
MAX_ROWS = 20_000
_BOUND = re.compile(r"\.\s*(>=|<=|>|<)\s*(-?\d+(?:\.\d+)?)")


def xlsform_sheets(raw: bytes, name: str = "the form") -> tuple[list[dict], list[dict]] | None:
    """The ``survey`` and ``choices`` sheets of an XLSForm (rows as ``{header: text}``, headers in lower case), or
    None when ``raw`` is no workbook (``.xlsx`` or ``.ods``, ZIP archives; ``.xls``, an OLE file: read by calamine,
    the reader of the Data page's spreadsheets). A workbook without a ``survey`` sheet, or whose survey sheet has no
    ``type`` and ``name`` columns, is refused in one line (:class:`~dpsynth_core.errors.DomainError`)."""
    if not raw.startswith(WORKBOOK_MAGIC):
        return None
    from python_calamine import CalamineError, CalamineWorkbook

    try:
        book = CalamineWorkbook.from_filelike(io.BytesIO(raw))
        sheets = {str(title).strip().lower(): title for title in book.sheet_names}
        if "survey" not in sheets:
            raise DomainError(
                f"domain file {name} is a spreadsheet without a 'survey' sheet: an XLSForm (KoboToolbox, ODK) has one"
            )
        survey = _rows(book.get_sheet_by_name(sheets["survey"]), name)
        choices = _rows(book.get_sheet_by_name(sheets["choices"]), name) if "choices" in sheets else []
    except DomainError:
        raise
    except (CalamineError, ValueError, OSError) as exc:
        raise DomainError(f"domain file {name} is not a readable spreadsheet ({type(exc).__name__})") from None
    if not {"type", "name"} <= {key for row in survey for key in row}:
        raise DomainError(f"domain file {name} is an XLSForm whose survey sheet has no 'type' and 'name' columns")
    return survey, choices


def _cell(value) -> str:
    """A cell as the form's author typed it (a whole number a workbook stores as ``1.0`` is ``1``)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _rows(sheet, name: str) -> list[dict]:
    if sheet.height > MAX_ROWS + 1:
        raise DomainError(f"domain file {name} has a sheet of more than {MAX_ROWS:,} rows: is it an XLSForm?")
    rows = iter(sheet.to_python(skip_empty_area=False))
    header = [re.sub(r"\s+", "_", _cell(h).lower()) for h in next(rows, ())]
    header = [HEADER_ALIASES.get(h, h) for h in header]
    out = []
    for row in rows:
        cells = {h: text for h, v in zip(header, row) if h and v is not None and (text := _cell(v))}
        if cells:
            out.append(cells)
    return out


def _label(row: dict) -> str:
    """A row's label: the ``label`` column, else the first ``label::language`` one."""
    if row.get("label"):
        return row["label"]
    return next((v for k, v in row.items() if k.startswith("label::") or k.startswith("label:")), "")


def _lists(choices: list[dict]) -> dict:
    """Each choice list's answers, ``name -> label``, in the sheet's order."""
    lists: dict = {}
    for row in choices:
        if row.get("list_name") and row.get("name"):
            lists.setdefault(row["list_name"], {})[row["name"]] = _label(row) or row["name"]
    return lists


def _bounded(spec: dict, constraint: str, whole: bool) -> dict:
    """``spec`` with the bounds a constraint writes on the answer (``.``), when it writes them."""
    for operator, number in _BOUND.findall(constraint or ""):
        value = documented_number(number)
        if value is None:
            continue
        if whole and operator in (">", "<"):
            value = int(value) + 1 if operator == ">" else -int(-value) - 1
        spec["min" if operator.startswith(">") else "max"] = value
    return spec


def _range(parameters: str) -> dict:
    """A ``range`` question's numbers: from its ``start`` to its ``end`` (XLSForm's defaults 0 and 10), whole unless
    a parameter has decimals."""
    found = dict(re.findall(r"(start|end|step)\s*=\s*(-?[\d.]+)", parameters or ""))
    start, end = documented_number(found.get("start", "0")), documented_number(found.get("end", "10"))
    spec = {"type": "float" if any("." in v for v in found.values()) else "integer"}
    return spec | {"min": start, "max": end} if start is not None and end is not None else spec


def _kind(row: dict) -> tuple[str, str]:
    """A question's type and its choice list (``select_one yes_no`` and ``select one yes_no``: ``select_one``,
    ``yes_no``; ``begin group``: ``begin_group``)."""
    text = " ".join(row.get("type", "").split()).lower()
    for older, select in (("select one from ", "select_one "), ("select all that apply from ", "select_multiple ")):
        text = select + text[len(older) :] if text.startswith(older) else text  # the first XLSForms' words
    for select in ("select_one", "select_multiple", "select one", "select multiple"):
        if text.startswith(select + " ") and not text.startswith(select + "_from_file"):
            return select.replace(" ", "_"), text[len(select) + 1 :].split(" ")[0]
    kind = text.replace(" ", "_")
    return TYPE_ALIASES.get(kind, kind), ""


def _question_columns(row: dict, lists: dict) -> dict:
    """The columns one question exports, with their declarations (the module docstring)."""
    (kind, listed), name = _kind(row), row["name"]
    if kind in SILENT:
        return {}
    if kind in DROPPED:
        return {name: {"type": "drop"}}
    if kind == "select_one" and listed in lists:
        return {name: categories(lists[listed])}
    if kind == "select_multiple" and listed in lists:
        answers = lists[listed].items()
        return {name: {"type": "drop"}} | {
            f"{name}/{code}": categories({"1": label, "0": f"not {label}"}) for code, label in answers
        }
    if kind in ("integer", "decimal"):
        whole = kind == "integer"
        return {name: _bounded({"type": "integer" if whole else "float"}, row.get("constraint", ""), whole)}
    if kind == "range":
        return {name: _range(row.get("parameters", ""))}
    if kind in MOMENTS:
        return {name: {"type": MOMENTS[kind]}}
    if kind == "calculate":
        return {name: {"type": "float"}}
    if kind == "text":
        return {name: template_for(name)}
    return {name: {"type": "text"}}  # a select from a file, acknowledge, and any type a tool adds later


def from_xlsform(survey: list[dict], choices: list[dict], name: str = "") -> dict:
    """The starting declaration an XLSForm describes, its columns in the form's order, a repeat's questions left
    out (see the module docstring)."""
    lists, columns, repeats = _lists(choices), {}, 0
    for row in survey:
        kind = _kind(row)[0]
        if kind == "begin_repeat" or kind.startswith("begin_loop"):
            repeats += 1
        elif kind in ("end_repeat", "end_loop"):
            repeats = max(0, repeats - 1)
        elif not repeats and row.get("name"):
            columns.update(_question_columns(row, lists))
    stem = re.sub(r"\.xlsx?$", "", name, flags=re.I)
    return {
        "dataset": stem,
        "documentation": f"started from the XLSForm {name}".rstrip() + "; check every column",
        "columns": columns,
    }
