"""The ``marginals`` method's selection, as in AIM (McKenna et al., VLDB 2022, Algorithm 2): which marginals
a round may measure, how much each matters, how badly the model answers it, and the private choice.

The *workload* is every column pair and every publisher group; the *candidates* are the workload and its
sub-groups (AIM's downward closure, so a round may measure a column again), each weighted by how much of
the workload it covers. Everything here but the data's exact counts that :func:`score` reads is public.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ...errors import ParameterError
from ...privacy.noise import exponential_mechanism_zcdp, report_noisy_max

#: Smallest candidate marginal: 1 offers every column's 1-way marginal again (AIM's downward closure of
#: the workload), so a round may re-measure a column whose counts the model still gets wrong.
MIN_CANDIDATE_SIZE = 1
#: Every column triple of at most this many cells is a candidate too (0: none); ablation only.
TRIPLE_CELLS = 0


def check_groups(groups, names) -> list[tuple]:
    """The publisher's ``groups`` (None: none), each of 2 or 3 different columns among ``names``."""
    out = []
    for group in groups or []:
        group = tuple(group)
        unknown = [g for g in group if g not in names]
        if unknown:
            raise ParameterError(f"group {group} names column(s) not in the release: {', '.join(unknown)}")
        if not 2 <= len(group) <= 3 or len(set(group)) != len(group):
            raise ParameterError(f"group {group} must list 2 or 3 different columns")
        out.append(group)
    return out


def in_column_order(names, groups) -> list[tuple]:
    """Each group with its columns in the order of ``names`` (the order every marginal is stated in)."""
    position = {n: i for i, n in enumerate(names)}
    return [tuple(sorted(group, key=position.__getitem__)) for group in groups]


def workload(names, groups) -> list[tuple]:
    """What the release is judged on: every column pair, then the publisher's ``groups`` (in column order)."""
    return list(dict.fromkeys(list(itertools.combinations(names, 2)) + groups))


def candidates(names, work: list[tuple], cells: dict, *, max_cells: int) -> list[tuple]:
    """The marginals a round may offer: every group of the workload ``work`` and its sub-groups of at least
    ``MIN_CANDIDATE_SIZE`` columns (and, for ablations, column triples of at most ``TRIPLE_CELLS`` cells),
    each of at most ``max_cells`` cells, in column order."""
    position = {n: i for i, n in enumerate(names)}
    found = set()
    for group in work:
        for size in range(MIN_CANDIDATE_SIZE, len(group) + 1):
            found.update(itertools.combinations(group, size))
    if TRIPLE_CELLS:  # 3-way candidates of at most TRIPLE_CELLS cells (the model's size limit still applies)
        found.update(t for t in itertools.combinations(names, 3) if math.prod(cells[a] for a in t) <= TRIPLE_CELLS)
    return sorted(
        (c for c in found if math.prod(cells[a] for a in c) <= max_cells), key=lambda c: [position[a] for a in c]
    )


def weights(offered: list[tuple], work: list[tuple]) -> dict[tuple, float]:
    """Each candidate's weight: how much of the workload it covers, ``w_r = sum over s of |r & s|``."""
    return {c: float(sum(len(set(c) & set(s)) for s in work)) for c in offered}


def score(candidates, truth: dict, answers: dict, weights: dict, penalty: float) -> list:
    """AIM's quality score of each candidate marginal ``r``:
    ``w_r * (|M_r(data) - M_r(model)|_1 - penalty * cells_r)``; adding or removing a record moves
    it by at most ``w_r`` (the L1 term by 1, the rest is public)."""
    return [weights[c] * (float(np.abs(truth[c] - answers[c]).sum()) - penalty * truth[c].size) for c in candidates]


def choose(noise, scores, budget: float, sensitivity: float, *, zcdp: bool) -> int:
    """The exponential mechanism on the scores: ``budget`` is rho (zCDP, ``eps = sqrt(8 rho)``) or epsilon."""
    if zcdp:
        return exponential_mechanism_zcdp(noise, scores, budget, sensitivity)
    return report_noisy_max(noise, scores, budget, sensitivity)
