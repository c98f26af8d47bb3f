"""benchmarks/versus_aim.py: one coded table for every method, and its scores."""

import itertools

import numpy as np

from benchmarks import versus_aim


def test_coded_table_and_scores():
    codes, cells = versus_aim.coded_table("pums", 16)
    assert list(cells) == list(codes.columns) and len(codes) == 1000
    for name, n in cells.items():
        assert 0 <= codes[name].min() and codes[name].max() < n
    triples = list(itertools.combinations(cells, 3))
    assert versus_aim.scores(codes, codes.copy(), cells, triples) == {"tvd2": 0.0, "score3": 1.0}
    rng = np.random.default_rng(0)
    shuffled = codes.apply(lambda c: rng.permutation(c.to_numpy()))  # each column its own order
    assert versus_aim.scores(codes, shuffled, cells, triples)["tvd2"] > 0.05  # pairs broken, 1-ways kept


def test_ours_runs_on_the_codes():
    codes, cells = versus_aim.coded_table("pums", 16)
    synthetic, seconds = versus_aim.ours(codes.head(300), cells, 1.0, 1e-9, 0)
    assert list(synthetic.columns) == list(cells) and seconds > 0
    assert all(synthetic[n].between(0, cells[n] - 1).all() for n in cells)
