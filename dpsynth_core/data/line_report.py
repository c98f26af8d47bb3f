"""What the per-record rule of :func:`~.tables.read_table` did to a file's lines, in words for the publisher only
(the Data page, the CLI's stderr, the publisher report): how many lines could not be read and why, and, when most
could not, what usually causes it. Never part of a release."""

from __future__ import annotations

from .file_bytes import encoding_words

#: The rules that break a line, in :func:`~.tables.read_table`'s order (its ``info["lines"]`` keys).
LINE_RULES = ("not decodable", "too long", "broken quoting", "wrong number of fields")


def most_lines_broken(lines: dict) -> bool:
    """Whether at least half of a CSV's records could not be read (:func:`read_table`'s ``info["lines"]``): the
    file, not a few records, is at fault (a title above the header, a wrong delimiter or encoding)."""
    return bool(lines.get("records")) and 2 * lines.get("broken", 0) >= lines["records"]


def line_report_text(lines: dict) -> str:
    """One sentence for the publisher saying how many lines the per-record rule touched; when most lines have
    another number of fields than the header, a second one saying what usually causes it."""
    parts = [f"{lines[rule]:,} {rule}" for rule in LINE_RULES if lines.get(rule)]
    out = ""
    if lines.get("broken"):
        out = (
            f"{lines['broken']:,} of {lines['records']:,} lines could not be read as records "
            f"({', '.join(parts)}) and became rows of missing cells."
        )
    # "fit runs of spaces": how reports kept before every delimiter was tried named the one hint they had
    fits = {("spaces" if key == "fit runs of spaces" else key[4:]): n for key, n in lines.items() if key[:4] == "fit "}
    best = max(fits, key=fits.get, default=None)
    if best is not None and 2 * fits[best] >= lines.get("records", 0) > 0:
        how = (
            "runs of spaces separate them (columns aligned with spaces)"
            if best == "spaces"
            else f"'{best}' separates them"
        )
        out += (
            f" Most lines have the header's number of fields when {how}: choose the delimiter '{best}' (the Data "
            f"page's delimiter, --delimiter {best if best in ('spaces', 'tab') else repr(best)} on the command line)."
        )
    elif lines.get("records") and 2 * lines.get("wrong number of fields", 0) >= lines["records"]:  # most broken
        out += (
            " Most lines have another number of fields than the header line: a title or notes above the header, or "
            "a row number at the start of each line that the header does not name (R's write.table writes one "
            "unless row.names = FALSE)? Name the header's line (the Data page's header line, --header-row on the "
            "command line), or save the file with a name for every field."
        )
    if lines.get("broken quoting"):
        out += (
            " Broken quoting is usually a line break inside a quoted value (typed comments), which breaks its record "
            "and the line after it: load the spreadsheet itself (.xlsx), whose cells may hold line breaks, or remove "
            "them before saving as CSV."
        )
    if lines.get("empty rows"):  # a spreadsheet's (workbooks.read_sheet)
        rows = lines["empty rows"]
        out += (" " if out else "") + (
            f"{rows:,} {'row' if rows == 1 else 'rows'} of the sheet, between its header and its last record, "
            f"{'holds' if rows == 1 else 'hold'} no value in any column and {'was' if rows == 1 else 'were'} skipped "
            "as empty (a record whose every value is missing cannot be told from an empty row in a sheet)."
        )
    if lines.get("cut short"):
        out += (
            " The last line stops part-way, with no line end after it: the file seems cut short (an interrupted "
            "download or copy); save or export it again whole."
        )
    for key, recoded in lines.items():  # "read as windows-1252", or the encoding an "auto:" choice names
        if key.startswith("read as ") and recoded:
            said = (
                f"{recoded:,} line was not UTF-8 and was"
                if recoded == 1
                else f"{recoded:,} lines were not UTF-8 and were"
            )
            out += (" " if out else "") + f"{said} read as {encoding_words(key[8:])}."
    return out
