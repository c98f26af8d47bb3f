"""What a method takes: each publisher-facing option with its default, its range and its check.

A method lists its options (:attr:`Synthesizer.options`); :func:`dpsynth_core.release.synthesize`
checks them with the method's own specs (once), the CLI builds its flags from them, and the app
shows the ones it has widgets for. Options a method takes only from Python (its advanced
keyword arguments, such as ``k`` for the plausible-deniability test) are checked by the method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .. import constraints
from ..errors import ParameterError
from ..validation import check_delta


@dataclass(frozen=True)
class Option:
    """One publisher-facing option of a method.

    Attributes:
        name: the keyword of the method and of ``synthesize``.
        flag: the command line's flag (``--group``); repeated when ``repeat``.
        help: one line for the CLI's help and the app.
        default: its default (None: the rule ``default_words`` states).
        default_words: the default in words.
        check: value -> checked value (raises :class:`ParameterError` naming the value and the range).
        parse: the command line's text -> value (before ``check``).
        repeat: the flag may be given several times (the values form a list).
    """

    name: str
    flag: str
    help: str
    check: Callable
    default: object = None
    default_words: str = ""
    parse: Callable = str
    repeat: bool = False


def check_groups(groups):
    """Column groups must be a list of lists of column names (their meaning is checked by the method)."""
    if groups is None:
        return None
    rule = "a list of column groups, each a list of column names"
    if isinstance(groups, (str, bytes)) or not isinstance(groups, (list, tuple)) or len(groups) > 10_000:
        raise ParameterError(f"groups must be {rule}")
    out = []
    for group in groups:
        if isinstance(group, (str, bytes)) or not isinstance(group, (list, tuple)) or \
                not all(isinstance(c, str) for c in group) or not 1 <= len(group) <= constraints.MAX_COLUMNS:
            raise ParameterError(f"groups must be {rule}; {str(group)[:60]!r} is not")
        out.append(tuple(group))
    return out


def parse_group(text: str) -> tuple:
    """``"A, B"`` -> ``("A", "B")`` (the command line's form of one group)."""
    return tuple(c.strip() for c in text.split(",") if c.strip())


def groups_option(help: str) -> Option:
    return Option("groups", "--group", help, check_groups, default=None, default_words="none",
                  parse=parse_group, repeat=True)


def _delta(value):
    return None if value is None else check_delta(value, "delta")


DELTA = Option("delta", "--delta",
               f"delta, from 0 to {constraints.DELTA_MAX:g} (0: pure epsilon-DP)", _delta, default=None,
               default_words=f"{constraints.DELTA_DEFAULT:g}, a public constant")
