"""What privacy choices imply, before any data is touched: the plan per column (:mod:`.plan`) and how fine
numeric columns can come out (:mod:`.resolution`). Both read no data."""

from . import resolution
from .plan import (
    ESTIMATE_NOTE,
    PLAN_HELP,
    budget_split,
    column_plan,
    epsilon_advice,
    epsilon_guidance,
    made_up_share,
    plan_table,
    price,
    privacy_note,
    row_count_note,
    text_outlook,
    uses_tolerance,
)
from .resolution import numeric_resolution, resolution_words

__all__ = [
    "ESTIMATE_NOTE",
    "PLAN_HELP",
    "budget_split",
    "column_plan",
    "epsilon_advice",
    "epsilon_guidance",
    "made_up_share",
    "numeric_resolution",
    "plan_table",
    "price",
    "privacy_note",
    "resolution",
    "resolution_words",
    "row_count_note",
    "text_outlook",
    "uses_tolerance",
]
