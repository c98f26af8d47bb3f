"""The types of values a declaration's keys may hold, as pydantic reads them (strict: "false" is
text, not a boolean; numbers finite and within the declared maximum), and dates as a declaration
writes them (YYYY-MM-DD, and YYYY-MM-DD HH:MM:SS with a time)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal, Union

from pydantic import BeforeValidator, Field

from .. import constraints as c
from .public_lists import TITLES

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.+-Z]{0,30})?")


def _date_text(value):
    """A date written YYYY-MM-DD (a ``datetime.date`` from Python is accepted and written so)."""
    if isinstance(value, dt.date):
        return value.isoformat()[:10]
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        raise ValueError("not a date")
    dt.date.fromisoformat(value[:10])  # raises for 2021-02-30
    return value


_DATETIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?)?")


def _datetime_text(value):
    """A date and time written YYYY-MM-DD HH:MM or YYYY-MM-DD HH:MM:SS (a date alone is its midnight; a
    ``datetime.datetime`` from Python is accepted and written so)."""
    if isinstance(value, dt.date):
        return parse_datetime(value).isoformat(sep=" ")
    if not isinstance(value, str) or not _DATETIME.fullmatch(value):
        raise ValueError("not a date and time")
    dt.datetime.fromisoformat(value)  # raises for 2021-02-30 or 25:00
    return value


def parse_datetime(value) -> dt.datetime | None:
    """A date and time the schema has checked: None, a ``datetime`` (a ``date``: its midnight) or text
    YYYY-MM-DD[ HH:MM[:SS]]."""
    if value is None or isinstance(value, dt.datetime):
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    return dt.datetime.fromisoformat(str(value))


_TIME = re.compile(r"[0-9]{1,2}:[0-9]{2}(:[0-9]{2})?")


def _time_text(value):
    """A time of day written HH:MM or HH:MM:SS (a ``datetime.time`` from Python is accepted and written so)."""
    if isinstance(value, dt.time):
        return value.isoformat()
    if not isinstance(value, str) or not _TIME.fullmatch(value):
        raise ValueError("not a time")
    parse_time(value)  # raises for 25:00
    return value


def parse_time(value) -> dt.time | None:
    """A time of day the schema has checked: None, a ``datetime.time`` or text H:MM, HH:MM or HH:MM:SS."""
    if value is None or isinstance(value, dt.time):
        return value
    return dt.time.fromisoformat(str(value).zfill(8) if str(value).count(":") == 2 else str(value).zfill(5))


def parse_date(value) -> dt.date | None:
    """A date the schema has checked: None, a ``datetime.date`` or text starting YYYY-MM-DD."""
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


Whole = Annotated[int, Field(ge=-c.MAX_ABS_NUMBER, le=c.MAX_ABS_NUMBER)]
Number = Annotated[float, Field(ge=-c.MAX_ABS_NUMBER, le=c.MAX_ABS_NUMBER, allow_inf_nan=False)]
Text = Annotated[str, Field(max_length=c.MAX_TEXT_CHARS)]
Note = Annotated[str, Field(max_length=c.MAX_NOTE_CHARS)]
DateText = Annotated[str, BeforeValidator(_date_text)]
DateTimeText = Annotated[str, BeforeValidator(_datetime_text)]
TimeText = Annotated[str, BeforeValidator(_time_text)]
CategoryValue = Union[Text, Whole]  # noqa: UP007  (pydantic reads this alias at run time)
CategoryValues = Annotated[list[CategoryValue], Field(max_length=c.MAX_COLUMN_CELLS)]
PublicList = Literal[tuple(TITLES)]  # type: ignore[valid-type]
Labels = Annotated[dict[Union[Text, Whole], Text], Field(max_length=c.MAX_COLUMN_CELLS)]  # noqa: UP007
