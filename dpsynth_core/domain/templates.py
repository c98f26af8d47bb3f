"""Starting declarations from column *names* and public templates, never from values.

A template is only a first guess for the publisher to review: "age" becomes whole numbers
0..120, "sex" the public list Female/Male, a name or an id is dropped, a date asks for its
range. Anything unrecognised starts as free text with no generator, which the Domain page
flags until the publisher declares it.
"""

from __future__ import annotations

import re

from .public_lists import public_list

_RULES = [
    (
        r"(^|_)(id|uuid|ssn|email|e-mail|phone|address)$|^(name|first|last|full_?name|surname)$|case_?number",
        {"type": "drop"},
    ),
    (r"^age$", {"type": "integer", "min": 0, "max": 120}),
    (r"^(sex|gender)$", {"type": "categorical", "values": list(public_list("sex"))}),
    (r"(^|_)country$", {"type": "categorical", "values": list(public_list("countries"))}),
    (r"(^|_)state$", {"type": "categorical", "values": list(public_list("us_states"))}),
    (r"zip|postcode|postal", {"type": "text", "generator": "digits", "length": 5}),
    (r"date|dob|(^|_)(day|time)$|_on$", {"type": "date"}),
    (r"^(is|has)_|yes_?no", {"type": "categorical", "values": list(public_list("yes_no"))}),
]


def template_for(name: str) -> dict:
    """The starting declaration of one column, from its name alone."""
    lowered = name.strip().lower()
    for pattern, spec in _RULES:
        if re.search(pattern, lowered):
            return {k: (list(v) if isinstance(v, list) else v) for k, v in spec.items()}
    return {"type": "text"}


def declaration_from_names(names, dataset: str = "") -> dict:
    """A starting declaration for a table, built from its column names only."""
    return {
        "dataset": dataset,
        "documentation": "started from column-name templates; review every column",
        "columns": {name: template_for(name) for name in names},
    }
