"""Reading the publisher's own files: the same records as CSV, Excel, SPSS and Stata, read by the one door
(:func:`dpsynth_core.data.formats.read_data`) into the CSV reader's table. Not a test: prints a table.

    python -m benchmarks.speed.file_formats            # 5 repetitions of each: about half a minute
    python -m benchmarks.speed.file_formats --repeats 3

Data: the bundled example (``assets/examples/adult.csv``, 32,561 rows, 15 columns), its numbers typed, written
once by openpyxl and pyreadstat into a temporary folder. Timed per format (median, warm, one process): the
read into text cells, and the codebook of a package's file (metadata only). The machine is shared: the
load average is printed beside the figures. Figures: docs/benchmarks/speed.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import pandas as pd

from benchmarks.common import ROOT

ADULT = ROOT / "assets" / "examples" / "adult.csv"


def _median(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    from dpsynth_core.data.formats import codebook, read_data
    from tests.publisher_files import package_bytes, typed, xlsx_bytes

    table = typed(pd.read_csv(ADULT, dtype=str, keep_default_na=False))
    table.columns = [c.replace("-", "_") for c in table.columns]  # Stata's variable names
    with tempfile.TemporaryDirectory() as folder:
        files = {".csv": Path(folder) / "adult.csv"}
        table.to_csv(files[".csv"], index=False)
        for suffix in (".xlsx", ".sav", ".dta"):
            files[suffix] = Path(folder) / f"adult{suffix}"
            files[suffix].write_bytes(xlsx_bytes(table) if suffix == ".xlsx" else package_bytes(table, suffix))
        print(f"load average {os.getloadavg()[0]:.2f}; {len(table):,} rows x {table.shape[1]} columns")
        print(f"{'format':8} {'size':>10} {'read (s)':>9} {'codebook (s)':>13}")
        for suffix, path in files.items():
            read = _median(lambda p=path: read_data(p), args.repeats)
            book = _median(lambda p=path: codebook(p), args.repeats) if suffix in (".sav", ".dta") else None
            shown = f"{book:13.3f}" if book is not None else f"{'':>13}"
            print(f"{suffix:8} {path.stat().st_size / 1e6:9.1f}M {read:9.3f} {shown}")
        print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
