"""A fitted column's first 1-way with each heavy bin at the data's edge counted in halves.

A column's adaptive bins (:mod:`dpsynth_core.privacy.binning`) stop where their tree's noisy counts stop telling
pieces apart, so a wide bin at the data's edge may hold its records anywhere inside: a season of dates in a bin of
a year, breaches of 500 and up in a bin 1-2,441. The model's 1-way, measured with the main budget, says how many
records the bin holds but not where. Here that same 1-way is measured as one histogram over a finer partition: each
chosen bin (:func:`chosen_bins`) as its two halves, every other cell whole.

Guarantee: the halves of the chosen bins, the other bins and the missing cell partition the records, so the
histogram has the sensitivity of the whole 1-way (a refinement never raises a record's, or a person's, L1 or L2
contribution), and it is charged exactly as the whole 1-way would be (one discrete Gaussian, or under pure DP discrete
Laplace, histogram at the column's first 1-way parameter). Which bins are chosen is a public function of the
binning's DP output (its pieces' weights) and the noise parameter: nothing is read from the data to choose them.
Everything after the draw is post-processing: the model gets each bin's sum (its deviation the root of the parts
summed times the noise's), and the halves' noisy counts set each half's share of its bin's weight, the binning's shape
kept inside each half. Measured in the sixty-fourth round (docs/benchmarks/history.md).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...data.counting import SortedValues
from ...data.encoding import numeric_value_counts, numeric_values
from ...domain import FloatDomain
from ...pgm import Measurement
from ...privacy.bin_weights import usable_weights
from ...privacy.leaf_cuts import EDGE_DROP
from ...privacy.noise import discrete_laplace_std
from .measurements import measure

#: Parts a chosen bin is counted in; 0 turns the rule off (every bin counted whole, the ablation).
PARTS = 2
#: A chosen bin holds at least this share of the binning's weight ...
PARTS_SHARE = 1 / 12
#: ... and at least this many deviations of the 1-way's noise per part.
PARTS_Z = 4.0


def chosen_bins(bin_lows, bin_highs, piece_lows, weights, deviation: float) -> np.ndarray:
    """Which bins are counted in parts: heavy (:data:`PARTS_SHARE` of the pieces' weight), holding at least two
    pieces of weight, with a neighbour (or the range's end) under :data:`~dpsynth_core.privacy.leaf_cuts.EDGE_DROP` of
    its weight per value (the data's edge), and at least :data:`PARTS_Z` noise deviations per part. Post-processing of
    the binning's DP output; ``bin_highs`` are exclusive.

    >>> chosen_bins(np.array([0, 10, 20]), np.array([10, 20, 30]), np.arange(0, 30, 5), [0, 0, 90, 10, 100, 0], 2.0)
    array([False,  True, False])
    """
    bins = len(bin_lows)
    weights = np.asarray(weights, dtype=float)
    owner = np.searchsorted(bin_lows, piece_lows, side="right") - 1
    mass = np.bincount(owner, weights=weights, minlength=bins)
    chosen = (np.bincount(owner[weights > 0], minlength=bins) >= 2) & (mass >= PARTS_SHARE * mass.sum())
    density = mass / np.maximum((np.asarray(bin_highs) - np.asarray(bin_lows)).astype(float), 1e-300)
    chosen &= np.minimum(np.r_[0.0, density[:-1]], np.r_[density[1:], 0.0]) < EDGE_DROP * density
    return chosen & (mass >= PARTS_Z * deviation * PARTS)


def part_keys(bin_lows, bin_highs, piece_lows) -> tuple[np.ndarray, np.ndarray]:
    """Each piece's bin and part (``bin * PARTS + part``; a piece in the part where its low end lies)."""
    owner = np.searchsorted(bin_lows, piece_lows, side="right") - 1
    width = np.maximum((bin_highs[owner] - bin_lows[owner]).astype(float), 1e-300)
    where = (piece_lows - bin_lows[owner]) / width
    return owner, owner * PARTS + np.minimum((where * PARTS).astype(int), PARTS - 1)


def part_histogram(piece_counts, key, chosen, cells) -> tuple[np.ndarray, np.ndarray]:
    """The histogram measured: the chosen bins' parts holding a piece (in order), then ``cells``' other bins and its
    cells past the bins (the missing cell), whole. Returns it and which parts it holds (a boolean per part)."""
    bins = len(chosen)
    inside = chosen[key // PARTS]
    parts = np.bincount(key[inside], weights=piece_counts[inside], minlength=bins * PARTS)
    used = np.zeros(bins * PARTS, dtype=bool)
    used[np.unique(key[inside])] = True
    cells = np.asarray(cells, dtype=np.int64)
    return np.concatenate([np.rint(parts[used]).astype(np.int64), cells[:bins][~chosen], cells[bins:]]), used


def measure_halves(synth, source, name: str, counts: np.ndarray, noise_param: float) -> bool:
    """Measure ``name``'s 1-way with its chosen bins in parts (its values read from ``source``, the counting source
    ``counts`` came from), as ``synth._measure`` would measure ``counts`` whole (the same charge), and set its pieces'
    weights; False (nothing measured, nothing charged) when the column is not an adaptive range or no bin is
    chosen."""
    column = synth.columns_[name]
    domain, fitted = column.domain, {b.column: b for b in getattr(synth, "bins_", ())}.get(name)
    if not PARTS or getattr(domain, "spread", None) is None or fitted is None or fitted.inside:
        return False
    integer = not isinstance(domain, FloatDomain)
    piece_lows = np.asarray(domain.spread[0], dtype=np.int64 if integer else float)
    old = np.asarray(domain.spread[1], dtype=float)
    if integer:
        bin_lows, bin_highs = domain.lows.astype(np.int64), domain.highs.astype(np.int64) + 1
        top = int(domain.highs[-1])
    else:
        bin_lows, bin_highs, top = domain.all_edges[:-1], domain.all_edges[1:], float(domain.max)
    bins = len(bin_lows)
    deviation = noise_param if synth.zcdp_ else discrete_laplace_std(noise_param)
    chosen = chosen_bins(bin_lows, bin_highs, piece_lows, old, deviation)
    if not chosen.any():
        return False
    raw, weights = source.raw_values(name)
    markers = synth.domain_.missing_markers
    values = (
        SortedValues(numeric_values(domain, raw, markers))
        if weights is None
        else SortedValues(*numeric_value_counts(domain, raw, weights, markers))
    )
    highs = np.append(piece_lows[1:] - (1 if integer else 0), top)
    owner, key = part_keys(bin_lows, bin_highs, piece_lows)
    vector, used = part_histogram(values.count_pieces(piece_lows, highs, top=top, integer=integer), key, chosen, counts)
    label = f"marginal {name} (bins at the data's edge in halves)"
    noisy, sigma = measure(synth.noise_, vector, noise_param, zcdp=synth.zcdp_, label=label)
    cost = 1 / (2 * noise_param**2) if synth.zcdp_ else noise_param
    synth._charge("discrete Gaussian histogram", "discrete Laplace histogram", cost, label)
    noisy, k, whole = noisy.astype(float), int(used.sum()), int((~chosen).sum())
    part_owner = np.flatnonzero(used) // PARTS
    sums, deviations = np.zeros(len(counts)), np.full(len(counts), float(sigma))
    sums[:bins][chosen] = np.bincount(part_owner, weights=noisy[:k], minlength=bins)[chosen]
    sums[:bins][~chosen], sums[bins:] = noisy[k : k + whole], noisy[k + whole :]
    deviations[:bins][chosen] *= np.sqrt(np.bincount(part_owner, minlength=bins)[chosen])
    synth.measurements_.append(Measurement((name,), sums, deviations))
    synth.measured_.append({"marginal": [name], ("sigma" if synth.zcdp_ else "epsilon"): noise_param, "parts": k})
    weights = _weights_in_parts(old, key, chosen, used, noisy[:k])
    synth.columns_[name] = replace(
        column, domain=replace(domain, spread=(tuple(piece_lows.tolist()), tuple(float(w) for w in weights)))
    )
    return True


def _weights_in_parts(old, key, chosen, used, part_noisy) -> np.ndarray:
    """The pieces' weights with each chosen bin's weight shared between its parts by their noisy counts (projected
    onto non-negative shares with the same total, :func:`~dpsynth_core.privacy.bin_weights.usable_weights`), the
    binning's weights kept in proportion inside each part. Post-processing."""
    bins, ids = len(chosen), np.flatnonzero(used)
    share = np.zeros(bins * PARTS)
    firsts = np.unique(ids // PARTS) * float(PARTS)  # each chosen bin's first part: the "bins" the parts share
    share[ids] = usable_weights(ids.astype(float), part_noisy, firsts, float(bins * PARTS), False, by_width=False)
    new, at = old.copy(), np.flatnonzero(chosen[key // PARTS])
    before = np.bincount(key[at], weights=old[at], minlength=bins * PARTS)[key[at]]
    new[at] = np.where(before > 0, old[at] * share[key[at]] / np.where(before > 0, before, 1.0), 0.0)
    return new
