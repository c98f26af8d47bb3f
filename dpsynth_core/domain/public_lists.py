"""Public code lists bundled with the project (word lists, countries, US states, small fixed lists).

These are public knowledge, never derived from uploaded data, so they may be used to
declare domains. The files live in ``lists/`` beside this module, so an installed package
carries them (sources in ``assets/CREDITS.md``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path

import numpy as np

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
    "countries": "Countries (ISO 3166, 249 names; USA, UK and other names read as the country)",
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


def spelling_key(text: str) -> str:
    """A name as its spellings share it: accents dropped, case folded, ``&`` read as "and", apostrophes dropped,
    any other run of signs one space, a leading "the" dropped and "St" read as "Saint" (``Côte d'Ivoire``,
    ``cote divoire`` and ``COTE-D'IVOIRE`` are one; ``Trinidad & Tobago`` is ``Trinidad and Tobago``).

    >>> spelling_key("Côte d'Ivoire"), spelling_key("The Gambia"), spelling_key("St. Lucia")
    ('cote divoire', 'gambia', 'saint lucia')
    """
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).casefold()
    words = re.sub(r"[^0-9a-z]+", " ", re.sub(r"['’`]", "", plain.replace("&", " and "))).split()
    words = words[1:] if words[:1] == ["the"] and len(words) > 1 else words
    return " ".join("saint" if w == "st" else w for w in words)


@cache
def country_names() -> dict[str, str]:
    """Every spelling (:func:`spelling_key`) of a country's name in the countries list, and of its other names
    (``lists/country_aliases.txt``: ISO 3166's official and common names, and short names in wide use such as
    USA, UK, Russia, Ivory Coast or D.R.) and of its ISO 3166 three-letter code (``CAN``, ``DOM``: Lahman's
    baseball players were born in ``CAN``), mapped to its name in the list. A two-letter code is not one (``CA``
    is as often California). Public: no data is read.

    >>> names = country_names()
    >>> names["can"], names[spelling_key("D.R.")], names[spelling_key("P.R.")]
    ('Canada', 'Dominican Republic', 'Puerto Rico')
    """
    names = {spelling_key(name): name for name in public_list("countries")}
    for code, name in zip(public_list("country_codes_3"), public_list("countries"), strict=True):
        names.setdefault(spelling_key(code), name)
    for line in (LISTS_DIR / "country_aliases.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            other, name = line.split("\t")
            names.setdefault(spelling_key(other), name)
    return names


@cache
def us_state_names() -> dict[str, str]:
    """Every spelling (:func:`spelling_key`) of a US state's name and of its two-letter code (``NEW YORK``,
    ``new-york``, ``ny``), mapped to the name or the code as the bundled lists write it, and the District of
    Columbia's other names (``Washington, D.C.``). Public: no data is read."""
    names = {spelling_key(v): v for v in public_list("us_states") + public_list("us_state_codes")}
    for other in ("Washington DC", "Washington D.C.", "D.C."):
        names.setdefault(spelling_key(other), "District of Columbia")
    return names


@cache
def fixed_list_names() -> dict[str, str]:
    """Every spelling (:func:`spelling_key`: any capitals) of a value of the bundled small lists (sex, yes/no,
    true/false, weekdays, months, and their letters), mapped to the value as the list writes it: R writes ``TRUE``,
    a survey ``YES`` or ``female``; and the weekdays' and months' short names (:data:`SHORT_NAMES`: modeldata's
    deliveries write ``Sat``). Public: no data is read.

    >>> names = fixed_list_names()
    >>> names["true"], names["female"], names["n"], names["sat"], names["sept"]
    ('True', 'Female', 'N', 'Saturday', 'September')
    """
    names = {spelling_key(v): v for values in _INLINE.values() for v in values}
    return names | {spelling_key(short): v for short, v in SHORT_NAMES.items() if spelling_key(short) not in names}


#: The weekdays' and months' short names, each its name's first three letters, and the longer ones in wide use.
SHORT_NAMES = {
    **{name[:3]: name for name in _INLINE["weekdays"] + _INLINE["months"]},
    **{"Tues": "Tuesday", "Thur": "Thursday", "Thurs": "Thursday", "Sept": "September"},
}


#: The families of names a declared list may be read by (:func:`read_as_named`): the countries, the US states, and
#: the bundled small lists' words in any capitals.
NAME_FAMILIES = (country_names, us_state_names, fixed_list_names)


@cache
def _declared_names(declared: tuple[str, ...]) -> tuple[dict[str, str], dict[str, int], object]:
    """The family of names (:data:`NAME_FAMILIES`) most of the declared values belong to (a list of countries or of
    US states, the bundled one or the publisher's own; not the US states' Georgia read as the country, nor a list of
    first names' Chad, nor comics' publishers Marvel and DC read as a list of states), or at least half of them for
    the bundled small lists' words (``Yes`` and ``Maybe``); and the place each declared value names there, mapped to
    the value's position; a place two declared values name (``UK`` and ``United Kingdom``) is left out, so neither
    takes the other's; and the family (None when none).

    >>> bool(_declared_names(("Marvel", "DC"))[1]), bool(_declared_names(("USA", "Mexico", "Other"))[1])
    (False, True)
    """
    for family in NAME_FAMILIES:
        named = family()
        found: dict[str, list[int]] = {}
        for i, value in enumerate(declared):
            if spelling_key(value) in named:  # (a name of the list is one of its own spellings)
                found.setdefault(named[spelling_key(value)], []).append(i)
        held = 2 * sum(map(len, found.values()))
        if found and (held >= len(declared) if family is fixed_list_names else held > len(declared)):
            places = {place: at[0] for place, at in found.items() if len(at) == 1}
            return (_with_own_words(named, places, declared) if family is fixed_list_names else named), places, family
    return {}, {}, None


def _with_own_words(named: dict, places: dict, declared: tuple) -> dict:
    """A list read by the bundled small lists' words reads its other values in any capitals too (a survey's
    ``Unknown`` beside ``Female`` and ``Male``: modeldata's cats write ``unknown``); ``places`` gains them, and a
    spelling two of them share reads neither. Public: the declaration alone."""
    own: dict[str, list[int]] = {}
    for i, value in enumerate(declared):
        if (key := spelling_key(value)) and key not in named:
            own.setdefault(key, []).append(i)
    places.update({declared[at[0]]: at[0] for at in own.values() if len(at) == 1})
    return {**named, **{key: declared[at[0]] for key, at in own.items() if len(at) == 1}}


def read_as_named(declared: tuple[str, ...], cells) -> np.ndarray:
    """For each cell, the position of the declared value that names the same country or US state (another
    spelling or name of it, :func:`country_names`, :func:`us_state_names`: ``USA`` or ``United-States`` where
    ``United States`` is declared, ``NEW YORK`` where ``New York`` is) or the same word of a bundled small list in
    other capitals (:func:`fixed_list_names`: ``TRUE`` where ``True`` is declared), or -1. A public rule of each cell
    alone (it reads the cell and the bundled lists, nothing else), so every engine's encoding reads a cell the same
    way."""
    named, places, _ = _declared_names(tuple(declared))
    if not places:
        return np.full(len(cells), -1, dtype=np.int64)
    return np.fromiter((places.get(named.get(spelling_key(c), ""), -1) for c in cells), np.int64, len(cells))


def reads_words(declared) -> bool:
    """Whether a declared list is read by the bundled small lists' words in any capitals (:func:`fixed_list_names`)
    rather than by places' names (a note then says "in other capitals", not "another name of a country")."""
    return _declared_names(tuple(str(v) for v in declared))[2] is fixed_list_names
