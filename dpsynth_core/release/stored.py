"""A release as the workspace keeps it: its settings, card and reports, and its synthetic file on demand."""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass

import pandas as pd

from ..wording import format_delta, format_epsilon


@dataclass
class StoredRelease:
    """A release kept in the workspace (the synthetic file is loaded on demand)."""

    id: int
    fingerprint: str
    created: str
    method: str
    settings: dict
    card: dict
    publisher_report: dict
    rows: int
    metrics: dict
    seconds: float | None
    source: str
    _workspace: object  # the Workspace that holds it (reads the file on demand)

    @property
    def epsilon(self) -> float | None:
        return self.card["guarantee"]["epsilon"]

    def csv_bytes(self) -> bytes:
        """The synthetic file exactly as it was first offered for download."""
        return gzip.decompress(self._workspace._blob(self.id))

    def data(self) -> pd.DataFrame:
        """The synthetic table, every cell as text (as an uploaded file is read)."""
        return pd.read_csv(io.BytesIO(self.csv_bytes()), dtype=str, keep_default_na=False)


def epsilon_words(release: StoredRelease) -> str:
    """The release's ε in plain digits, or "no guarantee"."""
    return "no guarantee" if release.epsilon is None else format_epsilon(release.epsilon)


def settings_summary(release: StoredRelease) -> dict:
    """The release's settings and guarantee, one plain line each (the Releases page's side-by-side table)."""
    s, g = release.settings, release.card["guarantee"]
    return {
        "method": release.card["method"]["title"],
        "ε asked for": f"{s.get('epsilon', ''):g}" if isinstance(s.get("epsilon"), (int, float)) else "",
        "guarantee": "none"
        if g["epsilon"] is None
        else f"ε = {format_epsilon(g['epsilon'])}, δ = {format_delta(g['delta'])} ({g['composition']})",
        "privacy unit": g["neighbouring"] or "none",
        "tolerance for randomness": "not used"
        if release.card["parameters"].get("rho") is None
        else f"{release.card['parameters']['rho']:g}",
        "rows": f"{release.rows:,} ({release.card['rows']['policy'].split(':')[0]})",
        "column groups": "; ".join(", ".join(x) for x in s.get("groups") or []) or "none",
        "made": f"{release.created} ({'app' if release.source == 'app' else 'command line'})"
        + (f" in {release.seconds:.1f} s" if release.seconds else ""),
    }
