"""Counting with DuckDB (embedded, no server): CSV and Parquet read out of core, spilled to disk.

``DuckDBSource(path_or_frame, domain, memory_limit="2GB")`` reads a CSV/TSV (by
:func:`~dpsynth_core.data.tables.read_table` itself, chunk by chunk: see :mod:`dpsynth_core.data.csvfile`), one or
more Parquet files (a path or a glob), a pandas DataFrame or an Arrow table. DuckDB keeps at
most ``memory_limit`` in memory and spills the rest to ``temp_directory``, deleted on
:meth:`close` with the temporary Parquet copy of a CSV.

How it counts, and why the counts equal the in-memory path's: see :mod:`.base`.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

from ..data.csvfile import csv_to_parquet
from ..data.parts import checked_files, names_parquet
from ..domain import TableDomain
from ..errors import DataError
from .base import ColumnMap, EngineSource

#: Records are folded into one row per distinct record (with its count) before anything else,
#: and a table of codes into one row per distinct combination, when an estimate (HyperLogLog
#: over the first ``SAMPLE_ROWS`` rows) finds at most one distinct row per this many (0: never).
#: Exact either way; only the speed depends on the data.
AGGREGATE_BELOW = 2
SAMPLE_ROWS = 100_000
#: The column of a folded table's counts.
_WEIGHT = "__dpsynth_w"
#: Columns whose distinct values one query counts (see ``_distinct``).
DISTINCT_COLUMNS = 32


def quote(name: str) -> str:
    """An SQL identifier for any column name."""
    return '"' + str(name).replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def _code_type(cells: int) -> pa.DataType:
    return pa.uint8() if cells <= 1 << 8 else pa.uint16() if cells <= 1 << 16 else pa.uint32()


def _as_pandas(table) -> pd.DataFrame:
    """Records from DuckDB as the ledger's fingerprint reads a Parquet batch (dates as dates, times typed)."""
    return table.to_pandas(timestamp_as_object=False, date_as_object=True)


def _arrow_frame(frame: pd.DataFrame) -> pa.Table:
    """A DataFrame as Arrow; an object column of mixed types becomes text (as the rule reads it: ``str(value)``)."""
    columns = {}
    for name in frame.columns:
        try:
            columns[str(name)] = pa.array(frame[name], from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            column = frame[name].astype(object)
            columns[str(name)] = pa.array(
                column.where(column.isna(), column.astype(str)), from_pandas=True, type=pa.string()
            )
    return pa.table(columns)


class DuckDBSource(EngineSource):
    """A table counted by DuckDB. Args: the data (path, glob, DataFrame or Arrow table), its
    declared domain; ``memory_limit`` (e.g. ``"2GB"``), ``threads``, ``temp_directory`` for
    spilled data; ``encoding``/``delimiter`` of a CSV (detected when None)."""

    engine = "duckdb"
    #: Whether every column's records were folded when the source opened (:meth:`_prepare`).
    _folded = False

    def __init__(
        self,
        data,
        domain: TableDomain,
        *,
        memory_limit: str | None = None,
        threads: int | None = None,
        temp_directory: str | None = None,
        encoding: str | None = None,
        delimiter: str | None = None,
    ):
        files = checked_files(data)  # a folder or glob: listed and checked first
        self._workdir = tempfile.mkdtemp(prefix="dpsynth-duckdb-", dir=temp_directory)
        config = {"temp_directory": self._workdir, "preserve_insertion_order": False}
        if memory_limit:
            config["memory_limit"] = str(memory_limit)
        if threads:
            config["threads"] = int(threads)
        try:
            self.con = duckdb.connect(":memory:", config=config)
            # Time-zone timestamps cast to plain ones as their UTC wall time (as Spark and pandas read
            # them), not the machine's local time: the release must not depend on where it ran.
            self.con.execute("SET TimeZone = 'UTC'")
        except duckdb.Error as exc:
            shutil.rmtree(self._workdir, ignore_errors=True)
            raise DataError(f"DuckDB could not start: {exc}") from None
        self._numbers = itertools.count(1)
        try:
            names = self._run(lambda: self._register(data, files, encoding, delimiter, temp_directory))
            self._table, self._weight = "src", "count(*)"
            self._setup(domain, names)
        except BaseException:
            self.close()
            raise

    # --- the source ------------------------------------------------------------------------

    def _register(self, data, files, encoding, delimiter, temp_directory) -> list:
        if isinstance(data, pd.DataFrame):
            if len(data.columns) != len(set(map(str, data.columns))):
                raise DataError("the table has duplicate column names")
            self.con.register("source_frame", _arrow_frame(data))
            self.con.execute("CREATE VIEW src AS SELECT * FROM source_frame")
        elif isinstance(data, pa.Table):
            self.con.register("source_frame", data)
            self.con.execute("CREATE VIEW src AS SELECT * FROM source_frame")
        elif isinstance(data, (str, Path)) and names_parquet(data):
            # a folder or glob: exactly the files data/parts.py checked (the same list Spark reads)
            listing = ", ".join(_literal(str(f)) for f in files or [data])
            self.con.execute(f"CREATE VIEW src AS SELECT * FROM read_parquet([{listing}])")
        elif isinstance(data, (str, Path)):
            self._csv = csv_to_parquet(data, encoding=encoding, delimiter=delimiter, temp_directory=temp_directory)
            self.con.execute(f"CREATE VIEW src AS SELECT * FROM read_parquet({_literal(str(self._csv.path))})")
        else:
            raise DataError(f"data must be a path, a DataFrame or an Arrow table, got {type(data).__name__}")
        described = self.con.execute("SELECT column_name, column_type FROM (DESCRIBE src)").fetchall()
        self._types = dict(described)  # each column's SQL type, for the maps joined to it
        return [name for name, _ in described]

    def _as_data_error(self, exc) -> Exception:
        if isinstance(exc, duckdb.OutOfMemoryException):
            return DataError(
                "DuckDB ran out of memory within its memory limit: raise --memory-limit (what does not "
                "fit spills to disk, but each step needs some memory)"
            )
        # DuckDB's message may quote a cell (a value it could not convert): shown only on request
        detail = (
            str(exc).strip().splitlines()[0]
            if os.environ.get("DPSYNTH_DEBUG")
            else f"{type(exc).__name__}; DPSYNTH_DEBUG=1 shows DuckDB's message"
        )
        return DataError(f"the table could not be read ({detail})")

    def _run(self, fetch):
        try:
            return fetch()
        except duckdb.Error as exc:
            raise self._as_data_error(exc) from None

    # --- primitives ------------------------------------------------------------------------

    def _distinct(self, names: list) -> tuple[int, dict]:
        # Each column's distinct values and counts, by GROUPING SETS over at most DISTINCT_COLUMNS
        # columns a query: DuckDB keeps one hash table per set, so one query over every column of
        # a wide table needs memory and time that grow with the square of its width (1,500
        # columns: 3.5 GB and 150 s for a 0.6 MB file; in parts of 32 columns, well under 1 GB).
        distinct, n_rows = {}, None
        for start in range(0, len(names), DISTINCT_COLUMNS):
            part = names[start : start + DISTINCT_COLUMNS]
            cols = ", ".join(quote(n) for n in part)
            sets = ", ".join(f"({quote(n)})" for n in part)
            grouping = ", ".join(f"GROUPING({quote(n)}) AS __dpsynth_g{i}" for i, n in enumerate(part))
            sql = (
                f"SELECT {grouping}, {cols}, {self._weight} AS __dpsynth_n FROM {self._table} "
                f"GROUP BY GROUPING SETS ({sets})"
            )
            table = self._run(lambda sql=sql: self.con.sql(sql).to_arrow_table())
            counts = table.column("__dpsynth_n").to_numpy()
            for i, name in enumerate(part):
                mine = np.flatnonzero(table.column(f"__dpsynth_g{i}").to_numpy() == 0)
                values = table.column(name).take(pa.array(mine)).to_pylist()
                distinct[name] = (values, counts[mine])
                n_rows = int(counts[mine].sum()) if n_rows is None else n_rows
        if not n_rows:
            raise DataError("the table has no rows")
        return n_rows, distinct

    def _few_distinct(self, relation: str, names: list) -> bool:
        """Whether the first rows of ``relation`` hold few distinct combinations of ``names`` (a speed choice)."""
        if not AGGREGATE_BELOW or not names:
            return False
        cols = ", ".join(quote(n) for n in names)
        rows, distinct = self._run(
            lambda: self.con.execute(
                f"SELECT count(*), approx_count_distinct(hash({cols})) FROM (SELECT {cols} FROM {relation} "
                f"LIMIT {SAMPLE_ROWS})"
            ).fetchall()[0]
        )
        return rows > 0 and distinct * AGGREGATE_BELOW <= rows

    def _prepare(self, names: list) -> None:
        """Count each distinct record once when they are few: every later pass reads the folded
        table (one row per distinct record of the kept columns), weighted by its counts.

        When the whole records (every column, declared or not) are few too, they are folded first, in
        the one pass over the file: the kept columns' fold is then made from that small table, and the
        ledger's identity of the records (:meth:`records_identity`) hashes each distinct record once."""
        if self._few_distinct("src", list(self._types)):
            self._run(
                lambda: self.con.execute(
                    f"CREATE TABLE folded AS SELECT *, count(*)::BIGINT AS {_WEIGHT} FROM src GROUP BY ALL"
                ).fetchall()
            )
            self._folded, relation, weight = True, "folded", f"sum({_WEIGHT})"
        elif self._few_distinct("src", names):
            relation, weight = "src", "count(*)"
        else:
            return
        cols = ", ".join(quote(n) for n in names)
        self._run(
            lambda: self.con.execute(
                f"CREATE TABLE records AS SELECT {cols}, {weight}::BIGINT AS {_WEIGHT} FROM {relation} GROUP BY ALL"
            ).fetchall()
        )
        self._table, self._weight = "records", f"sum({_WEIGHT})::BIGINT"

    def records_identity(self, secret: bytes):
        """The ledger's keyed fingerprints of the records, every column as the file holds it
        (:func:`~dpsynth_core.data.fingerprint.records_identity`'s, the same for the same records in any
        form): from the records folded when the source opened (each distinct record hashed once, weighted
        by its count, with no further read of the file), else streamed from the file in batches."""
        from ..data.fingerprint import RecordSums
        from ..data.parts import BATCH_ROWS

        sums = RecordSums(secret)
        if self._folded:
            table = self._run(lambda: self.con.sql("SELECT * FROM folded").to_arrow_table())
            counts = table.column(_WEIGHT).to_numpy()
            sums.add(_as_pandas(table.drop_columns([_WEIGHT])), counts)
        else:
            reader = self._run(lambda: self.con.sql("SELECT * FROM src").to_arrow_reader(BATCH_ROWS))
            for batch in reader:
                sums.add(_as_pandas(batch))
        return sums.identity()

    def _materialize(self, maps: dict) -> None:
        number = next(self._numbers)
        table = f"codes_{number}"
        selects, joins = [], []
        for i, (name, column) in enumerate(maps.items()):
            self._register_map(f"map_{number}_{i}", column, self._types[name])
            alias = f"m{i}"
            joins.append(f"LEFT JOIN map_{number}_{i} {alias} ON src.{quote(name)} IS NOT DISTINCT FROM {alias}.raw")
            selects.append(f"{alias}.code AS {quote(name)}")

        def coded(weight: str, relation: str) -> str:  # (no str.format: column names may hold braces)
            return f"SELECT {', '.join(selects)}{weight} FROM {relation} src " + " ".join(joins)

        # Records that share every code need counting only once: keep one row per combination
        # with its count when the records were folded or a sample of the codes has few distinct
        # rows (one query: the join feeds the aggregate). Exact either way.
        sample = f"({coded('', f'(SELECT * FROM {self._table} LIMIT {SAMPLE_ROWS})')})"
        if maps and (self._table != "src" or self._few_distinct(sample, list(maps))):
            self._run(
                lambda: self.con.execute(
                    f"CREATE TABLE {table} AS "
                    + coded(f", {self._weight} AS __dpsynth_w", self._table)
                    + " GROUP BY ALL"
                ).fetchall()
            )
            self._codes, self._count = table, "sum(__dpsynth_w)::BIGINT"
        else:
            self._run(lambda: self.con.execute(f"CREATE TABLE {table} AS " + coded("", self._table)).fetchall())
            self._codes, self._count = table, "count(*)"

    def _register_map(self, name: str, column: ColumnMap, source_type: str) -> None:
        values = list(column.raw)
        try:
            raw = pa.array(values)
        except (OverflowError, pa.ArrowInvalid):  # whole numbers past int64 (a uint64 or HUGEINT column)
            raw = pa.array([None if v is None else str(v) for v in values], type=pa.string())  # DuckDB casts back
        codes = pa.array(column.current, type=_code_type(column.cells))
        self.con.register(f"{name}_arrow", pa.table({"raw": raw, "code": codes}))
        self.con.execute(
            f"CREATE TABLE {name} AS SELECT CAST(raw AS {source_type}) AS raw, code FROM {name}_arrow"
        ).fetchall()
        self.con.unregister(f"{name}_arrow")

    def _block_counts(self, blocks: list) -> list:
        # One GROUP BY per block: measured faster in DuckDB than one GROUPING SETS query over all
        # blocks (each set of GROUPING SETS keeps its own hash table; plain GROUP BYs over
        # small-integer codes use DuckDB's perfect hash aggregate).
        out = []
        for block in blocks:
            cols = ", ".join(quote(c) for c in block)
            query = f"SELECT {cols}, {self._count} AS __dpsynth_n FROM {self._codes} GROUP BY {cols}"
            result = self._run(lambda query=query: self.con.sql(query).fetchnumpy())
            out.append(
                (
                    [np.asarray(result[c], dtype=np.int64) for c in block],
                    np.asarray(result["__dpsynth_n"], dtype=np.int64),
                )
            )
        return out

    def close(self) -> None:
        """Close the connection and delete the spilled data (twins made by recode share it)."""
        if getattr(self, "_owner", None) is not None:
            return
        if getattr(self, "con", None) is not None:
            self.con.close()
            self.con = None
        if self._csv is not None:
            self._csv.cleanup()
        shutil.rmtree(self._workdir, ignore_errors=True)
