"""benchmarks.common: one coded table for every method, its scores, and the codes handed to other environments."""

import itertools

import numpy as np
import pytest

from benchmarks import common


def test_coded_table_and_scores():
    codes, cells = common.coded_table("pums", 16)
    assert list(cells) == list(codes.columns) and len(codes) == 1000
    for name, n in cells.items():
        assert 0 <= codes[name].min() and codes[name].max() < n
    triples = list(itertools.combinations(cells, 3))
    assert common.scores(codes, codes.copy(), cells, triples) == {"tvd2": 0.0, "score3": 1.0}
    rng = np.random.default_rng(0)
    shuffled = codes.apply(lambda c: rng.permutation(c.to_numpy()))  # each column its own order
    assert common.scores(codes, shuffled, cells, triples)["tvd2"] > 0.05  # pairs broken, 1-ways kept
    every = common.marginal_scores(codes, shuffled, cells)  # the same distances, every triple
    assert every["tvd1_max"] < 1e-12 and every["tvd2_mean"] == common.scores(codes, shuffled, cells, triples)["tvd2"]
    assert every["score3"] == common.scores(codes, shuffled, cells, triples)["score3"]


def test_codes_survive_the_file_the_workers_read(tmp_path):
    codes, cells = common.coded_table("pums", 16)
    common.save_codes(tmp_path / "codes.npz", codes, cells)
    again, same = common.load_codes(tmp_path / "codes.npz")
    assert same == cells and again.equals(codes)


def test_a_missing_peer_names_its_requirements_file():
    with pytest.raises(SystemExit, match="requirements-bench-mbi.txt"):
        common.require("no_such_peer_module", "requirements-bench-mbi.txt")
