"""The synthetic table as a CSV written the way the publisher's CSV was read: its delimiter, its encoding, and its
numbers as its columns declare them written (decimal commas, percent signs).

The release's CSV (:mod:`.writer`) is plain: commas between fields, UTF-8, numbers with a decimal point. A table
kept in a spreadsheet set for another language (semicolons between fields and decimal commas, as Excel writes and
opens them in much of Europe, in Windows-1252) opens from that file in one column. :func:`csv_dialect` says, from how
the upload was read (public choices or the file's byte-order mark and header line, :mod:`~dpsynth_core.data.tables`)
and from the declaration's ``written``, whether a copy in the upload's own dialect differs from the plain CSV, and
:func:`csv_as_read_bytes` writes it from the stored synthetic table (post-processing of the release: no record is
read). Dates stay written as ``2024-12-31``, which a spreadsheet of any language reads as a date; a number declared
with commas between thousands is written plainly (1234.5), which reads as the same number.
"""

from __future__ import annotations

import csv
import re

import pandas as pd

from ..data.file_bytes import SPACES, check_delimiter, encoding_words, label_fallback

#: How the read encoding's label (``info["encoding"]``) is written back: a byte-order mark kept, a UTF-8 file with
#: Windows-1252 lines (automatic reading) written as Windows-1252, the spreadsheet's own encoding (or with lines in
#: the encoding an ``auto:`` choice named, in that one).
_BOMS = {"utf-8": "utf-8-sig", "utf-16": "utf-16", "utf-16-le": "utf-16", "utf-16-be": "utf-16", "utf-32": "utf-32"}
_PLAIN_NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")


def csv_dialect(info: dict, declaration: dict) -> dict | None:
    """How a copy of the synthetic table is written as the upload was read: ``{"encoding", "delimiter", "written",
    "header"}`` (``written``: the columns declared with a decimal comma or a percent sign; ``header``: False for a
    file read without a header line, whose copy has none either and keeps its fields' positions, ``columns``: a
    column the release does not hold, dropped, left empty in its place), or None when that copy would be the plain
    CSV (a comma-separated UTF-8 file with a header line and numbers written plainly) or the upload was not a CSV."""
    label, delimiter = str(info.get("encoding") or ""), info.get("delimiter")
    if not label or delimiter is None:
        return None  # a spreadsheet or a package file: read without an encoding or a delimiter
    if label.endswith(" (byte-order mark)"):
        name = label.removesuffix(" (byte-order mark)")
        encoding = _BOMS.get(name, name)
    elif then := label_fallback(label):
        encoding = {"windows-1252": "cp1252"}.get(then, then)
    else:
        encoding = label
    written = {
        name: spec["written"]
        for name, spec in (declaration.get("columns") or {}).items()
        if spec.get("type") in ("integer", "float") and spec.get("written") in ("decimal comma", "percent")
    }
    delimiter = check_delimiter(delimiter)  # the reader's word for it ("tab", "spaces") as a character
    delimiter = "\t" if delimiter == SPACES else delimiter  # a file aligned by spaces is written with tabs
    header = info.get("header_rows") != 0
    if encoding.replace("_", "-").lower() in ("utf-8", "utf8", "ascii") and delimiter == "," and not written and header:
        return None
    layout = {} if header else {"columns": list(info["columns"])}  # the fields by position, as the file has them
    return {"encoding": encoding, "delimiter": delimiter, "written": written, "header": header, **layout}


def describe(dialect: dict) -> str:
    """The dialect in words, for the download's help.

    >>> describe({"encoding": "cp1252", "delimiter": ";", "written": {"pay": "decimal comma"}})
    "Written as your file was read: fields separated by ';', text in Windows-1252, decimal commas in 'pay'."
    >>> describe({"encoding": "utf-8", "delimiter": ",", "written": {}, "header": False})
    "Written as your file was read: fields separated by ',', text in utf-8, no header line (each field in its place)."
    """
    delimiter = {"\t": "tabs"}.get(dialect["delimiter"], repr(dialect["delimiter"]))
    encoding = {"utf-8-sig": "UTF-8 with a byte-order mark"}.get(dialect["encoding"]) or encoding_words(
        dialect["encoding"]
    )
    parts = [f"fields separated by {delimiter}", f"text in {encoding}"]
    for how, words in (("decimal comma", "decimal commas"), ("percent", "percent signs")):
        names = [n for n, w in dialect["written"].items() if w == how]
        if names:
            parts.append(f"{words} in {', '.join(repr(n) for n in names[:5])}{' and others' if len(names) > 5 else ''}")
    if not dialect.get("header", True):
        parts.append("no header line (each field in its place)")
    return f"Written as your file was read: {', '.join(parts)}."


def csv_as_read_bytes(table: pd.DataFrame, dialect: dict) -> bytes:
    """The synthetic ``table`` (cells as text, as the release stores it) as a CSV in ``dialect``
    (:func:`csv_dialect`; without a header line, a column the release does not hold is an empty field in its
    place, so each field stays where the file's readers look for it); a cell the encoding cannot hold makes the
    whole file UTF-8 with a byte-order mark, which spreadsheets read, rather than lose it."""
    out = table.copy() if "columns" not in dialect else table.reindex(columns=dialect["columns"], fill_value="")
    for name, how in dialect["written"].items():
        if name not in out.columns:
            continue
        cells = out[name].astype(str)
        number = cells.str.match(_PLAIN_NUMBER)
        if how == "decimal comma":
            out[name] = cells.where(~number, cells.str.replace(".", ",", regex=False))
        else:  # percent: the number the file wrote before its sign
            out[name] = cells.where(~number, cells + "%")
    text = out.to_csv(
        index=False,
        header=dialect.get("header", True),
        sep=dialect["delimiter"],
        quoting=csv.QUOTE_MINIMAL,
        lineterminator="\r\n",
    )
    try:
        return text.encode(dialect["encoding"])
    except UnicodeEncodeError:
        return text.encode("utf-8-sig")
