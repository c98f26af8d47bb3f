"""Reading tables: CSV or TSV, every cell kept as text, each record read on its own.

Cells are read as text so that each column is parsed by its declared kind (a ZIP code
keeps its leading zero, ``1e+05`` is read as a number only where a number is declared).

The file's bytes, read with a cap and refused when plainly not text, and the encoding and
delimiter options are :mod:`.file_bytes`'.

**No record changes how another is read.** The encoding and the delimiter are the
publisher's choice, or a property of the start of the file alone (a byte-order mark; the
header line's delimiter), never of the records. Then a per-record rule (the README's "one
line, one record"):

* a record is one line, ended by a line feed (a carriage return before it is dropped), or by a carriage
  return alone when the file's first line ends so (classic Mac OS, Excel's "CSV (Macintosh)");
  empty lines are skipped; the header is the first non-empty line (after Excel's ``sep=;`` line, which names
  the delimiter unless the publisher chose one), or the line the publisher
  names (``header_row``, numbered from 1 as a text editor numbers lines: a title or notes
  above it are skipped, never read as records), with the next lines that hold anything when the
  publisher says it spans several (``header_rows``: a survey tool's question above its answers);
* with the automatic encoding, a byte-order mark decides (UTF-8, UTF-16, UTF-32); without
  one, each line is read as UTF-8, and a line that is not valid UTF-8 is read as
  Windows-1252, or as an ``auto:`` choice says (``auto:cp1250``) (a rule applied to that line alone);
* a line becomes a row of missing cells when it cannot be decoded, holds a NUL character,
  is longer than ``MAX_LINE_CHARS``, has broken quoting (a quoted field not closed on the
  same line, or a closing quote followed by anything but the delimiter) or has a different
  number of fields from the header (a delimiter ending a line adds none: ``1,2,3,`` under ``a,b,c``
  is three fields). A quoted field therefore never continues on the next line, so one record can
  never swallow the records after it.

How many lines each rule touched goes to ``info["lines"]``: for the publisher only (the Data page, the CLI's
stderr, the publisher report, in words by :mod:`.line_report`), never into a release. Only problems of the file as
a whole or of its header raise :class:`~dpsynth_core.errors.DataError`. The one decision that depends on records is
that a file with none at all is refused.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .. import constraints
from ..errors import DataError
from . import file_bytes
from .file_bytes import SPACES, byte_order_mark, check_delimiter, check_encoding, cr_line_ends, read_capped
from .header_names import NO_HEADER, join_header_rows, name_columns, numbered_columns
from .line_report import LINE_RULES

# ENCODINGS, check_encoding and check_delimiter are file_bytes's, imported from here by the app and the CLI too.

if TYPE_CHECKING:  # imported where they are used, so the command line starts fast
    import pandas as pd
    import pyarrow as pa

#: Delimiters looked for in the header line, in the order that breaks ties.
DELIMITERS = (",", "\t", ";", "|")
#: How a delimiter is named where a character would not show (info["delimiter"], the line report's keys).
DELIMITER_WORDS = {"\t": "tab", SPACES: "spaces"}

_SURROGATE = re.compile("[\ud800-\udfff]")
_QUOTED_OR_SPACES = re.compile(r'("(?:[^"\n]|"")*")|[ \t]+')


# --- text -----------------------------------------------------------------------------------


def _decode(raw: bytes, encoding: str | None, name: str) -> tuple[list[str], np.ndarray, int, str]:
    """Lines of text, which of them could not be decoded, how many were read by the automatic reading's second
    encoding (:func:`~.file_bytes.line_fallback`), and the name of the encoding used."""
    found, skip = byte_order_mark(raw)
    then = file_bytes.line_fallback(encoding)  # automatic reading: a line that is not UTF-8 is read so
    if then is not None:
        chosen = found or "utf-8"
    else:
        chosen = encoding
        if found is None or not found.startswith(chosen):
            skip = 0  # a byte-order mark of another encoding stays part of the text, as chosen
        elif skip:
            chosen = found
    body = raw[skip:]
    label = f"{chosen} (byte-order mark)" if found is not None and skip else chosen
    fallback = then is not None and found is None
    errors = "surrogateescape" if fallback else "dpsynth-mark"
    if chosen in ("utf-16", "utf-32") and not skip:
        chosen += "-le"  # no byte-order mark: the common little-endian order
    try:  # a strict decode that succeeds holds no marks: UTF-8 refuses surrogates, and ASCII has none
        text = body.decode(chosen)
        marked = not (chosen == "utf-8" or text.isascii())
    except UnicodeDecodeError:
        text, marked = body.decode(chosen, errors=errors), True
    lines = text.split("\r" if cr_line_ends(text) else "\n")
    bad = np.zeros(len(lines), dtype=bool)
    recoded = 0
    if marked and _SURROGATE.search(text):  # the rare path: look at the lines that did not decode
        for i, line in enumerate(lines):
            if not _SURROGATE.search(line):
                continue
            if fallback:
                again = line.encode("utf-8", "surrogateescape").decode(then, "dpsynth-mark")
                if not _SURROGATE.search(again):
                    lines[i], recoded = again, recoded + 1
                    continue
            lines[i], bad[i] = "", True
    if fallback:
        label = file_bytes.mixed_label(then) if recoded else "utf-8"
    return lines, bad, recoded, label


def _header_delimiter(header: str) -> str:
    """The candidate delimiter that occurs most often in the header, outside quotes (comma if none)."""
    bare = re.sub(r'"(?:[^"]|"")*"', "", header)
    counts = [bare.count(d) for d in DELIMITERS]
    return DELIMITERS[int(np.argmax(counts))] if max(counts) else ","


def _field_pattern(delimiter: str) -> str:
    d = re.escape(delimiter)
    return f'(?:"(?:[^"]|"")*"|[^"{d}][^{d}]*|)'


def _lines_holding(array, character: str) -> np.ndarray:
    """Whether each line of ``array`` (Arrow large strings) holds ``character``, one ASCII character (a byte
    that never occurs inside a multi-byte UTF-8 character): the text's bytes compared in one numpy pass, and
    the hits placed on their lines. For the rare characters it is asked about (quotes, NUL, carriage
    returns) this is about 20 times faster than Arrow's ``match_substring`` on adult."""
    offsets = np.frombuffer(array.buffers()[1], dtype=np.int64, count=len(array) + 1, offset=array.offset * 8)
    text = array.buffers()[2]
    if text is None or offsets[-1] == offsets[0]:
        return np.zeros(len(array), dtype=bool)
    hits = np.flatnonzero(np.frombuffer(text, dtype=np.uint8)[offsets[0] : offsets[-1]] == ord(character))
    found = np.zeros(len(array), dtype=bool)
    found[np.searchsorted(offsets[1:] - offsets[0], hits, side="right")] = True
    return found


def _classify(lines, delimiter: str, fields: int) -> tuple[np.ndarray, np.ndarray, pa.Array]:
    """Per line: the rule that breaks it (index into LINE_RULES, or -1) and whether it is empty;
    and the lines as an Arrow array (a trailing carriage return dropped).

    Vectorised with Arrow's compute functions (RE2 regular expressions, linear time).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    array = pc.utf8_rtrim(pa.array(lines, type=pa.large_string()), characters="\r")
    length = pc.utf8_length(array).to_numpy(zero_copy_only=False)
    empty = length == 0
    broken = np.full(len(lines), -1, dtype=np.int8)
    nul = _lines_holding(array, "\x00")
    broken[nul] = 0
    broken[(broken < 0) & (length > constraints.MAX_LINE_CHARS)] = 1
    quoted = _lines_holding(array, '"')
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
    # A delimiter ending a line whose header does not end with one (some exports end every record so): the empty
    # field it opens is no field, so the line has the header's fields (this line alone decides).
    extra = (broken < 0) & (count == fields + 1) & pc.ends_with(array, delimiter).to_numpy(zero_copy_only=False)
    if extra.any():
        cut = pc.utf8_slice_codeunits(array, 0, -len(delimiter))
        array = pc.if_else(pa.array(extra), cut, array)
        count[extra] = fields
    broken[(broken < 0) & (count != fields)] = 3
    return np.where(empty, -1, broken), empty, array


_EXCEL_SEP = re.compile("sep=(.)\r?")


def _held_from(lines: list[str], undecodable: np.ndarray, start: int) -> int | None:
    """The first line from ``start`` on that holds anything (an undecodable line does), or None."""
    return next((i for i in range(start, len(lines)) if lines[i].strip("\r") or undecodable[i]), None)


def excel_sep(line: str) -> str | None:
    """The delimiter a line ``sep=;`` names (Excel writes it above the header, and reads a file by it), or None
    for any other line. A property of the file's start, as the header's delimiter is."""
    found = _EXCEL_SEP.fullmatch(line)
    if found is None:
        return None
    try:
        return check_delimiter(found.group(1))
    except DataError:
        return None


def _spaces_as_tabs(lines: list[str]) -> list[str]:
    """Lines whose fields are separated by runs of spaces or tabs (:data:`~.file_bytes.SPACES`) as tab-separated
    ones: spaces at either end dropped, each run outside quotes one tab. Each line on its own; Arrow's
    regular expressions for the lines without a quote, one pass of Python's over those with one."""
    import pyarrow as pa
    import pyarrow.compute as pc

    array = pc.utf8_trim(pa.array(lines, type=pa.large_string()), characters=" \t\r")
    out = pc.replace_substring_regex(array, "[ \t]+", "\t").to_pylist()
    quoted = np.flatnonzero(_lines_holding(array, '"'))
    if len(quoted):
        text = "\n".join(array.take(pa.array(quoted)).to_pylist())
        for i, line in zip(quoted, _QUOTED_OR_SPACES.sub(lambda m: m.group(1) or "\t", text).split("\n")):
            out[i] = line
    return out


def _header_fields(header: str, delimiter: str) -> list[str] | None:
    """The header's fields split at ``delimiter`` by CSV's quoting, or None when it is not well formed."""
    try:
        return next(csv.reader([header], delimiter=delimiter, strict=True))
    except (csv.Error, StopIteration):
        return None


def _column_names(
    header: str, delimiter: str, name: str, below: list[str] = (), header_rows=None, names=None
) -> list[str]:
    """The columns' names from the header line, and from the lines ``below`` it when the header spans several
    (:func:`join_header_rows`); with no header line (``header_rows`` 0), by position from the first record's number
    of fields, or the publisher's ``names`` (:func:`~.header_names.numbered_columns`), never from its values."""
    fields = _header_fields(header, delimiter)
    if header_rows == NO_HEADER:
        return numbered_columns(len(fields) if fields is not None else header.count(delimiter) + 1, name, names)
    rows = [_header_fields(line, delimiter) for line in below]
    if fields is not None and below:
        if any(row is None for row in rows):
            raise DataError(f"{name}: a line of the header is not well formed (check its quotes)")
        fields = join_header_rows([fields, *rows])
    if fields is None:
        spaced = delimiter != "\t" and len(_header_fields(_spaces_as_tabs([header])[0], "\t") or ()) > 1
        said = "; its quoted names are separated by spaces, as R's write.table writes them: choose the delimiter"
        said = f"{said} 'spaces'" if spaced else ""
        raise DataError(f"{name}: the header line is not well formed (check its quotes){said}")
    return name_columns(fields, name)


def read_table(
    source,
    *,
    name: str | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    header_row: int | None = None,
    header_rows: int | None = None,
    names: tuple[str, ...] | None = None,
) -> tuple[pd.DataFrame, dict]:
    """Read a CSV/TSV from a path, bytes or a binary file object, one record per line.

    Args:
        source: a path, bytes or a binary file object (read up to ``MAX_FILE_BYTES``).
        name: how messages name the file.
        encoding: the publisher's choice (``"utf-8"``, ``"windows-1252"``, ``"utf-16"``, ...);
            None or ``"auto"``: a byte-order mark decides, else UTF-8 with Windows-1252 for a
            line that is not UTF-8; ``"auto:cp1250"``: the same with Windows-1250 for such a line.
        delimiter: the publisher's choice (``","``, ``";"``, ``"tab"``, ``"|"``, ...); None or
            ``"auto"``: the candidate that occurs most in the header line.
        header_row: the header's line number, from 1 (the lines above it skipped); None: the
            first line that holds anything.
        header_rows: how many lines the header spans (the next ones that hold anything; None: one), each
            column named by :func:`join_header_rows`; 0 (:data:`~.header_names.NO_HEADER`): none, the first line
            (``header_row``'s) is a record and the columns are named ``column_1``, ... by its number of fields.
        names: with ``header_rows`` 0, the publisher's names for the columns, one per field in order.

    Returns:
        ``(frame, info)``: every cell as text (a broken line's cells missing), and ``info``
        with ``encoding``, ``delimiter``, ``rows``, ``columns``, ``bytes`` and ``lines`` (how
        many lines each per-record rule touched: for the publisher only, never for a release).
    """
    if name is None:
        name = str(source) if isinstance(source, (str, Path)) else "the file"
    encoding, delimiter = check_encoding(encoding), check_delimiter(delimiter)
    raw = read_capped(source, name, encoding)
    if not raw.strip():
        raise DataError(f"{name} is empty")
    lines, undecodable, recoded, used = _decode(raw, encoding, name)
    first = _held_from(lines, undecodable, 0)
    named = excel_sep(lines[first]) if first is not None and header_row is None and not undecodable[first] else None
    if named is not None:  # Excel's "sep=;" above the header: the file's own word for its delimiter
        delimiter, first = delimiter or named, _held_from(lines, undecodable, first + 1)
    if first is None:
        raise DataError(f"{name} is empty")
    if header_row is not None:
        if header_row > len(lines) or _held_from(lines, undecodable, header_row - 1) != header_row - 1:
            raise DataError(f"{name}: line {header_row:,}, the header line chosen, is empty or past the file's end")
        first = header_row - 1
    header = lines[first].rstrip("\r")
    if undecodable[first]:
        raise DataError(f"{name}: the header line cannot be decoded as {encoding or 'utf-8'}; choose the encoding")
    if len(header) > constraints.MAX_HEADER_CHARS:
        raise DataError(
            f"{name}: the first line is longer than {constraints.MAX_HEADER_CHARS:,} characters, "
            "so it is not a CSV header"
        )
    if "\x00" in header and header_rows != NO_HEADER:
        raise DataError(f"{name}: the header line holds binary data (NUL characters)")
    last, below = (first - 1 if header_rows == NO_HEADER else first), []
    for _ in range((header_rows or 1) - 1):  # the header's further lines: the next ones that hold anything
        last = _held_from(lines, undecodable, last + 1)
        if last is None or undecodable[last]:
            raise DataError(
                f"{name}: the header spans {header_rows} lines, but "
                + ("the file ends before them" if last is None else f"line {last + 1:,} cannot be decoded")
            )
        below.append(lines[last].rstrip("\r"))
    records = lines[last + 1 :]
    open_end = bool(records) and records[-1].strip("\r") != ""  # no line end after the last line
    del lines
    spaces = delimiter == SPACES
    if spaces:
        header, records, delimiter = _spaces_as_tabs([header])[0], _spaces_as_tabs(records), "\t"
        below = _spaces_as_tabs(below)
    delimiter = delimiter or _header_delimiter(header)
    columns = _column_names(header, delimiter, name, below, header_rows, names)
    broken, empty, array = _classify(records, delimiter, len(columns))
    bad = undecodable[last + 1 :]
    broken[bad], empty[bad] = 0, False  # an undecodable line was blanked, but it is a record
    keep = ~empty
    broken, array = broken[keep], array.filter(keep)
    if len(broken) == 0:
        raise DataError(f"{name} has a header but no data rows")
    good = np.flatnonzero(broken < 0)
    frame = _parse(array.take(good) if len(good) < len(broken) else array, columns, delimiter, name)
    if len(good) < len(broken):
        frame.index = good
        frame = frame.reindex(np.arange(len(broken)))
    frame = frame.reset_index(drop=True)
    tally = np.bincount(broken[broken >= 0], minlength=len(LINE_RULES))
    lines_report = {
        "records": int(len(broken)),
        "broken": int(len(broken) - len(good)),
        **{rule: int(n) for rule, n in zip(LINE_RULES, tally)},
        f"read as {file_bytes.line_fallback(encoding) or 'windows-1252'}": int(recoded),
        # the last line broken and no line end, most lines whole: the file stops part-way through a record
        "cut short": int(
            open_end
            and broken[-1] >= 0
            and 2 * (len(broken) - len(good)) < len(broken)  # not a file of broken lines (a wrong delimiter)
            and LINE_RULES[broken[-1]] in ("broken quoting", "wrong number of fields")
        ),
    }
    if 2 * tally[3] >= len(broken):  # most lines of another width: would another delimiter fit them?
        lines_report.update(_fitting_delimiters(header, array.to_pylist(), SPACES if spaces else delimiter))
    info = {
        "encoding": used,
        "delimiter": SPACES if spaces else DELIMITER_WORDS.get(delimiter, delimiter),
        "rows": len(frame),
        "columns": columns,
        "bytes": len(raw),
        "lines": lines_report,
        **({"header_row": header_row} if header_row is not None else {}),
        **({"header_rows": header_rows} if header_rows is not None else {}),
        **({"names": "given"} if names is not None and header_rows == NO_HEADER else {}),
    }
    return frame, info


def _fitting_delimiters(header: str, records: list[str], used: str) -> dict:
    """For each delimiter but the one ``used`` (:data:`DELIMITERS`, and :data:`~.file_bytes.SPACES`), how many
    records have the header's number of fields (at least two) when it separates both: a hint for the publisher
    (:func:`~.line_report.line_report_text`), never a choice made for them."""
    out = {}
    for delimiter in (SPACES, *DELIMITERS):
        if delimiter == used:
            continue
        if delimiter == SPACES:
            first, *rest = _spaces_as_tabs([header, *records])
            split = "\t"
        else:
            first, rest, split = header, records, delimiter
        fields = len(_header_fields(first, split) or ())  # a header it cannot split: no line fits it
        fit = 0
        if fields > 1:
            broken, empty, _ = _classify(rest, split, fields)
            fit = int(np.sum((broken < 0) & ~empty))
        out[f"fit {DELIMITER_WORDS.get(delimiter, delimiter)}"] = fit
    return out


def _parse(lines: pa.Array, columns: list[str], delimiter: str, name: str):
    """Parse well-formed lines with the right number of fields (each one record, by construction).

    Arrow's CSV reader parses them, every cell as text, unless a line holds a carriage
    return (a line end to Arrow, a character to this rule): then pandas' reader does, which
    gives the same table five times slower.
    """
    import pandas as pd  # imported here so that a file refused early costs no pandas import
    import pyarrow as pa
    import pyarrow.compute as pc

    if not len(lines):
        return pd.DataFrame({c: pd.Series([], dtype=object) for c in columns})
    if not _lines_holding(lines, "\r").any():
        import pyarrow.csv as pcsv

        text_type = pa.large_string()
        ended = pc.binary_join_element_wise(lines, pa.scalar("", text_type), pa.scalar("\n", text_type))  # + "\n"
        offsets = np.frombuffer(ended.buffers()[1], dtype=np.int64, count=len(ended) + 1, offset=ended.offset * 8)
        text = ended.buffers()[2][int(offsets[0]) : int(offsets[-1])]
        names = [f"f{i}" for i in range(len(columns))]
        try:
            table = pcsv.read_csv(
                pa.BufferReader(text),
                read_options=pcsv.ReadOptions(column_names=names, use_threads=False),
                parse_options=pcsv.ParseOptions(
                    delimiter=delimiter,
                    quote_char='"',
                    double_quote=True,
                    newlines_in_values=False,
                    ignore_empty_lines=False,
                ),
                convert_options=pcsv.ConvertOptions(
                    column_types=dict.fromkeys(names, pa.string()),
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                ),
            )
        except pa.ArrowInvalid:  # pragma: no cover - the classification leaves nothing Arrow refuses
            table = None
        if table is not None and table.num_rows == len(lines):
            frame = table.to_pandas(types_mapper={pa.string(): pd.StringDtype("pyarrow", na_value=np.nan)}.get)
            frame.columns = columns
            return frame
    frame = pd.read_csv(
        io.StringIO("\n".join(lines.to_pylist())),
        sep=delimiter,
        header=None,
        names=list(range(len(columns))),
        dtype=str,
        keep_default_na=False,
        skip_blank_lines=False,
        lineterminator="\n",
        quotechar='"',
        doublequote=True,
        engine="c",
    )
    if len(frame) != len(lines):  # pragma: no cover - the classification guarantees one row per line
        raise DataError(f"{name}: internal reading error ({len(frame)} rows from {len(lines)} lines)")
    frame.columns = columns
    return frame
