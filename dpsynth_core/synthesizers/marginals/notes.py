"""The release card's note on declared values that came out although the noise could not tell their counts from zero.

At a small epsilon or on a small table a category's noisy count carries tens of records of noise: a declared value
that no record holds (an airport none of the rows has) and a real value held by a few records (an occupation of 20)
cannot be told apart. The model's support (:func:`dpsynth_core.pgm.support_from`) cuts such values while the records
it would lose stay few and keeps the rest, so that a noisy column does not come out as its commonest value alone;
a value kept so may hold no record. The card names the values that came out that way, with their share of the
synthetic rows and how many records a value needs to stand clear of the noise, so that a reader does not take
them for facts of the data. Read from the noisy measurements, the support and the model only (post-processing of
DP output) and from the declaration: the note may leave the app.
"""

from __future__ import annotations

import numpy as np

from ...pgm.support import EMPTY_Z, clear_count, noise_level_cells, pooled_counts, range_cells

#: A value is named when the model gives it at least this share of the rows (a smaller share is a row or two).
NOISE_NOTE_SHARE = 0.001
#: Most columns the note names, and most values per column (the rest are counted).
NOTE_COLUMNS = 5
NOTE_VALUES = 3


def noise_level_values(columns: dict, cells: dict, measurements: list, support: dict, model) -> dict:
    """Column -> ``([(share of the rows, value), ...] by share, records a value needs to stand clear)`` for the
    declared values (categories, the "missing" cell) that ``support`` keeps although their pooled noisy counts
    stay below the support test's threshold (:func:`~dpsynth_core.pgm.support.noise_level_cells`), each with at
    least :data:`NOISE_NOTE_SHARE` of the model's rows. ``columns``: the method's
    :class:`~dpsynth_core.synthesizers.finite.FiniteColumn` by name; text columns (whose values CatHist chose)
    are left out, as the support leaves them."""
    estimates = pooled_counts(cells, measurements)
    ordered, _ = range_cells(columns)
    out = {}
    for name, codes in noise_level_cells(estimates, support, EMPTY_Z, ordered).items():
        column = columns.get(name)
        if column is None or column.domain.kind == "text":
            continue
        counts = np.maximum(np.asarray(model.project((name,)), dtype=float), 0.0)
        shares = counts / max(float(counts.sum()), 1e-12)
        named = sorted(
            ((float(shares[c]), _value(column, c)) for c in codes if shares[c] >= NOISE_NOTE_SHARE), key=_by_share
        )
        if named:
            out[name] = (named, clear_count(EMPTY_Z, cells[name], estimates[name][1]))
    return out


def noise_level_note(found: dict) -> list[str]:
    """The card's sentence for :func:`noise_level_values`' ``found`` (empty when nothing is found): the values by
    column, at most :data:`NOTE_VALUES` in each of at most :data:`NOTE_COLUMNS` columns, the rest counted."""
    if not found:
        return []
    total = sum(len(named) for named, _ in found.values())
    parts = []
    for name, (named, clear) in list(found.items())[:NOTE_COLUMNS]:
        values = ", ".join(f"'{value}' {share:.1%}" for share, value in named[:NOTE_VALUES])
        more = f" and {len(named) - NOTE_VALUES} more" if len(named) > NOTE_VALUES else ""
        parts.append(f"{name} (clear above about {clear:,.0f} records): {values}{more}")
    rest = list(found.values())[NOTE_COLUMNS:]
    if rest:
        count = sum(len(named) for named, _ in rest)
        parts.append(f"and {count} value{_s(count)} of {len(rest)} more column{_s(len(rest))}")
    one = total == 1
    said = (
        f"{total} declared value{_s(total)} came out although the noise could not tell "
        f"{'its count' if one else 'their counts'} from zero, so {'it' if one else 'each'} may hold no real record "
        f"(and real values as rare may have been left out); the share of rows {'it' if one else 'each'} came out with: "
    )
    return [said + "; ".join(parts) + "."]


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def noise_level_notes(synth) -> list[str]:
    """:func:`noise_level_note` for a fitted :class:`~.synthesizer.MarginalsSynthesizer` (its final measurements,
    support and model)."""
    measured = synth.blocks_.collapsed(synth.measurements_)
    return noise_level_note(noise_level_values(synth.columns_, synth.cells_, measured, synth.support_, synth.model_))


def _value(column, code: int) -> str:
    """A cell's declared value as the note names it ("missing" for the missing cell)."""
    values = getattr(column.domain, "values", None)
    return str(values[code]) if values is not None and code < len(values) else "(missing)"


def _by_share(item) -> tuple:
    return (-item[0], item[1])
