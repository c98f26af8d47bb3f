"""What privacy choices imply, before any data is touched.

Everything here depends only on the declaration, epsilon, rho and the method, never on
data, so the app can show it live as sliders move.
"""

from __future__ import annotations

import math

from . import constraints
from .cathist import cathist_tau, expected_made_up, threshold
from .domain import TableDomain, as_table_domain, size_in_words
from .noise import discrete_laplace_alpha


def budget_split(domain, epsilon: float, *, rows_public: bool = False) -> dict[str, float]:
    """How epsilon is split by the independent-columns method: row count, then equal shares."""
    domain: TableDomain = as_table_domain(domain)
    columns = list(domain.kept)
    split = {}
    remaining = epsilon
    if not rows_public:
        split["row count"] = epsilon * constraints.ROW_COUNT_SHARE
        remaining -= split["row count"]
    for name in columns:
        split[f"column {name}"] = remaining / len(columns) if columns else 0.0
    return split


def typical_bin_error(epsilon: float) -> float:
    """Mean absolute discrete Laplace noise of scale 1/epsilon: ``2a / (1 - a**2)``."""
    alpha = discrete_laplace_alpha(epsilon)
    return 2 * alpha / (1 - alpha**2)


def column_plan(domain, epsilon: float, rho: float, *, rows_public: bool = False) -> list[dict]:
    """Per kept column: its share of epsilon and what it implies (threshold, made-up values...)."""
    domain = as_table_domain(domain)
    split = budget_split(domain, epsilon, rows_public=rows_public)
    rows = []
    for name, col in domain.kept.items():
        share = split[f"column {name}"]
        row = {"column": name, "kind": col.kind, "epsilon": share}
        if not col.complete:
            row.update(note="declare this column's domain first")
            rows.append(row)
            continue
        if col.kind in ("categorical", "text"):
            size = col.size + (1 if col.missing else 0)
            rule = threshold(size, rho, share)
            row.update(
                mechanism="CatHist",
                domain_size=size,
                domain_size_words=size_in_words(size),
                tau=cathist_tau(size, rho, share),
                expected_made_up=expected_made_up(size, rho),
                kept_half_the_time=rule.smallest_count_kept(0.5),
                kept_almost_always=rule.smallest_count_kept(0.95),
            )
        else:
            cells = col.bins + (1 if col.missing else 0)
            row.update(mechanism="noisy histogram over public bins", domain_size=cells,
                       domain_size_words=f"{cells} bins", typical_error_per_bin=typical_bin_error(share))
        rows.append(row)
    return rows


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
