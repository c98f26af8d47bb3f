"""The publisher-only measures of a release the Preview and Releases pages show, in JSON form.

Each compares the synthetic table with the real one, so none is differentially private and none
enters a release; the pages say so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import metrics

#: The measures by name, in the order the pages offer them.
MEASURES = ("fidelity", "one_way", "two_way", "game")
#: Records of each kind the distinguishing game samples (a subsample keeps it to about a second).
GAME_RECORDS = 3000
#: Each measure's one-number summary, named with how to read it (the Releases page's rows).
HEADLINES = {
    "fidelity": "mean fidelity F (1 = same values kept)",
    "one_way": "mean 1-way distance (0 = identical)",
    "two_way": "mean 2-way distance (0 = identical)",
    "game": "distinguishing game accuracy (50% = a coin flip)",
}


def measure(name: str, pairs: dict, report=lambda done, message: None) -> dict | list:
    """One measure over both tables' declared cells (``pairs`` from :func:`metrics.paired_codes`),
    as plain JSON values: "fidelity", "one_way", "two_way" or "game"."""
    if name == "fidelity":
        return metrics.fidelity_by_column(pairs)
    if name == "one_way":
        return metrics.one_way_distances(pairs)
    if name == "two_way":
        report(0.4, f"Comparing {len(pairs) * (len(pairs) - 1) // 2:,} pairs of columns")
        matrix = metrics.two_way_distances(pairs)
        return {"columns": list(matrix.columns), "values": matrix.to_numpy().tolist()}
    if name != "game":
        raise ValueError(f"unknown measure {name!r} (one of {', '.join(MEASURES)})")
    first = next(iter(pairs.values()), None)
    size = min(GAME_RECORDS, len(first.real), len(first.synthetic)) if first is not None else 0
    report(0.3, f"Training a classifier on {size:,} real and {size:,} synthetic records")
    game = metrics.distinguishing_game(pairs, max_records=GAME_RECORDS)
    return {
        "accuracy": game.accuracy,
        "low": game.low,
        "high": game.high,
        "test_records": game.test_records,
        "classifier": game.classifier,
        "records": size,
    }


def headlines(measures: dict) -> dict:
    """The measures computed so far (name -> :func:`measure`'s value), one formatted number each,
    keyed by :data:`HEADLINES`' names."""
    out = {}
    if "fidelity" in measures:
        out[HEADLINES["fidelity"]] = f"{np.mean(list(measures['fidelity'].values())):.3f}"
    if "one_way" in measures:
        out[HEADLINES["one_way"]] = f"{np.mean(list(measures['one_way'].values())):.3f}"
    if "two_way" in measures:
        values = np.array(measures["two_way"]["values"], dtype=float)
        upper = values[np.triu_indices(len(values), 1)]
        out[HEADLINES["two_way"]] = f"{upper.mean():.3f}" if upper.size else ""
    if "game" in measures and measures["game"]["test_records"]:
        out[HEADLINES["game"]] = f"{measures['game']['accuracy']:.0%}"
    return out


def _share(filled: float, cells: int) -> str:
    """The share ``filled`` of a column's ``cells`` that are filled, in words that never round a missing cell away:
    "1.0%", "all but 3"."""
    said = f"{100 * filled:.1f}%"
    return f"all but {round((1 - filled) * cells):,}" if said == "100.0%" else said


def dominant_values_in_data(real, synthetic, domain) -> list[str]:
    """For the publisher only (it reads the real data): each free-text column whose commonest synthetic value
    fills at least :data:`~dpsynth_core.constraints.DOMINANT_VALUE_SHARE` of its cells that are not missing,
    and whether that value is in any real record (made up when it is not), in plain words. A real record's value
    is read as a release writes it (:func:`~dpsynth_core.data.encoding.encode_column`): an English word in lower
    case, any string as its public pseudonym ``value-N``, so a released pseudonym of a real value is no made-up one.
    A missing cell is none, written as the file writes it (a release read back from the workspace: empty texts)."""
    from ..data.encoding import encode_column
    from ..release.dominance import FEW_OUT, dominant_in_counts, shown

    out = []
    for name, column in domain.kept.items():
        if column.kind != "text" or name not in synthetic or name not in real:
            continue
        cells = synthetic[name].dropna().astype(str)  # a release read back from its file: missing cells as ''
        counts = cells.mask(cells.isin(domain.missing_markers)).dropna().value_counts()  # the commonest, runners-up
        found = dominant_in_counts(counts)
        if found is None:
            continue
        value, top, share = found
        texts = pd.Series(encode_column(column, real[name], domain.missing_markers).labels, dtype=object)
        held = int((texts == value).sum())
        others = (counts / counts.sum()).iloc[1:FEW_OUT]
        others = others[(others >= 0.01) & ~others.index.isin(texts)]  # a made-up runner-up (the data hashed once)
        filled = counts.sum() / max(len(synthetic), 1)  # the share is of the filled cells
        where = (
            f"of the column '{name}'"
            if filled >= 1
            else f"of the filled cells ({_share(filled, len(synthetic))}) of '{name}'"
        )
        nothing = "This column holds" if filled >= 1 else "Its filled cells hold"
        if len(counts) == 1 and value == column.label_at(0):  # no value came out: the placeholder, fixed in advance
            said = "it is the placeholder a release shows when no value of the column comes out, fixed in advance: " + (
                f"in none of your records. {nothing} no information about your data."
                if held == 0
                else f"that {held:,} of your records are written so too says nothing of them."
            )
        elif held == 0:
            said = f"it is in none of your records: a made-up value. {nothing} no information about your data."
        else:
            said = f"it is in {held:,} of your records ({100 * held / max(len(real), 1):.1f}%)."
        out.append(
            f"For your eyes only: '{top}' fills {100 * share:.1f}% {where}, and {said}"
            + "".join(
                f" '{shown(v)}' ({100 * c:.1f}%) is in none of your records: a made-up value."
                for v, c in others.items()
            )
        )
    return out
