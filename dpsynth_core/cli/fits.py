"""``check-declaration``: a table file against its declaration, before any release (for the publisher only).

It reads the file in memory (any file ``synth`` reads there) and names each column at least half of whose filled
cells the public rule would turn into missing: dates or numbers in a form the declaration does not say (``written``),
text in a number column, a coding the declared list does not use (:func:`dpsynth_core.data.misfits.misfit_columns`,
the app's warning before a draw), and counts, in a column that mostly fits, the cells the rule would change
(:func:`~dpsynth_core.data.misfits.changed_columns`: what ``synth`` notes after a release). Nothing is measured,
spent or recorded, nothing it prints enters a release, and it names no value. It also says how many of a CSV's
lines could not be read, and stops when most could not (a title above the header, a row number the header does not
name). Exit status 0 when no column would come out mostly missing or mostly clamped to its declared range, 2 (one
line on stderr) when one would or most lines are broken, so a script can stop before ``synth``.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import DataError
from ..wording import counted
from .outputs import DOMAIN_HELP, input_path


def add_commands(sub) -> None:
    """Register ``check-declaration`` on the command line's subparsers (it sets ``run``)."""
    from .commands import add_reading_flags

    check = sub.add_parser(
        "check-declaration",
        help="check a table file against its declaration before a release: the columns most of whose cells would "
        "become missing (a date or number format, a kind or a coding it does not say); spends and records nothing",
    )
    check.add_argument("input", type=input_path, help="the sensitive table (any file synth reads, in memory)")
    check.add_argument("--domain", required=True, type=input_path, help=DOMAIN_HELP)
    add_reading_flags(check)
    check.set_defaults(run=run_check_declaration)


def run_check_declaration(args) -> None:
    from ..data.line_report import line_report_text, most_lines_broken
    from ..data.misfits import fit_notes
    from ..data.rule_notes import CLAMPED_HOW
    from ..domain import TableDomain
    from .commands import read_in_memory

    domain = TableDomain.load(args.domain).validate()
    frame, info = read_in_memory(args, with_info=True, declaration=domain)
    lines = info.get("lines") or {}
    said = line_report_text(lines)
    if said:
        print(f"For you only (it reads your data): {said}")
    if most_lines_broken(lines):
        raise DataError(f"most lines of {Path(args.input).name} could not be read as records (above): fix the file")
    domain.check_matches(frame.columns)
    notes = fit_notes(frame, domain)
    for _, heading, found, how in notes.advice():
        print(f"For you only (it reads your data): {heading}")
        print("\n".join(f"- {line}" for line in found))
        print(how)
    if not notes.missing and not notes.clamped:
        name, kept = Path(args.input).name, f"{len(domain.kept):,} kept"
        # the columns of either note, once each: every line starts "Column 'NAME': "
        changed = len({line.split(": ", 1)[0] for line in [*notes.changed, *notes.empty]})
        if changed:  # some cells changed (above), none of the columns mostly missing
            holds = f"{counted(changed, 'column')} {'holds' if changed == 1 else 'hold'}"
            print(
                f"no column of {name} would come out mostly missing ({kept}); {holds} cells the public rule "
                "changes (above)"
            )
        else:
            print(f"every column of {name} fits its declaration ({kept})")
        return
    stops = [
        (notes.MISSING_HEADING, notes.missing, " ".join(notes.how)),
        (notes.CLAMPED_HEADING, notes.clamped, CLAMPED_HOW),
    ]
    for heading, lines, how in [stop for stop in stops if stop[1]]:
        print(f"For you only (it reads your data): {heading}")
        print("\n".join(f"- {line}" for line in lines))
        if how:
            print(how)
    count = len(notes.missing) + len(notes.clamped)
    do, their = ("does", "its") if count == 1 else ("do", "their")
    raise DataError(f"{counted(count, 'column')} {do} not fit the declaration (above): check {their} declaration")
