"""The Release page's downloads: the synthetic CSV, the card (HTML and JSON), the declaration, and what an
auditor reruns the release with (a script and its settings)."""

from __future__ import annotations

import json

import streamlit as st

from app_support import state
from dpsynth_core.release.card import render_card_html
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
    e1, e2 = st.columns(2)  # an auditor reruns the release with these and the declaration, on the same file
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
