"""Validation of user-supplied parameters, with messages that name the value and the allowed range.

Two ranges exist for epsilon and rho. What a publisher types (the app's sliders, the CLI,
:func:`~dpsynth_core.release.synthesize`) must lie in the public range of
:mod:`~dpsynth_core.constraints` (``check_total_epsilon``, ``check_publisher_rho``); one
mechanism inside a release receives a share of it, which only has to lie in the wider
range where its arithmetic stays exact and its loops short (``check_epsilon``, ``check_rho``).
Domain declarations are checked in :mod:`~dpsynth_core.domain.schema`.
"""

from __future__ import annotations

import csv
import math
import numbers
import re

from . import constraints
from .errors import ParameterError


def _number(value, name: str, rule: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        raise ParameterError(f"{name} ({_show(value)}) must be {rule}")
    try:
        out = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"{name} ({_show(value)}) must be {rule}") from None
    if not math.isfinite(out):
        raise ParameterError(f"{name} ({_show(value)}) must be {rule}")
    return out


def _show(value) -> str:
    """A short rendering of a user's value for a message (never a huge string or number)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return f"{'-' if value < 0 else ''}about 10^{int(abs(value).bit_length() * 0.30103)}"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _ranged(value, name: str, low: float, high: float, rule: str, refusal: str | None = None) -> float:
    """``value`` as a float when it is a number from ``low`` to ``high``; else raise naming ``rule``
    (or, for a number out of range, ``refusal`` when given)."""
    out = _number(value, name, rule)
    if not low <= out <= high:
        raise ParameterError(f"{name} ({_show(value)}) must be {refusal or rule}")
    return out


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Return one mechanism's epsilon as a float, or raise if it is outside the mechanism range."""
    low, high = constraints.MECHANISM_EPSILON_MIN, constraints.MECHANISM_EPSILON_MAX
    return _ranged(epsilon, name, low, high, f"a number from {low:g} to {high:g}")


def check_total_epsilon(epsilon, name: str = "epsilon") -> float:
    """Return the publisher's total epsilon, or raise if it is outside the app's range (0.01 to 20)."""
    low, high = constraints.EPSILON_MIN, constraints.EPSILON_MAX
    return _ranged(epsilon, name, low, high, f"a number from {low:g} to {high:g}")


def check_rho(rho, name: str = "rho") -> float:
    """Return one mechanism's rho as a float, or raise if it is not inside (0, 1) with room to compute."""
    low, high = constraints.MECHANISM_RHO_MIN, constraints.MECHANISM_RHO_MAX
    return _ranged(
        rho,
        name,
        low,
        high,
        f"a number in (0, 1), from {low:g} to 1 - {1 - high:g}",
        f"in (0, 1), from {low:g} to 1 - {1 - high:.0e}",
    )


def check_publisher_rho(rho, name: str = "rho") -> float:
    """Return the publisher's rho, or raise if it is outside the app's range (0.01 to 0.99)."""
    low, high = constraints.RHO_MIN, constraints.RHO_MAX
    return _ranged(rho, name, low, high, f"a number from {low:g} to {high:g}", f"in (0, 1), from {low:g} to {high:g}")


def check_delta(delta, name: str = "delta") -> float:
    """Return a publisher's delta, or raise if it is not a number from 0 to ``DELTA_MAX``."""
    return _ranged(delta, name, 0, constraints.DELTA_MAX, f"a number from 0 to {constraints.DELTA_MAX:g}")


#: A whole number as typed: ASCII digits only ('²' and other Unicode digits are not numbers here).
_DIGITS = re.compile(r"[+-]?[0-9]+")


def _whole(value, name: str, rule: str) -> int:
    if isinstance(value, bool):
        raise ParameterError(f"{name} ({_show(value)}) must be {rule}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()) and len(value.strip()) <= 301:
        return int(value.strip())
    if isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
        return int(value)
    raise ParameterError(f"{name} ({_show(value)}) must be {rule}")


def check_whole(value, name: str, low: int, high: int) -> int:
    """``value`` as an int when it is a whole number (ASCII digits, at most 301 of them, in text) from
    ``low`` to ``high``; else raise naming the value and the range."""
    rule = f"a whole number from {low:,} to {high:,}"
    out = _whole(value, name, rule)
    if not low <= out <= high:
        raise ParameterError(f"{name} ({_show(value)}) must be {rule}")
    return out


def check_ids(values, name: str, what: str = "id") -> list[int]:
    """Each of ``values`` as a whole number of at least 1 (a release number, a link id), or raise
    naming the first that is not, with its position; an empty list is refused too."""
    values = list(values)
    if not values:
        raise ParameterError(f"{name} needs at least one {what}")
    out = []
    for position, value in enumerate(values, 1):
        if not (isinstance(value, str) and _DIGITS.fullmatch(value.strip()) and value.strip()[0] not in "+-"):
            raise ParameterError(f"{name}: {what} {position} ({_show(value)}) is not a {what}: a whole number >= 1")
        number = int(value.strip()) if len(value.strip()) <= 18 else 0
        if number < 1:
            raise ParameterError(f"{name}: {what} {position} ({_show(value)}) is not a {what}: a whole number >= 1")
        out.append(number)
    return out


def check_rows(rows, limit: int = constraints.MAX_SYNTHETIC_ROWS) -> int | None:
    """Return a requested row count as an int (None stays None), or raise if not in 1..``limit``
    (MAX_SYNTHETIC_ROWS; MAX_ENGINE_SYNTHETIC_ROWS for a release written in chunks)."""
    if rows is None:
        return None
    rule = f"a whole number from 1 to {limit:,}"
    value = _whole(rows, "rows", rule)
    if not 1 <= value <= limit:
        raise ParameterError(f"rows ({_show(rows)}) must be {rule}")
    return value


def check_max_rows_per_person(value, name: str = "max_rows_per_person") -> int:
    """A public bound on rows per person: a whole number in 1..``MAX_ROWS_PER_PERSON``."""
    rule = f"a whole number from 1 to {constraints.MAX_ROWS_PER_PERSON:,}"
    whole = _whole(value, name, rule)
    if not 1 <= whole <= constraints.MAX_ROWS_PER_PERSON:
        raise ParameterError(f"{name} ({_show(value)}) must be {rule}")
    return whole


def check_person_option(column, max_rows) -> tuple[str, int] | None:
    """The CLI's ``--person COLUMN --max-rows-per-person K``: both or neither; None when neither."""
    if (column is None) != (max_rows is None):
        raise ParameterError("--person and --max-rows-per-person go together: name the person column and the bound")
    return None if column is None else (column, check_max_rows_per_person(max_rows, "--max-rows-per-person"))


def check_seed(random_state):
    """Return ``random_state`` when it is None, a numpy Generator or a whole number in [0, 2**128)."""
    if random_state is None:
        return None
    import numpy as np

    if isinstance(random_state, np.random.Generator):
        return random_state
    rule = "a whole number from 0 to 2^128 - 1 (or a numpy Generator)"
    value = _whole(random_state, "seed", rule)
    if not 0 <= value < constraints.MAX_SEED:
        raise ParameterError(f"seed ({_show(random_state)}) must be {rule}")
    return value


#: Largest domain size any mechanism accepts: its float arithmetic (log(rho) / n) stays exact.
_MAX_DOMAIN_SIZE = 10**300


def check_domain_size(size) -> int:
    """Return a domain size as an exact int from 1 to 10^300 (digits, '_' and ',' allowed in text)."""
    rule = "a whole number from 1 to 10^300"
    if isinstance(size, str):
        size = size.strip().replace("_", "").replace(",", "")
        if not _DIGITS.fullmatch(size) or size[0] in "+-" or len(size) > 301:
            raise ParameterError(f"domain size ({_show(size)}) must be {rule}")
    value = _whole(size, "domain size", rule)
    if not 1 <= value <= _MAX_DOMAIN_SIZE:
        raise ParameterError(f"domain size ({_show(value)}) must be {rule}")
    return value


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$", re.IGNORECASE)


def check_memory_limit(limit, name: str = "--memory-limit") -> str | None:
    """A memory limit for DuckDB such as ``2GB`` or ``512MiB`` (None stays None)."""
    if limit is None:
        return None
    found = _SIZE.match(str(limit))
    if not found or float(found.group(1)) <= 0:
        raise ParameterError(f"{name} ({str(limit)[:40]!r}) must be a size such as 2GB or 512MB")
    return f"{found.group(1)}{found.group(2).upper().replace('I', 'i')}"


#: A spreadsheet holds at most this many rows (Excel's limit).
MAX_SHEET_ROWS = 1_048_576


def check_sheet(sheet, header_row) -> tuple[str | None, int | None]:
    """A spreadsheet's sheet name (None: the first sheet) and header row number (None: the first row
    that holds anything; else a whole number from 1 to 1,048,576), checked."""
    if sheet is not None and (not isinstance(sheet, str) or not sheet.strip() or len(sheet) > 255):
        raise ParameterError(f"sheet ({sheet!r}) must be a sheet's name (text of 1 to 255 characters)")
    if header_row is not None:
        header_row = check_whole(header_row, "header row", 1, MAX_SHEET_ROWS)
    return sheet, header_row


#: A header spans at most this many rows (a survey tool's export: SurveyMonkey's two, Qualtrics' three).
MAX_HEADER_ROWS = 5


def check_header_rows(header_rows) -> int | None:
    """How many rows a table file's header spans (a question above its answers), checked: None for one (the
    default, so a one-row header is recorded as before), 0 for none (the file has no header line: its columns are
    named ``column_1``, ``column_2``, ...), else a whole number from 2 to :data:`MAX_HEADER_ROWS`."""
    if header_rows is None:
        return None
    header_rows = check_whole(header_rows, "header rows", 0, MAX_HEADER_ROWS)
    return None if header_rows == 1 else header_rows


def check_names(names, header_rows) -> tuple[tuple[str, ...] | None, int | None]:
    """The column names a publisher gives a file without a header line (typed from its documentation: a list, or
    text with one name per line or separated by commas), checked with the header's span (:func:`check_header_rows`):
    ``(names, header_rows)``, ``header_rows`` 0 when names are given (the file then has no header line), names None
    when none are given. Names are public: the publisher's, never read off the file.

    A name holding a comma is written in double quotes, as in a CSV (:func:`names_text` writes them so).

    >>> check_names('age, workclass,"Income, annual"', None)
    (('age', 'workclass', 'Income, annual'), 0)
    >>> check_names(None, 2)
    (None, 2)
    """
    header_rows = check_header_rows(header_rows)
    if names is None or (isinstance(names, str) and not names.strip()):
        return None, header_rows
    if isinstance(names, str):
        names = next(csv.reader([names.strip().replace("\n", ",")], skipinitialspace=True))
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ParameterError(f"column names ({names!r}) must be text: one name per field, separated by commas")
    names = tuple(n.strip() for n in names)
    if not names or len(names) > constraints.MAX_COLUMNS or any(not n or len(n) > 255 for n in names):
        raise ParameterError(
            f"column names must be 1 to {constraints.MAX_COLUMNS:,} names of 1 to 255 characters, separated by "
            "commas (one is empty: two commas in a row, or one at the end?)"
        )
    twice = next((n for i, n in enumerate(names) if n in names[:i]), None)  # names differing in case are two names
    if twice is not None:
        raise ParameterError(f"column name '{twice}' is given twice; each field needs its own name")
    if header_rows not in (None, 0):
        raise ParameterError(
            f"column names are given for a file without a header line, but the header is said to span {header_rows} "
            "rows: give one or the other"
        )
    return names, 0


def names_text(names, sep: str = ", ") -> str:
    """Column names as text that :func:`check_names` reads back as them: separated by ``sep``, a name holding a comma
    or a double quote in double quotes (its quotes doubled), as a CSV writes it.

    >>> names_text(["age", "Income, annual"])
    'age, "Income, annual"'
    >>> check_names(names_text(["age", "Income, annual", 'Rate "A"']), 0)[0]
    ('age', 'Income, annual', 'Rate "A"')
    """
    quote = '"'
    return sep.join(f"{quote}{n.replace(quote, quote * 2)}{quote}" if "," in n or quote in n else n for n in names)
