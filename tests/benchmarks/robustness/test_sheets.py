"""The hunt's workbook writers (benchmarks.robustness.sheets), run on their own: a public CSV written as an .xls and
an .ods reads back as the same records, its ISO dates as date cells."""

from __future__ import annotations

import pandas as pd
import pytest

from benchmarks.robustness import sheets
from dpsynth_core.data.formats import read_data
from tests.conftest import shared_path


@pytest.mark.parametrize("suffix", [".xls", ".ods"])
def test_a_csv_written_as_a_workbook_reads_back_as_its_records(tmp_path, suffix):
    table = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False).head(200)
    table.to_csv(tmp_path / "compas.csv", index=False)
    sheets.main([str(tmp_path / "compas.csv"), "--out", str(tmp_path / f"compas{suffix}")])
    read, _ = read_data(tmp_path / f"compas{suffix}")
    for name in ("compas_screening_date", "dob", "sex", "race", "priors_count"):
        assert read[name].fillna("").tolist() == table[name].tolist(), name
    with pytest.raises(SystemExit):
        sheets.main([str(tmp_path / "compas.csv"), "--out", str(tmp_path / "compas.csv2")])
