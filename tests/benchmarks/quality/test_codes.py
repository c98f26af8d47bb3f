"""benchmarks.quality.codes: codes declared 0-100 beside numbers declared ten times wider, from a checkout laid out as
Rdatasets' (the repository's copy of compas), scored by the rows a release puts outside a code's real range and at a
code no record holds."""

import pandas as pd
import pytest

from benchmarks.quality import codes
from dpsynth_core.domain import TableDomain
from tests.conftest import shared_path


def test_a_code_is_declared_0_to_100_and_every_other_number_ten_times_wider():
    frame = pd.DataFrame(
        {
            "rownames": range(1, 9),
            "id": range(101, 109),  # increasing, no repeat: an id, left out
            "visits": [0, 1, 2, 1, 0, 3, 1, 2],  # a code or a count: declared 0-100
            "income": [230, 350, 410, 580, 620, 190, 770, 300],  # beyond 100: ten times its rounded range
            "change": [-3.5, 2.0, 0.5, 1.5, -1.0, 4.0, 0.0, 2.5],  # across 0: widened on both sides
            "group": list("abababab"),
            "flag": [True, False] * 4,  # a bool: left out
        }
    )
    kept, spec, found = codes.declare(frame)
    columns = spec["columns"]
    assert list(kept) == list(columns) == ["visits", "income", "change", "group"] and found == ["visits"]
    assert columns["visits"] == {"type": "integer", "min": 0, "max": 100}
    assert columns["income"] == {"type": "integer", "min": 150, "max": 6650}  # 150-800, ten times as wide
    assert columns["change"]["min"] < -30 and columns["change"]["max"] > 30
    TableDomain.from_json(spec)


def test_rows_outside_a_codes_real_range_and_at_a_code_no_record_holds_are_scored():
    real = pd.DataFrame({"a": [1, 2, 2, 4], "b": [0, 0, 1, 1]})
    synthetic = pd.DataFrame({"a": [1, 3, 7, 2], "b": [0, 1, 1, 5]})  # 3: held by no record; 7 and 5: outside
    assert codes.score(real, synthetic, ["a", "b"]) == (0.5, 0.25)


def test_rows_outside_are_split_by_whether_their_bin_also_holds_records():
    """Bins of a: 0-2, 3-5, 6-100 (real values 1, 2, 2, 4); b counted value by value (real 0 and 1). a's 7 lies in a bin
    holding no record; b's 5 is a value no record holds; 3 is inside the real range, so not outside at all. A row
    with a 0 in a's bin 0-2 is outside (below 1) in a bin that also holds records."""
    real = pd.DataFrame({"a": [1, 2, 2, 4], "b": [0, 0, 1, 1]})
    synthetic = pd.DataFrame({"a": [0, 3, 7, 2], "b": [0, 1, 1, 5]})
    assert codes.outside_by_bin(real, synthetic, ["a", "b"], {"a": [0, 3, 6]}) == (0.25, 0.5)
    assert codes.outside_by_bin(real, synthetic, ["a"], {"a": [0, 3, 6]}) == (0.25, 0.25)


def test_tables_are_drawn_from_a_checkout_and_a_missing_one_is_named(tmp_path):
    folder = tmp_path / "csv" / "fairness"
    folder.mkdir(parents=True)
    kept = ["sex", "age", "race", "juv_fel_count", "juv_misd_count", "priors_count", "c_charge_degree", "is_recid"]
    pd.read_csv(shared_path("compas.csv"))[kept].to_csv(folder / "compas.csv", index=False)
    ((name, frame, spec, found),) = codes.tables(tmp_path, 3)
    assert name == "fairness/compas" and len(frame) == 1000 and "juv_fel_count" in found
    assert all(spec["columns"][c] == {"type": "integer", "min": 0, "max": 100} for c in found)
    with pytest.raises(SystemExit, match="checkout of Rdatasets"):
        codes.tables(tmp_path / "nowhere", 3)
