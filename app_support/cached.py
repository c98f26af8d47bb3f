"""Cached wrappers around core calls. Every input is an argument, so caching is safe."""

from __future__ import annotations

import json

import streamlit as st

from dpsynth_core import metrics, planning
from dpsynth_core.tables import read_table


@st.cache_data(show_spinner=False, max_entries=8)
def read_csv_bytes(raw: bytes, name: str):
    """Read an uploaded or bundled file (cells as text). Raises DataError with a clear message."""
    return read_table(raw, name=name)


@st.cache_data(show_spinner=False, max_entries=256)
def column_plan(declaration_json: str, epsilon: float, rho: float, rows_public: bool, method: str, rows: int):
    return planning.column_plan(json.loads(declaration_json), epsilon, rho, rows_public=rows_public,
                                method=method, rows=rows)


@st.cache_data(show_spinner=False, max_entries=256)
def budget_split(declaration_json: str, epsilon: float, rows_public: bool, method: str):
    return planning.budget_split(json.loads(declaration_json), epsilon, rows_public=rows_public, method=method)


def evaluate(real, synthetic, declaration: dict) -> dict:
    """Publisher-only quality measures (not cached here: stored with the release they belong to)."""
    return metrics.evaluate(real, synthetic, declaration)
