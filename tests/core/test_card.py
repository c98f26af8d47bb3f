"""The release card's wording: plain numbers, and no guarantee shown as one."""

from __future__ import annotations

import pandas as pd

from dpsynth_core import synthesize
from dpsynth_core.release.card import plain_guarantee, plain_number, render_card_html
from tests.conftest import stated

TABLE = pd.DataFrame({"sex": ["Female", "Male"] * 40, "age": [str(20 + i % 60) for i in range(80)]})
DOMAIN = {"columns": {"sex": {"type": "categorical", "values": ["Female", "Male"]},
                      "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10}}}


def test_numbers_are_plain_digits():
    assert [plain_number(v) for v in (34312.4, 2.718, 0.0475, 1.0, 1e-5)] == ["34,312", "2.72", "0.0475", "1",
                                                                              "0.00001"]
    words = plain_guarantee(34312.4, 0.03, "add/remove one record")
    assert "34,312" in words and "e+" not in words and "more than 10^13" in words


def test_a_method_without_guarantee_names_no_privacy_unit_and_is_not_green():
    card = synthesize(TABLE, DOMAIN, 1.0, method="microagg", random_state=1, k=10).card
    assert stated(card)["neighbouring"] is None
    assert all(spend["neighbouring"] is None for spend in card["spends"])
    page = render_card_html(card)
    assert 'class="guarantee none"' in page and "privacy unit" not in page.lower()
