"""What a draw takes: each publisher-facing option with its default, its range and its check.

:data:`SETTINGS` are the settings every draw takes (epsilon, rho, rows, seed); a method lists its
own options (:attr:`Synthesizer.options`), each one of :data:`METHOD_OPTIONS`.
:func:`dpsynth_core.release.prepare` checks them all, once; the command line builds its flags, their
defaults and help from these descriptions (this module loads no method and no numerical library),
and the app shows the ones it has widgets for. Options a method takes only from Python (its
advanced keyword arguments, such as ``k`` for the plausible-deniability test) are checked by the method.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import constraints
from ..errors import ParameterError
from ..validation import check_delta, check_publisher_rho, check_rows, check_seed, check_total_epsilon
from ..wording import format_delta, line_values


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
        required: the command line needs it.
        metavar: how the command line's help shows its value.
    """

    name: str
    flag: str
    help: str
    check: Callable
    default: object = None
    default_words: str = ""
    parse: Callable = str
    repeat: bool = False
    required: bool = False
    metavar: str | None = None

    @property
    def help_text(self) -> str:
        """The command line's help: the line, then the default in words."""
        return self.help + (f" (default: {self.default_words})" if self.default_words else "")


def check_groups(groups):
    """Column groups must be a list of lists of column names (their meaning is checked by the method)."""
    if groups is None:
        return None
    rule = "a list of column groups, each a list of column names"
    if isinstance(groups, (str, bytes)) or not isinstance(groups, (list, tuple)) or len(groups) > 10_000:
        raise ParameterError(f"groups must be {rule}")
    out = []
    for group in groups:
        if (
            isinstance(group, (str, bytes))
            or not isinstance(group, (list, tuple))
            or not all(isinstance(c, str) for c in group)
            or not 1 <= len(group) <= constraints.MAX_COLUMNS
        ):
            raise ParameterError(f"groups must be {rule}; {str(group)[:60]!r} is not")
        out.append(tuple(group))
    return out


def parse_group(text: str) -> tuple:
    """``"A, B"`` -> ``("A", "B")`` (the command line's form of one group; a name holding a comma in double quotes:
    :func:`~dpsynth_core.wording.line_values`)."""
    return tuple(c.strip() for c in line_values(text) if c.strip())


def groups_option(help: str) -> Option:
    return Option(
        "groups",
        "--group",
        help,
        check_groups,
        default=None,
        default_words="none",
        parse=parse_group,
        repeat=True,
        metavar="A,B[,C]",
    )


def _delta(value):
    return None if value is None else check_delta(value, "delta")


def delta_of(value) -> float:
    """The delta a release states: the publisher's (checked), else the public default."""
    return constraints.DELTA_DEFAULT if value is None else check_delta(value, "delta")


DELTA = Option(
    "delta",
    "--delta",
    f"delta, from 0 to {constraints.DELTA_MAX:g} (0: pure epsilon-DP)",
    _delta,
    default=None,
    default_words=f"{constraints.DELTA_DEFAULT:g}, a public constant",
)

#: Every option a method may take, as the command line offers it (a method's own description may
#: word its help for that method; its name, flag and parsing are these).
METHOD_OPTIONS = (groups_option("a column group, for the methods that take groups (repeatable; see 'methods')"), DELTA)

#: The settings of every draw (the keywords of :func:`~dpsynth_core.release.synthesize`).
EPSILON = Option(
    "epsilon",
    "--epsilon",
    f"total privacy budget, from {constraints.EPSILON_MIN:g} to {constraints.EPSILON_MAX:g}",
    check_total_epsilon,
    required=True,
)
RHO = Option(
    "rho",
    "--rho",
    f"tolerance for randomness, from {constraints.RHO_MIN:g} to {constraints.RHO_MAX:g}: "
    "the chance a column has no made-up value",
    check_publisher_rho,
    default=constraints.RHO_DEFAULT,
    default_words=f"{constraints.RHO_DEFAULT:g}",
)
ROWS = Option(
    "rows",
    "--rows",
    f"a public number of synthetic rows, 1 to {constraints.MAX_ENGINE_SYNTHETIC_ROWS:,} "
    f"in a file ({constraints.MAX_SYNTHETIC_ROWS:,} in memory), written in chunks whatever the engine",
    check_rows,
    default_words="the true count plus noise, or the method's own public number",
    metavar="N",
)
SEED = Option(
    "random_state",
    "--seed",
    "seed for a repeatable run (tests and teaching only): the release is then not "
    "private, its card claims no epsilon and the ledger records no guarantee",
    check_seed,
    default_words="a fresh seed from the operating system",
    metavar="SEED",
)
SETTINGS = (EPSILON, RHO, ROWS, SEED)


def delta_rule(given, delta: float) -> str:
    """Where a release's delta came from, for the card."""
    if not delta:
        return "pure epsilon-DP (delta = 0)"
    if given is not None:
        return "chosen by the publisher"
    return (
        f"a public constant: the largest power of ten at most 1/n^2 for tables of up to "
        f"{constraints.DELTA_DEFAULT_RECORDS:,} records"
    )


def delta_note(delta: float, rows_each: int = 1) -> tuple[str, str]:
    """What a release's delta means, for the Privacy page: ``(level, text)``; with ``rows_each`` rows per person (a
    person unit), the delta is said to be each row's (the planning note adds the person's)."""
    if not delta:
        return (
            "info",
            "**δ (delta) = 0: pure ε-DP.** Every measurement gets discrete Laplace noise and the "
            "parts add up to the ε you chose. The pairs of columns to measure are chosen privately, "
            "in rounds, when you generate; the bars show each part's share of the budget.",
        )
    return (
        "info",
        f"**δ (delta) = {format_delta(delta)}{'' if rows_each == 1 else ' for each row'}.** This method adds Gaussian"
        " noise, whose guarantee is stated with a second number: δ is the chance, allowed by the method, that the ε "
        f"{'above' if rows_each == 1 else 'of a row'} does not hold. It "
        "is fixed in advance by a public rule, the largest power of ten at most 1 / (number of "
        f"records)² for tables of up to {constraints.DELTA_DEFAULT_RECORDS:,} records, so it stands "
        "for an event too unlikely to expect, not for a share of the people in the data. The budget "
        "is spent exactly: the release card states the ε you chose. The pairs of columns to measure "
        "are chosen privately, in rounds, when you generate; the bars show each part's share of "
        "the budget.",
    )
