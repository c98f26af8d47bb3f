"""Methods that read through a counting engine: a release through DuckDB is the in-memory release.

``marginals`` and ``cathist`` read the data only through a counting source's calls
(:mod:`dpsynth_core.engines`); the other methods read in memory and refuse the engines.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.domain import TableDomain
from dpsynth_core.engines import duckdb_source, open_source
from dpsynth_core.errors import DataError, ParameterError
from dpsynth_core.release.card import build_card
from dpsynth_core.synthesizers import METHODS, get_method
from tests.conftest import DATASETS, complete_domain, shared_path, timeless

#: The methods that read the data only through a counting source (the others read it in memory).
ENGINE_METHODS = tuple(name for name, info in METHODS.items() if info.cls.reads_sources)
OPTIONS = {"marginals": {"rounds": 4}}


def _release(method: str, data, domain, engine: str, seed: int = 3, **fit):
    info = get_method(method)
    model = info.cls(epsilon=1.0, random_state=seed, **OPTIONS.get(method, {})).fit(data, domain, engine=engine, **fit)
    synthetic = model.sample()
    return model, synthetic, build_card(model, info, len(synthetic))


@pytest.mark.parametrize("fold", [0, 1e-9], ids=["rows", "folded"])
@pytest.mark.parametrize("method", ENGINE_METHODS)
@pytest.mark.parametrize("dataset", DATASETS)
def test_a_release_through_duckdb_is_the_in_memory_release(dataset, method, fold, monkeypatch):
    """Same seed: the same synthetic table, card and publisher report (adaptive bins, text vocabularies
    included), whether DuckDB counts every record or folds identical records into weighted rows."""
    monkeypatch.setattr(duckdb_source, "AGGREGATE_BELOW", fold)
    path, domain = shared_path(f"{dataset}.csv"), complete_domain(dataset)
    memory, synthetic, card = _release(method, path, domain, "pandas")
    engine, synthetic_engine, card_engine = _release(method, path, domain, "duckdb", memory_limit="500MB")
    assert engine.engine_ == "duckdb" and memory.engine_ == "pandas"
    pd.testing.assert_frame_equal(synthetic_engine, synthetic)
    assert timeless(card_engine) == timeless(card)
    assert engine.encoding_report_ == memory.encoding_report_
    assert engine.publisher_details() == memory.publisher_details()


class _Spy:
    """A counting source that lets through only the counting interface and logs every call."""

    ALLOWED = {
        "domain",
        "n_rows",
        "cells",
        "engine",
        "marginal",
        "marginals",
        "companions",
        "sparse_marginal",
        "value_counts",
        "raw_values",
        "recode",
        "report",
        "close",
    }

    def __init__(self, inner, log):
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "_log", log)

    def __getattr__(self, name):
        assert name in self.ALLOWED, f"a method read {name!r} of the source"
        self._log.append(name)
        value = getattr(self._inner, name)
        if name == "recode":
            return lambda recodings: _Spy(value(recodings), self._log)
        return value


def test_methods_read_sources_only_through_the_counting_interface(adult_domain):
    path = shared_path("adult.csv")
    for method in ENGINE_METHODS:
        log = []
        with open_source(path, adult_domain, engine="duckdb") as source:
            get_method(method).cls(epsilon=1.0, random_state=0, **OPTIONS.get(method, {})).fit(
                _Spy(source, log), adult_domain
            )
        assert {"n_rows", "raw_values", "marginal"} <= set(log), method


def test_tables_with_the_same_counts_give_the_same_release(adult_domain):
    """The engine path depends on the data only through the counts: records in another order, numbers
    spelled differently and values outside the range (clamped into the same cells by the public rule)
    change no count, so the release is the same; removing one record changes it."""
    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False).head(4000)
    other = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    other["age"] = other["age"].astype(int).astype(float).astype(str)  # "39" -> "39.0"
    declared = TableDomain.from_json(adult_domain)
    top = declared.columns["hours-per-week"].max
    other.loc[other["hours-per-week"].astype(int) == top, "hours-per-week"] = str(top + 50)  # clamped to max
    for method in ENGINE_METHODS:
        first, a, card_a = _release(method, frame, adult_domain, "duckdb")
        second, b, card_b = _release(method, other, adult_domain, "duckdb")
        assert [e[:2] for e in first.noise_.log] == [e[:2] for e in second.noise_.log]
        pd.testing.assert_frame_equal(a, b)
        assert timeless(card_a) == timeless(card_b)
        _, c, _ = _release(method, frame.iloc[1:], adult_domain, "duckdb")
        assert not c.equals(a)


@pytest.mark.parametrize("method", sorted(set(METHODS) - set(ENGINE_METHODS)))
def test_methods_that_read_in_memory_refuse_the_engines(method, tmp_path):
    frame = pd.DataFrame({"x": ["a", "b", "a"] * 40})
    domain = {"columns": {"x": {"type": "categorical", "values": ["a", "b"]}}}
    model = get_method(method).cls(epsilon=1.0, random_state=0)
    with pytest.raises(ParameterError, match=r"engine 'duckdb'.*marginals") as error:
        model.fit(frame, domain, engine="duckdb")
    assert "\n" not in str(error.value)
    frame.to_parquet(tmp_path / "t.parquet")  # one Parquet file: 'auto' reads it in memory for these methods
    assert get_method(method).cls(epsilon=1.0, random_state=0).fit(tmp_path / "t.parquet", domain).engine_ == "pandas"
    (tmp_path / "parts").mkdir()
    frame.to_parquet(tmp_path / "parts" / "part-0.parquet")
    with pytest.raises(ParameterError, match="engine 'duckdb'"):  # a folder of parts only an engine reads
        model.fit(tmp_path / "parts", domain)
    with pytest.raises(DataError, match="is a folder, not a file"):
        model.fit(tmp_path / "parts", domain, engine="pandas")


def test_a_source_is_closed_by_its_owner(adult_domain, tmp_path):
    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False).head(500)
    frame.to_parquet(tmp_path / "adult.parquet")
    model = get_method("cathist").cls(epsilon=1.0, random_state=0).fit(tmp_path / "adult.parquet", adult_domain)
    assert model.engine_ == "duckdb"  # chosen by 'auto' for Parquet, opened and closed by fit
    with open_source(frame, adult_domain, engine="duckdb") as source:
        get_method("cathist").cls(epsilon=1.0, random_state=0).fit(source, adult_domain)
        assert np.array_equal(source.marginal(("sex",)), source.marginal(("sex",)))  # still open
    with pytest.raises(ParameterError, match="another declaration"):
        with open_source(frame, adult_domain, engine="duckdb") as source:
            get_method("cathist").cls(epsilon=1.0).fit(source, complete_domain("adult_test"))
