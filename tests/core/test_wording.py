"""Plain words for public settings and the ledger (dpsynth_core.wording)."""

from __future__ import annotations

import numpy as np

from dpsynth_core.wording import format_delta, format_epsilon, ledger_rows, rows_in_words


def test_the_row_count_in_words_comes_from_public_settings_only():
    assert rows_in_words(12_000, 500, True) == "12,000 (your choice)"
    assert rows_in_words(None, 500, False) == "500 tries (the method's own number, fixed in advance)"
    assert rows_in_words(None, None, True) == "the real count (public under this method's privacy unit)"
    assert rows_in_words(None, None, False) == "the real count plus noise"


def test_ledger_rows():
    spends = [
        {
            "created": "t1",
            "purpose": "release",
            "release_id": 4,
            "method": "m",
            "source": "app",
            "epsilon": 0.5,
            "delta": 1e-6,
            "guaranteed": True,
            "neighbouring": "add/remove one record",
        },
        {
            "created": "t2",
            "purpose": "release",
            "release_id": None,
            "method": "n",
            "source": "cli",
            "epsilon": None,
            "delta": 0.0,
            "guaranteed": False,
            "neighbouring": None,
        },
    ]
    first, second = ledger_rows(spends)
    assert first == {
        "when": "t1",
        "what": "release #4",
        "method": "m",
        "from": "app",
        "cost": "ε = 0.5, δ = 1e-6",
        "privacy unit": "add/remove one record",
    }
    assert second["what"] == "release" and second["cost"] == "no guarantee" and second["privacy unit"] == ""


def test_a_bound_shown_is_never_on_the_wrong_side_of_it():
    """An epsilon spent and a delta are shown rounded up at the digits shown, an epsilon left rounded down (within a
    millionth of the last digit: a calibrated 0.99999999935 is 1), over values of every size."""
    rng = np.random.default_rng(7)
    values = np.concatenate([10.0 ** rng.uniform(-3, 5, 2000), [1.4249, 2.718281828, 0.9999999993502717, 100.0]])
    for v in values:
        shown = float(format_epsilon(v).replace(",", ""))
        left = float(format_epsilon(v, down=True).replace(",", ""))
        assert v * (1 - 1e-6) <= shown <= v * 1.01 + 1e-9 and v * 0.99 - 1e-9 <= left <= v * (1 + 1e-6), v
    for v in 10.0 ** rng.uniform(-12, -4, 2000):
        assert v * (1 - 1e-6) <= float(format_delta(v)) <= v * 1.1, v
    assert format_epsilon(1.4249) == "1.43" and format_delta(4.2863e-10) == "4.3e-10"


def test_epsilon_is_printed_in_plain_digits():
    assert [format_epsilon(v) for v in (0.05, 1.0, 2.345, 34312.4, float("inf"))] == [
        "0.05",
        "1",
        "2.35",
        "34,313",  # a bound: rounded up at the digits shown
        "no guarantee",
    ]
