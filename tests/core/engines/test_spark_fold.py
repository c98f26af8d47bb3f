"""Spark keys the ledger in its own pass (SparkSource.records_identity), and folds local Parquet files in its
tasks with pyarrow (engines/spark_fold.py): the file's identity, the fold Spark's own aggregate makes."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.data.fingerprint import records_identity
from dpsynth_core.domain import TableDomain
from dpsynth_core.engines import get_engine
from tests.conftest import ROOT

pytest.importorskip("pyspark")
if shutil.which("java") is None and not os.environ.get("CI"):
    pytest.skip("Spark needs a Java runtime (CI installs one: see .ci/run)", allow_module_level=True)

pytestmark = pytest.mark.spark

KEY = bytes(range(32))


def _adult_repeated(tmp_path):
    """Adult's six columns four times over (few distinct records) and a column every record shares."""
    columns = ["age", "workclass", "sex", "race", "income", "hours-per-week"]
    frame = pd.read_csv(ROOT / "assets/examples/adult.csv", usecols=columns, dtype=str)
    big = pd.concat([frame] * 4, ignore_index=True).assign(
        extra="same", weight=np.tile([0.5, -0.0, np.nan, 2.0], 4 * len(frame) // 4)
    )
    big["age"] = pd.to_numeric(big["age"]).astype("int32")
    big.to_parquet(tmp_path / "t.parquet", index=False, row_group_size=30_000)  # several row groups, several tasks
    spec = json.loads((ROOT / "assets/examples/adult.policy.json").read_text())
    spec["columns"] = {k: v for k, v in spec["columns"].items() if k in columns[:-1]}
    spec["columns"].update({c: {"type": "drop"} for c in ("hours-per-week", "extra", "weight")})
    return big, TableDomain.from_json(spec)


def test_the_identity_of_folded_records_is_the_files(spark, tmp_path):
    """Folded as the source opens, on the driver: each distinct record hashed once with its count gives
    the file's identity; the kept columns are counted from the same fold."""
    big, domain = _adult_repeated(tmp_path)
    assert get_engine("spark").keys_records
    with get_engine("spark").open(str(tmp_path / "t.parquet"), domain, spark=spark) as source:
        assert source._every and source._here is not None and source._here.num_rows < len(big) / 2
        assert source.records_identity(KEY) == records_identity(str(tmp_path / "t.parquet"), KEY)
        assert source.n_rows == len(big)
        memory = get_engine("pandas").open(big, domain)
        assert (source.marginal(("sex", "race")) == memory.marginal(("sex", "race"))).all()


@pytest.mark.parametrize("form", ["a.csv", "d.parquet", "parts"])
def test_the_identity_of_mostly_distinct_records_is_read_from_the_files(spark, record_forms, form):
    domain = TableDomain.from_json(json.loads((record_forms / "d.json").read_text()))
    with get_engine("spark").open(str(record_forms / form), domain, spark=spark) as source:
        assert not source._every
        assert source.records_identity(KEY) == records_identity(str(record_forms / form), KEY)


def test_the_tasks_fold_is_sparks_own(spark, tmp_path):
    """pyarrow's fold in Spark's tasks (text dictionary-encoded, nulls, -0.0 and NaN, several row groups)
    gives the records and counts Spark's aggregate gives."""
    from dpsynth_core.engines.spark_fold import arrow_reads_as_spark, fold, read_parquet

    big, _ = _adult_repeated(tmp_path)
    files = [tmp_path / "t.parquet"]
    frame = read_parquet(spark, files)
    names = list(frame.columns)

    def rows(folded):
        table = folded.toArrow().to_pandas()
        return table.sort_values(names, ignore_index=True, na_position="first")

    assert arrow_reads_as_spark(files, names) is not None  # the tasks' fold, not Spark's aggregate
    tasks, own = rows(fold(spark, frame, names, "n", files)), rows(fold(spark, frame, names, "n", None))
    assert len(tasks) < len(big) and tasks["n"].sum() == len(big)
    pd.testing.assert_frame_equal(tasks, own)
