"""Exceptions the core raises for bad input. Each message names the problem and how to fix it."""

from __future__ import annotations


class DPSynthError(ValueError):
    """Base class: a problem with the user's input, shown to them as a one-line message.

    Attributes:
        problems: every problem found, one message each (the message names them all, up to
            ``constraints.MAX_PROBLEMS_SHOWN``).
    """

    def __init__(self, message: str, problems=None):
        super().__init__(message)
        self.problems = tuple(problems) if problems is not None else (message,)

    @classmethod
    def from_problems(cls, problems) -> DPSynthError:
        """One error naming every problem in ``problems`` on one line."""
        from .constraints import MAX_PROBLEMS_SHOWN

        problems = [" ".join(str(p).split("\n")) for p in problems]
        lines = _grouped(problems)
        shown = "; ".join(lines[:MAX_PROBLEMS_SHOWN])
        if len(lines) > MAX_PROBLEMS_SHOWN:
            shown += f"; and {len(lines) - MAX_PROBLEMS_SHOWN:,} more problems of the same kinds"
        if len(problems) > 1:
            shown = f"{len(problems)} problems: {shown}"
        return cls(shown, problems)


def _grouped(problems: list) -> list:
    """``problems`` with those that say the same of several columns (``column 'a': ...``) said once, naming the
    columns (``columns 'a', 'b', each: ...``: the message speaks of one column, "its values", "drop the column"), in
    the order each was first found.

    >>> _grouped(["column 'a': its values are not declared", "column 'b': its values are not declared", "x"])
    ["columns 'a', 'b', each: its values are not declared", 'x']
    """
    said: dict = {}
    for problem in problems:
        name, sep, rest = problem.partition("': ")
        key = rest if sep and name.startswith("column '") else problem
        said.setdefault(key, []).append(name.removeprefix("column '") if key is rest else None)
    out = []
    for key, names in said.items():
        if names[0] is None or len(names) == 1:
            out.extend([key] * len(names) if names[0] is None else [f"column '{names[0]}': {key}"])
        else:
            out.append("columns " + ", ".join(f"'{n}'" for n in names) + f", each: {key}")
    return out


class DomainError(DPSynthError):
    """A domain declaration is incomplete or inconsistent."""


class DataError(DPSynthError):
    """A data file cannot be read or does not match its declaration."""


class ParameterError(DPSynthError):
    """A privacy or method parameter is outside its allowed range."""
