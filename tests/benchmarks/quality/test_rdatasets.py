"""benchmarks.quality.rdatasets: the declarations written as a codebook would print them, and a release scored from
a checkout laid out as Rdatasets' (the repository's copy of palmerpenguins' table, with Rdatasets' row names)."""

import json

import pandas as pd
import pytest

from benchmarks.common import DATASETS
from benchmarks.quality import rdatasets
from dpsynth_core.domain import TableDomain
from tests.benchmarks.checkouts import penguins_checkout


def test_ranges_are_rounded_outward_to_half_a_power_of_ten_of_their_span():
    assert rdatasets.documented_range(1994, 2016) == (1990, 2020)
    assert rdatasets.documented_range(0.013, 0.93) == (0.0, 0.95)
    assert rdatasets.documented_range(172, 231) == (170, 235)  # span 59: steps of 5
    assert rdatasets.documented_range(3, 3) == (2, 4)


def test_columns_are_declared_as_a_codebook_would_and_ids_and_free_text_left_out():
    frame = pd.DataFrame(
        {
            "rownames": range(1, 9),
            "id": range(101, 109),  # increasing, no repeat: an id
            "kids": [0, 1, 2, 1, 0, 3, 1, 2],  # 4 whole-number values: a category
            "age": [23, 35, 41, 58, 62, 19, 77, 30],
            "share": [0.1, 0.25, 0.5, 0.3, 0.9, 0.02, 0.4, 0.6],
            "name": list("abcdefgh"),  # 8 values of 8 rows: kept, a category
            "same": [1] * 8,  # one value: left out
            "smoker": [True, False, True, None, False, True, False, True],
        }
    )
    kept, spec = rdatasets.declare(frame)
    columns = spec["columns"]
    assert list(kept) == list(columns) == ["kids", "age", "share", "name", "smoker"]
    assert columns["kids"] == {"type": "categorical", "values": [0, 1, 2, 3]}
    assert columns["age"] == {"type": "integer", "min": 15, "max": 80}
    assert columns["share"] == {"type": "float", "min": 0.0, "max": 0.9}
    assert columns["smoker"]["values"] == ["False", "True"] and kept["smoker"].isna().sum() == 1
    TableDomain.from_json(spec)  # a valid declaration, and every value lies in it
    for name, declared in columns.items():
        if declared["type"] == "categorical":
            assert set(kept[name].dropna()) <= set(declared["values"]), name
        else:
            assert declared["min"] <= kept[name].min() and kept[name].max() <= declared["max"], name


def test_a_release_from_a_checkout_is_scored_in_both_styles(tmp_path):
    load = rdatasets.loader(penguins_checkout(tmp_path))
    frame, spec = load("palmerpenguins/penguins")
    assert len(frame) == 344 and "rownames" not in frame
    assert spec["columns"]["year"] == {"type": "categorical", "values": [2007, 2008, 2009]}
    found = pd.DataFrame(
        [
            rdatasets.declarations.run("palmerpenguins/penguins", 344, style, 0, 1.0, load=load)
            for style in ("publisher", "expert")
        ]
    )
    assert list(found["style"]) == ["publisher", "expert"] and (found["n"] == 344).all()
    assert found["tvd2"].between(0, 1).all() and found["tvd2"].nunique() == 2  # two different releases
    table = rdatasets.summary(found.assign(table="penguins"))
    assert table["ratio"].iloc[0] == pytest.approx(found["tvd2"][0] / found["tvd2"][1])
    # --widen: the publisher's ranges 100 times as wide, the same seed and cells, another release; the expert's alike
    wide = [
        rdatasets.declarations.run("palmerpenguins/penguins", 344, s, 0, 1.0, load=load, widen=100)
        for s in found["style"]
    ]
    assert wide[0]["tvd2"] != found["tvd2"][0] and wide[1]["tvd2"] == found["tvd2"][1]


def test_a_missing_checkout_is_named(tmp_path):
    with pytest.raises(SystemExit, match="checkout of Rdatasets"):
        rdatasets.loader(tmp_path)("AER/CreditCard")


def test_each_table_is_released_whole_and_at_each_smaller_size_asked_for():
    assert rdatasets.sizes(807, ["full", "5000", "1000"]) == [807]  # 5,000 and 1,000 rows: the whole table
    assert rdatasets.sizes(28_353, ["full", "5000", "1000"]) == [28_353, 5_000, 1_000]
    assert rdatasets.sizes(3_000, ["5000"]) == [3_000]


def test_the_tables_declared_from_their_help_page_load_with_their_stored_declaration(tmp_path):
    """Each stored declaration is valid and the loader takes it over one written from the data: a checkout holding
    flchain's first rows (as its help page describes them) loads with the declared columns only."""
    for name in rdatasets.DOCUMENTED:
        TableDomain.from_json(json.loads(rdatasets.documented(name).read_text(encoding="utf-8")))
    folder = tmp_path / "csv" / "survival"
    folder.mkdir(parents=True)
    (folder / "flchain.csv").write_text(
        "rownames,age,sex,sample.yr,kappa,lambda,flc.grp,creatinine,mgus,futime,death,chapter\n"
        "1,97,F,1997,5.7,4.86,10,1.7,0,85,1,Circulatory\n"
        "2,92,F,2000,0.87,0.683,1,0.9,0,1281,1,Neoplasms\n"
        "3,94,F,1997,4.36,3.85,10,1.4,0,69,1,Circulatory\n"
        "4,92,F,1996,2.42,2.22,9,1,0,115,1,Circulatory\n"
        "5,93,F,1996,1.32,1.69,6,1.1,0,1039,1,Mental\n"
    )
    frame, spec = rdatasets.loader(tmp_path)("survival/flchain")
    assert list(frame) == list(spec["columns"]) and "rownames" not in frame and len(frame) == 5
    assert spec["columns"]["kappa"] == {"type": "float", "min": 0, "max": 100}  # the help page's, not the data's
    assert "Perinatal" in spec["columns"]["chapter"]["values"]  # a declared chapter no record holds


def test_more_tables_are_drawn_by_the_benchmarks_criteria_and_never_its_own(tmp_path):
    """--draw: a checkout holding two tables that meet the criteria, one too small, one under a name the benchmark
    already holds and a file that is no table; the draw takes the two, in an order its seed fixes."""
    (tmp_path / "csv" / "a").mkdir(parents=True)
    seattle = pd.read_csv(DATASETS / "seattle_weather.csv")
    seattle.to_csv(tmp_path / "csv" / "a" / "seattle.csv", index=False)
    pd.read_csv(DATASETS / "nyc_weather.csv").head(3000).to_csv(tmp_path / "csv" / "a" / "nyc.csv", index=False)
    pd.read_csv(DATASETS / "penguins.csv").to_csv(tmp_path / "csv" / "a" / "penguins.csv", index=False)  # 344 rows
    package, name = rdatasets.TABLES[0].split("/")
    (tmp_path / "csv" / package).mkdir()
    seattle.to_csv(tmp_path / "csv" / package / f"{name}.csv", index=False)  # the benchmark's own: never drawn
    (tmp_path / "csv" / "a" / "broken.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00 not a table")
    infinite = seattle.assign(wind=seattle["wind"].where(seattle.index > 0, float("inf")))  # no range declares it
    infinite.to_csv(tmp_path / "csv" / "a" / "infinite.csv", index=False)
    both = rdatasets.drawn(tmp_path, 5, 66)
    assert sorted(both) == ["a/nyc", "a/seattle"]
    assert rdatasets.drawn(tmp_path, 1, 66) == both[:1] and rdatasets.drawn(tmp_path, 5, 66) == both
    assert {tuple(rdatasets.drawn(tmp_path, 2, seed)) for seed in range(8)} == {
        ("a/nyc", "a/seattle"),
        ("a/seattle", "a/nyc"),
    }
    with pytest.raises(SystemExit, match="checkout of Rdatasets"):
        rdatasets.drawn(tmp_path / "elsewhere", 5, 66)
