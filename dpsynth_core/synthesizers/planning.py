"""What privacy choices imply, before any data is touched.

Everything here depends only on the declaration, epsilon, rho and the method, never on
data, so the app can show it live as sliders move.
"""

from __future__ import annotations

import math

from .. import constraints
from ..privacy.binning import binning_budget, binning_events, binning_label
from ..privacy.cathist import cathist_tau, expected_made_up, threshold
from ..domain import TableDomain, as_table_domain, size_in_words
from ..privacy.noise import typical_bin_error


def budget_split(domain, epsilon: float, *, rows_public: bool = False, method: str = "cathist",
                 rows: int | None = None, delta: float | None = None) -> dict[str, float]:
    """How a method splits epsilon, before any data is read (labels as in the release card).

    ``marginals``: see :func:`marginals_split`. ``copula``: every measurement gets
    the same epsilon, combined by the better of basic and advanced composition.
    ``dirichlet``: the row count is public (substitution), so nothing is spent on it.
    Numeric and date columns declared without bins first get bins fitted with DP
    (``bins NAME``, :mod:`dpsynth_core.privacy.binning`), whatever the method.
    """
    domain: TableDomain = as_table_domain(domain)
    columns = list(domain.kept)
    m = max(len(columns), 1)
    split = {}
    remaining = epsilon
    if not rows_public and method != "dirichlet":
        split["row count"] = epsilon * constraints.ROW_COUNT_SHARE
        remaining -= split["row count"]
    for name, cost in binning_budget(domain, epsilon).items():
        split[binning_label(domain.columns[name])] = cost
        remaining -= cost
    if method == "marginals":
        return marginals_split(domain, epsilon, rows_public=rows_public, rows=rows, delta=delta)
    elif method == "copula":
        from .copula import per_measurement_epsilon

        texts = sum(1 for c in domain.kept.values() if c.kind == "text")
        count = m + m * (m - 1) // 2 + texts
        each = per_measurement_epsilon(epsilon, list(split.values()), count, constraints.ADVANCED_COMPOSITION_DELTA)
        for name in columns:
            split[f"1-way margin {name}"] = each
        split[f"each of {m * (m - 1) // 2} pair tables"] = each
    elif method in ("bayesnet", "deniability"):
        from .network import SHARES as NET

        split["record count (entropy bound)"] = epsilon * NET["count"]
        rest = remaining - split["record count (entropy bound)"]
        share = NET["entropy"] + NET["parameters"]
        split["entropies (choosing the network)"] = rest * NET["entropy"] / share
        for name in columns:
            split[f"table {name}"] = rest * NET["parameters"] / share / m
    elif method == "microagg":
        split["noise on cluster means and covariances (no guarantee)"] = remaining
    else:
        for name in columns:
            split[f"column {name}"] = remaining / m
    return split


def engine_delta(rows: int | None, delta: float | None = None) -> float:
    """The delta a ``marginals`` release will state: the publisher's, or the default rule applied to
    ``rows`` (on the Privacy page, the publisher's own row count; the release applies the rule to a
    DP bound on it, which can only give the same or a smaller delta)."""
    from ..privacy.accounting import default_delta

    if delta is not None:
        return float(delta)
    return default_delta(rows or 1, constraints.DELTA_MAX)


def marginals_split(domain, epsilon: float, *, rows_public: bool = False, rows: int | None = None,
                    delta: float | None = None) -> dict[str, float]:
    """The engine's plan before any data is read: each part's share of the budget, in epsilon.

    Under zCDP (delta > 0) the parts add up in rho, so each is shown as its share of rho times
    epsilon (the bars add up to epsilon). The 1-way marginals get
    :func:`~dpsynth_core.synthesizers.marginals.one_way_share` of what is left after the
    vocabularies: AIM's share, or more for a small table (by ``rows``, the publisher's count here;
    the release applies the same rule to a DP count of the records). The rounds after them are
    adaptive: their number is not known in advance, only that a tenth of each round's budget
    chooses a marginal and the rest measures it.
    """
    from ..privacy.accounting import zcdp_budget
    from .marginals import SELECT_SHARE, VOCABULARY_SHARE, one_way_share

    domain = as_table_domain(domain)
    columns = list(domain.kept)
    m = max(len(columns), 1)
    delta_given = delta is not None
    delta = engine_delta(rows, delta)
    total = zcdp_budget(epsilon, delta) if delta > 0 else epsilon
    cost = (lambda eps: eps**2 / 2) if delta > 0 else (lambda eps: eps)
    parts: dict = {}
    if not rows_public or not delta_given:  # with public rows, a count still sets the default delta
        parts["row count"] = cost(epsilon * constraints.ENGINE_ROW_COUNT_SHARE)
    for name, column_epsilon in binning_budget(domain, epsilon).items():
        parts[binning_label(domain.columns[name])] = sum(cost(e) for e in binning_events(domain.columns[name],
                                                                                       column_epsilon))
    left = total - sum(parts.values())
    texts = sum(1 for c in domain.kept.values() if c.kind == "text")
    if texts:
        parts["vocabularies of text columns (CatHist)"] = left * VOCABULARY_SHARE
        left -= parts["vocabularies of text columns (CatHist)"]
    if m == 1:  # nothing to choose: the one column takes it all
        parts["1-way marginals (every column)"] = left
        return {label: value / total * epsilon for label, value in parts.items()}
    counted = not (rows_public and delta_given)  # else no DP count is made, and the share is AIM's
    parts["1-way marginals (every column)"] = left * one_way_share(m, rows if counted else None)
    left -= parts["1-way marginals (every column)"]
    parts["choosing marginals (exponential mechanism, each round)"] = left * SELECT_SHARE
    parts["measuring the chosen marginals (noise on every cell)"] = left * (1 - SELECT_SHARE)
    return {label: value / total * epsilon for label, value in parts.items()}


def marginals_noise(domain, epsilon: float, *, rows_public: bool = False, rows: int | None = None,
                    delta: float | None = None) -> dict:
    """Per column, the noise of its 1-way marginal in the engine's plan: ``{"sigma": ...}`` under
    zCDP, ``{"epsilon": ...}`` in pure DP, and the epsilon of a text column's vocabulary."""
    import math

    from ..privacy.accounting import zcdp_budget
    from .marginals import VOCABULARY_SHARE

    domain = as_table_domain(domain)
    split = marginals_split(domain, epsilon, rows_public=rows_public, rows=rows, delta=delta)
    delta = engine_delta(rows, delta)
    m = max(len(domain.kept), 1)
    texts = sum(1 for c in domain.kept.values() if c.kind == "text")
    one_way = split["1-way marginals (every column)"] / epsilon / m
    vocab = split.get("vocabularies of text columns (CatHist)", 0.0) / epsilon / max(texts, 1)
    if delta > 0:
        rho = zcdp_budget(epsilon, delta)
        return {"sigma": math.sqrt(1 / (2 * one_way * rho)), "text_epsilon": math.sqrt(2 * vocab * rho),
                "delta": delta, "share": one_way * epsilon}
    return {"epsilon": one_way * epsilon, "text_epsilon": vocab * epsilon, "delta": 0.0, "share": one_way * epsilon}


def column_plan(domain, epsilon: float, rho: float, *, rows_public: bool = False, method: str = "cathist",
                rows: int | None = None) -> list[dict]:
    """Per kept column: the epsilon of its own histogram and what it implies (threshold, made-up values...)."""
    domain = as_table_domain(domain)
    split = budget_split(domain, epsilon, rows_public=rows_public, method=method)
    plan = []
    engine = marginals_noise(domain, epsilon, rows_public=rows_public, rows=rows) if method == "marginals" else None
    for name, col in domain.kept.items():
        if engine is not None:
            split[f"1-way marginal {name}"] = engine["text_epsilon"] if col.kind == "text" else engine["share"]
        share = (split.get(f"column {name}") or split.get(f"1-way marginal {name}") or split.get(f"1-way margin {name}")
                 or split.get(f"table {name}") or epsilon / max(len(domain.kept), 1))
        row = {"column": name, "kind": col.kind, "epsilon": share}
        if not col.complete:
            row.update(note="declare this column's domain first")
            plan.append(row)
            continue
        if method == "dirichlet":
            cells = (col.bins + (1 if col.missing else 0)) if col.binned else None
            row.update(mechanism="Dirichlet prior on every cell" if cells else "not possible: free text",
                       domain_size=cells or col.size, domain_size_words=f"{cells} cells" if cells else "",
                       prior_per_cell=(rows / math.expm1(share)) if rows and cells else None)
        elif col.kind == "text" or (col.kind == "categorical" and method == "cathist"):
            size = col.size + (1 if col.missing else 0)
            rule = threshold(size, rho, share)
            row.update(
                mechanism="CatHist" + (" (chooses the values the method can use)" if method != "cathist" else ""),
                domain_size=size,
                domain_size_words=size_in_words(size),
                tau=cathist_tau(size, rho, share),
                expected_made_up=expected_made_up(size, rho),
                kept_half_the_time=rule.smallest_count_kept(0.5),
                kept_almost_always=rule.smallest_count_kept(0.95),
            )
        elif engine is not None and "sigma" in engine:
            cells = col.bins + (1 if col.missing else 0)
            row.update(mechanism="1-way marginal with Gaussian noise (zCDP), then pairs chosen in rounds",
                       domain_size=cells, domain_size_words=f"{cells} {'bins' if col.kind != 'categorical' else 'values'}",
                       typical_error_per_bin=math.sqrt(2 / math.pi) * engine["sigma"])
        else:
            cells = col.bins + (1 if col.missing else 0)
            row.update(mechanism="noisy histogram over declared cells", domain_size=cells,
                       domain_size_words=f"{cells} {'bins' if col.kind != 'categorical' else 'values'}",
                       typical_error_per_bin=typical_bin_error(share))
        if getattr(col, "adaptive", False):  # the bins are fitted first, with their own share
            bins = constraints.ADAPTIVE_MAX_BINS + len(col.special)
            row.update(mechanism="bins fitted to the data with DP, then " + row["mechanism"],
                       domain_size=bins + (1 if col.missing else 0),
                       domain_size_words=f"up to {bins} bins, fitted with ε = {split[f'bins {name}']:.3g}",
                       bins_epsilon=split[f"bins {name}"])
        elif binning_label(col) in split:  # declared bins wider than one value: how values spread inside
            row.update(mechanism=row["mechanism"] + "; values inside the bins placed by a DP histogram (its own "
                       "share of the budget)", bins_epsilon=split[binning_label(col)])
        plan.append(row)
    return plan


def epsilon_guidance(epsilon: float) -> tuple[str, str]:
    """A level ("strong", "moderate", "weak", "very weak") and a sentence for the slider."""
    if epsilon <= 0.3:
        return "strong", ("Strong protection: any one person's presence changes the chance of any "
                          f"result by at most {math.exp(epsilon):.2f} times. Expect visible noise.")
    if epsilon <= 2:
        return "moderate", ("A common choice for public releases: results change by at most "
                            f"{math.exp(epsilon):.1f} times with or without any one person.")
    if epsilon <= constraints.EPSILON_WARN_ABOVE:
        return "weak", (f"Weak protection: one person can shift the chance of a result up to "
                        f"{math.exp(epsilon):.0f} times. Use only when the data is not very sensitive.")
    return "very weak", (f"Very weak protection: a factor of {math.exp(epsilon):,.0f}. Values above "
                         f"{constraints.EPSILON_WARN_ABOVE:g} are rarely defensible for data about people.")
