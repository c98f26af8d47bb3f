"""``synth``: a whole release headless, through the one budgeted draw (:mod:`dpsynth_core.usecases.budgeted_draw`).

The order: the outputs' paths are checked (before anything is read); the core checks every setting
once and prices the draw from the method (:func:`~dpsynth_core.release.prepare`); the input is then
read only to key its ledger by its records (:meth:`~dpsynth_core.workspace.ledger.Ledger.records_key`)
and the charge is checked against the lifetime budget, in the ledger's own composition, and
recorded; a refusal comes there, before any mechanism runs, worded from public settings and
earlier spends only. Then the data is drawn, the release recorded, and every output written
whole or not at all (:func:`~dpsynth_core.cli.outputs.write_all`). Notes computed from the data
(lines read, cells clamped, rows released) go to stderr, for the publisher, after a draw only.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ..errors import ParameterError
from ..wording import counted, guarantee_line
from .commands import documented_reading, input_name, open_workspace


def given_settings(args) -> dict:
    """The settings and method options given on the command line, parsed (not checked: the core does)."""
    from ..synthesizers.options import METHOD_OPTIONS, SETTINGS

    given = {}
    for option in SETTINGS + METHOD_OPTIONS:
        value = getattr(args, option.name, None)
        if value is not None:
            given[option.name] = [option.parse(v) for v in value] if option.repeat else option.parse(value)
    return given


def _temporary(out: Path) -> str:
    """A new name beside the output, for the table until every output is complete (created by the writer)."""
    return str(out.resolve().parent / f".{out.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")


def run_synth(args) -> None:
    from ..release import prepare, rerun_script
    from ..release.writer import output_format
    from ..usecases import reserve
    from ..validation import check_person_option
    from .outputs import check_targets, discard, write_all

    targets = check_targets(args)
    out_format = output_format(args.out)  # the writer's rule: Parquet, CSV, or refused
    if args.no_ledger and (args.workspace is not None or args.dataset is not None):
        raise ParameterError("--no-ledger records nothing: it cannot go with --workspace or --dataset")
    if args.workspace is not None and not args.workspace.strip():
        raise ParameterError("--workspace must name a folder")
    person = check_person_option(args.person, args.max_rows_per_person)
    domain = args.domain
    if person or args.person_check is not None:
        from ..domain import TableDomain

        domain = TableDomain.load(args.domain)
        domain = domain.with_person_bound(*person) if person else domain
    checked = None
    if (
        args.person_check is not None
    ):  # a saved rows-per-person check, refused before anything is read if it cannot apply
        from .persons import load_check

        if args.no_ledger:
            raise ParameterError("--person-check needs the ledger that recorded the check: drop --no-ledger")
        checked = load_check(args.person_check, domain.person.column if domain.person else None)
    out_path = Path(args.out)
    temporary = _temporary(out_path)  # a folder of parts (Spark, Parquet) or one file, renamed with the rest
    given = given_settings(args)
    reading = documented_reading(args, domain)
    try:
        settings = prepare(  # every setting checked once, and the draw priced, before anything is read
            args.input,
            domain,
            given.pop("epsilon"),
            method=args.method,
            engine=args.engine,
            memory_limit=args.memory_limit,
            sheet=args.sheet,
            **reading,
            out=temporary,
            out_format=out_format,
            person_check=checked["check"] if checked else None,
            **given,
        )
        data, workspace, fingerprint = _ledger(args, targets, settings)
        if checked:
            from .persons import check_same_records

            try:
                check_same_records(checked, fingerprint)
            except BaseException:
                _close(data)
                raise
        name = args.dataset or input_name(args.input)
        try:
            reservation = reserve(settings, workspace, fingerprint, name=name, source="cli")
        except BaseException:  # refused: a source opened to key the ledger is closed unread
            _close(data)
            raise
        if settings.random_state is not None:  # recorded; nothing is drawn or written yet
            from ..wording import SEED_NOTE

            print(f"note: {SEED_NOTE}", file=sys.stderr)
        made = reservation.draw(data)
        release = made.release
        if args.no_ledger:
            from ..workspace.ledger import NO_LEDGER

            release.card["ledger"] = NO_LEDGER
        contents = {}
        if args.card:
            contents["--card"] = (json.dumps(release.card, indent=2) + "\n").encode("utf-8")
        if args.rerun_script:
            contents["--rerun-script"] = rerun_script(release, data=args.input, declaration=args.domain).encode()
        if args.card_html:
            from ..release.card import render_card_html

            contents["--card-html"] = render_card_html(release.card).encode("utf-8")
    except BaseException:
        discard(temporary)
        raise
    write_all([(path, contents[flag]) for flag, path in targets if flag in contents], ready=[(temporary, out_path)])
    if made.release_id is not None:  # the file as written finds its release later (``report``)
        workspace.releases.record_file(made.release_id, out_path)
    _publisher_notes(release, args)


def _ledger(args, targets, settings) -> tuple:
    """``(data, workspace, fingerprint)``: the input and the ledger that records its draw (None, None
    with ``--no-ledger``), once the core has checked every setting and priced the draw.

    The input's paths are checked, then its ledger is keyed by its records (the only reading before
    the budget check; no mechanism runs here). A table the release reads whole is read once
    (:meth:`~dpsynth_core.release.ReleaseSettings.open`): it keys the ledger and is drawn from. So is a
    source whose engine computes the records' identity in its own pass over the file (DuckDB and Spark fold
    the records as they open them: 10 million rows keyed in 0.1 s, not a second read of 24 s).
    """
    from ..data.parts import is_file_set, is_glob, parquet_parts
    from ..engines import get_engine
    from .outputs import check_apart_from_workspace, check_outside_input

    data = args.input
    if not Path(data).exists() and not is_glob(data):  # a glob is listed below
        raise ParameterError(f"file not found: {data}")
    if is_file_set(data):  # a folder or glob of Parquet files: listed and checked before any work
        check_outside_input(targets, data, parquet_parts(data))
    if args.no_ledger:
        return data, None, None
    from ..workspace import FILE_NAME, default_folder

    folder = Path(args.workspace).expanduser() if args.workspace else default_folder()
    check_apart_from_workspace(folder / FILE_NAME, data)
    workspace = open_workspace(args.workspace)
    records = data
    if get_engine(settings.engine).in_memory or get_engine(settings.engine).keys_records:
        data = settings.open(data)  # read once: the table (or the engine's pass) keys the ledger and is drawn from
        records = data.table
    try:
        key = workspace.ledger.records_key(records, **settings.reading())  # read as the release reads it
        return data, workspace, workspace.ledger.dataset_key(key, args.dataset)
    except BaseException:
        _close(data)
        raise


def _close(data) -> None:
    """Close the input if it was opened here (a table or source of :meth:`ReleaseSettings.open`)."""
    from ..release import OpenedTable

    if isinstance(data, OpenedTable):
        data.close()


#: What the public rule does to a cell that does not fit its column's declaration, per kind (the CLI's words).
_PLAIN = (
    ' (read plainly, such as 1234.5 or $12.50, unless the column declares "written": "thousands comma", "decimal comma"'
    ' or "percent")'
)
RULE_WORDS = {
    "integer": "outside the range: clamped to it; not whole numbers: rounded; not numbers: missing" + _PLAIN,
    "float": "outside the range: clamped to it; not numbers: missing" + _PLAIN,
    "date": (
        "outside the range: clamped to it; not dates (read year first, such as 2012-01-31, or with the month's "
        'name, such as Jan 31 2012, unless the column declares "written": "day first" or "month first"): missing; '
        "a time of day: dropped (the day is kept)"
    ),
    "datetime": (
        "outside the range: clamped to it; not dates (as for a date column) followed by a time or none (13:00 or "
        "13:00:00; none is midnight): missing; the time is read down to the column's step"
    ),
    "time": (
        "outside the range: clamped to it; not a time of day (13:45, 13:45:07, 1:45 PM; 1345 when the column "
        'declares "written": "HHMM"): missing; the time is read down to the column\'s step'
    ),
    "values": "not a declared value: missing, or the column's 'other' value if it has one",
}
#: ... and to a missing cell of a column declared without missing values (:mod:`dpsynth_core.data.encoding`).
FIRST_VALUE_WORDS = "read as its first value, as the column is declared without missing values"


#: From this many columns holding changed cells on, they are said a note for each rule, not a line for each column:
#: a trial's file of 137 columns said 23 lines of one rule's 200 words.
GROUPED_COLUMNS = 5


def _changed_cells(encoding: dict, kinds: dict, rows: int | None) -> None:
    """The cells the public rule changed, for the publisher's eyes only (stderr): a line for each column, or, from
    :data:`GROUPED_COLUMNS` columns on, a line for each rule naming its columns with their counts."""
    changed = {name: report for name, report in encoding.items() if report["out_of_domain"]}
    most = [name for name, report in changed.items() if rows and 2 * report["out_of_domain"] >= rows]
    if len(changed) < GROUPED_COLUMNS:
        for name, report in changed.items():
            print(f"note: column '{name}': {_column_changes(report, kinds.get(name), name in most)}", file=sys.stderr)
        return
    by_rule: dict = {}  # the rule's words -> each column's changed cells
    for name, report in changed.items():
        cells = report["out_of_domain"] - report.get("read_as_first", 0)
        if cells:
            by_rule.setdefault(RULE_WORDS.get(kinds.get(name), RULE_WORDS["values"]), []).append((name, cells))
    for words, columns in by_rule.items():
        print(
            f"note: {counted(len(columns), 'column')} {'holds' if len(columns) == 1 else 'hold'} cells that did not "
            f"fit the declaration, changed by the public rule ({words}): {_counts(columns)}",
            file=sys.stderr,
        )
    empty = [(name, report["read_as_first"]) for name, report in changed.items() if report.get("read_as_first")]
    if empty:
        verb = "holds" if len(empty) == 1 else "hold"
        print(
            f"note: {counted(len(empty), 'column')} declared without missing values {verb} missing cells, each read "
            f"as its column's first value: {_counts(empty)}",
            file=sys.stderr,
        )
    if most:
        print(
            f"note: most cells of {', '.join(repr(name) for name in most)} were changed so: check-declaration says "
            "why, before a release",
            file=sys.stderr,
        )


def _column_changes(report: dict, kind: str | None, most: bool) -> str:
    """What the public rule did to one column's cells, in the words of :data:`RULE_WORDS`."""
    empty = report.get("read_as_first", 0)  # among the changed cells: missing where none are declared
    parts = [f"{counted(empty, 'missing cell')} {FIRST_VALUE_WORDS}"] if empty else []
    cells = report["out_of_domain"] - empty
    if cells:
        parts.insert(
            0,
            f"{counted(cells, 'cell')} did not fit the declaration and {'was' if cells == 1 else 'were'} changed by "
            f"the public rule ({RULE_WORDS.get(kind, RULE_WORDS['values'])})",
        )
    return "; ".join(parts) + ("; that is most of the column: check-declaration says why, before a release" * most)


def _counts(columns: list) -> str:
    """Columns with their counts of cells, as a note names them: 'age' 2 cells, 'income' 1."""
    said = [
        f"'{name}' {counted(cells, 'cell') if at == 0 else f'{cells:,}'}" for at, (name, cells) in enumerate(columns)
    ]
    return ", ".join(said)


def _publisher_notes(release, args) -> None:
    """What follows is for the publisher's eyes only: stderr, never the release."""
    from ..data.line_report import line_report_text

    lines = release.publisher_report.get("reading")  # read in memory, or by an engine in chunks
    text = line_report_text(lines) if lines is not None else None
    if text:
        print(f"note: {text}", file=sys.stderr)
    kinds = {c["column"]: c["kind"] for c in release.card["domain"]["columns"]}
    _changed_cells(release.publisher_report["encoding"], kinds, (lines or {}).get("records"))
    written, asked = release.rows, release.settings.get("rows") if release.settings else None
    if asked is not None and written != asked:
        print(f"note: you asked for {asked:,} rows; the method released {written:,} (see the card)", file=sys.stderr)
    elif not written:  # an empty file is a valid outcome of some methods: the card's policy says how it came
        print(f"note: {release.card['rows']['policy']}", file=sys.stderr)
    for note in release.card.get("notes", []):  # public (the card's own words)
        print(f"note: {note}", file=sys.stderr)
    print(f"wrote {written:,} synthetic rows to {args.out} ({guarantee_line(release.card['guarantee'])})")
