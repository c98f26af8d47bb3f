"""The default engine: adaptively chosen DP marginals, fitted into one graphical model (AIM).

Algorithm (McKenna, Mullins, Sheldon and Miklau, "AIM: an adaptive and iterative mechanism
for differentially private synthetic data", VLDB 2022, Algorithm 2), over the declared cells:

1. measure every column's 1-way marginal (and every publisher group's joint table);
2. in rounds, choose one marginal among the *candidates* (every column pair, and every
   publisher group and its sub-groups) by the exponential mechanism, scored by
   ``w_r * (|M_r(data) - M_r(model)|_1 - expected |noise| of measuring r)``: how badly the
   current model answers the marginal, less the noise its measurement would add, weighted
   by how much of the workload (all column pairs plus the publisher's groups) it covers,
   ``w_r = sum over workload groups s of |r & s|``. Only candidates that keep the model
   within its size limit (growing with the budget used) are offered;
3. measure the chosen marginal with noise, fit the graphical model to every measurement so
   far (Private-PGM, :mod:`dpsynth_core.pgm`: one proportional-fitting step toward the new
   measurement, then mirror descent from there), and when the fit moved the chosen marginal by
   less than the noise expected, quadruple the per-round budget (annealing); the last round
   spends exactly what is left;
4. generate records from the model (:func:`dpsynth_core.pgm.generate`).

Guarantee, under adding or removing one record: with ``delta > 0`` (the default),
rho-zCDP composed over the row count and text vocabularies (pure epsilon-DP events, each
costing ``eps**2 / 2``), every measurement (discrete Gaussian on counts of L2 sensitivity 1:
``1 / (2 sigma**2)``) and every choice (exponential mechanism, score sensitivity
``max w_r``: ``eps**2 / 8``), stated as (epsilon, delta)-DP with OpenDP's conversion, rho
being calibrated so that epsilon is exactly the publisher's. With ``delta = 0``, pure
epsilon-DP by basic composition: discrete Laplace measurements and report-noisy-max
choices. Must be declared in advance: every column's domain, and optionally column groups.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from .. import constraints
from ..domain import as_table_domain
from ..errors import ParameterError
from ..pgm import Measurement, absorb, estimate, generate, model_cells_with, support_from
from ..privacy.accounting import Accountant, PrivacyEvent, Spend, zcdp_budget
from ..privacy.noise import typical_bin_error
from .aim import GAUSSIAN_MEAN_ABS, choose, measure, score  # noqa: F401  (AIM's building blocks)
from .base import GAUSSIAN, HISTOGRAM, VOCABULARY, ZCDP, Synthesizer
from .finite import FiniteColumn, finite_source, finite_source_column
from .options import DELTA, delta_note, delta_rule, groups_option
from .options import delta_of as _delta
from .registry import register

#: Each round's budget: this share chooses the marginal, the rest measures it (AIM's split).
SELECT_SHARE = 0.1
#: Share of the budget for the vocabularies of text columns (all of them together).
VOCABULARY_SHARE = 0.05
#: Rounds the budget is first divided into, per column (AIM: 16; annealing shortens the run).
ROUNDS_PER_COLUMN = 16
#: A large table's rounds per column go down to this, as ``ROUNDS_PER_COLUMN * sqrt(ROUNDS_ROWS / n)``
#: for a DP count of ``n`` records: fewer, more precise measurements once the noise is small
#: beside the table (adult, 32,561 records, 6 columns: mean 2-way TVD 0.0146 against 0.0156 at 16;
#: tables of 1,000 records lose accuracy with fewer rounds, 8 rounds per column: 4.49 against 4.20
#: times the sampling floor).
MIN_ROUNDS_PER_COLUMN = 8
ROUNDS_ROWS = 5000
#: Smallest candidate marginal: 1 offers every column's 1-way marginal again (AIM's downward closure of
#: the workload), so a round may re-measure a column whose counts the model still gets wrong.
MIN_CANDIDATE_SIZE = 1
#: Mirror-descent iterations after each round (warm-started) and for the final model.
ROUND_ITERATIONS = 10
FINAL_ITERATIONS = 150
#: A small table's first 1-way marginals get up to this share of the budget (after vocabularies):
#: ``SMALL_ONE_WAY_SHARE * SMALL_ROWS / n`` for a DP count of ``n`` records, when that is more than
#: AIM's share (one round's measuring budget per column), so their noise stays small next to the table.
SMALL_ONE_WAY_SHARE = 0.3
SMALL_ROWS = 2000
#: Numeric and date columns lose the tails of their range that, at EMPTY_Z standard deviations of
#: the noise, hold at most TAIL_SHARE of the estimated records (:func:`dpsynth_core.pgm.support_from`).
EMPTY_Z = 2.0
TAIL_SHARE = 0.005
#: The labels of the adaptive part of the budget plan.
ONE_WAY = "1-way marginals (every column)"
CHOOSING = "choosing marginals (exponential mechanism, each round)"
MEASURING = "measuring the chosen marginals (noise on every cell)"
#: zCDP's budget is calibrated a hair below the publisher's epsilon, so floating-point sums never state more.
BUDGET_MARGIN = 1e-9


def planned_rounds(columns: int, count: float | None) -> int:
    """Rounds the budget is first divided into (annealing then shortens the run): ``ROUNDS_PER_COLUMN``
    per column (AIM), fewer for a large table by a DP ``count`` of its records."""
    per_column = ROUNDS_PER_COLUMN
    if count and count > ROUNDS_ROWS:
        per_column = max(MIN_ROUNDS_PER_COLUMN, round(ROUNDS_PER_COLUMN * math.sqrt(ROUNDS_ROWS / count)))
    return per_column * columns


def one_way_share(columns: int, count: float | None, rounds: int | None = None) -> float:
    """Share of the budget (after vocabularies) for the first 1-way marginals, all columns together:
    AIM's, ``columns`` rounds' measuring budget (``rounds`` default :func:`planned_rounds`), or for a
    small table up to ``SMALL_ONE_WAY_SHARE``, by a DP ``count`` of its records."""
    aim = columns * (1 - SELECT_SHARE) / (rounds or planned_rounds(columns, count))
    if not count or count <= 0:
        return aim
    return max(aim, min(SMALL_ONE_WAY_SHARE, SMALL_ONE_WAY_SHARE * SMALL_ROWS / count))


@register(
    "marginals",
    "Related columns (adaptive DP marginals)",
    """Measures every column and then, one round at a time, the pair of columns (or a group
    you chose) that the model so far gets most wrong, with noise added to every combination
    of values that could occur. One consistent model is fitted to all these noisy tables and
    the synthetic rows are drawn from it, so relationships such as education and income or
    age and marital status are kept. The best general-purpose choice for a whole table.""",
    rank=1,
)
class MarginalsSynthesizer(Synthesizer):
    """Adaptive DP marginals fitted into a graphical model (see module docstring).

    Args:
        epsilon, rho, random_state: as for every synthesizer (``rho`` is the tolerance for
            made-up values of text columns, not the zCDP parameter).
        delta: the (epsilon, delta) guarantee's delta; None (default) is the public constant
            ``constraints.DELTA_DEFAULT``; 0 gives pure epsilon-DP.
        groups: optional publisher column groups (tuples of 2 or 3 names): measured first and
            added to the workload.
        generation: ``"matched"`` (default: every clique's counts within one record of the
            model's) or ``"iid"``.
        rounds: rounds the budget is first divided into (default :func:`planned_rounds`: 16 per
            column, down to 8 for a large table).
        max_model_cells: most cells the model's cliques may hold in all.
        max_cells: most cells of one measured marginal.
    """

    row_count_share = constraints.ENGINE_ROW_COUNT_SHARE
    guarantee = ZCDP  # stated as (epsilon, delta)-DP; pure epsilon-DP with delta = 0
    options = (groups_option("a column group of 2 or 3 columns, measured together and added to the workload"),
               DELTA)
    column_label = "1-way marginal {}"

    def __init__(self, *, epsilon, rho=constraints.RHO_DEFAULT, random_state=None, delta=None, groups=None,
                 generation: str = "matched", rounds: int | None = None,
                 max_model_cells: int = constraints.ENGINE_MAX_MODEL_CELLS,
                 max_cells: int = constraints.ENGINE_MAX_MARGINAL_CELLS):
        super().__init__(epsilon=epsilon, rho=rho, random_state=random_state)
        self.delta = delta
        self.groups = groups
        self.generation = generation
        self.rounds = rounds
        self.max_model_cells = max_model_cells
        self.max_cells = max_cells

    # --- budget -------------------------------------------------------------------------

    def _choose_delta(self) -> float:
        delta = _delta(self.delta)
        self.delta_rule_ = delta_rule(self.delta, delta)
        return delta

    def _dp_count(self) -> float | None:
        """A DP count of the records (the row count's, or the one that set delta), None if none was made."""
        if any(e.label == "row count" for e in self.accountant_.events):
            return float(self.rows_)
        return getattr(self, "count_", None)

    # --- the charge, before any data is read ----------------------------------------------

    @classmethod
    def _row_charge(cls, domain, epsilon, *, rows=None, delta=None, groups=None, **options) -> Spend:
        """Row count, bins, vocabularies as pure events; the adaptive rounds as the rest, in three parts."""
        delta = _delta(delta)
        zcdp = delta > 0
        budget = zcdp_budget(epsilon, delta) * (1 - BUDGET_MARGIN) if zcdp else epsilon
        events, _ = cls._common_events(domain, epsilon, rows)

        def remaining() -> float:
            return budget - math.fsum(e.rho_cost if zcdp else e.epsilon for e in events)

        if remaining() <= 0:
            raise ParameterError(f"epsilon ({epsilon:g}) leaves nothing for the marginals after the steps before them")
        names = list(domain.kept)
        texts = [n for n in names if not domain.kept[n].binned]
        if texts:
            share = remaining() * VOCABULARY_SHARE / len(texts)
            text_epsilon = math.sqrt(2 * share) if zcdp else share
            events += [cls._event("CatHist", text_epsilon, f"vocabulary {n} (CatHist)") for n in texts]
        left = remaining()  # the rounds: their split is adaptive (a small table's 1-ways take more, by a DP count)
        one_way = left if len(names) == 1 else left * one_way_share(len(names), None)
        rest = left - one_way
        parts = [("discrete Gaussian histogram" if zcdp else "discrete Laplace histogram", one_way, ONE_WAY),
                 ("exponential mechanism", rest * SELECT_SHARE, CHOOSING),
                 ("discrete Gaussian histogram" if zcdp else "discrete Laplace histogram", rest * (1 - SELECT_SHARE),
                  MEASURING)]
        for mechanism, cost, label in parts:
            events.append(PrivacyEvent.zcdp(mechanism, cost, label, cls.neighbouring) if zcdp else
                          cls._event(mechanism, cost, label))
        return Spend(tuple(events), True, delta if zcdp else 0.0)

    @classmethod
    def column_mechanism(cls, column, *, delta=None, **options) -> str:
        return VOCABULARY if column.kind == "text" else GAUSSIAN if _delta(delta) > 0 else HISTOGRAM

    @classmethod
    def column_noise(cls, domain, epsilon, *, rows=None, expected_rows=None, **options) -> dict:
        """A column's 1-way marginal in the plan (sigma under zCDP), or a text column's vocabulary."""
        domain = as_table_domain(domain)
        spend = cls._row_charge(domain, epsilon, rows=rows, **options)
        plan = cls._row_plan(domain, epsilon, rows=rows, expected_rows=expected_rows, **options)
        m = max(len(domain.kept), 1)
        noise = {"epsilon": plan[ONE_WAY] / m}
        if spend.zcdp_delta:  # the plan shows shares of rho times epsilon
            rho = Accountant(spend.events).rho()
            noise["sigma"] = math.sqrt(1 / (2 * plan[ONE_WAY] / epsilon * rho / m))
        vocabularies = {e.label: e.epsilon for e in spend.events}
        return {n: ({"epsilon": vocabularies[f"vocabulary {n} (CatHist)"]} if c.kind == "text" else noise)
                for n, c in domain.kept.items()}

    @classmethod
    def _row_plan(cls, domain, epsilon, *, rows=None, expected_rows=None, **options) -> dict:
        """The charge's parts, the rounds split as a release would for about ``expected_rows`` records."""
        plan = super()._row_plan(domain, epsilon, rows=rows, **options)
        m = len(as_table_domain(domain).kept)
        if m > 1 and expected_rows and rows is None:  # a public row count makes no DP count: AIM's share
            rounds = plan[ONE_WAY] + plan[CHOOSING] + plan[MEASURING]
            plan[ONE_WAY] = rounds * one_way_share(m, expected_rows)
            plan[CHOOSING] = (rounds - plan[ONE_WAY]) * SELECT_SHARE
            plan[MEASURING] = (rounds - plan[ONE_WAY]) * (1 - SELECT_SHARE)
        return plan

    @classmethod
    def privacy_note(cls, domain, epsilon, *, rows=None, delta=None, **options):
        return delta_note(_delta(delta))

    def _remaining(self) -> float:
        if self.zcdp_:
            return self.budget_ - self.accountant_.rho()
        return self.budget_ - self.accountant_.basic()[0]

    def _pure_epsilon(self, share: float) -> float:
        """A pure epsilon-DP spend worth ``share`` of the budget (eps**2 / 2 of rho under zCDP)."""
        return math.sqrt(2 * share) if self.zcdp_ else share

    def _split_round(self, round_budget: float) -> tuple[float, float]:
        """(noise of a measurement, budget of a choice) for one round: sigma and rho (zCDP), or epsilons."""
        measure, select = round_budget * (1 - SELECT_SHARE), round_budget * SELECT_SHARE
        if self.zcdp_:
            return math.sqrt(1 / (2 * measure)), select
        return measure, select

    def _expected_noise(self, noise_param: float) -> float:
        """Mean |noise| per cell of a measurement (sigma for zCDP, epsilon for pure DP)."""
        return GAUSSIAN_MEAN_ABS * noise_param if self.zcdp_ else typical_bin_error(noise_param)

    # --- fitting ------------------------------------------------------------------------

    reads_sources = True

    def _fit(self, source, epsilon: float) -> None:  # a counting source (dpsynth_core.engines)
        if self.generation not in ("matched", "iid"):
            raise ParameterError(f"generation ({self.generation!r}) must be 'matched' or 'iid'")
        names = list(self.domain_.kept)
        groups = self._check_groups(names)
        self.delta_ = self._choose_delta()
        self.zcdp_ = self.delta_ > 0
        if self.zcdp_:
            self.accountant_.delta = self.delta_
            # a hair below the target, so floating-point sums never state more than epsilon
            self.budget_ = zcdp_budget(self.epsilon_, self.delta_) * (1 - BUDGET_MARGIN)
        else:
            self.budget_ = self.epsilon_
        if self._remaining() <= 0:
            raise ParameterError(f"epsilon ({self.epsilon_:g}) leaves nothing for the marginals after the "
                                 "steps before them")

        # text columns: a CatHist vocabulary each (pure epsilon-DP), then every column is codes
        texts = [n for n in names if not self.domain_.kept[n].binned]
        text_epsilon = self._pure_epsilon(self._remaining() * VOCABULARY_SHARE / len(texts)) if texts else 0.0
        self.columns_: dict[str, FiniteColumn] = {}
        for name in names:
            self.columns_[name] = finite_source_column(source, self.domain_.kept[name], text_epsilon=text_epsilon,
                                                       rho=self.rho_, noise=self.noise_, label=f"vocabulary {name}")
            if name in texts:
                self._spend("CatHist", text_epsilon, f"vocabulary {name} (CatHist)")
        table = finite_source(source, self.columns_)
        cells = {n: self.columns_[n].cells for n in names}
        self.cells_ = cells
        position = {n: i for i, n in enumerate(names)}

        def canonical(group):
            return tuple(sorted(group, key=position.__getitem__))

        groups = [canonical(g) for g in groups]
        workload = list(dict.fromkeys(list(itertools.combinations(names, 2)) + groups))
        candidates = set()
        for group in workload:
            for size in range(MIN_CANDIDATE_SIZE, len(group) + 1):
                candidates.update(itertools.combinations(group, size))
        candidates = sorted((c for c in candidates if math.prod(cells[a] for a in c) <= self.max_cells),
                            key=lambda c: [position[a] for a in c])
        weights = {c: float(sum(len(set(c) & set(s)) for s in workload)) for c in candidates}
        truth = dict(zip(candidates, table.marginals(candidates)))  # exact counts: only scores and noise read them

        rounds = (self.rounds or planned_rounds(len(names), self._dp_count())) if candidates else len(names)
        adaptive = self._remaining()
        round_budget = adaptive / rounds
        noise_param, _ = self._split_round(round_budget) if candidates else self._split_round(
            round_budget / (1 - SELECT_SHARE))
        first_param = noise_param
        if candidates:  # the 1-ways take their share; the rounds keep theirs, the last one takes the rest
            first = self._remaining() * one_way_share(len(names), self._dp_count(), self.rounds) / len(names)
            first_param = math.sqrt(1 / (2 * first)) if self.zcdp_ else first
        self.measurements_: list[Measurement] = []
        self.measured_: list[dict] = []
        for name in names:
            self._measure((name,), table.marginal((name,)), first_param)
        for group in groups:
            self._measure(group, truth[group] if group in truth else table.marginal(group), noise_param)
        self.total_ = self._estimate_total()
        if candidates and not self.rounds and self._dp_count() is None:  # a public row count: the rounds are
            round_budget = adaptive / planned_rounds(len(names), self.total_)  # planned by the 1-ways' total
        self.support_ = self._support(cells)
        model, step = estimate(cells, self.measurements_, self.total_, iterations=FINAL_ITERATIONS // 3,
                               support=self.support_)

        self.rounds_ = 0
        sizes_for, sizes = None, {}
        growth = 4.0 if self.zcdp_ else 2.0
        while candidates and self._remaining() > 1e-12 * self.budget_:
            last = self._remaining() < 2 * round_budget
            if last:
                round_budget = self._remaining()
            noise_param, select_param = self._split_round(round_budget)
            used = 1 - self._remaining() / self.budget_
            limit = max(self.max_model_cells * used, model.tree.size())
            structure = tuple(model.tree.cliques)
            if structure != sizes_for:  # hypothetical model sizes change only with the model's cliques
                sizes_for, sizes = structure, {}
            missing = [c for c in candidates if c not in sizes]
            inside = {c for c in missing if model.tree.home(c) is not None}
            sizes.update({c: model.tree.size() for c in inside})
            sizes.update(model_cells_with(cells, [m.group for m in self.measurements_],
                                          [c for c in missing if c not in inside]))
            offered = [c for c in candidates if sizes[c] <= limit]
            if not offered:
                break
            penalty = self._expected_noise(noise_param)
            answers = model.project_many(offered)
            scores = score(offered, truth, answers, weights, penalty)
            sensitivity = max(weights[c] for c in offered)
            self.rounds_ += 1
            label = f"choice of marginal, round {self.rounds_}"
            chosen = offered[choose(self.noise_, scores, select_param, sensitivity, zcdp=self.zcdp_)]
            if self.zcdp_:
                self.accountant_.spend(PrivacyEvent.zcdp("exponential mechanism", select_param, label,
                                                         self.neighbouring))
            else:
                self._spend("exponential mechanism (report noisy max)", select_param, label)
            before = model.project(chosen)
            self._report(0.1 + 0.85 * (1 - self._remaining() / self.budget_), f"Round {self.rounds_}: measuring "
                         + " x ".join(chosen))  # progress: the share of the budget spent so far
            self._measure(chosen, truth[chosen], noise_param)
            # warm start: one proportional-fitting step toward the new measurement, pooled with
            # earlier ones of the same marginal by precision; the descent then refits everything
            new = self.measurements_[-1]
            precision = sum(1 / m.sigma**2 for m in self.measurements_ if m.group == chosen)
            model = absorb(model, new, (1 / new.sigma**2) / precision)
            model, step = estimate(cells, self.measurements_, self.total_, iterations=ROUND_ITERATIONS,
                                   warm=model, step=step, support=self.support_)
            moved = float(np.abs(model.project(chosen) - before).sum())
            if moved <= penalty * truth[chosen].size:
                round_budget *= growth
            round_budget = min(round_budget, self._remaining())
            if last:
                break
        if self._remaining() > 1e-9 * self.budget_:  # no candidate left to offer: the rest re-measures the columns
            share = self._remaining() / len(names)
            noise_param = math.sqrt(1 / (2 * share)) if self.zcdp_ else share
            for name in names:
                self._measure((name,), table.marginal((name,)), noise_param)
        self.total_ = self._estimate_total()
        self.support_ = self._support(cells)
        self.model_, _ = estimate(cells, self.measurements_, self.total_, iterations=FINAL_ITERATIONS,
                                  warm=model, step=step, support=self.support_)
        if self.row_policy_.startswith("noisy"):
            self.rows_ = max(1, int(round(self.total_)))
            self.row_policy_ = ("noisy: the number of rows is the model's estimate of the record count, "
                                "from the noisy count and the noisy marginals")

    def _support(self, cells: dict) -> dict:
        """The cells the model may use: numeric and date columns lose the tails of their range that
        the noisy counts cannot tell from empty (:func:`dpsynth_core.pgm.support_from`); None: every cell."""
        if EMPTY_Z is None:
            return {}
        ordered = {n: cells[n] - (1 if self.columns_[n].missing_code is not None else 0)
                   for n in cells if self.columns_[n].domain.kind in ("integer", "float", "date")}
        found = support_from(cells, self.measurements_, EMPTY_Z, ordered=ordered, limit=TAIL_SHARE * self.total_)
        return {n: keep for n, keep in found.items() if n in ordered}

    def _check_groups(self, names) -> list:
        out = []
        for group in self.groups or []:
            group = tuple(group)
            unknown = [g for g in group if g not in names]
            if unknown:
                raise ParameterError(f"group {group} names column(s) not in the release: {', '.join(unknown)}")
            if not 2 <= len(group) <= 3 or len(set(group)) != len(group):
                raise ParameterError(f"group {group} must list 2 or 3 different columns")
            out.append(group)
        return out

    def _measure(self, group: tuple, counts: np.ndarray, noise_param: float) -> None:
        label = f"marginal {' x '.join(group)}"
        size = int(np.prod(counts.shape))
        if size > self.max_cells:
            raise ParameterError(f"group {group} has {size:,} cells, more than the limit of {self.max_cells:,}; "
                                 "declare coarser bins or leave the group out")
        noisy, sigma = measure(self.noise_, counts, noise_param, zcdp=self.zcdp_, label=label)
        if self.zcdp_:
            self.accountant_.spend(PrivacyEvent.zcdp("discrete Gaussian histogram", 1 / (2 * noise_param**2),
                                                     label, self.neighbouring))
        else:
            self._spend("discrete Laplace histogram", noise_param, label)
        self.measurements_.append(Measurement(group, noisy.astype(float), sigma))
        self.measured_.append({"marginal": list(group), ("sigma" if self.zcdp_ else "epsilon"): noise_param})

    def _estimate_total(self) -> float:
        """The record count, by inverse-variance weighting of every measurement's sum and the noisy count."""
        estimates, variances = [], []
        for m in self.measurements_:
            estimates.append(float(m.noisy.sum()))
            variances.append(m.sigma**2 * m.noisy.size)
        count = [e for e in self.accountant_.events if e.label == "row count"]
        if count:
            alpha = math.exp(-count[0].epsilon)
            estimates.append(float(self.rows_))
            variances.append(2 * alpha / (1 - alpha) ** 2)
        weights = 1 / np.asarray(variances)
        return max(1.0, float(np.dot(weights, estimates) / weights.sum()))

    # --- sampling -----------------------------------------------------------------------

    def _sample(self, n: int) -> pd.DataFrame:
        codes = generate(self.model_, n, self.noise_.rng, method=self.generation)
        return pd.DataFrame({name: self.columns_[name].decode(codes[name], self.noise_).reset_index(drop=True)
                             for name in self.columns_})

    def card_details(self) -> dict:
        return {"privacy": (f"zero-concentrated DP (rho = {self.budget_:.6g}), stated as (epsilon, delta)-DP"
                            if self.zcdp_ else "pure epsilon-DP"),
                "delta": self.delta_, "delta_rule": self.delta_rule_, "rounds": self.rounds_,
                "measured_marginals": self.measured_,
                "model_cliques": [list(c) for c in self.model_.tree.cliques], "generation": self.generation}
