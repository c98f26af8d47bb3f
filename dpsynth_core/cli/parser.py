"""The command line's one parser: every subcommand, for ``dpsynth`` and ``python -m dpsynth_core`` alike.

``synth`` takes its settings' and methods' flags, defaults, ranges and help from the option
descriptions (:mod:`dpsynth_core.synthesizers.options`) and checks none of them: the core checks
each value once (:func:`dpsynth_core.release.prepare`). Building the parser imports no method and no
numerical library, so ``--help`` and a bad command are answered at once.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .outputs import DOMAIN_HELP, input_path, output_path


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line and exit status 2."""

    def error(self, message):
        print(f"error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def program() -> str:
    """How the user called us: the console script of ``pip install .``, or the module."""
    return "dpsynth" if Path(sys.argv[0]).name == "dpsynth" else "python -m dpsynth_core"


def build_parser() -> argparse.ArgumentParser:
    """Every subcommand; each sets ``run`` (``args -> None``), called by :func:`dpsynth_core.cli.main`."""
    from . import commands, synth

    parser = _Parser(prog=program(), description="Differentially private synthetic data over declared domains.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    add_synth(
        sub.add_parser(
            "synth", help="make a synthetic copy of a table file (CSV, spreadsheet, SPSS, Stata, SAS or Parquet)"
        )
    )
    sub.choices["synth"].set_defaults(run=synth.run_synth)
    sub.add_parser("methods", help="list the synthesis methods").set_defaults(run=commands.run_methods)
    commands.add_ledger(sub)
    commands.add_tau(sub)
    commands.add_declare(sub)
    from .accounts import add_commands as add_review
    from .figures import add_commands as add_figures

    add_figures(sub)  # compare, report
    add_review(sub)  # account, review-link
    from .persons import add_commands as add_persons

    add_persons(sub)  # check-persons
    from .fits import add_commands as add_fits

    add_fits(sub)  # check-declaration
    return parser


def add_option(parser, option) -> None:
    """One flag from an option's description (:class:`~dpsynth_core.synthesizers.options.Option`)."""
    parser.add_argument(
        option.flag,
        dest=option.name,
        default=None,
        required=option.required,
        action="append" if option.repeat else "store",
        metavar=option.metavar,
        help=option.help_text.replace("%", "%%"),
    )


def add_synth(synth) -> None:
    from ..synthesizers.options import METHOD_OPTIONS, SETTINGS
    from ..synthesizers.registry import DEFAULT_METHOD

    synth.add_argument(
        "input",
        type=input_path,
        help="the sensitive table: a CSV, TSV or Parquet file, a spreadsheet (.xlsx, .xls, .ods), an SPSS, "
        "Stata or SAS file (.sav, .zsav, .por, .dta, .sas7bdat, .xpt), or a folder or quoted glob of Parquet "
        "files ('data/*.parquet'; --engine duckdb or spark)",
    )
    synth.add_argument("--domain", required=True, type=input_path, help=DOMAIN_HELP)
    synth.add_argument(
        "--method",
        default=DEFAULT_METHOD,
        help="synthesis method (default %(default)s, the best general-purpose one; 'methods' lists "
        "them all with their options)",
    )
    for option in SETTINGS + METHOD_OPTIONS:
        add_option(synth, option)
    synth.add_argument(
        "--encoding",
        default=None,
        help="text encoding of the input (utf-8, windows-1252, utf-16, ...; default: from a "
        "byte-order mark, else UTF-8 with Windows-1252 for a line that is not UTF-8; auto:cp1250: the same with "
        "Windows-1250 for such a line)",
    )
    synth.add_argument(
        "--delimiter",
        default=None,
        help="field delimiter (',', ';', 'tab', '|', ...; 'spaces': columns aligned with runs of spaces or tabs; "
        "default: from the header line)",
    )
    from .commands import add_sheet_flags

    add_sheet_flags(synth)
    from .commands import add_engine_flags

    add_engine_flags(synth, "when the method reads through an engine")
    synth.add_argument("--person", metavar="COLUMN", help="the column identifying a person: protect people, not rows")
    synth.add_argument("--max-rows-per-person", metavar="K", help="public bound on rows per person (with --person)")
    synth.add_argument(
        "--person-check",
        metavar="FILE",
        type=input_path,
        help="a rows-per-person check saved by check-persons --out, of these records: its figures go on the card",
    )
    synth.add_argument(
        "--out",
        required=True,
        type=output_path,
        help="where to write the synthetic table (.parquet, .pq, .parq: Parquet; .xlsx: Excel, the card's "
        "notes on a second sheet; .sav, .dta: SPSS or Stata with the declaration's value labels and its "
        "codebook's variable labels and missing codes; .xpt: a SAS transport file with its variable labels; any "
        "other name: CSV, except suffixes of other "
        "formats such as .gz or .ods, refused)",
    )
    synth.add_argument("--card", type=output_path, help="where to write the release card (JSON)")
    synth.add_argument("--card-html", type=output_path, help="where to write the release card (HTML page)")
    synth.add_argument(
        "--rerun-script",
        type=output_path,
        help="where to write a Python script (.py) that reruns this release (auditors)",
    )
    synth.add_argument(
        "--workspace",
        metavar="FOLDER",
        help="the workspace whose budget ledger records the draw (refused past its lifetime "
        "budget; default: $DPSYNTH_WORKSPACE, else ~/.dpsynth)",
    )
    synth.add_argument(
        "--dataset",
        metavar="NAME",
        help="count the draw against this named dataset's budget (new versions of a table share it)",
    )
    synth.add_argument("--no-ledger", action="store_true", help="record the draw in no ledger (its card says so)")
