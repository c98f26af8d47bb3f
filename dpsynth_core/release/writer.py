"""Writing a large synthetic table in chunks, so no more than one chunk is ever in memory.

``write_synthetic(path, rows, sample)`` calls ``sample(k)`` (a DataFrame of ``k`` synthetic
rows, drawn by a fitted model: post-processing, it never sees the data) for chunks of at
most ``chunk_rows`` rows and appends each to a CSV (written exactly as
``DataFrame.to_csv(path, index=False)`` writes a whole table) or a Parquet file (one row
group per chunk, one schema for the whole file). The file appears only when complete: it
is written beside its final name and renamed at the end, and removed on failure.

One rule names the format (:func:`output_format`, used by ``synthesize`` and the command
line alike): a name ending in ``.parquet``, ``.pq`` or ``.parq`` (any case) is Parquet; ``.xlsx``,
``.sav`` and ``.dta`` are the publisher's own formats (below); a name whose suffix promises another
format the writer does not produce (a compressed file, JSON, ...) is refused, since a CSV under that
name would not open; any other name (``.csv``, ``.txt``, ``.tsv``, ``.dat``, no suffix) is CSV.

**The publisher's own formats** (:data:`WHOLE_FORMATS`) are written whole, once the table is drawn in
memory, by :func:`whole_file_bytes`: an Excel workbook (openpyxl) with the synthetic table on its
first sheet (numbers as numbers, dates as dates) and the release card's notes on a second; an SPSS
(.sav) or Stata (.dta) file (pyreadstat) with the declaration's value labels and, from the codebook
the declaration was started from (``notes["codebook"]``), its variable labels and its declared
missing codes with their labels (SPSS's codes and ranges, Stata's extended missing values .a-.z),
so it opens in SPSS, Stata or R with its codebook, its whole numbers and whole-number codes shown without
decimals and its days as dates (not midnights), as in the workbook. Synthetic missing cells are the package's own
missing value (system-missing, Stata's ``.``): the release keeps one missing cell per column, so
which declared code a real record's missing cell held is not drawn.
"""

from __future__ import annotations

import csv
import io
import os
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..data.arrow_chunks import arrow_chunk, parquet_writer
from ..data.parts import PARQUET_SUFFIXES
from ..domain import TIME_KINDS
from ..errors import ParameterError

#: Formats written whole from memory with the card and the codebook, by the suffix that names each.
WHOLE_FORMATS = {".xlsx": "xlsx", ".sav": "sav", ".dta": "dta"}
FORMATS = ("csv", "parquet", *WHOLE_FORMATS.values())
#: Rows per chunk by default: about 100 MB of a 15-column table in memory.
CHUNK_ROWS = 1_000_000
#: Cells of a CSV chunk turned into text at once (:func:`csv_pieces`; about 100 MB of text and lists).
CSV_PIECE_CELLS = 2_000_000
#: Suffixes that promise a format the writer does not produce (refused rather than written as CSV).
OTHER_FORMAT_SUFFIXES = {
    "a compressed file": (".gz", ".gzip", ".bz2", ".xz", ".zst", ".zstd", ".lz4", ".zip", ".7z", ".tar", ".tgz"),
    "a spreadsheet": (".xlsm", ".xls", ".ods"),
    "another table format": (
        ".json",
        ".jsonl",
        ".ndjson",
        ".feather",
        ".arrow",
        ".ipc",
        ".orc",
        ".avro",
        ".pkl",
        ".pickle",
        ".h5",
        ".hdf5",
        ".sqlite",
        ".db",
        ".zsav",
        ".por",
        ".sas7bdat",
        ".xpt",
    ),
}


def output_format(path, fmt: str | None = None) -> str:
    """``fmt`` when given, else the format the file's name says (the module docstring's rule):
    Parquet for ``PARQUET_SUFFIXES``, a refusal for a suffix of another format, else CSV."""
    if fmt is None:
        suffix = Path(path).suffix.lower()
        if suffix in PARQUET_SUFFIXES:
            return "parquet"
        if suffix in WHOLE_FORMATS:
            return WHOLE_FORMATS[suffix]
        for kind, suffixes in OTHER_FORMAT_SUFFIXES.items():
            if suffix in suffixes:
                raise ParameterError(
                    f"cannot write {Path(path).name!r}: {suffix} names {kind}, and the synthetic "
                    f"table is written as CSV (.csv or any other name), Parquet "
                    f"({', '.join(PARQUET_SUFFIXES)}) or {', '.join(WHOLE_FORMATS)}"
                )
        return "csv"
    if fmt not in FORMATS:
        raise ParameterError(f"output format ({fmt!r}) must be one of {', '.join(FORMATS)}")
    return fmt


def chunk_sizes(rows: int, chunk_rows: int) -> list[int]:
    """The sizes of the chunks :func:`write_synthetic` asks for, in order (an empty table: one chunk of 0 rows)."""
    return [min(int(chunk_rows), int(rows) - start) for start in range(0, int(rows), int(chunk_rows))] or [0]


def write_synthetic(
    path, rows: int, sample, *, chunk_rows: int = CHUNK_ROWS, fmt: str | None = None, columns: list | None = None
) -> int:
    """Write ``rows`` rows drawn by ``sample(k)`` to ``path`` in chunks; returns the rows written.

    ``columns``: the expected column names in order (default: those of the first chunk);
    every chunk must have exactly these. For Parquet, ``sample(k)`` may return an Arrow table
    (``Model.chunk_sampler(arrow=True)``), written as it is.
    """
    fmt = output_format(path, fmt)
    if fmt in WHOLE_FORMATS.values():
        raise ParameterError(f"a .{fmt} file is written whole, after the draw, by write_whole (not in chunks)")
    if int(rows) != rows or rows < 0:
        raise ParameterError(f"rows ({rows}) must be a whole number >= 0")
    if int(chunk_rows) != chunk_rows or chunk_rows < 1:
        raise ParameterError(f"chunk_rows ({chunk_rows}) must be a whole number >= 1")
    path = Path(path)
    if not path.parent.is_dir():
        raise ParameterError(f"cannot write {path}: the folder {path.parent} does not exist")
    written, writer, schema, pending, temp = 0, None, None, None, None
    sizes = chunk_sizes(rows, chunk_rows)  # an empty release still gets its header (CSV) or schema (Parquet)
    # Parquet: a chunk is encoded and compressed by Arrow (without Python's lock) in a second
    # thread while the next chunk is drawn; at most one chunk waits.
    background = ThreadPoolExecutor(max_workers=1) if fmt == "parquet" else None
    try:  # the temporary file is made inside: a SIGTERM (raised as an exception) right after leaves none
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        os.close(handle)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)  # the permissions a plain open() would give the file
        for size in sizes:
            chunk = sample(size)
            arrow = isinstance(chunk, pa.Table) and fmt == "parquet"  # drawn as Arrow (Model.chunk_sampler)
            if not (arrow or isinstance(chunk, pd.DataFrame)) or len(chunk) != size:
                raise ValueError(f"sample({size}) must return a DataFrame of {size} rows")
            names = chunk.column_names if arrow else list(chunk.columns)
            if columns is None:
                columns = names
            if names != list(columns):
                raise ValueError(f"sample({size}) returned columns {names}, expected {list(columns)}")
            if fmt == "csv":  # what ``chunk.to_csv(temp, index=False, header=..., mode=...)`` writes, faster
                step = max(1, CSV_PIECE_CELLS // max(1, len(columns)))
                with open(temp, "w" if written == 0 else "a", encoding="utf-8", newline="") as stream:
                    stream.writelines(csv_pieces(chunk, header=written == 0, piece_rows=step))
            else:
                table = (chunk if schema is None else chunk.cast(schema)) if arrow else arrow_chunk(chunk, schema)
                del chunk
                if writer is None:
                    schema = table.schema
                    writer = parquet_writer(temp, schema)
                if pending is not None:
                    pending.result()
                pending = background.submit(writer.write_table, table)
            written += size
        if pending is not None:
            pending.result()
            pending = None
        if writer is not None:
            writer.close()
            writer = None
        os.replace(temp, path)
    except BaseException:
        if pending is not None:
            pending.exception()  # wait for it before closing the file
        if writer is not None:
            writer.close()
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
        raise
    finally:
        if background is not None:
            background.shutdown(wait=True)
    return written


def csv_text(table: pd.DataFrame, *, header: bool = True) -> str:
    """``table.to_csv(index=False, header=header)``, character for character, a few times faster on the tables
    the methods make (:func:`csv_pieces`, in one piece)."""
    return "".join(csv_pieces(table, header=header, piece_rows=max(1, len(table))))


def csv_pieces(table: pd.DataFrame, *, header: bool = True, piece_rows: int = 10_000):
    """``table.to_csv(index=False, header=header)`` as consecutive pieces of text (at most ``piece_rows`` rows
    each; the header with the first), character for character, a few times faster on the tables the methods
    make (columns of text and of whole numbers, missing cells empty). Those columns skip pandas' formatting:
    each column's distinct values are found once, each cell is its text (or ``str`` of its integer); when no
    cell needs quoting the rows are joined directly, else they go through the csv module's writer, which
    pandas itself ends in. A table with any other column (floats, dates, booleans, mixed objects) is left to
    pandas, in one piece."""
    columns, quoting = [], len(table.columns) < 2  # a single empty field is written quoted
    for name in table.columns:
        column = table[name]
        if isinstance(column.dtype, pd.api.extensions.ExtensionDtype) and column.dtype.kind not in "iu":
            yield table.to_csv(index=False, header=header)
            return
        text = column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty")
        if column.dtype.kind not in "iu" and not text:
            yield table.to_csv(index=False, header=header)
            return
        codes, distinct = pd.factorize(column)  # missing: code -1, the last label below
        labels = [v if text else str(v) for v in distinct.tolist()]
        quoting = quoting or any(any(c in v for c in _SPECIAL) for v in labels)
        columns.append((codes, np.array([*labels, ""], dtype=object)))
    for start in range(0, max(len(table), 1), piece_rows):
        out = io.StringIO()
        writer = csv.writer(out, lineterminator=os.linesep, quoting=csv.QUOTE_MINIMAL)
        if header and start == 0:
            writer.writerow(table.columns)
        cells = [labels[codes[start : start + piece_rows]].tolist() for codes, labels in columns]
        if quoting:
            writer.writerows(zip(*cells))
        elif cells and len(table):
            out.write(os.linesep.join(map(",".join, zip(*cells))) + os.linesep)
        yield out.getvalue()


#: Characters that make the csv writer quote a field (or may, by Python version).
_SPECIAL = (",", '"', "\n", "\r")


#: Rows of one Excel sheet below its header (Excel's limit); more rows continue on the next sheets.
SHEET_ROWS = 1_048_575
_NAME_RULES = {
    "sav": (
        re.compile(r"^[A-Za-z@][A-Za-z0-9@#$_.]{0,63}$"),
        "an SPSS variable name (a letter, then letters, digits or . _ $ # @, at most 64)",
    ),
    "dta": (
        re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$"),
        "a Stata variable name (a letter or _, then letters, digits or _, at most 32)",
    ),
}


def check_whole_format(fmt: str | None, columns) -> None:
    """Before a draw is priced: every kept column's name must be a variable name of the package written."""
    rule = _NAME_RULES.get(fmt or "")
    if rule is None:
        return
    bad = [c for c in columns if not rule[0].match(str(c)) or str(c).endswith(".")]
    if bad:
        raise ParameterError(
            f"cannot write a .{fmt} file: column '{bad[0]}' is not {rule[1]}; rename it in the file, or write CSV"
        )


def _typed(table: pd.DataFrame, domain: dict, *, numeric_codes: bool) -> pd.DataFrame:
    """The synthetic table with each column in its declared kind's type (numbers, dates; categories'
    codes as numbers when every code is one and ``numeric_codes``), for a typed file."""
    out = {}
    for name in table.columns:
        spec = (domain.get("columns") or {}).get(name, {})
        column, kind = table[name], spec.get("type")
        if kind in ("integer", "float"):
            column = pd.to_numeric(column, errors="coerce").astype("float64")
        elif kind == "date" and spec.get("written") in ("year and month", "year and quarter"):  # text (2012-01): no day
            pass
        elif kind == "date":  # days as dates (Excel's YYYY-MM-DD, SPSS's DATE11, Stata's %td), not midnights
            column = pd.to_datetime(column, errors="coerce").dt.date
        elif kind in TIME_KINDS and kind != "time":  # a time of day stays text: no date to give it
            column = pd.to_datetime(column, errors="coerce")
        elif kind == "categorical" and numeric_codes:
            numbers = pd.to_numeric(pd.Series([str(v) for v in spec.get("values", [])]), errors="coerce")
            if len(numbers) and numbers.notna().all():
                column = pd.to_numeric(column, errors="coerce").astype("float64")
        out[name] = column.astype(object).where(column.notna(), None) if column.dtype == object else column
    return pd.DataFrame(out)


def _notes_rows(card: dict) -> list[tuple[str, str]]:
    from ..wording import guarantee_line

    guarantee = card.get("guarantee") or {}
    rows = [
        ("Title", str(card.get("title", ""))),
        ("Made with", f"dpsynth {card.get('software', {}).get('version', '')}: differentially private synthetic data"),
        ("Method", str((card.get("method") or {}).get("title", ""))),
        ("Guarantee", guarantee_line(guarantee) if guarantee.get("epsilon") is not None else ""),
        ("In plain words", str(guarantee.get("plain_words", ""))),
        ("Synthetic rows", f"{(card.get('rows') or {}).get('synthetic', '')}"),
        ("Created", str(card.get("created", ""))),
    ]
    rows += [("Note", str(note)) for note in card.get("notes") or []]
    rows += [
        (f"Column {c['column']}", str(c.get("description", ""))) for c in (card.get("domain") or {}).get("columns", [])
    ]
    return rows


def whole_file_bytes(table: pd.DataFrame, fmt: str, *, card: dict, declaration: dict) -> bytes:
    """The synthetic ``table`` as a file of one of :data:`WHOLE_FORMATS` (see the module docstring), or as Parquet
    (the app's download for a Parquet upload: numbers, dates and times typed, whole numbers as 64-bit integers)."""
    if fmt == "parquet":
        typed = _typed(table, declaration, numeric_codes=False)
        for name in typed.columns:
            if ((declaration.get("columns") or {}).get(name) or {}).get("type") == "integer":
                typed[name] = typed[name].round().astype("Int64")
            elif typed[name].dtype.kind in "OT":  # text: a missing cell (empty in the CSV) is null
                typed[name] = typed[name].astype(object).where(typed[name].notna() & (typed[name] != ""), None)
        out = io.BytesIO()
        pq.write_table(arrow_chunk(typed, None), out, compression="zstd")
        return out.getvalue()
    if fmt == "xlsx":
        typed = _typed(table, declaration, numeric_codes=False)
        out = io.BytesIO()
        with pd.ExcelWriter(out, engine="openpyxl") as book:
            for number, start in enumerate(range(0, max(len(typed), 1), SHEET_ROWS)):
                sheet = "synthetic" if number == 0 else f"synthetic {number + 1}"
                typed.iloc[start : start + SHEET_ROWS].to_excel(book, sheet_name=sheet, index=False)
            pd.DataFrame(_notes_rows(card), columns=["About this release", ""]).to_excel(
                book, sheet_name="about this release", index=False
            )
        return out.getvalue()
    import pyreadstat

    check_whole_format(fmt, table.columns)
    typed = _typed(table, declaration, numeric_codes=True)
    book = ((declaration.get("notes") or {}).get("codebook") or {}).get("columns") or {}
    labels, value_labels, missing = {}, {}, {}
    for name in typed.columns:
        spec, entry = (declaration.get("columns") or {}).get(name, {}), book.get(name) or {}
        numeric = typed[name].dtype.kind == "f"
        if entry.get("label"):
            labels[name] = str(entry["label"])
        own = {(float(k) if numeric else str(k)): str(v) for k, v in (spec.get("labels") or {}).items()}
        codes, named = _missing_codes(fmt, entry, numeric=numeric)
        if codes:
            missing[name] = codes
        if own or named:
            value_labels[name] = {**own, **named}
    with tempfile.TemporaryDirectory(prefix="dpsynth-write-") as folder:
        target = Path(folder) / f"synthetic.{fmt}"
        options = {
            "column_labels": labels or None,
            "variable_value_labels": value_labels or None,
            "variable_format": _number_formats(fmt, declaration, typed) or None,
        }
        if fmt == "sav":
            pyreadstat.write_sav(typed, str(target), missing_ranges=missing or None, **options)
        else:
            pyreadstat.write_dta(typed, str(target), missing_user_values=missing or None, **options)
        return target.read_bytes()


def _number_formats(fmt: str, declaration: dict, typed: pd.DataFrame) -> dict:
    """Display formats for number columns, wide enough for the declared range and its sign: no decimals for whole
    numbers (SPSS ``F6.0``, Stata ``%6.0f``; each package would show a double as ``74.00`` or with ``g``), and for
    an SPSS decimal column its declared ``decimals`` (else 2), since ``F8.2`` shows 100,000 and more as E
    notation; a category's whole-number codes as whole numbers."""
    out = {}
    for name in typed.columns:
        spec = (declaration.get("columns") or {}).get(name, {})
        kind, low, high = spec.get("type"), spec.get("min"), spec.get("max")
        if kind == "categorical" and typed[name].dtype.kind == "f":  # codes written as numbers (:func:`_typed`)
            codes = [float(v) for v in spec.get("values", [])]
            if codes and all(c.is_integer() for c in codes):
                kind, low, high = "integer", min(codes), max(codes)
        if kind not in ("integer", "float") or low is None or high is None or (kind == "float" and fmt != "sav"):
            continue
        digits = max(len(str(int(low))), len(str(int(high))))
        places = 0 if kind == "integer" else min(int(2 if spec.get("decimals") is None else spec["decimals"]), 16)
        width = min(digits + 1 + places + (places > 0), 40)
        out[name] = f"F{width}.{places}" if fmt == "sav" else f"%{width}.0f"
    return out


def _missing_codes(fmt: str, entry: dict, *, numeric: bool) -> tuple[list, dict]:
    """The codebook's declared missing codes that a .sav or .dta declares, in pyreadstat's form, and their
    value labels: SPSS's numbers and ranges of numbers (a text column's codes as text), Stata's extended
    missing values ``.a`` to ``.z`` (numeric columns only; a code of the other package is left out)."""
    from ..data.packages import STATA_MISSING

    book_labels = entry.get("value_labels") or {}
    codes, named = [], {}
    for code in entry.get("missing") or []:
        if fmt == "dta":
            if numeric and isinstance(code, str) and STATA_MISSING.match(code):
                codes.append(code[1:])
                if code in book_labels:
                    named[code[1:]] = str(book_labels[code])
            continue
        if not numeric:
            if isinstance(code, str) and not STATA_MISSING.match(code):
                codes.append(code)
                named.update({code: str(book_labels[code])} if code in book_labels else {})
            continue
        low, high = code if isinstance(code, list) else [code, code]
        try:
            low, high = float(low), float(high)
        except ValueError:  # Stata's .a in an SPSS file
            continue
        codes.append(low if low == high else {"lo": low, "hi": high})
        for key, label in book_labels.items():
            try:
                if low <= float(key) <= high:
                    named[float(key)] = str(label)
            except ValueError:
                pass
    return codes, named


def write_whole(path, table: pd.DataFrame, fmt: str, *, card: dict, declaration: dict) -> None:
    """Write :func:`whole_file_bytes` beside ``path`` and rename it into place (no partial file)."""
    path = Path(path)
    content = whole_file_bytes(table, fmt, card=card, declaration=declaration)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


#: The publisher's file's suffix -> the format its synthetic copy is offered in (its own, or the nearest
#: one written: a LibreOffice or old Excel sheet as .xlsx, a portable or compressed SPSS file as .sav).
SAME_FORMAT = {
    **dict.fromkeys((".xlsx", ".xlsm", ".xls", ".ods"), "xlsx"),
    **dict.fromkeys((".sav", ".zsav", ".por"), "sav"),
    ".dta": "dta",
    **dict.fromkeys(PARQUET_SUFFIXES, "parquet"),
}
#: Each whole format's name for people, and its media type (downloads).
WHOLE_FORMAT_NAMES = {
    "xlsx": ("Excel", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    "sav": ("SPSS", "application/x-spss-sav"),
    "dta": ("Stata", "application/x-stata-dta"),
    "parquet": ("Parquet", "application/vnd.apache.parquet"),
}


def same_format(name) -> str | None:
    """The format a synthetic copy of the file ``name`` is offered in beside CSV (None: CSV only)."""
    return SAME_FORMAT.get(Path(str(name)).suffix.lower())
