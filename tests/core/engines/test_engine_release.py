"""Large releases: ``synthesize(engine=..., out=...)`` and ``--engine``/``--memory-limit`` in the CLI.

The table is counted by DuckDB and the synthetic table written in chunks; the result is the
in-memory release's (same seed), and outputs are still all or nothing.
"""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpsynth_core import constraints
from dpsynth_core.errors import ParameterError
from dpsynth_core.release import synthesize
from dpsynth_core.release.writer import output_format
from dpsynth_core.synthesizers import METHODS
from dpsynth_core.workspace import Workspace
from tests.conftest import complete_domain, run_cli_synth, shared_path, timeless


@pytest.fixture(scope="module")
def ce():
    return pd.read_csv(shared_path("ce.csv"), dtype=str, keep_default_na=False)


def test_a_release_written_in_chunks_through_duckdb_is_the_in_memory_release(tmp_path, ce):
    domain = complete_domain("ce")
    for method in [m for m in METHODS if METHODS[m].cls.reads_sources]:  # those the engine can count for
        whole = synthesize(
            ce, domain, 1.0, method=method, random_state=5, engine="pandas", out=tmp_path / "memory.csv", chunk_rows=700
        )
        chunked = synthesize(
            ce,
            domain,
            1.0,
            method=method,
            random_state=5,
            engine="duckdb",
            memory_limit="300MB",
            out=tmp_path / "engine.csv",
            chunk_rows=700,
        )
        assert chunked.data is None and chunked.rows == whole.rows > 700 and chunked.columns == list(ce.columns)
        assert (tmp_path / "engine.csv").read_bytes() == (tmp_path / "memory.csv").read_bytes()
        assert timeless(chunked.card) == timeless(whole.card)
        assert chunked.card["rows"]["synthetic"] == chunked.rows
    in_memory = synthesize(ce, domain, 1.0, method="cathist", random_state=5)  # no out: the table is returned
    assert in_memory.data is not None and in_memory.rows == len(in_memory.data)


def test_bins_counted_coarse_then_fine_through_duckdb_are_the_in_memory_release(tmp_path):
    """Penguins (344 rows) declared by min and max at epsilon 0.3: too sparse for the tree, so each measurement's
    bins count the range's quarters, then equal pieces of those kept (``leaves.nested_leaves``). The second
    count's pieces depend on the first's noisy output; DuckDB counts them as the in-memory path does."""
    from benchmarks.quality.declarations import publisher, table

    frame, spec = table("penguins")
    frame = frame.astype(str).replace("nan", "")
    releases = {
        engine: synthesize(frame, publisher(spec), 0.3, random_state=5, engine=engine, out=tmp_path / f"{engine}.csv")
        for engine in ("pandas", "duckdb")
    }
    mechanisms = [b["mechanism"] for b in releases["duckdb"].card["adaptive_bins"]]
    assert len(mechanisms) == 4 and all(
        m.startswith("a discrete Laplace histogram of the range's 4") for m in mechanisms
    )
    assert (tmp_path / "duckdb.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()
    assert timeless(releases["duckdb"].card) == timeless(releases["pandas"].card)


def test_row_caps_are_public_and_depend_on_where_the_table_goes_never_on_the_engine(tmp_path, ce):
    domain = complete_domain("ce")
    for engine in ("pandas", "duckdb"):
        with pytest.raises(ParameterError, match="rows"):  # returned in memory: the in-memory cap
            synthesize(ce, domain, 1.0, rows=constraints.MAX_SYNTHETIC_ROWS + 1, engine=engine)
        with pytest.raises(ParameterError, match="rows"):  # written to a file: the file cap, whatever the engine
            synthesize(
                ce, domain, 1.0, rows=constraints.MAX_ENGINE_SYNTHETIC_ROWS + 1, engine=engine, out=tmp_path / "o.csv"
            )


def test_the_cli_counts_a_parquet_file_with_duckdb_and_writes_parquet(tmp_path, ce, capsys):
    data = tmp_path / "ce.parquet"
    ce.to_parquet(data)
    domain = tmp_path / "ce.domain.json"
    domain.write_text(json.dumps(complete_domain("ce")))
    out, card, ledger = tmp_path / "out.parquet", tmp_path / "card.json", tmp_path / "ws"
    flags = {"seed": 2, "method": "marginals"}
    status = run_cli_synth(data, domain, **flags, memory_limit="300MB", card=card, workspace=ledger, out=out)
    assert status == 0, capsys.readouterr().err  # 'auto' chose DuckDB for Parquet
    synthetic = pq.read_table(out).to_pandas()
    assert list(synthetic.columns) == list(ce.columns)
    assert len(synthetic) == json.loads(card.read_text())["rows"]["synthetic"]
    ws = Workspace(ledger)
    (stored,) = ws.releases.made_from(ws.ledger.dataset_key(ws.ledger.records_key(data)))
    assert stored.rows == len(synthetic)  # the ledger records the release and its spend
    csv = tmp_path / "ce.csv"
    ce.to_csv(csv, index=False)
    for engine in ("duckdb", "pandas"):  # the same release from the CSV, out of core or in memory
        assert run_cli_synth(csv, domain, **flags, engine=engine, out=tmp_path / f"{engine}.csv") == 0
    assert (tmp_path / "duckdb.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()
    names = sorted(p.name for p in tmp_path.iterdir())
    assert not [n for n in names if n.startswith(".")], names  # no temporary file left


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--memory-limit", "lots"], "memory limit ('lots') must be a size such as 2GB"),
        (["--engine", "duckdb", "--method", "copula"], "method 'copula' reads the table in memory"),
        (["--engine", "pandas", "--rows", str(constraints.MAX_ENGINE_SYNTHETIC_ROWS + 1)], "rows"),
    ],
)
def test_engine_options_are_checked_with_one_line(tmp_path, capsys, extra, message):
    domain = tmp_path / "ce.domain.json"
    domain.write_text(json.dumps(complete_domain("ce")))
    out = tmp_path / "o.csv"
    assert run_cli_synth(shared_path("ce.csv"), domain, *extra, out=out) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ce.domain.json"]


def test_a_failure_while_writing_in_chunks_leaves_every_file_as_it_was(tmp_path, ce, capsys, monkeypatch):
    from dpsynth_core.release import drawing as release_module

    data = tmp_path / "ce.parquet"
    ce.to_parquet(data)
    domain = tmp_path / "ce.domain.json"
    domain.write_text(json.dumps(complete_domain("ce")))
    out = tmp_path / "out.csv"
    out.write_text("the previous release\n")

    def failing(path, rows, sample, **kwargs):
        sample(min(rows, kwargs["chunk_rows"]))  # the first chunk, as planned
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(release_module, "write_synthetic", failing)
    assert run_cli_synth(data, domain, out=out, card=tmp_path / "card.json") == 2
    assert "No space left on device" in capsys.readouterr().err
    assert out.read_text() == "the previous release\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ce.domain.json", "ce.parquet", "out.csv"]


def test_synthesize_takes_a_source_its_caller_opened(tmp_path, ce):
    from dpsynth_core.engines import open_source

    domain = complete_domain("ce")
    with open_source(ce, domain, engine="duckdb") as source:
        release = synthesize(source, domain, 1.0, random_state=1, out=tmp_path / "o.parquet")
        assert source.marginal(("UrbanRural",)).sum() == len(ce)  # left open for its owner
    assert release.rows == len(pq.read_table(tmp_path / "o.parquet")) == release.card["rows"]["synthetic"]


def test_chunks_come_from_their_own_streams_whatever_order_or_threads_draw_them(tmp_path, ce):
    """A chunk depends only on the model, the release's key, its index and size: threads, order and
    the table returned in memory give the same rows; distinct chunks are distinct draws."""
    from dpsynth_core.release import ChunksAhead
    from dpsynth_core.synthesizers import get_method

    domain = complete_domain("ce")
    for method in ("marginals", "copula"):
        model = get_method(method).cls(epsilon=1.0, random_state=9).fit(ce, domain)
        draw = model.chunk_sampler()
        backwards = [draw(i, 400) for i in reversed(range(3))][::-1]
        with ChunksAhead(draw, [400] * 3, threads=3) as ahead:
            threaded = [ahead.next(400) for _ in range(3)]
        for one, other in zip(backwards, threaded):
            pd.testing.assert_frame_equal(one, other)
        assert not backwards[0].equals(backwards[1])  # two streams, not one stream twice
        assert not model.chunk_sampler()(0, 400).equals(backwards[0])  # each release draws a new key
    kept = synthesize(ce, domain, 1.0, method="marginals", random_state=5, chunk_rows=700)
    synthesize(
        ce, domain, 1.0, method="marginals", random_state=5, chunk_rows=700, engine="pandas", out=tmp_path / "file.csv"
    )
    assert kept.data.to_csv(index=False).encode() == (tmp_path / "file.csv").read_bytes()
    # as Parquet, chunks drawn as Arrow tables (text as dictionaries): read back, the same table
    synthesize(ce, domain, 1.0, method="marginals", random_state=5, chunk_rows=700, out=tmp_path / "file.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "file.parquet"), kept.data, check_dtype=False)
    assert pq.read_schema(tmp_path / "file.parquet").types == pa.Table.from_pandas(kept.data).schema.types


def test_a_real_releases_chunk_sampler_goes_to_spark_s_executors(ce):
    """Pickled as Spark pickles it, with the secure source (whose noise drawn ahead holds locks): the
    executors' chunk is the driver's."""
    from pyspark import cloudpickle

    from dpsynth_core.synthesizers import get_method

    model = get_method("marginals").cls(epsilon=1.0).fit(ce, complete_domain("ce"))
    model.noise_.reserve_gaussian(3.0, 10)  # as a fit may leave it: values drawn ahead, unused
    draw = model.chunk_sampler()
    shipped = cloudpickle.loads(cloudpickle.dumps(draw))
    pd.testing.assert_frame_equal(shipped(1, 300), draw(1, 300))


def _cli(tmp_path, data, out, *extra):
    domain = tmp_path / "ce.domain.json"
    if not domain.exists():
        domain.write_text(json.dumps(complete_domain("ce")))
    return run_cli_synth(data, domain, *extra, seed=2, out=out)


def test_the_cli_reads_a_folder_or_glob_of_parquet_parts_as_the_whole_file(tmp_path, ce, capsys):
    whole, folder = tmp_path / "ce.parquet", tmp_path / "ce-parts"
    ce.to_parquet(whole, index=False)
    folder.mkdir()
    for i, start in enumerate(range(0, len(ce), 400)):
        ce.iloc[start : start + 400].to_parquet(folder / f"part-{i:05d}.parquet", index=False)
    (folder / "_SUCCESS").write_bytes(b"")
    ledger = tmp_path / "ws"
    assert _cli(tmp_path, whole, tmp_path / "whole.csv") == 0
    for data, out in ((folder, "folder.csv"), (f"{folder}/part-*.parquet", "glob.csv")):  # 'auto' chose DuckDB
        assert _cli(tmp_path, data, tmp_path / out, "--workspace", str(ledger)) == 0, capsys.readouterr().err
        assert (tmp_path / out).read_bytes() == (tmp_path / "whole.csv").read_bytes()
    ws = Workspace(ledger)
    assert (
        len(ws.releases.made_from(ws.ledger.dataset_key(ws.ledger.records_key(folder)))) == 2
    )  # the folder and the glob: one ledger
    assert ws.ledger.dataset_key(ws.ledger.records_key(whole)) == ws.ledger.dataset_key(
        ws.ledger.records_key(ce)
    )  # the records' ledger
    capsys.readouterr()
    assert _cli(tmp_path, folder, tmp_path / "pandas.csv", "--engine", "pandas") == 2
    err = capsys.readouterr().err.strip()
    assert "use engine='duckdb' or 'spark' for a folder or glob of Parquet parts" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "pandas.csv").exists()


def test_the_engine_path_notes_unreadable_lines_as_the_in_memory_path(tmp_path, capsys):
    text = shared_path("ce.csv").read_bytes()
    header, first, rest = text.split(b"\n", 2)
    data = tmp_path / "ce.csv"
    data.write_bytes(header + b"\n" + first + b"\n" + b"Qu\x81\x8d\x8f,1,2,3\n" + b'"broken,1\n' + rest)
    notes = {}
    for engine in ("pandas", "duckdb"):
        assert _cli(tmp_path, data, tmp_path / f"{engine}.csv", "--engine", engine) == 0
        notes[engine] = [line for line in capsys.readouterr().err.splitlines() if "could not be read" in line]
    assert notes["duckdb"] == notes["pandas"] and len(notes["pandas"]) == 1
    assert "2 of" in notes["pandas"][0] and "1 not decodable, 1 broken quoting" in notes["pandas"][0]
    domain = complete_domain("ce")  # the API reports it to the publisher the same way
    reports = [
        synthesize(data, domain, 1.0, engine=engine, random_state=1, out=tmp_path / "api.csv").publisher_report[
            "reading"
        ]
        for engine in ("pandas", "duckdb")
    ]
    assert reports[0] == reports[1] and reports[0]["broken"] == 2


def test_the_cli_names_the_output_format_by_the_writers_rule(tmp_path, ce, capsys):
    data = tmp_path / "ce.parquet"
    ce.to_parquet(data, index=False)
    for engine, name in (("pandas", "s.txt"), ("pandas", "s.pq"), ("duckdb", "s"), ("duckdb", "s.PARQ")):
        source = shared_path("ce.csv") if engine == "pandas" else data
        assert _cli(tmp_path, source, tmp_path / name, "--engine", engine) == 0, capsys.readouterr().err
        if output_format(name) == "parquet":
            assert pq.read_table(tmp_path / name).column_names == list(ce.columns)
        else:
            assert (tmp_path / name).read_text().split("\n", 1)[0] == ",".join(ce.columns)
    before = sorted(p.name for p in tmp_path.iterdir())
    capsys.readouterr()
    for engine in ("pandas", "duckdb"):
        assert (
            _cli(
                tmp_path,
                data if engine == "duckdb" else shared_path("ce.csv"),
                tmp_path / "s.csv.gz",
                "--engine",
                engine,
            )
            == 2
        )
        err = capsys.readouterr().err.strip()
        assert "'s.csv.gz': .gz names a compressed file" in err and len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_whole_numbers_past_int64_in_parquet_are_read_not_an_internal_error(tmp_path, capsys):
    """A uint64 column holding 2**64 - 1 (and an int64 minimum beside it): its values are clamped to the
    declared range by the public rule, as any out-of-range value (it was an OverflowError in pyarrow)."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from dpsynth_core.cli import main

    path, domain = tmp_path / "wide.parquet", tmp_path / "wide.domain.json"
    wide = [0, 2**64 - 1, 5, 7] * 25
    pq.write_table(pa.table({"a": pa.array(wide, pa.uint64()), "b": pa.array([-(2**63), 3, 1, 2] * 25)}), path)
    spec = {"type": "integer", "min": 0, "max": 100}
    domain.write_text(json.dumps({"columns": {"a": spec, "b": spec}}))
    out = tmp_path / "out.csv"
    argv = ["synth", str(path), "--domain", str(domain), "--epsilon", "1", "--engine", "duckdb", "--no-ledger"]
    assert main([*argv, "--seed", "3", "--out", str(out)]) == 0, capsys.readouterr().err
    released = pd.read_csv(out)
    assert released["a"].between(0, 100).all() and released["b"].between(0, 100).all()


def test_dates_with_a_time_typed_in_parquet_or_written_in_a_csv_give_one_release(tmp_path, capsys):
    """A timestamp column of a Parquet file and the same moments written as text in a CSV are read by one rule:
    DuckDB's count of either and the in-memory count of the CSV give byte-identical releases."""
    times = pd.date_range("2010-01-01", periods=3000, freq="47min")
    frame = pd.DataFrame({"t": times, "x": ["a", "b", "c"] * 1000})
    frame.to_parquet(tmp_path / "t.parquet")
    frame.assign(t=times.strftime("%Y/%m/%d %H:%M:%S")).to_csv(tmp_path / "t.csv", index=False)
    domain = tmp_path / "t.domain.json"
    moments = {"type": "datetime", "min": "2010-01-01", "max": "2010-04-30 23:59", "step": "minute"}
    domain.write_text(json.dumps({"columns": {"t": moments, "x": {"type": "categorical", "values": ["a", "b", "c"]}}}))
    for name, engine in (("t.parquet", "duckdb"), ("t.csv", "duckdb"), ("t.csv", "pandas")):
        out = tmp_path / f"{name}.{engine}.csv"
        assert run_cli_synth(tmp_path / name, domain, seed=4, engine=engine, out=out) == 0, capsys.readouterr().err
    outputs = [p.read_bytes() for p in tmp_path.glob("t.*.*.csv")]
    assert len(outputs) == 3 and len(set(outputs)) == 1
    released = pd.read_csv(tmp_path / "t.csv.pandas.csv")["t"].dropna()
    assert released.str.fullmatch(r"2010-0[1-4]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]").all()


@pytest.mark.parametrize("method", sorted(m for m in METHODS if not METHODS[m].cls.reads_sources))
def test_a_single_parquet_file_is_read_in_memory_by_the_methods_no_engine_serves(tmp_path, ce, method, capsys):
    """'auto' reads one Parquet file whole for a method that reads a table in memory, as it does a CSV: the same
    release as from the CSV of the same records, on the same records' ledger (a folder of parts needs an engine)."""
    ce = ce.head(600)
    ce.to_csv(tmp_path / "ce.csv", index=False)
    ce.to_parquet(tmp_path / "ce.parquet", index=False)
    ledger = tmp_path / "ws"
    for name in ("ce.csv", "ce.parquet"):
        code = _cli(
            tmp_path, tmp_path / name, tmp_path / f"{name}.out.csv", "--method", method, "--workspace", str(ledger)
        )
        assert code == 0, capsys.readouterr().err
    assert (tmp_path / "ce.parquet.out.csv").read_bytes() == (tmp_path / "ce.csv.out.csv").read_bytes()
    ws = Workspace(ledger)
    assert len(ws.releases.made_from(ws.ledger.dataset_key(ws.ledger.records_key(ce)))) == 2
