"""Typed cells (a spreadsheet's numbers and dates, a statistical package's doubles) as the text a CSV holds.

A spreadsheet or an SPSS, Stata or SAS file stores typed values: the number 39, the date
2020-01-02. They are read as those values, never as the sheet *displays* them (``39.00``,
``02/01/2020`` depend on the cell's format and the reader's locale), and then written as the
one canonical text a CSV of the same records holds, so that every format reaches the rest of the
tool as the CSV reader's table (:func:`~dpsynth_core.data.tables.read_table`: every cell text,
missing cells empty) and each column is parsed by its declared kind alike:

* a whole number as digits (``39``, not ``39.0``); another number as Python writes it, the
  shortest text that reads back as the same double (``0.1``, ``1e+16``);
* a date as ``YYYY-MM-DD``; a date and time as ``YYYY-MM-DD HH:MM:SS`` (fractions of a second
  kept); a time of day as ``HH:MM:SS``;
* a boolean as ``True`` / ``False``; text as it is; an empty cell (or a missing value) empty.

The conversion works on each column's distinct values (factorized in C), never row by row.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pandas as pd

#: The dtype of every column the readers return (the CSV reader's).
TEXT_DTYPE = pd.StringDtype("pyarrow", na_value=np.nan)
#: Whole numbers up to this size are written as digits (a double holds every integer below 2**53).
_WHOLE = 2.0**53


def _number_text(numbers: np.ndarray) -> np.ndarray:
    """The canonical text of each float (an object array of str; NaN -> "")."""
    numbers = np.asarray(numbers, dtype=np.float64)
    out = np.asarray(pd.Series(numbers).astype(str).to_numpy(dtype=object))
    finite = np.isfinite(numbers)
    whole = finite & (np.abs(numbers) < _WHOLE)
    whole[whole] = numbers[whole] == np.floor(numbers[whole])
    if whole.any():
        out[whole] = numbers[whole].astype(np.int64).astype(str).astype(object)
    out[np.isnan(numbers)] = ""
    return out


def _moment_text(value) -> str:
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC).replace(tzinfo=None)
        if value == dt.datetime.combine(value.date(), dt.time()):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    return value.isoformat()  # a date, or a time of day


def _plain_number(value) -> bool:
    """A float, or an int a double holds exactly (written by :func:`_number_text` with the column's others)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    if isinstance(value, (float, np.floating)):
        return True
    return isinstance(value, (int, np.integer)) and abs(int(value)) < _WHOLE


def _one_text(value) -> str:
    """The canonical text of one distinct value of a column of mixed Python objects."""
    if value is None or value is pd.NaT:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return "" if math.isnan(value) else str(_number_text(np.array([value]))[0])
    if isinstance(value, (dt.date, dt.time)):
        return _moment_text(value.to_pydatetime() if isinstance(value, pd.Timestamp) else value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def cells_text(values) -> pd.Series:
    """A column of typed cells (a list, an array or a Series) as canonical text (see the module docstring)."""
    series = values if isinstance(values, pd.Series) else pd.Series(values, dtype=None if len(values) else object)
    series = series.reset_index(drop=True)
    kind = series.dtype
    if pd.api.types.is_bool_dtype(kind):
        text = np.where(series.to_numpy(dtype=bool), "True", "False").astype(object)
    elif pd.api.types.is_numeric_dtype(kind):
        text = _number_text(series.to_numpy(dtype=np.float64, na_value=np.nan))
    elif pd.api.types.is_datetime64_any_dtype(kind):
        if getattr(series.dt, "tz", None) is not None:
            series = series.dt.tz_convert("UTC").dt.tz_localize(None)
        whole = series.dt.strftime("%Y-%m-%d %H:%M:%S.%f").str.rstrip("0").str.rstrip(".")
        text = series.dt.strftime("%Y-%m-%d").where(series == series.dt.normalize(), whole).fillna("")
        text = text.to_numpy(dtype=object)
    else:
        codes, uniques = pd.factorize(series.astype(object), use_na_sentinel=True)
        values = np.asarray(uniques, dtype=object)
        number = np.fromiter((_plain_number(v) for v in values), dtype=bool, count=len(values))
        distinct = np.empty(len(values) + 1, dtype=object)
        distinct[-1] = ""
        if number.any():  # the numbers of a mixed column, written at once
            distinct[np.flatnonzero(number)] = _number_text(values[number].astype(np.float64))
        for i in np.flatnonzero(~number):  # text, dates, booleans: each distinct value once
            distinct[i] = _one_text(values[i])
        text = distinct[codes]
    return pd.Series(pd.array(text, dtype=TEXT_DTYPE))


def frame_text(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Every column of ``frame`` as canonical text, under the given names (in order)."""
    return pd.DataFrame({name: cells_text(frame.iloc[:, i]) for i, name in enumerate(columns)})


def drop_empty_rows(frame: pd.DataFrame) -> tuple[pd.DataFrame, int, int]:
    """Rows with every cell empty dropped (a CSV reader skips empty lines alike), renumbered from 0, how many of
    them lay before the last row that holds a value (a sheet's empty rows; those after it are its unused end), and
    the position of the first row kept (0: none dropped before it)."""
    if frame.shape[1] == 0 or len(frame) == 0:
        return frame.reset_index(drop=True), 0, 0
    empty = np.logical_and.reduce([frame[c].fillna("").to_numpy(dtype=object) == "" for c in frame.columns])
    filled = np.flatnonzero(~empty)
    within = int(empty[: filled[-1]].sum()) if len(filled) else 0
    return frame[~empty].reset_index(drop=True), within, int(filled[0]) if len(filled) else 0
