"""The one door every table file goes through: which format a name says, what the bytes are, and the reader.

:func:`read_data` reads a CSV/TSV (:func:`~dpsynth_core.data.tables.read_table`), a spreadsheet
(:mod:`.workbooks`: .xlsx, .xlsm, .xls, .ods) or a statistical package's file (:mod:`.packages`:
SPSS .sav, .zsav, .por; Stata .dta; SAS .sas7bdat, .xpt), chosen by the file's name, and returns
the CSV reader's table for all of them (every cell text, missing cells empty) with an ``info`` that
says what was read. The release (:meth:`~dpsynth_core.release.ReleaseSettings.open`), the app's
uploads, the in-memory engine and the ledger's fingerprint all read files here, so the same records
in any of these formats are the same table.

A file's name and its bytes must agree: an ``.xlsx`` that holds CSV text, a ``.dta`` that holds an
SPSS file or a ``.csv`` that holds a workbook is refused in one line saying what the bytes are.
Spreadsheets and packages are read whole into memory (the engines for large tables read CSV and
Parquet only: :func:`check_engine_input`); so is a single Parquet file here (a path, or an upload's bytes), for the
app and the commands that read a table whole (``check-declaration``, ``check-persons``, ``compare``, ``report``'s
real table, a release by a method no engine serves), while ``marginals`` and ``cathist`` count it through an engine.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import DataError, ParameterError
from . import file_bytes
from .file_bytes import encoding_words, read_capped

#: Spreadsheet suffixes (python-calamine reads them).
SPREADSHEET_SUFFIXES = (".xlsx", ".xlsm", ".xls", ".ods")
#: Statistical packages' suffixes (pyreadstat reads them), with what each is called.
PACKAGE_NAMES = {
    ".sav": "an SPSS data file (.sav)",
    ".zsav": "a compressed SPSS data file (.zsav)",
    ".por": "an SPSS portable file (.por)",
    ".dta": "a Stata data file (.dta)",
    ".sas7bdat": "a SAS data set (.sas7bdat)",
    ".xpt": "a SAS transport file (.xpt)",
}
PACKAGE_SUFFIXES = tuple(PACKAGE_NAMES)
#: The suffixes the app's uploader accepts (without the dot): text tables (``.data`` and ``.dat`` as statistics
#: archives name theirs, often columns aligned with spaces), spreadsheets, packages.
#: The text tables the app's uploader takes: CSV, TSV, text, aligned columns (.data, .dat, Excel's space-delimited
#: .prn) and Dataverse's tab-delimited .tab.
TEXT_SUFFIXES = (".csv", ".tsv", ".txt", ".tab", ".data", ".dat", ".prn")
UPLOAD_TYPES = tuple(s[1:] for s in TEXT_SUFFIXES + SPREADSHEET_SUFFIXES + PACKAGE_SUFFIXES) + ("parquet", "pq", "parq")

_SAS_MAGIC = bytes.fromhex("000000000000000000000000c2ea8160b31411cfbd92080009c7318c181f1011")


def file_family(name) -> str:
    """``spreadsheet``, ``package`` or ``text`` (a CSV/TSV: any other name), from a file's name."""
    suffix = Path(str(name)).suffix.lower()
    if suffix in SPREADSHEET_SUFFIXES:
        return "spreadsheet"
    return "package" if suffix in PACKAGE_SUFFIXES else "text"


def reads_whole(data) -> bool:
    """True for a path naming a spreadsheet or a package's file (read whole into memory, never by an engine)."""
    return isinstance(data, (str, Path)) and file_family(data) != "text"


def what_bytes_are(head: bytes) -> str | None:
    """What a file's first bytes say it is (a spreadsheet, a package's file), or None (text or unknown)."""
    if head.startswith(b"PK\x03\x04"):
        if b"mimetypeapplication/vnd.oasis.opendocument.spreadsheet" in head[:200]:
            return "a LibreOffice spreadsheet (.ods)"
        return "an Excel workbook (.xlsx) or another zip file"
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        if "EncryptedPackage".encode("utf-16-le") in head:
            return "an encrypted Excel workbook"
        return "an old Excel spreadsheet (.xls)"
    if head.startswith((b"$FL2", b"$FL3")):
        return PACKAGE_NAMES[".zsav" if head.startswith(b"$FL3") else ".sav"]
    if b"SPSSPORT" in head[:600]:
        return PACKAGE_NAMES[".por"]
    if head.startswith(b"<stata_dta>") or (len(head) > 2 and 0x66 <= head[0] <= 0x77 and head[1] in (1, 2)):
        return PACKAGE_NAMES[".dta"]
    if head.startswith(_SAS_MAGIC):
        return PACKAGE_NAMES[".sas7bdat"]
    if head.startswith(b"HEADER RECORD*******LIB"):
        return PACKAGE_NAMES[".xpt"]
    if head and not any(b in head[:1024] for b in bytes([*range(9), *range(14, 32)])):
        return file_bytes.text_format(head) or "text (such as a CSV)"
    return None


def _expected(suffix: str, found: str | None) -> bool:
    """True when bytes of kind ``found`` fit a file named with ``suffix``."""
    if suffix in (".xlsx", ".xlsm"):
        return found is not None and found.startswith(("an Excel workbook", "an encrypted", "an old Excel"))
    if suffix == ".xls":
        return found is not None and "Excel" in found
    if suffix == ".ods":
        return found is not None and (".ods" in found or "zip" in found)
    if suffix in (".sav", ".zsav"):
        return found is not None and found.startswith(("an SPSS data", "a compressed SPSS"))
    if suffix == ".dta" and found is None:
        return False
    return found == PACKAGE_NAMES.get(suffix, found)


def check_name_and_bytes(name: str, head: bytes) -> None:
    """Refuse a file whose name says one format and whose bytes another (the module docstring)."""
    suffix = Path(name).suffix.lower()
    found = what_bytes_are(head)
    if file_family(name) == "text":
        if found is not None and not found.startswith("text"):
            todo = file_bytes.TEXT_FORMAT_TODO.get(found, "upload it under its own name (such as .xlsx or .sav)")
            raise DataError(f"{name} is {found}, not a CSV: {todo}")
        return
    if not _expected(suffix, found):
        called = PACKAGE_NAMES.get(suffix) or f"a spreadsheet ({suffix})"
        todo = file_bytes.TEXT_FORMAT_TODO.get(found or "")
        raise DataError(
            f"{name} is named as {called} but holds {found or 'something else (text or another format)'}"
            + (f": {todo}" if todo else "")
        )


def read_data(
    source,
    *,
    name: str | None = None,
    encoding: str | None = None,
    delimiter: str | None = None,
    sheet: str | None = None,
    header_row: int | None = None,
    header_rows: int | None = None,
    names: tuple[str, ...] | None = None,
):
    """``(frame, info)`` of any table file (see the module docstring), by the format its name says.

    ``source``: a path, bytes or a binary file object; ``name``: the file's name (needed for bytes:
    its suffix says the format); ``encoding``, ``delimiter``: a CSV's; ``sheet``: a spreadsheet's
    (:func:`~dpsynth_core.data.workbooks.read_sheet`); ``header_row``: a spreadsheet's header row, or a CSV's header
    line (:func:`~dpsynth_core.data.tables.read_table`), and ``header_rows`` how many rows or lines the header spans
    (None: one; 0: none), ``names`` the publisher's names for a CSV's or a sheet's columns when it has no header
    (:func:`~dpsynth_core.validation.check_names`). ``info["format"]`` says what was read.
    """
    if name is None:
        name = str(source) if isinstance(source, (str, Path)) else "the file"
    family = file_family(name)
    if family == "text" and isinstance(source, (str, Path)) and _parquet_file(source):
        return _read_parquet(source, encoding, delimiter, sheet, header_row, header_rows, names)
    from .parts import parquet_named

    if family == "text" and not isinstance(source, (str, Path)) and parquet_named(name):  # an upload's bytes
        shown = Path(name).name
        raw = read_capped(source, shown, None, text=False)
        if not raw.startswith(b"PAR1"):
            found = what_bytes_are(raw[:4096]) or "text or another format"
            raise DataError(f"{shown} is named as a Parquet file but holds {found}")
        return _read_parquet(raw, encoding, delimiter, sheet, header_row, header_rows, names, name=shown)
    if family == "text":
        if sheet is not None:
            raise ParameterError(f"a sheet is chosen for spreadsheets; {Path(name).name} is read as CSV")
        from .tables import read_table

        head = _head(source)
        if head is not None:
            check_name_and_bytes(Path(name).name, head)
        header = {"header_row": header_row, "header_rows": header_rows, "names": names}
        frame, info = read_table(source, name=name, encoding=encoding, delimiter=delimiter, **header)
        return frame, {"format": "csv", **info}
    if encoding is not None or delimiter is not None:
        raise ParameterError(f"an encoding and a delimiter are chosen for CSV files; {Path(name).name} is not one")
    shown = Path(name).name
    raw = read_capped(source, shown, None, text=False)
    if not raw:
        raise DataError(f"{shown} is empty")
    check_name_and_bytes(shown, raw[:4096])
    if family == "spreadsheet":
        from .workbooks import read_sheet

        return read_sheet(raw, name=shown, sheet=sheet, header_row=header_row, header_rows=header_rows, names=names)
    if sheet is not None or header_row is not None or header_rows is not None or names is not None:
        raise ParameterError(
            f"a sheet is chosen for spreadsheets, a header row and column names for them and CSV files; {shown} is "
            "neither (its variables are named by the file)"
        )
    from .packages import read_package

    return read_package(raw, Path(name).suffix.lower(), name=shown)


def _parquet_file(path) -> bool:
    from .parts import names_parquet

    return names_parquet(path) and Path(path).is_file()


def _read_parquet(path, *options, name: str | None = None):
    """One Parquet file (a path, or an upload's bytes called ``name``) read whole (the app's uploads and the commands
    that read a table in memory), every cell as the text a CSV of the same records holds
    (:func:`~.typed_cells.frame_text`)."""
    import pandas as pd

    from .. import constraints
    from .parts import parquet_batches, parquet_cells
    from .typed_cells import frame_text

    shown = name or Path(path).name
    if any(option is not None for option in options):
        raise ParameterError(
            f"an encoding, a delimiter, a sheet, a header row and column names are not chosen for {shown}"
        )
    if (cells := parquet_cells(path)) > constraints.MAX_PACKAGE_CELLS:
        raise DataError(
            f"{shown} holds {cells:,} cells, more than the {constraints.MAX_PACKAGE_CELLS:,} read whole into memory "
            "here: the methods marginals and cathist count a larger Parquet file with DuckDB (the command line's synth)"
        )
    batches = list(parquet_batches(path, shown))
    frame = pd.concat(batches, ignore_index=True) if batches else pd.DataFrame()
    columns = [str(c) for c in frame.columns]
    info = {
        "format": "parquet",
        "rows": len(frame),
        "columns": columns,
        "bytes": Path(path).stat().st_size if isinstance(path, (str, Path)) else len(path),
        "lines": {},
    }
    return frame_text(frame, columns), info


def _head(source) -> bytes | None:
    """The first bytes of a path or of bytes (None for a stream: read_table sniffs it)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source[:4096])
    if isinstance(source, (str, Path)) and Path(source).is_file():
        try:
            with Path(source).open("rb") as handle:
                return handle.read(4096)
        except OSError:
            return None
    return None


def list_sheets(source, name: str | None = None) -> list[str]:
    """A spreadsheet's worksheets, in order, without reading any cell (``[]`` for any other format)."""
    name = name or str(source)
    if file_family(name) != "spreadsheet":
        return []
    shown = Path(name).name
    raw = read_capped(source, shown, None, text=False)
    check_name_and_bytes(shown, raw[:4096])
    from .workbooks import sheet_names

    return sheet_names(raw, shown)


def codebook(source, name: str | None = None) -> dict | None:
    """A statistical package's codebook from its metadata only (:func:`~.packages.read_codebook`; no
    record is read); None for a CSV or a spreadsheet (they carry none)."""
    name = name or str(source)
    if file_family(name) != "package":
        return None
    shown = Path(name).name
    raw = read_capped(source, shown, None, text=False)
    check_name_and_bytes(shown, raw[:4096])
    from .packages import read_codebook

    return read_codebook(raw, Path(name).suffix.lower(), shown)


def check_engine_input(data, engine: str) -> None:
    """The engines for large tables read CSV and Parquet: a spreadsheet or a package's file given to one
    is refused in one line (it is read whole into memory, by the in-memory engine: ``auto`` picks it)."""
    if reads_whole(data):
        raise ParameterError(
            f"the {engine} engine reads CSV and Parquet files; {Path(str(data)).name} is read whole into memory: "
            "use --engine auto or pandas, or export it as CSV or Parquet for the large-table engines"
        )


def check_header_reading(data, *, header_row=None, header_rows=None, names=None) -> None:
    """A large-table engine reads a local CSV's header as the in-memory reader does (a header row, a header over
    several lines, none with the columns' names: :func:`~.csvfile.csv_frames`); those three, given for a Parquet
    file, folder or glob, which names its own columns, or for a remote CSV, which Spark's own reader reads with its
    header on the first line, are refused in one line."""
    from .parts import is_remote, names_parquet

    if header_row is None and header_rows is None and names is None:
        return
    if names_parquet(data) or Path(str(data)).is_dir():
        raise ParameterError(
            f"a header row, header lines and column names are chosen for CSV files; {Path(str(data)).name} is "
            "Parquet, which names its own columns"
        )
    if is_remote(data):
        raise ParameterError(
            "a CSV on a cluster is read with its header on its first line: a header row, header lines and column "
            "names are chosen for a local CSV; copy it here, or write it as Parquet"
        )


#: The reader's options a declaration's ``notes["reading"]`` may set (a data package's dialect and encoding:
#: :func:`~dpsynth_core.domain.table_schema.reading_of`); the header's three go together.
DECLARED_READING = ("encoding", "delimiter", "header_row", "header_rows", "names")
_HEADER_OPTIONS = ("header_row", "header_rows", "names")


def declared_reading(declaration, data, given: dict) -> dict:
    """The reading options of the declaration's documentation (``notes["reading"]``: how its data package says the
    file is written) that ``given`` leaves open for ``data`` (:func:`documented_options`). ``declaration``: a
    :class:`~dpsynth_core.domain.TableDomain` or its JSON form."""
    notes = declaration.get("notes") if isinstance(declaration, dict) else getattr(declaration, "notes", None)
    return documented_options((notes or {}).get("reading") if isinstance(notes, dict) else None, data, given)


def documented_options(reading, data, given: dict) -> dict:
    """Of ``reading`` (a documentation's reading options, as a declaration's ``notes["reading"]`` holds them), those
    that ``given`` (the publisher's own choices, None where not made) leaves open, for a CSV or other text file
    ``data``: the encoding and the delimiter each when not given, the header's options when none of them is. Public:
    the documentation's words, never the file's bytes. Empty for a spreadsheet, a package's file, Parquet or a table
    in memory, which have no dialect."""
    if not isinstance(reading, dict) or not isinstance(data, (str, Path)) or file_family(data) != "text":
        return {}
    from .parts import names_parquet

    if names_parquet(data) or Path(str(data)).is_dir():
        return {}
    open_ = {k for k in DECLARED_READING if given.get(k) is None}
    if not open_ >= set(_HEADER_OPTIONS):
        open_ -= set(_HEADER_OPTIONS)
    out = {k: reading[k] for k in DECLARED_READING if k in open_ and reading.get(k) is not None}
    if "encoding" in out:  # by the reader's own name (ISO-8859-1 is latin-1); one it does not know is refused later
        try:
            named = file_bytes.check_encoding(out["encoding"]) or out["encoding"]
            # Portals mislabel files: a line that is valid UTF-8 is read as UTF-8, the label read for the others
            # (a rule of each line alone, as the automatic reading's; a wide encoding is no such label).
            out["encoding"] = (
                named if file_bytes.is_wide(named) else file_bytes.check_encoding(file_bytes.AUTO_WITH + named)
            )
        except DataError:
            pass
        if out["encoding"] is None:
            del out["encoding"]
    return out


def reading_words(options: dict) -> str:
    """:func:`declared_reading`'s options in words.

    >>> reading_words({"delimiter": ";", "header_rows": 0, "names": ["a", "b"], "encoding": "utf-16"})
    "delimiter ';', no header line (its 2 fields named by the documentation, in order), encoding utf-16"
    >>> reading_words({"encoding": "auto:cp1250"})
    'each line that is not UTF-8 as Windows-1250'
    """
    said = []
    if "delimiter" in options:
        said.append(f"delimiter {options['delimiter']!r}")
    if options.get("header_rows") == 0:
        names = options.get("names") or ()
        named = f" (its {len(names):,} fields named by the documentation, in order)" if names else ""
        said.append(f"no header line{named}")
    elif "header_row" in options or "header_rows" in options:
        first = int(options.get("header_row") or 0)
        span = int(options.get("header_rows") or 1)
        lines = f"line {first + 1}" if span == 1 else f"lines {first + 1}-{first + span}"
        said.append(f"the header on {lines}")
    if "encoding" in options:
        then = file_bytes.line_fallback(options["encoding"])
        words = f"each line that is not UTF-8 as {encoding_words(then)}" if then else ""
        said.append(words or f"encoding {options['encoding']}")
    return ", ".join(said)
