"""Text from the data or the declaration (column names, category values, problems naming them) shown inside
Streamlit's markdown as it is: there ``$...$`` starts a formula and ``*`` emphasis, so a table with columns
``Income ($)`` and ``Rent ($)`` would show its problems as a garbled formula."""

from __future__ import annotations


def literal(text: object) -> str:
    """``text`` with the markdown characters that data-derived text meets escaped (``$``, ``*``).

    >>> literal("column 'Income ($)': no public minimum; column 'Rent ($)': no public *maximum*")
    "column 'Income (\\\\$)': no public minimum; column 'Rent (\\\\$)': no public \\\\*maximum\\\\*"
    """
    return str(text).replace("\\", "\\\\").replace("$", "\\$").replace("*", "\\*")
