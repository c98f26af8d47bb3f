"""``check-persons``: the opt-in DP count of rows per person, before a release whose unit is a person.

It goes the way of every use of the data (:func:`dpsynth_core.usecases.person_check`): priced from
public settings (its epsilon and the person column), checked against the lifetime budget and recorded
in the ledger of the table's records before they are measured. It prints what bounding to ``K`` rows
per person will drop and which ``K`` keeps most rows, from the noisy counts alone; ``--out`` saves the
check, and ``synth --person-check FILE`` puts its figures on the release card (as the app's Privacy
page does), refused when the check was of other records or another person column.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .. import constraints
from ..errors import ParameterError
from .outputs import DOMAIN_HELP, input_path, output_path

#: The saved check's format (``--out``), read back by ``synth --person-check``.
CHECK_FORMAT = "dpsynth rows-per-person check 1"


def add_commands(sub) -> None:
    """Register ``check-persons`` on the command line's subparsers (it sets ``run``)."""
    from .commands import add_engine_flags, add_reading_flags

    check = sub.add_parser(
        "check-persons",
        help="count rows per person with noise (its own budget, recorded): what --max-rows-per-person K drops",
    )
    check.add_argument(
        "input", type=input_path, help="the sensitive table (any file synth reads: a folder or glob of Parquet too)"
    )
    check.add_argument("--domain", required=True, type=input_path, help=DOMAIN_HELP)
    check.add_argument(
        "--person", metavar="COLUMN", help="the column identifying a person (default: the declaration's)"
    )
    check.add_argument(
        "--max-rows-per-person",
        metavar="K",
        help="the bound you plan, whose dropped rows are told (default: the declaration's; with none, only a bound "
        "to consider is told)",
    )
    check.add_argument(
        "--epsilon",
        default=str(constraints.PERSON_CHECK_EPSILON),
        help=f"the check's own budget, on top of the release's (default {constraints.PERSON_CHECK_EPSILON:g})",
    )
    check.add_argument("--seed", default=None, help="a seed for a repeatable check (tests and teaching; no guarantee)")
    add_reading_flags(check)
    add_engine_flags(check)
    check.add_argument("--workspace", metavar="FOLDER", help="the workspace whose ledger records the check")
    check.add_argument("--dataset", metavar="NAME", help="count the check against this named dataset's budget")
    check.add_argument("--out", type=output_path, help="save the check (JSON) for synth --person-check")
    check.set_defaults(run=run_check_persons)


def _domain(args):
    """The declaration with the person column to check, and the bound planned (None: none, only a bound to
    consider is told). ``--person`` names the column where the declaration does not (or another), and
    ``--max-rows-per-person`` the bound planned, the declaration's by default when its person is the one checked."""
    from ..domain import TableDomain
    from ..validation import check_max_rows_per_person

    domain = TableDomain.load(args.domain)
    declared = domain.person
    column = args.person if args.person is not None else (declared.column if declared else None)
    if column is None:
        raise ParameterError(
            "the declaration names no person: give --person COLUMN (and --max-rows-per-person K, the bound you plan)"
        )
    if args.max_rows_per_person is not None:
        planned = check_max_rows_per_person(args.max_rows_per_person, "--max-rows-per-person")
    else:
        planned = declared.max_rows if declared and declared.column == column else None
    return domain.with_person_bound(column, planned or 1).validate(), planned  # the check counts, whatever bound


def _open(args, domain):
    """The table as ``synth`` reads it with the same flags: whole in memory (a DataFrame), or a counting source of
    the engine ``auto`` or ``--engine`` picks (a Parquet file, folder or glob, a large CSV)."""
    from ..data.file_bytes import check_delimiter, check_encoding
    from ..data.formats import check_header_reading
    from ..engines import choose_engine, get_engine, open_source
    from ..validation import check_names, check_sheet
    from .commands import documented_reading, read_in_memory

    engine = get_engine(choose_engine(args.input, args.engine))
    args = argparse.Namespace(**{**vars(args), **documented_reading(args, domain)})  # as synth reads it
    if engine.in_memory:
        frame = read_in_memory(args)
        domain.check_matches(frame.columns)
        return frame
    if args.sheet is not None:
        raise ParameterError("--sheet is chosen for a spreadsheet, which is read whole into memory: use --engine auto")
    header = {k: getattr(args, k) for k in ("header_row", "header_rows", "names")}
    check_header_reading(args.input, **header)  # as synth: a local CSV's header read as in memory
    header["header_row"] = check_sheet(None, header["header_row"])[1]
    header["names"], header["header_rows"] = check_names(header["names"], header["header_rows"])
    encoding, delimiter = check_encoding(args.encoding), check_delimiter(args.delimiter)
    return open_source(
        args.input,
        domain,
        engine=engine.name,
        memory_limit=args.memory_limit,
        encoding=encoding,
        delimiter=delimiter,
        **header,
    )


def run_check_persons(args) -> None:
    import pandas as pd

    from ..data.parts import is_glob
    from ..privacy.persons import bounding_plan_words
    from ..usecases.person_check import person_check
    from ..validation import check_epsilon, check_seed
    from .commands import input_name, open_workspace
    from .outputs import WRITES, check_outputs, ledger_folders, write_all

    epsilon = check_epsilon(args.epsilon, "--epsilon")
    seed = check_seed(args.seed)
    if not Path(args.input).exists() and not is_glob(args.input):  # before its outputs are checked against it
        raise ParameterError(f"file not found: {args.input}")
    reads = [("the input", args.input), ("--domain", args.domain)]
    targets = check_outputs([("--out", args.out)], reads, ledger_folders(args.workspace), WRITES["check-persons"])
    domain, planned = _domain(args)
    table = _open(args, domain)
    try:
        workspace = open_workspace(args.workspace)
        fingerprint = workspace.ledger.dataset_key(workspace.ledger.records_key(table), args.dataset)
        unit = domain.person
        name = args.dataset or input_name(args.input)
        check = person_check(workspace, fingerprint, table, domain, epsilon, name=name, source="cli", random_state=seed)
    finally:
        if not isinstance(table, pd.DataFrame):  # an engine's source (a frame may have a column named close)
            table.close()
    if seed is not None:
        from ..wording import SEED_NOTE

        print(f"note: {SEED_NOTE}", file=sys.stderr)
    for line in bounding_plan_words(check, planned, unit.name, constraints.PERSON_CHECK_KEEP):
        print(f"- {line}")
    if planned is None:
        print("- Give --max-rows-per-person K to be told how many rows that bound drops.")
    if targets:
        saved = {"format": CHECK_FORMAT, "column": unit.column, "ledger": fingerprint, "check": check.as_dict()}
        write_all([(targets[0][1], (json.dumps(saved, indent=2) + "\n").encode("utf-8"))])
        print(f"saved the check to {args.out}: synth --person-check {args.out} puts its figures on the release card")


def load_check(path: str, column: str | None) -> dict:
    """A check saved by ``check-persons --out``, for a release whose person column is ``column``."""
    if not Path(path).is_file():
        raise ParameterError(f"--person-check: {path} does not exist (check-persons --out writes one)")
    if Path(path).stat().st_size > 2**20:
        raise ParameterError(f"--person-check: {path} is not a saved check (check-persons --out writes one)")
    try:
        saved = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ParameterError(f"--person-check: {path} is not a saved check ({error})") from None
    if not isinstance(saved, dict) or saved.get("format") != CHECK_FORMAT or not isinstance(saved.get("check"), dict):
        raise ParameterError(f"--person-check: {path} is not a check saved by check-persons --out")
    if column is None:
        raise ParameterError("--person-check needs a release per person: declare the person (or give --person)")
    if saved.get("column") != column:
        raise ParameterError(
            f"--person-check: the check counted rows per '{saved.get('column')}', this release's person is '{column}'"
        )
    return saved


def check_same_records(saved: dict, fingerprint: str | None) -> None:
    """Refuse a saved check of other records than the release's (its ledger key differs)."""
    if fingerprint is not None and saved.get("ledger") != fingerprint:
        raise ParameterError(
            "--person-check: the check was of other records than this input (or recorded in another "
            "workspace or dataset): run check-persons on this input"
        )
