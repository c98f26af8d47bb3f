"""Dropped identifiers whose values repeat: people with several rows, in a release that protects rows.

With no person declared a release protects each row: a person with k rows is protected as k records are (ε for each,
k·ε for them together, by group privacy). A file whose dropped identifier repeats, a subject's number on each of
their tests, holds such people, and a newcomer who drops the identifier as the Domain page asks has no reason to look
at the Privacy page's person unit. :func:`repeated_identifiers` says so before a draw, for the publisher only (it reads
the data; it names the column and counts, never a value): a note that stops nothing, since whether the column names
a person, and the public bound on a person's rows, are the publisher's to declare (:data:`REPEATED_HOW`).
"""

from __future__ import annotations

import re

import pandas as pd

from ..domain import TableDomain
from ..domain.templates import name_words
from .cell_counts import distinct_cells

#: A dropped column is read as an identifier when it has at least this many distinct values for each filled cell
#: (a person with up to 50 rows on average) ...
IDENTIFIER_SHARE = 0.02
#: ... and at least this share of its distinct values read as codes (:data:`_CODE`): a subject's number, a record's
#: code, an e-mail address; not a first name, a free-text answer or a date.
CODE_SHARE = 0.9
#: It is told when at least this share of its filled cells repeat a value held by another row.
REPEATED_SHARE = 0.01

#: A code: two characters or more, digits among them, with letters or separators around them (100034, P-0012,
#: 3fa85f64-5717), or an e-mail address; not a single digit (a category), a date (2012-01-31, 31/01/2012) nor a time.
_CODE = re.compile(r"^(?=[^/:\s]*\d)(?!\d{4}-\d\d-\d\d)[\w.\-]{2,}$|^[^@\s]+@[^@\s]+$")

#: Words that name a person, or a code of one, in a column's name (:func:`_names_an_identifier`).
_PERSON_WORDS = (
    "subject|subj|patient|pat|person|participant|respondent|resp|member|customer|client|student|employee|player|user"
    "|household|hh|family|fam|case|record|individual|child|mother|resident|account|email|ssn"
)
#: A column's name as an identifier's: an id (subject_id, playerID, USUBJID, idcode, PID) or a person's word
#: (sleepstudy's Subject); not a survey's weight (adult's fnlwgt, whose values repeat as a subject's number does).
_IDENTIFIER_NAME = re.compile(rf"(^|_)([a-z]*id|id[a-z]*|uuid|({_PERSON_WORDS})(_?(no|num|number|code|key))?)(_|$)")

#: A number with decimals: a measurement, not a code.
_DECIMAL = re.compile(r"-?[0-9]+\.[0-9]+")

#: What a release per row does for a person with several rows, and what to declare instead.
REPEATED_HOW = (
    "With no person declared, a release protects each row: a person with several rows is protected as that many "
    "records would be (at ε = 1, ε = 3 for a person's 3 rows together). If the column identifies a person (a patient, "
    "a respondent, a customer), choose it on the Privacy page as the column that identifies a person (--person on the "
    "command line), with the most rows one may have from the study's design, never from the data "
    "(--max-rows-per-person): ε then holds for each person, all their rows together. The Privacy page's check of rows "
    "per person counts with noise what that bound would drop."
)


def repeated_identifiers(data: pd.DataFrame, domain: TableDomain, counts: dict | None = None) -> list[str]:
    """For the publisher only (it reads the data): each dropped column named as an identifier (:data:`_IDENTIFIER_NAME`)
    that reads as one (at least :data:`IDENTIFIER_SHARE` distinct values a filled cell, :data:`CODE_SHARE` of them
    codes, not numbers with decimals) and repeats in at least :data:`REPEATED_SHARE` of its filled cells, while the
    release protects rows (no person declared); one line each with the counts (no value).

    >>> from dpsynth_core.domain import TableDomain
    >>> domain = TableDomain.from_json({"columns": {"id": {"type": "drop"}, "x": {"type": "integer", "min": 0,
    ...     "max": 9}}})
    >>> data = pd.DataFrame({"id": ["P1", "P1", "P2", "P3"], "x": ["1", "2", "3", "4"]})
    >>> repeated_identifiers(data, domain)
    ["Column 'id' (dropped): 2 of its 4 filled cells hold a value another row holds too (1 value in 2 rows or more)."]
    """
    if domain.person is not None:
        return []
    markers = set(domain.missing_markers)
    lines = []
    for name, column in domain.columns.items():
        if column.kind != "drop" or name not in data or not _IDENTIFIER_NAME.search(name_words(str(name))):
            continue
        distinct = distinct_cells(data, name, counts)  # for the publisher's eyes only: nothing declared comes from it
        texts = distinct.index.astype(str).str.strip()
        kept = ~texts.isin(markers) & (texts != "")
        distinct, texts = distinct[kept], texts[kept]
        filled = int(distinct.sum())
        if not filled or len(distinct) < IDENTIFIER_SHARE * filled:
            continue
        if texts.str.match(_CODE).mean() < CODE_SHARE or texts.str.fullmatch(_DECIMAL).mean() >= CODE_SHARE:
            continue  # not codes, or measurements written with decimals (a weight, a score)
        many = distinct[distinct > 1]
        repeated = int(many.sum())
        if repeated >= max(2, REPEATED_SHARE * filled):
            values = f"{len(many):,} value{'s' * (len(many) != 1)}"
            lines.append(
                f"Column '{name}' (dropped): {repeated:,} of its {filled:,} filled cells hold a value another row "
                f"holds too ({values} in 2 rows or more)."
            )
    return lines
