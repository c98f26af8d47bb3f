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


def test_the_factor_beside_an_epsilon_is_never_below_e_to_the_epsilon_shown():
    """At epsilon 20 the Privacy page and the card read "a factor of 485,165,186" beside "epsilon = 20": the
    calibrated epsilon, 19.99999998, is shown as 20, and e to it is 485,165,186, below e^20 (485,165,195), so a
    reader checking the two found them at odds. The factor is now taken from the epsilon as shown where that is
    larger, to three significant digits above 10,000; the slider's sentence and the card's say the same."""
    from dpsynth_core.release.card import plain_guarantee
    from dpsynth_core.wording import epsilon_guidance, factor_bound

    rng = np.random.default_rng(3)
    for epsilon in [*rng.uniform(0, 30, 3000), 19.99999998, 1 - 6.5e-10, 1 + 6.5e-10, 2.302585, 9.21034]:
        shown = float(format_epsilon(epsilon).replace(",", ""))
        least = np.exp(max(epsilon, shown))
        factor = float(factor_bound(epsilon).replace(",", ""))
        assert least <= factor <= least * 1.1, (epsilon, factor)
        if epsilon <= 20:  # the slider's levels reach up to the app's largest epsilon
            assert factor_bound(epsilon) in epsilon_guidance(epsilon)[1]
        assert f"at most {factor_bound(epsilon)} (epsilon = {format_epsilon(epsilon)})" in plain_guarantee(
            epsilon, 0.0, "add/remove one record"
        )
    assert factor_bound(19.99999998) == "486,000,000" and factor_bound(3.0) == "21"
