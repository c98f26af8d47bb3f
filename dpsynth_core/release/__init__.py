"""Making releases: ``synthesize(data, domain, epsilon)`` returns the synthetic table and its card.

A release's settings are stated once (:mod:`.settings`: :func:`prepare` checks them and prices the
draw, :meth:`ReleaseSettings.run` makes it); the release is drawn and written by :mod:`.drawing` and
:mod:`.writer`, described by its card (:mod:`.card`), and can be rerun by an auditor (:mod:`.rerun`).
"""

from .drawing import ChunksAhead, Release
from .rerun import rerun_script, rerun_settings
from .settings import OpenedTable, ReleaseSettings, prepare, synthesize, warm_up_release

__all__ = [
    "ChunksAhead",
    "OpenedTable",
    "Release",
    "ReleaseSettings",
    "prepare",
    "rerun_script",
    "rerun_settings",
    "synthesize",
    "warm_up_release",
]
