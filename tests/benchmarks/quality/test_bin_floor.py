"""benchmarks.quality.bin_floor: the best a release over given bins can do, noise aside: each record keeps its bins,
the values inside a bin shuffled among its records."""

import numpy as np
import pandas as pd

from benchmarks.quality import bin_floor


def test_values_are_shuffled_inside_their_bins_only():
    rng = np.random.default_rng(3)
    age = np.arange(20, 80, dtype=float)
    frame = pd.DataFrame({"age": np.append(age, np.nan), "older": np.append(age >= 50, False)})
    out = bin_floor.shuffled_within(frame, {"age": [40, 60]}, rng)
    bins = np.searchsorted([40, 60], frame["age"].to_numpy()[:-1], side="right")
    again = np.searchsorted([40, 60], out["age"].to_numpy()[:-1], side="right")
    assert (bins == again).all() and np.isnan(out["age"].iloc[-1])  # every record in its bin, the missing cell kept
    for k in range(3):
        assert sorted(out["age"][:-1][bins == k]) == sorted(frame["age"][:-1][bins == k])
    assert not out["age"].equals(frame["age"])
    # inside the bin 40-60 the tie between age and "older" (50 or more) is lost: the floor is above 0
    moved = out.loc[:59]
    assert ((moved["age"] >= 50) != moved["older"]).sum() > 0
    assert bin_floor.shuffled_within(frame, {"age": age[1:]}, rng)["age"].equals(frame["age"])  # one value a bin


def test_the_publishers_bins_are_read_from_a_cards_fitted_bins():
    card = {"adaptive_bins": [{"column": "age", "edges": [22, 30]}, {"column": "when", "edges": ["2013-01-01"]}]}
    cuts = bin_floor.publisher_cuts(card, ["age"])
    assert list(cuts) == ["age"] and cuts["age"].tolist() == [22.0, 30.0]
