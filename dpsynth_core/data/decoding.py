"""Decoding synthetic codes back to values: a category, or a value drawn inside its bin (through the bin's finer
pieces when the domain carries a DP ``spread``, or falling away from the data in a range's end bin when a method's
model says where the data ends, :func:`end_tilts`); the reverse of :mod:`.encoding`. Nothing here reads data: the
codes are a method's synthetic output, the domain is public or DP output, and so is the model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
from scipy.special import lambertw

from .. import constraints
from ..domain import CategoricalDomain, ColumnDomain, DateDomain, DateTimeDomain, FloatDomain, IntegerDomain
from ..domain.point_masses import point_of_pieces, zero_named
from ..domain.table import gap_domain
from .arrow_chunks import moment_array, moment_type
from .cell_values import quarter_dates

#: The domains whose cells are a range's bins (whole numbers, real numbers, dates), decoded by :func:`_draw_in_bins`.
RANGES = (IntegerDomain, FloatDomain, DateDomain)


def range_bins(domain) -> tuple[np.ndarray, np.ndarray, bool]:
    """A range domain's bins as ``(lows, highs, integer)``: whole numbers and dates (in their steps) by their first
    and last values, real numbers by their edges (a bin ``[low, high)``)."""
    if isinstance(domain, FloatDomain):
        return domain.all_edges[:-1], domain.all_edges[1:], False
    return domain.lows, domain.highs, True


#: The outermost bin of a range that a method's model gives at least ``HELD_RECORDS`` records, at either end, when
#: the declared range goes on past it and its inner neighbour holds more records per value, draws its values from a
#: density falling away from the data (:func:`end_tilts`); False: uniformly (or through its pieces), as any bin (an
#: ablation).
TILTED_ENDS = True
#: ... a bin the model gives fewer records than this holds none for that rule (a cell the noise left a trace in).
HELD_RECORDS = 0.5
#: ... and a bin cut in pieces of their own weights (the domain's ``spread``) only when its records do not stand
#: this many deviations clear of its leaves' noise: pieces weighed by counts that clear say where in it the values lie
#: (adult's fnlwgt 1,000-46,875 at full size, 2,094 records at a deviation of 135); below, they are mostly the
#: noise's (nlme's bdf, codes 25-27 in a bin 25-49: 179 records at 140). The codes benchmark (20 seeds): 5.27% of
#: rows outside at 3, 5.05% at 4; compas's end 939-1,250 (231 records at 64) then takes the law, and compas's rows
#: outside at 1,000 rows rise 0.9 points, its 2-way TVD level. Every bin (an ablation): adult's rows outside at full
#: size 0.02% to 0.23% (its fnlwgt).
PIECES_CLEAR_Z = 4.0
#: An end bin's ``share`` (:func:`end_tilts`) when its inner neighbour is the value beside a whole-number range's
#: named 0 (a one-value bin that :func:`~dpsynth_core.privacy.leaf_cuts.split_beside_zero` cuts out beside the
#: point): that value belongs to 0's spike, so its records per value say nothing of how fast the values beyond it
#: thin out, and the offsets from the inner edge are drawn scale-free instead (:func:`_scale_free_offsets`: each
#: doubling of the distance as likely as the last). compas's days between screening and arrest (-1: 549 records, 0:
#: 229, -311..-2: 166, median -21): by -1's density the whole bin came out at -2, 14% to 20% of a release's rows
#: in 6 of 12 draws, where the data holds 2%.
SCALE_FREE = 0.0


def end_tilts(domain: ColumnDomain, counts, deviations=None, beyond=None) -> list[tuple[int, float, bool]]:
    """The end bins of a range column whose values fall away from the data, as ``(bin, share, outward)``.

    ``counts``: a model's records per cell of ``domain`` (its range's bins first); ``deviations``: per bin, the noise
    deviation of its leaves' counts summed (``inf`` where no whole leaves tile it; None: no leaves). Post-processing
    of DP output. An *end bin* is the outermost bin of the range given at least :data:`HELD_RECORDS` records, at
    either end, when bins of the declared range lie beyond it and its inner neighbour holds more records per value.
    A bin-level model says only how many records fall in it: drawn uniformly, a wide bin that the noise could not
    split (codes 25-27 of a column declared 0-100, in a bin 25-49) sends most of its rows past the data. Its rows
    are drawn instead (:func:`_tilted_ends`) from a truncated geometric (integers, dates) or exponential (real
    numbers) law starting at its inner edge (``outward``: the bin's low edge, the range's top end), whose density
    there is its inner neighbour's (``share``: that density over the bin's count, per value or per unit), so the
    values run on from the data as they thin out. The bin keeps its count. A bin as dense as its neighbour stays
    uniform (or follows its pieces), as does one beside a spike (:data:`~dpsynth_core.constraints.RUN_FACTOR`; or
    a whole-number range's 0 inside it, a point its binning names whatever the data: compas's days between screening
    and arrest, 0 beside 549 records at -1, put a bin 1-5,000 of 47 records at 7-812 all at 1) and
    one whose pieces' counts stand clear of their noise (:data:`PIECES_CLEAR_Z`), which already say where in it the
    values lie. Beside the value next to such a named 0 the share is :data:`SCALE_FREE`. Any other column: none.

    >>> from dpsynth_core.domain import IntegerDomain
    >>> codes = IntegerDomain("code", min=0, max=100, edges=(0, 24, 25, 50))
    >>> [(b, round(s, 3), o) for b, s, o in end_tilts(codes, [400.0, 43.0, 150.0, 0.0])]  # 43 / 150 at 25
    [(2, 0.287, True)]
    """
    if not isinstance(domain, RANGES):
        return []
    lows, highs, integer = range_bins(domain)
    bins = len(lows)
    counts = np.asarray(counts, dtype=float)[:bins]
    held = np.flatnonzero(counts >= HELD_RECORDS)
    if not TILTED_ENDS or held.size < 2:
        return []
    widths = (highs - lows + 1) if integer else (highs - lows)
    pieces, clear = np.zeros(bins, dtype=np.int64), np.zeros(bins, dtype=bool)
    if domain.spread is not None:  # each bin's pieces of positive weight, and whether its records stand clear
        weighted = np.asarray(domain.spread[0])[np.asarray(domain.spread[1], dtype=float) > 0]
        pieces = np.bincount(np.searchsorted(lows, weighted, side="right") - 1, minlength=bins)[:bins]
        if deviations is not None:
            clear = counts >= PIECES_CLEAR_Z * np.asarray(deviations, dtype=float)[:bins]
    tilts = []
    zero_inside = isinstance(domain, IntegerDomain) and zero_named(lows[0], highs[-1])
    for end, inner in ((int(held[-1]), int(held[-2])), (int(held[0]), int(held[1]))):
        outward = end > inner
        far = beyond is not None and bool(np.asarray(beyond)[end])  # a cut tail kept: its leaves found it quiet
        if abs(end - inner) != 1 or (
            not far and (end == (bins - 1 if outward else 0) or (pieces[end] > 1 and clear[end]))
        ):
            continue  # an island beyond a gap, a bin at the declared end (its data may lie anywhere), measured pieces
        further = 2 * inner - end  # the next bin inward
        if not 0 <= further < bins or min(widths[end], widths[inner], widths[further]) <= 0:
            continue  # nothing inward to judge a spike by, or a real special value's point bin among them
        density = counts[inner] / widths[inner]
        spike = density > constraints.RUN_FACTOR * counts[further] / widths[further]
        spike |= zero_inside and widths[inner] == 1 and lows[inner] == 0  # a range's named 0 is a spike's kind
        if density * widths[end] > (1.0 + 1e-9) * counts[end] and not spike:  # denser inside: the values fall away
            beside_zero = zero_inside and widths[inner] == widths[further] == 1 and lows[further] == 0
            tilts.append((end, SCALE_FREE if beside_zero else float(density / counts[end]), outward))
    return tilts


def _tilted_ends(lows, highs, codes: np.ndarray, values: np.ndarray, tilts, noise, integer: bool) -> np.ndarray:
    """``values`` with those of each of ``tilts``' end bins (:func:`end_tilts`) redrawn from its falling law, by
    inverse CDF at uniforms of the release's generator."""
    for end, share, outward in tilts:
        rows = np.flatnonzero(codes == end)
        if not rows.size:
            continue
        u = noise.rng.random(rows.size)
        width = highs[end] - lows[end]
        if share == SCALE_FREE:
            offset = _scale_free_offsets(u, int(width) + 1)
        elif integer:
            offset = _geometric_offsets(u, min(share, 1.0), int(width) + 1)
        else:
            offset = _exponential_offsets(u, share, float(width))
        values[rows] = lows[end] + offset if outward else highs[end] - offset
    return values


def _geometric_offsets(u: np.ndarray, share: float, width: int) -> np.ndarray:
    """Offsets 0 to ``width - 1`` of a geometric law truncated there, ``P(i) ~ r**i``, whose first value's share
    ``(1 - r) / (1 - r**width)`` is ``share`` (between ``1 / width``, uniform, and 1), by inverse CDF at ``u``."""
    if share >= 1.0:
        return np.zeros(u.size, dtype=np.int64)
    low, high = 0.0, 1.0
    for _ in range(60):  # the first value's share falls as r grows
        r = (low + high) / 2
        low, high = (r, high) if (1 - r) / (1 - r**width) > share else (low, r)
    r = (low + high) / 2
    found = np.ceil(np.log1p(-u * (1 - r**width)) / math.log(r)) - 1
    return np.clip(found, 0, width - 1).astype(np.int64)


def _scale_free_offsets(u: np.ndarray, width: int) -> np.ndarray:
    """Offsets 0 to ``width - 1`` whose distance from the edge, counted from 1, is log-uniform on ``[1, width + 1)``:
    ``P(offset >= k) = 1 - log(k + 1) / log(width + 1)``, the law with no scale of its own (the first value
    ``log 2 / log(width + 1)`` of the bin, each doubling of the distance as likely), by inverse CDF at ``u``."""
    found = np.floor(np.exp(u * math.log(width + 1))) - 1
    return np.clip(found, 0, width - 1).astype(np.int64)


def _exponential_offsets(u: np.ndarray, density: float, width: float) -> np.ndarray:
    """Offsets in ``[0, width)`` of an exponential law truncated there whose density at 0 is ``density`` (above
    ``1 / width``, uniform), by inverse CDF at ``u``."""
    decay = decay_for(1.0 / (density * width), most=math.inf)  # its fall over the whole bin
    if not decay > 0:  # as flat as the noise in its closed form can tell: uniform
        return u * width
    rate = decay / width
    found = -np.log1p(u * math.expm1(-decay)) / rate
    return np.minimum(found, np.nextafter(width, 0.0))


def decay_for(ratio: float, most: float = 60.0) -> float:
    """The a > 0 at which (1 - exp(-a)) / a equals ``ratio`` (0 < ratio < 1): an exponential density starting at 1
    and falling by exp(-a) over a unit width holds ``ratio``; at most ``most``. In closed form, with Lambert's W (its
    principal branch; the other gives the root a = 0): a = 1/r + W(-exp(-1/r) / r). The slope of a bin's pieces
    (:mod:`dpsynth_core.privacy.bin_weights`) and the law of a range's end bin (:func:`_exponential_offsets`).

    >>> a = decay_for(0.5); round(a, 4), round(float((1 - np.exp(-a)) / a), 12)
    (1.5936, 0.5)
    """
    inverse = 1.0 / ratio
    return float(min(inverse + lambertw(-np.exp(-inverse) * inverse).real, most))


def _draw_in_bins(lows, highs, spread, codes: np.ndarray, noise, integer: bool) -> np.ndarray:
    """A value inside each code's bin: uniform, or through the bin's finer pieces when ``spread`` is given.

    ``spread = (piece_lows, weights)``: pieces tiling the range (every bin's low is a piece's low); a value picks
    a piece of its bin by weight, then a uniform value inside it, or a real point mass's own value
    (:func:`~dpsynth_core.domain.point_masses.point_of_pieces`). Bins without pieces or weight draw uniformly."""
    if spread is None or codes.size == 0:
        return noise.integers(lows[codes], highs[codes]) if integer else noise.uniform(lows[codes], highs[codes])
    piece_lows, weights = np.asarray(spread[0], dtype=np.int64 if integer else float), np.asarray(spread[1], float)
    top = highs[-1]
    piece_highs = np.append(piece_lows[1:] - 1, top) if integer else np.append(piece_lows[1:], top)
    owner = np.searchsorted(lows, piece_lows, side="right") - 1
    totals = np.bincount(owner, weights=weights, minlength=len(lows))
    within = np.zeros_like(weights)
    positive = totals[owner] > 0
    within[positive] = weights[positive] / totals[owner][positive]
    # cumulative share of every piece within its bin, shifted by the bin's code: bin c's pieces
    # cover (c, c + 1], so c + u with u uniform in [0, 1) lands on a piece of bin c
    first = np.r_[0, np.flatnonzero(owner[1:] != owner[:-1]) + 1]
    last = np.r_[first[1:] - 1, len(owner) - 1]
    running = np.cumsum(within)
    before = np.repeat(np.r_[0.0, running[last[:-1]]], last - first + 1)
    cumulative = owner + np.minimum(running - before, 1.0)
    cumulative[last] = owner[last] + 1.0
    # (the uniforms ``uniform(0, 1)`` draws elementwise, the same numbers without its arrays of bounds)
    piece = np.minimum(_search(cumulative, codes + noise.rng.random(codes.size)), len(piece_lows) - 1)
    low, high = piece_lows[piece], piece_highs[piece]
    uniform = totals[codes] <= 0
    low, high = np.where(uniform, lows[codes], low), np.where(uniform, highs[codes], high)
    if integer:  # a narrow spike at its round number (a locality's 250,000 people), else uniform in its piece
        spans = (piece_lows.astype(float), piece_highs.astype(float) + 1, float(top - piece_lows[0] + 1))
        at = point_of_pieces(*spans, weights, totals[owner], integer=True)
        drawn = noise.integers(low, high)
        if np.isnan(at).all():  # no spike: the uniform draws as they are (a large table's columns, chunk by chunk)
            return drawn
        points = at[piece]
        return np.where(np.isnan(points) | uniform, drawn, points).astype(np.int64)
    span = float(top - piece_lows[0])
    points = point_of_pieces(piece_lows, piece_highs, span, weights, totals[owner])[piece]  # a point mass's value
    return np.where(np.isnan(points) | uniform, noise.uniform(low, high), points)


#: :func:`_search`'s cells per unit: a power of two, so a point's cell and the cells' ends are exact.
_CELLS_PER_UNIT = 1024


def _search(cumulative: np.ndarray, points: np.ndarray) -> np.ndarray:
    """``np.searchsorted(cumulative, points, side="right")`` for points in ``[0, len)`` (``cumulative``
    ascending), the same numbers, through a table over cells of ``1 / 1024``: a point takes its cell's
    answer when no value of ``cumulative`` falls inside the cell, and is searched only otherwise
    (a few in a thousand): the binary search of a million unsorted points is most of a decode."""
    cells = int(np.ceil(points.max() + 1)) * _CELLS_PER_UNIT if points.size else 0
    if cells > 2**24 or cells <= 0:
        return np.searchsorted(cumulative, points, side="right")
    ends = np.arange(cells + 1) / _CELLS_PER_UNIT
    at_start = np.searchsorted(cumulative, ends[:-1], side="right")
    exact = at_start == np.searchsorted(cumulative, ends[1:], side="left")  # nothing in [start, end)
    cell = (points * _CELLS_PER_UNIT).astype(np.int64)
    found = at_start[cell]
    ask = np.flatnonzero(~exact[cell])
    found[ask] = np.searchsorted(cumulative, points[ask], side="right")
    return found


@dataclass
class Decoded:
    """A column's synthetic values, as :func:`decode_codes` draws them, before they become a pandas Series
    (:meth:`series`) or an Arrow array (:meth:`arrow`): the same values either way, from the same draws.

    Either ``labels`` (the possible values) with ``indices`` into them, or ``values`` with ``dtype``
    (``"Int64"``, ``"float"`` or ``"object"``), or ``values`` the numbers a date, date-and-time or time-of-day
    column ``moments`` counts by (its text for a Series, typed for Arrow: :func:`~.arrow_chunks.moment_array`);
    ``missing`` marks missing cells.
    """

    missing: np.ndarray
    labels: np.ndarray | None = None
    indices: np.ndarray | None = None
    values: np.ndarray | None = None
    dtype: str = "object"
    moments: DateDomain | None = None

    def series(self) -> pd.Series:
        """The values as a pandas Series: text as objects (None missing), integers ``Int64``, floats (NaN)."""
        if self.labels is not None:
            values = self.labels[self.indices]
            values[self.missing] = None
            return pd.Series(values, dtype=object)
        if self.dtype == "Int64":
            return pd.Series(pd.array(np.where(self.missing, 0, self.values), dtype="Int64")).mask(self.missing)
        if self.dtype == "float":
            return pd.Series(np.where(self.missing, np.nan, self.values), dtype=float)
        values = self.moments.texts(self.values).astype(object) if self.moments is not None else self.values.copy()
        values[self.missing] = None
        return pd.Series(values, dtype=object)

    def arrow(self) -> pa.Array:
        """The values as Arrow, the types :meth:`series` gets from Arrow (string, int64, double; missing as
        null), labels as a dictionary array over them (no string is built per record), dates and times typed
        (:func:`~.arrow_chunks.moment_type`; a form with no type, such as a year and a month, as its text)."""
        mask = self.missing if self.missing.any() else None
        if self.moments is not None:
            if moment_type(self.moments) is not None:
                return moment_array(self.moments, self.values, self.missing)
            return pa.array(self.moments.texts(self.values).astype(object), mask=mask, type=pa.string())
        if self.labels is not None:
            indices = pa.array(self.indices.astype(np.int32, copy=False), mask=mask)
            return pa.DictionaryArray.from_arrays(indices, pa.array(self.labels, type=pa.string()))
        if self.dtype == "Int64":
            return pa.array(self.values.astype(np.int64, copy=False), mask=mask, type=pa.int64())
        if self.dtype == "float":
            return pa.array(np.where(self.missing, np.nan, self.values), from_pandas=True, type=pa.float64())
        return pa.array(self.values, mask=mask, type=pa.string())


def decode_codes(domain: ColumnDomain, codes: np.ndarray, noise) -> pd.Series:
    """Turn synthetic cell codes into values: a category, or a value drawn inside its bin.

    Integers stay integers (pandas ``Int64`` whether or not any value is missing, so the
    dtype reveals nothing), dates are written YYYY-MM-DD, code ``bins`` is missing. Inside a
    bin, values are uniform, or follow the bin's finer pieces when the domain carries a
    ``spread`` (DP output of adaptive binning, :mod:`dpsynth_core.privacy.binning`).
    """
    return decoded_codes(domain, codes, noise).series()


def decoded_codes(domain: ColumnDomain, codes: np.ndarray, noise, tilts=()) -> Decoded:
    """:func:`decode_codes`'s values, as a :class:`Decoded` (for a Series or an Arrow array). ``tilts``: a range
    column's end bins whose values fall away from the data (:func:`end_tilts`); empty: every bin as
    :func:`decode_codes` draws it."""
    codes = np.asarray(codes, dtype=np.int64)
    missing = codes >= domain.bins
    safe = np.where(missing, 0, codes)
    if isinstance(domain, CategoricalDomain):
        if domain.integer_codes:
            return Decoded(missing, values=np.asarray(domain.values, dtype=np.int64)[safe], dtype="Int64")
        return Decoded(missing, labels=np.asarray(domain.values, dtype=object), indices=safe)
    if not isinstance(domain, RANGES):
        raise TypeError(domain.kind)  # pragma: no cover
    lows, highs, integer = range_bins(domain)
    values = _draw_in_bins(lows, highs, domain.spread, safe, noise, integer)
    values = _tilted_ends(lows, highs, codes, values, tilts, noise, integer)
    values = domain.on_multiples(values)  # a declared step: its multiples (public, post-processing)
    if isinstance(domain, FloatDomain):
        return Decoded(missing, values=domain.in_decimals(values), dtype="float")
    if isinstance(domain, DateDomain):
        return Decoded(missing, values=values, moments=domain)
    return Decoded(missing, values=values, dtype="Int64")


def derived_values(domain: ColumnDomain, cells: dict, source: ColumnDomain | None = None, rng=None) -> Decoded:
    """A column computed after the draw by its public rule (:mod:`~dpsynth_core.domain.derived`) from its sources'
    synthetic ``cells`` (name -> Series): a sum clamped to the declared range (whole numbers for a whole-number
    column, the declared decimals for a real one), a band or group of a list, the year, month or day of its
    ``source`` date (that column's declared domain), or that column's value plus the gap drawn in its own place
    (its missing cells first set by :func:`gaps_where_started`, with ``rng``), clamped to its range; one declaring
    ``multiple_of`` on its multiples (a gap column's never below its source plus its least gap, as far as its range
    allows). Post-processing: no record is read."""
    rule = domain.derived
    if rule.gap:  # the source's synthetic value plus the drawn gap (held in the column's own place)
        starts = synthetic_numbers(source, cells[rule.source])
        ends = starts + gaps_where_started(starts, synthetic_numbers(None, cells[domain.name]), rng)
        missing = np.isnan(ends)
        low, high = (
            (int(domain.lows[0]), int(domain.highs[-1])) if isinstance(domain, DateDomain) else (domain.min, domain.max)
        )
        values = np.clip(np.where(missing, low, ends), low, high)
        values = domain.on_multiples(values, least=starts + gap_domain(domain).min)  # a declared step, past the least
        if isinstance(domain, DateDomain):
            return Decoded(missing, values=np.rint(values).astype(np.int64), moments=domain)
    elif rule.part:  # the year, month or day of its source's synthetic date
        stamps = synthetic_stamps(source, cells[rule.source])
        parts = getattr(stamps.dt, rule.part).to_numpy(dtype=float, na_value=np.nan)
        missing = np.isnan(parts)
        values = np.clip(np.where(missing, domain.min, parts), domain.min, domain.max)
    elif not rule.total:
        return decoded_codes(domain, rule.codes(domain.values, cells[rule.source]), None)
    else:
        sums = rule.sums(cells)
        missing = np.isnan(sums)
        values = np.clip(np.where(missing, domain.min, sums), domain.min, domain.max)
    if not rule.gap:  # a declared step (a gap's is held past its least above)
        values = domain.on_multiples(values)
    if isinstance(domain, FloatDomain):
        return Decoded(missing, values=domain.in_decimals(values), dtype="float")
    return Decoded(missing, values=np.rint(values).astype(np.int64), dtype="Int64")


def gaps_where_started(starts: np.ndarray, gaps: np.ndarray, rng=None) -> np.ndarray:
    """The drawn ``gaps`` of a column past another (NaN: missing), missing no more often where the other column's
    drawn value (``starts``) is present than the draw itself says.

    A gap is read missing wherever its source is missing (:func:`~dpsynth_core.data.gaps.with_gaps`), so its
    measured missing share holds the source's: a release that measured the two apart draws the gap missing as often
    where the source is present as where it is not, and so drops ends it should keep (rhDNase's IV antibiotics, a
    stop past its start where there is a start in 48% of the records: stops came out in 13% to 28% of the rows).
    Of the missing share ``m`` the draw gives the gap and ``s`` it gives the source, ``(m - s) / (1 - s)`` belongs
    where the source is present; where the draw holds more missing gaps there, that many more are filled, each by a
    drawn gap of another row whose source is present, chosen with ``rng``. Post-processing of the draw: no record is
    read; where the model measured the two together, the draw already holds them so and nothing changes."""
    started, absent = ~np.isnan(starts), np.isnan(gaps)
    lost, kept = np.flatnonzero(started & absent), np.flatnonzero(started & ~absent)
    if rng is None or not len(lost) or not len(kept):
        return gaps
    source_missing, gap_missing = 1 - started.mean(), absent.mean()
    extra = len(lost) - round(max(0.0, (gap_missing - source_missing) / (1 - source_missing)) * started.sum())
    if extra <= 0:
        return gaps
    out = gaps.copy()
    out[rng.choice(lost, size=extra, replace=False)] = gaps[rng.choice(kept, size=extra)]
    return out


def synthetic_numbers(domain: ColumnDomain | None, cells: pd.Series) -> np.ndarray:
    """A synthetic column's cells as numbers, NaN where missing: a date column's (``domain``, a date's) as days since
    1970-01-01 (a date and time's as its steps), read as :meth:`~dpsynth_core.domain.DateDomain.texts` writes them
    (or typed, from Arrow); any other as numbers. Post-processing of the release: no record is read."""
    if domain is None or not isinstance(domain, DateDomain):
        return pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    stamps = synthetic_stamps(domain, cells)
    if isinstance(domain, DateTimeDomain):  # whole steps since 1970-01-01 00:00
        seconds = (stamps - pd.Timestamp("1970-01-01")).dt.total_seconds()
        return np.floor(seconds.to_numpy(dtype=float, na_value=np.nan) / domain.seconds)
    days = (stamps - pd.Timestamp("1970-01-01")).dt.days
    return days.to_numpy(dtype=float, na_value=np.nan)


def synthetic_stamps(domain: DateDomain, cells: pd.Series) -> pd.Series:
    """A synthetic date column's cells as timestamps (NaT where missing), read as
    :meth:`~dpsynth_core.domain.DateDomain.texts` writes them (a year and a month as its first day, a quarter as its
    first day) or typed, from Arrow."""
    if domain.written == "year and quarter":
        cells = quarter_dates(cells.astype("string"))
    elif domain.written == "year and month":
        cells = cells.astype("string") + "-01"
    return pd.Series(pd.to_datetime(cells, errors="coerce"))
