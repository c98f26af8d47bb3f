"""Reading tables: CSV or TSV with the encoding and delimiter detected, every cell kept as text.

Cells are read as text so that each column is parsed by its declared kind (a ZIP code
keeps its leading zero, ``1e+05`` is read as a number only where a number is declared).
Problems raise :class:`~dpsynth_core.errors.DataError` with a message that says what to do.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd

from .errors import DataError

_ENCODINGS = ("utf-8", "cp1252")
_DELIMITERS = ",;\t|"


def decode_bytes(raw: bytes, name: str = "the file") -> tuple[str, str]:
    """Decode file bytes as text; returns ``(text, encoding)``."""
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:].decode("utf-8", errors="strict"), "utf-8 (with BOM)"
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16"), "utf-16"
        except UnicodeDecodeError:
            raise DataError(f"{name} starts like UTF-16 text but cannot be decoded as UTF-16") from None
    if raw.startswith(b"PK\x03\x04") or raw.startswith(b"\xd0\xcf\x11\xe0"):
        raise DataError(f"{name} is a spreadsheet or archive, not a CSV: save it as CSV (UTF-8) and try again")
    if b"\x00" in raw[:65536]:
        raise DataError(f"{name} contains binary data (NUL bytes): it is not a CSV text file")
    for encoding in _ENCODINGS:
        try:
            return raw.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    raise DataError(f"{name} is neither UTF-8 nor Windows-1252 text: save it as CSV UTF-8 and try again")


def sniff_delimiter(text: str) -> str:
    """The delimiter among , ; tab | that best explains the first lines (comma by default)."""
    sample = "\n".join(text[:65536].splitlines()[:50])
    try:
        return csv.Sniffer().sniff(sample, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        first = sample.splitlines()[0] if sample else ""
        counts = {d: first.count(d) for d in _DELIMITERS}
        best = max(counts, key=counts.get)
        return best if counts[best] else ","


def read_table(source, *, name: str | None = None) -> tuple[pd.DataFrame, dict]:
    """Read a CSV/TSV from a path, bytes or a binary file object.

    Returns:
        ``(frame, info)``: every cell as text (``str``), and ``info`` with the detected
        ``encoding``, ``delimiter``, ``rows``, ``columns`` and ``bytes``.
    """
    if isinstance(source, (str, Path)):
        path = Path(source)
        name = name or path.name
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise DataError(f"file not found: {path}") from None
        except IsADirectoryError:
            raise DataError(f"{path} is a folder, not a file") from None
    elif isinstance(source, (bytes, bytearray)):
        raw = bytes(source)
    else:
        raw = source.read()
    name = name or "the file"
    if not raw.strip():
        raise DataError(f"{name} is empty")
    text, encoding = decode_bytes(raw, name)
    delimiter = sniff_delimiter(text)
    try:
        frame = pd.read_csv(io.StringIO(text), sep=delimiter, dtype=str, keep_default_na=False,
                            skipinitialspace=False, engine="c")
    except pd.errors.EmptyDataError:
        raise DataError(f"{name} has no header row") from None
    except pd.errors.ParserError as exc:
        detail = str(exc).strip().splitlines()[-1]
        raise DataError(f"{name} is not a well-formed CSV: {detail}") from None
    if frame.shape[1] == 0:
        raise DataError(f"{name} has no columns")
    if len(frame) == 0:
        raise DataError(f"{name} has a header but no data rows")
    unnamed = [c for c in frame.columns if str(c).startswith("Unnamed: ")]
    if unnamed:
        raise DataError(f"{name} has {len(unnamed)} column(s) without a name in the header row")
    info = {"encoding": encoding, "delimiter": {"\t": "tab"}.get(delimiter, delimiter),
            "rows": len(frame), "columns": list(frame.columns), "bytes": len(raw)}
    return frame, info
