"""Decoding's end bins that fall away from the data (:func:`dpsynth_core.data.decoding.end_tilts`): which bins, the law
their values follow, and that every record keeps its bin."""

import math
import warnings
from dataclasses import replace

import numpy as np
import pytest

from dpsynth_core.data import decoding
from dpsynth_core.data.decoding import decoded_codes, end_tilts
from dpsynth_core.data.encoding import encode_column
from dpsynth_core.domain import CategoricalDomain, FloatDomain, IntegerDomain
from dpsynth_core.privacy.noise import make_noise_source

#: A code declared 0-100 whose records hold 0-27: bins 0-23, 24, 25-49 and 50-100 (the codes benchmark's nlme bdf).
CODES = IntegerDomain("code", min=0, max=100, edges=(0, 24, 25, 50))


def test_the_outer_bin_beside_a_denser_one_falls_away_from_it_with_its_density_there():
    assert end_tilts(CODES, [400.0, 43.0, 150.0, 0.0]) == [(2, pytest.approx(43 / 150), True)]
    # the low end, mirrored: a bin 20-29 held beside a one-value bin 30 inside a run, nothing below 20 (and the top
    # bin held: no law there)
    low = IntegerDomain("x", min=0, max=100, edges=(0, 20, 30, 31, 60))
    assert end_tilts(low, [0.0, 150.0, 43.0, 500.0, 100.0]) == [(1, pytest.approx(43 / 150), False)]
    # real numbers by unit: a bin 5-10 of 50 records beside 4-5 of 30 (30 per unit against 10)
    real = FloatDomain("f", min=0.0, max=100.0, edges=(0.0, 4.0, 5.0, 10.0, 100.0))
    assert end_tilts(real, [90.0, 30.0, 50.0, 0.0]) == [(2, pytest.approx(30 / 50), True)]
    # beside a real special value's point bin (5.0, a bin of no width): none, and no division by its width
    special = FloatDomain("f", min=0.0, max=20.0, edges=(0.0, 5.0, 10.0, 15.0), special=(5.0,))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert end_tilts(special, [10.0, 50.0, 30.0, 0.0, 0.0]) == []


@pytest.mark.parametrize(
    "counts, why",
    [
        ([400.0, 43.0, 150.0, 80.0], "a bin at the declared end: its data may lie anywhere in it"),
        ([400.0, 0.0, 150.0, 0.0], "an island beyond an empty bin"),
        ([400.0, 5.0, 150.0, 0.0], "no denser inside than the bin (5 a value against 6)"),
        ([10.0, 400.0, 150.0, 0.0], "beside a spike: 400 at 24 against 10 over 0-23"),
        ([400.0, 43.0, 150.0, 0.4], "a trace below half a record holds none: the end is 25-49, as without it"),
    ],
)
def test_no_law_where_nothing_says_the_values_fall_away(counts, why):
    found = end_tilts(CODES, counts)
    if counts[-1] == 0.4:
        assert found == [(2, pytest.approx(43 / 150), True)], why
    else:
        assert found == [], why


def test_no_law_beside_a_whole_number_ranges_named_zero():
    """A range across zero names its 0 as a point of its binning (:mod:`dpsynth_core.privacy.points`) whatever the
    data, so its bin says nothing of the values beside it, even inside a run: compas's days between screening and
    arrest (declared -10,000 to 10,000) with 549 records at -1 and 229 at 0 put a bin 1-5,000 (its 47 records at 7-812)
    all at 1, a value no record holds, in 7% of a release's rows. The same counts shifted off 0 take the law."""
    across = IntegerDomain("d", min=-10000, max=10000, edges=(-10000, -311, -1, 0, 1, 5001))
    counts = [0.0, 80.0, 549.0, 229.0, 70.0, 0.0]
    assert [t for t in end_tilts(across, counts) if t[0] == 4] == []  # (-311..-2 below -1 still falls away)
    shifted = IntegerDomain("d", min=-9990, max=10010, edges=(-9990, -301, 9, 10, 11, 5011))
    assert [t for t in end_tilts(shifted, counts) if t[0] == 4] == [(4, pytest.approx(229 / 70), True)]


def test_beyond_the_value_beside_a_named_zero_the_values_fall_away_scale_free():
    """The value beside a range's named 0 belongs to 0's spike: by -1's 549 records a bin -311..-2 of 80 came out
    wholly at -2 (14% to 20% of compas's rows in 6 of 12 draws, the data's 2%). Its law is now scale-free; one
    step off 0, or with -1 a wider bin's, the density's law as before."""
    across = IntegerDomain("d", min=-10000, max=10000, edges=(-10000, -311, -1, 0, 1, 5001))
    counts = [0.0, 80.0, 549.0, 229.0, 70.0, 0.0]
    assert [t for t in end_tilts(across, counts) if t[0] == 1] == [(1, decoding.SCALE_FREE, False)]
    shifted = IntegerDomain("d", min=-9990, max=10010, edges=(-9990, -301, 9, 10, 11, 5011))
    assert [t for t in end_tilts(shifted, counts) if t[0] == 1] == [(1, pytest.approx(549 / 80), False)]
    wider = IntegerDomain("d", min=-10000, max=10000, edges=(-10000, -311, -3, 0, 1, 5001))  # -3..-1 beside 0
    assert [t for t in end_tilts(wider, counts) if t[0] == 1] == [(1, pytest.approx(549 / 3 / 80), False)]
    codes = np.repeat([0, 1, 2, 3, 4], [0, 80, 549, 229, 70])
    drawn = decoded_codes(across, codes, make_noise_source(5), end_tilts(across, counts)).series()
    beyond = drawn[codes == 1].to_numpy()
    assert beyond.min() >= -311 and beyond.max() <= -2
    assert (beyond == -2).mean() < 0.35  # log 2 / log 311 = 0.12 of them at -2 (at 1: all 80)


def test_a_bin_cut_in_pieces_keeps_them_when_they_stand_clear_of_their_noise(monkeypatch):
    pieces = replace(CODES, spread=((0, 24, 25, 30, 50), (400.0, 43.0, 120.0, 30.0, 0.0)))
    counts = [400.0, 43.0, 150.0, 0.0]
    assert end_tilts(pieces, counts, [20.0, 7.0, 140.0, math.inf])[0][0] == 2  # 150 records at 140: noise
    assert end_tilts(pieces, counts, [20.0, 7.0, 30.0, math.inf]) == []  # 150 at 30: 5 deviations clear
    assert end_tilts(pieces, counts, [20.0, 7.0, math.inf, math.inf])[0][0] == 2  # no whole leaves tile it
    assert end_tilts(pieces, counts)[0][0] == 2  # nor any bin: no noise to judge its pieces by
    assert end_tilts(CategoricalDomain("c", values=("a", "b")), [5.0, 1.0]) == []
    monkeypatch.setattr(decoding, "TILTED_ENDS", False)
    assert end_tilts(CODES, counts) == []  # the ablation


def _dkw(sample: np.ndarray, cdf, points) -> float:
    """The largest gap between the sample's CDF and ``cdf`` at ``points``."""
    return max(abs(np.mean(sample <= p) - cdf(p)) for p in points)


def test_the_laws_are_the_truncated_geometric_and_exponential_they_claim():
    """40,000 draws each against the law's CDF. Dvoretzky-Kiefer-Wolfowitz: the gap exceeds sqrt(ln(2 / a) / 2n)
    with chance at most a; at a = 1e-6, 0.0135."""
    u = np.random.default_rng(7).random(40_000)
    bound = math.sqrt(math.log(2 / 1e-6) / (2 * u.size))
    share, width = 43 / 150, 25
    found = decoding._geometric_offsets(u, share, width)
    assert found.min() == 0 and found.max() <= width - 1
    r = next(x for x in np.linspace(0.5, 0.99, 100_000) if (1 - x) / (1 - x**width) <= share)  # the ratio, by scan
    assert _dkw(found, lambda k: (1 - r ** (k + 1)) / (1 - r**width), range(width)) < bound
    assert abs(np.mean(found == 0) - share) < bound  # the first value's share is the one asked
    assert np.all(decoding._geometric_offsets(u[:100], 1.0, width) == 0)  # all of it at the first value
    wide = 310
    scale_free = decoding._scale_free_offsets(u, wide)
    assert scale_free.min() == 0 and scale_free.max() <= wide - 1
    # P(offset <= k) = log(k + 2) / log(wide + 1): each doubling of the distance from the edge equally likely
    assert _dkw(scale_free, lambda k: math.log(k + 2) / math.log(wide + 1), range(wide)) < bound
    density, span = 0.6, 5.0  # per unit at the inner edge, over a bin 5 wide
    drawn = decoding._exponential_offsets(u, density, span)
    assert drawn.min() >= 0 and drawn.max() < span
    rate = next(x for x in np.linspace(1e-3, 20, 200_000) if x / -math.expm1(-x * span) >= density)
    assert _dkw(drawn, lambda x: math.expm1(-rate * x) / math.expm1(-rate * span), np.linspace(0, span, 51)) < bound


def test_decoding_with_a_law_keeps_each_record_in_its_bin_and_moves_its_values_inward():
    codes = np.repeat([0, 1, 2, 4], [400, 43, 150, 7])  # 4: the missing cell
    tilts = end_tilts(CODES, [400.0, 43.0, 150.0, 0.0])
    tilted = decoded_codes(CODES, codes, make_noise_source(3), tilts).series()
    flat = decoded_codes(CODES, codes, make_noise_source(3)).series()
    for values in (tilted, flat):
        assert values.isna().sum() == 7
        assert list(encode_column(CODES, values).codes) == list(codes)  # the same bins, the same missing cells
    # in 25-49, 150 values: uniform puts 3 of 25 at 25-27 (18 expected); the law (1 - r**3), about 63% (95)
    assert tilted[codes == 2].le(27).sum() > 75 and flat[codes == 2].le(27).sum() < 40
    assert tilted[codes == 0].equals(flat[codes == 0])  # the same draws elsewhere
