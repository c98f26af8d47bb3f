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


def _selection(table, seed, broken=False):
    truth = {c: table.marginal(c) for c in _CANDIDATES}
    answers = {c: np.full((2, 2), 2.0) for c in _CANDIDATES}
    weights = {c: 3.0 for c in _CANDIDATES}
    scores = score(_CANDIDATES, truth, answers, weights, penalty=0.0)
    if broken:
        return int(np.argmax(scores))  # the true best, no noise
    return choose(make_noise_source(seed), scores, SELECT_RHO, sensitivity=3.0, zcdp=True)


_SELECT_EVENTS = {"(a, b) chosen": lambda i: i == 0, "(a, c) chosen": lambda i: i == 1}


def test_audit_selection_passes():
    eps = math.sqrt(8 * SELECT_RHO)
    assert not audit(_selection, _D, _D2, _SELECT_EVENTS, trials=3000, seed=5).violates(eps)


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
