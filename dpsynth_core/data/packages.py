"""Statistical packages' files (SPSS .sav/.zsav/.por, Stata .dta, SAS .sas7bdat/.xpt), read with pyreadstat.

Two readings, kept apart:

* :func:`read_codebook` reads the file's **metadata only** (``metadataonly=True``: no record is
  read): per column its variable label, its value labels, its declared (user-)missing codes, its
  storage type and display format. That is public documentation of the table, what a declaration
  is started from (:func:`~dpsynth_core.domain.templates.declaration_from_names`).
* :func:`read_package` reads the records: codes stay codes (value labels are not applied, so a
  column is the codes its categories declare), declared missing codes become missing cells (the
  package's own rule), and typed cells become canonical text (:mod:`.typed_cells`), as the CSV
  reader's table.

A file is refused in one line when it is larger than ``MAX_FILE_BYTES``, holds more than
``MAX_PACKAGE_CELLS`` cells (from its metadata, before any record is read; a file whose metadata does
not say its number of records, such as a portable SPSS file, is read up to one record past the
limit), is a Stata file older than format 104 (Stata 5), or is not what its name says.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd

from .. import constraints
from ..domain.display_formats import stata_period
from ..errors import DataError
from .header_names import name_columns
from .typed_cells import TEXT_DTYPE, frame_text

#: Each suffix's reader in pyreadstat, and what the file is called in messages.
READERS = {
    ".sav": ("read_sav", "an SPSS data file"),
    ".zsav": ("read_sav", "an SPSS data file"),
    ".por": ("read_por", "an SPSS portable file"),
    ".dta": ("read_dta", "a Stata data file"),
    ".sas7bdat": ("read_sas7bdat", "a SAS data set"),
    ".xpt": ("read_xport", "a SAS transport file"),
}
#: The readers that report declared (user-)missing codes; an SPSS portable file and a SAS transport file carry none.
_USER_MISSING = (".sav", ".zsav", ".dta", ".sas7bdat")
#: A Stata extended missing value as the codebook writes it (``.a`` to ``.z``).
STATA_MISSING = re.compile(r"^\.[a-z]$")
#: The oldest Stata format read (104: Stata 5); pyreadstat reads 104 to 119.
OLDEST_STATA = 104


def check_stata_version(head: bytes, name: str) -> None:
    """Refuse a .dta from a Stata version older than :data:`OLDEST_STATA`, naming the version."""
    if head.startswith(b"<stata_dta>"):
        return
    if head and head[0] < OLDEST_STATA:
        raise DataError(
            f"{name} is a Stata file of format {head[0]}, older than Stata 5 (format {OLDEST_STATA}), which cannot "
            "be read: open it in a newer Stata and save it again"
        )


#: A SAS transport file is written in records of 80 bytes, its last one padded: a file of any other length was cut.
XPT_RECORD = 80
#: pyreadstat's words for a file that ends before its records do (a download or copy cut short).
_CUT_SHORT = ("Unable to read from file", "File did not contain the expected number of rows")


def _call(raw: bytes, suffix: str, name: str, **options):
    import pyreadstat

    reader, what = READERS[suffix]
    if suffix == ".dta":
        check_stata_version(raw[:16], name)
    if suffix == ".xpt" and len(raw) % XPT_RECORD:  # pyreadstat reads the records before the cut, and says nothing
        raise DataError(
            f"{name} ends part-way through one of its 80-byte records, so it was cut short (an interrupted "
            "download or copy): save or export it again whole"
        )
    try:
        return getattr(pyreadstat, reader)(io.BytesIO(raw), **options)
    except (pyreadstat.ReadstatError, pyreadstat.PyreadstatError) as problem:
        text = str(problem).strip().splitlines()
        said = text[0] if text else "unreadable"
        cut = ": it seems cut short or damaged; save or export it again whole" if said in _CUT_SHORT else ""
        raise DataError(f"{name} cannot be read as {what} ({said}){cut}") from None
    except (ValueError, OSError, UnicodeError) as problem:
        raise DataError(f"{name} cannot be read as {what} ({type(problem).__name__})") from None


def _check_cells(meta, name: str) -> None:
    rows, columns = meta.number_rows, meta.number_columns or len(meta.column_names)
    if rows is not None and rows * columns > constraints.MAX_PACKAGE_CELLS:
        raise DataError(
            f"{name} holds {rows:,} records of {columns:,} columns ({rows * columns:,} cells), more than the "
            f"{constraints.MAX_PACKAGE_CELLS:,} read whole into memory here: export it as CSV or Parquet "
            "(read in chunks)"
        )


def _missing_codes(meta, column: str) -> list:
    """A column's declared missing codes: each code's canonical text, a ``[low, high]`` pair for a range."""
    from .typed_cells import cells_text

    codes = []
    for found in (meta.missing_ranges or {}).get(column, []):
        low, high = cells_text([found.get("lo"), found.get("hi")]).tolist()
        codes.append(low if low == high else [low, high])
    singles = cells_text(list((meta.missing_user_values or {}).get(column, []))).tolist()
    return codes + [v for v in singles if v not in codes]


def _stata_missing(code) -> str | None:
    """``.a`` for a Stata value label's code ``"a"``: Stata labels its extended missing values .a to .z,
    and pyreadstat gives their codes as the letter (a Stata value label has no other text code)."""
    return f".{code}" if isinstance(code, str) and re.fullmatch(r"[a-z]", code) else None


def read_codebook(raw: bytes, suffix: str, name: str) -> dict:
    """The file's codebook, from its metadata only (no record read): ``{"file", "format",
    "columns": {name: {"label", "value_labels", "missing", "storage", "format", "measure"}}}``.

    ``value_labels`` maps each code's canonical text (``"1"``, not ``1.0``) to its label; ``missing``
    lists the declared missing codes (a ``[low, high]`` pair for a range; a Stata file's extended missing
    values that its value labels name, as ``.a`` to ``.z``: which others the records use is not metadata,
    and every one of them is read as missing anyway); ``storage`` is ``number``,
    ``text``, ``date`` or ``datetime`` (from the storage type and the display format).
    """
    from .typed_cells import cells_text

    options = {"user_missing": True} if suffix in _USER_MISSING else {}  # .por and .xpt declare none
    _, meta = _call(raw, suffix, name, metadataonly=True, **options)
    _check_cells(meta, name)
    labels = meta.column_names_to_labels or {}
    formats = meta.original_variable_types or {}
    kinds = meta.readstat_variable_types or {}
    measures = meta.variable_measure or {}
    value_labels = meta.variable_value_labels or {}
    columns = {}
    for column, shown in zip(meta.column_names, name_columns([str(c) for c in meta.column_names], name)):
        codes = value_labels.get(column) or {}
        texts = cells_text(list(codes)).tolist() if codes else []
        if suffix == ".dta":
            texts = [_stata_missing(code) or text for code, text in zip(codes, texts)]
        storage = _storage(kinds.get(column) or "", formats.get(column) or "")
        columns[shown] = {
            "label": labels.get(column) or "",
            "value_labels": {t: str(v) for t, v in zip(texts, codes.values())},
            "missing": _missing_codes(meta, column) + [t for t in texts if STATA_MISSING.match(t)],
            "storage": storage,
            "type": kinds.get(column) or "",
            "format": formats.get(column) or "",
            "measure": measures.get(column) or "unknown",
        }
    _, what = READERS[suffix]
    return {"file": name, "format": what, "columns": columns}


#: Display formats of dates, of dates with times and of times of day (SPSS, Stata, SAS), as pyreadstat converts them.
_DATETIME = re.compile(r"^(%t[cC]|DATETIME|YMDHMS|E8601DT|MDYAMPM)", re.I)
_TIME_OF_DAY = re.compile(r"^(TIME|MTIME|TOD|HHMM)", re.I)
_DATE = re.compile(r"^(%t?d|%-?t?d|A?DATE|EDATE|SDATE|JDATE|MMDDYY|DDMMYY|YYMMDD|E8601DA|WEEKDATE|WORDDATE)", re.I)


def _storage(kind: str, fmt: str) -> str:
    """``text``, ``datetime``, ``date``, ``time`` or ``number``, from a column's storage type and display format."""
    if kind == "string":
        return "text"
    if stata_period(fmt):  # months or quarters since 1960: read as their month's or quarter's text (a date)
        return "date"
    if _TIME_OF_DAY.match(fmt):
        return "time"
    if _DATETIME.match(fmt):
        return "datetime"
    return "date" if _DATE.match(fmt) else "number"


def read_package(raw: bytes, suffix: str, *, name: str):
    """``(frame, info)`` of the records, every cell canonical text (see the module docstring)."""
    _, meta = _call(raw, suffix, name, metadataonly=True)
    _check_cells(meta, name)
    width = meta.number_columns or len(meta.column_names) or 1
    limit = constraints.MAX_PACKAGE_CELLS // width + 1 if meta.number_rows is None else 0
    frame, meta = _call(raw, suffix, name, dates_as_pandas_datetime=True, row_limit=limit)
    if limit and len(frame) >= limit:  # a file that does not say its records' number (.por, some .xpt)
        raise DataError(
            f"{name} holds more than {limit - 1:,} records of {width:,} columns, more than the "
            f"{constraints.MAX_PACKAGE_CELLS:,} cells read whole into memory here: export it as CSV or Parquet "
            "(read in chunks)"
        )
    if len(frame) == 0:
        raise DataError(f"{name} has no records")
    columns = name_columns([str(c) for c in frame.columns], name)
    frame = frame_text(_periods_as_text(frame, meta.original_variable_types or {}), columns).astype(TEXT_DTYPE)
    _, what = READERS[suffix]
    info = {"format": what, "rows": len(frame), "columns": columns, "bytes": len(raw), "lines": {}}
    return frame, info


def _periods_as_text(frame: pd.DataFrame, formats: dict) -> pd.DataFrame:
    """A Stata file's columns of months or quarters since 1960 (``%tm``, ``%tq``: 360 is 1990-01, 120 is 1990-Q1) as
    the text that a date column declared ``"written": "year and month"`` or ``"year and quarter"`` reads; the other
    columns as they are. A public rule on the display format, the same for every cell.

    >>> _periods_as_text(pd.DataFrame({"m": [360.0, None], "q": [120, 123]}), {"m": "%tm", "q": "%tq"}).values.tolist()
    [['1990-01', '1990-Q1'], [nan, '1990-Q4']]
    """
    out = frame.copy()
    for column in frame.columns:
        period = stata_period(formats.get(column) or "")
        if period is None or not pd.api.types.is_numeric_dtype(frame[column]):
            continue
        per_year = period[0]
        counts = np.floor(frame[column].to_numpy(dtype=float, na_value=np.nan))
        whole = np.where(np.isfinite(counts), counts, 0).astype(np.int64)
        years, part = (1960 + whole // per_year).astype(str), (whole % per_year + 1).astype(str)
        parts = np.char.add("-Q", part) if per_year == 4 else np.char.add("-", np.char.zfill(part, 2))
        out[column] = np.where(np.isfinite(counts), np.char.add(years, parts), None)
    return out
