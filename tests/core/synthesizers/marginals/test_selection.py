"""AIM's selection: the score and the private choice, audited."""

import math

import numpy as np

from dpsynth_core.data.counting import CodedTable
from dpsynth_core.privacy.noise import make_noise_source
from dpsynth_core.synthesizers.marginals.selection import choose, score
from tests.audit import audit

# Selection: two candidate pairs scored against a fixed public model (2 per cell). On D the
# pair (a, c) is worse answered; the added record makes both equally bad.
_ROWS = [(0, 0, 0), (0, 0, 0), (0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)]


_D = CodedTable({k: np.array([r[i] for r in _ROWS]) for i, k in enumerate("abc")}, dict.fromkeys("abc", 2), 8)


_ROWS2 = _ROWS + [(0, 0, 1)]


_D2 = CodedTable({k: np.array([r[i] for r in _ROWS2]) for i, k in enumerate("abc")}, dict.fromkeys("abc", 2), 9)


_CANDIDATES = [("a", "b"), ("a", "c")]


SELECT_RHO = 1 / 8  # exponential mechanism with eps = sqrt(8 rho) = 1: (1, 0)-DP as well


def _selection(table, seed, broken=False, support=None):
    truth = {c: table.marginal(c) for c in _CANDIDATES}
    answers = {c: np.full((2, 2), 2.0) for c in _CANDIDATES}
    weights = {c: 3.0 for c in _CANDIDATES}
    scores = score(_CANDIDATES, truth, answers, weights, penalty=0.0, support=support)
    if broken:
        return int(np.argmax(scores))  # the true best, no noise
    return choose(make_noise_source(seed), scores, SELECT_RHO, sensitivity=3.0, zcdp=True)


_SELECT_EVENTS = {"(a, b) chosen": lambda i: i == 0, "(a, c) chosen": lambda i: i == 1}


def test_audit_selection_passes():
    eps = math.sqrt(8 * SELECT_RHO)
    assert not audit(_selection, _D, _D2, _SELECT_EVENTS, trials=3000, seed=5).violates(eps)


def test_audit_selection_over_the_models_support_passes():
    """The score counted on the cells the model may use (a public support: here c's second cell is out, the cell
    the added record lands in) moves by at most the weight too: the same guarantee."""
    eps = math.sqrt(8 * SELECT_RHO)
    support = {"c": np.array([True, False])}
    run = lambda t, s: _selection(t, s, support=support)  # noqa: E731
    assert not audit(run, _D, _D2, _SELECT_EVENTS, trials=3000, seed=7).violates(eps)


def test_the_score_counts_only_the_cells_the_model_may_use():
    """AIM's penalty is the noise a measurement adds to each cell; a cell outside the model's support never takes it,
    and its records no round brings back, so neither term counts it: a long declared list of which the noisy
    1-way kept 2 cells is scored as a 2-cell marginal, not a 249-cell one."""
    from dpsynth_core.synthesizers.marginals.selection import used_cells

    truth = {("a",): np.r_[900.0, 80.0, np.zeros(247)], ("a", "b"): np.ones((249, 3))}
    model = {("a",): np.r_[900.0, 0.0, np.zeros(247)], ("a", "b"): np.zeros((249, 3))}
    weights = dict.fromkeys(truth, 1.0)
    kept = {"a": np.r_[True, True, np.zeros(247, bool)]}
    assert score(list(truth), truth, model, weights, 2.0) == [80.0 - 2.0 * 249, 3 * 249 - 2.0 * 3 * 249]
    assert score(list(truth), truth, model, weights, 2.0, kept) == [80.0 - 2.0 * 2, 6 - 2.0 * 6]
    assert used_cells(("a", "b"), {"a": 249, "b": 3}, kept) == 6 and used_cells(("b",), {"b": 3}, kept) == 3


def test_a_column_declared_by_a_long_list_is_measured_with_the_others(monkeypatch):
    """adult_test's 16,281 records with the country declared by the world's 249 countries (40 hold records), epsilon
    1: scored on every cell, the country's 1-way and pairs took AIM's penalty for noise on 249 cells the model never
    uses, so no round measured it with another column and only the United States and Mexico came out (seeds 0-2,
    one of them the United States alone). Scored on the cells the model may use, 6 to 10 pairs hold it; how many
    countries then come out is for the support's tests of each country's noisy count to say (2 to 9 over seeds 0-5,
    with the United States and Mexico in every release)."""
    import pandas as pd

    from dpsynth_core import synthesize
    from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer, selection
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("adult_test.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("adult_test")
    spec["columns"]["native-country"] = {"type": "categorical", "list": "countries"}
    measured = []
    original = MarginalsSynthesizer._measure

    def recorded(self, group, *args, **kwargs):
        measured.append(tuple(group))
        return original(self, group, *args, **kwargs)

    monkeypatch.setattr(MarginalsSynthesizer, "_measure", recorded)

    def release():
        measured.clear()
        out = synthesize(frame, spec, 1.0, random_state=0).data
        return sum("native-country" in g and len(g) > 1 for g in measured), out["native-country"].nunique()

    pairs, countries = release()
    assert pairs >= 3 and countries >= 2, (pairs, countries)
    monkeypatch.setattr(selection, "SUPPORTED_SCORE", False)
    assert release()[0] == 0


def test_audit_catches_selection_without_noise():
    eps = math.sqrt(8 * SELECT_RHO)
    assert audit(lambda t, s: _selection(t, s, True), _D, _D2, _SELECT_EVENTS, trials=300, seed=6).violates(eps)


# --- wide tables: the offer, the weights, the batches -------------------------------------------


def test_the_weights_in_one_pass_are_the_workload_overlaps():
    """``w_r = sum over s of |r & s|``, computed from each column's count of workload groups: the same numbers."""
    from dpsynth_core.synthesizers.marginals.selection import candidates, weights, workload

    names = [f"c{i}" for i in range(9)]
    work = workload(names, [("c0", "c3", "c5"), ("c2", "c7")])
    offered = candidates(names, work, dict.fromkeys(names, 3), max_cells=10**6)
    brute = {c: float(sum(len(set(c) & set(s)) for s in work)) for c in offered}
    assert weights(offered, work) == brute


def test_a_narrow_table_offers_every_candidate_and_draws_nothing_a_wide_one_a_public_sample():
    from dpsynth_core.synthesizers.marginals import selection

    names = [f"c{i}" for i in range(70)]  # 2,415 pairs: more than OFFERED_PAIRS
    work = selection.workload(names, [("c1", "c2", "c3")])
    offered = selection.candidates(names, work, dict.fromkeys(names, 2), max_cells=10**6)
    narrow = offered[:500]
    rng = np.random.default_rng(4)
    state = rng.bit_generator.state
    assert selection.Offers(narrow, [], rng).next() is narrow and rng.bit_generator.state == state
    offers = selection.Offers(offered, [("c1", "c2", "c3")], rng)
    first, second = offers.next(), offers.next()
    pairs = [c for c in first if len(c) == 2 and not set(c) <= {"c1", "c2", "c3"}]
    assert len(pairs) == selection.OFFERED_PAIRS and first != second
    # every column, and the publisher's group with its sub-groups, every round; in the candidates' order
    assert {c for c in offered if len(c) != 2 or set(c) <= {"c1", "c2", "c3"}} <= set(first)
    assert first == [c for c in offered if c in set(first)]


def test_a_batch_takes_candidates_apart_from_the_chosen_and_within_the_size_left():
    from dpsynth_core.synthesizers.marginals.selection import Batch, batch_size

    assert batch_size(64) == 1 and batch_size(300) == 38 and batch_size(1500) == 188
    allowed = [("a",), ("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")]
    size = {("a",): 10, ("a", "b"): 12, ("b", "c"): 30, ("c", "d"): 14, ("d", "e"): 12}
    taking = Batch(allowed, [1, 2, 3, 4, 5], size, base=10, limit=20)
    assert taking.open().tolist() == [0, 1, 2, 3, 4]
    assert taking.take(1) == ("a", "b")  # grows the model by 2 of the 10 cells of room
    assert [allowed[i] for i in taking.open()] == [("c", "d"), ("d", "e")]  # ("b", "c") shares b, and is too large
    taking.take(3)
    assert not len(taking.open()) and taking.chosen == [("a", "b"), ("c", "d")]


def test_pairs_counted_in_blocks_equal_pairs_counted_alone():
    from dpsynth_core.synthesizers.marginals.selection import Truth

    rng = np.random.default_rng(0)
    cells = {f"c{i}": int(k) for i, k in enumerate(rng.integers(2, 6, 7))}
    table = CodedTable({n: rng.integers(0, k, 300) for n, k in cells.items()}, cells, 300)
    pairs = [("c0", "c3"), ("c1", "c2"), ("c4", "c6"), ("c0", "c1"), ("c5", "c6")]
    for pair, counts in zip(pairs, table.marginals(pairs)):
        np.testing.assert_array_equal(counts, table.marginal(pair))
    truth = Truth(table, list(cells))
    truth.of(pairs)
    assert ("c0", "c2") in truth and ("c1", "c3") in truth  # the companions of ("c0", "c3"), counted with it
    for pair, counts in truth.items():
        np.testing.assert_array_equal(counts, table.marginal(pair))
    # the release's column order need not be the table's (text columns join the table last): the companions
    # are the table's blocks, named in the release's order
    order = ["c6", "c0", "c1", "c2", "c3", "c4", "c5"]
    truth = Truth(table, order)
    truth.of([("c6", "c3"), ("c0", "c1")])
    assert ("c6", "c2") in truth and ("c2", "c6") not in truth  # c6 (alone in the table's last couple) with c2, c3
    for pair, counts in truth.items():
        np.testing.assert_array_equal(counts, table.marginal(pair))
