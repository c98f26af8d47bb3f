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
    python -m dpsynth_core compare|report REAL SYNTHETIC --domain D ...  (:mod:`dpsynth_core.cli.figures`)
    python -m dpsynth_core account add|remove|list [NAME]; review-link add|list|revoke ...
        (:mod:`.accounts`)

``dpsynth`` (the console script of ``pip install .``) and ``python -m dpsynth_core`` are the same
parser (:mod:`.parser`), every subcommand listed in ``--help``.

Bad input ends with a one-line message on stderr and exit status 2, never a traceback, and no
message quotes a cell of the data (an unexpected error names its type only; its text with
``DPSYNTH_DEBUG=1``). Every check runs before anything is written: the outputs' paths first,
then every setting and the declaration (checked once, by the core, which prices the draw), then
the ledger (:mod:`.synth`). Outputs are
written to temporary files in their own folders and renamed into place only once all of
them are complete, so a failure never leaves a half-written or replaced file.

INPUT is a CSV/TSV file, a Parquet file, or a folder or quoted glob of Parquet files
(``'data/*.parquet'``: see :mod:`dpsynth_core.data.parts`). With ``--engine duckdb``
(chosen by ``auto`` for Parquet and for a CSV above ``constraints.ENGINE_AUTO_BYTES``) or
``spark``, the table is counted out of core and the synthetic table is written in chunks
(never whole in memory) to a temporary file, renamed with the other outputs. The output's
format follows :func:`dpsynth_core.release.writer.output_format` (Parquet for .parquet, .pq, .parq;
CSV for any other name, except suffixes of other formats, refused). With ``--engine spark``
a Parquet output is drawn on Spark's executors and becomes a new folder of Parquet parts
(:func:`dpsynth_core.engines.spark_writer.write_on_spark`); an existing one is never replaced.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings

from ..errors import DPSynthError
from .parser import build_parser

__all__ = ["main", "build_parser"]


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class _Terminated(KeyboardInterrupt):
    """SIGTERM (a scheduler, ``timeout``, ``docker stop``), raised where Ctrl-C would be, so the same
    clean-up runs: temporary copies and partial outputs are removed (a spend recorded before the data
    was read stays recorded: the draw may have used the data)."""


#: Set by a termination signal: whatever exception it surfaces as (a library that turns the interrupt
#: into its own error, as DuckDB does inside a query), the run ends as "terminated".
_signalled = []


#: How soon a termination that came during a finaliser is raised again (seconds).
_AGAIN_AFTER = 0.01


def _in_finaliser(frame) -> bool:
    """Whether ``frame`` runs inside a finaliser (a ``__del__``, a weakref's callback, as the garbage collector calls
    them): Python prints an exception raised there and goes on, so a termination raised there would be lost."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or code.co_filename.endswith(("weakref.py", "_weakrefset.py")):
            return True
        frame = frame.f_back
    return False


def _on_sigterm(signum, frame):
    """Raise :class:`_Terminated` where the run is; inside a finaliser, again a moment later (``SIGALRM``), once
    the finaliser has returned (a SIGTERM that came while the collector ran a weakref callback was swallowed, and the
    run went on to write its output)."""
    _signalled.append(signum)
    if _in_finaliser(frame) and hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, _on_sigterm)
        signal.setitimer(signal.ITIMER_REAL, _AGAIN_AFTER)
        return
    raise _Terminated()


def main(argv=None) -> int:
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
        alarm = signal.getsignal(signal.SIGALRM) if hasattr(signal, "setitimer") else None
    except ValueError:  # not the main thread: the caller handles its signals
        previous = alarm = None
    _signalled.clear()
    try:
        return _main(argv)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if alarm is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, alarm)


#: PySpark warns on import that it "does not yet fully support pandas >= 3.0.0"; the Spark engine exchanges
#: data through Arrow only, never PySpark's pandas API (docs/large-tables.md), so the command line, whose
#: process runs no other Spark code, does not print it to a publisher.
_PYSPARK_PANDAS_WARNING = "PySpark does not yet fully support pandas"


def _main(argv) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:
        return int(done.code or 0)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_PYSPARK_PANDAS_WARNING, category=FutureWarning)
            args.run(args)
    except DPSynthError as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        print(f"error: {exc.strerror or type(exc).__name__}{where}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error: not enough memory for this table and declaration; declare fewer or wider bins", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stop:
        print(
            f"error: {'terminated' if isinstance(stop, _Terminated) else 'interrupted'}; nothing was written",
            file=sys.stderr,
        )
        return 143 if isinstance(stop, _Terminated) else 130
    except Exception as exc:  # a bug: still one line (never the exception's text, which could quote a cell)
        if _signalled:  # the signal reached us inside a library, which raised its own error for it
            print("error: terminated; nothing was written", file=sys.stderr)
            return 143
        if os.environ.get("DPSYNTH_DEBUG"):
            raise
        print(
            f"error: internal error ({type(exc).__name__}); nothing was written. Please report it; "
            "DPSYNTH_DEBUG=1 shows the details",
            file=sys.stderr,
        )
        return 1
    return 0
