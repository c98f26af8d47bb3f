"""Reading tables: CSV or TSV, every cell kept as text, each record read on its own.

Cells are read as text so that each column is parsed by its declared kind (a ZIP code
keeps its leading zero, ``1e+05`` is read as a number only where a number is declared).

**No record changes how another is read.** The encoding and the delimiter are the
publisher's choice, or a property of the start of the file alone (a byte-order mark; the
header line's delimiter), never of the records. Then a per-record rule (the README's "one
line, one record"):

* a record is one line, ended by a line feed (a carriage return before it is dropped);
  empty lines are skipped; the header is the first non-empty line;
* with the automatic encoding, a byte-order mark decides (UTF-8, UTF-16, UTF-32); without
  one, each line is read as UTF-8, and a line that is not valid UTF-8 is read as
  Windows-1252 (a rule applied to that line alone);
* a line becomes a row of missing cells when it cannot be decoded, holds a NUL character,
  is longer than ``MAX_LINE_CHARS``, has broken quoting (a quoted field not closed on the
  same line, or a closing quote followed by anything but the delimiter) or has a different
  number of fields from the header. A quoted field therefore never continues on the next
  line, so one record can never swallow the records after it.

How many lines each rule touched goes to ``info["lines"]``: for the publisher only (the
Data page, the CLI's stderr, the publisher report), never into a release. Only problems of
the file as a whole or of its header raise :class:`~dpsynth_core.errors.DataError`. The one
decision that depends on records is that a file with none at all is refused.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import constraints
from ..errors import DataError

if TYPE_CHECKING:  # imported where they are used, so the command line starts fast
    import pandas as pd
    import pyarrow as pa

#: Delimiters looked for in the header line, in the order that breaks ties.
DELIMITERS = (",", "\t", ";", "|")
#: Encodings offered by the app (any other ASCII-compatible codec, or UTF-16/32, is accepted too).
ENCODINGS = ("auto", "utf-8", "windows-1252", "latin-1", "utf-16", "utf-16-le", "utf-16-be")

_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
#: The opening bytes of common binary formats, and what to call them. Most binary files also
#: hold a control byte in their first line; these are named whatever their first line holds
#: (a PNG's first line is the 5 bytes ``\x89PNG\r``, text in Windows-1252).
_MAGIC = ((b"PK\x03\x04", "a spreadsheet or archive (zip)"), (b"\xd0\xcf\x11\xe0", "an old Excel spreadsheet"),
          (b"\x1f\x8b", "a compressed (gzip) file"), (b"%PDF", "a PDF document"), (b"PAR1", "a Parquet file"),
          (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF87a", "a GIF image"),
          (b"GIF89a", "a GIF image"), (b"II*\x00", "a TIFF image"), (b"MM\x00*", "a TIFF image"),
          (b"SQLite format 3\x00", "an SQLite database"), (b"7z\xbc\xaf\x27\x1c", "a compressed (7-Zip) file"),
          (b"Rar!\x1a\x07", "a compressed (RAR) file"), (b"\xfd7zXZ\x00", "a compressed (xz) file"),
          (b"\x28\xb5\x2f\xfd", "a compressed (zstd) file"), (b"ARROW1", "an Arrow file"),
          (b"\x7fELF", "a program"))
_MAGIC_PATTERNS = ((re.compile(rb"RIFF.{4}WEBP", re.S), "a WebP image"),
                   (re.compile(rb"RIFF.{4}(?:WAVE|AVI )", re.S), "a sound or video file"),
                   (re.compile(rb"BZh[1-9]1AY&SY"), "a compressed (bzip2) file"))
_SURROGATE = re.compile("[\ud800-\udfff]")
_BAD = "\ud800"  # stands for bytes that could not be decoded (never produced by a strict decode)
_LINE_RULES = ("not decodable", "too long", "broken quoting", "wrong number of fields")


def _mark_undecodable(error: UnicodeDecodeError):
    return _BAD, error.end


codecs.register_error("dpsynth-mark", _mark_undecodable)


# --- options --------------------------------------------------------------------------------

def check_encoding(encoding) -> str | None:
    """Normalise the publisher's encoding choice (None or "auto": from the byte-order mark)."""
    if encoding is None or (isinstance(encoding, str) and encoding.strip().lower() in ("", "auto")):
        return None
    if not isinstance(encoding, str) or len(encoding) > 40:
        raise DataError(f"encoding ({encoding!r}) must be one of {', '.join(ENCODINGS)} or another text encoding")
    try:
        name = codecs.lookup(encoding.strip()).name
    except LookupError:
        raise DataError(f"encoding ({encoding!r}) is not a known text encoding; use one of "
                        f"{', '.join(ENCODINGS)}") from None
    aliases = {"cp1252": "windows-1252", "iso8859-1": "latin-1", "utf-8-sig": "utf-8"}
    name = aliases.get(name, name)
    if not _wide(name):
        try:
            ascii_safe = "\n,;\t|\"".encode(name) == b"\n,;\t|\""
            bytes(range(256)).decode(name, "dpsynth-mark")  # any bytes: decoded, or marked line by line
        except (UnicodeError, LookupError, TypeError, ValueError):
            ascii_safe = False
        if not ascii_safe:
            raise DataError(f"encoding ({encoding!r}) is not a text encoding that keeps line ends and "
                            f"delimiters as they are; use one of {', '.join(ENCODINGS)}")
    return name


def check_delimiter(delimiter) -> str | None:
    """Normalise the publisher's delimiter choice (None or "auto": from the header line)."""
    if delimiter is None or (isinstance(delimiter, str) and delimiter.strip().lower() in ("auto",)):
        return None
    if isinstance(delimiter, str) and delimiter.lower() in ("tab", "\\t"):
        return "\t"
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter == '"' or not delimiter.isascii() or \
            not (delimiter.isprintable() or delimiter == "\t") or delimiter.isalnum():
        raise DataError(f"delimiter ({delimiter!r}) must be one ASCII punctuation character, a space or 'tab' "
                        "(such as , ; |), not a letter, a digit, a quote or a line end")
    return delimiter


def _wide(encoding: str) -> bool:
    return encoding.startswith(("utf-16", "utf-32"))


# --- bytes ----------------------------------------------------------------------------------

def _read_capped(source, name: str, encoding: str | None) -> bytes:
    """The bytes of ``source`` (a path, bytes or a binary file object), read with a cap."""
    limit = constraints.MAX_FILE_BYTES
    too_big = f"{name} is larger than {limit >> 20:,} MB, the most this tool reads"
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
        if len(raw) > limit:
            raise DataError(too_big)
        _sniff_binary(raw[:constraints.BINARY_SNIFF_BYTES], name, encoding)
        return raw
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            info = path.stat()
        except FileNotFoundError:
            raise DataError(f"file not found: {path}") from None
        except OSError as exc:
            raise DataError(f"{path} cannot be read: {exc.strerror or exc}") from None
        if stat.S_ISDIR(info.st_mode):
            raise DataError(f"{path} is a folder, not a file")
        if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):  # /dev/zero, /dev/urandom, a disk, ...
            raise DataError(f"{path} is a device, not a file")
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise DataError(too_big)
        try:
            with path.open("rb") as handle:
                return _read_stream(handle, name, limit, too_big, encoding)
        except OSError as exc:
            raise DataError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if hasattr(source, "read"):
        return _read_stream(source, name, limit, too_big, encoding)
    raise DataError(f"data must be a path, bytes or a binary file, got {type(source).__name__}")


def _read_stream(handle, name: str, limit: int, too_big: str, encoding: str | None) -> bytes:
    head = handle.read(constraints.BINARY_SNIFF_BYTES)
    if not isinstance(head, (bytes, bytearray)):
        raise DataError(f"{name} must be opened in binary mode ('rb')")
    _sniff_binary(head, name, encoding)
    rest = handle.read(limit + 1 - len(head)) if len(head) <= limit else b""
    if len(head) + len(rest) > limit:
        raise DataError(too_big)
    return bytes(head) + bytes(rest)


_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _sniff_binary(head: bytes, name: str, encoding: str | None) -> None:
    """Refuse what is plainly not text, whatever the file's name, from its start only: the
    opening bytes of a known binary format (an image, an archive, a database, ...), or a
    control byte in the header region (up to the first line feed in the first read). A device
    such as /dev/zero is refused after one read, and a record's bytes never decide anything."""
    what = next((what for magic, what in _MAGIC if head.startswith(magic)), None) or \
        next((what for pattern, what in _MAGIC_PATTERNS if pattern.match(head)), None)
    if what:
        raise DataError(f"{name} is {what}, not a CSV: save it as CSV (UTF-8) and try again")
    found, _ = _bom(head)
    wide = _wide(encoding) if encoding is not None else found is not None and _wide(found)
    region = head.split(b"\n", 1)[0]
    if not wide and _CONTROL.search(region):
        raise DataError(f"{name} holds binary data (NUL or control bytes) in its first line: it is not a CSV "
                        "text file (if it is UTF-16 text without a byte-order mark, choose that encoding)")


def _bom(raw: bytes) -> tuple[str | None, int]:
    for mark, encoding in _BOMS:
        if raw.startswith(mark):
            return encoding, len(mark)
    return None, 0


# --- text -----------------------------------------------------------------------------------

def _decode(raw: bytes, encoding: str | None, name: str) -> tuple[list[str], np.ndarray, int, str]:
    """Lines of text, which of them could not be decoded, how many were read as Windows-1252,
    and the name of the encoding used."""
    found, skip = _bom(raw)
    if encoding is None:
        chosen = found or "utf-8"
    else:
        chosen = encoding
        if found is None or not found.startswith(chosen):
            skip = 0  # a byte-order mark of another encoding stays part of the text, as chosen
        elif skip:
            chosen = found
    body = raw[skip:]
    label = f"{chosen} (byte-order mark)" if found is not None and skip else chosen
    fallback = encoding is None and found is None
    errors = "surrogateescape" if fallback else "dpsynth-mark"
    if chosen in ("utf-16", "utf-32") and not skip:
        chosen += "-le"  # no byte-order mark: the common little-endian order
    text = body.decode(chosen, errors=errors)
    lines = text.split("\n")
    bad = np.zeros(len(lines), dtype=bool)
    recoded = 0
    if _SURROGATE.search(text):  # the rare path: look at the lines that did not decode
        for i, line in enumerate(lines):
            if not _SURROGATE.search(line):
                continue
            if fallback:
                again = line.encode("utf-8", "surrogateescape").decode("cp1252", "dpsynth-mark")
                if not _SURROGATE.search(again):
                    lines[i], recoded = again, recoded + 1
                    continue
            lines[i], bad[i] = "", True
    if fallback:
        label = "utf-8" + (", and windows-1252 for lines that are not utf-8" if recoded else "")
    return lines, bad, recoded, label


def _header_delimiter(header: str) -> str:
    """The candidate delimiter that occurs most often in the header, outside quotes (comma if none)."""
    bare = re.sub(r'"(?:[^"]|"")*"', "", header)
    counts = [bare.count(d) for d in DELIMITERS]
    return DELIMITERS[int(np.argmax(counts))] if max(counts) else ","


def _field_pattern(delimiter: str) -> str:
    d = re.escape(delimiter)
    return f'(?:"(?:[^"]|"")*"|[^"{d}][^{d}]*|)'


def _classify(lines, delimiter: str, fields: int) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """Per line: the rule that breaks it (index into _LINE_RULES, or -1) and whether it is empty;
    and the lines as an Arrow array (a trailing carriage return dropped).

    Vectorised with Arrow's compute functions (RE2 regular expressions, linear time).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    array = pc.utf8_rtrim(pa.array(lines, type=pa.large_string()), characters="\r")
    length = pc.utf8_length(array).to_numpy(zero_copy_only=False)
    empty = length == 0
    broken = np.full(len(lines), -1, dtype=np.int8)
    nul = pc.match_substring(array, "\x00").to_numpy(zero_copy_only=False)
    broken[nul] = 0
    broken[(broken < 0) & (length > constraints.MAX_LINE_CHARS)] = 1
    quoted = pc.match_substring(array, '"').to_numpy(zero_copy_only=False)
    count = pc.count_substring(array, delimiter).to_numpy(zero_copy_only=False) + 1
    todo = np.flatnonzero(quoted & (broken < 0))
    if len(todo):
        field = _field_pattern(delimiter)
        subset = array.take(pa.array(todo))
        d = re.escape(delimiter)
        well_formed = pc.match_substring_regex(subset, f"^{field}(?:{d}{field})*$").to_numpy(zero_copy_only=False)
        # Delimiters outside quotes: drop every quoted field (each starts the line or follows a
        # delimiter in a well-formed line), then count what is left.
        bare = pc.replace_substring_regex(subset, f'(^|{d})"(?:[^"]|"")*"', "\\1")
        count[todo] = pc.count_substring(bare, delimiter).to_numpy(zero_copy_only=False) + 1
        broken[todo[~well_formed]] = 2
    broken[(broken < 0) & (count != fields)] = 3
    return np.where(empty, -1, broken), empty, array


def _column_names(header: str, delimiter: str, name: str) -> list[str]:
    try:
        names = next(csv.reader([header], delimiter=delimiter, strict=True))
    except (csv.Error, StopIteration):
        raise DataError(f"{name}: the header line is not well formed (check its quotes)") from None
    if len(names) > constraints.MAX_COLUMNS:
        raise DataError(f"{name} has {len(names):,} columns, more than the {constraints.MAX_COLUMNS:,} allowed")
    unnamed = sum(1 for n in names if not n.strip())
    if unnamed:
        raise DataError(f"{name} has {unnamed} column(s) without a name in the header row")
    seen: dict = {}
    out = []
    for column in names:  # duplicates become name.1, name.2 (as pandas names them)
        label, k = column, seen.get(column, 0)
        while label in seen:
            k += 1
            label = f"{column}.{k}"
        seen[column] = k
        seen[label] = 0
        out.append(label)
    return out


def read_table(source, *, name: str | None = None, encoding: str | None = None,
               delimiter: str | None = None) -> tuple[pd.DataFrame, dict]:
    """Read a CSV/TSV from a path, bytes or a binary file object, one record per line.

    Args:
        source: a path, bytes or a binary file object (read up to ``MAX_FILE_BYTES``).
        name: how messages name the file.
        encoding: the publisher's choice (``"utf-8"``, ``"windows-1252"``, ``"utf-16"``, ...);
            None or ``"auto"``: a byte-order mark decides, else UTF-8 with Windows-1252 for a
            line that is not UTF-8.
        delimiter: the publisher's choice (``","``, ``";"``, ``"tab"``, ``"|"``, ...); None or
            ``"auto"``: the candidate that occurs most in the header line.

    Returns:
        ``(frame, info)``: every cell as text (a broken line's cells missing), and ``info``
        with ``encoding``, ``delimiter``, ``rows``, ``columns``, ``bytes`` and ``lines`` (how
        many lines each per-record rule touched: for the publisher only, never for a release).
    """
    if name is None:
        name = str(source) if isinstance(source, (str, Path)) else "the file"
    encoding, delimiter = check_encoding(encoding), check_delimiter(delimiter)
    raw = _read_capped(source, name, encoding)
    if not raw.strip():
        raise DataError(f"{name} is empty")
    lines, undecodable, recoded, used = _decode(raw, encoding, name)
    first = next((i for i, line in enumerate(lines) if line.strip("\r") or undecodable[i]), None)
    if first is None:
        raise DataError(f"{name} is empty")
    header = lines[first].rstrip("\r")
    if undecodable[first]:
        raise DataError(f"{name}: the header line cannot be decoded as {encoding or 'utf-8'}; choose the encoding")
    if len(header) > constraints.MAX_HEADER_CHARS:
        raise DataError(f"{name}: the first line is longer than {constraints.MAX_HEADER_CHARS:,} characters, "
                        "so it is not a CSV header")
    if "\x00" in header:
        raise DataError(f"{name}: the header line holds binary data (NUL characters)")
    delimiter = delimiter or _header_delimiter(header)
    columns = _column_names(header, delimiter, name)
    records = lines[first + 1:]
    del lines
    broken, empty, array = _classify(records, delimiter, len(columns))
    bad = undecodable[first + 1:]
    broken[bad], empty[bad] = 0, False  # an undecodable line was blanked, but it is a record
    keep = ~empty
    broken, array = broken[keep], array.filter(keep)
    if len(broken) == 0:
        raise DataError(f"{name} has a header but no data rows")
    good = np.flatnonzero(broken < 0)
    frame = _parse(array.take(good).to_pylist() if len(good) < len(broken) else array.to_pylist(),
                   columns, delimiter, name)
    if len(good) < len(broken):
        frame.index = good
        frame = frame.reindex(np.arange(len(broken)))
    frame = frame.reset_index(drop=True)
    tally = np.bincount(broken[broken >= 0], minlength=len(_LINE_RULES))
    lines_report = {"records": int(len(broken)), "broken": int(len(broken) - len(good)),
                    **{rule: int(n) for rule, n in zip(_LINE_RULES, tally)},
                    "read as windows-1252": int(recoded)}
    info = {"encoding": used, "delimiter": {"\t": "tab"}.get(delimiter, delimiter), "rows": len(frame),
            "columns": columns, "bytes": len(raw), "lines": lines_report}
    return frame, info


def _parse(lines: list[str], columns: list[str], delimiter: str, name: str):
    """Parse well-formed lines with the right number of fields (each one record, by construction)."""
    import pandas as pd  # imported here so that a file refused early costs no pandas import

    if not lines:
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in columns})
    frame = pd.read_csv(io.StringIO("\n".join(lines)), sep=delimiter, header=None, names=list(range(len(columns))),
                        dtype=str, keep_default_na=False, skip_blank_lines=False, lineterminator="\n",
                        quotechar='"', doublequote=True, engine="c")
    if len(frame) != len(lines):  # pragma: no cover - the classification guarantees one row per line
        raise DataError(f"{name}: internal reading error ({len(frame)} rows from {len(lines)} lines)")
    frame.columns = columns
    return frame


def line_report_text(lines: dict) -> str:
    """One sentence for the publisher saying how many lines the per-record rule touched."""
    parts = [f"{lines[rule]:,} {rule}" for rule in _LINE_RULES if lines.get(rule)]
    out = ""
    if lines.get("broken"):
        out = (f"{lines['broken']:,} of {lines['records']:,} lines could not be read as records "
               f"({', '.join(parts)}) and became rows of missing cells.")
    if lines.get("read as windows-1252"):
        out += (" " if out else "") + (f"{lines['read as windows-1252']:,} lines were not UTF-8 and were read as "
                                       "Windows-1252.")
    return out


