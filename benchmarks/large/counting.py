"""The counts the default method and ``cathist`` need on a large table, per engine (time and peak memory).

    python -m benchmarks.tools.make_large_table --rows 10000000 --out /tmp/dpsynth-large/adult_10m.parquet
    python -m benchmarks.tools.make_large_table --rows 100000000 --out /tmp/dpsynth-large/adult_100m.parquet
    python -m benchmarks.large.counting --data /tmp/dpsynth-large/adult_10m.parquet --engines pandas duckdb spark
    python -m benchmarks.large.counting --data /tmp/dpsynth-large/adult_100m.parquet --engines duckdb

On 10 million rows: about a minute for the three engines (pandas 15 s, DuckDB 3 s, Spark 25 s with its
session); on 100 million rows, DuckDB alone, about 15 seconds.

The counts: every column's 1-way marginal and every pair's 2-way marginal over the
declared cells (the 14 binned columns of adult: 14 + 91 groups), the value counts of the
text column (``native-country``, declared as text), and the encoding report. Stages:

* ``open``: pandas reads the Parquet file whole and encodes it (today's path); DuckDB and
  Spark find each column's distinct values with their counts (one pass) and map them;
* ``count``: the marginals (DuckDB and Spark first build their table of codes, one pass);
* ``session``: starting Spark's JVM (local mode, 2 cores), reported apart.

``duckdb-rows`` is DuckDB with its table of codes never aggregated: the cost on a table
whose records are mostly distinct. (A resampled table has at most adult's 32,561 distinct
records, so plain ``duckdb`` aggregates its table of codes to that many rows.)

Each engine runs in a fresh subprocess; its peak memory is the largest resident set of its
whole process tree (Spark's JVM and Python workers included), sampled every 50 ms from
/proc. Times are wall-clock seconds of one run (the machine is shared: say its load).
Results are printed and written to ``benchmarks/results/`` (not committed). Figures:
docs/benchmarks/large-tables.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import RESULTS, ROOT, TreeMemory, large_declaration


def requests(domain) -> tuple[list, list]:
    binned = [n for n, c in domain.kept.items() if c.binned]
    text = [n for n, c in domain.kept.items() if not c.binned]
    return [(n,) for n in binned] + list(itertools.combinations(binned, 2)), text


def case(engine: str, data: str, memory_limit: str) -> dict:
    import pandas as pd

    from dpsynth_core.domain import TableDomain
    from dpsynth_core.engines import open_source
    from dpsynth_core.engines.memory import MemorySource

    domain = TableDomain.from_json(large_declaration())
    groups, text = requests(domain)
    out = {"engine": engine, "groups": len(groups), "text_columns": text}
    with TreeMemory() as memory:
        spark = None
        if engine == "spark":
            from dpsynth_core.engines.spark_source import local_session

            start = time.perf_counter()
            spark = local_session(cores="2")
            spark.sparkContext.setLogLevel("ERROR")
            out["session_s"] = time.perf_counter() - start
        start = time.perf_counter()
        if engine == "pandas":
            source = MemorySource(pd.read_parquet(data), domain)
        else:
            if engine == "duckdb-rows":
                from dpsynth_core.engines import duckdb_source

                duckdb_source.AGGREGATE_BELOW = 0
            source = open_source(
                data, domain, engine=engine.split("-")[0], memory_limit=memory_limit, threads=2, spark=spark
            )
        out["rows"] = source.n_rows
        out["open_s"] = time.perf_counter() - start
        start = time.perf_counter()
        counts = source.marginals(groups)
        values = {n: source.value_counts(n) for n in text}
        report = source.report()
        out["count_s"] = time.perf_counter() - start
        out["cells_counted"] = int(sum(c.size for c in counts))
        out["text_values"] = {n: len(v) for n, v in values.items()}
        out["out_of_domain"] = sum(r["out_of_domain"] for r in report.values())
        source.close()
        if spark is not None:
            spark.stop()
    out["total_s"] = out["open_s"] + out["count_s"]
    out["peak_mib"] = memory.peak / 2**20
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="a Parquet file from benchmarks.tools.make_large_table")
    parser.add_argument("--engines", nargs="+", default=["pandas", "duckdb", "spark"])
    parser.add_argument("--memory-limit", default="2GB", help="DuckDB's memory limit")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(case(args.case, args.data, args.memory_limit)))
        return
    results = []
    for engine in args.engines:
        done = subprocess.run(
            [sys.executable, "-m", __spec__.name, "--data", args.data, "--memory-limit", args.memory_limit]
            + ["--case", engine],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        if done.returncode:
            print(f"{engine}: failed\n{done.stderr[-3000:]}")
            continue
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        r = results[-1]
        print(
            f"{engine:7s} rows {r['rows']:>12,}  open {r['open_s']:7.1f} s  count {r['count_s']:7.1f} s  "
            f"total {r['total_s']:7.1f} s  peak {r['peak_mib']:7,.0f} MiB"
            + (f"  (session {r['session_s']:.1f} s)" if "session_s" in r else ""),
            flush=True,
        )
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"counting-{Path(args.data).stem}.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
