"""Long lists drawn a page at a time (the Domain page's columns, the Privacy page's advice): one rule for how many
pages there are and which items a page holds. Arithmetic only; each page draws its own number box."""

from __future__ import annotations


def page_count(items: int, size: int) -> int:
    """Pages of ``size`` for ``items`` items (at least one, for an empty list).

    >>> page_count(501, 20), page_count(0, 50)
    (26, 1)
    """
    return max(1, -(-items // size))


def page_items(items: list, size: int, number) -> list:
    """The ``number``-th page (from 1; past the last, the last) of ``items``, ``size`` a page.

    >>> page_items(list(range(45)), 20, 3), page_items(list(range(45)), 20, 9)
    ([40, 41, 42, 43, 44], [40, 41, 42, 43, 44])
    """
    number = min(int(number), page_count(len(items), size))
    return items[(number - 1) * size : number * size]
