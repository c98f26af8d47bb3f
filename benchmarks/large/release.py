"""Whole releases of ``marginals`` and ``cathist`` through DuckDB or Spark on large tables, timed by stage.

    python -m benchmarks.tools.make_large_table --rows 10000000 --out /tmp/dpsynth-large/adult_10m.parquet
    python -m benchmarks.large.release --data /tmp/dpsynth-large/adult_10m.parquet --methods marginals cathist
    python -m benchmarks.large.release --data /tmp/dpsynth-large/adult_10m.parquet --sampling-threads 1
    python -m benchmarks.large.release --data /tmp/dpsynth-large/adult_10m.parquet --engine spark
    python -m benchmarks.large.release --data /tmp/dpsynth-large/adult_100m.parquet --methods marginals
    python -m benchmarks.large.release --data /tmp/dpsynth-large/visits_10m.parquet --methods marginals --person 3

On 10 million rows both methods take about a minute (DuckDB; Spark about 2 minutes); on 100 million rows
about 4 minutes for ``marginals`` and 2 for ``cathist``.

A release as the CLI makes it (``python -m dpsynth_core synth BIG.parquet --engine duckdb
--out OUT.parquet``), epsilon 1, default options, timed by stage:

* ``open``: DuckDB reads the file once for each column's distinct values with their counts;
* ``bounding`` (with ``--person K``, a table made with ``make_large_table --persons``): at most ``K`` rows
  per ``person_id`` kept, as the release keeps them, and the kept rows' distinct values counted again;
* ``counting``: every call the method makes on the source while fitting (the table of
  codes, one pass, then the GROUP BYs; value counts, distinct values for the DP bins);
* ``fitting``: the rest of ``fit``: noise, CatHist, selection, estimation (on the driver);
* ``sampling``: drawing the synthetic rows in chunks of a million, each from its own stream,
  ``--sampling-threads`` chunks at once, and writing them to one Parquet file
  (:func:`dpsynth_core.release.writer.write_synthetic`); with ``--engine spark`` the chunks are drawn
  by Spark's tasks (local mode, ``--threads`` cores) into a folder of parts
  (:func:`dpsynth_core.engines.spark_writer.write_on_spark`), Spark's session start reported apart.

Each case runs in a fresh subprocess; peak memory is the largest resident set of its whole
process tree in each stage, sampled every 50 ms. Times are wall-clock seconds of one run on a
shared machine: the load average is printed. The synthetic file is written next to the data
and deleted; results go to ``benchmarks/results/`` (not committed). Figures:
docs/benchmarks/large-tables.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import RESULTS, ROOT, TreeMemory, large_declaration


class StagedMemory(TreeMemory):
    """Peak resident memory of the process tree, kept per named stage."""

    def __init__(self, interval: float = 0.05):
        super().__init__(interval)
        self.stage, self.peaks = "start", {}

    def enter(self, stage: str) -> None:
        self.peaks[self.stage] = max(self.peaks.get(self.stage, 0), self.peak)
        self.stage, self.peak = stage, 0

    def __exit__(self, *exc):
        super().__exit__(*exc)
        self.peaks[self.stage] = max(self.peaks.get(self.stage, 0), self.peak)


class TimedSource:
    """A counting source that adds the time spent in its calls to ``spent[0]`` (delegates everything)."""

    CALLS = {"marginal", "marginals", "sparse_marginal", "value_counts", "raw_values", "report"}

    def __init__(self, inner, spent, bounding=None):
        self._inner, self._spent, self._bounding = inner, spent, bounding

    def __getattr__(self, name):
        value = getattr(self._inner, name)
        if name == "recode":
            return lambda recodings: TimedSource(value(recodings), self._spent, self._bounding)
        if name == "bound_persons":  # timed apart, in ``bounding`` (seconds, rows kept)
            return lambda unit, rng: self._bounded(value, unit, rng)
        if name not in self.CALLS:
            return value

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return value(*args, **kwargs)
            finally:
                self._spent[0] += time.perf_counter() - start

        return timed

    def _bounded(self, bound_persons, unit, rng):
        start = time.perf_counter()
        twin = bound_persons(unit, rng)
        self._bounding.update(s=time.perf_counter() - start, kept=twin.n_rows)
        return TimedSource(twin, self._spent, self._bounding)


def case(
    method: str,
    data: str,
    memory_limit: str,
    threads: int,
    engine: str = "duckdb",
    sampling_threads: int = 2,
    person: int = 0,
) -> dict:
    import shutil

    import pyarrow.parquet as pq

    from benchmarks.tools.make_large_table import PERSON
    from dpsynth_core import constraints
    from dpsynth_core.domain import TableDomain
    from dpsynth_core.engines import open_source
    from dpsynth_core.engines.spark_writer import write_on_spark
    from dpsynth_core.release import ChunksAhead
    from dpsynth_core.release.writer import chunk_sizes, write_synthetic
    from dpsynth_core.synthesizers import get_method

    spec = large_declaration()
    if PERSON in pq.read_schema(data).names:  # a table of visits (``make_large_table --persons``)
        spec["columns"][PERSON] = {"type": "drop"}
    if person:
        spec["person"] = {"column": PERSON, "max_rows": person}
    domain = TableDomain.from_json(spec)
    out = {"method": method, "data": Path(data).name, "engine": engine, "sampling_threads": sampling_threads}
    target = Path(data).with_name(f"synthetic-{method}-{Path(data).stem}.parquet")
    with StagedMemory() as memory:
        spark = None
        if engine == "spark":
            from dpsynth_core.engines.spark_source import local_session

            start = time.perf_counter()
            spark = local_session(cores=str(threads))
            spark.sparkContext.setLogLevel("ERROR")
            out["session_s"] = time.perf_counter() - start
        memory.enter("open")
        start = time.perf_counter()
        source = open_source(data, domain, engine=engine, memory_limit=memory_limit, threads=threads, spark=spark)
        out["rows"] = source.n_rows
        out["open_s"] = time.perf_counter() - start
        memory.enter("fit")
        spent, bounding = [0.0], {"s": 0.0, "kept": None}
        start = time.perf_counter()
        model = get_method(method).cls(epsilon=1.0, random_state=2026)
        model.fit(TimedSource(source, spent, bounding), domain, max_rows=constraints.MAX_ENGINE_SYNTHETIC_ROWS)  # CLI's
        fit = time.perf_counter() - start
        out["bounding_s"], out["kept_rows"] = bounding["s"], bounding["kept"]
        out["counting_s"], out["fitting_s"] = spent[0], fit - spent[0] - bounding["s"]
        out["rounds"] = getattr(model, "rounds_", None)
        source.close()
        memory.enter("sampling")
        start = time.perf_counter()
        sizes = chunk_sizes(model.rows_, 1_000_000)
        if spark is not None:  # drawn on the executors, a folder of Parquet parts
            out["synthetic_rows"] = write_on_spark(spark, model.chunk_sampler(), sizes, str(target))
        else:  # as synthesize(out=...): chunks from their own streams, drawn ahead in threads
            with ChunksAhead(model.chunk_sampler(arrow=True), sizes, sampling_threads) as ahead:
                out["synthetic_rows"] = write_synthetic(target, model.rows_, ahead.next, fmt="parquet")
        out["sampling_s"] = time.perf_counter() - start
        files = list(target.glob("*.parquet")) if target.is_dir() else [target]
        out["synthetic_mib"] = sum(f.stat().st_size for f in files) / 2**20
        shutil.rmtree(target) if target.is_dir() else target.unlink()
        if spark is not None:
            spark.stop()
    out["total_s"] = out["open_s"] + out["bounding_s"] + out["counting_s"] + out["fitting_s"] + out["sampling_s"]
    out["peak_mib"] = {k: v / 2**20 for k, v in memory.peaks.items() if k != "start"}
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="a Parquet file from benchmarks.tools.make_large_table")
    parser.add_argument("--methods", nargs="+", default=["marginals", "cathist"])
    parser.add_argument("--memory-limit", default="2GB", help="DuckDB's memory limit")
    parser.add_argument("--threads", type=int, default=2, help="DuckDB's threads (Spark: local cores)")
    parser.add_argument("--engine", choices=["duckdb", "spark"], default="duckdb")
    parser.add_argument("--sampling-threads", type=int, default=2, help="chunks drawn at once (DuckDB path)")
    parser.add_argument("--person", type=int, default=0, metavar="K", help="at most K rows per person_id")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.case:
        print(
            json.dumps(
                case(
                    args.case,
                    args.data,
                    args.memory_limit,
                    args.threads,
                    args.engine,
                    args.sampling_threads,
                    args.person,
                )
            )
        )
        return
    results = []
    for method in args.methods:
        before = os.getloadavg()[0]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                __spec__.name,
                "--data",
                args.data,
                "--memory-limit",
                args.memory_limit,
                "--threads",
                str(args.threads),
                "--engine",
                args.engine,
                "--sampling-threads",
                str(args.sampling_threads),
                "--person",
                str(args.person),
                "--case",
                method,
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        if done.returncode:
            print(f"{method}: failed\n{done.stderr[-3000:]}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        r["load"] = [before, os.getloadavg()[0]]
        results.append(r)
        peaks = "  ".join(f"{k} {v:,.0f}" for k, v in r["peak_mib"].items())
        print(
            f"{method:9s} {args.engine} x{args.sampling_threads} rows {r['rows']:>12,}  open {r['open_s']:6.1f} s  "
            + (f"bounding {r['bounding_s']:6.1f} s ({r['kept_rows']:,} kept)  " if args.person else "")
            + f"counting {r['counting_s']:6.1f} s  fitting {r['fitting_s']:6.1f} s  "
            f"sampling+writing {r['sampling_s']:6.1f} s "
            f"({r['synthetic_rows']:,} rows)  total {r['total_s']:7.1f} s  peak MiB: {peaks}  "
            f"load {r['load'][0]:.1f}->{r['load'][1]:.1f}",
            flush=True,
        )
    RESULTS.mkdir(exist_ok=True)
    name = f"release-{Path(args.data).stem}-{args.engine}-x{args.sampling_threads}.json"
    (RESULTS / name).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
