"""Spark's fold of the records (one row per distinct record, with its count), how it reads local Parquet
(:func:`read_parquet`, :func:`utc_wall_time`) and a column declared past another (:func:`gapped`), the Arrow types
Spark exchanges, and the local session (:func:`local_session`).

:func:`fold` groups a Spark DataFrame by some of its columns and counts each group, on the executors.
Local Parquet files (a file, a folder of parts, a CSV's Parquet copy) whose columns pyarrow reads as
Spark does are folded by Spark's tasks with pyarrow: each task reads its row groups itself, text kept
dictionary-encoded, groups them (``Table.group_by``) and hands Spark only its groups, which Spark adds
by record. Spark's own reader and hash aggregate did the same work on 10 million rows of 15 columns in
about 20 CPU seconds (a profile of its JVM: half of it probing and comparing the 15-column keys of its
hash map, a fifth copying text cells out of Parquet's dictionaries into each key), pyarrow in about 2.5
(docs/benchmarks/large-tables.md). Other inputs (a Spark DataFrame, a path on the cluster's storage, a
column of another type) are folded by Spark's aggregate. Either way the result is the same records with
the same counts: Spark's final GROUP BY also merges what pyarrow keeps apart (``-0.0`` and ``0.0``, NaNs).
"""

from __future__ import annotations

from contextlib import contextmanager

import pyarrow as pa

#: Spark's settings while it folds the records itself (restored after, the session may be the caller's):
#: without the two-level "fast" hash map, whose probes miss on wide keys (15 columns, 6 of them text) and
#: then fall back to the ordinary map, Spark's fold of 10 million rows took 20-45% less time.
FOLD_SETTINGS = {"spark.sql.codegen.aggregate.map.twolevel.enabled": "false"}

#: A task adds up the groups of the row groups it read so far once they hold this many rows.
COMBINE_ROWS = 1 << 20


@contextmanager
def fold_settings(spark):
    """The session's SQL settings changed to :data:`FOLD_SETTINGS` for the block, then put back as they were
    (the session may be the caller's)."""
    conf = spark.conf
    before = {key: conf.get(key, None) for key in FOLD_SETTINGS}
    for key, value in FOLD_SETTINGS.items():
        conf.set(key, value)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                conf.unset(key)
            else:
                conf.set(key, value)


def fold(spark, frame, names: list, weight: str, files=None):
    """``frame`` grouped by the columns ``names``, with each group's number of records in column ``weight``
    (a lazy DataFrame: the work runs when it is first used). ``files``: the local Parquet files ``frame``
    reads, every column as Spark reads it (None: ``frame`` is anything else)."""
    from pyspark.sql import functions as F

    kinds = {f.name: f.dataType for f in frame.schema.fields}
    stored = None if files is None else arrow_reads_as_spark(files, names)
    if stored is None:
        return frame.groupBy([column(n) for n in names]).agg(F.count(F.lit(1)).alias(weight))
    slots = [f"c{i}" for i in range(len(names))]
    target = pa.schema(
        [pa.field(s, arrow_type(kinds[n])) for s, n in zip(slots, names)] + [pa.field(weight, pa.int64())]
    )
    tasks = _tasks(_row_groups(files), spark.sparkContext.defaultParallelism)
    text = [
        n for n in names if pa.types.is_string(stored.field(n).type) or pa.types.is_large_string(stored.field(n).type)
    ]

    def fold_pieces(batches):
        import pyarrow.parquet as pq

        parts = []
        for batch in batches:
            for task in batch.column(0).to_pylist():
                for path, group in tasks[task]:
                    with pq.ParquetFile(path, read_dictionary=text) as file:
                        table = file.read_row_group(group, columns=names, use_threads=False)
                    parts.append(_grouped(table.rename_columns(slots).unify_dictionaries(), target))
                    if sum(p.num_rows for p in parts) > COMBINE_ROWS:  # the task's memory: its groups, not its rows
                        parts = [_grouped(pa.concat_tables(parts), target)]
        if parts:
            yield from _grouped(pa.concat_tables(parts), target).to_batches()

    from pyspark.sql.pandas.types import from_arrow_schema

    partial = spark.range(0, len(tasks), numPartitions=max(1, len(tasks))).mapInArrow(
        fold_pieces, from_arrow_schema(target)
    )
    summed = partial.groupBy(slots).agg(F.sum(weight).alias(weight))
    return summed.select([F.col(s).alias(n) for s, n in zip(slots, names)] + [F.col(weight)])


def _grouped(table: pa.Table, target: pa.Schema) -> pa.Table:
    """The distinct rows of ``table`` (its columns named as ``target``'s) with their counts, as ``target``:
    rows counted once, or the weights of a table already grouped added up."""
    keys, weight = target.names[:-1], target.names[-1]
    if weight in table.column_names:
        out = table.group_by(keys, use_threads=False).aggregate([(weight, "sum")])
        counts = out.column(f"{weight}_sum")
    else:
        out = table.group_by(keys, use_threads=False).aggregate([([], "count_all")])
        counts = out.column("count_all")
    columns = [out.column(k).cast(target.field(k).type) for k in keys]
    return pa.Table.from_arrays(columns + [counts.cast(pa.int64())], schema=target)


def _row_groups(files) -> list:
    """Every row group of the files, as (path, index, rows)."""
    import pyarrow.parquet as pq

    out = []
    for path in files:
        with pq.ParquetFile(path) as file:
            out += [(str(path), i, file.metadata.row_group(i).num_rows) for i in range(file.metadata.num_row_groups)]
    return out


def _tasks(pieces: list, cores: int) -> list:
    """The row groups cut in order into at most ``cores`` runs of about as many rows each, one a task
    (each task's groups then cross to Spark once: 10 tasks of one row group each, a million rows of
    adult's records each, handed Spark five times the groups and took twice the time)."""
    total, before, out = sum(rows for *_, rows in pieces) or 1, 0, {}
    count = max(1, min(cores, len(pieces)))
    for path, group, rows in pieces:
        out.setdefault(min(count - 1, before * count // total), []).append((path, group))
        before += rows
    return list(out.values())


def read_parquet(spark, files):
    """The local Parquet files as a Spark DataFrame; when pyarrow reads every column as Spark does, under
    the schema of their first file (Spark's reader then opens no footer before it reads rows: measured
    1.4 s against 2.7-3.0 s on a fresh session, and no rows are read by Spark when the records fold)."""
    import pyarrow.parquet as pq
    from pyspark.sql.pandas.types import from_arrow_type
    from pyspark.sql.types import StructField, StructType

    paths = [str(f) for f in files]
    stored = arrow_reads_as_spark(files, pq.read_schema(files[0]).names) if files else None
    if stored is None or any(pa.types.is_unsigned_integer(f.type) for f in stored):  # Spark widens those
        return spark.read.parquet(*paths)
    schema = StructType([StructField(f.name, from_arrow_type(f.type), True) for f in stored])
    return spark.read.schema(schema).parquet(*paths)


def arrow_reads_as_spark(files, names: list) -> pa.Schema | None:
    """The files' schema when pyarrow reads their columns ``names`` as the values Spark reads: integers,
    floats, booleans, text and dates (cast to Spark's Arrow type, exactly); else None (timestamps,
    decimals, 64-bit unsigned integers and the rest are left to Spark's reader)."""
    import pyarrow.parquet as pq

    schema = pq.read_schema(files[0])  # the parts share one schema (data/parts.py checked them)
    exact = (pa.uint8(), pa.uint16(), pa.uint32(), pa.float32(), pa.float64(), pa.bool_(), pa.date32())
    for name in names:
        if schema.get_field_index(name) < 0:
            return None
        kind = schema.field(name).type
        if not (pa.types.is_signed_integer(kind) or kind in exact or pa.types.is_string(kind)):
            if not pa.types.is_large_string(kind):
                return None
    return schema


def column(name: str):
    """A Spark column by its exact name (dots, spaces and backticks included)."""
    from pyspark.sql import functions as F

    return F.col("`" + str(name).replace("`", "``") + "`")


def arrow_schema(schema) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(schema)


def arrow_type(kind) -> pa.DataType:
    """The Arrow type Spark gives a column of this Spark type in ``mapInArrow``."""
    from pyspark.sql.pandas.types import to_arrow_type

    return to_arrow_type(kind)


def utc_wall_time(frame, spark):
    """Time-zone timestamps (Spark's ``TimestampType``) as plain timestamps of their UTC wall-clock
    time, as DuckDB and the records' fingerprint read them (Arrow needs no session time zone then)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampType

    zoned = [f.name for f in frame.schema.fields if isinstance(f.dataType, TimestampType)]
    if not zoned:
        return frame
    zone = spark.conf.get("spark.sql.session.timeZone")
    return frame.select(
        [
            F.to_utc_timestamp(column(f.name), zone).cast("timestamp_ntz").alias(f.name)
            if f.name in zoned
            else column(f.name)
            for f in frame.schema.fields
        ]
    )


def local_session(app: str = "dpsynth", cores: str = "*", java_options: str = ""):
    """A local SparkSession bound to the loopback interface, without its web UI; its Python
    workers run this interpreter (so they find the same packages). ``java_options``: for the
    driver's JVM (the tests start theirs with less JIT compilation: short jobs, a quicker start)."""
    import os
    import sys

    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder
    if java_options:
        builder = builder.config("spark.driver.extraJavaOptions", java_options)
    return (
        builder.master(f"local[{cores}]")
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )


def gapped(spark, frame, domain, distinct: dict):
    """``frame`` with each gap column of ``domain`` read as its gap past its source, as the in-memory path reads it
    (:func:`~dpsynth_core.data.gaps.with_gaps`): each cell of the two columns looked up among their distinct values'
    readings (:func:`~dpsynth_core.data.gaps.gap_readings`; ``distinct`` as the source's ``_distinct`` gives them) in
    Spark's tasks, with ``pyarrow.compute.index_in`` as the counts look codes up, and subtracted there (a lazy
    DataFrame; missing where either cell is)."""
    from pyspark.sql.types import DoubleType, LongType, StructField, StructType

    from ..data.gaps import gap_readings

    names, kinds = list(frame.columns), {f.name: f.dataType for f in frame.schema.fields}
    sources = {n: c.derived.source for n, c in domain.gaps.items()}
    readings = {
        n: (pa.array(list(values), type=arrow_type(kinds[n])), pa.array(numbers, mask=~readable))
        for n, (values, numbers, readable) in gap_readings(domain, distinct).items()
    }
    real = {n for n in sources if pa.types.is_floating(readings[n][1].type)}
    slots = [f"c{i}" for i in range(len(names))]  # Spark's Arrow functions cannot resolve names with dots
    schema = StructType(
        [
            StructField(s, (DoubleType() if n in real else LongType()) if n in sources else kinds[n], True)
            for s, n in zip(slots, names)
        ]
    )
    shared, target = spark.sparkContext.broadcast(readings), arrow_schema(schema)

    def read(batches):
        import pyarrow.compute as pc

        table = shared.value

        def number(batch, name):
            values, numbers = table[name]
            found = pc.index_in(batch.column(names.index(name)), value_set=values, skip_nulls=False)
            return pc.take(numbers, found)

        for batch in batches:
            columns = [
                pc.subtract(number(batch, n), number(batch, sources[n])) if n in sources else batch.column(i)
                for i, n in enumerate(names)
            ]
            yield pa.RecordBatch.from_arrays(columns, schema=target)

    slotted = frame.select([column(n).alias(s) for n, s in zip(names, slots)])
    return slotted.mapInArrow(read, schema).toDF(*names)
