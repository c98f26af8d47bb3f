"""The default engine: adaptively chosen DP marginals, fitted into one graphical model (AIM).

Algorithm (McKenna, Mullins, Sheldon and Miklau, "AIM: an adaptive and iterative mechanism
for differentially private synthetic data", VLDB 2022, Algorithm 2), over the declared cells:

1. measure every column's 1-way marginal (a numeric or date column's at ``ORDERED_ONE_WAY`` times the
   budget of another's) and every publisher group's joint table;
2. in rounds, choose one marginal among the *candidates* (every column, every column pair, and
   every publisher group and its sub-groups: AIM's downward closure of the workload, so a round
   may measure a column again) by the exponential mechanism, scored by
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
from ..errors import ParameterError
from ..pgm import Measurement, absorb, estimate, generate, support_from
from ..pgm.sizes import CandidateSizes
from ..pgm.support import EMPTY_Z, TAIL_SHARE, range_cells  # noqa: F401  (the support's rule, one home)
from ..privacy.accounting import PrivacyEvent, zcdp_budget
from .aim import GAUSSIAN_MEAN_ABS, choose, measure, score  # noqa: F401  (AIM's building blocks)
from .charges import ZCDP, row_count_event
from .finite import FiniteColumn, finite_source, finite_source_column
from .marginals_budget import (  # noqa: F401  (the budget's constants, named here too)
    BUDGET_MARGIN,
    CHOOSING,
    MEASURING,
    ONE_WAY,
    ORDERED_KINDS,
    ORDERED_ONE_WAY,
    SELECT_SHARE,
    MarginalsBudget,
    cell_weights,
    column_one_way,
    one_way_share,
    planned_rounds,
    small_one_way,
    vocabulary_shares,
)
from .options import DELTA, groups_option
from .registry import register

#: Smallest candidate marginal: 1 offers every column's 1-way marginal again (AIM's downward closure of
#: the workload), so a round may re-measure a column whose counts the model still gets wrong.
MIN_CANDIDATE_SIZE = 1
#: Every column triple of at most this many cells is a candidate too (0: none); ablation only.
TRIPLE_CELLS = 0
#: Mirror-descent iterations after each round (warm-started) and for the final model.
ROUND_ITERATIONS = 10
FINAL_ITERATIONS = 75
#: ... and when a round's measurement is noisy for the table's size: when the estimated records are at
#: most FINE_FIT_SIGNAL times its mean |noise| per cell, a fit finer than that noise changes nothing one
#: can measure (the error is the noise's and the unmeasured pairs'), so the descent stops sooner. On the
#: benchmark tables at epsilon 0.5 and 1 (records / noise 4 to 970) the 2-way TVD was level or lower with
#: these counts, in about 80% of the work; at epsilon 5 on adult (2,800 to 4,500) it rose 5 to 7%, so
#: there the full counts stay (``docs/benchmarks/history.md``, "Iterations").
NOISY_ROUND_ITERATIONS = 5
NOISY_FINAL_ITERATIONS = 40
FINE_FIT_SIGNAL = 1500
#: With a public row count (no DP count), a small table's 1-ways are measured again up to its share
#: (:func:`column_one_way`) by the first 1-ways' noisy total; False: AIM's share only (ablation).
TOP_UP = True


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
class MarginalsSynthesizer(MarginalsBudget):
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
    options = (groups_option("a column group of 2 or 3 columns, measured together and added to the workload"), DELTA)
    column_label = "1-way marginal {}"

    def __init__(
        self,
        *,
        epsilon,
        rho=constraints.RHO_DEFAULT,
        random_state=None,
        delta=None,
        groups=None,
        generation: str = "matched",
        rounds: int | None = None,
        max_model_cells: int = constraints.ENGINE_MAX_MODEL_CELLS,
        max_cells: int = constraints.ENGINE_MAX_MARGINAL_CELLS,
    ):
        super().__init__(epsilon=epsilon, rho=rho, random_state=random_state)
        self.delta = delta
        self.groups = groups
        self.generation = generation
        self.rounds = rounds
        self.max_model_cells = max_model_cells
        self.max_cells = max_cells

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
            raise ParameterError(
                f"epsilon ({self.epsilon_:g}) leaves nothing for the marginals after the steps before them"
            )

        # text columns: a CatHist vocabulary each (pure epsilon-DP), then every column is codes
        before = self._remaining()
        text_epsilon = {n: self._pure_epsilon(before * s) for n, s in vocabulary_shares(self.domain_).items()}
        self.columns_: dict[str, FiniteColumn] = {}
        for name in names:
            self.columns_[name] = finite_source_column(
                source,
                self.domain_.kept[name],
                text_epsilon=text_epsilon.get(name, 0.0),
                rho=self.rho_,
                noise=self.noise_,
                label=f"vocabulary {name}",
            )
            if name in text_epsilon:
                self._spend("CatHist", text_epsilon[name], f"vocabulary {name} (CatHist)")
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
        if TRIPLE_CELLS:  # 3-way candidates of at most TRIPLE_CELLS cells (the model's size limit still applies)
            candidates.update(
                t for t in itertools.combinations(names, 3) if math.prod(cells[a] for a in t) <= TRIPLE_CELLS
            )
        candidates = sorted(
            (c for c in candidates if math.prod(cells[a] for a in c) <= self.max_cells),
            key=lambda c: [position[a] for a in c],
        )
        weights = {c: float(sum(len(set(c) & set(s)) for s in workload)) for c in candidates}
        truth = dict(zip(candidates, table.marginals(candidates)))  # exact counts: only scores and noise read them

        rounds = (self.rounds or planned_rounds(len(names), self._dp_count())) if candidates else len(names)
        adaptive = self._remaining()
        round_budget = adaptive / rounds
        noise_param, _ = (
            self._split_round(round_budget) if candidates else self._split_round(round_budget / (1 - SELECT_SHARE))
        )
        first_param = dict.fromkeys(names, noise_param)
        if candidates:  # the 1-ways take their share (ordered columns more); the rounds keep theirs
            left = self._remaining()
            spread = dict(zip(names, cell_weights([cells[n] for n in names])))
            for name in names:
                ordered = self.columns_[name].domain.kind in ORDERED_KINDS
                share = column_one_way(
                    len(names),
                    self._dp_count(),
                    self.rounds,
                    ordered=ordered,
                    budget=left,
                    zcdp=self.zcdp_,
                    weight=spread[name],
                )
                first = left * share
                first_param[name] = math.sqrt(1 / (2 * first)) if self.zcdp_ else first
        self.measurements_: list[Measurement] = []
        self.measured_: list[dict] = []
        for name in names:
            self._measure((name,), table.marginal((name,)), first_param[name])
        for group in groups:
            self._measure(group, truth[group] if group in truth else table.marginal(group), noise_param)
        self.total_ = self._estimate_total()
        if candidates and len(names) > 1 and self._dp_count() is None:  # a public row count: the 1-ways'
            self._top_up(table, left, spread)  # small-table share by their own noisy total, as a DP count would
        if candidates and not self.rounds and self._dp_count() is None:  # a public row count: the rounds are
            round_budget = adaptive / planned_rounds(len(names), self.total_)  # planned by the 1-ways' total
        self.support_ = self._support(cells)
        fine = self.total_ > FINE_FIT_SIGNAL * self._expected_noise(self._split_round(round_budget)[0])
        round_iterations, final_iterations = (
            (ROUND_ITERATIONS, FINAL_ITERATIONS) if fine else (NOISY_ROUND_ITERATIONS, NOISY_FINAL_ITERATIONS)
        )
        model, step = estimate(
            cells, self.measurements_, self.total_, iterations=final_iterations // 3, support=self.support_
        )

        self.rounds_ = 0
        sizes = CandidateSizes(cells, candidates)  # hypothetical model sizes, worked out a round ahead
        growth = 4.0 if self.zcdp_ else 2.0
        while candidates and self._remaining() > 1e-12 * self.budget_:
            last = self._remaining() < 2 * round_budget
            if last:
                round_budget = self._remaining()
            noise_param, select_param = self._split_round(round_budget)
            used = 1 - self._remaining() / self.budget_
            limit = max(self.max_model_cells * used, model.tree.size())
            size = sizes.of(model, [m.group for m in self.measurements_])
            offered = [c for c in candidates if size[c] <= limit]
            if not offered:
                break
            if self.zcdp_:  # noise of this round's scale drawn on another thread while the round chooses: as
                # many values as the median candidate has cells (public), since values of a scale the later
                # rounds do not use are wasted CPU (the largest candidate's: 2.7 of 4.5 thousand values)
                typical = int(np.median([math.prod(cells[a] for a in c) for c in offered]))
                self.noise_.reserve_gaussian(noise_param, typical)
            penalty = self._expected_noise(noise_param)
            answers = model.project_many(offered)
            scores = score(offered, truth, answers, weights, penalty)
            sensitivity = max(weights[c] for c in offered)
            self.rounds_ += 1
            label = f"choice of marginal, round {self.rounds_}"
            chosen = offered[choose(self.noise_, scores, select_param, sensitivity, zcdp=self.zcdp_)]
            if self.zcdp_:
                self.accountant_.spend(
                    PrivacyEvent.zcdp("exponential mechanism", select_param, label, self.neighbouring)
                )
            else:
                self._spend("exponential mechanism (report noisy max)", select_param, label)
            before = model.project(chosen)
            self._report(
                0.1 + 0.85 * (1 - self._remaining() / self.budget_),
                f"Round {self.rounds_}: measuring " + " x ".join(chosen),
            )  # progress: the share of the budget spent so far
            self._measure(chosen, truth[chosen], noise_param)
            # warm start: one proportional-fitting step toward the new measurement, pooled with
            # earlier ones of the same marginal by precision; the descent then refits everything
            new = self.measurements_[-1]
            precision = sum(1 / m.sigma**2 for m in self.measurements_ if m.group == chosen)
            model = absorb(model, new, (1 / new.sigma**2) / precision)
            sizes.ahead([m.group for m in self.measurements_])  # on the other core, while this one fits
            model, step = estimate(
                cells,
                self.measurements_,
                self.total_,
                iterations=round_iterations,
                warm=model,
                step=step,
                support=self.support_,
            )
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
        self.model_, _ = estimate(
            cells,
            self.measurements_,
            self.total_,
            iterations=final_iterations,
            warm=model,
            step=step,
            support=self.support_,
        )
        if self.row_policy_.startswith("noisy"):
            self.rows_ = max(1, int(round(self.total_)))
            self.row_policy_ = (
                "noisy: the number of rows is the model's estimate of the record count, "
                "from the noisy count and the noisy marginals"
            )

    def _top_up(self, table, left: float, spread: dict) -> None:
        """Measure each column's 1-way marginal again so that, pooled by precision, it has the small-table
        share of ``left`` (:func:`small_one_way` at the 1-ways' noisy total, post-processing; each column's part
        by its ``spread`` weight, :func:`cell_weights`) when that is
        more than AIM's it got: what a DP count would have given it. Gaussian measurements pool exactly
        (precisions add). A large table's 1-ways are left as they are."""
        if not TOP_UP:
            return
        names = list(self.columns_)
        for name in names:
            ordered = self.columns_[name].domain.kind in ORDERED_KINDS
            aim = column_one_way(len(names), None, self.rounds, ordered=ordered)
            extra = left * (spread[name] * small_one_way(len(names), self.total_, left, zcdp=self.zcdp_) - aim)
            if extra > 1e-9 * left:
                self._measure((name,), table.marginal((name,)), math.sqrt(1 / (2 * extra)) if self.zcdp_ else extra)
        self.total_ = self._estimate_total()

    def _support(self, cells: dict) -> dict:
        """The cells the model may use: numeric and date columns lose the tails of their range that
        the noisy counts cannot tell from empty (:func:`dpsynth_core.pgm.support_from`); None: every cell."""
        if EMPTY_Z is None:
            return {}
        ordered, protected = range_cells(self.columns_)
        found = support_from(
            cells, self.measurements_, EMPTY_Z, ordered=ordered, limit=TAIL_SHARE * self.total_, protected=protected
        )
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
            raise ParameterError(
                f"group {group} has {size:,} cells, more than the limit of {self.max_cells:,}; "
                "declare coarser bins or leave the group out"
            )
        noisy, sigma = measure(self.noise_, counts, noise_param, zcdp=self.zcdp_, label=label)
        if self.zcdp_:
            self.accountant_.spend(
                PrivacyEvent.zcdp("discrete Gaussian histogram", 1 / (2 * noise_param**2), label, self.neighbouring)
            )
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
        count = row_count_event(self.accountant_.events)
        if count is not None:
            alpha = math.exp(-count.epsilon)
            estimates.append(float(self.rows_))
            variances.append(2 * alpha / (1 - alpha) ** 2)
        weights = 1 / np.asarray(variances)
        return max(1.0, float(np.dot(weights, estimates) / weights.sum()))

    # --- sampling -----------------------------------------------------------------------

    def _sample(self, n: int) -> pd.DataFrame:
        codes = generate(self.model_, n, self.noise_.rng, method=self.generation)
        return pd.DataFrame(
            {
                name: self.columns_[name].decode(codes[name], self.noise_).reset_index(drop=True)
                for name in self.columns_
            }
        )

    def card_details(self) -> dict:
        return {
            "privacy": (
                f"zero-concentrated DP (rho = {self.budget_:.6g}), stated as (epsilon, delta)-DP"
                if self.zcdp_
                else "pure epsilon-DP"
            ),
            "delta": self.delta_,
            "delta_rule": self.delta_rule_,
            "rounds": self.rounds_,
            "measured_marginals": self.measured_,
            "model_cliques": [list(c) for c in self.model_.tree.cliques],
            "generation": self.generation,
        }
