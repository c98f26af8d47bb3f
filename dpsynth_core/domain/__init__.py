"""Declared domains: what values each column may take, fixed from public knowledge.

A domain is never read off the data. Every column has a *kind*:

* ``categorical``: an explicit list of values (strings or integer codes);
* ``integer``: a range ``min..max`` split into public bins (``bin_width`` or ``edges``);
* ``float``: a range ``[min, max]`` split into public bins (``bins``, ``bin_width`` or ``edges``);
* ``date``: a range of days ``min..max`` binned by ``unit`` (day, month or year) or ``edges``;
* ``text``: a weakly constrained domain of exact size from a generator (``letters``,
  ``english_word``, ``word_pair``, ``digits``, ``any``);
* ``drop``: an identifier or anything else left out of the release.

A numeric or date column may list public ``special`` values (codes such as -1 or 999) that
always get a bin of their own, so they stay exact. A numeric or date column declared with a
range and no bins gets bins fitted to the data when it is released, paid for with DP (see
:mod:`dpsynth_core.privacy.binning`); before that, the default bins below describe it.

Each column also says whether missing values may occur (``missing``, default true). When
they may, "missing" is one more cell of the column's histogram whether or not the data
has any, so its presence in a release reveals nothing.

A declaration may be *incomplete* (a numeric range with no public bound, a text column
with no generator): it loads, and :meth:`TableDomain.problems` names what the publisher
must still supply. Nothing here ever fills a gap from the data.

Domain sizes are exact Python integers and may exceed 10**12.

One module per concept: :mod:`.column` (the base, drop, categorical), :mod:`.ranges` (the range
kinds' base :class:`RangeDomain` with their shared checks, integer, float), :mod:`.dates`,
:mod:`.text`, :mod:`.table`, :mod:`.declaration` (JSON in and out), :mod:`.kinds` (one statement
of each kind's keys, which the schema, the parser and the Domain page are built from),
:mod:`.schema` (the form of a declaration), :mod:`.templates`, :mod:`.public_lists`, :mod:`.header` (what a
header's names say about how to read it), and the published data dictionaries read as starting declarations:
:mod:`.table_schema`, :mod:`.redcap`, :mod:`.ddi`.
"""

from __future__ import annotations

from ..wording import size_in_words
from .column import CategoricalDomain, ColumnDomain, DropDomain
from .dates import DateDomain, DateTimeDomain, TimeDomain
from .declaration import KINDS, column_from_json, parse_declaration, read_declaration_bytes
from .kinds import DEFAULT_ALPHABET, KIND_STATEMENTS, RANGE_KINDS, TEXT_GENERATORS, TIME_KINDS
from .ranges import FloatDomain, IntegerDomain, RangeDomain
from .table import PersonUnit, TableDomain, as_table_domain
from .text import TextDomain

__all__ = [
    "KINDS",
    "KIND_STATEMENTS",
    "TEXT_GENERATORS",
    "DEFAULT_ALPHABET",
    "ColumnDomain",
    "DropDomain",
    "CategoricalDomain",
    "RangeDomain",
    "IntegerDomain",
    "FloatDomain",
    "DateDomain",
    "DateTimeDomain",
    "TimeDomain",
    "RANGE_KINDS",
    "TIME_KINDS",
    "TextDomain",
    "TableDomain",
    "PersonUnit",
    "as_table_domain",
    "column_from_json",
    "parse_declaration",
    "read_declaration_bytes",
    "size_in_words",
]
