"""Counting engines: DuckDB's counts equal the in-memory path's on every shared dataset and on messy input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpsynth_core.data.counting import CodedTable, coarsen
from dpsynth_core.data.encoding import changed_cells_report, encode_table
from dpsynth_core.data.tables import read_table
from dpsynth_core.domain import FloatDomain, IntegerDomain, TableDomain
from dpsynth_core.engines import CountingSource, Merge, Rebin, Vocabulary, choose_engine, duckdb_source, open_source
from dpsynth_core.engines.base import ColumnMap, plan_blocks
from dpsynth_core.engines.memory import MemorySource
from dpsynth_core.errors import DataError, DomainError, ParameterError
from tests.conftest import DATASETS, complete_domain, shared_path
from tests.core.engines.engine_checks import ALL_PAIRS, MESSY_DOMAIN, assert_same_counts, messy_csv


@pytest.mark.parametrize("fold", [0, 1e-9], ids=["rows", "folded"])
@pytest.mark.parametrize("dataset", DATASETS)
def test_duckdb_counts_equal_the_in_memory_path_on_every_shared_dataset(dataset, fold, monkeypatch):
    monkeypatch.setattr(duckdb_source, "AGGREGATE_BELOW", fold)  # never, or always, fold identical records
    domain = complete_domain(dataset)
    path = shared_path(f"{dataset}.csv")
    reference = open_source(path, domain, engine="pandas")
    with open_source(path, domain, engine="duckdb", memory_limit="500MB", threads=1) as engine:
        assert engine._table.startswith("records") is bool(fold)
        assert_same_counts(reference, engine, pairs=dataset in ALL_PAIRS)


@pytest.mark.parametrize("encoding", ["utf-8", "cp1252", "utf-8-sig", "utf-16"])
def test_duckdb_reads_a_messy_csv_as_read_table_does(tmp_path, encoding):
    path = messy_csv(tmp_path / "messy.csv", encoding)
    reference = open_source(path, MESSY_DOMAIN, engine="pandas")
    with open_source(path, MESSY_DOMAIN, engine="duckdb") as engine:
        assert engine.n_rows == 10  # one record per line: the quoted line break and the short row are broken lines
        assert_same_counts(reference, engine)


def test_a_country_s_other_names_are_counted_as_it_in_duckdb(tmp_path):
    """A file that writes one country three ways (United States, USA, United-States) counts it as one declared
    country in DuckDB as in memory: the reading is :func:`encode_column`'s, on the distinct cells."""
    path = tmp_path / "countries.csv"
    cells = ["United States", "USA", "United-States", "Mexico", "England", ""] * 50
    pd.DataFrame({"country": cells, "n": np.arange(len(cells)) % 7}).to_csv(path, index=False)
    domain = TableDomain.from_json(
        {
            "columns": {
                "country": {"type": "categorical", "list": "countries"},
                "n": {"type": "integer", "min": 0, "max": 9},
            }
        }
    )
    reference = open_source(path, domain, engine="pandas")
    with open_source(path, domain, engine="duckdb") as engine:
        assert_same_counts(reference, engine)
        names = domain.columns["country"].values  # codes: their positions in the list, missing last
        counts = {(names[code] if code < len(names) else None): n for code, n in engine.value_counts("country").items()}
        assert counts == {"Mexico": 50, "United States": 150, None: 100}


def test_a_column_declared_to_read_any_spelling_is_counted_so_in_duckdb(tmp_path):
    """modeldata's hotel_rates writes the documentation's TA/TO and Transient-Party as ``ta_to`` and
    ``transient_party``: a column declared ``any_spelling`` counts them as the declared values in DuckDB as in memory
    (the reading is :func:`encode_column`'s), and a cell of neither stays missing."""
    path = tmp_path / "channels.csv"
    cells = ["ta_to", "TA/TO", "direct", "Direct ", "gds", ""] * 40
    pd.DataFrame({"channel": cells}).to_csv(path, index=False)
    declared = {"type": "categorical", "values": ["TA/TO", "Direct", "Corporate"], "any_spelling": True}
    domain = TableDomain.from_json({"columns": {"channel": declared}})
    reference = open_source(path, domain, engine="pandas")
    with open_source(path, domain, engine="duckdb") as engine:
        assert_same_counts(reference, engine)
        counts = dict(engine.value_counts("channel").items())
        assert counts == {0: 80, 1: 80, 3: 80}  # TA/TO, Direct, missing (gds and the empty cells)


def test_a_changed_cell_is_counted_once_per_record_not_once_per_value():
    domain = IntegerDomain(name="x", min=0, max=10)
    raw, counts = ["5", "99", "abc", "", "-4"], [7, 1_000_003, 12, 5, 2]
    column = ColumnMap.build(domain, raw, counts, ("",))
    expected = encode_table(pd.DataFrame({"x": np.repeat(raw, counts)}), TableDomain({"x": domain})).report()["x"]
    assert {"out_of_domain": column.out_of_domain, "missing": column.missing} == expected
    assert expected == {"out_of_domain": 1_000_003 + 12 + 2, "missing": 17}


@pytest.mark.parametrize("raw", [["5", "99", "", "NA", "-4"], ["", "NA"]], ids=["some missing", "all missing"])
def test_missing_cells_where_none_are_declared_are_counted_once_per_record(raw):
    """Read as the first value, and counted apart among the changed cells, as in memory."""
    domain = IntegerDomain(name="x", min=0, max=10, missing=False)
    counts = [7, 1_000_003, 12, 5, 2][: len(raw)]
    column = ColumnMap.build(domain, raw, counts, ("", "NA"))
    frame = pd.DataFrame({"x": np.repeat(raw, counts)})
    expected = encode_table(frame, TableDomain({"x": domain}, missing_markers=("", "NA"))).report()["x"]
    assert changed_cells_report({"x": column})["x"] == expected
    assert expected["read_as_first"] == sum(n for cell, n in zip(raw, counts) if cell in ("", "NA"))


def test_typed_parquet_and_frames_count_as_their_text(tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "age": pd.array(rng.integers(-5, 130, 2000), dtype="Int64"),
            "score": rng.normal(5, 4, 2000),
            "city": rng.choice(["Paris", "Lyon", "Nice", None], 2000),
        }
    )
    frame.loc[::7, "age"] = pd.NA
    frame.loc[::11, "score"] = np.nan
    domain = {
        "columns": {
            "age": {"type": "integer", "min": 0, "max": 120},
            "score": {"type": "float", "min": 0, "max": 10, "bins": 7},
            "city": {"type": "categorical", "values": ["Paris", "Lyon"]},
        }
    }
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "t.parquet")
    reference = open_source(frame, domain, engine="pandas")
    for data in (tmp_path / "t.parquet", frame, pa.Table.from_pandas(frame, preserve_index=False)):
        with open_source(data, domain, engine="duckdb") as engine:
            assert_same_counts(reference, engine)
    assert choose_engine(tmp_path / "t.parquet") == "duckdb"


def test_duplicate_records_are_counted_once_with_their_weight():
    domain = complete_domain("pums")
    frame = pd.read_csv(shared_path("pums.csv"), dtype=str, keep_default_na=False)
    repeated = pd.concat([frame] * 20, ignore_index=True)
    reference = open_source(repeated, domain, engine="pandas")
    for data, aggregated in ((repeated, True), (frame, False)):
        with open_source(data, domain, engine="duckdb") as engine:
            if aggregated:
                assert_same_counts(reference, engine)
            else:
                assert engine.marginal(("age", "sex")).sum() == len(frame)
            assert engine._table.startswith("records") is aggregated  # 1,000 distinct rows among 20,000
            assert engine._count.startswith("sum") is aggregated


@pytest.mark.parametrize("fold", [0, 1e-9], ids=["rows", "folded"])
def test_recoding_a_text_column_over_a_vocabulary_and_a_number_over_new_edges(tmp_path, fold, monkeypatch):
    monkeypatch.setattr(duckdb_source, "AGGREGATE_BELOW", fold)
    path = messy_csv(tmp_path / "messy.csv")
    recodings = {
        "word": Vocabulary(("apple", "hello", None)),
        "score": Rebin(FloatDomain(name="score", min=0, max=10, edges=(0.0, 0.3, 2.0, 10.0))),
        "age": Merge(tuple(i // 4 for i in range(14)), 4),
    }
    reference = open_source(path, MESSY_DOMAIN, engine="pandas")
    with pytest.raises(DomainError, match="'word' is text: re-code it"):
        reference.marginal(("word", "age"))
    with open_source(path, MESSY_DOMAIN, engine="duckdb") as engine:
        mine, theirs = engine.recode(recodings), reference.recode(recodings)
        assert mine.cells["word"] == 4 and mine.cells["score"] == 4 and mine.cells["age"] == 4
        assert_same_counts(theirs, mine)
        # apple, hello, missing (markers, out-of-domain words, broken lines), "other" for the rest
        assert theirs.marginal(("word",)).tolist() == [1, 1, 6, 2]
        # in memory, the vocabulary codes its distinct labels once: what coding every record's label gives
        labels = reference.encoded.columns["word"].labels
        np.testing.assert_array_equal(theirs.table.codes["word"], recodings["word"].codes(labels))
        assert engine.marginal(("score",)).shape == (5,)  # the original stays as it was


def test_buckets_merge_cells_as_coarsen_does():
    domain = complete_domain("adult")
    path = shared_path("adult.csv")
    reference = open_source(path, domain, engine="pandas")
    buckets = {"age": 8, "hours-per-week": 5}
    with open_source(path, domain, engine="duckdb") as engine:
        for group in [("age",), ("age", "hours-per-week"), ("sex", "age")]:
            assert np.array_equal(engine.marginal(group, buckets=buckets), reference.marginal(group, buckets=buckets))
    codes, cells = coarsen(reference.table.codes["age"], reference.cells["age"], 8)
    assert reference.marginal(("age",), buckets=buckets).tolist() == np.bincount(codes, minlength=cells).tolist()


def test_blocks_cover_every_group_within_the_cell_limit():
    cells = {c: k for c, k in zip("abcdefg", (3, 5, 100, 2, 7, 400, 9))}
    groups = [(a, b) for i, a in enumerate(cells) for b in list(cells)[i + 1 :]] + [("a", "c", "f"), ("g",)]
    blocks = plan_blocks(groups, cells, limit=10_000, width=3)
    for group in groups:
        if len(group) > 1:
            assert any(set(group) <= set(block) for block in blocks), group
    for block in blocks:
        assert len(block) <= 3
        assert np.prod([cells[c] for c in block]) <= 10_000 or len(block) == 2 or block == ("a", "c", "f")
    assert len(blocks) < len(groups) - 1  # packing saves passes


def test_every_source_answers_the_interface(tmp_path):
    path = messy_csv(tmp_path / "messy.csv")
    memory = open_source(path, MESSY_DOMAIN, engine="pandas")
    assert isinstance(memory, CountingSource)
    with open_source(path, MESSY_DOMAIN, engine="duckdb") as engine:
        assert isinstance(engine, CountingSource)
        assert engine.marginal(()).item() == engine.n_rows
    table = CodedTable({"a": np.array([0, 2, 2])}, {"a": 4}, 3)
    assert table.value_counts("a").to_dict() == {0: 1, 2: 2}


def test_bad_input_gets_one_line_errors(tmp_path):
    domain = complete_domain("pums")
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    header_only = tmp_path / "header.csv"
    header_only.write_text("age,sex,educ,race,income,married\n")
    binary = tmp_path / "x.csv"
    binary.write_bytes(b"PK\x03\x04 zip")
    for path, message in [
        (empty, "is empty"),
        (header_only, "header but no data rows"),
        (binary, "spreadsheet or archive"),
        (tmp_path / "none.csv", "file not found"),
    ]:
        with pytest.raises(DataError, match=message):
            open_source(path, domain, engine="duckdb")
    with pytest.raises(DomainError, match="declares column"):
        open_source(shared_path("pums.csv"), complete_domain("adult"), engine="duckdb")
    with pytest.raises(ParameterError, match="engine"):
        open_source(shared_path("pums.csv"), domain, engine="polars")


def test_the_memory_limit_is_the_publishers(tmp_path):
    with open_source(
        shared_path("pums.csv"),
        complete_domain("pums"),
        engine="duckdb",
        memory_limit="123MB",
        temp_directory=str(tmp_path),
    ) as engine:
        limit = engine.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        assert limit.replace(" ", "") in ("117.3MiB", "123.0MB", "117.3MB")
        assert any(tmp_path.iterdir())  # spilled data and the table of codes live there
    assert not any(tmp_path.iterdir())  # and are removed on close


def test_memory_source_is_todays_path():
    domain = TableDomain.from_json(complete_domain("ce"))
    frame = pd.read_csv(shared_path("ce.csv"), dtype=str, keep_default_na=False)
    source = MemorySource(frame, domain)
    encoded = encode_table(frame, domain)
    assert source.report() == encoded.report()
    for name in encoded.coded().codes:
        assert np.array_equal(source.marginal((name,)), encoded.columns[name].counts())


def test_a_csv_read_in_small_chunks_is_read_as_one(tmp_path, monkeypatch):
    from dpsynth_core.data import csvfile

    path = messy_csv(tmp_path / "messy.csv")
    path.write_bytes(path.read_bytes() * 30 + b"\n\n\n")  # the header repeats as a record; blank lines at the end
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 97)
    reference = open_source(path, MESSY_DOMAIN, engine="pandas")
    with open_source(path, MESSY_DOMAIN, engine="duckdb") as engine:
        assert_same_counts(reference, engine)


@pytest.mark.parametrize("header", ["none", "title"])
def test_a_csv_without_a_header_line_or_with_a_title_above_it_is_counted_in_chunks_as_in_memory(
    tmp_path, monkeypatch, header
):
    """The messy file without its header line, read with its columns' names (a data package's fields, ``--names``),
    or with a title above its header (``--header-row``): DuckDB reads it in chunks as the in-memory engine does."""
    from dpsynth_core.data import csvfile

    path = messy_csv(tmp_path / "messy.csv")
    head, body = path.read_bytes().split(b"\n", 1)
    if header == "none":
        path.write_bytes(body * 30)
        reading = {"header_rows": 0, "names": ("age", "city", "score", "when", "word", "zip", "code", "age.1")}
    else:
        path.write_bytes(b"A messy extract\n\n" + head + b"\n" + body * 30)
        reading = {"header_row": 3}
    monkeypatch.setattr(csvfile, "CHUNK_BYTES", 97)
    reference = MemorySource(read_table(path, delimiter=";", **reading)[0], TableDomain.from_json(MESSY_DOMAIN))
    with open_source(path, MESSY_DOMAIN, engine="duckdb", delimiter=";", **reading) as engine:
        assert engine.n_rows == 300
        assert_same_counts(reference, engine)


def _parts(folder, frame, pieces=3):
    """``frame`` written as a Spark job writes a table: part files and a _SUCCESS marker."""
    folder.mkdir()
    for i, chunk in enumerate(np.array_split(np.arange(len(frame)), pieces)):
        frame.iloc[chunk].to_parquet(folder / f"part-{i:05d}.parquet", index=False)
    (folder / "_SUCCESS").write_bytes(b"")
    return folder


def test_a_folder_or_glob_of_parquet_parts_counts_as_one_table(tmp_path):
    domain = complete_domain("pums")
    frame = pd.read_csv(shared_path("pums.csv"), dtype=str, keep_default_na=False)
    folder = _parts(tmp_path / "pums", frame)
    reference = open_source(shared_path("pums.csv"), domain, engine="pandas")
    for data in (folder, f"{folder}/part-*.parquet"):
        assert choose_engine(data) == "duckdb"
        with open_source(data, domain) as engine:
            assert engine.engine == "duckdb" and engine.n_rows == len(frame)
            assert_same_counts(reference, engine)
        with pytest.raises(ParameterError, match="engine='duckdb' or 'spark' for a folder or glob of Parquet parts"):
            open_source(data, domain, engine="pandas")
    (folder / "notes.txt").write_text("not a part")  # checked before either engine reads the folder
    with pytest.raises(DataError, match=r"not \.parquet files \(notes\.txt\)"):
        open_source(folder, domain, engine="duckdb")


@pytest.mark.parametrize("fold", [0, 1e-9], ids=["rows", "folded"])
def test_column_names_with_braces_and_quotes_are_counted(fold, monkeypatch):
    """Names reach SQL only quoted, never through a format string."""
    monkeypatch.setattr(duckdb_source, "AGGREGATE_BELOW", fold)
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "a{b}": rng.integers(0, 5, 3000).astype(str),
            "c}{0}": rng.choice(["x", "y"], 3000),
            "q\"'s": rng.integers(0, 3, 3000).astype(str),
        }
    )
    domain = {
        "columns": {
            "a{b}": {"type": "integer", "min": 0, "max": 9},
            "c}{0}": {"type": "categorical", "values": ["x", "y"]},
            "q\"'s": {"type": "integer", "min": 0, "max": 2},
        }
    }
    with open_source(frame, domain, engine="duckdb") as engine:
        assert_same_counts(open_source(frame, domain, engine="pandas"), engine)
