"""What privacy choices imply, before any data is touched.

Everything here depends only on the declaration, epsilon, rho and the method, never on
data, so the app can show it live as sliders move.
"""

from __future__ import annotations

import math

from . import constraints
from .cathist import cathist_tau, expected_made_up, threshold
from .domain import TableDomain, as_table_domain, size_in_words
from .noise import typical_bin_error


def budget_split(domain, epsilon: float, *, rows_public: bool = False, method: str = "cathist",
                 rows: int | None = None) -> dict[str, float]:
    """How a method splits epsilon, before any data is read (labels as in the release card).

    ``marginals``: joint tables are chosen privately, so their number is at most one per
    column after the first; the chart shows their total. ``copula``: every measurement gets
    the same epsilon, combined by the better of basic and advanced composition.
    ``dirichlet``: the row count is public (substitution), so nothing is spent on it.
    """
    domain: TableDomain = as_table_domain(domain)
    columns = list(domain.kept)
    m = max(len(columns), 1)
    split = {}
    remaining = epsilon
    if not rows_public and method != "dirichlet":
        split["row count"] = epsilon * constraints.ROW_COUNT_SHARE
        remaining -= split["row count"]
    if method == "marginals":
        from .synthesizers.marginals import SHARES

        for name in columns:
            split[f"1-way marginal {name}"] = remaining * SHARES["one_way"] / m
        split["choosing related columns"] = remaining * SHARES["select"]
        split["joint tables (up to one per column)"] = remaining * SHARES["joint"]
    elif method == "copula":
        from .synthesizers.copula import per_measurement_epsilon

        texts = sum(1 for c in domain.kept.values() if c.kind == "text")
        count = m + m * (m - 1) // 2 + texts
        each = per_measurement_epsilon(epsilon, list(split.values()), count, constraints.ADVANCED_COMPOSITION_DELTA)
        for name in columns:
            split[f"1-way margin {name}"] = each
        split[f"each of {m * (m - 1) // 2} pair tables"] = each
    elif method in ("bayesnet", "deniability"):
        from .synthesizers.network import SHARES as NET

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


def column_plan(domain, epsilon: float, rho: float, *, rows_public: bool = False, method: str = "cathist",
                rows: int | None = None) -> list[dict]:
    """Per kept column: the epsilon of its own histogram and what it implies (threshold, made-up values...)."""
    domain = as_table_domain(domain)
    split = budget_split(domain, epsilon, rows_public=rows_public, method=method)
    plan = []
    for name, col in domain.kept.items():
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
        else:
            cells = col.bins + (1 if col.missing else 0)
            row.update(mechanism="noisy histogram over declared cells", domain_size=cells,
                       domain_size_words=f"{cells} {'bins' if col.kind != 'categorical' else 'values'}",
                       typical_error_per_bin=typical_bin_error(share))
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
