"""The ``marginals`` method's selection, as in AIM (McKenna et al., VLDB 2022, Algorithm 2): which marginals
a round may measure, how much each matters, how badly the model answers it, and the private choice.

The *workload* is every column pair and every publisher group; the *candidates* are the workload and its
sub-groups (AIM's downward closure, so a round may measure a column again), each weighted by how much of
the workload it covers. Everything here but the data's exact counts that :func:`score` and :class:`Truth`
read is public.

A wide table has many pairs (300 columns: 44,850), and scoring a candidate means answering it from the
model and counting it in the data. So each round of a table of more than ``OFFERED_PAIRS`` pairs offers
every column and every publisher group (with its sub-groups), and a fresh uniform sample of
``OFFERED_PAIRS`` pairs (:func:`offer`): the sample is drawn from the release's random source alone,
independently of the data, so the exponential mechanism over it has the same guarantee and sensitivity
as over all pairs. A pair is counted in the data the first time it is offered (:class:`Truth`). A narrow
table offers every pair every round, as before, and draws nothing for it.
"""

from __future__ import annotations

import collections
import itertools
import math

import numpy as np

from ...errors import ParameterError
from ...pgm.cell_maps import merge_cells
from ...privacy.noise import exponential_mechanism_zcdp, report_noisy_max
from ...wording import noun

#: Smallest candidate marginal: 1 offers every column's 1-way marginal again (AIM's downward closure of
#: the workload), so a round may re-measure a column whose counts the model still gets wrong.
MIN_CANDIDATE_SIZE = 1
#: Most column pairs one round offers beside the columns and the publisher's groups: a table with more
#: pairs offers a fresh public sample of this many each round (a table of up to 63 columns offers all).
#: 2,000 keeps a round's answers, sizes and scores about as costly as a 63-column table's whatever the width.
OFFERED_PAIRS = 2000
#: A table of more than BATCH_FROM columns chooses one marginal per BATCH_COLUMNS columns in each round
#: (:func:`batch_size`: 300 columns, 38 a round). Measured on 300 columns of 20,000 rows (one choice a
#: round): 350 rounds, the later ones 2 to 3 s each, most of it the refit of a 245-clique model.
BATCH_FROM = 64
BATCH_COLUMNS = 8
#: Every column triple of at most this many cells is a candidate too (0: none); ablation only.
TRIPLE_CELLS = 0
#: AIM's score (:func:`score`) counts only the cells the model may use (its support: the cells the noisy 1-ways
#: could tell from empty, :func:`~.measurements.support`); False: every cell, as AIM's own (an ablation). A column
#: declared by a long list (adult's country by the world's 249, 40 holding records) got AIM's penalty for noise on
#: 249 cells that the model never uses and was measured in no pair: 2 countries came out of 40. Publishers'
#: declarations at epsilon 1 (5 seeds): mean 2-way TVD -0.0026 over the 34 table sizes (24 lower, 7 by more than
#: two standard errors, 2 higher by more: adult_countries at 5,000 rows +0.0038, adult_test at 1,000 +0.0027),
#: -0.0046 over Rdatasets' 60 (44 lower, 18 by two standard errors, 1 higher); the experts' 16 equal bins, many
#: of them empty, gained more (-0.0083: airports 0.238 to 0.113).
SUPPORTED_SCORE = True


def check_groups(groups, names) -> list[tuple]:
    """The publisher's ``groups`` (None: none), each of 2 or 3 different columns among ``names``."""
    out = []
    for group in groups or []:
        group = tuple(group)
        unknown = [g for g in group if g not in names]
        if unknown:
            raise ParameterError(
                f"group {group} names {noun(len(unknown), 'column')} not in the release: {', '.join(unknown)}"
            )
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
    found = set(work)  # quadratic in the columns, as the workload (every pair) is: 1,500 columns take seconds
    for group in work:
        if len(group) > 2 or MIN_CANDIDATE_SIZE > 1:
            for size in range(MIN_CANDIDATE_SIZE, len(group)):
                found.update(itertools.combinations(group, size))
    if MIN_CANDIDATE_SIZE <= 1:  # a pair's sub-groups are its columns
        found.update((a,) for a in {a for group in work for a in group})
    if TRIPLE_CELLS:  # 3-way candidates of at most TRIPLE_CELLS cells (the model's size limit still applies)
        found.update(t for t in itertools.combinations(names, 3) if math.prod(cells[a] for a in t) <= TRIPLE_CELLS)
    found = (c for c in found if math.prod(map(cells.__getitem__, c)) <= max_cells)
    return [c for _, c in sorted((tuple(map(position.__getitem__, c)), c) for c in found)]


def weights(offered: list[tuple], work: list[tuple]) -> dict[tuple, float]:
    """Each candidate's weight: how much of the workload it covers, ``w_r = sum over s of |r & s|``, which is
    ``sum over columns a of r of the number of workload groups holding a`` (the groups' columns are distinct),
    so it takes one pass over the workload and one over the candidates, not their product.

    >>> weights([("a",), ("a", "b")], [("a", "b"), ("a", "c"), ("b", "c")])
    {('a',): 2.0, ('a', 'b'): 4.0}
    """
    holding = collections.Counter(a for s in work for a in s)
    return {c: float(sum(map(holding.__getitem__, c))) for c in offered}


def sampled(offered: list[tuple], groups) -> np.ndarray:
    """Positions in ``offered`` of the pairs a wide table's rounds sample (:func:`offer`): every pair but the
    publisher's ``groups`` and their sub-groups, which every round offers with the columns."""
    own = {sub for g in groups for k in range(1, len(g) + 1) for sub in itertools.combinations(g, k)}
    return np.array([i for i, c in enumerate(offered) if len(c) == 2 and c not in own], dtype=np.int64)


def offer(offered: list[tuple], pairs: np.ndarray, rng) -> list[tuple]:
    """A round's candidates: all of ``offered`` when its sampled ``pairs`` (positions, :func:`sampled`) are at
    most ``OFFERED_PAIRS``; else the others and a uniform sample of ``OFFERED_PAIRS`` of the pairs, in the
    order of ``offered``, drawn from ``rng``, the release's random source: public randomness, independent
    of the data (see the module docstring)."""
    if len(pairs) <= OFFERED_PAIRS:
        return offered
    keep = np.ones(len(offered), dtype=bool)
    keep[pairs] = False
    keep[rng.choice(pairs, OFFERED_PAIRS, replace=False)] = True
    return [offered[i] for i in np.flatnonzero(keep)]


def batch_size(columns: int) -> int:
    """Marginals a round chooses before the model is fitted again: 1 up to ``BATCH_FROM`` columns (AIM), then
    one per ``BATCH_COLUMNS`` columns. Each choice is its own exponential mechanism at the round's budget and
    each chosen marginal its own measurement, exactly as that many rounds would spend; only the refit between
    them is skipped (a wide table's rounds are mostly that fit, over a model of hundreds of columns)."""
    return 1 if columns <= BATCH_FROM else math.ceil(columns / BATCH_COLUMNS)


class Batch:
    """A round's candidates as its choices take them (:func:`batch_size`): after each choice, those sharing a
    column with a chosen one drop out (their answers and sizes are the model's before the round), and those
    whose growth of the model, added to the chosen ones', would pass the round's ``limit`` (``size``: the
    model's cells with each candidate, ``base`` without; growths add up only roughly, the limit being a soft
    one). Each step is a few numpy operations over the round's offer, not a pass in Python."""

    def __init__(self, allowed: list, scores, size: dict, base: float, limit: float):
        self.allowed, self.scores, self.chosen = allowed, np.asarray(scores, dtype=float), []
        self.growth = np.array([size[c] - base for c in allowed], dtype=float)
        self.room, self.alive = limit - base, np.ones(len(allowed), dtype=bool)
        self.holding: dict = {}
        for i, group in enumerate(allowed):
            for a in group:
                self.holding.setdefault(a, []).append(i)

    def open(self) -> np.ndarray:
        """Positions in ``allowed`` of the candidates the next choice may take."""
        return np.flatnonzero(self.alive)

    def take(self, position: int) -> tuple:
        """Record the choice of ``allowed[position]``; returns it."""
        group = self.allowed[position]
        self.chosen.append(group)
        self.room -= self.growth[position]
        for a in group:
            self.alive[self.holding[a]] = False
        self.alive &= self.growth <= self.room
        return group


class Offers:
    """Each round's candidates among ``offered`` (:func:`offer`), the publisher's ``groups`` always offered,
    any sample drawn from ``rng``."""

    def __init__(self, offered: list[tuple], groups, rng):
        self.offered, self.pairs, self.rng = offered, sampled(offered, groups), rng

    def next(self) -> list[tuple]:
        return offer(self.offered, self.pairs, self.rng)


class Truth(dict):
    """The data's exact counts of each candidate, counted the first time a round offers it (a wide table's
    rounds never offer some pairs): only the scores and the measurements' noise read them. A source that
    counts several pairs in one pass (in memory: :meth:`~dpsynth_core.data.counting.CodedTable.companions`,
    up to six) is asked for a pair's companions with it; an engine (DuckDB, Spark) counts what is asked."""

    def __init__(self, table, names):
        super().__init__()
        self.table, self.position = table, {n: i for i, n in enumerate(names)}
        self.companions = getattr(table, "companions", None)

    def of(self, groups) -> Truth:
        missing = [g for g in groups if g not in self]
        if len(missing) > 1 and self.companions:  # the companions of each pair, once
            missing = list(dict.fromkeys(c for g in missing for c in self._companions(g)))
        if missing:
            self.update(zip(missing, self.table.marginals(missing)))
        return self

    def _companions(self, group: tuple) -> list[tuple]:
        """``group`` and the pairs counted with it not yet known, each in the release's column order."""
        if len(group) != 2:
            return [group]
        ordered = (tuple(sorted(p, key=self.position.__getitem__)) for p in self.companions(group))
        return [group] + [p for p in ordered if p != group and p not in self]


def score(
    candidates, truth: dict, answers: dict, weights: dict, penalty: float, support: dict | None = None, maps=None
) -> list:
    """AIM's quality score of each candidate marginal ``r``:
    ``w_r * (|M_r(data) - M_r(model)|_1 - penalty * cells_r)``; adding or removing a record moves
    it by at most ``w_r`` (the L1 term by 1, the rest is public). With ``support`` (column -> boolean per cell:
    the cells the model may use, post-processing of DP measurements, so public) both terms count only the
    candidate's cells the model may use: a measurement's noise elsewhere never reaches the model, and the records
    elsewhere no round's measurement brings back, so neither decides what is measured (``SUPPORTED_SCORE``).
    With ``maps`` (candidate -> per-axis maps, or None: :mod:`.pair_cells`) a candidate is scored over its merged
    cells, those holding a cell the model may use: a record still moves its L1 term by at most 1.

    >>> truth, model = {("a",): np.array([50.0, 30.0, 0.0, 0.0])}, {("a",): np.array([40.0, 0.0, 0.0, 0.0])}
    >>> score([("a",)], truth, model, {("a",): 1.0}, 5.0), score([("a",)], truth, model, {("a",): 1.0}, 5.0,
    ...     {"a": np.array([True, False, False, False])})
    ([20.0], [5.0])
    >>> score([("a",)], truth, model, {("a",): 1.0}, 5.0, maps={("a",): (np.array([0, 0, 1, 1]),)})
    [30.0]
    """
    kept = {a: np.flatnonzero(cells) for a, cells in (support or {}).items()}  # once, not per candidate
    axes: dict = {}  # (column, merged or not) -> its usable cells, once per column
    out = []
    for c in candidates:
        cell_maps = (maps or {}).get(c) or (None,) * len(c)
        error = np.abs(merge_cells(truth[c] - answers[c], cell_maps))
        if kept:
            for a, n, m in zip(c, truth[c].shape, cell_maps):
                if (a, m is not None) not in axes:
                    axes[a, m is not None] = _used(kept.get(a), n, m)
            error = error[np.ix_(*[axes[a, m is not None] for a, m in zip(c, cell_maps)])]
        out.append(weights[c] * (float(error.sum()) - penalty * error.size))
    return out


def _used(kept, cells: int, cell_map) -> np.ndarray:
    """An axis's cells the model may use (``kept``: their indices, None: all ``cells``), or with ``cell_map`` its
    merged cells holding one."""
    if cell_map is None:
        return np.arange(cells) if kept is None else kept
    return np.unique(cell_map if kept is None else cell_map[kept])


def used_cells(group: tuple, cells: dict, support: dict, maps=None) -> int:
    """A marginal's cells that the model may use: the product of its columns' cells in ``support`` (column ->
    boolean per cell; a column not in it, all its ``cells``); with ``maps``, its merged cells holding one."""
    kept = {a: np.flatnonzero(support[a]) for a in group if a in support}
    return math.prod(len(_used(kept.get(a), cells[a], m)) for a, m in zip(group, maps or (None,) * len(group)))


def choose(noise, scores, budget: float, sensitivity: float, *, zcdp: bool) -> int:
    """The exponential mechanism on the scores: ``budget`` is rho (zCDP, ``eps = sqrt(8 rho)``) or epsilon."""
    if zcdp:
        return exponential_mechanism_zcdp(noise, scores, budget, sensitivity)
    return report_noisy_max(noise, scores, budget, sensitivity)
