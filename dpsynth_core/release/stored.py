"""A release as the workspace keeps it: its settings, card and reports, and its synthetic file on demand."""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass

import pandas as pd


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
