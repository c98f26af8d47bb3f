"""Validation of user-supplied parameters, with messages that name the value and the allowed range."""

from __future__ import annotations

import math

from .errors import ParameterError


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Return epsilon as a float, or raise if it is not a finite number > 0."""
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} ({epsilon!r}) must be a number > 0") from None
    if not math.isfinite(value) or value <= 0:
        raise ParameterError(f"{name} ({epsilon}) must be a finite number > 0")
    return value


def check_rho(rho) -> float:
    """Return rho as a float, or raise if it is not strictly between 0 and 1."""
    try:
        value = float(rho)
    except (TypeError, ValueError):
        raise ParameterError(f"rho ({rho!r}) must be a number in (0, 1)") from None
    if not 0.0 < value < 1.0:
        raise ParameterError(f"rho ({rho}) must be in (0, 1), exclusive")
    return value


def check_rows(rows) -> int | None:
    """Return a requested row count as an int (None stays None), or raise if it is not >= 1."""
    if rows is None:
        return None
    try:
        value = int(rows)
    except (TypeError, ValueError):
        raise ParameterError(f"rows ({rows!r}) must be a whole number >= 1") from None
    if value != rows and not (isinstance(rows, str) and str(value) == rows.strip()):
        raise ParameterError(f"rows ({rows}) must be a whole number >= 1")
    if value < 1:
        raise ParameterError(f"rows ({rows}) must be >= 1")
    return value


def check_domain_size(size) -> int:
    """Return a domain size as an exact int >= 1."""
    if isinstance(size, bool) or not isinstance(size, int):
        if isinstance(size, float) and size.is_integer():
            size = int(size)
        elif isinstance(size, str) and size.strip().isdigit():
            size = int(size.strip())
        else:
            raise ParameterError(f"domain size ({size!r}) must be a whole number >= 1")
    if size < 1:
        raise ParameterError(f"domain size ({size}) must be >= 1")
    return size
