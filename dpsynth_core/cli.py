"""Command line: a whole release headless.

    python -m dpsynth_core synth INPUT --domain DOMAIN.json --epsilon E [--rho R]
        [--method M (default marginals)] [--group A,B[,C] ...] [--delta D] [--rows N] [--seed S]
        [--encoding ENC] [--delimiter D]
        [--engine auto|pandas|duckdb|spark] [--memory-limit 2GB] [--person COLUMN --max-rows-per-person K]
        --out OUT.csv|OUT.parquet [--card CARD.json] [--card-html CARD.html] [--rerun-script R.py]
        [--workspace FOLDER] [--dataset NAME | --no-ledger]
    python -m dpsynth_core ledger [INPUT] [--dataset NAME] [--workspace FOLDER] [--limit EPSILON|none]
    python -m dpsynth_core methods
    python -m dpsynth_core tau --size N --rho R --epsilon E
    python -m dpsynth_core compare|report REAL SYNTHETIC --domain D ...  (:mod:`dpsynth_core.evaluation.commands`)

Bad input ends with a one-line message on stderr and exit status 2, never a traceback.
Every check runs before anything is written: parameters and paths first (before the
numerical libraries are even imported), then the declaration, then the data. Outputs are
written to temporary files in their own folders and renamed into place only once all of
them are complete, so a failure never leaves a half-written or replaced file.

INPUT is a CSV/TSV file, a Parquet file, or a folder or quoted glob of Parquet files
(``'data/*.parquet'``: see :mod:`dpsynth_core.engines.parts`). With ``--engine duckdb``
(chosen by ``auto`` for Parquet and for a CSV above ``constraints.ENGINE_AUTO_BYTES``) or
``spark``, the table is counted out of core and the synthetic table is written in chunks
(never whole in memory) to a temporary file, renamed with the other outputs. The output's
format follows :func:`dpsynth_core.release.writer.output_format` (Parquet for .parquet, .pq, .parq;
CSV for any other name, except suffixes of other formats, refused). With ``--engine spark``
a Parquet output is drawn on Spark's executors and becomes a new folder of Parquet parts
(:func:`dpsynth_core.release.writer.write_on_spark`); an existing one is never replaced.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from . import constraints
from .errors import DPSynthError, ParameterError
from .validation import (
    check_domain_size,
    check_epsilon,
    check_memory_limit,
    check_person_option,
    check_publisher_rho,
    check_rows,
    check_seed,
    check_total_epsilon,
)


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line and exit status 2."""

    def error(self, message):
        print(f"error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    installed = Path(sys.argv[0]).name == "dpsynth"  # the console script of `pip install .`
    parser = _Parser(prog="dpsynth" if installed else "python -m dpsynth_core",
                     description="Differentially private synthetic data over declared domains.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    synth = sub.add_parser("synth", help="make a synthetic copy of a CSV file")
    synth.add_argument("input", help="the sensitive CSV, TSV or Parquet file, or a folder or quoted glob of Parquet "
                                     "files ('data/*.parquet'; --engine duckdb or spark)")
    synth.add_argument("--domain", required=True, help="the domain declaration (JSON)")
    synth.add_argument("--epsilon", required=True,
                       help=f"total privacy budget, from {constraints.EPSILON_MIN:g} to {constraints.EPSILON_MAX:g}")
    synth.add_argument("--rho", default=str(constraints.RHO_DEFAULT),
                       help=f"tolerance for randomness, from {constraints.RHO_MIN:g} to {constraints.RHO_MAX:g} "
                            "(default %(default)s)")
    synth.add_argument("--method", default=constraints.DEFAULT_METHOD,
                       help="synthesis method (default %(default)s, the best general-purpose one; 'methods' lists "
                            "them all with their options)")
    synth.add_argument("--group", dest="groups", action="append", default=None, metavar="A,B[,C]",
                       help="a column group, for the methods that take groups (repeatable; see 'methods')")
    synth.add_argument("--delta", default=None,
                       help=f"delta, for the methods that take it, from 0 to {constraints.DELTA_MAX:g} (default "
                            f"{constraints.DELTA_DEFAULT:g}, a public constant; 0: pure epsilon-DP)")
    synth.add_argument("--rows", default=None,
                       help=f"a public number of synthetic rows, 1 to {constraints.MAX_ENGINE_SYNTHETIC_ROWS:,} "
                            "(written in chunks, whatever the engine; default: a noisy count)")
    synth.add_argument("--seed", default=None,
                       help="seed for a repeatable run (tests and teaching only): the release is then not private, "
                            "its card claims no epsilon and the ledger records no guarantee")
    synth.add_argument("--encoding", default=None,
                       help="text encoding of the input (utf-8, windows-1252, utf-16, ...; default: from a "
                            "byte-order mark, else UTF-8 with Windows-1252 for a line that is not UTF-8)")
    synth.add_argument("--delimiter", default=None,
                       help="field delimiter (',', ';', 'tab', '|', ...; default: from the header line)")
    synth.add_argument("--engine", default="auto", choices=("auto", "pandas", "duckdb", "spark"),
                       help="how the table is counted: pandas (in memory), duckdb (out of core, large files), "
                            "spark (a local Spark session); auto (default): duckdb for Parquet (a file, a "
                            "folder or a glob) and CSV files "
                            f"above {constraints.ENGINE_AUTO_BYTES // 2**20} MB when the method reads through "
                            "an engine (marginals, cathist), else pandas")
    synth.add_argument("--memory-limit", default=None, metavar="SIZE",
                       help="DuckDB's memory limit, for example 2GB (what does not fit spills to disk)")
    synth.add_argument("--person", metavar="COLUMN", help="the column identifying a person: protect people, not rows")
    synth.add_argument("--max-rows-per-person", metavar="K", help="public bound on rows per person (with --person)")
    synth.add_argument("--out", required=True,
                       help="where to write the synthetic table (.parquet, .pq, .parq: Parquet; any other name: "
                            "CSV, except suffixes of other formats such as .gz or .xlsx, refused)")
    synth.add_argument("--card", help="where to write the release card (JSON)")
    synth.add_argument("--card-html", help="where to write the release card (HTML page)")
    synth.add_argument("--rerun-script", help="where to write a Python script that reruns this release (auditors)")
    synth.add_argument("--workspace", metavar="FOLDER",
                       help="the workspace whose budget ledger records the draw (refused past its lifetime "
                            "budget; default: $DPSYNTH_WORKSPACE, else ~/.dpsynth)")
    synth.add_argument("--dataset", metavar="NAME",
                       help="count the draw against this named dataset's budget (new versions of a table share it)")
    synth.add_argument("--no-ledger", action="store_true",
                       help="record the draw in no ledger (its card says so)")
    sub.add_parser("methods", help="list the synthesis methods")
    ledger = sub.add_parser("ledger", help="print the privacy budget ledger of a workspace")
    ledger.add_argument("input", nargs="?", help="only this data file's (or Parquet folder's or glob's) ledger")
    ledger.add_argument("--workspace", metavar="FOLDER",
                        help="the workspace folder (default: $DPSYNTH_WORKSPACE, else ~/.dpsynth)")
    ledger.add_argument("--dataset", metavar="NAME", help="only this named dataset's ledger")
    ledger.add_argument("--json", action="store_true",
                        help="print every spend (method, epsilon, delta, time) and the composed totals as JSON")
    ledger.add_argument("--limit", metavar="EPSILON",
                        help="set the input file's lifetime budget (a number, or 'none' to remove it)")
    tau = sub.add_parser("tau", help="CatHist threshold for a domain size, rho and epsilon")
    tau.add_argument("--size", required=True, help="domain size n (a whole number, may be huge)")
    tau.add_argument("--rho", required=True,
                     help=f"tolerance for randomness, from {constraints.RHO_MIN:g} to {constraints.RHO_MAX:g}")
    tau.add_argument("--epsilon", required=True, help="the epsilon of one column (a share of the total)")
    from .evaluation.commands import add_commands

    add_commands(sub)  # compare, report
    return parser


def _input_name(path: str) -> str:
    """How the ledger names an input: a file's or folder's name, or a glob as typed."""
    from .engines.parts import is_glob

    return path if is_glob(path) else Path(path).name


# --- commands ---------------------------------------------------------------------------------

def _run_synth(args) -> None:
    epsilon = check_total_epsilon(args.epsilon, "--epsilon")
    rho = check_publisher_rho(args.rho, "--rho")
    rows = check_rows(args.rows, constraints.MAX_ENGINE_SYNTHETIC_ROWS)
    seed = check_seed(args.seed)
    memory_limit = check_memory_limit(args.memory_limit)
    from .synthesizers import get_method

    options = _options(args, get_method(args.method))
    person = check_person_option(args.person, args.max_rows_per_person)
    from .data.tables import check_delimiter, check_encoding

    check_encoding(args.encoding)
    check_delimiter(args.delimiter)
    from .release.outputs import check_apart_from_workspace, check_outside_input, check_targets, discard, write_all

    targets = check_targets(args)
    if args.no_ledger and (args.workspace is not None or args.dataset is not None):
        raise ParameterError("--no-ledger records nothing: it cannot go with --workspace or --dataset")
    if args.workspace is not None and not args.workspace.strip():
        raise ParameterError("--workspace must name a folder")
    source = Path(args.input)
    if not source.exists() and not any(c in args.input for c in "*?["):  # a glob is listed below
        raise ParameterError(f"file not found: {source}")

    from .release.writer import output_format

    out_format = output_format(args.out)  # the writer's rule: Parquet, CSV, or refused
    from .domain import TableDomain
    from .engines import PARQUET_SUFFIXES, is_file_set, names_parquet, parquet_parts
    from .synthesizers import get_method
    from .synthesizers.base import resolve_engine

    domain = TableDomain.load(args.domain)
    domain = (domain.with_person_bound(*person) if person else domain).validate()
    info = get_method(args.method)
    info.cls.check_unit(domain.person)
    engine = resolve_engine(info.cls, args.input, args.engine, unit=domain.person)
    parts = info_lines = None
    if engine == "pandas":  # one CSV file, held in memory
        if names_parquet(args.input):
            raise ParameterError(f"the pandas engine reads one CSV file; use --engine duckdb or --engine spark for "
                                 f"Parquet ({'/'.join(PARQUET_SUFFIXES)} files, a folder of them or a glob)")
        from .data.tables import read_table

        frame, table_info = read_table(args.input, encoding=args.encoding, delimiter=args.delimiter)
        domain.check_matches(frame.columns)
        info_lines = table_info["lines"]
    elif is_file_set(args.input):  # a folder or glob of Parquet files: listed and checked before any work
        parts = parquet_parts(args.input)
        check_outside_input(targets, args.input, parts)
    workspace = None
    if not args.no_ledger:  # the ledger of these records (or of the named dataset), checked before any work
        from .synthesizers.planning import price
        from .workspace import FILE_NAME, default_folder

        folder = Path(args.workspace).expanduser() if args.workspace else default_folder()
        check_apart_from_workspace(targets, folder / FILE_NAME, args.input)
        workspace = _workspace(args.workspace)
        records = workspace.records_key(frame if engine == "pandas" else args.input, encoding=args.encoding,
                                        delimiter=args.delimiter)
        key = workspace.dataset_key(records, args.dataset)
        charge = price(domain, epsilon, method=args.method, rows=rows, **options)  # what the ledger will record
        workspace.check(key, charge if seed is None else type(charge)(charge.events, False, charge.zcdp_delta))
    from .release import rerun_script, synthesize

    if seed is not None:  # said once every check has passed, before anything is drawn or written
        from .wording import SEED_NOTE

        print(f"note: {SEED_NOTE}", file=sys.stderr)
    out_path = Path(args.out)
    ready = []
    if engine == "spark" and out_format == "parquet":
        # drawn on the executors into a new folder of Parquet parts, renamed with the other outputs
        from .release.writer import check_spark_target

        check_spark_target(out_path)
        temporary = str(out_path.resolve().parent / f".{out_path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
        ready.append((temporary, out_path))
    else:  # the table goes to a temporary file in chunks (any engine: one row cap), renamed with the other outputs
        fd, temporary = tempfile.mkstemp(dir=out_path.resolve().parent, prefix=f".{out_path.name}.", suffix=".tmp")
        os.close(fd)
        ready.append((temporary, out_path))
    try:
        if engine == "pandas":
            release = synthesize(frame, domain, epsilon, method=args.method, rho=rho, rows=rows, random_state=seed,
                                 engine="pandas", encoding=args.encoding, delimiter=args.delimiter, out=temporary,
                                 out_format=out_format, **options)
        else:
            release = synthesize(args.input, domain, epsilon, method=args.method, rho=rho, rows=rows,
                                 random_state=seed, engine=engine, memory_limit=memory_limit, out=temporary,
                                 out_format=out_format, encoding=args.encoding, delimiter=args.delimiter, **options)
        if workspace is not None:  # recorded (or refused) before any output is written
            workspace.record_release(key, release, name=args.dataset or _input_name(args.input), source="cli",
                                     settings=release.settings)
        else:
            from .release.ledger import NO_LEDGER

            release.card["ledger"] = NO_LEDGER
        contents = {}
        if args.card:
            contents["--card"] = (json.dumps(release.card, indent=2) + "\n").encode("utf-8")
        if args.rerun_script:
            contents["--rerun-script"] = rerun_script(release, data=args.input, declaration=args.domain).encode()
        if args.card_html:
            from .release.card import render_card_html

            contents["--card-html"] = render_card_html(release.card).encode("utf-8")
    except BaseException:
        for temporary, _ in ready:
            discard(temporary)
        raise
    write_all([(path, contents[flag]) for flag, path in targets if flag in contents], ready=ready)

    # What follows is for the publisher's eyes only: stderr, never the release.
    if info_lines is None:  # an engine read the CSV in chunks: the same count, from its source
        info_lines = release.publisher_report.get("reading")
    from .data.tables import line_report_text

    reading = line_report_text(info_lines) if info_lines is not None else None
    if reading:
        print(f"note: {reading}", file=sys.stderr)
    for name, report in release.publisher_report["encoding"].items():
        if report["out_of_domain"]:
            print(f"note: column '{name}': {report['out_of_domain']} cell(s) outside the declared domain "
                  "were clamped or set to missing", file=sys.stderr)
    written = release.rows
    if rows is not None and written != rows:
        print(f"note: you asked for {rows:,} rows; the method released {written:,} (see the card)", file=sys.stderr)
    g = release.card["guarantee"]
    if g.get("epsilon") is None:
        guarantee = "no differential-privacy guarantee: see the card"
    else:
        guarantee = f"epsilon {g['epsilon']:.4g}" + (f", delta {g['delta']:.2g}" if g.get("delta") else "") + \
            f", {g['neighbouring']}"
    print(f"wrote {written:,} synthetic rows to {args.out} ({guarantee})")


def _run_tau(args) -> None:
    size = check_domain_size(args.size)
    rho = check_publisher_rho(args.rho, "--rho")
    epsilon = check_epsilon(args.epsilon, "--epsilon")
    from .domain import size_in_words
    from .privacy.cathist import cathist_tau, expected_made_up, threshold

    tau = cathist_tau(size, rho, epsilon)
    rule = threshold(size, rho, epsilon)
    print(f"domain size n = {size if size < 10**30 else size_in_words(size)} ({size_in_words(size)})")
    print(f"tau = {tau:.4f}")
    print(f"expected made-up values = {expected_made_up(size, rho):.4f}")
    print(f"discrete threshold: keep noisy counts > {rule.cut}, and = {rule.cut} with probability "
          f"{rule.tie_keep:.4f}; a true count of {rule.smallest_count_kept(0.5)} survives half the time")


def _workspace(folder: str | None, *, read_only: bool = False):
    """The workspace (default: $DPSYNTH_WORKSPACE, else ~/.dpsynth); its notes go to stderr."""
    from .workspace import Workspace

    if folder is not None and not folder.strip():
        raise ParameterError("--workspace must name a folder")
    workspace = Workspace(folder, read_only=read_only)
    for note in workspace.notes:
        print(f"note: {note}", file=sys.stderr)
    return workspace


def _run_ledger(args) -> None:
    from .data.fingerprint import check_source
    from .workspace import ledger_text

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
    workspace = _workspace(args.workspace, read_only=args.limit is None)  # a listing never writes
    key = None
    if args.input or args.dataset is not None:
        key = workspace.dataset_key(workspace.records_key(args.input) if args.input else None, args.dataset)
        if key is None:
            print(f"no spends recorded in {workspace.path} for this data")
            return
    if args.limit is not None:
        workspace.set_lifetime_budget(key, limit, name=args.dataset or _input_name(args.input), source="cli")
    if args.json:
        print(json.dumps(_ledger_json(workspace, key), indent=2))
    else:
        print(ledger_text(workspace, key))


def _ledger_json(workspace, key: str | None) -> dict:
    """Every spend (what, method, epsilon, delta, when) and the composed totals, per dataset."""
    datasets = []
    for data in workspace.datasets():
        if key is not None and data["fingerprint"] != key:
            continue
        spending = workspace.spending(data["fingerprint"])
        spends = [{k: spend[k] for k in ("created", "source", "purpose", "method", "guaranteed", "epsilon", "delta",
                                         "neighbouring", "release_id")}
                  for spend in workspace.spends(data["fingerprint"])]
        datasets.append({"name": data["name"], "fingerprint": data["fingerprint"],
                         "lifetime_epsilon": data["lifetime_epsilon"], "spends": spends,
                         "totals": [{"neighbouring": t.neighbouring, "epsilon": t.epsilon, "delta": t.delta,
                                     "composition": t.composition, "spends": t.draws} for t in spending.relations],
                         "spends_without_guarantee": spending.unguaranteed})
    return {"workspace": str(workspace.path), "datasets": datasets}


def _options(args, info) -> dict:
    """The method's options from their flags (:attr:`Synthesizer.options`); checked by the method's specs."""
    from .synthesizers import METHODS

    options = {}
    for option in {o.flag: o for m in METHODS.values() for o in m.cls.options}.values():
        given = getattr(args, option.name, None)
        if given is None:
            continue
        if not info.takes(option.name):
            takers = [m.name for m in METHODS.values() if m.takes(option.name)]
            raise ParameterError(f"{option.flag} works with {' and '.join(repr(t) for t in takers)}, "
                                 f"not '{info.name}'")
        options[option.name] = [option.parse(v) for v in given] if option.repeat else option.parse(given)
    return options


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class _Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler, ``timeout``, ``docker stop``), raised where Ctrl-C would be, so the same
    clean-up runs: temporary copies and partial outputs are removed, nothing is recorded."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def main(argv=None) -> int:
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread: the caller handles its signals
        previous = None
    try:
        return _main(argv)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(argv) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as done:
        return int(done.code or 0)
    try:
        if args.command == "methods":
            from .synthesizers import METHODS

            for info in METHODS.values():
                print(f"{info.name}: {info.title}. {info.summary}")
        elif args.command == "tau":
            _run_tau(args)
        elif args.command == "ledger":
            _run_ledger(args)
        elif hasattr(args, "run"):
            args.run(args)
        else:
            _run_synth(args)
    except DPSynthError as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        print(f"error: {exc.strerror or type(exc).__name__}{where}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: not enough memory for this table and declaration; declare fewer or wider bins",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        print(f"error: {'terminated' if isinstance(stop, _Terminated) else 'interrupted'}; nothing was written",
              file=sys.stderr)
        return 143 if isinstance(stop, _Terminated) else 130
    except Exception as exc:  # a bug: still one line (never the exception's text, which could quote a cell)
        if os.environ.get("DPSYNTH_DEBUG"):
            raise
        print(f"error: internal error ({type(exc).__name__}); nothing was written. Please report it; "
              "DPSYNTH_DEBUG=1 shows the details", file=sys.stderr)
        return 1
    return 0
