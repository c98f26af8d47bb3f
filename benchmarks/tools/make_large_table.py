"""Build the large tables of ``benchmarks.large`` by resampling adult's rows (never committed; written outside
the repository).

    python -m benchmarks.tools.make_large_table --rows 10000000 --out /tmp/dpsynth-large/adult_10m.parquet
    python -m benchmarks.tools.make_large_table --rows 100000000 --out /tmp/dpsynth-large/adult_100m.parquet
    python -m benchmarks.tools.make_large_table --rows 1000000 --format csv --out /tmp/dpsynth-large/adult_1m.csv
    python -m benchmarks.tools.make_large_table --rows 10000000 --persons 3000000 --out /tmp/dpsynth-large/visits_10m.parquet

Rows are drawn with replacement from the 32,561 rows of the shared ``adult.csv`` (``shared/datasets``
beside the checkout; fixed seed), so every column keeps adult's values, missing cells and cardinality. The
Parquet file stores the integer columns as nullable int64 and the others as strings, as
a data engineer would; a CSV is written as text. Batches of one million rows, so memory
stays small whatever the size: about 2 CPU seconds per million rows. The declaration to use with them is
:func:`benchmarks.common.large_declaration`. ``--persons N`` adds a column ``person_id`` drawn uniformly from
``0 .. N - 1`` (a register of N persons with a Poisson number of rows each: ``benchmarks.large.release --person K``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from benchmarks.common import ROOT, SHARED

BATCH = 1_000_000
#: The column ``--persons`` adds.
PERSON = "person_id"
INTEGER_COLUMNS = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")


def adult_arrow() -> pa.Table:
    """adult.csv as an Arrow table: integer columns as int64, the rest as strings (empty cell -> null)."""
    options = pacsv.ConvertOptions(
        column_types={c: pa.int64() for c in INTEGER_COLUMNS}, strings_can_be_null=True, null_values=[""]
    )
    table = pacsv.read_csv(SHARED / "adult.csv", convert_options=options)
    return table.cast(
        pa.schema([pa.field(f.name, pa.int64() if f.name in INTEGER_COLUMNS else pa.string()) for f in table.schema])
    )


def build(rows: int, out: Path, fmt: str = "parquet", seed: int = 12, persons: int = 0) -> Path:
    """Write ``rows`` resampled adult rows to ``out`` in batches of a million (with ``person_id`` of ``persons``
    persons when not 0); returns the path."""
    base = adult_arrow()
    rng = np.random.default_rng(seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = None
    try:
        for start in range(0, rows, BATCH):
            size = min(BATCH, rows - start)
            batch = base.take(pa.array(rng.integers(0, base.num_rows, size)))
            if persons:
                batch = batch.append_column(PERSON, pa.array(rng.integers(0, persons, size)))
            if writer is None:
                writer = (
                    pq.ParquetWriter(out, batch.schema, compression="zstd")
                    if fmt == "parquet"
                    else pacsv.CSVWriter(out, batch.schema, write_options=pacsv.WriteOptions(quoting_style="none"))
                )
            if fmt == "parquet":
                writer.write_table(batch, row_group_size=BATCH)
            else:
                writer.write_table(batch)
    finally:
        if writer is not None:
            writer.close()
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--out", type=Path, required=True, help="outside the repository")
    parser.add_argument("--format", choices=("parquet", "csv"), default="parquet")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--persons", type=int, default=0, help="add a person_id column of this many persons")
    args = parser.parse_args(argv)
    if ROOT in args.out.resolve().parents:
        sys.exit("write the table outside the repository (it must never be committed)")
    start = time.perf_counter()
    path = build(args.rows, args.out, args.format, args.seed, args.persons)
    print(
        f"{args.rows:,} rows -> {path} ({path.stat().st_size / 2**20:,.0f} MiB) in {time.perf_counter() - start:.1f} s"
    )


if __name__ == "__main__":
    main()
