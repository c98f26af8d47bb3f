"""Exceptions the core raises for bad input. Each message names the problem and how to fix it."""


class DPSynthError(ValueError):
    """Base class: a problem with the user's input, shown to them as a one-line message."""


class DomainError(DPSynthError):
    """A domain declaration is incomplete or inconsistent."""


class DataError(DPSynthError):
    """A data file cannot be read or does not match its declaration."""


class ParameterError(DPSynthError):
    """A privacy or method parameter is outside its allowed range."""
