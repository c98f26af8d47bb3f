"""The bundled example tables (``assets/examples/``), each with its domain declaration.

A bundled *policy* (``NAME.policy.json``), when present, is a complete declaration a
publisher saved earlier: the documented domain plus the bounds the documentation leaves
open, set by a stated public convention (see its ``notes``), never from the data.
"""

from __future__ import annotations

import json
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "assets" / "examples"

EXAMPLES = {
    "adult": "US Census 1994 extract (UCI Adult): 32,561 people, 15 columns, income above or below $50K",
    "ce": "Consumer Expenditure Survey 2017 sample: 994 households, 4 columns (income and spending have no "
    "published bounds: the saved policy states the ones it assumes)",
}


def example_csv(name: str) -> Path:
    return EXAMPLES_DIR / f"{name}.csv"


def example_declaration(name: str) -> dict:
    """The example's saved policy if bundled, else its documented domain file."""
    policy = EXAMPLES_DIR / f"{name}.policy.json"
    path = policy if policy.exists() else EXAMPLES_DIR / f"{name}.domain.json"
    return json.loads(path.read_text(encoding="utf-8"))
