"""The synthetic table in the publisher's own format, written whole from memory with its card and codebook.

**The publisher's own formats** (:data:`~.writer.WHOLE_FORMATS`) are written whole, once the table is drawn in
memory, by :func:`whole_file_bytes`: an Excel workbook (openpyxl) with the synthetic table on its
first sheet (numbers as numbers, dates as dates) and the release card's notes on a second; an SPSS
(.sav) or Stata (.dta) file (pyreadstat) with the declaration's value labels and, from the codebook
the declaration was started from (``notes["codebook"]``), its variable labels and its declared
missing codes with their labels (SPSS's codes and ranges, Stata's extended missing values .a-.z),
so it opens in SPSS, Stata or R with its codebook, its whole numbers and whole-number codes shown without
decimals, its days as dates (not midnights) and its times of day as times (with no date), as in the workbook and
the app's Parquet copy. Synthetic missing cells are the package's own
missing value (system-missing, Stata's ``.``): the release keeps one missing cell per column, so
which declared code a real record's missing cell held is not drawn. A SAS file (.sas7bdat or .xpt) is answered
with a SAS transport file (.xpt: version 5, which SAS's XPORT engine reads, when its names, labels and text fit, else
version 8), with the codebook's variable labels and the columns' display formats; SAS keeps value labels in a format
catalog beside the data, so a category's codes are written as codes, and the card names them.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import re
import tempfile
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from ..data.arrow_chunks import arrow_chunk
from ..data.arrow_chunks import typed as as_typed
from ..data.parts import PARQUET_SUFFIXES
from ..domain import as_table_domain
from ..errors import ParameterError

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
    "xpt": (
        re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$"),
        "a SAS variable name (a letter or _, then letters, digits or _, at most 32)",
    ),
}
#: A SAS transport file of version 5 (the one SAS's XPORT engine and regulators read) holds names of at most 8
#: characters, labels of at most 40 and text of at most 200 bytes; a table beyond them is written as version 8.
XPT5_LIMITS = (8, 40, 200)


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
        elif kind == "datetime":
            column = pd.to_datetime(column, errors="coerce")
        elif _clock(domain, name):  # a time of day as one, with no date (SPSS TIME8,
            clock = pd.to_datetime(column, format="mixed", errors="coerce")  # Stata %tc, SAS TIME, Excel, Parquet)
            column = clock.dt.time.astype(object).where(clock.notna(), None)
        elif kind == "categorical" and numeric_codes:
            numbers = pd.to_numeric(pd.Series([str(v) for v in spec.get("values", [])]), errors="coerce")
            if len(numbers) and numbers.notna().all():
                column = pd.to_numeric(column, errors="coerce").astype("float64")
        out[name] = column.astype(object).where(column.notna(), None) if column.dtype == object else column
    return pd.DataFrame(out)


def _clock(declaration: dict, name: str) -> bool:
    """Whether column ``name`` holds times of day written as a clock (HH:MM:SS), not as the file's HHMM."""
    spec = (declaration.get("columns") or {}).get(name) or {}
    return spec.get("type") == "time" and spec.get("written") != "HHMM"


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
        out = io.BytesIO()  # dates and times in the units every Parquet writer of the release uses
        pq.write_table(as_typed(arrow_chunk(typed, None), as_table_domain(declaration)), out, compression="zstd")
        return out.getvalue()
    if fmt == "xlsx":
        typed = _typed(table, declaration, numeric_codes=False)
        out = io.BytesIO()
        with pd.ExcelWriter(out, engine="openpyxl") as book:
            for number, start in enumerate(range(0, max(len(typed), 1), SHEET_ROWS)):
                sheet = "synthetic" if number == 0 else f"synthetic {number + 1}"
                typed.iloc[start : start + SHEET_ROWS].to_excel(book, sheet_name=sheet, index=False)
                for place, name in enumerate(typed.columns, start=1):  # pandas writes a time of day as text
                    if _clock(declaration, name):
                        for (cell,) in book.sheets[sheet].iter_rows(min_row=2, min_col=place, max_col=place):
                            if isinstance(cell.value, str) and cell.value:
                                cell.value, cell.number_format = dt.time.fromisoformat(cell.value), "hh:mm:ss"
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
        elif fmt == "dta":
            pyreadstat.write_dta(typed, str(target), missing_user_values=missing or None, **options)
        else:  # SAS keeps value labels in a format catalog beside the data: codes only (the card names them)
            del options["variable_value_labels"]
            pyreadstat.write_xport(
                typed, str(target), table_name="SYNTH", file_format_version=_xpt_version(typed, labels), **options
            )
        return target.read_bytes()


def _xpt_version(typed: pd.DataFrame, labels: dict) -> int:
    """5 when the table fits a version 5 transport file (:data:`XPT5_LIMITS`), else 8."""
    names, label_chars, text_bytes = XPT5_LIMITS
    text = [c for c in typed if typed[c].dtype == object]  # numbers and times are 8 bytes in any version
    longest = [typed[c].dropna().astype(str).str.encode("utf-8").str.len().max() for c in text]
    fits = all(len(str(c)) <= names for c in typed.columns) and all(len(v) <= label_chars for v in labels.values())
    return 5 if fits and max([0, *(int(n) for n in longest if n == n)]) <= text_bytes else 8


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
        if kind not in ("integer", "float") or low is None or high is None or (kind == "float" and fmt == "dta"):
            continue
        digits = max(len(str(int(low))), len(str(int(high))))
        places = 0 if kind == "integer" else min(int(2 if spec.get("decimals") is None else spec["decimals"]), 16)
        width = min(digits + 1 + places + (places > 0), 40)
        out[name] = {"sav": f"F{width}.{places}", "xpt": f"{width}.{places}"}.get(fmt, f"%{width}.0f")
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
    **dict.fromkeys((".sas7bdat", ".xpt"), "xpt"),
    **dict.fromkeys(PARQUET_SUFFIXES, "parquet"),
}
#: Each whole format's name for people, and its media type (downloads).
WHOLE_FORMAT_NAMES = {
    "xlsx": ("Excel", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    "sav": ("SPSS", "application/x-spss-sav"),
    "dta": ("Stata", "application/x-stata-dta"),
    "xpt": ("SAS transport", "application/x-sas-xport"),
    "parquet": ("Parquet", "application/vnd.apache.parquet"),
}
#: How each whole format's copy opens, said beside its download (the app's Release page).
WHOLE_FORMAT_HELP = {
    "xlsx": "The synthetic table on its first sheet, the release card's notes on a second.",
    "sav": "Opens in SPSS, PSPP or R (haven) with its value labels, variable labels and missing codes.",
    "dta": "Opens in Stata or R (haven) with its value labels, variable labels and missing codes.",
    "xpt": "A SAS transport file: in SAS, libname synth xport 'file.xpt'; then proc copy (version 8, for names "
    "longer than 8 characters: %xpt2loc). R (haven::read_xpt) and Python (pandas, pyreadstat) read it too. "
    "Categories come as their codes: SAS keeps value labels in a format catalog.",
    "parquet": "Whole numbers, decimals, dates and times of day typed; missing cells null.",
}


def same_format(name) -> str | None:
    """The format a synthetic copy of the file ``name`` is offered in beside CSV (None: CSV only)."""
    return SAME_FORMAT.get(Path(str(name)).suffix.lower())
