"""Counting with Apache Spark (PySpark): a Spark DataFrame, or any path Spark can read.

``SparkSource(data, domain, spark=session)`` takes a Spark DataFrame, or a Parquet or CSV
path (local, HDFS, S3, ...). The work runs where the session runs: local mode on one
machine, or a cluster under ``spark-submit``. Only small things travel to the driver:
each column's distinct values with their counts, and the sparse GROUP BY results.

A local CSV is read by :func:`~dpsynth_core.data.tables.read_table` itself, chunk by chunk, into a temporary Parquet
file (see :mod:`dpsynth_core.data.csvfile`); a remote CSV is read by Spark's own reader as UTF-8 with a comma unless
``encoding``/``delimiter`` say otherwise (without the per-record rule: convert such files to Parquet first).
How it counts, and why the counts equal the in-memory path's: see :mod:`.base`; how identical
records are folded first (local Parquet by pyarrow in Spark's tasks): :mod:`.spark_fold`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from ..data.csvfile import csv_to_parquet
from ..data.file_bytes import AUTO_WITH, SPACES
from ..data.formats import check_header_reading
from ..data.gaps import gap_read_columns
from ..data.parts import checked_files, is_remote, names_parquet
from ..domain import TableDomain
from ..errors import DataError
from ..wording import noun
from .base import EngineSource
from .spark_fold import arrow_schema as _arrow_schema
from .spark_fold import arrow_type as _arrow_type
from .spark_fold import column as _column
from .spark_fold import fold, fold_settings, gapped, local_session, read_parquet, utc_wall_time

#: Unquoted empty cells stay "" (as in memory); this text, which no person types, is Spark's null.
_NULL_TEXT = "\x01dpsynth-null\x01"
#: Records are folded into one row per distinct record (with its count, kept by Spark) before the
#: first pass when the first ``SAMPLE_ROWS`` records hold at most one distinct record per
#: ``AGGREGATE_BELOW`` (0: never). Exact either way; only the speed depends on the data.
AGGREGATE_BELOW = 2
SAMPLE_ROWS = 100_000
#: Folded records that number at most this many are brought to the driver and counted there, by
#: the same functions the executors run (no Python workers to start, no more Spark jobs).
DRIVER_ROWS = 1_000_000
_WEIGHT = "__dpsynth_w"


class SparkSource(EngineSource):
    """A table counted by Spark (see the module docstring)."""

    engine = "spark"
    #: Whether the gap columns are read as their gaps (:meth:`_read_gaps`): the records are then folded by Spark,
    #: not from the files, and the ledger keys the records from the files, as they are.
    _gapped = False

    def __init__(
        self,
        data,
        domain: TableDomain,
        *,
        spark=None,
        encoding: str | None = None,
        delimiter: str | None = None,
        memory_limit: str | None = None,
        header_row: int | None = None,
        header_rows: int | None = None,
        names: tuple[str, ...] | None = None,
    ):
        from pyspark.sql import DataFrame, SparkSession

        files = checked_files(data)  # checked before a session starts
        self.spark = spark or SparkSession.getActiveSession() or local_session()
        self._folded, self._every, self._here, self._files = False, False, None, None
        self._temporary, self._persisted = [], []  # folders and kept folds, its twins' too (removed by close)
        self._memory_limit = memory_limit  # of the DuckDB query that keeps a person's rows (:meth:`_bound`)
        try:
            if isinstance(data, DataFrame):
                self.src = data
            elif isinstance(data, (str, Path)):
                self.src = self._read(str(data), files, encoding, delimiter, (header_row, header_rows, names))
            else:
                raise DataError(f"data must be a Spark DataFrame or a path, got {type(data).__name__}")
            self.src = self._read_frame = utc_wall_time(self.src, self.spark)
            self._setup(domain, self.src.columns)
        except BaseException as exc:
            self.close()
            if _from_spark(exc):  # Spark could not read or plan the table: one line, never its message
                raise self._fail(exc) from None
            raise

    def _read(self, path: str, files, encoding, delimiter, header: tuple):
        header = dict(zip(("header_row", "header_rows", "names"), header))
        if files is not None:  # a local folder or glob: exactly the files data/parts.py checked (as DuckDB reads)
            self._files = files
            return read_parquet(self.spark, files)
        if names_parquet(path):
            return self.spark.read.parquet(path)
        if not is_remote(path):  # read_table's own per-record rule, chunk by chunk (see data/csvfile.py)
            self._csv = csv_to_parquet(path.removeprefix("file://"), encoding=encoding, delimiter=delimiter, **header)
            self._files = [self._csv.path]
            return read_parquet(self.spark, self._files)
        from pyspark.sql import functions as F

        if delimiter == SPACES:
            raise DataError("Spark's reader of a CSV on a cluster cannot split fields at runs of spaces: use Parquet")
        check_header_reading(path, **header)  # any refused: Spark's own reader takes the header from the first line
        options = {
            "header": "true",
            "quote": '"',
            "escape": '"',
            "mode": "PERMISSIVE",
            "nullValue": _NULL_TEXT,
            "emptyValue": "",
            "ignoreLeadingWhiteSpace": "false",
            "ignoreTrailingWhiteSpace": "false",
            "encoding": encoding.removeprefix(AUTO_WITH) if encoding else "UTF-8",  # one for the file: auto:X's X
            "sep": delimiter or ",",
        }
        frame = self.spark.read.options(**options).csv(path)
        frame = frame.toDF(*[c.strip() or c for c in frame.columns])  # a header's names as read_table names them
        # A short row's absent cells: "" as Spark's PERMISSIVE reader leaves them null.
        return frame.select([F.coalesce(_column(c), F.lit("")).alias(c) for c in frame.columns])

    def _fail(self, exc, names=()) -> Exception:
        """Spark's failure as one line naming the problem (its error class) and the columns read,
        never Spark's message, which may quote a cell (a value it could not convert); that message
        only with ``DPSYNTH_DEBUG``."""
        import os

        where = f" in {noun(len(names), 'column')} {', '.join(repr(n) for n in names)}" if names else ""
        if os.environ.get("DPSYNTH_DEBUG"):
            lines = [line for line in str(exc).strip().splitlines() if line.strip()]
            detail = lines[0] if lines else type(exc).__name__
        else:
            try:
                kind = exc.getErrorClass() or type(exc).__name__
            except Exception:  # not one of Spark's own exceptions
                kind = type(exc).__name__
            detail = f"{kind}; DPSYNTH_DEBUG=1 shows Spark's message"
        return DataError(f"the table could not be read by Spark{where} ({detail})")

    def _collect(self, frame, names=()):
        try:
            return frame.toArrow()
        except Exception as exc:  # Spark raises its own exception classes from the JVM
            raise self._fail(exc, names) from None

    # --- primitives ------------------------------------------------------------------------

    def _column_names(self) -> list:
        return list(self._read_frame.columns)

    def _person_values(self, column: str) -> tuple[pa.Array, np.ndarray]:
        from pyspark.sql import functions as F

        table = self._collect(
            self._read_frame.groupBy(_column(column).alias("raw")).agg(F.count(F.lit(1)).alias("n")), [column]
        )
        return table.column("raw").combine_chunks(), table.column("n").to_numpy()

    def _bound(self, column: str, raw: pa.Array, codes, persons, ranks) -> None:
        # Local files only, bounded by DuckDB's query out of core (Spark's window and joins over every row took
        # 311 s for ten million rows, DuckDB 10 s) into a Parquet file that every later pass reads.
        import tempfile

        from .duckdb_source import keep_rows_of_files

        if self._files is None:
            raise DataError(
                "Spark keeps at most K rows per person of local files only (a CSV or Parquet: their order ranks a "
                "person's rows): save the table as Parquet here, or use the duckdb engine"
            )
        folder = tempfile.mkdtemp(prefix="dpsynth-spark-persons-")
        self._temporary.append(folder)
        self._files = keep_rows_of_files(
            self._files, column, raw, codes, persons, ranks, folder, memory_limit=self._memory_limit
        )
        self.src = self._read_frame = utc_wall_time(read_parquet(self.spark, self._files), self.spark)
        self._folded, self._every, self._here = False, False, None

    def _read_gaps(self, domain: TableDomain) -> None:
        self.src = gapped(self.spark, self.src, domain, self._distinct(gap_read_columns(domain))[1])
        self._gapped = True

    def _slotted(self, names: list):
        """The source's columns renamed c0, c1, ... (Spark's Arrow functions cannot resolve names with
        dots), then the records' weights when folded."""
        from pyspark.sql import functions as F

        weight = [F.col(_WEIGHT)] if self._folded else []
        return self.src.select([_column(n).alias(f"c{i}") for i, n in enumerate(names)] + weight)

    def _prepare(self, names: list) -> None:
        """Fold identical records into one weighted row, kept by Spark (on the executors), when a
        sample says they are few: every later pass then reads the folded rows (:mod:`.spark_fold`).

        When the whole records (every column, declared or not) are few too, they are folded in the one
        pass over the file, and the ledger's identity of the records (:meth:`records_identity`) hashes
        each distinct record once."""
        if not AGGREGATE_BELOW:
            return
        every = list(self.src.columns)
        sample = self._sample(every)
        if not sample.num_rows:
            return
        self._every = not self._gapped and not any(pa.types.is_nested(f.type) for f in sample.schema)
        self._every = self._every and _few(sample, every)
        if not self._every and not _few(sample, names):
            return
        by = every if self._every else names
        self.src = fold(self.spark, self.src, by, _WEIGHT, None if self._gapped else self._files).persist()
        self._folded = True
        self._persisted.append(self.src)
        with fold_settings(self.spark):  # the fold runs (and is kept) here
            here = self._collect(self.src.limit(DRIVER_ROWS + 1), names)
        if here.num_rows <= DRIVER_ROWS:
            kinds = {n: _arrow_type(self.src.schema[n].dataType) for n in by}
            self._here = pa.table({n: here.column(n).cast(kinds[n]) for n in by} | {_WEIGHT: here.column(_WEIGHT)})
            self.src.unpersist()

    def records_identity(self, secret: bytes):
        """The ledger's keyed fingerprints of the records, every column as the file holds it
        (:func:`~dpsynth_core.data.fingerprint.records_identity`'s, the same for the same records in any
        form): from the records folded on the driver when the source opened (each distinct record hashed
        once, weighted by its count, with no further read of the file), else read from the local files."""
        from ..data.fingerprint import RecordSums
        from ..data.parts import parquet_batches

        sums = RecordSums(secret)
        if self._every and self._here is not None:
            counts = self._here.column(_WEIGHT).to_numpy()
            sums.add(
                self._here.drop_columns([_WEIGHT]).to_pandas(timestamp_as_object=False, date_as_object=True), counts
            )
        elif self._files is not None:
            for file in self._files:
                for batch in parquet_batches(file):
                    sums.add(batch)
        else:
            raise DataError(
                "the ledger keys a Spark DataFrame, or a table on the cluster's storage, only when its records "
                "are few enough to fold on the driver: release it from a local Parquet file, or with --no-ledger"
            )
        return sums.identity()

    def _sample(self, names: list) -> pa.Table:
        """The first ``SAMPLE_ROWS`` records of the columns: read by pyarrow on the driver from a local
        Parquet file (no Spark job: the first job of a fresh session, measured 6-9 s of a 40 s open
        under load), else by Spark. Only the speed depends on it (see ``AGGREGATE_BELOW``)."""
        if self._files is not None:
            import pyarrow.parquet as pq

            batches, rows = [], 0
            with pq.ParquetFile(self._files[0]) as file:
                for batch in file.iter_batches(batch_size=SAMPLE_ROWS, columns=names):
                    batches.append(batch)
                    rows += batch.num_rows
                    if rows >= SAMPLE_ROWS:
                        return pa.Table.from_batches(batches).slice(0, SAMPLE_ROWS)
        return self._collect(self.src.select([_column(n) for n in names]).limit(SAMPLE_ROWS), names)

    def _partials(self, names: list, count, schema, keys: list) -> pa.Table:
        """Run ``count`` (Arrow batches of the slotted columns -> partial counts ``n``) over every
        partition and add the partials by ``keys``: on the executors, or on the driver when the
        folded records are there."""
        from pyspark.sql import functions as F

        if self._here is None:
            return self._collect(
                self._slotted(names).mapInArrow(count, schema).groupBy(keys).agg(F.sum("n").alias("n")), names
            )
        slots = [f"c{i}" for i in range(len(names))] + [_WEIGHT]
        rows = self._here.select(names + [_WEIGHT]).rename_columns(slots)
        partial = pa.Table.from_batches(list(count(iter(rows.to_batches()))), schema=_arrow_schema(schema))
        summed = partial.group_by(keys).aggregate([("n", "sum")])
        return summed.rename_columns([{"n_sum": "n"}.get(c, c) for c in summed.column_names])

    def _distinct(self, names: list) -> tuple[int, dict]:
        from pyspark.sql.types import IntegerType, LongType, StructField, StructType

        # One pass: every partition counts each column's values in its Arrow batches
        # (pyarrow.compute.value_counts, nulls included) and emits one row per value, the value
        # in the column's own slot (v0, v1, ...) so that every type keeps its own; Spark adds
        # the partitions. (GROUPING SETS would expand every row once per column: measured
        # 199 s against DuckDB's 8 s for 10 million rows of 15 columns.)
        kinds = [self.src.schema[n].dataType for n in names]
        schema = StructType(
            [StructField("col", IntegerType())]
            + [StructField(f"v{i}", kind) for i, kind in enumerate(kinds)]
            + [StructField("n", LongType())]
        )
        types = [_arrow_type(kind) for kind in kinds]
        width, folded = len(names), self._folded

        def count(batches):
            import pyarrow.compute as pc

            found = [[] for _ in range(width)]
            for batch in batches:
                for i in range(width):
                    if folded:  # one row per distinct record: add up its weights
                        found[i].append(pa.table({"v": batch.column(i), "n": batch.column(width)}))
                    else:
                        pairs = pc.value_counts(batch.column(i))
                        found[i].append(pa.table({"v": pairs.field(0), "n": pairs.field(1)}))
            for i, parts in enumerate(found):
                if not parts:
                    continue
                summed = pa.concat_tables(parts).group_by("v").aggregate([("n", "sum")])
                size = summed.num_rows
                columns = [pa.array(np.full(size, i, dtype=np.int32))]
                columns += [
                    summed.column("v").combine_chunks().cast(types[j]) if j == i else pa.nulls(size, types[j])
                    for j in range(width)
                ]
                columns.append(summed.column("n_sum").combine_chunks())
                yield pa.RecordBatch.from_arrays(columns, schema=_arrow_schema(schema))

        table = self._partials(names, count, schema, ["col"] + [f"v{i}" for i in range(width)])
        cols = table.column("col").to_numpy()
        counts = table.column("n").to_numpy().astype(np.int64)
        distinct, n_rows = {}, None
        for i, name in enumerate(names):
            mine = np.flatnonzero(cols == i)
            distinct[name] = (table.column(f"v{i}").take(pa.array(mine)).to_pylist(), counts[mine])
            n_rows = int(counts[mine].sum()) if n_rows is None else n_rows
        if not n_rows:
            raise DataError("the table has no rows")
        return n_rows, distinct

    def _materialize(self, maps: dict) -> None:
        # Spark keeps no table of codes: each count request is one pass that encodes and counts
        # every batch where it lies (a cached code table cost one more transfer of every row
        # between the JVM and Python than it saved). Here the maps go to the executors, once.
        self._order = list(self.maps)
        self._lookups = self.spark.sparkContext.broadcast(
            {
                n: (
                    pa.array(list(maps[n].raw), type=_arrow_type(self.src.schema[n].dataType)),
                    pa.array(maps[n].current, type=pa.int64()),
                )
                for n in maps
            }
        )

    def _block_counts(self, blocks: list) -> list:
        from pyspark.sql.types import IntegerType, LongType, StructField, StructType

        # All blocks in one pass: every partition looks its Arrow batches up in the maps
        # (pyarrow.compute.index_in, vectorised), counts each block's dense array with numpy
        # (bincount over the mixed-radix cell) and emits the non-empty cells; Spark adds them.
        if not blocks:
            return []
        cells = self.cells
        used = sorted({n for block in blocks for n in block}, key=self._order.index)
        slot = {n: i for i, n in enumerate(used)}
        plan = [([slot[n] for n in block], [cells[n] for n in block]) for block in blocks]
        lookups, order, folded = self._lookups, used, self._folded
        schema = StructType(
            [StructField("block", IntegerType()), StructField("cell", LongType()), StructField("n", LongType())]
        )

        def count(batches):
            import pyarrow.compute as pc

            table = lookups.value
            totals = [np.zeros(int(np.prod(shape)), dtype=np.int64) for _, shape in plan]
            for batch in batches:
                codes = []
                for i, name in enumerate(order):
                    values, mapped = table[name]
                    found = pc.index_in(batch.column(i), value_set=values, skip_nulls=False)
                    codes.append(pc.take(mapped, found).to_numpy(zero_copy_only=False))
                for total, (columns, shape) in zip(totals, plan):
                    index = np.zeros(batch.num_rows, dtype=np.int64)
                    for column, size in zip(columns, shape):
                        index = index * size + codes[column]
                    if folded:  # weighted rows: exact while a cell's count stays below 2**53
                        weights = batch.column(len(order)).to_numpy().astype(np.float64)
                        total += np.rint(np.bincount(index, weights=weights, minlength=len(total))).astype(np.int64)
                    else:
                        total += np.bincount(index, minlength=len(total))
            for j, total in enumerate(totals):
                present = np.flatnonzero(total)
                if present.size:
                    yield pa.RecordBatch.from_arrays(
                        [
                            pa.array(np.full(present.size, j, dtype=np.int32)),
                            pa.array(present),
                            pa.array(total[present]),
                        ],
                        names=["block", "cell", "n"],
                    )

        table = self._partials(used, count, schema, ["block", "cell"])
        block_ids = table.column("block").to_numpy()
        cell_ids = table.column("cell").to_numpy().astype(np.int64)
        counts = table.column("n").to_numpy().astype(np.int64)
        out = []
        for j, (_, shape) in enumerate(plan):
            mine = block_ids == j
            codes = np.unravel_index(cell_ids[mine], shape)
            out.append(([np.asarray(c, dtype=np.int64) for c in codes], counts[mine]))
        return out

    def close(self) -> None:
        """Remove the temporary copy of a transcoded CSV and the folded records (the session stays:
        it may be the caller's)."""
        if getattr(self, "_owner", None) is not None:
            return
        for frame in getattr(self, "_persisted", []):
            frame.unpersist()
        if self._csv is not None:
            self._csv.cleanup()
        import shutil

        for folder in getattr(self, "_temporary", []):  # the rows kept per person (``_bound``), its twins' too
            shutil.rmtree(folder, ignore_errors=True)


def _few(sample: pa.Table, names: list) -> bool:
    """Whether the sample holds at most one distinct record of ``names`` per ``AGGREGATE_BELOW`` rows."""
    return sample.select(names).group_by(names).aggregate([]).num_rows * AGGREGATE_BELOW <= sample.num_rows


def _from_spark(exc) -> bool:
    """Whether ``exc`` is one of Spark's own errors (from the JVM or PySpark)."""
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    return isinstance(exc, (PySparkException, Py4JError))
