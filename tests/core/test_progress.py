"""The progress hook: synthesize() reports coarse steps from 0 to 1, in order, with public messages."""

from __future__ import annotations

import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.synthesizers import METHODS

TABLE = pd.DataFrame({"sex": ["Female", "Male"] * 40, "age": [str(20 + i % 60) for i in range(80)]})
DOMAIN = {
    "columns": {
        "sex": {"type": "categorical", "values": ["Female", "Male"]},
        "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
    }
}


@pytest.mark.parametrize("method", list(METHODS))
def test_progress_moves_from_zero_to_one_in_order(method):
    seen = []
    synthesize(
        TABLE, DOMAIN, 1.0, method=method, random_state=0, progress=lambda done, message: seen.append((done, message))
    )
    fractions = [done for done, _ in seen]
    assert fractions[0] == 0 and fractions[-1] == 1 and fractions == sorted(fractions)
    assert len(seen) >= 4 and all(isinstance(m, str) and m for _, m in seen)
    assert not any(value in message for _, message in seen for value in ("Female", "Male"))  # no data values


def test_no_progress_callable_is_fine():
    assert len(synthesize(TABLE, DOMAIN, 1.0, random_state=0).data) > 0
