"""A free-text column filled by one synthetic value: the card's note (a made-up value or the placeholder can fill a
column when no real value comes out); a list of categories that came out as one value alone.

Read from the synthetic output and public facts only, so the note may leave the app: the table held in memory,
or a :class:`TextTally` of a release written in chunks.
"""

from __future__ import annotations

from .. import constraints
from ..wording import counted


def dominant_value(cells) -> tuple[str, str, float] | None:
    """``(value, value as shown, share)`` of a synthetic column's commonest value when it fills at least
    :data:`~dpsynth_core.constraints.DOMINANT_VALUE_SHARE` of the cells that are not missing, else None."""
    return dominant_in_counts(cells.dropna().value_counts())


def dominant_in_counts(counts, at_least: float = constraints.DOMINANT_VALUE_SHARE) -> tuple[str, str, float] | None:
    """:func:`dominant_value` from the counts of a column's values that are not missing (a pandas Series), the
    commonest filling at least ``at_least`` of them."""
    total = float(counts.sum()) if counts is not None else 0.0
    if total <= 0:
        return None
    top = counts.idxmax()
    value, share = str(top), float(counts[top]) / total
    if share < at_least:
        return None
    return value, shown(value), share


def shown(value: str) -> str:
    """A synthetic value as a note shows it: at most 30 characters (a made-up string may run to any length)."""
    return value if len(value) <= 30 else f"{value[:30]}…"


#: A dominated free-text column of at most this many values out has each of them named, with its share, on the card:
#: a made-up value need not be the commonest (a species column of 241 real names declared as any string of up to 40
#: letters: 'UNKNOWN BIRD - SMALL', real, 67% of the rows, and a made-up 40-letter string 33%).
FEW_OUT = 5


def _leading(counts, k: int) -> list[tuple[str, float]]:
    """The ``k`` commonest values of a column's counts (not missing), as shown (at most 30 characters), with their
    shares."""
    total = float(counts.sum())
    top = counts.sort_values(ascending=False, kind="stable").head(k)
    return [(shown(v), float(c) / total) for v, c in zip(map(str, top.index), top)]


class TextTally:
    """Running counts of free-text columns' synthetic values, chunk by chunk, so that the card's
    :func:`dominance_notes` read a release written in chunks as they read one held in memory. Reads only the
    synthetic output (pandas or Arrow chunks)."""

    def __init__(self, names):
        self.counts = {name: None for name in names}

    def add(self, chunk) -> None:
        """Count the values (not missing) of each tallied column in ``chunk`` (counted first, then named as
        text: a chunk's cells are never converted one by one)."""
        columns = chunk.column_names if hasattr(chunk, "column_names") else chunk.columns
        for name in self.counts:
            if name in columns:
                counts = _value_counts(chunk[name])
                before = self.counts[name]
                self.counts[name] = counts if before is None else before.add(counts, fill_value=0)

    def dominant(self, name) -> tuple[str, str, float] | None:
        return dominant_in_counts(self.counts.get(name))


def _value_counts(cells):
    """Counts of the values of a pandas or Arrow column that are not missing, indexed by the values as text."""
    import pandas as pd

    if hasattr(cells, "to_pandas"):  # Arrow: counted by Arrow (dictionary text stays coded)
        import pyarrow.compute as pc

        found = pc.value_counts(cells)
        values, counts = found.field("values").to_pylist(), found.field("counts").to_numpy()
    else:
        found = cells.value_counts(dropna=True)
        values, counts = list(found.index), found.to_numpy()
    kept = [(str(v), c) for v, c in zip(values, counts) if v is not None and v == v]
    return pd.Series([c for _, c in kept], index=[v for v, _ in kept], dtype="int64").groupby(level=0).sum()


def dominance_notes(synthetic, facts: dict) -> list[str]:
    """Plain sentences for the card, read from the synthetic output: a free-text column whose commonest value
    fills at least :data:`~dpsynth_core.constraints.DOMINANT_VALUE_SHARE` of its cells that are not missing
    (a made-up value or the placeholder, when no real value came out); ``synthetic``: the table, or the
    :class:`TextTally` of a release written in chunks. ``facts``: each text column's public
    facts (:meth:`~dpsynth_core.synthesizers.base.Synthesizer.text_facts`). A column of which no value came out
    at all is left to the method's own note (the placeholder fills it). Reads nothing but the synthetic
    table and public facts, so it may leave the app."""
    notes = []
    for name, fact in facts.items():
        if isinstance(synthetic, TextTally):
            counts = synthetic.counts.get(name)
        elif synthetic is None or name not in synthetic:
            continue
        else:
            counts = _value_counts(synthetic[name])  # once: the commonest and, for a few, each one
        found = dominant_in_counts(counts) if fact["values_out"] else None
        if found is None:
            continue
        _, value, share = found
        words = (
            f"One value, '{value}', fills {100 * share:.1f}% of the cells of the free-text column '{name}' that "
            "are not missing"
        )
        if fact["values_out"] == 1 and fact["needed"] is not None:
            words += (
                f". It is the only value of this column that came out of its noisy count, and at ε = "
                f"{fact['epsilon']:.3g} a real value needed about {fact['needed']:,} records to come out: unless one "
                "real value is that common, it is a made-up value (in no record) and this column says nothing "
                "about the data."
            )
        elif fact["values_out"] <= FEW_OUT:  # each named: a made-up one need not be the commonest
            shares = ", ".join(f"'{v}' {100 * c:.1f}%" for v, c in _leading(counts, FEW_OUT))
            needed = fact.get("needed")
            words += (
                f": only {fact['values_out']:,} values of this column came out of its noisy count ({shares}), and "
                "any of them may be made up (in no record)"
                + (
                    f": at ε = {fact['epsilon']:.3g} a real value needed about {needed:,} records to come out"
                    if needed is not None
                    else ""
                )
                + ". Read this column with care."
            )
        else:
            words += (
                f": only {counted(fact['values_out'], 'value')} of this column came out of its noisy count, and this "
                "one may be made up (in no record). Read this column with care."
            )
        notes.append(words)
    return notes


def single_value_notes(synthetic, domain) -> list[str]:
    """Plain sentences for the card, read from the synthetic output: each kept list of at least three declared
    categories one value of which fills at least :data:`~dpsynth_core.constraints.SINGLE_VALUE_SHARE` of its
    synthetic cells that are not missing (``synthetic``: the table, or the :class:`TextTally` of a release written
    in chunks, tallying these columns too). Either the records hold little else, or the noisy counts could tell no
    other value from empty; the sentence says both, since only the synthetic table and the declaration are read,
    so it may leave the app."""
    notes = []
    for name, column in domain.kept.items():
        declared = len(getattr(column, "values", ()) or ())
        if column.kind != "categorical" or declared < 3:
            continue
        if isinstance(synthetic, TextTally):
            counts = synthetic.counts.get(name)
        elif synthetic is not None and name in synthetic:
            counts = _value_counts(synthetic[name])
        else:
            continue
        found = dominant_in_counts(counts, constraints.SINGLE_VALUE_SHARE)
        if found is None:
            continue
        _, shown, share = found
        notes.append(
            f"One value, '{shown}', fills {100 * share:.1f}% of the cells of the column '{name}' that "
            f"are not missing, of its {declared:,} declared values. Either the records hold little else, or at this "
            "ε the noisy counts could tell no other value from empty: read this column with care (more budget, "
            "fewer columns or more records let more values through)."
        )
    return notes
