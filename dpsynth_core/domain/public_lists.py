"""Public code lists bundled with the project (word lists, countries, US states, small fixed lists).

These are public knowledge, never derived from uploaded data, so they may be used to
declare domains. The files live in ``lists/`` beside this module, so an installed package
carries them (sources in ``assets/CREDITS.md``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

LISTS_DIR = Path(__file__).resolve().parent / "lists"

_FILES = {
    "english_words": "english_words.txt",
    "countries": "countries.txt",
    "country_codes_3": "country_codes_3.txt",
    "country_codes_2": "country_codes_2.txt",
    "us_states": "us_states.txt",
    "us_state_codes": "us_state_codes.txt",
}

_INLINE = {
    "sex": ("Female", "Male"),
    "sex_codes": ("F", "M"),
    "yes_no": ("Yes", "No"),
    "yes_no_codes": ("Y", "N"),
    "true_false": ("True", "False"),
    "weekdays": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "months": (
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ),
}

#: Human titles for the app's picker.
TITLES = {
    "sex": "Sex (Female, Male)",
    "sex_codes": "Sex as letters (F, M)",
    "yes_no": "Yes / No",
    "yes_no_codes": "Yes / No as letters (Y, N)",
    "true_false": "True / False",
    "weekdays": "Days of the week",
    "months": "Months of the year",
    "us_states": "US states and DC (51 names)",
    "us_state_codes": "US state codes (51 two-letter codes)",
    "countries": "Countries (ISO 3166, 249 names)",
    "country_codes_3": "Country codes, three letters (ISO 3166 alpha-3: USA, FRA, ...; 249)",
    "country_codes_2": "Country codes, two letters (ISO 3166 alpha-2: US, FR, ...; 249)",
}


@cache
def public_list(name: str) -> tuple[str, ...]:
    """The values of a bundled public list, in file order."""
    if name in _INLINE:
        return _INLINE[name]
    if name not in _FILES:
        raise KeyError(f"unknown public list '{name}'; known: {', '.join(sorted(TITLES) + ['english_words'])}")
    text = (LISTS_DIR / _FILES[name]).read_text(encoding="utf-8")
    return tuple(line for line in text.splitlines() if line)


@cache
def english_word_set() -> frozenset[str]:
    return frozenset(public_list("english_words"))
