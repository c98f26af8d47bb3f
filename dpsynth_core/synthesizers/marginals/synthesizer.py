"""The default method: adaptively chosen DP marginals, fitted into one graphical model (AIM).

Algorithm (McKenna, Mullins, Sheldon and Miklau, "AIM: an adaptive and iterative mechanism for differentially
private synthetic data", VLDB 2022, Algorithm 2), over the declared cells:

1. measure every column's 1-way marginal (a numeric or date column's at ``ORDERED_ONE_WAY`` times the budget of
   another's, with a heavy adaptive bin at the data's edge in halves, :mod:`.edge_halves`; a survey question's
   columns each with whether the record answered any of them, :mod:`.blocks`) and every publisher group's joint table;
2. in rounds, choose one marginal among the *candidates* (every column, every column pair, and every publisher group
   and its sub-groups: AIM's downward closure of the workload, so a round may measure a column again; and a survey
   question's hidden column with each other column, :mod:`.blocks`) by the exponential mechanism, scored by ``w_r *
   (|M_r(data) - M_r(model)|_1 - expected |noise| of measuring r)``: how badly the current model answers the
   marginal, less the noise its measurement would add, weighted by how much of the workload (all column pairs plus
   the publisher's groups) it covers, ``w_r = sum over workload groups s of |r & s|``. Only candidates that keep the
   model within its size limit (growing with the budget used) are offered;
3. measure the chosen marginal with noise (a small table's pair over merged bins, :mod:`.pair_cells`), fit the
   graphical model (Private-PGM, :mod:`dpsynth_core.pgm`: one proportional-fitting step toward the new measurement,
   then mirror descent from there) to every measurement so far and to the adaptive columns' bins as their leaf
   counts sum them (:func:`.measurements.leaf_sums`), and when the fit moved the chosen marginal by less than the
   noise expected, quadruple the per-round budget (annealing); the last round spends exactly what is left;
4. generate records from the model (:func:`dpsynth_core.pgm.generate`), a range's end bins by :func:`.end_laws`.

Guarantee, under adding or removing one record: with ``delta > 0`` (the default), rho-zCDP composed over the row
count and text vocabularies (pure epsilon-DP events, each costing ``eps**2 / 2``), every measurement (discrete
Gaussian on counts of L2 sensitivity 1: ``1 / (2 sigma**2)``) and every choice (exponential mechanism, score
sensitivity ``max w_r``: ``eps**2 / 8``), stated as (epsilon, delta)-DP with OpenDP's conversion, rho being
calibrated so that epsilon is exactly the publisher's. With ``delta = 0``, pure epsilon-DP by basic composition:
discrete Laplace measurements and report-noisy-max choices. Must be declared in advance: every column's domain, and
optionally column groups.

The fit follows these steps, one method each (:meth:`MarginalsSynthesizer._fit`). Its budget is :mod:`.budget`'s,
each round's choice :mod:`.selection`'s, and a measurement, what the measurements imply and how finely the model is
fitted to them :mod:`.measurements`'.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import constraints
from ...data.arrow_chunks import arrow_table
from ...domain import as_table_domain
from ...errors import ParameterError
from ...pgm import Measurement, absorb, estimate, generate
from ...pgm.sizes import CandidateSizes
from ...privacy.accounting import PrivacyEvent
from ...privacy.spending import Spend
from ..base import Synthesizer
from ..charges import GAUSSIAN, HISTOGRAM, VOCABULARY, ZCDP, row_count_event
from ..finite import FiniteColumn, finite_source, finite_source_column, vocabulary_shares
from ..options import DELTA, delta_note, delta_of, delta_rule, groups_option
from ..registry import register
from . import blocks, budget, selection
from .blocks import Blocks
from .budget import (
    ORDERED_KINDS,
    SELECT_SHARE,
    cell_weights,
    check_width,
    column_noise,
    column_one_way,
    expected_noise,
    planned_rounds,
    pure_epsilon,
    row_charge,
    row_plan,
    small_one_way,
    split_round,
    total_budget,
)
from .edge_halves import measure_halves
from .measurements import check_cells, descent_iterations, end_laws, estimate_total, leaf_sums, measure, support
from .notes import noise_level_notes
from .pair_cells import merged_counts, movement, pair_maps, range_maps
from .selection import candidates, check_groups, choose, in_column_order, score, weights, workload


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
        delta: the guarantee's delta; None (default): the public ``constraints.DELTA_DEFAULT``; 0: pure epsilon-DP.
        groups: optional publisher column groups (tuples of 2 or 3 names): measured first and added to the workload.
        generation: ``"matched"`` (default: every clique's counts within one record of the model's) or ``"iid"``.
        rounds: rounds the budget is first divided into (default :func:`~.budget.planned_rounds`: 16
            per column, down to 8 for a large table).
        max_model_cells: most cells the model's cliques may hold in all.
        max_cells: most cells of one measured marginal.
    """

    row_count_share = constraints.MARGINALS_ROW_COUNT_SHARE
    guarantee = ZCDP  # stated as (epsilon, delta)-DP; pure epsilon-DP with delta = 0
    options = (groups_option("a column group of 2 or 3 columns, measured together and added to the workload"), DELTA)
    column_label = "1-way marginal {}"
    reads_sources = True
    short_ranges = True

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
        max_model_cells: int = constraints.MARGINALS_MAX_MODEL_CELLS,
        max_cells: int = constraints.MARGINALS_MAX_MARGINAL_CELLS,
    ):
        super().__init__(epsilon=epsilon, rho=rho, random_state=random_state)
        self.delta, self.groups, self.generation, self.rounds = delta, groups, generation, rounds
        self.max_model_cells, self.max_cells = max_model_cells, max_cells

    # --- the charge, before any data is read (:mod:`.budget`) -----------------------------

    @classmethod
    def binning_rho(cls, epsilon: float, *, delta=None, **options) -> float | None:
        """Under zCDP (``delta > 0``) the release's rho, against which the bins are priced."""
        delta = delta_of(delta)
        return total_budget(epsilon, delta) if delta > 0 else None

    @classmethod
    def _row_charge(cls, domain, epsilon, *, rows=None, delta=None, groups=None, **options) -> Spend:
        """Row count and bins as every method spends them, then :func:`~.budget.row_charge`. Refused up
        front past :data:`~dpsynth_core.constraints.MARGINALS_MAX_COLUMNS` kept columns."""
        check_width(as_table_domain(domain))  # the measured declaration: the pricing entry points pass it
        delta = delta_of(delta)
        common, _ = cls._common_events(domain, epsilon, rows, delta=delta)
        return row_charge(domain, epsilon, common, delta=delta, neighbouring=cls.neighbouring)

    @classmethod
    def _row_plan(cls, domain, epsilon, *, rows=None, expected_rows=None, **options) -> dict:
        spend = cls._row_charge(domain, epsilon, rows=rows, **options)
        return row_plan(as_table_domain(domain), epsilon, spend, rows=rows, expected_rows=expected_rows)

    @classmethod
    def column_noise(cls, domain, epsilon, *, rows=None, expected_rows=None, **options) -> dict:
        """:func:`~.budget.column_noise`: a column's 1-way marginal in the plan, or a text column's vocabulary."""
        domain = as_table_domain(domain).measured()
        spend = cls._row_charge(domain, epsilon, rows=rows, **options)
        return column_noise(domain, epsilon, spend, rows=rows, expected_rows=expected_rows)

    @classmethod
    def column_mechanism(cls, column, *, delta=None, **options) -> str:
        return VOCABULARY if column.kind == "text" else GAUSSIAN if delta_of(delta) > 0 else HISTOGRAM

    @classmethod
    def privacy_note(cls, domain, epsilon, *, rows=None, delta=None, **options):
        level, text = delta_note(delta_of(delta), getattr(as_table_domain(domain).person, "max_rows", 1))  # a row's
        return level, "\n\n".join(filter(None, [text, blocks.plan_words(as_table_domain(domain).measured())]))

    # --- fitting, step by step ------------------------------------------------------------

    def _fit(self, source, epsilon: float) -> None:  # a counting source (dpsynth_core.engines)
        if self.generation not in ("matched", "iid"):
            raise ParameterError(f"generation ({self.generation!r}) must be 'matched' or 'iid'")
        names = list(self.domain_.kept)
        groups = in_column_order(names, check_groups(self.groups, names))  # refused before anything is spent
        self._open_budget()
        table = self._measure_vocabularies(source, names)
        self.blocks_ = Blocks(table, self.columns_)  # a survey's questions: who skipped each, kept whole
        cells = self.cells_ = {**{n: self.columns_[n].cells for n in names}, **self.blocks_.cells}
        work = workload(names, groups)
        hidden, weighed = self.blocks_.candidates(names, work)  # each question's skips, with the other columns
        offered = candidates(names, work, cells, max_cells=self.max_cells) + hidden
        truth = selection.Truth(self.blocks_.counts, list(cells))  # exact counts: for scores and noise only
        round_budget = self._measure_first(source, table, names, groups, offered, truth)
        self.leaf_sums_ = leaf_sums(self.columns_, getattr(self, "bins_", ()))  # the bins' counts, for the fit
        self.support_ = self._support()
        self.maps_ = range_maps(self.columns_, self.blocks_.collapsed(self.measurements_), self.cells_, self.support_)
        noise = expected_noise(split_round(round_budget, zcdp=self.zcdp_)[0], zcdp=self.zcdp_)
        round_iterations, final_iterations = descent_iterations(self.total_, noise)
        model, step = estimate(
            cells,
            self.measurements_ + self.leaf_sums_,
            self.total_,
            iterations=final_iterations // 3,
            support=self.support_,
        )
        offers = selection.Offers(offered, groups, self.noise_.rng)
        weighed = {**weights(offered, work), **weighed}
        model, step = self._rounds(model, step, offers, truth, weighed, round_budget, round_iterations)
        self._final_model(table, names, model, step, final_iterations)

    def _open_budget(self) -> None:
        """The guarantee's delta, and the budget the release spends in all (rho, or epsilon with delta 0)."""
        self.delta_ = delta_of(self.delta)
        self.delta_rule_ = delta_rule(self.delta, self.delta_)
        self.zcdp_ = self.delta_ > 0
        if self.zcdp_:
            self.accountant_.delta = self.delta_
        # under zCDP a hair below the target, so floating-point sums never state more than epsilon
        self.budget_ = total_budget(self.epsilon_, self.delta_)
        if self._remaining() <= 0:
            raise ParameterError(
                f"epsilon ({self.epsilon_:g}) leaves nothing for the marginals after the steps before them"
            )

    def _measure_vocabularies(self, source, names):
        """Text columns: a CatHist vocabulary each (pure epsilon-DP); returns the table, every column as codes."""
        before = self._remaining()
        text_epsilon = {
            n: pure_epsilon(before * s, zcdp=self.zcdp_) for n, s in vocabulary_shares(self.domain_).items()
        }
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
        return finite_source(source, self.columns_)

    def _measure_first(self, source, table, names, groups, offered, truth) -> float:
        """Every column's 1-way marginal (an ordered column's, and a small table's, at their larger shares) and
        every publisher group, then the record count they estimate; returns the rounds' first budget."""
        cells = self.cells_
        rounds = (self.rounds or planned_rounds(len(names), self._dp_count())) if offered else len(names)
        adaptive = self._remaining()
        round_budget = adaptive / rounds
        # without candidates every round is a measurement (no choice): its whole budget measures
        noise_param, _ = split_round(round_budget if offered else round_budget / (1 - SELECT_SHARE), zcdp=self.zcdp_)
        first_param = dict.fromkeys(names, noise_param)
        if offered:  # the 1-ways take their share (ordered columns more); the rounds keep theirs
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
            group, counts = self.blocks_.own(table, name)
            if not (group == (name,) and measure_halves(self, source, name, counts, first_param[name])):
                self._measure(group, counts, first_param[name])
        for group in groups:
            self._measure(group, truth.of([group])[group], noise_param)
        self.total_ = self._estimate_total()
        if offered and len(names) > 1 and self._dp_count() is None:  # a public row count: the 1-ways'
            self._top_up(table, left, spread)  # small-table share by their own noisy total, as a DP count would
        if offered and not self.rounds and self._dp_count() is None:  # a public row count: the rounds are
            round_budget = adaptive / planned_rounds(len(names), self.total_)  # planned by the 1-ways' total
        return round_budget

    def _top_up(self, table, left: float, spread: dict) -> None:
        """Measure each column's 1-way marginal again so that, pooled by precision, it has the small-table
        share of ``left`` (:func:`~.budget.small_one_way` at the 1-ways' noisy total, post-processing; each
        column's part by its ``spread`` weight, :func:`~.budget.cell_weights`) when that is
        more than AIM's it got: what a DP count would have given it. Gaussian measurements pool exactly
        (precisions add). A large table's 1-ways are left as they are."""
        if not budget.TOP_UP:
            return
        names = list(self.columns_)
        for name in names:
            ordered = self.columns_[name].domain.kind in ORDERED_KINDS
            aim = column_one_way(len(names), None, self.rounds, ordered=ordered)
            extra = left * (spread[name] * small_one_way(len(names), self.total_, left, zcdp=self.zcdp_) - aim)
            if extra > 1e-9 * left:
                self._measure(*self.blocks_.own(table, name), math.sqrt(1 / (2 * extra)) if self.zcdp_ else extra)
        self.total_ = self._estimate_total()

    def _rounds(self, model, step, offers, truth, weights, round_budget, iterations):
        """AIM's rounds: choose marginals privately among each round's offer (:func:`~.selection.offer`), one a
        round (a wide table: :func:`~.selection.batch_size`, each its own choice), measure them, refit the model;
        anneal the round's budget until the last round spends what is left. Returns the model and its step."""
        cells, self.rounds_, batch = self.cells_, 0, selection.batch_size(len(self.cells_))
        offered = offers.next()
        sizes = CandidateSizes(cells, offered)  # hypothetical model sizes, worked out a round ahead
        growth = 4.0 if self.zcdp_ else 2.0
        while offered and self._remaining() > 1e-12 * self.budget_:
            last = self._remaining() < 2 * batch * round_budget
            if last:
                round_budget = self._remaining() / batch
            noise_param, select_param = split_round(round_budget, zcdp=self.zcdp_)
            limit = max(self.max_model_cells * (1 - self._remaining() / self.budget_), model.tree.size())
            size = sizes.of(model, [m.group for m in self.measurements_], offered)
            allowed = [c for c in offered if size[c] <= limit]
            if not allowed:
                break
            if self.zcdp_:  # this round's noise drawn on another thread while it chooses: the median candidate's cells
                typical = int(np.median([math.prod(cells[a] for a in c) for c in allowed]))
                self.noise_.reserve_gaussian(noise_param, typical)
            penalty = expected_noise(noise_param, zcdp=self.zcdp_)
            answers = model.project_many(allowed)
            used = self.support_ if selection.SUPPORTED_SCORE else {}  # the cells the model may use
            maps = {c: pair_maps(self, c, noise_param) for c in allowed}  # a pair over merged bins (:mod:`.pair_cells`)
            scores = score(allowed, truth.of(allowed), answers, weights, penalty, used, maps)
            sensitivity = max(weights[c] for c in allowed)
            taking = selection.Batch(allowed, scores, size, model.tree.size(), limit)
            while len(taking.chosen) < batch and len(open_ := taking.open()):
                self.rounds_ += 1
                label = f"choice of marginal, round {self.rounds_}"
                pick = choose(self.noise_, taking.scores[open_], select_param, sensitivity, zcdp=self.zcdp_)
                self._charge("exponential mechanism", "exponential mechanism (report noisy max)", select_param, label)
                taking.take(open_[pick])
            chosen = taking.chosen
            before, potentials = [model.project(c) for c in chosen], dict(model.potentials)
            for c in chosen:
                progress = 0.1 + 0.85 * (1 - self._remaining() / self.budget_)  # the share of the budget spent
                self._report(progress, f"Round {self.rounds_}: measuring " + " x ".join(c))
                self._measure(c, truth[c], noise_param, maps[c])
                # warm start: a proportional-fitting step toward it, pooled with earlier ones by precision
                new = self.measurements_[-1]
                precision = sum(1 / float(np.max(m.sigma)) ** 2 for m in self.measurements_ if m.group == c)
                potentials[c] = absorb(model, new, (1 / new.sigma**2) / precision)[c]
            offered = offers.next()  # the next round's, so its sizes start now
            sizes.ahead([m.group for m in self.measurements_], offered)  # on the other core, while this one fits
            model, step = estimate(
                cells,
                self.measurements_ + self.leaf_sums_,
                self.total_,
                iterations=iterations,
                warm=potentials,
                step=step,
                support=self.support_,
            )
            moved = movement(model, chosen, before, maps)  # each over the cells it was measured on
            if moved <= penalty * sum(selection.used_cells(c, cells, used, maps[c]) for c in chosen):
                round_budget *= growth
            round_budget = min(round_budget, self._remaining() / batch)
            if last:
                break
        return model, step

    def _final_model(self, table, names, model, step, iterations: int) -> None:
        """What no round could spend re-measures the columns; the model is fitted to every measurement, and a
        noisy row count gives way to the model's estimate of the records."""
        if self._remaining() > 1e-9 * self.budget_:  # no candidate left to offer: the rest re-measures the columns
            share = self._remaining() / len(names)
            noise_param = math.sqrt(1 / (2 * share)) if self.zcdp_ else share
            for name in names:
                self._measure(*self.blocks_.own(table, name), noise_param)
        self.total_ = self._estimate_total()
        self.support_ = self._support()
        self.model_, _ = estimate(
            self.cells_,
            self.measurements_ + self.leaf_sums_,
            self.total_,
            iterations=iterations,
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

    # --- the pieces the steps share -------------------------------------------------------

    def _dp_count(self) -> float | None:
        """A DP count of the records (the row count's, or the one that set delta), None if none was made."""
        counted = row_count_event(self.accountant_.events) is not None
        return float(self.rows_) if counted else getattr(self, "count_", None)

    def _remaining(self) -> float:
        return self.budget_ - (self.accountant_.rho() if self.zcdp_ else self.accountant_.basic()[0])

    def _measure(self, group: tuple, counts: np.ndarray, noise_param: float, maps=None) -> None:
        label = f"marginal {' x '.join(group)}"
        check_cells(group, counts, self.max_cells)
        counts = merged_counts(counts, maps)  # with maps, a pair's merged cells (:mod:`.pair_cells`)
        noisy, sigma = measure(self.noise_, counts, noise_param, zcdp=self.zcdp_, label=label)
        self.blocks_.clear_structural(group, noisy)  # cells empty in every table (a skipped question's)
        cost = 1 / (2 * noise_param**2) if self.zcdp_ else noise_param
        self._charge("discrete Gaussian histogram", "discrete Laplace histogram", cost, label)
        self.measurements_.append(Measurement(group, noisy.astype(float), sigma, maps))
        self.measured_.append({"marginal": list(group), ("sigma" if self.zcdp_ else "epsilon"): noise_param})
        if maps is not None:  # the cells it was measured over, merged
            self.measured_[-1]["cells"] = list(noisy.shape)

    def _charge(self, zcdp_mechanism: str, pure_mechanism: str, cost: float, label: str) -> None:
        """Record a spend of ``cost``: rho under zCDP, else epsilon (pure DP)."""
        if not self.zcdp_:
            return self._spend(pure_mechanism, cost, label)
        self.accountant_.spend(PrivacyEvent.zcdp(zcdp_mechanism, cost, label, self.neighbouring))

    def _estimate_total(self) -> float:
        """The record count, by inverse-variance weighting (:func:`~.measurements.estimate_total`; a block column's
        pair read as its 1-way, :meth:`~.blocks.Blocks.collapsed`)."""
        measured = self.blocks_.collapsed(self.measurements_)
        return estimate_total(measured, row_count_event(self.accountant_.events), self.rows_)

    def _support(self) -> dict:
        """The cells the model may use (:func:`~.measurements.support`, with the blocks' structure)."""
        measured, bins = self.blocks_.collapsed(self.measurements_), getattr(self, "bins_", ())
        found = support(self.columns_, self.cells_, measured, self.total_, bins)
        return self.blocks_.supported(found, self.measurements_)

    # --- sampling -----------------------------------------------------------------------

    def _sample(self, n: int) -> pd.DataFrame:
        return pd.DataFrame({c: v.series() for c, v in self._decoded(n).items()}, copy=False)  # not one block

    def _sample_arrow(self, n: int):
        return arrow_table({name: values.arrow() for name, values in self._decoded(n).items()})

    def _decoded(self, n: int) -> dict:
        """``n`` records drawn from the model, each column decoded (a Series or Arrow alike; :func:`.end_laws`)."""
        codes, tilts = generate(self.model_, n, self.noise_.rng, method=self.generation), end_laws(self)
        return {a: self.columns_[a].decoded(codes.pop(a), self.noise_, tilts.get(a, ())) for a in self.columns_}

    def release_notes(self) -> list[str]:  # and the declared values kept on counts no clearer than the noise
        return [*super().release_notes(), *noise_level_notes(self)]

    def card_details(self) -> dict:
        zcdp = f"zero-concentrated DP (rho = {self.budget_:.6g}), stated as (epsilon, delta)-DP"
        return {
            "privacy": zcdp if self.zcdp_ else "pure epsilon-DP",
            "delta": self.delta_,
            "delta_rule": self.delta_rule_,
            "rounds": self.rounds_,
            "measured_marginals": self.measured_,
            "model_cliques": [list(c) for c in self.model_.tree.cliques],
            "question_blocks": self.blocks_.described(),
            "generation": self.generation,
        }
