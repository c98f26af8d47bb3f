"""What a statistical package's codebook says of a number column by its storage type and display format: whole
numbers (SPSS ``F8.0``, Stata ``%9.0f`` or its integer storage types), the decimal places it shows (``F10.2``),
or months or quarters counted from 1960 (Stata ``%tm``, ``%tq``). Metadata only: no record is read
(:func:`dpsynth_core.data.formats.codebook`)."""

from __future__ import annotations

import re

from .. import constraints

#: Display formats with no decimals: SPSS ``F8.0``, ``N5``, ``COMMA9.0``; Stata ``%9.0f``; SAS ``8.``, ``Z5.``
#: (not a general format such as Stata's ``%10.0g`` or SAS's ``BEST12``: those show decimals when there are any).
_WHOLE_FORMAT = re.compile(r"^((F|N|COMMA|DOT|DOLLAR)\d+(\.0)?|%-?\d+\.0fc?|\d+\.0?|Z\d+\.?0?)$", re.I)
_WHOLE_STORAGE = ("int8", "int16", "int32", "int64")
#: Display formats with decimal places: SPSS ``F10.2``, ``COMMA9.2``, ``DOLLAR12.2``; Stata ``%9.2f``; SAS ``8.2``:
#: the places the file shows its numbers with, which a release writes them with (``"decimals"``).
_PLACES_FORMAT = re.compile(r"^(?:(?:F|N|COMMA|DOT|DOLLAR)?\d+|%-?\d+)\.(?P<places>\d+)(?:fc?)?$", re.I)


def format_places(fmt: str) -> int | None:
    """The decimal places a codebook's display format shows (``F10.2``: 2), None for a general format (Stata's
    ``%10.0g``, SAS's ``BEST12``) or more places than a release keeps (:data:`~dpsynth_core.constraints.MAX_DECIMALS`).

    >>> format_places("F10.2"), format_places("%9.3fc"), format_places("8.2"), format_places("%10.0g")
    (2, 3, 2, None)
    """
    found = _PLACES_FORMAT.match(fmt or "")
    return int(found["places"]) if found and int(found["places"]) <= constraints.MAX_DECIMALS else None


def shows_whole(storage_type, fmt: str) -> bool:
    """Whether a number column is stored as whole numbers (Stata's ``byte``, ``int``, ``long``) or shown without
    decimals (:data:`_WHOLE_FORMAT`).

    >>> shows_whole("double", "F8.0"), shows_whole("int16", "%8.0g"), shows_whole("double", "%10.0g")
    (True, True, False)
    """
    return storage_type in _WHOLE_STORAGE or bool(_WHOLE_FORMAT.match(fmt or ""))


#: Stata's dates counted in months or quarters since 1960 (``%tm``, ``%tq``; pyreadstat leaves them as the counts):
#: the periods a year holds, and how a date column declared for them reads them (``written``).
STATA_PERIODS = {"m": (12, "year and month"), "q": (4, "year and quarter")}
_PERIOD_FORMAT = re.compile(r"^%-?t(?P<unit>[mq])", re.I)


def stata_period(fmt: str) -> tuple[int, str] | None:
    """``(periods a year, written)`` for a Stata display format of months or quarters since 1960, else None.

    >>> stata_period("%tq"), stata_period("%tmCCYY-NN"), stata_period("%td")
    ((4, 'year and quarter'), (12, 'year and month'), None)
    """
    found = _PERIOD_FORMAT.match(fmt or "")
    return STATA_PERIODS[found["unit"].lower()] if found else None
