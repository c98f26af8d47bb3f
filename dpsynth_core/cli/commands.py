"""The command line's small commands: ``methods``, ``ledger``, ``tau`` and ``declare`` (and the workspace they open)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import constraints
from ..errors import DPSynthError, ParameterError
from ..wording import counted
from .outputs import input_path, output_path


def run_methods(args) -> None:
    from ..synthesizers import METHODS

    for info in METHODS.values():
        print(f"{info.name}: {info.title}. {info.summary}")


def add_ledger(sub) -> None:
    ledger = sub.add_parser("ledger", help="print the privacy budget ledger of a workspace")
    ledger.add_argument(
        "input", nargs="?", type=input_path, help="only this data file's (or Parquet folder's or glob's) ledger"
    )
    ledger.add_argument(
        "--workspace", metavar="FOLDER", help="the workspace folder (default: $DPSYNTH_WORKSPACE, else ~/.dpsynth)"
    )
    ledger.add_argument("--dataset", metavar="NAME", help="only this named dataset's ledger")
    ledger.add_argument(
        "--json",
        action="store_true",
        help="print every spend (method, epsilon, delta, time) and the composed totals as JSON",
    )
    ledger.add_argument(
        "--limit", metavar="EPSILON", help="set the input file's lifetime budget (a number, or 'none' to remove it)"
    )
    ledger.set_defaults(run=run_ledger)


def add_tau(sub) -> None:
    tau = sub.add_parser("tau", help="CatHist threshold for a domain size, rho and epsilon")
    tau.add_argument("--size", required=True, help="domain size n (a whole number, may be huge)")
    tau.add_argument(
        "--rho",
        required=True,
        help=f"tolerance for randomness, from {constraints.RHO_MIN:g} to {constraints.RHO_MAX:g}",
    )
    tau.add_argument("--epsilon", required=True, help="the epsilon of one column (a share of the total)")
    tau.add_argument(
        "--records", help="about how many records the table holds: also print how many different values can come out"
    )
    tau.set_defaults(run=run_tau)


def input_name(path: str) -> str:
    """How the ledger names an input: a file's or folder's name, or a glob as typed."""
    from ..data.parts import is_glob

    return path if is_glob(path) else Path(path).name


def open_workspace(folder: str | None, *, read_only: bool = False):
    """The workspace (default: $DPSYNTH_WORKSPACE, else ~/.dpsynth); its notes go to stderr."""
    from ..workspace import Workspace

    if folder is not None and not folder.strip():
        raise ParameterError("--workspace must name a folder")
    workspace = Workspace(folder, read_only=read_only)
    for note in workspace.notes:
        print(f"note: {note}", file=sys.stderr)
    return workspace


def run_tau(args) -> None:
    from ..validation import check_domain_size, check_epsilon, check_publisher_rho, check_whole

    size = check_domain_size(args.size)
    rho = check_publisher_rho(args.rho, "--rho")
    epsilon = check_epsilon(args.epsilon, "--epsilon")
    records = None if args.records is None else check_whole(args.records, "--records", 1, constraints.MAX_RECORDS)
    from ..domain import size_in_words
    from ..privacy.cathist import cathist_tau, expected_made_up, threshold

    tau = cathist_tau(size, rho, epsilon)
    rule = threshold(size, rho, epsilon)
    print(f"domain size n = {size if size < 10**30 else size_in_words(size)} ({size_in_words(size)})")
    print(f"tau = {tau:.4f}")
    print(f"expected made-up values = {expected_made_up(size, rho):.4f}")
    print(
        f"discrete threshold: keep noisy counts > {rule.cut}, and = {rule.cut} with probability "
        f"{rule.tie_keep:.4f}; a true count of {rule.smallest_count_kept(0.5)} survives half the time"
    )
    print(f"a made-up value comes with a noisy count of about {rule.made_up_count():,.1f} records")
    if records is not None:
        print(
            f"of {records:,} records, at most about {min(rule.most_values(records), size):,.1f} different values "
            "come out on average, however the records are spread"
        )


def run_ledger(args) -> None:
    from ..data.fingerprint import check_source

    if args.input is not None and not args.input.strip():
        raise ParameterError("ledger's data file must be named (or left out, for every dataset)")
    limit = None
    if args.limit is not None:  # every check before the workspace is opened (or made)
        if not args.input and args.dataset is None:
            raise DPSynthError("--limit needs the data file, or the --dataset, whose lifetime budget it sets")
        try:
            limit = None if args.limit.strip().lower() == "none" else float(args.limit)
        except ValueError:
            raise DPSynthError(f"--limit ({args.limit!r}) must be a number > 0 or 'none'") from None
    if args.input:
        check_source(args.input)
    workspace = open_workspace(args.workspace, read_only=args.limit is None)  # a listing never writes
    key = None
    if args.input or args.dataset is not None:
        ledger = workspace.ledger
        key = ledger.dataset_key(ledger.records_key(args.input) if args.input else None, args.dataset)
        if key is None:
            print(f"no spends recorded in {workspace.path} for this data")
            return
    if args.limit is not None:
        workspace.ledger.set_lifetime_budget(key, limit, name=args.dataset or input_name(args.input), source="cli")
    if args.json:
        print(json.dumps(ledger_json(workspace, key), indent=2))
    else:
        print(ledger_text(workspace, key))


def ledger_json(workspace, key: str | None) -> dict:
    from ..privacy.spending import conversion_words

    """Every spend (what, method, epsilon, delta, when) and the composed totals, per dataset."""
    datasets = []
    for data in workspace.ledger.datasets():
        if key is not None and data["fingerprint"] != key:
            continue
        spending = workspace.ledger.spending(data["fingerprint"])
        spends = [
            {
                k: spend[k]
                for k in (
                    "created",
                    "source",
                    "purpose",
                    "method",
                    "guaranteed",
                    "epsilon",
                    "delta",
                    "neighbouring",
                    "release_id",
                )
            }
            for spend in workspace.ledger.spends(data["fingerprint"])
        ]
        datasets.append(
            {
                "name": data["name"],
                "fingerprint": data["fingerprint"],
                "lifetime_epsilon": data["lifetime_epsilon"],
                "spends": spends,
                "totals": [
                    {
                        "neighbouring": t.neighbouring,
                        "epsilon": t.epsilon,
                        "delta": t.delta,
                        "composition": t.composition,
                        "spends": t.draws,
                    }
                    for t in spending.relations
                ],
                "spends_without_guarantee": spending.unguaranteed,
                # every guaranteed spend converted to one record added or removed, composed: what the
                # lifetime budget is checked against, and how each relation was converted
                "per_record": None
                if spending.per_record is None
                else {
                    "epsilon": spending.per_record.epsilon,
                    "delta": spending.per_record.delta,
                    "composition": spending.per_record.composition,
                    "spends": spending.per_record.draws,
                },
                "spends_with_no_total_per_record": spending.unconvertible,
                "conversions": {t.neighbouring: conversion_words(t.neighbouring) for t in spending.relations},
            }
        )
    return {"workspace": str(workspace.path), "datasets": datasets}


def ledger_text(workspace, fp: str | None = None) -> str:
    """The ledger of a :class:`~dpsynth_core.workspace.Workspace` as text, per dataset: limit, totals per
    relation and every spend."""
    from ..privacy.spending import conversion_words
    from ..wording import cost_words, format_delta, format_epsilon

    datasets = [d for d in workspace.ledger.datasets() if fp is None or d["fingerprint"] == fp]
    if not datasets:
        return f"no spends recorded in {workspace.path}" + (" for this data" if fp else "")
    lines = [f"workspace: {workspace.path}"]
    for data in datasets:
        spending = workspace.ledger.spending(data["fingerprint"])
        limit = data["lifetime_epsilon"]
        lines.append("")
        key = data["fingerprint"]
        known = "named dataset" if key.startswith("name:") else f"records {key[:12]}"
        lines.append(
            f"{data['name']} ({known}): lifetime budget " + (f"ε = {limit:g}" if limit is not None else "none")
        )
        for change in workspace.ledger.limit_changes(key):
            old, new = (f"ε = {v:g}" if v is not None else "none" for v in (change["old"], change["new"]))
            lines.append(f"  {change['created']}  {change['source']:<3}  lifetime budget {old} -> {new}")
        if spending.per_record is not None:
            total = spending.per_record
            lines.append(
                f"  total per record (every spend converted to one record added or removed; the lifetime budget's "
                f"unit): ε = {format_epsilon(total.epsilon)}, δ = {format_delta(total.delta)} "
                f"({total.composition} composition of {total.draws} spends)"
            )
        if spending.unconvertible:
            verb = "protects" if spending.unconvertible == 1 else "protect"
            lines.append(
                f"  {counted(spending.unconvertible, 'spend')} {verb} only against a record being replaced (row count "
                "released): no total per record holds for this data"
            )
        for total in spending.relations:
            lines.append(
                f"  as stated, {total.neighbouring}: ε = {format_epsilon(total.epsilon)}, "
                f"δ = {format_delta(total.delta)} ({total.composition} composition of {total.draws} spends); "
                f"per record: {conversion_words(total.neighbouring)}"
            )
        if spending.unguaranteed:
            lines.append(
                f"  {counted(spending.unguaranteed, 'draw')} with no differential-privacy guarantee: "
                "no total guarantee holds for this data"
            )
        for spend in workspace.ledger.spends(data["fingerprint"]):
            cost = cost_words(spend)
            lines.append(
                f"  {spend['created']}  {spend['source']:<3}  {spend['purpose']:<7}  {spend['method']:<11}  {cost}"
            )
    return "\n".join(lines)


def add_sheet_flags(parser) -> None:
    """A spreadsheet's sheet and a spreadsheet's or CSV's header row (every command that reads a table file)."""
    parser.add_argument("--sheet", default=None, help="the spreadsheet's sheet, by name (default: the first)")
    parser.add_argument(
        "--header-row",
        dest="header_row",
        default=None,
        metavar="N",
        help="the header's row: a spreadsheet's, numbered as the sheet numbers it, or a CSV's line number, as a "
        "text editor numbers lines (default: the first row or line that holds anything; rows above it, a title, "
        "are skipped)",
    )
    parser.add_argument(
        "--header-rows",
        dest="header_rows",
        default=None,
        metavar="N",
        help="how many rows (a CSV's lines) the header spans, from its first (default: 1): a survey tool's export "
        "with each question above its answers (SurveyMonkey writes 2); each column is named by its cells joined "
        "with ' | ', an empty cell of an upper row taking the one to its left, as a merged cell does; 0: the file "
        "has no header line, its first line is a record and the columns are named column_1, column_2, ...",
    )
    parser.add_argument(
        "--names",
        default=None,
        metavar="A,B,...",
        help="the columns' names for a file with no header line, one per field in the file's order, separated by "
        "commas (a name holding a comma in double quotes), as its documentation lists them (UCI's adult.names: "
        "age,workclass,...); implies --header-rows 0 "
        "(default: column_1, column_2, ...)",
    )


def add_engine_flags(parser, when: str = "") -> None:
    """``--engine`` and ``--memory-limit``: how a command counts its table (``when``: a condition on ``auto``'s
    choice of an engine for a large file)."""
    from .. import constraints
    from ..engines import AUTO, ENGINE_CHOICES, ENGINES, IN_MEMORY, LARGE_FILES

    parser.add_argument(
        "--engine",
        default=AUTO,
        choices=ENGINE_CHOICES,
        help="how the table is counted: "
        + ", ".join(f"{e.name} ({e.summary})" for e in ENGINES.values())
        + f"; {AUTO} (default): {LARGE_FILES} for Parquet (a file, a folder or a glob) and CSV files "
        f"above {constraints.ENGINE_AUTO_BYTES // 2**20} MB{' ' + when if when else ''}, else {IN_MEMORY}",
    )
    parser.add_argument(
        "--memory-limit",
        dest="memory_limit",
        default=None,
        metavar="SIZE",
        help="DuckDB's memory limit, for example 2GB (what does not fit spills to disk); with the spark engine, that "
        "of the DuckDB query that keeps each person's rows",
    )


def add_reading_flags(parser, what: str = "a CSV input") -> None:
    """How a table file is read in memory (a CSV's encoding and delimiter, a spreadsheet's sheet and header row),
    for the commands that read one whole: ``check-persons``, ``check-declaration``, and ``compare`` and ``report``
    (their real table, ``what``)."""
    parser.add_argument("--encoding", default=None, help=f"text encoding of {what}, a CSV (as synth)")
    parser.add_argument("--delimiter", default=None, help=f"field delimiter of {what}, a CSV (as synth)")
    add_sheet_flags(parser)


def documented_reading(args, declaration, path=None) -> dict:
    """The reading flags (``--encoding``, ``--delimiter``, ``--header-row``, ``--header-rows``, ``--names``) as given,
    and those left out that the declaration's documentation sets for the input (a data package's dialect:
    :func:`~dpsynth_core.data.formats.declared_reading`), told in a note. ``declaration``: a path or a loaded one; one
    that cannot be loaded gives nothing here (the command's own check refuses it, in its order); a parsed one (a
    dict) is read as it is. ``path``: the file read (default ``args.input``)."""
    from ..data.formats import DECLARED_READING, declared_reading, reading_words
    from ..domain import as_table_domain
    from ..errors import DPSynthError

    given = {k: getattr(args, k, None) for k in DECLARED_READING}
    try:
        path = args.input if path is None else path
        declared = declared_reading(
            declaration if isinstance(declaration, dict) else as_table_domain(declaration), path, given
        )
    except (DPSynthError, OSError):
        declared = {}
    if declared:
        said = reading_words(declared)
        print(f"note: {Path(path).name} read as its documentation describes it: {said}", file=sys.stderr)
    return {**given, **declared}


def read_in_memory(args, *, with_info: bool = False, path=None, declaration=None):
    """The table ``path`` (default ``args.input``) read whole by :func:`~dpsynth_core.data.formats.read_data`, its
    reading flags (:func:`add_reading_flags`) checked first; a path that is not a file is refused in one line. With
    ``with_info``: ``(frame, info)``, ``info`` as ``read_data`` gives it (how a CSV's lines were read).
    ``declaration``: its documentation's reading for the flags not given (:func:`documented_reading`)."""
    from ..data.file_bytes import check_delimiter, check_encoding
    from ..data.formats import read_data
    from ..validation import check_names, check_sheet

    path = args.input if path is None else path
    read = documented_reading(args, declaration, path) if declaration is not None else vars(args)
    sheet, header_row = check_sheet(args.sheet, read["header_row"])
    names, header_rows = check_names(read["names"], read["header_rows"])
    encoding, delimiter = check_encoding(read["encoding"]), check_delimiter(read["delimiter"])
    if not Path(path).is_file():
        raise ParameterError(f"file not found: {path}")
    header = {"header_row": header_row, "header_rows": header_rows, "names": names}
    read = read_data(path, encoding=encoding, delimiter=delimiter, sheet=sheet, **header)
    return read if with_info else read[0]


def add_declare(sub) -> None:
    declare = sub.add_parser(
        "declare",
        help="write a starting declaration for a table file: from its column names and, for an SPSS, Stata or "
        "SAS file, its codebook (value labels, missing codes, storage types; no record is read)",
    )
    declare.add_argument("input", type=input_path, help="the table file (CSV, spreadsheet, SPSS, Stata or SAS)")
    declare.add_argument("--out", type=output_path, help="where to write the declaration (JSON)")
    declare.add_argument("--list-sheets", action="store_true", help="print a spreadsheet's sheets (no cell is read)")
    declare.add_argument(
        "--dictionary",
        type=input_path,
        default=None,
        help="the table's data dictionary to start from: a REDCap data dictionary (CSV), an XLSForm (xlsx), a DDI "
        "codebook (XML), a Table Schema or a declaration (JSON); each column it describes takes its declaration, "
        "any other its name's template",
    )
    add_sheet_flags(declare)
    declare.set_defaults(run=run_declare)


def run_declare(args) -> None:
    """A starting declaration, for the publisher to complete: never a value of the file in it."""
    from ..data.formats import codebook, list_sheets, read_data
    from ..domain.declaration import parse_declaration, read_declaration_bytes
    from ..domain.header import header_hint
    from ..domain.templates import declaration_from_names, dictionary_notes, from_dictionary
    from ..validation import check_names, check_sheet
    from .outputs import WRITES, check_outputs, write_all

    if args.list_sheets:
        sheets = list_sheets(args.input)
        if not sheets:
            raise ParameterError(f"{Path(args.input).name} is not a spreadsheet: it has no sheets")
        print("\n".join(sheets))
        return
    if args.out is None:
        raise ParameterError("--out must name the declaration file to write (or ask --list-sheets)")
    targets = check_outputs([("--out", args.out)], [("the input", args.input)], writes=WRITES["declare"])
    if targets[0][1].exists():  # a declaration completed since would be lost
        raise ParameterError(f"--out ({args.out}) exists: a starting declaration would replace it; name a new file")
    sheet, header_row = check_sheet(args.sheet, args.header_row)
    given, header_rows = check_names(args.names, args.header_rows)
    found = codebook(args.input)
    if found is not None:
        names = list(found["columns"])
        if given is not None:
            raise ParameterError(f"{Path(args.input).name}'s variables are named by the file: drop --names")
    else:
        header = {"header_row": header_row, "header_rows": header_rows, "names": given}
        names = read_data(args.input, sheet=sheet, **header)[1]["columns"]
    described = None
    if args.dictionary is not None:
        described = parse_declaration(read_declaration_bytes(args.dictionary), str(args.dictionary), names)
        read = documented_reading(args, described) if found is None else {}
        if any(read.get(k) != getattr(args, k, None) for k in read):  # the dictionary says how the file is written
            given, header_rows = check_names(read["names"], read["header_rows"])
            header = {"header_row": read["header_row"], "header_rows": header_rows, "names": given}
            options = {"encoding": read["encoding"], "delimiter": read["delimiter"]}
            names = read_data(args.input, sheet=sheet, **options, **header)[1]["columns"]
    spec = declaration_from_names(names, dataset=Path(args.input).name, codebook=found)
    if described is not None:
        spec = from_dictionary(spec, described)
    if title := header_hint(names):
        print(f"note: {title}", file=sys.stderr)
    for note in dictionary_notes(names, described):
        print(f"note: {note}", file=sys.stderr)
    write_all([(targets[0][1], (json.dumps(spec, indent=2) + "\n").encode("utf-8"))])
    todo = sum(1 for c in spec["columns"].values() if c.get("type") == "text" or not _complete(c))
    source = "its codebook and column names" if found else "its column names"
    source = f"{Path(args.dictionary).name} and {source}" if args.dictionary is not None else source
    print(f"wrote a starting declaration of {len(names):,} columns to {args.out} (from {source}); review every column")
    if todo:
        needs = "needs its" if todo == 1 else "need their"
        print(f"note: {counted(todo, 'column')} still {needs} values or ranges declared", file=sys.stderr)


def _complete(spec: dict) -> bool:
    from ..domain import column_from_json

    try:
        return not column_from_json("column", spec).problems()
    except DPSynthError:
        return False
