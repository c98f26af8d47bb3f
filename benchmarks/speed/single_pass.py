"""The single-pass methods against the floor: a ``cathist`` release of adult next to pandas reading the same
CSV, its stages, and a copula release from a cold start. Not a test: prints tables.

    python -m benchmarks.speed.single_pass             # 7 repetitions of each: about a minute
    python -m benchmarks.speed.single_pass --repeats 3

Data: the bundled example (``assets/examples/adult.csv``, 32,561 rows, 15 columns) with its
saved policy, epsilon 1, secure randomness (as a publisher draws).

* **warm, in one process**: ``pandas.read_csv`` of the file (its defaults: types inferred),
  ``pandas.read_csv`` with every cell as text, and :func:`dpsynth_core.synthesize` with
  ``method="cathist"`` from the path (reading, checking, encoding, counting, noise, sampling,
  the card); the ratio of the medians is the figure to watch (goal: within 10x). Its stages
  are timed apart: :func:`~dpsynth_core.data.tables.read_table`, the fingerprint the ledger
  keys on, and the encoding of the table.
* **cold**: a fresh ``python -c`` process that imports the library and makes one release from
  the path (``copula``, ``cathist``), imports included, timed from outside; then
  ``python -X importtime`` for the modules that one import of the library and a release bring in.

The machine is shared: medians are quoted with the load average at the time. Figures:
docs/benchmarks/speed.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

from benchmarks.common import ROOT

ADULT = ROOT / "assets" / "examples" / "adult.csv"
#: One release in a fresh process, run from the checkout (its folder is on the path), imports included.
_COLD = (
    "import time; t = time.perf_counter(); from dpsynth_core import synthesize; "
    "from dpsynth_core.data.examples import example_declaration; "
    "r = synthesize({path!r}, example_declaration('adult'), 1.0, method={method!r}); "
    "print(time.perf_counter() - t)"
)


def _median(work, repeats: int) -> float:
    work()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def warm(repeats: int) -> list[tuple[str, float]]:
    import pandas as pd

    from dpsynth_core import synthesize
    from dpsynth_core.data.encoding import encode_table
    from dpsynth_core.data.examples import example_declaration
    from dpsynth_core.data.fingerprint import records_fingerprint
    from dpsynth_core.data.tables import read_table
    from dpsynth_core.domain import as_table_domain

    declaration = example_declaration("adult")
    frame, _ = read_table(ADULT)
    domain = as_table_domain(declaration)
    rows = [
        ("pandas.read_csv (types inferred)", _median(lambda: pd.read_csv(ADULT), repeats)),
        (
            "pandas.read_csv (every cell as text)",
            _median(lambda: pd.read_csv(ADULT, dtype=str, keep_default_na=False), repeats),
        ),
        (
            "cathist release from the path (synthesize)",
            _median(lambda: synthesize(str(ADULT), declaration, 1.0, method="cathist"), repeats),
        ),
        ("  read_table", _median(lambda: read_table(ADULT), repeats)),
        (
            "  the ledger's fingerprint of the records (records_fingerprint)",
            _median(lambda: records_fingerprint(frame, bytes(32)), repeats),
        ),
        ("  encode_table (every column to its declared cells)", _median(lambda: encode_table(frame, domain), repeats)),
    ]
    return rows


def cold(repeats: int) -> list[tuple[str, float]]:
    rows = []
    for method in ("copula", "cathist"):
        code = _COLD.format(path=str(ADULT), method=method)
        times, cpu = [], []
        for _ in range(repeats):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, cwd=ROOT)
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        label = f"{method} release of adult, cold (a fresh process, imports included)"
        rows.append((label, statistics.median(times)))
        rows.append(
            (
                "  the same, CPU seconds of the process (on a busy machine, closer to a quiet one's wall time)",
                statistics.median(cpu),
            )
        )
    return rows


def import_times(top: int = 15) -> list[tuple[str, float]]:
    code = _COLD.format(path=str(ADULT), method="copula")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, cwd=ROOT)
    top_level: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
        if not name.startswith(" ") and "." not in name:
            top_level[name] = top_level.get(name, 0.0) + int(cumulative) / 1e6
    return sorted(top_level.items(), key=lambda item: -item[1])[:top]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    load = os.getloadavg()
    rows = warm(args.repeats)
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (start), {os.cpu_count()} cores\n")
    print("| warm, in one process (median) | seconds |\n|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds:.3f} |")
    print(f"| **cathist release / pandas.read_csv** | **{rows[2][1] / rows[0][1]:.1f}x** |\n")
    print("| cold (median) | seconds |\n|---|---|")
    for label, seconds in cold(max(3, args.repeats // 2)):
        print(f"| {label} | {seconds:.2f} |")
    print("\n| top-level import, cold copula release (-X importtime, cumulative) | seconds |\n|---|---|")
    for name, seconds in import_times():
        print(f"| {name} | {seconds:.3f} |")
    load = os.getloadavg()
    print(f"\nload average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (end)")


if __name__ == "__main__":
    main()
