"""Plain words for public settings and the ledger (dpsynth_core.wording)."""

from __future__ import annotations

from dpsynth_core.wording import format_epsilon, ledger_rows, rows_in_words


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


def test_epsilon_is_printed_in_plain_digits():
    assert [format_epsilon(v) for v in (0.05, 1.0, 2.345, 34312.4, float("inf"))] == [
        "0.05",
        "1",
        "2.35",
        "34,312",
        "no guarantee",
    ]
