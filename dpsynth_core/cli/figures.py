"""Command line for the figures: ``compare`` (exact, publisher-only) and ``report`` (DP, shareable).

    python -m dpsynth_core compare REAL SYNTHETIC --domain D --json OUT
    python -m dpsynth_core report REAL SYNTHETIC --domain D --epsilon E [--workspace W] --out report.html
        [--pdf report.pdf] [--json figures.json] [--pair A,B ...] [--chart COLUMN ...] [--column COLUMN ...]
        [--seed S]

Both read the tables as the app does and compute their figures with the same core functions
(:mod:`dpsynth_core.evaluation.metrics`, :mod:`dpsynth_core.evaluation.report`), over the
released representation, so the numbers are the ones the app shows. ``compare`` reads the
real data without noise: its output is for the publisher's eyes only. ``report`` spends its
epsilon on DP figures, recorded in the workspace's ledger next to the release it describes
(found by its synthetic file, or by its ``--card``), before anything is written.

Only argument parsing happens at import; the numerical libraries load when a command runs.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import DPSynthError, ParameterError
from ..synthesizers.options import parse_group
from ..wording import noun
from .outputs import DOMAIN_HELP, input_path, output_path


def add_commands(sub) -> None:
    """Register ``compare`` and ``report`` on the CLI's subparsers (each sets ``run``)."""
    compare = sub.add_parser(
        "compare",
        help="exact comparison of a synthetic table with the real one "
        "(for the publisher only: not differentially private)",
    )
    _tables(compare)
    compare.add_argument(
        "--json", required=True, metavar="OUT", type=output_path, help="where to write the figures (JSON)"
    )
    compare.set_defaults(run=run_compare)
    report = sub.add_parser(
        "report",
        help="a stakeholder report whose figures are differentially private "
        "(its epsilon is recorded in the workspace's ledger)",
    )
    _tables(report)
    report.add_argument("--epsilon", required=True, help="the report's own budget (for example 0.1)")
    report.add_argument(
        "--workspace",
        metavar="FOLDER",
        help="the workspace that recorded the release (its ledger records the report; default: $DPSYNTH_WORKSPACE, "
        "else ~/.dpsynth, as synth's)",
    )
    report.add_argument("--out", required=True, type=output_path, help="where to write the report (HTML page)")
    report.add_argument("--pdf", type=output_path, help="also print it to this PDF (needs Chromium)")
    report.add_argument("--json", metavar="OUT", type=output_path, help="also write the DP figures (JSON)")
    report.add_argument(
        "--card",
        type=input_path,
        help="the release card (JSON), to find a release whose file the workspace did not keep",
    )
    report.add_argument(
        "--pair",
        action="append",
        default=None,
        metavar="A,B",
        help="a pair of columns to compare together (repeatable; default: the pairs the method joined, from the card)",
    )
    report.add_argument(
        "--chart",
        action="append",
        default=None,
        metavar="COLUMN",
        help="a column whose values are charted (repeatable; default: the first four, free-text columns last)",
    )
    report.add_argument(
        "--column",
        action="append",
        default=None,
        metavar="COLUMN",
        help="a column the report measures (repeatable; default: every column, unless a report on them all would "
        "say little at this epsilon; then those of its pairs and charts)",
    )
    report.add_argument("--seed", default=None, help="seed for repeatable noise (tests only; never publish it)")
    report.set_defaults(run=run_report)


def _tables(parser) -> None:
    from .commands import add_reading_flags

    parser.add_argument(
        "real",
        type=input_path,
        help="the real table: a file in any format synth reads (CSV, spreadsheet, SPSS, Stata, SAS, Parquet)",
    )
    parser.add_argument(
        "synthetic", type=input_path, help="the synthetic table as synth wrote it (its format from its suffix)"
    )
    parser.add_argument("--domain", required=True, type=input_path, help=f"{DOMAIN_HELP}: both tables are read over it")
    add_reading_flags(parser, "the real table")


def _outputs(args, flags) -> list[tuple[str, Path]]:
    """The command's outputs through the one check every command's outputs pass
    (:func:`~dpsynth_core.cli.outputs.check_outputs`): never an input, the card, a device or a ledger."""
    from ..workspace import default_folder
    from .outputs import WRITES, check_outputs

    reads = [("the real table", args.real), ("the synthetic table", args.synthetic), ("--domain", args.domain)]
    reads.append(("--card", getattr(args, "card", None)))
    workspaces = [default_folder()]
    if getattr(args, "workspace", None) is not None:
        if not args.workspace.strip():
            raise ParameterError("--workspace must name a folder")
        workspaces.append(args.workspace)
    named = [(flag, getattr(args, flag.strip("-"))) for flag in flags]
    return check_outputs(named, reads, workspaces, WRITES[args.command])


def _write(files: list[tuple[Path, bytes]]) -> None:
    """Write every file beside its target, then rename all into place (nothing half-written)."""
    from .outputs import write_all

    write_all(files)


def _read(args):
    """Both tables (cells as text, as the app reads an upload) and the declaration, checked against both."""
    for path in (args.real, args.synthetic, args.domain):
        if not Path(path).is_file():
            raise ParameterError(f"file not found: {path}")
    from ..data.formats import read_data
    from ..domain import TableDomain
    from .commands import read_in_memory

    domain = TableDomain.load(args.domain).validate()
    real = read_in_memory(args, path=args.real, declaration=domain)  # as synth read it (a data package's dialect)
    synthetic = read_data(args.synthetic)[0]  # as synth wrote it: UTF-8 with commas, or the format its suffix says
    domain.check_matches(real.columns)
    missing = [c for c in domain.kept if c not in synthetic.columns]
    if missing:
        raise DPSynthError(
            f"the synthetic table lacks {noun(len(missing), 'column')} {', '.join(missing)} of the declaration"
        )
    return real, synthetic, domain


def pair_key(a: str, b: str) -> str:
    return f"{a},{b}"


def exact_figures(real, synthetic, domain) -> dict:
    """The exact comparison ``compare`` writes: 1-way and 2-way total variation distances over the
    released representation (the Preview's figures) and the value-level figures of numeric and date
    columns. Reads the real data without noise: publisher-only."""
    from ..evaluation import metrics, values

    pairs = metrics.paired_codes(real, synthetic, domain)
    matrix = metrics.two_way_distances(pairs)
    names = list(pairs)
    return {
        "one_way": metrics.one_way_distances(pairs),
        "two_way": {pair_key(a, b): float(matrix.loc[a, b]) for i, a in enumerate(names) for b in names[i + 1 :]},
        "values": values.value_summaries(real, synthetic, domain),
    }


def run_compare(args) -> None:
    targets = _outputs(args, ["--json"])
    real, synthetic, domain = _read(args)
    figures = exact_figures(real, synthetic, domain)
    _write([(targets[0][1], (json.dumps(figures, indent=2) + "\n").encode("utf-8"))])
    worst = max(figures["one_way"].items(), key=lambda kv: kv[1], default=None)
    print(
        f"wrote the exact comparison of {len(figures['one_way'])} columns to {args.json}"
        + (f" (furthest column: {worst[0]}, distance {worst[1]:.3f})" if worst else "")
        + "; it reads the real data without noise: keep it to yourself"
    )
    from ..evaluation.shape_words import shape_warnings

    for sentence in shape_warnings(figures["values"]):
        print(f"values that changed shape: {sentence}")


def _find_release(workspace, fingerprint: str, synthetic_path: str, card_path: str | None, synthetic):
    """The workspace's release of these records whose file ``synthetic_path`` is.

    Found by the file's content: the digest ``synth --workspace`` recorded of the file it wrote, or the
    stored table's own CSV (the app's download). A ``--card`` must then be that release's card. A card
    alone finds only a release made before files were recorded, and only when the file has that
    release's columns and rows (``synthetic``: the file as read); anything else is refused.
    """
    card = read_card(card_path) if card_path is not None else None
    stored_id = workspace.releases.written_to(synthetic_path)
    made = workspace.releases.made_from(fingerprint)
    found = next((r for r in made if r.id == stored_id), None)
    if found is None and stored_id is not None:
        raise DPSynthError(f"{synthetic_path} is release #{stored_id} of other records, not of this real table")
    if found is None:
        content = Path(synthetic_path).read_bytes()
        found = next((r for r in made if r.csv_bytes() == content), None)
    if found is not None:
        if card is not None and found.card != card:
            raise DPSynthError(f"--card is not the card of {synthetic_path} (release #{found.id})")
        return found
    for stored in made if card is not None else ():
        if stored.card == card and not workspace.releases.has_files(stored.id):
            if len(synthetic) != stored.rows or list(synthetic.columns) != list(stored.data.columns):
                break
            return stored
    raise DPSynthError(
        f"{synthetic_path} is not a release of this real table recorded in the workspace (not the file "
        "'synth --workspace' wrote, nor one downloaded from the app; a file changed since is not the release)"
    )


def read_card(path: str) -> dict:
    """A release card (the JSON ``synth --card`` writes), or a one-line refusal naming what it is not."""
    if not path.strip():
        raise ParameterError("--card must name a file")
    if not Path(path).is_file():
        raise ParameterError(f"--card: file not found: {path}")
    try:
        card = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ParameterError(f"--card ({path}) is not a release card: it is not JSON text") from None
    if not isinstance(card, dict) or not {"method", "parameters", "guarantee", "domain"} <= set(card):
        raise ParameterError(f"--card ({path}) is not a release card: it lacks a card's method, guarantee and domain")
    return card


def report_figures_json(figures) -> dict:
    """The DP figures ``report --json`` writes: estimates with their 95% intervals, and under ``values`` the
    value-level figures with, in each ``claims``, the wider intervals its plain statements are checked
    against; ``statements`` says how many figures those hold together over (at ``confidence``)."""
    from ..evaluation.intervals import CONFIDENCE

    def estimate(e):
        return {"estimate": e.value, "low": e.low, "high": e.high}

    pairs = {label: label.split(" × ") for label in figures.two_way}
    out = {
        "epsilon": figures.epsilon,
        "rows": {"estimate": figures.rows, "margin": figures.rows_margin},
        "one_way": {k: estimate(v) for k, v in figures.one_way.items()},
        "two_way": {pair_key(*pairs[k]): estimate(v) for k, v in figures.two_way.items()},
        "shares": figures.shares,
    }
    if getattr(figures, "values", None):
        out["values"] = figures.values
        out["statements"] = {"figures": figures.statements, "confidence": CONFIDENCE}
    return out


def run_report(args) -> None:
    from ..validation import check_epsilon, check_seed

    epsilon = check_epsilon(args.epsilon, "--epsilon")
    seed = check_seed(args.seed)
    targets = _outputs(args, ["--out", "--pdf", "--json"])
    from ..evaluation import report_plan, report_render

    if args.pdf and report_render.find_chromium() is None:  # refused before anything is read or recorded
        raise ParameterError(report_render.NO_CHROMIUM)
    real, synthetic, domain = _read(args)
    from .. import usecases
    from ..evaluation import report
    from .commands import open_workspace

    workspace = open_workspace(args.workspace)
    # The ledger of the real table's records (any file form), as ``synth`` recorded the release in.
    fingerprint = workspace.ledger.dataset_key(workspace.ledger.records_key(real))
    stored = _find_release(workspace, fingerprint, args.synthetic, args.card, synthetic)
    columns = list(domain.kept)
    pairs = [parse_group(p) for p in args.pair] if args.pair else report.default_pairs(stored.card, columns)
    charts = args.chart if args.chart else report_plan.default_charts(domain, columns)
    measured = list(dict.fromkeys(args.column or [])) or usecases.default_columns(
        stored.card, domain, len(synthetic), epsilon=epsilon, pairs=pairs, chart_columns=charts
    )
    pairs = pairs if args.pair else [p for p in pairs if set(p) <= set(measured)]  # defaults among those measured
    charts = charts if args.chart else [c for c in charts if c in measured]
    # Priced from public settings, checked against the lifetime budget and recorded before the data is read.
    made = usecases.report(
        workspace,
        fingerprint,
        stored.id,
        card=stored.card,
        real=real,
        synthetic=synthetic,
        declaration=domain,
        epsilon=epsilon,
        pairs=pairs,
        chart_columns=charts,
        columns=measured,
        source="cli",
        random_state=seed,
    )
    figures, page = made.figures, made.page
    from ..wording import cost_words

    [stored_report] = [r for r in workspace.releases.reports(stored.id) if r["id"] == made.report_id]
    recorded = workspace.ledger.spend(stored_report["spend_id"])
    files = {
        "--out": page.encode("utf-8"),
        "--json": (json.dumps(report_figures_json(figures), indent=2) + "\n").encode("utf-8"),
    }
    if args.pdf:
        files["--pdf"] = report_render.html_to_pdf(page)
    _write([(path, files[flag]) for flag, path in targets])
    some = f"; it measures {len(measured)} of the release's {len(columns)} columns" * (len(measured) < len(columns))
    print(
        f"wrote the report to {args.out} (its figures spent {cost_words(recorded)}, as recorded in the ledger of "
        f"{workspace.folder}{some})"
    )
