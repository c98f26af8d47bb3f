"""Fixtures shared by the core's tests of more than one package."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.corpus import good_csv, good_domain


@pytest.fixture
def record_forms(tmp_path):
    """The same 300 records as CSV, shuffled with CRLF and a blank line, TSV, Parquet and Parquet parts, and
    their declaration (``d.json``), in one folder."""
    (tmp_path / "a.csv").write_bytes(good_csv())
    frame = pd.read_csv(tmp_path / "a.csv", dtype=str, keep_default_na=False)
    shuffled = frame.sample(frac=1, random_state=3)
    (tmp_path / "b.csv").write_bytes(shuffled.to_csv(index=False, lineterminator="\r\n").encode() + b"\r\n")
    shuffled.to_csv(tmp_path / "c.tsv", sep="\t", index=False)
    typed = frame.assign(
        age=frame["age"].astype("int64"), income=frame["income"].astype(float), day=pd.to_datetime(frame["day"]).dt.date
    )
    pq.write_table(pa.Table.from_pandas(typed, preserve_index=False), tmp_path / "d.parquet")
    (tmp_path / "parts").mkdir()
    for i, part in enumerate((shuffled.iloc[:100], shuffled.iloc[100:])):
        pq.write_table(pa.Table.from_pandas(part, preserve_index=False), tmp_path / "parts" / f"part-{i}.parquet")
    (tmp_path / "d.json").write_text(json.dumps(good_domain()))
    return tmp_path
