"""Data: pick a bundled example or upload a table (CSV/TSV, spreadsheet, SPSS, Stata, SAS). Shows names, row count
and size, never values."""

import pandas as pd
import streamlit as st

from app_support import state
from app_support.pages import DATA, DOMAIN
from app_support.sidebar import file_size, upload_again
from app_support.uploads import (
    HEADER_SPAN_KEYS,
    how_read,
    keep_dropped,
    kept_file,
    read_again,
    reading_choices,
    show_reading,
)
from dpsynth_core import constraints
from dpsynth_core.data.examples import EXAMPLES
from dpsynth_core.data.file_bytes import ENCODINGS, encoding_choice_words
from dpsynth_core.data.formats import UPLOAD_TYPES
from dpsynth_core.data.line_report import line_report_text, most_lines_broken
from dpsynth_core.data.workbooks import sheet_hint
from dpsynth_core.domain.header import header_below_title, header_hint, header_span
from dpsynth_core.domain.templates import dictionary_notes

st.title(DATA.title)
st.markdown(
    "Choose the table to protect. The tool reads it, but this page only ever shows its "
    "column names and size, **never its values**."
)
state.show_flash()
if not state.has_data():
    upload_again()

current = state.data()["source"] if state.has_data() else None
choice = st.radio(
    "Where does the table come from?",
    ["A bundled example", "My own file"],
    horizontal=True,
    index=0 if current and current.startswith("example: ") else 1,
    key="data_source_choice",
)

if choice == "A bundled example":
    name = st.selectbox("Example", list(EXAMPLES), format_func=lambda n: f"{n}: {EXAMPLES[n]}", key="data_example")
    if current != f"example: {name}":
        if st.button(f"Use the '{name}' example", type="primary", key="data_use_example"):
            state.use_example(name)
            st.rerun()
else:
    st.caption(
        "CSV or TSV (.csv, .tsv, .txt, .tab, .data, .dat, .prn), a spreadsheet (Excel .xlsx/.xls, LibreOffice .ods), "
        "an SPSS, Stata or SAS file (.sav, .zsav, .por, .dta, .sas7bdat, .xpt) or a Parquet file (.parquet), up to "
        f"{constraints.UPLOAD_LIMIT_MB} MB (the server's upload limit, set by `server.maxUploadSize` in "
        "`.streamlit/config.toml`). The file stays on this server and is never shown."
    )
    if current:
        show_reading(state.data())  # the choices the table in use was read with, before they are drawn
    left, right = st.columns(2)
    shown = st.session_state.get("data_encoding")  # a declaration's own encoding (a data package's) shows too
    encoding = left.selectbox(
        "Text encoding (CSV and TSV)",
        ENCODINGS if shown in (None, *ENCODINGS) else (*ENCODINGS, shown),
        key="data_encoding",
        format_func=encoding_choice_words,
        help="Automatic: a byte-order mark at the start decides; without one, each line is "
        "read as UTF-8, or as Windows-1252 when it is not UTF-8.",
    )
    delimiter = right.selectbox(
        "Delimiter (CSV and TSV)",
        ["auto", ",", ";", "tab", "|", "spaces"],
        key="data_delimiter",
        format_func=lambda d: {"auto": "automatic (from the header line)", "spaces": "spaces (aligned columns)"}.get(
            d, d
        ),
    )
    st.caption(
        "Neither is ever guessed from the records: one odd record cannot change how the others are read. "
        "Each line is one record; a line that cannot be read becomes a row of missing values."
    )
    upload = st.file_uploader("Upload a table", type=list(UPLOAD_TYPES), key="data_upload")
    source = upload or kept_file()  # the file in use, kept on the server, once the uploader let it go
    if upload is None and source is not None:
        st.caption(f"The choices below read {source.name}, the file in use, again; upload a file to use another.")
    options = reading_choices(source, encoding, delimiter) if source is not None else None
    if options is not None and read_again(source, options, state.data() if current else None):
        keep_dropped(source, options)  # read by the frame, before whichever page runs next (app_support/uploads.py)
        st.rerun()

if not state.has_data():
    st.stop()
loaded = state.data()
info = loaded["info"]
st.subheader("The table in use")
c1, c2, c3, c4 = st.columns(4)
c1.metric("Source", loaded["source"].split(": ", 1)[-1])
c2.metric("Rows", f"{info['rows']:,}")
c3.metric("Columns", len(info["columns"]))
c4.metric("File size", file_size(info["bytes"]))
st.caption(how_read(info))
if sheet := sheet_hint(info):  # a README or a title page read as the table: the workbook's other sheets named
    st.warning(sheet, icon=":material/tab:")
affected = line_report_text(info.get("lines", {}))
if title := header_hint(info["columns"]):
    st.warning(title, icon=":material/title:")
    key, rows = HEADER_SPAN_KEYS.get(info.get("format")), header_span(info["columns"])
    if key and rows is not None and loaded["source"].startswith("upload: "):
        st.button(
            f"Read the header over {('two', 'three')[rows - 2]} rows"
            if rows
            else f"No header: read the first {'row' if info.get('format') == 'spreadsheet' else 'line'} as a record",
            key="data_header_span",
            on_click=lambda: st.session_state.update({key: rows}),  # read again, before the widgets are drawn
        )
    if (row := header_below_title(info["columns"], info)) and loaded["source"].startswith("upload: "):
        st.button(
            f"Read the header from row {row:,}",
            key="data_header_below_title",
            on_click=lambda: st.session_state.update({"data_header_row": row}),  # read again, as the span's button
        )
for note in dictionary_notes(info["columns"]):  # from the names alone: a REDCap export with a row per event
    st.info(note[0].upper() + note[1:] + ".", icon=":material/group:")
if most_lines_broken(info.get("lines", {})):  # for the publisher only: never part of a release
    st.error(f"{affected} Or choose the encoding or the delimiter above. (Shown to you only.)", icon=":material/error:")
elif affected and info.get("format") == "spreadsheet":  # its empty rows: no encoding or delimiter to choose
    st.info(f"{affected} (Shown to you only.)", icon=":material/info:")
elif affected:
    st.warning(
        f"{affected} Only those lines are affected; choose the encoding or the delimiter above if this "
        "looks wrong. (Shown to you only.)",
        icon=":material/warning:",
    )
st.dataframe(
    pd.DataFrame({"column name": info["columns"]}),
    hide_index=True,
    width=420,
    height=min(38 * len(info["columns"]) + 40, 420),
)

st.page_link(DOMAIN.path, label="Next: declare each column's domain", icon=":material/arrow_forward:")
