"""A table file's bytes, read safely, and the publisher's text options for it.

The bytes: read with a size cap from a path, bytes or a binary file object; a folder or a device
refused before reading, and anything that is plainly not text (an image, an archive, a database,
control bytes in the first line) refused from the file's start alone. The options: the encoding
(None for automatic: the byte-order mark decides) and the delimiter, checked and normalised.
Reading the text into records is :mod:`.tables`'.
"""

from __future__ import annotations

import codecs
import re
import stat
from pathlib import Path

from .. import constraints
from ..errors import DataError

#: The delimiter of a file whose columns are aligned with spaces: each run of spaces or tabs outside quotes
#: separates two fields, and spaces at either end of a line are no field (as R's read.table and the
#: ``.data``/``.dat`` files of statistics archives have it).
SPACES = "spaces"

#: Encodings offered by the app (any other ASCII-compatible codec, or UTF-16/32, is accepted too).
ENCODINGS = ("auto", "utf-8", "windows-1252", "latin-1", "utf-16", "utf-16-le", "utf-16-be")

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
#: The opening bytes of common binary formats, and what to call them. Most binary files also
#: hold a control byte in their first line; these are named whatever their first line holds
#: (a PNG's first line is the 5 bytes ``\x89PNG\r``, text in Windows-1252).
_MAGIC = (
    (b"PK\x03\x04", "a spreadsheet or archive (zip)"),
    (b"\xd0\xcf\x11\xe0", "an old Excel spreadsheet"),
    (b"\x1f\x8b", "a compressed (gzip) file"),
    (b"%PDF", "a PDF document"),
    (b"PAR1", "a Parquet file"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"7z\xbc\xaf\x27\x1c", "a compressed (7-Zip) file"),
    (b"Rar!\x1a\x07", "a compressed (RAR) file"),
    (b"\xfd7zXZ\x00", "a compressed (xz) file"),
    (b"\x28\xb5\x2f\xfd", "a compressed (zstd) file"),
    (b"ARROW1", "an Arrow file"),
    (b"\x7fELF", "a program"),
)
_MAGIC_PATTERNS = (
    (re.compile(rb"RIFF.{4}WEBP", re.S), "a WebP image"),
    (re.compile(rb"RIFF.{4}(?:WAVE|AVI )", re.S), "a sound or video file"),
    (re.compile(rb"BZh[1-9]1AY&SY"), "a compressed (bzip2) file"),
)
#: Text formats that are not a table of lines, from their start: a web page (what many portals' ".xls" downloads
#: are), Excel's XML spreadsheet of 2003, JSON (an array of records or an object of them); and what to do.
_TEXT_FORMATS = (
    (re.compile(rb"(?:\xef\xbb\xbf)?\s*<(?:!doctype html|html|table)\b", re.I), "a web page (HTML)"),
    (re.compile(rb"(?:\xef\xbb\xbf)?\s*<\?xml[^>]*\?>\s*<\?mso-application[^>]*Excel", re.I), "an XML spreadsheet"),
    (re.compile(rb"(?:\xef\xbb\xbf)?\s*(?:\[\s*[\[{\"]|\{\s*\")"), "JSON"),
)
#: What to do with a file of one of :data:`_TEXT_FORMATS`.
TEXT_FORMAT_TODO = {
    "a web page (HTML)": "open it in a spreadsheet program and save it as .xlsx or CSV",
    "an XML spreadsheet": "open it in a spreadsheet program and save it as .xlsx or CSV",
    "JSON": "save the table as CSV (UTF-8) and try again",
}


def text_format(head: bytes) -> str | None:
    """What a text file's start says it is when it is no table of lines (:data:`_TEXT_FORMATS`), else None."""
    return next((what for pattern, what in _TEXT_FORMATS if pattern.match(head)), None)


_BAD = "\ud800"  # stands for bytes that could not be decoded (never produced by a strict decode)


def _mark_undecodable(error: UnicodeDecodeError):
    return _BAD, error.end


codecs.register_error("dpsynth-mark", _mark_undecodable)


#: How an encoding choice names the automatic reading with another encoding than Windows-1252 for a line that is
#: not UTF-8: ``auto:cp1250`` (a data package labelled Windows-1250, whose file may well be UTF-8 after all).
AUTO_WITH = "auto:"


def line_fallback(encoding: str | None) -> str | None:
    """The encoding of an automatic reading's lines that are not UTF-8 (``auto:X``'s ``X``, Windows-1252 for plain
    automatic reading), or None for an encoding chosen outright.

    >>> line_fallback(None), line_fallback("auto:iso8859-2"), line_fallback("utf-16")
    ('windows-1252', 'iso8859-2', None)
    """
    if encoding is None:
        return "windows-1252"
    return encoding[len(AUTO_WITH) :] if encoding.startswith(AUTO_WITH) else None


def mixed_label(then: str) -> str:
    """The label of a file read as UTF-8 with some lines in ``then`` (:func:`~.tables.read_table`'s
    ``info["encoding"]``); :func:`label_fallback` reads it back."""
    return f"utf-8, and {then} for lines that are not utf-8"


def label_fallback(label: str) -> str | None:
    """The second encoding a :func:`mixed_label` names, or None for any other label.

    >>> label_fallback(mixed_label("cp1250")), label_fallback("utf-8")
    ('cp1250', None)
    """
    match = re.fullmatch(r"utf-8, and (\S+) for lines that are not utf-8", label)
    return match[1] if match else None


def is_wide(encoding: str) -> bool:
    """Whether ``encoding`` writes ASCII in two or four bytes (UTF-16, UTF-32): no line is read on its own."""
    return encoding.startswith(("utf-16", "utf-32"))


def encoding_words(name: str) -> str:
    """A codec's name as a publisher knows the encoding.

    >>> encoding_words("cp1250"), encoding_words("windows-1252"), encoding_words("iso8859-2"), encoding_words("koi8-r")
    ('Windows-1250', 'Windows-1252', 'ISO-8859-2', 'koi8-r')
    """
    if match := re.fullmatch(r"(?:cp|windows-)(125\d)", name):
        return f"Windows-{match[1]}"
    if match := re.fullmatch(r"iso-?8859-(\d+)", name):
        return f"ISO-8859-{match[1]}"
    return name


def read_encoding_words(label: str) -> str:
    """How a file's text was read (:func:`~.tables.read_table`'s ``info["encoding"]``), in words.

    >>> read_encoding_words("utf-8, and cp1250 for lines that are not utf-8")
    'UTF-8 text (Windows-1250 for lines that are not UTF-8)'
    >>> read_encoding_words("utf-16-le (byte-order mark)"), read_encoding_words("windows-1252")
    ('utf-16-le text (byte-order mark)', 'Windows-1252 text')
    """
    if then := label_fallback(label):
        return f"UTF-8 text ({encoding_words(then)} for lines that are not UTF-8)"
    name, _, note = label.partition(" (")
    name = {"utf-8": "UTF-8", "ascii": "ASCII"}.get(name) or encoding_words(name)
    return f"{name} text" + (f" ({note}" if note else "")


def encoding_choice_words(choice: str | None) -> str:
    """An encoding choice as the Data page lists it.

    >>> encoding_choice_words("auto"), encoding_choice_words("auto:cp1250"), encoding_choice_words("utf-16")
    ('automatic', 'automatic, with Windows-1250 for a line that is not UTF-8', 'utf-16')
    """
    if choice in (None, "auto"):
        return "automatic"
    then = line_fallback(choice)
    return choice if then is None else f"automatic, with {encoding_words(then)} for a line that is not UTF-8"


def check_encoding(encoding) -> str | None:
    """Normalise the publisher's encoding choice (None or "auto": from the byte-order mark, else each line as UTF-8
    and one that is not as Windows-1252; ``auto:X``: the same with ``X`` for such a line, ``X`` an encoding that
    keeps ASCII as it is, as a legacy code page does).

    >>> check_encoding("auto:ISO-8859-2"), check_encoding("auto:windows-1252"), check_encoding("auto:UTF8")
    ('auto:iso8859-2', None, None)
    """
    if encoding is None or (isinstance(encoding, str) and encoding.strip().lower() in ("", "auto")):
        return None
    if not isinstance(encoding, str) or len(encoding) > 40:
        raise DataError(f"encoding ({encoding!r}) must be one of {', '.join(ENCODINGS)} or another text encoding")
    if encoding.strip().lower().startswith(AUTO_WITH):
        then = check_encoding(encoding.strip()[len(AUTO_WITH) :]) or "utf-8"
        if is_wide(then) or then.startswith(AUTO_WITH):
            raise DataError(f"encoding ({encoding!r}): after 'auto:' name a one-byte encoding such as cp1250")
        return None if then in ("utf-8", "windows-1252") else AUTO_WITH + then
    try:
        name = codecs.lookup(encoding.strip()).name
    except LookupError:
        raise DataError(
            f"encoding ({encoding!r}) is not a known text encoding; use one of {', '.join(ENCODINGS)}"
        ) from None
    aliases = {"cp1252": "windows-1252", "iso8859-1": "latin-1", "utf-8-sig": "utf-8"}
    name = aliases.get(name, name)
    if not is_wide(name):
        try:
            ascii_safe = '\n,;\t|"'.encode(name) == b'\n,;\t|"'
            bytes(range(256)).decode(name, "dpsynth-mark")  # any bytes: decoded, or marked line by line
        except (UnicodeError, LookupError, TypeError, ValueError):
            ascii_safe = False
        if not ascii_safe:
            raise DataError(
                f"encoding ({encoding!r}) is not a text encoding that keeps line ends and "
                f"delimiters as they are; use one of {', '.join(ENCODINGS)}"
            )
    return name


def check_delimiter(delimiter) -> str | None:
    """Normalise the publisher's delimiter choice (None or "auto": from the header line; "spaces" or
    "whitespace": :data:`SPACES`)."""
    if delimiter is None or (isinstance(delimiter, str) and delimiter.strip().lower() in ("auto",)):
        return None
    if isinstance(delimiter, str) and delimiter.lower() in ("tab", "\\t"):
        return "\t"
    if isinstance(delimiter, str) and delimiter.strip().lower() in (SPACES, "whitespace"):
        return SPACES
    if (
        not isinstance(delimiter, str)
        or len(delimiter) != 1
        or delimiter == '"'
        or not delimiter.isascii()
        or not (delimiter.isprintable() or delimiter == "\t")
        or delimiter.isalnum()
    ):
        raise DataError(
            f"delimiter ({delimiter!r}) must be one ASCII punctuation character, a space, 'tab' or "
            "'spaces' (such as , ; |), not a letter, a digit, a quote or a line end"
        )
    return delimiter


def read_capped(source, name: str, encoding: str | None, *, text: bool = True) -> bytes:
    """The bytes of ``source`` (a path, bytes or a binary file object), read with a cap; ``text``: refuse
    what is plainly not text (a CSV's reading; a spreadsheet's or a statistical package's is binary)."""
    limit = constraints.MAX_FILE_BYTES
    too_big = f"{name} is larger than {limit >> 20:,} MB, the most this tool reads"
    sniff = _sniff_binary if text else lambda *_: None
    if isinstance(source, (bytes, bytearray, memoryview)):
        raw = bytes(source)
        if len(raw) > limit:
            raise DataError(too_big)
        sniff(raw[: constraints.BINARY_SNIFF_BYTES], name, encoding)
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
            size = info.st_size / 2**20
            raise DataError(f"{name} is {size:,.0f} MB, larger than the {limit >> 20:,} MB this tool reads")
        try:
            with path.open("rb") as handle:
                return _read_stream(handle, name, limit, too_big, encoding, sniff)
        except OSError as exc:
            raise DataError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if hasattr(source, "read"):
        return _read_stream(source, name, limit, too_big, encoding, sniff)
    raise DataError(f"data must be a path, bytes or a binary file, got {type(source).__name__}")


def _read_stream(handle, name: str, limit: int, too_big: str, encoding: str | None, sniff) -> bytes:
    head = handle.read(constraints.BINARY_SNIFF_BYTES)
    if not isinstance(head, (bytes, bytearray)):
        raise DataError(f"{name} must be opened in binary mode ('rb')")
    sniff(head, name, encoding)
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
    what = next((what for magic, what in _MAGIC if head.startswith(magic)), None) or next(
        (what for pattern, what in _MAGIC_PATTERNS if pattern.match(head)), None
    )
    what = what or text_format(head)
    if what:
        todo = (
            "unpack it and read the file inside"
            if "compressed" in what
            else TEXT_FORMAT_TODO.get(what, "save it as CSV (UTF-8) and try again")
        )
        raise DataError(f"{name} is {what}, not a CSV: {todo}")
    found, _ = byte_order_mark(head)
    wide = is_wide(encoding) if line_fallback(encoding) is None else found is not None and is_wide(found)
    region = head.split(b"\n", 1)[0]
    if not wide and _CONTROL.search(region):
        raise DataError(
            f"{name} holds binary data (NUL or control bytes) in its first line: it is not a CSV "
            "text file (if it is UTF-16 text without a byte-order mark, choose that encoding)"
        )


def cr_line_ends(start: bytes | str) -> bool:
    """Whether a file ends its lines with a carriage return alone, as classic Mac OS and Excel's "CSV (Macintosh)"
    wrote them: its first line end is a CR not followed by a line feed. A property of the file's start (its first
    line), as the header's delimiter is; ``start`` is its text, or its bytes after any byte-order mark."""
    cr, lf = ("\r", "\n") if isinstance(start, str) else (b"\r", b"\n")
    first = start.find(lf)  # only the first line is looked at (the whole text when it has no line feed)
    at = start.find(cr, 0, first if first >= 0 else len(start))
    return at >= 0 and start[at + 1 : at + 2] != lf


def byte_order_mark(raw: bytes) -> tuple[str | None, int]:
    for mark, encoding in _BOMS:
        if raw.startswith(mark):
            return encoding, len(mark)
    return None, 0
