"""What would read a text column most of whose cells its declaration does not (:mod:`.misfits` flags it): another
kind of text (English words, codes of N digits, a wider alphabet), codes that lost their leading zeros, or the kinds of
character its cells hold that its alphabet leaves out. Publisher-only, as the flag itself: it names kinds of text
and of character, never a value.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pandas as pd

from ..domain.kinds import ALPHABETS, WIDE_ALPHABET
from .file_notes import MISFIT_SHARE

#: The kinds of text a flagged text column is tried as (:func:`text_reading`), narrowest first, each a public
#: declaration with its words: one or two English words, codes of 1 to 12 digits, and letters (small and capital),
#: digits, spaces, hyphens and apostrophes up to the longest length the Domain page offers.
TEXT_TRIED = (
    ({"generator": "english_word"}, "any English word"),
    ({"generator": "word_pair"}, "any pair of English words"),
    *(({"generator": "digits", "length": n}, f"a code of {n} digits") for n in range(1, 13)),
    (
        {"generator": "letters", "max_length": 40, "alphabet": WIDE_ALPHABET},
        f"any string of up to 40 characters, allowing {ALPHABETS[WIDE_ALPHABET]}",
    ),
)


def text_reading(column, series: pd.Series, markers, filled: int, unfit: int) -> str:
    """For a flagged text column: the kind of text of :data:`TEXT_TRIED` that reads the most of its cells (the
    narrowest of those that read as many), when that reads most of them, in words naming the kind and its settings
    (never a value). Publisher-only, as the flag itself."""
    cells = series.dropna().astype(str).str.strip()
    filled_cells = cells[~cells.isin(list(markers))]  # read for the publisher's eyes only, as the flag itself
    distinct = filled_cells.value_counts()  # each filled cell once, read by the text rule
    values, counts = distinct.index.tolist(), distinct.to_numpy()
    if column.generator == "digits" and column.length:  # a code of N digits written with fewer (ZIP 02134 as 2134)
        short = int(counts[np.asarray(distinct.index.str.fullmatch(rf"[0-9]{{1,{column.length - 1}}}"), bool)].sum())
        if column.length > 1 and short >= MISFIT_SHARE * unfit:
            return (
                f" {short:,} of them are codes of fewer digits, as a spreadsheet writes codes stored as numbers, "
                "without their leading zeros: save the file with the column formatted as text."
            )
    unread = (int(counts[pd.isna(replace(column, prefixes=(), **k).normalise(values))].sum()) for k, _ in TEXT_TRIED)
    fewest, best = min((n, i) for i, n in enumerate(unread))
    if fewest >= MISFIT_SHARE * filled or fewest >= unfit:
        return _outside_alphabet(column, values, counts) if column.generator == "letters" else ""
    kind, words = TEXT_TRIED[best]
    declared = ", ".join(f'"{k}": {json.dumps(v)}' for k, v in kind.items())
    return f" Declared as {words}, {filled - fewest:,} of them would be read ({declared} in a declaration)."


#: The kinds of character a cell may hold that an alphabet leaves out, each with its test (:func:`_outside_alphabet`).
_CHARACTERS = (
    ("capital letters", str.isupper),
    ("small letters", str.islower),
    ("digits", str.isdigit),
    ("spaces", str.isspace),
    ("letters with accents or of other alphabets", lambda ch: ch.isalpha() and not ch.isascii()),
    ("punctuation or symbols (commas, full stops, ...)", lambda ch: not ch.isalnum() and not ch.isspace()),
)


def _outside_alphabet(column, values: list, counts: np.ndarray) -> str:
    """For a flagged text column of letters: the kinds of character (:data:`_CHARACTERS`; never a character or a
    value) its unread cells hold that its alphabet leaves out, with how many cells hold each (Tate's artists,
    "Auerbach, Frank": commas). Publisher-only, as the flag itself."""
    cells, weights, allowed = pd.Series(values, dtype=object), np.asarray(counts), set(column.alphabet)
    held = {}
    longer = int(weights[cells.str.len().to_numpy() > column.max_length].sum())
    if longer:
        held["longer than the longest length"] = longer
    outside = set("".join(values)) - allowed  # each character once: the cells are then searched in C, by kind
    for what, test in _CHARACTERS:
        found = [ch for ch in outside if test(ch) and (ch.isascii() or what.startswith("letters with"))]
        if found:
            pattern = "[" + "".join(re.escape(ch) for ch in found) + "]"
            held[what] = int(weights[cells.str.contains(pattern, regex=True).to_numpy(dtype=bool)].sum())
    if not held:
        return ""
    said = "; ".join(f"{what} in {cells:,}" for what, cells in sorted(held.items(), key=lambda kv: -kv[1]))
    return (
        f" The cells hold what the declared text leaves out: {said}. Allow those characters (the Domain page's "
        "'Allowed characters', each typed once; \"alphabet\" in a declaration) and a longest length that holds "
        "them, or declare the column as categories, or drop it."
    )
