"""Showing a release card inside the app at full height (no frame), with its styles scoped to it."""

from __future__ import annotations

import re

import streamlit as st

from dpsynth_core.release.card import render_card_html

_SCOPED_CSS = """
<style>
.dp-card { line-height: 1.5; color: #1b1b1b; }
.dp-card h1 { font-size: 1.7rem; margin: .4rem 0; }
.dp-card h2 { font-size: 1.3rem; margin-top: 1.6rem; border-bottom: 1px solid #ccc; }
.dp-card table { border-collapse: collapse; width: 100%; margin: .5rem 0; font-size: .95rem; }
.dp-card td, .dp-card th { border: 1px solid #ddd; padding: .35rem .55rem; text-align: left; vertical-align: top; }
.dp-card .guarantee { background: #eef6ee; border-left: 6px solid #2e7d32; padding: 1rem; }
.dp-card .guarantee.none { background: #fdecea; border-left-color: #c62828; }
.dp-card .summary { background: #eef3fa; border-left: 6px solid #1f5fa8; padding: .8rem 1rem; }
.dp-card .muted { color: #555; font-size: .92rem; }
.dp-card td.num { text-align: right; white-space: nowrap; }
.dp-card .figure svg { max-width: 100%; height: auto; }
.dp-card .card { border-top: 3px solid #1b1b1b; margin-top: 2rem; }
</style>
"""


def body_of(page: str) -> str:
    """The body of an HTML page, without its page-wide styles."""
    match = re.search(r"<body>(.*)</body>", page, re.S)
    return match.group(1) if match else page


def show_document(page: str) -> None:
    """A card or report page drawn in place at full height, its styles scoped to it."""
    st.html(_SCOPED_CSS + f'<div class="dp-card">{body_of(page)}</div>')


def show_page(page: str, height: int = 900) -> None:
    """A whole self-contained page (a report: its own styles and inline SVG charts) exactly as downloaded,
    in a frame of ``height`` pixels that scrolls (``st.html`` sanitises inline SVG away). The page is the project's
    own, every name and figure in it escaped when it was written (:mod:`dpsynth_core.evaluation.report_render`)."""
    st.iframe(page, height=height)


def show_card(card: dict) -> None:
    show_document(render_card_html(card))
