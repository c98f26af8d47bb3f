"""Command line: a whole release headless.

    python -m dpsynth_core synth INPUT.csv --domain DOMAIN.json --epsilon E [--rho R]
        [--method M] [--group A,B[,C] ...] [--delta D] [--rows N] [--seed S] --out OUT.csv [--card CARD.json]
        [--card-html CARD.html] [--workspace FOLDER]
    python -m dpsynth_core ledger [INPUT.csv] [--workspace FOLDER] [--limit EPSILON|none]
    python -m dpsynth_core methods
    python -m dpsynth_core tau --size N --rho R --epsilon E

Bad input ends with a one-line message on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import constraints
from .cathist import cathist_tau, expected_made_up, threshold
from .card import render_card_html
from .domain import size_in_words
from .errors import DPSynthError
from .synthesizers import METHODS
from .release import synthesize
from .validation import check_domain_size


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m dpsynth_core",
                                     description="Differentially private synthetic data over declared domains.")
    sub = parser.add_subparsers(dest="command", required=True)
    synth = sub.add_parser("synth", help="make a synthetic copy of a CSV file")
    synth.add_argument("input", help="the sensitive CSV or TSV file")
    synth.add_argument("--domain", required=True, help="the domain declaration (JSON)")
    synth.add_argument("--epsilon", required=True, type=float, help="total privacy budget, > 0")
    synth.add_argument("--rho", type=float, default=constraints.RHO_DEFAULT,
                       help="tolerance for randomness in (0, 1) (default %(default)s)")
    synth.add_argument("--method", default="cathist", help="synthesis method (see 'methods')")
    synth.add_argument("--group", action="append", default=None, metavar="A,B[,C]",
                       help="a column group for 'marginals' or 'dirichlet' (repeatable)")
    synth.add_argument("--delta", type=float, default=None,
                       help="delta for 'marginals' (default: a public rule from the table's size; 0: pure epsilon-DP)")
    synth.add_argument("--rows", type=int, default=None,
                       help="a public number of synthetic rows (default: a noisy count)")
    synth.add_argument("--seed", type=int, default=None,
                       help="seed for a repeatable run (tests and teaching only; never published)")
    synth.add_argument("--out", required=True, help="where to write the synthetic CSV")
    synth.add_argument("--card", help="where to write the release card (JSON)")
    synth.add_argument("--card-html", help="where to write the release card (HTML page)")
    synth.add_argument("--workspace", metavar="FOLDER",
                       help="record the draw in this workspace's budget ledger (refused past its lifetime budget)")
    sub.add_parser("methods", help="list the synthesis methods")
    ledger = sub.add_parser("ledger", help="print the privacy budget ledger of a workspace")
    ledger.add_argument("input", nargs="?", help="only this data file's ledger")
    ledger.add_argument("--workspace", metavar="FOLDER",
                        help="the workspace folder (default: $DPSYNTH_WORKSPACE, else ~/.dpsynth)")
    ledger.add_argument("--limit", metavar="EPSILON",
                        help="set the input file's lifetime budget (a number, or 'none' to remove it)")
    tau = sub.add_parser("tau", help="CatHist threshold for a domain size, rho and epsilon")
    tau.add_argument("--size", required=True, help="domain size n (a whole number, may be huge)")
    tau.add_argument("--rho", required=True, type=float)
    tau.add_argument("--epsilon", required=True, type=float)
    return parser


def _run_synth(args) -> None:
    for target in (args.out, args.card, args.card_html):
        if target and not Path(target).resolve().parent.is_dir():
            raise DPSynthError(f"cannot write {target}: its folder does not exist")
    if args.seed is not None:
        print("note: --seed makes a repeatable run for tests and teaching; do not publish it as a release",
              file=sys.stderr)
    options = {}
    if args.group:
        if args.method not in ("marginals", "dirichlet"):
            raise DPSynthError(f"--group works with 'marginals' and 'dirichlet', not '{args.method}'")
        options["groups"] = [tuple(c.strip() for c in g.split(",") if c.strip()) for g in args.group]
    if args.delta is not None:
        if args.method != "marginals":
            raise DPSynthError(f"--delta works with 'marginals', not '{args.method}'")
        options["delta"] = args.delta
    workspace = None
    if args.workspace:
        from .synthesizers import get_method
        from .workspace import Workspace, fingerprint_file, planned_events

        workspace, key = Workspace(args.workspace), fingerprint_file(args.input)
        workspace.check(key, planned_events(args.epsilon, get_method(args.method).neighbouring))
    release = synthesize(args.input, args.domain, args.epsilon, method=args.method, rho=args.rho,
                         rows=args.rows, random_state=args.seed, **options)
    if workspace is not None:  # recorded (or refused) before any output is written
        workspace.record_release(key, release, name=Path(args.input).name, source="cli",
                                 settings={"epsilon": args.epsilon, "rho": args.rho, "method": args.method,
                                           "rows": args.rows, "groups": args.group or [], "delta": args.delta})
    release.data.to_csv(args.out, index=False)
    if args.card:
        Path(args.card).write_text(json.dumps(release.card, indent=2) + "\n", encoding="utf-8")
    if args.card_html:
        Path(args.card_html).write_text(render_card_html(release.card), encoding="utf-8")
    changed = {n: r for n, r in release.publisher_report["encoding"].items() if r["out_of_domain"]}
    for name, report in changed.items():  # the publisher's eyes only: stderr, not the release
        print(f"note: column '{name}': {report['out_of_domain']} cell(s) outside the declared domain "
              "were clamped or set to missing", file=sys.stderr)
    g = release.card["guarantee"]
    delta = f", delta {g['delta']:.0e}" if g.get("delta") else ""
    print(f"wrote {len(release.data):,} synthetic rows to {args.out} "
          f"(epsilon {g['epsilon']:.4g}{delta}, {g['neighbouring']})")


def _run_tau(args) -> None:
    try:
        size = check_domain_size(int(args.size.replace("_", "").replace(",", "")) if args.size.replace(
            "_", "").replace(",", "").isdigit() else args.size)
    except ValueError:
        raise DPSynthError(f"--size ({args.size!r}) must be a whole number >= 1") from None
    tau = cathist_tau(size, args.rho, args.epsilon)
    rule = threshold(size, args.rho, args.epsilon)
    print(f"domain size n = {size} ({size_in_words(size)})")
    print(f"tau = {tau:.4f}")
    print(f"expected made-up values = {expected_made_up(size, args.rho):.4f}")
    print(f"discrete threshold: keep noisy counts > {rule.cut}, and = {rule.cut} with probability "
          f"{rule.tie_keep:.4f}; a true count of {rule.smallest_count_kept(0.5)} survives half the time")


def _run_ledger(args) -> None:
    from .workspace import Workspace, fingerprint_file, ledger_text

    workspace = Workspace(args.workspace)
    key = fingerprint_file(args.input) if args.input else None
    if args.limit is not None:
        if key is None:
            raise DPSynthError("--limit needs the data file whose lifetime budget it sets")
        try:
            limit = None if args.limit.strip().lower() == "none" else float(args.limit)
        except ValueError:
            raise DPSynthError(f"--limit ({args.limit!r}) must be a number > 0 or 'none'") from None
        workspace.set_lifetime_budget(key, limit, name=Path(args.input).name)
    print(ledger_text(workspace, key))


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "methods":
            for info in METHODS.values():
                print(f"{info.name}: {info.title}. {info.summary}")
        elif args.command == "tau":
            _run_tau(args)
        elif args.command == "ledger":
            _run_ledger(args)
        else:
            _run_synth(args)
    except (DPSynthError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
