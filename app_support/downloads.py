"""The Release page's downloads: the synthetic CSV (and the same table in the publisher's own format: Excel,
SPSS, Stata, SAS transport, Parquet, or a CSV written as the upload was read), the card (HTML and JSON), the
declaration, and what an auditor reruns the release with (a script and its settings)."""

from __future__ import annotations

import json

import streamlit as st

from app_support import state
from dpsynth_core import DPSynthError
from dpsynth_core.release.card import render_card_html
from dpsynth_core.release.own_csv import csv_as_read_bytes, csv_dialect, describe
from dpsynth_core.release.own_formats import (
    WHOLE_FORMAT_HELP,
    WHOLE_FORMAT_NAMES,
    check_whole_format,
    same_format,
    whole_file_bytes,
)
from dpsynth_core.release.rerun import rerun_script, rerun_settings


def release_downloads(entry: dict, stem: str) -> None:
    """Two rows of download buttons for the release on show, files named from ``stem``."""
    workspace, card = state.workspace(), entry["card"]
    d1, d2, d3, d4 = st.columns(4)
    d1.download_button(
        "Synthetic data (CSV)",
        lambda release_id=entry["id"]: workspace.releases.get(release_id).csv_bytes(),
        file_name=f"{stem}_synthetic.csv",
        mime="text/csv",
        type="primary",
        key="release_csv",
        on_click="ignore",
    )
    d2.download_button(
        "Release card (HTML)",
        state.shareable(entry["id"], render_card_html(card)),
        file_name=f"{stem}_release_card.html",
        mime="text/html",
        key="release_card_html",
        on_click="ignore",
    )
    d3.download_button(
        "Release card (JSON)",
        state.shareable(entry["id"], json.dumps(card, indent=2)),
        file_name=f"{stem}_release_card.json",
        mime="application/json",
        key="release_card_json",
        on_click="ignore",
    )
    d4.download_button(
        "Domain declaration (JSON)",
        json.dumps(entry["settings"]["declaration"], indent=2).encode("utf-8"),
        file_name=f"{stem}.domain.json",
        mime="application/json",
        key="release_domain",
        on_click="ignore",
    )
    e1, e2, e3 = st.columns(3)  # an auditor reruns the release with these and the declaration, on the same file
    script = rerun_script(entry, declaration=f"{stem}.domain.json")
    e1.download_button(
        "Rerun script (Python)",
        state.shareable(entry["id"], script),
        file_name=f"rerun_{stem}.py",
        mime="text/x-python",
        key="release_rerun_script",
        on_click="ignore",
    )
    e2.download_button(
        "Release settings (JSON)",
        state.shareable(entry["id"], json.dumps(rerun_settings(entry), indent=2)),
        file_name=f"{stem}.settings.json",
        mime="application/json",
        key="release_settings",
        on_click="ignore",
    )
    own = same_format(state.data()["name"]) if state.has_data() else None
    dialect = csv_dialect(state.data()["info"], entry["settings"]["declaration"]) if state.has_data() else None
    if own is None and dialect is not None:  # a CSV of another language's spreadsheet, answered in its dialect
        e3.download_button(
            "Synthetic data (CSV as your file)",
            lambda release_id=entry["id"]: csv_as_read_bytes(workspace.releases.get(release_id).data(), dialect),
            file_name=f"{stem}_synthetic_as_read.csv",
            mime="text/csv",
            key="release_csv_as_read",
            on_click="ignore",
            help=describe(dialect) + " It opens in the spreadsheet your file came from as your file does.",
        )
    if own is not None:  # the publisher's own format, with the card's notes or the codebook restored
        title, mime = WHOLE_FORMAT_NAMES[own]
        try:
            check_whole_format(own, [c["column"] for c in card["domain"]["columns"] if c["kind"] != "drop"])
        except DPSynthError as problem:
            e3.caption(f"No {title} file: {problem}.")
            return
        e3.download_button(
            f"Synthetic data ({title})",
            lambda release_id=entry["id"]: _own_format_bytes(release_id, own),
            file_name=f"{stem}_synthetic.{own}",
            mime=mime,
            key="release_own_format",
            on_click="ignore",
            help=WHOLE_FORMAT_HELP[own],
        )


def _own_format_bytes(release_id: int, fmt: str) -> bytes:
    """The stored synthetic table as a file of the publisher's format (post-processing of the release)."""
    stored, access = state.workspace().releases.get(release_id), state.workspace().access
    card, declaration = (  # the card's notes and the codebook as every shareable download has them: scrubbed
        json.loads(access.shareable(release_id, json.dumps(part)))
        for part in (stored.card, stored.settings["declaration"])
    )
    return whole_file_bytes(stored.data(), fmt, card=card, declaration=declaration)
