"""Which columns' values changed shape, in plain words, worst first: the Preview's warning, the stakeholder
report's summary and the command line's list (the sentences themselves: :mod:`.values`).

On a wide table most columns can change shape a little (a 32-column table of 1,787 rows at epsilon 1 gave 33
sentences), and a warning listing them all pushes every chart off the screen; so the warning names the sentences of
the :data:`SHAPE_SHOWN` columns that changed most and the others by name. Each column's full figures stay in the
value table beside the warning.
"""

from __future__ import annotations

from collections.abc import Callable

from ..wording import counted

#: The Preview's warning and the report's summary give the sentences of at most this many columns, worst first.
SHAPE_SHOWN = 6
#: ... and name at most this many of the other columns that changed shape.
NAMES_SHOWN = 12


def shape_warnings(summaries: dict) -> list[str]:
    """Every plain sentence of :func:`.values.value_summaries`, column by column (the command line's list)."""
    return [sentence for summary in summaries.values() for sentence in summary.get("shape", [])]


def worst_shapes(
    summaries: dict, gap: Callable[[dict], float], *, shown: int = SHAPE_SHOWN
) -> tuple[list[str], list[str]]:
    """The sentences of the ``shown`` columns of ``summaries`` (name -> a summary with its ``shape`` sentences)
    that changed shape most, largest ``gap(summary)`` first (ties in table order), and the names of the other
    columns that changed shape, in table order.

    >>> summaries = {"a": {"shape": ["a: moved"], "g": 0.1}, "b": {"shape": []}, "c": {"shape": ["c: moved"], "g": 0.3}}
    >>> worst_shapes(summaries, lambda s: s["g"], shown=1)
    (['c: moved'], ['a'])
    """
    changed = [name for name, summary in summaries.items() if summary.get("shape")]
    ranked = sorted(changed, key=lambda name: -gap(summaries[name]))[:shown]
    return [s for name in ranked for s in summaries[name]["shape"]], [n for n in changed if n not in ranked]


def more_columns(names: list[str], *, shown: int = NAMES_SHOWN) -> str:
    """The other columns that changed shape, in words (empty for none).

    >>> more_columns(["age", "bmi"]), more_columns(list("abcd"), shown=2)
    ('2 more columns: age, bmi', '4 more columns: a, b and 2 others')
    """
    if not names:
        return ""
    listed = ", ".join(names[:shown]) + (f" and {len(names) - shown:,} others" if len(names) > shown else "")
    return f"{counted(len(names), 'more column')}: {listed}"


def unfilled_sentence(name: str, real: float, synthetic: float) -> str:
    """The sentence for a numeric or date column one table of which holds no value, with the share of the other's
    rows that do (``real`` and ``synthetic``: the shares filled, one of them 0): its values have no distribution
    to compare, where a gap of 100% between distribution functions said nothing (ADSL's date of informed consent,
    empty in every record, drawn in 6% of the synthetic rows).

    >>> unfilled_sentence("RFICDTC", 0.0, 0.063)
    'RFICDTC: no real row holds a value, where 6.3% of the synthetic rows do'
    """
    share, which, empty = (synthetic, "synthetic", "real") if synthetic else (real, "real", "synthetic")
    return f"{name}: no {empty} row holds a value, where {share:.1%} of the {which} rows do"
