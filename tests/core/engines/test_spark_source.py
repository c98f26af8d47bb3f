"""Counting with Apache Spark (local mode): the same counts as the in-memory path. One session for the
whole run (``spark`` in tests/conftest.py)."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.data.tables import read_table
from dpsynth_core.domain import IntegerDomain, TableDomain
from dpsynth_core.engines import Rebin, Vocabulary, choose_engine, open_source
from dpsynth_core.engines.memory import MemorySource
from tests.conftest import DATASETS, ROOT, complete_domain, run_cli_synth, shared_path
from tests.core.engines.engine_checks import MESSY_DOMAIN, assert_same_counts, messy_csv

pytest.importorskip("pyspark")
if shutil.which("java") is None and not os.environ.get("CI"):
    pytest.skip("Spark needs a Java runtime (CI installs one: see .ci/run)", allow_module_level=True)

pytestmark = pytest.mark.spark


#: How Spark counts: every record on the executors; identical records folded and counted on the
#: executors; folded and brought to the driver (what a table with few distinct records gets).
MODES = {"rows": (0, 0), "folded": (1e-9, 0), "driver": (1e-9, 10**9)}


@pytest.fixture(params=list(MODES))
def mode(request, monkeypatch):
    from dpsynth_core.engines import spark_source

    below, driver_rows = MODES[request.param]
    monkeypatch.setattr(spark_source, "AGGREGATE_BELOW", below)
    monkeypatch.setattr(spark_source, "DRIVER_ROWS", driver_rows)
    return request.param


def _check_mode(engine, mode):
    assert (engine._folded, engine._here is not None) == {
        "rows": (False, False),
        "folded": (True, False),
        "driver": (True, True),
    }[mode]


#: The datasets each mode counts. The modes differ only in where the same counting functions run
#: (executors or driver) and whether records carry weights; what the data brings (Spark's types of
#: each column kind, values, markers) is read by the same code in every mode. So every dataset
#: goes through one mode, the cheapest (driver); the others take a subset that holds every column
#: kind (integer, categorical: adult; float: australian; date, text, dropped: compas), a table of
#: several Arrow batches (adult, 32,561 rows), the pairs (adult) and, folded, records that repeat
#: (adult, pums: weights above 1).
MODE_DATASETS = {"driver": DATASETS, "rows": ("adult", "australian", "compas"), "folded": ("adult", "pums", "compas")}


def test_spark_counts_equal_the_in_memory_path_on_every_shared_dataset(spark, mode):
    # every column and text value everywhere; every pair on two datasets (the DuckDB tests do four)
    for dataset in MODE_DATASETS[mode]:
        domain = complete_domain(dataset)
        path = shared_path(f"{dataset}.csv")
        reference = open_source(path, domain, engine="pandas")
        with open_source(path, domain, engine="spark", spark=spark) as engine:
            _check_mode(engine, mode)
            assert_same_counts(reference, engine, pairs=dataset in ("adult", "pums"))


def test_spark_reads_messy_csvs_frames_and_recodes(spark, tmp_path, mode):
    path = messy_csv(tmp_path / "messy.csv", "cp1252")
    reference = open_source(path, MESSY_DOMAIN, engine="pandas")
    recodings = {
        "word": Vocabulary(("hello", None, "the")),
        "age": Rebin(IntegerDomain(name="age", min=0, max=100, edges=(0, 18, 65))),
    }
    with open_source(path, MESSY_DOMAIN, engine="spark", spark=spark) as engine:
        _check_mode(engine, mode)
        assert_same_counts(reference, engine)
        assert_same_counts(reference.recode(recodings), engine.recode(recodings))

    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {
            "age`s": rng.integers(-3, 140, 500).astype("int64"),  # names Spark must quote
            "the.city": rng.choice(["Paris", "Lyon", "Rome"], 500),
        }
    )
    domain = {
        "columns": {
            "age`s": {"type": "integer", "min": 0, "max": 120, "bin_width": 5},
            "the.city": {"type": "categorical", "values": ["Paris", "Lyon"]},
        }
    }
    spark_frame = spark.createDataFrame(frame)
    assert choose_engine(spark_frame) == "spark"
    with open_source(spark_frame, domain, spark=spark) as engine:
        assert_same_counts(open_source(frame, domain, engine="pandas"), engine)


def test_a_marginals_release_through_spark_is_the_in_memory_release(spark):
    from dpsynth_core.release.card import build_card
    from dpsynth_core.synthesizers import get_method

    info, path, domain = get_method("marginals"), shared_path("ce.csv"), complete_domain("ce")
    memory = info.cls(epsilon=1.0, random_state=4, rounds=3).fit(path, domain, engine="pandas")
    with open_source(path, domain, engine="spark", spark=spark) as source:
        engine = info.cls(epsilon=1.0, random_state=4, rounds=3).fit(source, domain)
    expected, got = memory.sample(), engine.sample()
    pd.testing.assert_frame_equal(got, expected)
    timeless = [
        {k: v for k, v in build_card(m, info, len(expected)).items() if k != "created"} for m in (engine, memory)
    ]
    assert timeless[0] == timeless[1]


def test_a_release_drawn_on_the_executors_is_the_release_the_driver_writes(spark, tmp_path, monkeypatch):
    """Chunks from their own streams: Spark's tasks write, as a folder of Parquet parts, the rows
    the driver writes as one file; so does a local session's release, drawn by the driver's threads
    into the same folder of parts; the folder appears only when complete and is never overwritten."""
    import pyarrow.parquet as pq

    from dpsynth_core import synthesize
    from dpsynth_core.engines import spark_writer
    from dpsynth_core.errors import ParameterError

    frame = pd.read_csv(shared_path("ce.csv"), dtype=str, keep_default_na=False)
    data, domain = tmp_path / "ce.parquet", complete_domain("ce")
    frame.to_parquet(data)
    common = dict(method="marginals", random_state=4, chunk_rows=300, rounds=3)
    driver = synthesize(data, domain, 1.0, engine="duckdb", out=tmp_path / "driver.parquet", **common)
    assert spark_writer.draws_here(type("S", (), {"spark": spark})(), str(tmp_path / "x.parquet"))  # local[2]
    here = synthesize(data, domain, 1.0, engine="spark", out=tmp_path / "here.parquet", **common)
    monkeypatch.setattr(spark_writer, "draws_here", lambda source, path: False)  # as on a cluster
    folder = tmp_path / "executors.parquet"
    executors = synthesize(data, domain, 1.0, engine="spark", out=folder, **common)
    for release in (here, executors):
        assert release.path.is_dir() and release.rows == driver.rows > 600
        parts = sorted(p.name for p in release.path.glob("part-*.parquet"))
        assert len(parts) == -(-driver.rows // 300)  # one part per chunk
        pd.testing.assert_frame_equal(pq.read_table(release.path).to_pandas(), pq.read_table(driver.path).to_pandas())
        assert {k: v for k, v in release.card.items() if k != "created"} == {
            k: v for k, v in driver.card.items() if k != "created"
        }
    assert executors.path == folder and (here.path / "_SUCCESS").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folder left
    with pytest.raises(ParameterError, match="already exists"):
        synthesize(data, domain, 1.0, engine="spark", out=folder, **common)


def test_the_cli_reads_a_folder_or_glob_of_parts_through_spark_as_duckdb_does(spark, tmp_path, capsys):
    import json

    frame = pd.read_csv(shared_path("ce.csv"), dtype=str, keep_default_na=False)
    folder = tmp_path / "ce.parquet"  # a folder named as Spark names its output
    spark.createDataFrame(frame).repartition(3).write.parquet(str(folder))  # parts, _SUCCESS and .crc files
    domain = tmp_path / "ce.domain.json"
    domain.write_text(json.dumps(complete_domain("ce")))
    for engine, data in (("duckdb", folder), ("spark", folder), ("spark", f"{folder}/part-*.parquet")):
        out = tmp_path / f"{engine}-{len(str(data))}.csv"
        assert run_cli_synth(data, domain, seed=3, engine=engine, out=out) == 0, capsys.readouterr().err
    outputs = sorted(tmp_path.glob("*.csv"))
    assert len(outputs) == 3 and len({path.read_bytes() for path in outputs}) == 1


def test_the_cli_draws_a_spark_release_into_a_new_folder(spark, tmp_path, capsys):
    import json

    import pyarrow.parquet as pq

    data, domain = tmp_path / "ce.parquet", tmp_path / "ce.domain.json"
    pd.read_csv(shared_path("ce.csv"), dtype=str, keep_default_na=False).to_parquet(data)
    domain.write_text(json.dumps(complete_domain("ce")))
    flags = {"seed": 3, "method": "cathist"}
    for engine in ("spark", "duckdb"):
        out, card = tmp_path / f"{engine}.parquet", tmp_path / f"{engine}.json"
        assert run_cli_synth(data, domain, **flags, engine=engine, out=out, card=card) == 0, capsys.readouterr().err
    assert (tmp_path / "spark.parquet").is_dir()
    pd.testing.assert_frame_equal(
        pq.read_table(tmp_path / "spark.parquet").to_pandas(), pq.read_table(tmp_path / "duckdb.parquet").to_pandas()
    )
    capsys.readouterr()
    assert run_cli_synth(data, domain, **flags, engine="spark", out=tmp_path / "spark.parquet") == 2
    err = capsys.readouterr().err
    assert "spark.parquet" in err and len(err.strip().splitlines()) == 1  # an old release is never replaced
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_the_sample_of_a_local_parquet_file_is_its_first_records_read_without_a_spark_job(spark, tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    from dpsynth_core.engines import spark_source

    data = tmp_path / "adult.parquet"
    pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False).to_parquet(data, row_group_size=300)
    source = open_source(data, complete_domain("adult"), engine="spark", spark=spark)
    names = ["age", "workclass", "native-country"]
    monkeypatch.setattr(spark_source, "SAMPLE_ROWS", 1000)  # four row groups, the last one cut
    first = pq.read_table(data, columns=names).slice(0, 1000)
    jobs = len(spark.sparkContext.statusTracker().getJobIdsForGroup())
    assert source._sample(names).equals(first)
    assert len(spark.sparkContext.statusTracker().getJobIdsForGroup()) == jobs
    monkeypatch.setattr(spark_source, "SAMPLE_ROWS", 40_000)  # more than the file holds: Spark's sample
    assert source._sample(names).num_rows == 32_561
    source.close()


def test_spark_s_own_reader_of_a_csv_on_a_cluster_names_columns_as_read_table_does(spark, tmp_path, monkeypatch):
    """A CSV on a cluster is read by Spark itself (no per-record rule of ours there): its header's names lose the
    spaces around them, as read_table's do, and lines ended by carriage returns alone are lines for it too."""
    from dpsynth_core.engines import spark_source

    monkeypatch.setattr(spark_source, "is_remote", lambda path: True)
    rows = [f"{a}, {c}" for a, c in zip(range(18, 98), ["Paris", "Lyon"] * 40)]
    domain = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 120},
            "city": {"type": "categorical", "values": ["Paris", "Lyon"]},
        }
    }
    for end in ("\n", "\r"):
        path = tmp_path / f"spaced{len(end)}{ord(end)}.csv"
        path.write_text(end.join([" age , city", *rows]) + end)
        reference = open_source(path, domain, engine="pandas")
        with open_source(str(path), domain, engine="spark", spark=spark) as engine:
            assert_same_counts(reference, engine)


def test_a_local_csv_without_a_header_line_is_read_by_spark_as_in_memory_and_one_on_a_cluster_refuses_it(
    spark, tmp_path, monkeypatch
):
    """The messy file without its header line, its columns named as its documentation lists them: a local file is
    read chunk by chunk by read_table's rule, as in memory; Spark's own reader of a CSV on a cluster takes the
    header from the first line, so the names are refused there in one line, before anything is read."""
    from dpsynth_core.data import csvfile
    from dpsynth_core.engines import spark_source
    from dpsynth_core.errors import ParameterError

    path = messy_csv(tmp_path / "messy.csv")
    path.write_bytes(path.read_bytes().split(b"\n", 1)[1] * 20)
    names = ("age", "city", "score", "when", "word", "zip", "code", "age.1")
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 97)
    reference = MemorySource(read_table(path, header_rows=0, names=names)[0], TableDomain.from_json(MESSY_DOMAIN))
    with open_source(path, MESSY_DOMAIN, engine="spark", spark=spark, header_rows=0, names=names) as engine:
        assert_same_counts(reference, engine)
    from dpsynth_core.data import parts

    for module in (spark_source, parts):  # the engine's choice of reader, and the check of its options
        monkeypatch.setattr(module, "is_remote", lambda path: True)
    with pytest.raises(ParameterError, match="a CSV on a cluster is read with its header on its first line"):
        open_source(str(path), MESSY_DOMAIN, engine="spark", spark=spark, header_rows=0, names=names)


def test_spark_s_parts_type_days_moments_and_times_of_day_as_the_driver_s_file(spark, tmp_path, monkeypatch):
    """nyc_weather's readings with a day, a moment and a time of day: the folder of parts Spark's executors
    write holds the types and the rows of the file the driver writes (dates and timestamps, in microseconds:
    Spark's own unit), but the time of day as its text, HH:MM:SS (Spark takes none from Arrow)."""
    import pyarrow.parquet as pq

    from dpsynth_core import synthesize
    from dpsynth_core.engines import spark_writer

    moment = pd.to_datetime(pd.read_csv(ROOT / "benchmarks" / "datasets" / "nyc_weather.csv")["time_hour"])
    data = tmp_path / "readings.parquet"
    pd.DataFrame(
        {
            "day": moment.dt.strftime("%Y-%m-%d"),
            "moment": moment.dt.strftime("%Y-%m-%d %H:%M"),
            "clock": moment.dt.strftime("%H:%M"),
        }
    ).iloc[:2000].to_parquet(data)
    domain = {
        "columns": {
            "day": {"type": "date", "min": "2013-01-01", "max": "2013-12-31"},
            "moment": {"type": "datetime", "min": "2013-01-01 00:00", "max": "2013-12-31 23:00", "step": "hour"},
            "clock": {"type": "time", "step": "minute"},
        }
    }
    common = dict(method="marginals", random_state=4, chunk_rows=700)
    driver = synthesize(data, domain, 1.0, engine="duckdb", out=tmp_path / "driver.parquet", **common)
    monkeypatch.setattr(spark_writer, "draws_here", lambda source, path: False)  # as on a cluster
    executors = synthesize(data, domain, 1.0, engine="spark", out=tmp_path / "executors.parquet", **common)
    schemas = [pq.read_schema(next(p.glob("part-*")) if p.is_dir() else p) for p in (driver.path, executors.path)]
    assert [str(t) for t in schemas[0].types] == ["date32[day]", "timestamp[us]", "time64[us]"]
    assert [str(t) for t in schemas[1].types] == ["date32[day]", "timestamp[us]", "string"]
    written = [pq.read_table(p).to_pandas() for p in (driver.path, executors.path)]
    assert written[1]["clock"].str.fullmatch(r"\d\d:\d\d:00").all()
    written[0]["clock"] = written[0]["clock"].map(lambda t: t.isoformat(), na_action="ignore")
    pd.testing.assert_frame_equal(written[1], written[0])
