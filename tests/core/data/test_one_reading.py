"""The cells read one way only (:mod:`dpsynth_core.data.one_reading`): the wide patterns that pass most cells over at
once (RE2, in Arrow) hold every cell the exact rules would read, so the fast path reads what the slow one did."""

import random

import numpy as np
import pandas as pd

from dpsynth_core.data import cell_values as cv
from dpsynth_core.data import one_reading as one

_ALPHABET = list("0123456789,. \u00a0\u202f$€£%()-+\u2212/abcUSDEUR:\n")


def _cells(count: int, seed: int) -> pd.Series:
    rng = random.Random(seed)
    cells = ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 12))) for _ in range(count)]
    cells += [f"{rng.randint(0, 9999)}{rng.choice('/-.')}{rng.randint(0, 13)}{rng.choice('/-.')}{rng.randint(0, 40)}"
              for _ in range(count // 4)]  # fmt: skip
    cells += [f"{rng.randint(0, 40)}{rng.choice('/-.')}{rng.randint(0, 13)}{rng.choice('/-.')}{rng.randint(1900, 2100)}"
              for _ in range(count // 4)]  # fmt: skip
    return pd.Series(cells + ["USDA 12", "12 USD", "a.b\nc.d", "1 234 567", "(12)"], dtype=object)


def test_every_cell_a_number_rule_may_read_is_among_the_wide_patterns_matches():
    cells = _cells(20_000, 0)
    wide = one._arrow_matches(cells, one._MAYBE_NUMBER)
    signed = cells.str.contains(f"[{cv.CURRENCY_SIGNS}%(){cv.MINUS_SIGN}]|{cv._CURRENCY}", regex=True).to_numpy()
    exact = (
        signed | (cells.str.count(",") > 0) | (cells.str.count(r"\.") > 1) | (cells.str.count("[ \u00a0\u202f]") > 1)
    )
    assert exact.sum() > 1000 and not (exact.to_numpy() & ~wide).any()
    assert wide.sum() < len(cells)  # and it does pass cells over
    read = one.one_reading_numbers(cells)
    assert np.isnan(read[~wide]).all() and np.isfinite(read).sum() > 50


def test_every_whole_date_read_day_month_or_year_first_is_among_the_wide_patterns_matches():
    cells = _cells(20_000, 1)
    for wider, exact in ((one._MAYBE_YEAR_FIRST, cv.YEAR_FIRST_WHOLE), (one._MAYBE_YEAR_LAST, cv.YEAR_LAST_WHOLE)):
        matched = cells.str.match(exact, na=False).to_numpy()
        assert matched.sum() > 500 and not (matched & ~one._arrow_matches(cells, wider)).any()
        assert (one._matches_within(cells, wider, exact) == matched).all()
    assert one.one_reading_dates(pd.Series(["2012/1/5", "2012/1-5", "31/01/2012"])).tolist() == [
        "2012-01-05",
        np.nan,
        "2012-01-31",
    ]
