"""The Data page's upload: the reading choices a file's format takes, and the sentence that says how it was read.

A CSV or TSV takes an encoding and a delimiter (the page's two choices) and a header line (a title above it
skipped); a spreadsheet takes a
sheet (listed from the workbook's directory, no cell read) and a header row; a Parquet file takes none; an SPSS,
Stata or SAS file takes none, and its codebook (metadata only) starts the declaration
(:func:`dpsynth_core.domain.templates.declaration_from_names`).

**A dropped file is read even when the publisher clicks on at once.** Streamlit stops a page's run at its next
call (a session-state access included) when another page is asked for, and the uploader's value goes with its page.
So the Data page only keeps the dropped file (:func:`keep_dropped`: a few reads of the session, then a plain
dictionary write) and asks for a rerun; the frame, before every page, reads it and makes it the table in use
(:func:`read_dropped`), forgetting it only once that is done. A read stopped half-way leaves it kept, and the next
run, whichever page, reads it again from the start. (A click in the few milliseconds before the file is kept still
loses it, as does one while the browser is still sending it: the sidebar then goes on naming the table before.)
The files kept are those of the last few browsers only (:data:`state.KEPT_BROWSERS`), in this process's memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import streamlit as st

from app_support import state
from app_support.cached import read_upload, upload_codebook, upload_sheets
from dpsynth_core import DPSynthError
from dpsynth_core.data.file_bytes import read_encoding_words
from dpsynth_core.data.formats import file_family
from dpsynth_core.data.parts import parquet_named
from dpsynth_core.validation import MAX_HEADER_ROWS, MAX_SHEET_ROWS, check_names, names_text
from dpsynth_core.wording import counted


def _header_number(where, what: str, key: str, help: str) -> int | None:
    """A header's row or line number chosen by the publisher (None: the first that holds anything); set from session
    state only, so that :func:`show_reading` can set it before the widget is drawn."""
    st.session_state.setdefault(key, 0)
    chosen = where.number_input(
        f"Header {what} (0: the first {what} that holds anything)",
        min_value=0,
        max_value=MAX_SHEET_ROWS,
        step=1,
        key=key,
        help=help,
    )
    return int(chosen) or None


#: The widget that says how many rows a header spans, by the file's format (``info["format"]``): the Data page's
#: *Read the header over two rows* sets it.
HEADER_SPAN_KEYS = {"csv": "data_header_lines", "spreadsheet": "data_header_rows"}


def _header_span(where, what: str, key: str) -> int | None:
    """How many rows (lines) the header spans, as the publisher says (None: one); set from session state only, so
    the Data page's *Read the header over two rows* can set it before the widget is drawn."""
    st.session_state.setdefault(key, 1)
    chosen = where.number_input(
        f"Header {what}s",
        min_value=0,
        max_value=MAX_HEADER_ROWS,
        step=1,
        key=key,
        help=f"2 when the header spans two {what}s, as survey tools export one (SurveyMonkey: each question above "
        f"its answers): each column is then named by its cells in those {what}s joined with ' | ', an empty cell "
        f"taking the question to its left. 0 when the file has no header {what}: its first {what} is then a record "
        "and the columns are named column_1, column_2, ... (a record's values never become names).",
    )
    return None if int(chosen) == 1 else int(chosen)


def _given_names(span: int | None, what: str) -> tuple[str, ...] | None:
    """The columns' names the publisher types for a file without a header (``span`` 0), from its documentation;
    None when there is a header, or none is typed. A list that cannot be names raises the one check's one-line
    ParameterError (:func:`~dpsynth_core.validation.check_names`)."""
    if span != 0:
        return None
    typed = st.text_input(
        "Column names, in order (optional)",
        key="data_column_names",
        placeholder="age, workclass, fnlwgt, ...",
        help=f"The file has no header {what}: name its columns as its documentation lists them, one name per field "
        "in the file's order, separated by commas, a name holding a comma in double quotes (UCI's adult.names lists "
        "age, workclass, fnlwgt, ...). Left empty, they are named column_1, column_2, .... The names are yours, never "
        "read from the file.",
    )
    return check_names(typed, 0)[0]


def reading_choices(upload, encoding: str, delimiter: str) -> dict | None:
    """The options the uploaded file is read with (widgets drawn here for a spreadsheet, and a CSV's header line);
    None when its sheets cannot be listed (the reason is shown)."""
    family = file_family(upload.name)
    if family == "package" or parquet_named(upload.name):  # read as the file's own types say: nothing to choose
        return {}
    if family == "text":
        left, right = st.columns(2)
        line = _header_number(
            left,
            "line",
            "data_header_line",
            "The line that names the columns, numbered as a text editor numbers lines; lines above it (a title, "
            "notes) are skipped.",
        )
        span = _header_span(right, "line", HEADER_SPAN_KEYS["csv"])
        return _named(
            {
                "encoding": None if encoding == "auto" else encoding,
                "delimiter": None if delimiter == "auto" else delimiter,
                "header_row": line,
                "header_rows": span,
            },
            "line",
        )
    try:
        sheets = upload_sheets(upload.getvalue(), upload.name)
    except DPSynthError as problem:
        st.error(f"This file could not be read: {problem}.")
        return None
    left, middle, right = st.columns(3)
    sheet = left.selectbox("Sheet", sheets, key="data_sheet", help="The sheets of the workbook, in its order.")
    row = _header_number(
        middle,
        "row",
        "data_header_row",
        "Numbered as the spreadsheet numbers its rows; rows above it (a title) are skipped.",
    )
    rows = _header_span(right, "row", HEADER_SPAN_KEYS["spreadsheet"])
    return _named({"sheet": sheet, "header_row": row, "header_rows": rows}, "row")


def _named(options: dict, what: str) -> dict | None:
    """``options`` with the columns' names typed for a file without a header (:func:`_given_names`); None, with
    the reason shown, when they cannot be names."""
    try:
        names = _given_names(options["header_rows"], what)
    except DPSynthError as problem:
        st.error(f"The column names cannot be used: {problem}.")
        return None
    return {**options, "names": names} if names is not None else options


@dataclass(frozen=True)
class KeptFile:
    """The uploaded file in use as this server process keeps it (:func:`state.kept_upload`), in the form of an
    upload: the Data page reads it again with other choices after its uploader let it go (a visit to another page
    empties it)."""

    name: str
    raw: bytes
    hash: str

    @property
    def file_id(self) -> str:
        return f"kept: {self.hash}"

    def getvalue(self) -> bytes:
        return self.raw


def kept_file() -> KeptFile | None:
    """The uploaded file in use, to read again (:class:`KeptFile`); None for an example or a file no longer kept."""
    kept = state.kept_upload()
    return kept and KeptFile(kept["name"], kept["raw"], kept["hash"])


def show_reading(loaded: dict) -> None:
    """Set each of the Data page's reading choices the page has not drawn on this visit to how the uploaded table
    in use was read (its encoding, delimiter, sheet, header, column names), before they are drawn: they then show
    it, and the table is read again only when the publisher changes one. (A widget's value goes when its page is
    left, so they would otherwise show the defaults, and a click such as *No header* would change nothing.) A table
    read anew (on this page, or under a declaration's names on the Domain page) sets every choice to its reading,
    so a choice left from before cannot read it again the old way."""
    if not loaded["source"].startswith("upload: "):
        return
    reading, kind = loaded["reading"], "spreadsheet" if loaded["info"].get("format") == "spreadsheet" else "csv"
    shown = {
        "data_encoding": reading.get("encoding") or "auto",
        "data_delimiter": reading.get("delimiter") or "auto",
        "data_header_row" if kind == "spreadsheet" else "data_header_line": reading.get("header_row") or 0,
        HEADER_SPAN_KEYS[kind]: 1 if reading.get("header_rows") is None else reading["header_rows"],
        "data_column_names": names_text(reading.get("names") or ()),
        **({"data_sheet": reading["sheet"]} if reading.get("sheet") else {}),
    }
    marker = (loaded["hash"], *sorted((k, str(v)) for k, v in reading.items()))
    if st.session_state.get("data_reading_shown") != marker:  # read anew (here, or by the Domain page's names)
        st.session_state.update(shown)
        st.session_state["data_reading_shown"] = marker
    for key, value in shown.items():  # a choice the page has not drawn on this visit
        st.session_state.setdefault(key, value)


def read_again(source, options: dict, loaded: dict | None) -> bool:
    """Whether the file ``source`` (an upload, or the :class:`KeptFile` in use) is to be read with ``options``: not
    tried with them yet (a read that failed is not tried again until a choice changes), and, for the file in use,
    not those it was read with."""
    if st.session_state.get("data_upload_done") == (source.file_id, *sorted(options.items())):
        return False
    return not isinstance(source, KeptFile) or (
        loaded is not None and {k: v for k, v in options.items() if v is not None} != loaded["reading"]
    )


def how_read(info: dict) -> str:
    """One sentence on how the table in use was read (the Data page's caption)."""
    shown = "The row count is shown to you only; the release uses a noisy count."
    if info.get("format") == "spreadsheet":
        others = len(info.get("sheets", [])) - 1
        return (
            f"Read sheet '{info['sheet']}'"
            + (f" (the workbook has {counted(others, 'other sheet')})" if others else "")
            + f", header on row {info['header_row']}"
            + (f" (over {info['header_rows']} rows)" if info.get("header_rows") else "")
            + (f" (no header row: {_named_how(info)})" if info.get("header_rows") == 0 else "")
            + "; numbers and dates are read as the values they are, "
            f"not as the sheet displays them. {shown}"
        )
    if info.get("format") == "parquet":
        return (
            "Read as Parquet: numbers, dates and text as the file's column types store them. The declaration starts "
            f"from the column names alone; review every column on the Domain page. {shown}"
        )
    if info.get("format") not in (None, "csv"):
        return (
            f"Read as {info['format']}: codes are kept as codes and declared missing codes are missing. "
            f"Its codebook (value labels, missing codes, storage types: the file's metadata, no record) started "
            f"the declaration; review every column on the Domain page. {shown}"
        )
    header = f", header on line {info['header_row']}" if info.get("header_row") else ""
    header += f", header over {info['header_rows']} lines" if info.get("header_rows") else ""
    header += f", no header line ({_named_how(info)})" if info.get("header_rows") == 0 else ""
    return f"Read as {read_encoding_words(info['encoding'])}, delimiter '{info['delimiter']}'{header}. {shown}"


def _named_how(info: dict) -> str:
    """How the columns of a file without a header were named."""
    return "columns named by the names given, in order" if info.get("names") else "columns named by position"


#: browser identity -> the file it dropped on the Data page and has not yet read: {"name", "raw", "options",
#: "previous"} (``previous``: the table in use when it was dropped, to keep its declaration on a re-read).
_DROPPED: OrderedDict[str, dict] = OrderedDict()
_DROPPED_LOCK = threading.Lock()


def keep_dropped(upload, options: dict) -> None:
    """Keep the file just dropped (read with ``options``) for :func:`read_dropped`, and mark it so the Data page
    does not keep it again while the uploader holds it."""
    browser = state.browser()
    previous = state.data() if state.has_data() else None
    kept = {
        "name": upload.name,
        "raw": upload.getvalue(),
        "options": options,
        "previous": previous
        and {
            "source": previous["source"],
            "columns": list(previous["info"]["columns"]),
            "declaration": state.declaration(),
        },
    }
    _keep(browser, kept)
    st.session_state["data_upload_done"] = (upload.file_id, *sorted(options.items()))


def _keep(browser: str, kept: dict) -> None:
    """Keep ``browser``'s dropped file, forgetting the oldest beyond :data:`state.KEPT_BROWSERS` browsers (one that
    left before its file was read)."""
    with _DROPPED_LOCK:
        _DROPPED[browser] = kept
        _DROPPED.move_to_end(browser)
        while len(_DROPPED) > state.KEPT_BROWSERS:
            _DROPPED.popitem(last=False)


def read_dropped() -> tuple[str, str] | None:
    """Read this browser's dropped file, if one is kept, and make it the table in use (a file re-read with other
    choices keeps the declaration made so far). Returns the notice for the publisher, (kind, message), or None
    when no file was kept. The file is forgotten only once it is in use, or could not be read."""
    with _DROPPED_LOCK:
        dropped = _DROPPED.get(state.browser())
    if dropped is None:
        return None
    name, raw, options, previous = dropped["name"], dropped["raw"], dropped["options"], dropped["previous"]
    try:
        frame, info = read_upload(raw, name, **options)
        codebook = upload_codebook(raw, name)
    except DPSynthError as problem:
        _forget(dropped)
        still = " Your previous table is still loaded." if state.has_data() else ""
        return "error", f"This file could not be read: {problem}.{still}"
    same = previous and previous["source"] == f"upload: {name}" and previous["columns"] == list(info["columns"])
    kept = previous["declaration"] if same else None
    known = state.use_upload(frame, info, name=name, raw=raw, declaration=kept, codebook=codebook, **options)
    _forget(dropped)
    if known is not None:
        if not {str(c).casefold() for c in known.get("columns", {})} & {str(c).casefold() for c in info["columns"]}:
            return "success", (  # the same records read another way (without their header line, say)
                f"Read {name}. You have worked on these records before: their releases and privacy ledger are back; "
                "the declaration saved for them names other columns, so each column starts anew."
            )
        return "success", (
            f"Read {name}. You have worked on this file before: its declaration, releases and privacy ledger are back."
        )
    return "success", f"Read {name}. Next, declare what values each column could take."


def _forget(dropped: dict) -> None:
    with _DROPPED_LOCK:
        for browser, kept in list(_DROPPED.items()):
            if kept is dropped:
                del _DROPPED[browser]
