"""What privacy choices imply, before any data is touched.

Everything here depends only on the declaration, epsilon, rho, the method and its options,
never on data, so the app can show it live as sliders move. Each answer comes from the
method itself (its plan, its charge, its note): nothing here tests a method's name.
"""

from __future__ import annotations

import math

from ... import constraints
from ...domain import RANGE_KINDS, as_table_domain, size_in_words
from ...privacy.binning import binning_label
from ...privacy.cathist import cathist_tau, expected_made_up, some_made_up_chance, threshold
from ...privacy.noise import typical_bin_error
from ...privacy.prefixes import level_budget
from ...privacy.spending import Spend
from ...wording import counted, epsilon_guidance, format_delta, format_epsilon, protected_one
from ..base import ROW_NOTE_NOISES
from ..charges import CATHIST, GAUSSIAN, PRIOR, VOCABULARY, row_count_event
from ..finite import VOCABULARY_SHARE_MAX, VOCABULARY_SHARE_PER_LEVEL
from ..registry import DEFAULT_METHOD, get_method
from .derived_rows import in_declared_order


def budget_split(
    domain,
    epsilon: float,
    *,
    method: str = DEFAULT_METHOD,
    rows: int | None = None,
    expected_rows: int | None = None,
    **options,
) -> dict[str, float]:
    """How the method splits epsilon, before any data is read (labels as in the release card):
    the method's own plan (:meth:`~dpsynth_core.synthesizers.pricing.PricedMethod.budget_plan`).

    ``rows``: a public number of rows (None: the method's rule); ``expected_rows``: about how many
    records the table holds (display only); ``options``: the method's.
    """
    info = get_method(method)
    return info.cls.budget_plan(
        as_table_domain(domain), epsilon, rows=rows, expected_rows=expected_rows, **info.check_options(options)
    )


def column_plan(
    domain,
    epsilon: float,
    rho: float,
    *,
    method: str = DEFAULT_METHOD,
    rows: int | None = None,
    expected_rows: int | None = None,
    **options,
) -> list[dict]:
    """Per kept column: the epsilon of its own measurement and what it implies (threshold, made-up
    values, noise per bin, prior per cell), as the method measures it.

    ``rows``: a public number of rows (None: the method's rule); ``expected_rows``: about how many
    rows the release will have (the publisher's figure, for the prior of a Dirichlet cell). With a person
    unit of at most ``K`` rows, the mechanisms run at epsilon / K per row (group privacy): the noise, the
    thresholds and the made-up values are those of that per-row share, and ``epsilon`` is stated per person.
    """
    info = get_method(method)
    options = info.check_options(options)
    declared = as_table_domain(domain)
    domain = declared.measured()
    group = domain.rows_per_person
    split = info.cls.budget_plan(domain, epsilon, rows=rows, expected_rows=expected_rows, **options)
    noise = info.cls.column_noise(domain, epsilon / group, rows=rows, expected_rows=expected_rows, **options)
    plan = []
    for name, col in domain.kept.items():
        share = noise[name]["epsilon"]  # per row: what the column's mechanism runs at
        row = {"column": name, "kind": col.kind, "epsilon": share * group}
        if noise[name].get("estimated"):  # the split depends on a vocabulary released with the data
            row["estimated"] = True
        if not col.complete:
            row.update(note="declare this column's domain first")
            plan.append(row)
            continue
        mechanism = info.cls.column_mechanism(col, **options)
        row["rows"] = expected_rows
        cells = col.bins + (1 if col.missing else 0) if col.binned else None
        unit = "bins" if col.kind != "categorical" else "values"
        row["unit"] = "cells" if mechanism == PRIOR else "bins" if col.kind in RANGE_KINDS else "values"
        if mechanism == PRIOR:
            row.update(
                mechanism="Dirichlet prior on every cell" if cells else "not possible: free text",
                domain_size=cells or col.size,
                domain_size_words=f"{cells} cells" if cells else "",
                prior_per_cell=(expected_rows / math.expm1(share)) if expected_rows and cells else None,
            )
        elif mechanism in (CATHIST, VOCABULARY):
            row.update(_threshold_plan(col, share, rho, mechanism, expected_rows))
            row.update({k: v for k, v in noise[name].items() if k in ("budget_share", "text_share", "others_noise")})
        elif mechanism == GAUSSIAN:
            row.update(
                mechanism="1-way marginal with Gaussian noise (zCDP), then pairs chosen in rounds",
                domain_size=cells,
                domain_size_words=f"{cells} {unit}",
                typical_error_per_bin=math.sqrt(2 / math.pi) * noise[name]["sigma"],
            )
        else:
            row.update(
                mechanism="noisy histogram over declared cells",
                domain_size=cells,
                domain_size_words=f"{cells} {unit}",
                typical_error_per_bin=typical_bin_error(share),
            )
        if getattr(col, "adaptive", False):  # the bins are fitted first, with their own share
            bins = col.most_bins(info.cls.short_ranges) + len(col.special)
            row.update(
                mechanism="bins fitted to the data with DP, then " + row["mechanism"],
                domain_size=bins + (1 if col.missing else 0),
                domain_size_at_most=True,  # the bins are fitted when released: a bound, not a count
                domain_size_words=f"up to {bins} bins, fitted with ε = {split[f'bins {name}']:.3g}",
                bins_epsilon=split[f"bins {name}"],
            )
        elif binning_label(col) in split:  # declared bins wider than one value: how values spread inside
            row.update(
                mechanism=row["mechanism"] + "; values inside the bins placed by a DP histogram (its own "
                "share of the budget)",
                bins_epsilon=split[binning_label(col)],
            )
        plan.append(row)
    return in_declared_order(plan, declared)


def _threshold_plan(col, share: float, rho: float, mechanism: str, rows: int | None) -> dict:
    """A thresholded column's figures (:func:`column_plan`): its threshold, what survives and what is made
    up, from its share of epsilon, rho, the declared sizes and ``rows`` alone (never the data's values).
    A text column with declared prefixes (under a vocabulary or CatHist) splits its share between its levels."""
    prefixes = getattr(col, "levels", ()) if mechanism in (VOCABULARY, CATHIST) else ()
    each, rho_each, _ = level_budget(col, share, rho) if prefixes else (share, rho, 1)
    size = col.size + (1 if col.missing and mechanism == CATHIST else 0)  # a vocabulary leaves "missing" out
    rule = threshold(size, rho_each, each)
    out = dict(
        mechanism="CatHist" + (" (chooses the values the method can use)" if mechanism == VOCABULARY else ""),
        domain_size=size,
        domain_size_words=size_in_words(size),
        tau=cathist_tau(size, rho_each, each),
        expected_made_up=expected_made_up(size, rho_each),
        kept_half_the_time=rule.smallest_count_kept(0.5),
        kept_almost_always=rule.smallest_count_kept(0.95),
        made_up_count=rule.made_up_count(),
        handed_out=mechanism == VOCABULARY,
        level_epsilon=each,
    )
    if rows:
        out["most_values"] = min(rule.most_values(rows), size)
    if rows and col.kind == "text":  # the case of no real value kept: a made-up value or the placeholder fills it
        out["none_kept_below"] = rule.largest_count_none_kept(rows)
        out["made_up_alone"] = some_made_up_chance(size, rho_each, rows)
        out["placeholder"] = col.label_at(0)
    if prefixes:
        out["mechanism"] += f"; codes fall back to their first {' or '.join(map(str, prefixes))} characters"
        out["levels"] = []
        for length in prefixes:
            level = col.prefix_domain(length)
            kept = threshold(level.size, rho_each, each)
            out["levels"].append(
                {
                    "length": length,
                    "domain_size": level.size,
                    "epsilon": each,
                    "kept_half_the_time": kept.smallest_count_kept(0.5),
                    "expected_made_up": expected_made_up(level.size, rho_each),
                }
            )
    return out


def made_up_share(row: dict, covered: float) -> float | None:
    """Expected share of a text column's rows that carry made-up values, when the values that survive
    hold ``covered`` of the rows (a what-if: the data decides it). A made-up value weighs as much as
    ``made_up_count`` records. Drawn in proportion to the released counts (``cathist``), made-up values
    take ``M / (M + K)`` of the rows; handed out only for the rows whose value did not survive (a
    vocabulary), ``(1 - covered) * M / (M + K)``, where ``M`` is the made-up weight and ``K`` the rows
    of the values that survive. None without a row count."""
    rows = row.get("rows")
    if not rows or "made_up_count" not in row:
        return None
    weight, kept = row["expected_made_up"] * row["made_up_count"], covered * rows
    share = weight / (weight + kept) if weight + kept > 0 else 0.0
    return (1 - covered) * share if row.get("handed_out") else share


def text_outlook(row: dict) -> list[str]:
    """What a thresholded column will become, in plain words, before the draw (the Domain page, the plan):
    how many values can survive, how many are made up, where the rest of the rows go, the better choices."""
    if "kept_half_the_time" not in row:
        return []
    half, sure, levels = row["kept_half_the_time"], row["kept_almost_always"], row.get("levels", [])
    split = (
        f", split equally between the full codes and {counted(len(levels), 'prefix length')}: "
        f"{row['level_epsilon']:.3g} each"
        if levels
        else ""
    )
    words = [
        f"At ε = {row['epsilon']:.3g} for this column{split}, a value needs about {half:,} records to come "
        f"out half the time and {sure:,} to come out almost always."
    ]
    if row.get("most_values") is not None:
        words.append(
            f"Of about {row['rows']:,} records, at most about {row['most_values']:,.0f} different values "
            "can come out on average, however the records are spread."
        )
    made_up = row["expected_made_up"]
    low, high = made_up_share(row, 0.9), made_up_share(row, 0.5)
    share = (
        f": about {100 * low:.1f}% of the rows if the values that come out hold 90% of the records, "
        f"{100 * high:.1f}% if they hold half"
        if low is not None
        else ""
    )
    if levels:
        words.append(
            f"At most {made_up:.2f} made-up full codes come out (each as frequent as about "
            f"{row['made_up_count']:,.0f} records){share}, and in fact far fewer: a code is kept only when its "
            "prefixes come out at every declared length, which a made-up code's do only when they are real."
        )
    else:
        words.append(
            f"Expect {made_up:.2f} made-up values (each as frequent as about {row['made_up_count']:,.0f} records)"
            f"{share}."
        )
    words += _nothing_real(row)
    for level in levels:
        words.append(
            f"A code that does not come out falls back to its first {level['length']} characters and a star "
            f"when those come out (about {level['kept_half_the_time']:,} records needed)."
        )
    if levels:
        shortest = min(levels, key=lambda level: level["length"])
        words.append(
            f"Expect {shortest['expected_made_up']:.2f} made-up prefixes of {shortest['length']} character"
            f"{'' if shortest['length'] == 1 else 's'} (the "
            "shortest length has no shorter one to be checked against; longer ones are checked as the codes are)."
        )
    if levels and row.get("handed_out"):
        words.append(
            "The records of codes with no prefix that comes out are given to the shortest prefixes that do, "
            "in proportion to their counts."
        )
    elif levels:
        words.append(
            "The records of codes with no prefix that comes out are left out, so the codes that come out "
            "look a little more common than they are."
        )
    elif row.get("handed_out"):
        words.append(
            "The records whose value does not come out are given to the values that do, in proportion to "
            "their counts, so those values look more common than they are."
        )
    if "budget_share" in row:
        rule = f"{100 * VOCABULARY_SHARE_PER_LEVEL:.0f}% for each text column and prefix length"
        words.append(
            f"This column's values are chosen with {100 * row['budget_share']:.0f}% of the budget (all free-text "
            f"columns together: {100 * row['text_share']:.0f}%; {rule}, at most {100 * VOCABULARY_SHARE_MAX:.0f}%). "
            "More would let rarer values come out, but the rest of the release is measured with what is left: "
            f"already {100 * (row['others_noise'] - 1):.0f}% more noise on every other figure than without free text."
        )
    words.append(
        "Better choices: a public list of the possible values (the 'Categories' kind: every value is "
        "measured, none is made up), or grouping the values into a few categories you name"
        + (
            "."
            if levels
            else "; for codes whose first characters mean something (diagnosis, ZIP or "
            "occupation codes), their meaningful prefix lengths."
        )
    )
    return words


def _nothing_real(row: dict) -> list[str]:
    """The case the expected shares above hide: no real value comes out, and then one made-up value (or the
    placeholder) fills every cell of the column that is not missing. Said with its chance, from the
    threshold, rho and the row count alone (:meth:`~dpsynth_core.privacy.cathist.Threshold.none_kept_chance`)."""
    quiet, rows = row.get("none_kept_below"), row.get("rows")
    if not quiet or not rows or row.get("levels"):
        return []
    alone, placeholder = row["made_up_alone"], row["placeholder"]
    fill = (
        "one made-up value (almost always just one) fills them all"
        if row.get("handed_out")
        else "made-up values fill them"
    )
    when = (
        "Whatever your records hold, no real value can come out at this ε (at least 99% sure)"
        if quiet >= rows
        else f"If no value is held by more than {quiet:,} records ({100 * quiet / rows:.0f}% of the rows), no "
        "real value comes out (at least 99% sure)"
    )
    return [
        f"{when}. Then the cells of this column that are not missing hold no real value: with chance "
        f"{100 * alone:.0f}% (1 − ρ) {fill}, a value that is in no record; otherwise they all show the "
        f"placeholder '{placeholder}'. Either way the column then says nothing about "
        "your data; the release card and the Preview say so after the draw."
    ]


def price(domain, epsilon: float, *, method: str = DEFAULT_METHOD, rows: int | None = None, **options) -> Spend:
    """The exact charge of a draw (:meth:`~dpsynth_core.synthesizers.pricing.PricedMethod.charge`), its
    options checked by the method's specs: what the ledger will record, before any data is read."""
    info = get_method(method)
    return info.cls.charge(as_table_domain(domain), epsilon, rows=rows, **info.check_options(options))


def row_count_note(
    domain, epsilon: float, *, method: str = DEFAULT_METHOD, rows=None, expected_rows=None, charge=None, **options
) -> str | None:
    """A warning for the Privacy page, before the draw, when the number of synthetic rows will be a noisy
    count whose noise is large beside the table (``expected_rows``: the file's row count, the publisher's own
    figure): fewer than ``ROW_NOTE_NOISES`` times the noise's scale. None with a public number of rows, no
    table, a person unit (its count's noise is per person), or a method whose rows are not a noisy count.
    ``charge``: these settings' :func:`price`, when the caller has it already."""
    domain = as_table_domain(domain)
    if rows is not None or not expected_rows or domain.person is not None:
        return None
    count = row_count_event((charge or price(domain, epsilon, method=method, **options)).events)
    if count is None or expected_rows >= ROW_NOTE_NOISES / count.epsilon:
        return None
    return (
        f"The number of synthetic rows will be the real count plus noise of typically about ±{1 / count.epsilon:,.0f} "
        f"rows (ε = {count.epsilon:.3g} for the count): beside your {expected_rows:,} records it can be far off, "
        "even a single row. A fixed number of rows that you choose (above) costs no budget."
    )


def uses_tolerance(domain, method: str = DEFAULT_METHOD) -> bool:
    """Whether the tolerance for randomness (rho) changes anything for this method and declaration."""
    return get_method(method).cls.uses_tolerance(as_table_domain(domain))


def privacy_note(domain, epsilon: float, *, method=DEFAULT_METHOD, rows: int | None = None, charge=None, **options):
    """The method's note for the Privacy page, or None; a person's delta as the card states it (``charge``: price's)."""
    info, domain = get_method(method), as_table_domain(domain)
    note, unit = info.cls.privacy_note(domain, epsilon, rows=rows, **info.check_options(options)), domain.person
    several = note and unit is not None and unit.max_rows > 1
    total = (charge or price(domain, epsilon, method=method, rows=rows, **options)).total() if several else None
    if total is None or not total.delta:
        return note
    person = (
        f"**Per {unit.name}** (up to {unit.max_rows:,} rows each): δ = {format_delta(total.delta)}, the chance that ε ="
        f" {format_epsilon(total.epsilon)} does not hold for one {unit.name}, their rows together: a row's guarantee"
        " stated for all of a person's rows (group privacy) multiplies δ. This is the δ the release card states."
    )
    return note[0], f"{note[1]}\n\n{person}"


def epsilon_advice(whole_file: float, asked: float, unit=None) -> tuple[bool, str]:
    """Whether to warn, and what to say under the ε slider: the level of protection of the whole
    file's ε (what the ledger records for a draw), and that ε when the method makes it differ from
    the one ``asked`` for; ``unit`` the declaration's person unit (None: each row), whom the sentence names
    (:func:`~dpsynth_core.wording.protected_one`)."""
    if whole_file > constraints.EPSILON_MAX:
        level, sentence = (
            "very weak",
            f"At this ε the promise bounds almost nothing: adding or removing {protected_one(unit)} can change the "
            "chance of a result by an astronomically large factor. Release few records, or choose another method.",
        )
    else:
        level, sentence = epsilon_guidance(whole_file, unit)
    prefix = (
        ""
        if format_epsilon(whole_file) == format_epsilon(asked)
        else f"With this method the whole file's ε is **{format_epsilon(whole_file)}** (see below). "
    )
    return whole_file > constraints.EPSILON_WARN_ABOVE, f"{prefix}**{level.capitalize()}.** {sentence}"


#: What each column of :func:`plan_table` means, in plain words (the Privacy page's column help).
PLAN_HELP = {
    "protected by": "The mechanism that measures this column with noise.",
    "ε": "The share of the privacy budget this column's own measurement gets.",
    "possible values": "How many values the declaration allows (bins for numbers and dates; at most so many where "
    "the bins are fitted to the data when released).",
    "τ": "Threshold: the noisy count a value needs to appear in the release.",
    "made-up values": "Expected number of values in the release that are not in the data (the price of "
    "keeping rare real values deniable).",
    "kept half the time": "A value held by this many people appears in the release half the time.",
    "kept 95% of the time": "A value held by this many people appears in the release 95% of the time.",
    "values that can come out": "At most this many different real values come out on average, however the "
    "records are spread (from the threshold and the row count alone).",
    "noise per bin": "Typical error, in people, of each bin's (or declared value's) count. A declared value, or a "
    "bin beyond the data's edge, whose count cannot be told from this noise gets no rows: a value no one holds "
    "comes out in none but by chance, however long the list you declared, and a real one held by only a few "
    "times this many people may be left out too.",
    "prior per cell": "Made-up records added to every cell by the Dirichlet prior.",
}


#: Why some figures of :func:`plan_table` read "about" (:func:`~dpsynth_core.synthesizers.marginals.budget.
#: column_noise`'s ``estimated``), in plain words for the Privacy page.
ESTIMATE_NOTE = (
    "Figures marked 'about' are estimates: the columns' shares depend on how many values of the free-text columns come "
    "out and how many bins are fitted to numeric and date columns declared without bins (counted here as "
    f"{constraints.most_fitted_bins(True)} for whole numbers and dates and {constraints.most_fitted_bins(False)} "
    "for real numbers; a column may end with fewer, a whole-number one with up to "
    f"{constraints.most_fitted_bins(True, short=True)}), known only after the draw. The total ε spent is exact; "
    "the release card records each column's actual share."
)


def _about(row: dict, text: str) -> str:
    return f"about {text}" if row.get("estimated") else text


def _possible_values(row: dict) -> str:
    size = row.get("domain_size")
    if not size:
        return ""
    words = f"{size:,} {row['unit']}" if size < 10_000 else f"{size_in_words(size)} {row['unit']}"
    return f"up to {words}" if row.get("domain_size_at_most") else words


def plan_table(plan: list[dict]):
    """:func:`column_plan` as a table of text cells, one row per column, with only the figures that apply
    (blank, not "None", where a figure does not apply to a column); :data:`PLAN_HELP` explains each column."""
    import pandas as pd

    table = pd.DataFrame(
        [
            {
                "column": r["column"],
                "protected by": r.get("mechanism", r.get("note", "")),
                "ε": _about(r, f"{round(r['epsilon'], 4):,.4g}"),
                "possible values": _possible_values(r),
                "τ": round(r["tau"], 1) if "tau" in r else None,
                "made-up values": round(r["expected_made_up"], 2) if "expected_made_up" in r else None,
                "kept half the time": r.get("kept_half_the_time"),
                "kept 95% of the time": r.get("kept_almost_always"),
                "values that can come out": round(r["most_values"]) if r.get("most_values") is not None else None,
                "noise per bin": _about(r, f"{round(r['typical_error_per_bin'], 1):,.4g}")
                if "typical_error_per_bin" in r
                else None,
                "prior per cell": round(r["prior_per_cell"]) if r.get("prior_per_cell") else None,
            }
            for r in plan
        ]
    ).dropna(axis=1, how="all")
    return table.map(
        lambda v: ""
        if pd.isna(v)
        else (f"{v:,.4g}" if isinstance(v, float) else f"{v:,}" if isinstance(v, int) else str(v))
    )
