"""A CSV file's dialect for the engines, found without reading the file into memory.

The same choices as :func:`dpsynth_core.tables.read_table`, made on the file's head and one
streaming pass: the encoding (the publisher's, else a BOM, else UTF-8 when the whole file
decodes as UTF-8, else Windows-1252), the delimiter (:func:`~dpsynth_core.tables.sniff_delimiter`
on the head, unless given) and the column names (parsed by pandas from the header line,
so duplicate names get pandas' ``name.1`` suffixes exactly as in memory). Engines read
UTF-8 only, so a file in another encoding is first transcoded, streaming, to a temporary
UTF-8 copy.
"""

from __future__ import annotations

import codecs
import io
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import DataError
from ..tables import sniff_delimiter

HEAD_BYTES = 1 << 20
CHUNK_BYTES = 1 << 24
_NAMES = {"utf-8": "utf-8", "utf8": "utf-8", "utf-8-sig": "utf-8-sig", "cp1252": "cp1252",
          "windows-1252": "cp1252", "latin-1": "latin-1", "iso-8859-1": "latin-1", "utf-16": "utf-16"}


@dataclass
class CsvDialect:
    """How to read one CSV file: ``path`` is UTF-8 text (the file itself, or a transcoded copy)."""

    path: Path
    encoding: str
    delimiter: str
    columns: list
    transcoded: bool = False

    def cleanup(self) -> None:
        if self.transcoded:
            self.path.unlink(missing_ok=True)


def _check_head(head: bytes, name: str) -> None:
    if not head.strip():
        raise DataError(f"{name} is empty")
    if head.startswith(b"PK\x03\x04") or head.startswith(b"\xd0\xcf\x11\xe0"):
        raise DataError(f"{name} is a spreadsheet or archive, not a CSV: save it as CSV (UTF-8) and try again")
    if b"\x00" in head[:65536] and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataError(f"{name} contains binary data (NUL bytes): it is not a CSV text file")


def _decodes(path: Path, encoding: str) -> bool:
    """True when the whole file decodes in ``encoding`` (streaming, C-speed per chunk)."""
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                decoder.decode(chunk)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def detect_encoding(path: Path, head: bytes, name: str) -> str:
    """The Python codec :func:`~dpsynth_core.tables.decode_bytes` would choose for the whole file."""
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    for encoding in ("utf-8", "cp1252"):
        if _decodes(path, encoding):
            return encoding
    raise DataError(f"{name} is neither UTF-8 nor Windows-1252 text: save it as CSV UTF-8 and try again")


def _transcode(path: Path, encoding: str, directory: str | None) -> Path:
    handle, target = tempfile.mkstemp(suffix=".csv", prefix="dpsynth-utf8-", dir=directory)
    os.close(handle)
    try:
        with open(path, encoding=encoding, newline="") as src, open(target, "w", encoding="utf-8", newline="") as dst:
            while chunk := src.read(CHUNK_BYTES):
                dst.write(chunk)
    except UnicodeDecodeError:
        Path(target).unlink(missing_ok=True)
        raise DataError(f"{path.name} cannot be decoded as {encoding}: choose its encoding") from None
    return Path(target)


def sniff_csv(path, *, encoding: str | None = None, delimiter: str | None = None,
              temp_directory: str | None = None) -> CsvDialect:
    """The dialect of a local CSV file (the publisher's ``encoding``/``delimiter`` win when given)."""
    path = Path(path)
    name = path.name
    if not path.exists():
        raise DataError(f"file not found: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a folder, not a file")
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    _check_head(head, name)
    if encoding is not None:
        codec = _NAMES.get(encoding.lower().replace("_", "-"), encoding)
        try:
            codecs.lookup(codec)
        except LookupError:
            raise DataError(f"unknown encoding {encoding!r}: use utf-8, cp1252, latin-1 or utf-16") from None
    else:
        codec = detect_encoding(path, head, name)
    text = head.decode(codec, errors="ignore")
    if len(head) == HEAD_BYTES:  # the head may end inside a record: keep whole lines only
        text = text[: text.rfind("\n") + 1] or text
    delimiter = {"tab": "\t"}.get(delimiter, delimiter) or sniff_delimiter(text)
    try:
        columns = list(pd.read_csv(io.StringIO(text), sep=delimiter, dtype=str, keep_default_na=False,
                                   nrows=0).columns)
    except pd.errors.EmptyDataError:
        raise DataError(f"{name} has no header row") from None
    if not columns:
        raise DataError(f"{name} has no columns")
    unnamed = [c for c in columns if str(c).startswith("Unnamed: ")]
    if unnamed:
        raise DataError(f"{name} has {len(unnamed)} column(s) without a name in the header row")
    transcoded = codec not in ("utf-8", "utf-8-sig")
    target = _transcode(path, codec, temp_directory) if transcoded else path
    return CsvDialect(target, codec, delimiter, columns, transcoded)
