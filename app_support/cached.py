"""Cached wrappers around core calls. Every input is an argument, so caching is safe."""

from __future__ import annotations

import functools
import json
import threading

import streamlit as st

from dpsynth_core.data import formats
from dpsynth_core.evaluation import metrics, summaries, teaching, values
from dpsynth_core.synthesizers import planning
from dpsynth_core.synthesizers.planning import resolution


@st.cache_data(show_spinner=False, max_entries=8)
def read_upload(
    raw: bytes,
    name: str,
    encoding: str | None = None,
    delimiter: str | None = None,
    sheet: str | None = None,
    header_row: int | None = None,
    header_rows: int | None = None,
    names: tuple[str, ...] | None = None,
):
    """Read an uploaded or bundled file of any format the core reads (cells as text:
    :func:`~dpsynth_core.data.formats.read_data`). Raises DataError or ParameterError with a clear message."""
    header = {"header_row": header_row, "header_rows": header_rows, "names": names}
    return formats.read_data(raw, name=name, encoding=encoding, delimiter=delimiter, sheet=sheet, **header)


@st.cache_data(show_spinner=False, max_entries=8)
def misfits(_frame, fingerprint: str, declaration_json: str):
    """The publisher-only check of the file against its declaration (:func:`~dpsynth_core.data.misfits.fit_notes`:
    columns most of whose cells would become missing, times a release drops, missing values' usual spellings,
    shares stored as fractions, total rows, cells read by another name of their country or US state), per file
    (``fingerprint``) and declaration, so a rerun of the page does not read the file again."""
    from dpsynth_core.data.misfits import fit_notes
    from dpsynth_core.domain import TableDomain

    return fit_notes(_frame, TableDomain.from_json(json.loads(declaration_json)))


@st.cache_data(show_spinner=False, max_entries=8)
def upload_sheets(raw: bytes, name: str) -> list[str]:
    """A spreadsheet's sheets, from its directory (no cell read); [] for other formats."""
    return formats.list_sheets(raw, name)


@st.cache_data(show_spinner=False, max_entries=8)
def upload_codebook(raw: bytes, name: str) -> dict | None:
    """A statistical package's codebook, from its metadata only (no record read); None for other formats."""
    return formats.codebook(raw, name)


_SOURCE_LOCK = threading.Lock()
_SOURCE: dict = {}


def counting_source(frame, fingerprint: str, declaration: dict, *, build: bool = True):
    """The table encoded over ``declaration`` (:class:`~dpsynth_core.engines.memory.MemorySource`), kept
    for the next draw on the same data (``fingerprint``) and declaration, so it is encoded once rather
    than every draw; a release drawn through it is the one drawn from the frame. ``build=False``: None
    unless already kept (a draw never encodes before its spend is recorded). One table at a time, on
    the server only; callable from the draw's worker thread (no Streamlit call)."""
    key = (fingerprint, json.dumps(declaration, sort_keys=True, default=str))
    with _SOURCE_LOCK:
        if _SOURCE.get("key") != key:
            if not build:
                return None
            from dpsynth_core.domain import as_table_domain
            from dpsynth_core.engines.memory import MemorySource

            _SOURCE.clear()
            _SOURCE.update(key=key, source=MemorySource(frame, as_table_domain(declaration)))
        return _SOURCE["source"]


@st.cache_data(show_spinner=False, max_entries=256)
def column_plan(
    declaration_json: str,
    epsilon: float,
    rho: float,
    method: str,
    rows: int | None,
    expected_rows: int,
    options_json: str = "{}",
):
    """The method's plan per column (``rows``: the public row count or None; ``options_json``: its options)."""
    return planning.column_plan(
        json.loads(declaration_json),
        epsilon,
        rho,
        method=method,
        rows=rows,
        expected_rows=expected_rows,
        **json.loads(options_json),
    )


@st.cache_data(show_spinner=False, max_entries=256)
def numeric_resolution(
    declaration_json: str,
    epsilon: float,
    rho: float,
    method: str,
    rows: int | None,
    expected_rows: int,
    options_json: str = "{}",
    edges_for: tuple[str, ...] | None = None,
):
    """:func:`~dpsynth_core.synthesizers.resolution.numeric_resolution` (reads no data) by column name, public edges
    priced for the columns ``edges_for`` only (None: all; each is a plan of the whole declaration, so a page of a
    wide table prices the columns it shows)."""
    settings = (declaration_json, epsilon, rho, method, rows, expected_rows, options_json)
    entries = _with_settings(resolution.numeric_resolution, settings, edges_for=edges_for)
    return {e["column"]: e for e in entries}


@st.cache_data(show_spinner=False, max_entries=64)
def count_sigmas(settings: tuple) -> list[float]:
    """:func:`~dpsynth_core.synthesizers.planning.resolution.count_sigmas` (reads no data) at the cached plan's
    ``settings`` (:func:`numeric_resolution`'s arguments): every column's noise on a count."""
    return _with_settings(resolution.count_sigmas, settings)


@st.cache_data(show_spinner=False, max_entries=64)
def fewer_columns(settings: tuple):
    """:func:`~dpsynth_core.synthesizers.planning.resolution.fewer_columns` (reads no data) at the cached plan's
    ``settings`` (:func:`numeric_resolution`'s arguments): how many columns could go without the table being thin."""
    return _with_settings(resolution.fewer_columns, settings)


def _with_settings(advice, settings: tuple, **extra):
    """A :mod:`~dpsynth_core.synthesizers.planning.resolution` function at the cached plan's keys (and ``extra``
    keywords): the row figure is the release's fixed count, else the file's."""
    declaration_json, epsilon, rho, method, rows, expected_rows, options_json = settings
    return advice(
        json.loads(declaration_json),
        epsilon,
        rho,
        rows=rows or expected_rows,
        method=method,
        fixed_rows=rows,
        **extra,
        **json.loads(options_json),
    )


@st.cache_data(show_spinner=False, max_entries=256)
def row_warning(
    declaration_json: str, epsilon: float, method: str, rows: int | None, expected_rows: int, options_json: str = "{}"
) -> str | None:
    """:func:`~dpsynth_core.synthesizers.planning.row_count_note`: the noisy row count's noise beside the table,
    from the charge :func:`price` has (the page prices the same settings first)."""
    charge = price(declaration_json, epsilon, method, rows, options_json)
    note = functools.partial(planning.row_count_note, charge=charge)
    return _planned(note, declaration_json, epsilon, method, rows, expected_rows, options_json)


@st.cache_data(show_spinner=False, max_entries=256)
def budget_split(
    declaration_json: str, epsilon: float, method: str, rows: int | None, expected_rows: int, options_json: str = "{}"
):
    """:func:`~dpsynth_core.synthesizers.planning.budget_split`: the budget's parts, for the Privacy page's chart."""
    return _planned(planning.budget_split, declaration_json, epsilon, method, rows, expected_rows, options_json)


def _planned(function, declaration_json: str, epsilon: float, method: str, rows, expected_rows: int, options_json: str):
    """A planning function of the declaration, epsilon and the method's settings, given as the cache's keys."""
    return function(
        json.loads(declaration_json),
        epsilon,
        method=method,
        rows=rows,
        expected_rows=expected_rows,
        **json.loads(options_json),
    )


@st.cache_data(show_spinner=False, max_entries=256)
def price(declaration_json: str, epsilon: float, method: str, rows: int | None, options_json: str = "{}"):
    """The exact charge of a draw with these settings (what the ledger will record), before any data is read."""
    return planning.price(json.loads(declaration_json), epsilon, method=method, rows=rows, **json.loads(options_json))


def paired(entry: dict, real, declaration: dict) -> dict:
    """Both tables over the declared cells, kept with the release entry for the session."""
    if "_pairs" not in entry:
        entry["_pairs"] = metrics.paired_codes(real, entry["data"], declaration)
    return entry["_pairs"]


def dominant_values(entry: dict, real, domain) -> list[str]:
    """The publisher-only notes of free-text columns a value dominates
    (:func:`~dpsynth_core.evaluation.summaries.dominant_values_in_data`), computed once and kept with the release
    entry for the session, so a rerun of the Preview (any click on its tabs) does not read the data again."""
    if "_dominant" not in entry:
        entry["_dominant"] = summaries.dominant_values_in_data(real, entry["data"], domain)
    return entry["_dominant"]


def quality(entry: dict, name: str, real, declaration: dict, report=lambda done, message: None):
    """One publisher-only measure of a release, computed once and kept with it (JSON form): "values"
    (:func:`values.value_summaries`) or one of :data:`summaries.MEASURES`. Nothing here enters a release."""
    if name not in entry["metrics"]:
        if name == "values":  # numeric and date columns value by value (no bins): a few tenths of a second
            entry["metrics"][name] = values.value_summaries(real, entry["data"], declaration)
        else:
            report(0.05, "Reading both tables over the declared cells")
            entry["metrics"][name] = summaries.measure(name, paired(entry, real, declaration), report)
    return entry["metrics"][name]


@st.cache_data(show_spinner=False, max_entries=16)
def k_anonymous_example(k: int):
    return teaching.k_anonymous_example(k)


@st.cache_data(show_spinner=False, max_entries=16)
def dp_share_with_and_without(k: int, epsilon: float):
    return teaching.dp_share_with_and_without(k, epsilon, example=k_anonymous_example(k))


@st.cache_data(show_spinner=False, max_entries=32)
def bad_bins_exact(epsilon: float) -> dict:
    return teaching.bad_bins_exact(epsilon)
