"""The release card: what was done, with which parameters and guarantee, readable by anyone.

The card is built only from public facts (the declaration, the parameters, the ledger of
privacy spends, the size of the synthetic file) and DP output (the bins fitted to numeric
columns declared without bins). It never holds the random seed, a true count, a real-data
metric, or which released values were made up.
"""

from __future__ import annotations

import datetime as dt
import html
import re

from .. import __version__ as _version
from .. import constraints
from ..data.gaps import gap_named
from ..privacy.persons import dropped_words
from ..synthesizers.charges import row_count_event
from ..wording import (
    EMPTY_EPSILON,
    SEEDED_GUARANTEE,
    counted,
    factor_bound,
    first_names,
    format_delta,
    plural,
    protected_one,
    protects,
    rounded_up,
)
from .dominance import dominance_notes, single_value_notes


def build_card(model, method_info, synthetic_rows: int, synthetic=None, person_check=None) -> dict:
    """The card of a fitted synthesizer, as a JSON-ready dict. ``synthetic``: the synthetic table when it is
    held in memory, or the :class:`~.dominance.TextTally` of its free-text columns when it was written in
    chunks (read for :func:`~.dominance.dominance_notes`); ``person_check``: the DP rows-per-person check drawn
    before the release, if any (:func:`bounding_note`)."""
    unit = getattr(model, "unit_", None)
    ledger, per_row = model.ledger(), model.accountant_  # the same ledger when the unit is a row
    row_total = per_row.total(constraints.ADVANCED_COMPOSITION_DELTA)
    total = ledger.total(constraints.ADVANCED_COMPOSITION_DELTA)
    epsilon, delta = total["epsilon"], total["delta"]
    split = {}
    zcdp = row_total["composition"] == "zCDP"
    # each part's share of the per-row total, scaled to the guarantee's epsilon (per person by group privacy)
    scale = epsilon / row_total["epsilon"] if row_total["epsilon"] > 0 else 1.0
    for event in per_row.events:
        # a zCDP ledger composes rhos, so each part is shown as its share of rho, in epsilon units
        cost = (
            event.rho_cost / row_total["rho"] * row_total["epsilon"] if zcdp and row_total["rho"] > 0 else event.epsilon
        )
        split[event.label] = split.get(event.label, 0.0) + cost * scale
    measured = getattr(model, "declared_domain_", model.domain_)  # the columns the method read (derived ones dropped)
    domain = getattr(model, "full_domain_", None) or measured  # ... and the declaration, with its derived columns
    missing = model.missing_guarantee()
    guarantee = {
        "epsilon": epsilon,
        "delta": delta,
        "composition": total["composition"]
        if unit is None
        else f"group privacy over {unit.max_rows:,} rows of the per-row {row_total['composition']} total",
        "neighbouring": ledger.neighbouring,
        "unit": unit_words(unit),
        "plain_words": plain_guarantee(epsilon, delta, ledger.neighbouring, unit),
    }
    if zcdp and unit is None:
        guarantee.update(rho=total["rho"], delta_in_plain_words=delta_words(delta))
    if missing:
        guarantee = {
            "epsilon": None,
            "delta": None,
            "composition": None,
            "neighbouring": None,
            "noise_epsilon": epsilon,
            "plain_words": f"No differential-privacy guarantee: {missing}. Noise with epsilon = "
            f"{plain_number(epsilon)} was added to the statistics, but that number does not "
            "bound what the release reveals.",
        }
    seeded = not getattr(getattr(model, "noise_", None), "secure", True)
    if seeded:  # a fixed function of the data and the seed: no epsilon holds, whatever the mechanism
        guarantee = {
            "epsilon": None,
            "delta": None,
            "composition": None,
            "neighbouring": None,
            "seeded": True,
            "noise_epsilon": epsilon,
            "plain_words": SEEDED_GUARANTEE,
            "unseeded": dict(guarantee, note="what the same draw from the secure source would guarantee"),
        }
        missing = missing or "seeded"
    details = model.card_details()
    return {
        "title": f"Synthetic data release{': ' + domain.dataset if domain.dataset else ''}",
        "software": {"name": "dpsynth", "version": _version},
        "created": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "method": {"name": method_info.name, "title": method_info.title, "summary": method_info.summary},
        "parameters": {
            "epsilon": getattr(model, "total_epsilon_", model.epsilon_),
            # the tolerance only where the method uses it (no leftover number on a card)
            "rho": model.rho_ if method_info.cls.uses_tolerance(domain) else None,
        },
        "privacy_unit": _unit_card(unit, model.epsilon_),
        "guarantee": guarantee,
        # Without a guarantee there is no privacy unit to name, not even on each spend.
        "spends": [dict(e, neighbouring=None) for e in ledger.as_list()] if missing else ledger.as_list(),
        **({"spends_per_row": per_row.as_list()} if unit is not None else {}),
        "budget_split": split,
        "budget_unit": (
            "each part's share of the zero-concentrated budget (rho), shown in epsilon" if zcdp else "epsilon"
        ),
        "rows": {"synthetic": int(synthetic_rows), "policy": model.row_policy_},
        "noise_source": model.noise_.describe(),
        "domain": {"dataset": domain.dataset, "documentation": domain.documentation, "columns": domain.summary()},
        # Bins fitted to the data (a range declared without bins; a gap's named so) apart from the spread inside bins
        "adaptive_bins": [gap_named(f.as_card(), domain) for f in getattr(model, "bins_", []) if not f.inside],
        "spread_inside_bins": [found.as_card() for found in getattr(model, "bins_", []) if found.inside],
        "method_details": details,
        "notes": [
            *([said] if (said := bounding_note(unit, kept_rows=_noisy_rows(model), check=person_check)) else []),
            *model.release_notes(),
            *dominance_notes(synthetic, model.text_facts()),
            *single_value_notes(synthetic, domain),
            *unjoined_notes(details, [n for n, c in measured.kept.items() if not c.constant]),
            *question_notes(details),
        ],
        "covered": [
            "the synthetic file: every value in it comes from the noisy statistics above",
            "this card: it holds only the declaration, the parameters, the privacy spends and the bins fitted with DP",
        ],
        "not_covered": [
            "quality charts computed against the real data in the app (fidelity, distances, "
            "distinguishing game): they are for the publisher's eyes only",
            "other releases from the same data: their budgets add up to this one",
            "the declaration itself, which is public knowledge by assumption",
        ],
    }


def unjoined_notes(details: dict, columns: list) -> list[str]:
    """The card's sentence when a method that measures pairs or groups of columns (``details["measured_marginals"]``,
    its public list of what it measured) left some of the kept ``columns`` in none: each keeps its own
    distribution but none of its relationships (a wide table's few pairs at a small epsilon: FiveThirtyEight's
    Star Wars survey at epsilon 1, 16 pairs for 37 columns). Empty otherwise. Reads no data. The card passes the
    columns of more than one cell: one declared value and no missing one (a year 2012 to 2012 that is never
    missing) has no relationship to keep; a box ticked or not (one value, or missing) has."""
    measured = details.get("measured_marginals") or []
    if len(columns) < 3 or not measured:
        return []
    kept = {str(c) for c in columns}  # a pair with a model's hidden column (a survey block's) is no pair of columns
    together = [m["marginal"] for m in measured if sum(str(c) in kept for c in m["marginal"]) > 1]
    joined = {str(c) for group in together for c in group}
    alone = [str(c) for c in columns if str(c) not in joined]
    if not alone:
        return []
    shown = first_names(alone)
    which = f"{len(alone):,} of the {len(columns):,} columns {'is' if len(alone) == 1 else 'are'}"
    where = {0: "in no pair: none was measured", 1: "not in the one pair measured"}.get(
        len(together), f"in none of the {len(together):,} pairs or groups measured"
    )
    return [
        f"{which} {where} ({shown}): each keeps its own distribution, but not its relationships with the other "
        "columns. A larger epsilon, fewer columns, or columns grouped on the Privacy page (--group on the command "
        "line) keep more."
    ]


def question_notes(details: dict) -> list[str]:
    """The card's sentence when a method measured a survey's questions answered over several columns with whether
    each record answered any of them (``details["question_blocks"]``, from the names alone): who skipped a whole
    question is kept. Empty otherwise. Reads no data."""
    found = details.get("question_blocks") or []
    if not found:
        return []
    which, verb = counted(len(found), "question"), "was" if len(found) == 1 else "were"
    return [
        f"{which} answered over several columns ({first_names(b['question'] for b in found)}) {verb} measured with "
        "whether each record answered any of its columns, so the share who skipped a whole question is kept, and "
        "a synthetic record that skipped it leaves all of its columns empty."
    ]


def bounding_note(unit, *, kept_rows: int | None, check=None) -> str | None:
    """The card's sentence on what keeping at most ``K`` rows per person did to the release (None without a
    person unit). ``kept_rows``: the release's noisy count of the rows kept (DP, part of this release; None
    with a public number of rows); ``check``: the rows-per-person check drawn before the release
    (:class:`~dpsynth_core.privacy.persons.RowsPerPerson`, DP, its spend recorded apart), when there was one.
    Every number is DP output: never the true count of rows dropped."""
    if unit is None:
        return None
    rows = "1 row" if unit.max_rows == 1 else f"{unit.max_rows:,} rows"
    words = (
        f"At most {rows} of each {unit.name} {'was' if unit.max_rows == 1 else 'were'} kept before anything was "
        "measured, so the release describes "
        f"that bounded table: {plural(unit.name)} with more rows weigh less than in the full table, and figures that "
        "depend on them shift (the bounded table's truth, not noise)."
    )
    if check is not None:  # what bounding drops, by the check alone; the release's own count beside it
        words += (
            f" By DP counts of rows per {unit.name} (a check with ε = {check.epsilon:g}, recorded apart), the table "
            f"held at least about {check.rows_before():,.0f} rows before bounding (give or take "
            f"{check.typical_error():,.0f}), and keeping at most {rows} per {unit.name} "
            f"{dropped_words(check, unit.max_rows, unit.name)}."
            + (f" The release's own DP count of the rows kept: about {kept_rows:,}." if kept_rows is not None else "")
        )
    elif kept_rows is not None:
        words += (
            f" The bounded table held about {kept_rows:,} rows (a DP count); how many the full table held was not "
            "measured (a rows-per-person check measures it, with its own budget: the Privacy page's, "
            "or dpsynth check-persons on the command line)."
        )
    return words


def _noisy_rows(model) -> int | None:
    """The release's rows when they are a noisy count of the (bounded) records, else None."""
    return int(model.rows_) if row_count_event(model.accountant_.events) is not None else None


def plain_number(value: float, digits: int = 3, *, up: bool = False) -> str:
    """A number in plain digits for readers (``34,312``, ``2.72``, ``0.0475``), never ``3.43e+04``; ``up``: a bound,
    rounded up at the digits shown (:func:`~dpsynth_core.wording.rounded_up`)."""
    if up and value > 0:  # to the digits shown: significant ones, or every whole digit of a large number
        value = rounded_up(value, max(digits, len(str(int(value)))))
    if value >= 10**digits:
        return f"{value:,.0f}"
    text = f"{value:.{digits}g}"
    return f"{value:.{digits + 4}f}".rstrip("0").rstrip(".") if "e" in text else text


def unit_words(unit) -> str:
    """The privacy unit in plain words: ``each patient, up to 2 rows``, or one row."""
    if unit is None:
        return (
            "each row: one record (no person column was declared, so a person with several rows is "
            "protected only row by row)"
        )
    return f"{unit.in_words()} (identified by the column {unit.column}, which is not released)"


def _unit_card(unit, epsilon_per_row: float) -> dict:
    if unit is None:
        return {"in_words": unit_words(None), "person_column": None, "max_rows_per_person": None}
    return {
        "in_words": unit_words(unit),
        "person_column": unit.column,
        "max_rows_per_person": unit.max_rows,
        "ignore_case": unit.ignore_case,
        "person": unit.name,
        "epsilon_per_row": epsilon_per_row,
        "how": f"at most {unit.max_rows:,} rows of each {unit.name} were kept, chosen at random, before any "
        f"statistic; the method spent epsilon / {unit.max_rows:,} per row, so by group privacy the "
        f"guarantee holds for each {unit.name} as a whole",
    }


def _unit_line(card: dict, g: dict) -> str:
    """The privacy unit in words on the HTML card (none without a guarantee: there is no unit to name)."""
    if g["epsilon"] is None:
        return ""
    return f"<p>Privacy unit: {html.escape(card.get('privacy_unit', {}).get('in_words', 'each row: one record'))}.</p>"


def plain_guarantee(epsilon: float, delta: float, neighbouring: str | None, unit=None) -> str:
    who = (
        protected_one(unit)
        if unit is not None or neighbouring is None or "add/remove" in neighbouring
        else "one person's record being replaced by another (the number of rows is public)"
    )
    shown = plain_number(epsilon, up=True)
    if delta >= 1:  # group privacy or many composed runs can leave nothing: say so, not "probability at most 1"
        return (
            f"This release promises nothing about {who}: its delta is 1, so the bound of epsilon = {shown} on how much "
            "they change any outcome may fail outright."
        )
    factor = (
        f"a factor of at most {factor_bound(epsilon)}"
        if epsilon < EMPTY_EPSILON
        else "a factor that may exceed 10^13, a bound so large that it protects no one in practice"
    )
    text = f"Whether or not {who} is in the data changes the chance of any outcome of this release by {factor}"
    text += f" (epsilon = {shown})"
    if delta > 0:
        text += f", except with probability at most {format_delta(delta)}"
    return text + f". The more the data holds, the less any one {'record' if unit is None else unit.name} can be seen."


def delta_words(delta: float) -> str:
    """What delta means, for a stakeholder."""
    if delta <= 0:
        return "delta = 0: the guarantee holds always (pure differential privacy)."
    return (
        f"delta = {format_delta(delta)} is the chance, allowed by the method, that the guarantee above does not "
        "hold. It is fixed in advance far below one in the number of records squared, so it stands for "
        "an event too unlikely to expect in practice, not for a share of the people in the data."
    )


def _bins_text(edges: list) -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in edges)


def _guarantee_line(g: dict) -> str:
    if g["epsilon"] is None:
        return "<b>No formal differential-privacy guarantee.</b>"
    line = (
        f"Differential privacy: epsilon = {plain_number(g['epsilon'], up=True)}, delta = {format_delta(g['delta'])} "
        f"({html.escape(g['composition'])} composition); privacy unit: {html.escape(g['neighbouring'] or 'n/a')}."
    )
    if "rho" in g:
        line += f" Zero-concentrated DP: rho = {g['rho']:.4g}. {html.escape(g['delta_in_plain_words'])}"
    return line


#: A budget split longer than this is summed by kind in the card's body (every row in an appendix).
SPLIT_ROWS_IN_BODY = 12


def split_by_kind(split: dict, names) -> dict[str, list[tuple[str, float]]]:
    """A budget split's parts by kind (the card's summary and the Privacy page's chart): a label with the column
    ``names`` and round number taken out (``marginal age x sex`` -> ``marginal … × … (12)``); one alone keeps its own.
    >>> split_by_kind({"row count": 0.01, "bins age": 0.1, "bins fare": 0.1}, ["age", "fare"])
    {'row count': [('row count', 0.01)], 'bins … (2)': [('bins age', 0.1), ('bins fare', 0.1)]}
    """
    names = sorted(map(str, names), key=len, reverse=True)
    pattern = re.compile("|".join(re.escape(n) for n in names)) if names else None
    groups: dict = {}
    for label, eps in split.items():
        kind = re.sub(r", round \d+$", ", every round", label)
        kind = pattern.sub("…", kind) if pattern else kind
        groups.setdefault(kind.replace(" x ", " × "), []).append((label, eps))
    return {rows[0][0] if len(rows) == 1 else f"{kind} ({len(rows)})": rows for kind, rows in groups.items()}


def split_summary(card: dict) -> dict:
    """The budget split summed by kind of measurement (:func:`split_by_kind`)."""
    kinds = split_by_kind(card["budget_split"], (c["column"] for c in card["domain"]["columns"])).items()
    return {label: sum(eps for _, eps in rows) for label, rows in kinds}


def render_card_html(card: dict) -> str:
    """A self-contained HTML page of the card for stakeholders."""
    e = html.escape
    g = card["guarantee"]
    rows = "".join(
        f"<tr><td>{e(c['column'])}</td><td>{e(c['kind'])}</td><td>{e(c['description'])}</td>"
        f"<td>{'yes' if c['missing_allowed'] else 'no'}</td></tr>"
        for c in card["domain"]["columns"]
    )
    split = "".join(
        f"<tr><td>{e(label)}</td><td>{plain_number(eps, 4)}</td></tr>" for label, eps in card["budget_split"].items()
    )
    summary, appendices = split, ""
    if len(card["budget_split"]) > SPLIT_ROWS_IN_BODY:  # the rounds summed in the body, every row in an appendix
        summary = "".join(
            f"<tr><td>{e(label)}</td><td>{plain_number(eps, 4)}</td></tr>" for label, eps in split_summary(card).items()
        )
        appendices += (
            "<h2>Appendix A. Every measurement</h2><table><tr><th>what was measured</th><th>epsilon</th>"
            f"</tr>{split}</table>"
        )
    randomness = e(card["noise_source"])
    if not card["noise_source"].startswith("seeded"):
        randomness = "from the operating system's secure generator and a cryptographic stream cipher (Appendix B)"
        appendices += f"<h2>Appendix B. Randomness</h2><p>{e(card['noise_source'])}.</p>"

    def bins_epsilon(b) -> float:  # its share of the total, as the budget split above states it (zCDP: by rho)
        return card["budget_split"].get(b.get("label"), b["epsilon"])

    bins = "".join(
        f"<tr><td>{e(b['column'])}</td><td>{e(_bins_text(b['edges']))}</td>"
        f"<td>{plain_number(bins_epsilon(b), 4)}</td></tr>"
        for b in card.get("adaptive_bins", [])
    )
    bins_section = (
        (
            "<h2>Bins fitted with differential privacy</h2><p>These columns were declared with a range "
            "and no bins; their bins were chosen from the data with the budget shown (part of the total "
            "above), so they are covered by the guarantee.</p><table><tr><th>column</th><th>bins "
            f"(first value of each)</th><th>epsilon</th></tr>{bins}</table>"
        )
        if bins
        else ""
    )
    inside = ", ".join(
        f"{e(b['column'])} (epsilon {plain_number(bins_epsilon(b), 4)})" for b in card.get("spread_inside_bins", [])
    )
    if inside:
        bins_section += (
            "<h2>Values inside declared bins</h2><p>These columns keep their declared bins; how values "
            f"spread inside each bin was measured with differential privacy: {inside}.</p>"
        )
    details = card.get("method_details", {})
    note = details.get("per_record_note")
    per_record = f"<p class='guarantee'>{e(note)}</p>" if note else ""
    notes = "".join(f"<p class='note'>{e(x)}</p>" for x in card.get("notes", []))
    covered = "".join(f"<li>{e(x)}</li>" for x in card["covered"])
    not_covered = "".join(f"<li>{e(x)}</li>" for x in card["not_covered"])
    tolerance = (
        ""
        if card["parameters"].get("rho") is None
        else f"Tolerance for randomness: {card['parameters']['rho']} (the chance that a column holds no "
        "made-up value). "
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(card["title"])}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #1b1b1b; line-height: 1.5; }}
h1 {{ font-size: 1.8rem; }} h2 {{ margin-top: 2rem; border-bottom: 1px solid #ccc; }}
h1, h2, h3 {{ break-after: avoid; page-break-after: avoid; }}
table {{ border-collapse: collapse; width: 100%; }} td, th {{ border: 1px solid #ddd; padding: .4rem .6rem;
       text-align: left; vertical-align: top; }}
.guarantee {{ background: #eef6ee; border-left: 6px solid #2e7d32; padding: 1rem; font-size: 1.1rem; }}
.guarantee.none {{ background: #fdecea; border-left-color: #c62828; }}
.note {{ background: #fff8e1; border-left: 6px solid #f9a825; padding: .6rem 1rem; }}
</style></head><body>
<h1>{e(card["title"])}</h1>
<p>Made with {e(card["software"]["name"])} {e(card["software"]["version"])} on {e(card["created"])}.</p>
<h2>The guarantee</h2>
<p class="guarantee{"" if protects(g) else " none"}">{e(g["plain_words"])}</p>
{per_record}
<p>{_guarantee_line(g)}</p>
{_unit_line(card, g)}
<h2>What was done</h2>
<p><b>{e(card["method"]["title"])}.</b> {e(card["method"]["summary"])}</p>
<p>{tolerance}Synthetic rows: {card["rows"]["synthetic"]:,} ({e(card["rows"]["policy"])}).</p>
{notes}
<p>Randomness: {randomness}. The random seed is never published.</p>
<h2>How the budget was split</h2>
<p>{e(card.get("budget_unit", "epsilon")).capitalize()}.{
        " Repeated measurements are summed here; Appendix A lists each one." if summary is not split else ""
    }</p>
<table><tr><th>what was measured</th><th>epsilon</th></tr>{summary}</table>
<h2>Declared domain (public knowledge, not read from the data)</h2>
<table><tr><th>column</th><th>kind</th><th>domain</th><th>missing values possible</th></tr>{rows}</table>
{bins_section}
<h2>What the guarantee covers</h2><ul>{covered}</ul>
<h2>What it does not cover</h2><ul>{not_covered}</ul>
{appendices}
</body></html>
"""
