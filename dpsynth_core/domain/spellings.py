"""How a category's value may be written another way: in other capitals, spaces or punctuation.

A public rule of one cell and the declaration, never of the data: a column declared ``"any_spelling": true``
reads a cell by it (:attr:`~.column.CategoricalDomain.read_spellings`), and the check before a release counts the
cells it would read (:func:`dpsynth_core.data.near_misses.respelled`).
"""

from __future__ import annotations

import re

_LETTER = re.compile(r"[^\W\d_]")


def letters_key(value: str) -> str:
    """A value with its capitals, spaces and punctuation left out: ``Very_High``, ``very high`` and ``Very-High``
    are one spelling, as are ``Research & Development`` and ``Research_Development``."""
    return re.sub(r"[\W_]+", "", value.casefold())


def spaces_key(value: str) -> str:
    """A value without its spaces: ``25 - 45`` is ``25-45`` (a code's signs and points kept)."""
    return re.sub(r"\s+", "", value)


def loose_key(value) -> str:
    """The key two writings of one declared value share: a value with a letter by :func:`letters_key` (``TA/TO``
    and ``ta_to``), a code without one by :func:`spaces_key` (``-1`` and ``1.0`` are other codes than ``1`` and
    ``10``).

    >>> loose_key("Transient-Party") == loose_key(" transient_party"), loose_key("-1") == loose_key("1")
    (True, False)
    """
    text = str(value).strip()
    return letters_key(text) if _LETTER.search(text) else spaces_key(text)


def keyed_positions(values) -> dict[str, int]:
    """``key -> position`` of each declared value by :func:`loose_key`, leaving out a key two declared values
    share (``a`` and ``A`` declared as two codes: neither reads the other's cells) and an empty one.

    >>> keyed_positions(["Yes", "No", "a", "A"])
    {'yes': 0, 'no': 1}
    """
    found: dict[str, int] = {}
    for i, value in enumerate(values):
        key = loose_key(value)
        if key:
            found[key] = -1 if key in found else i
    return {key: i for key, i in found.items() if i >= 0}
