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
from ..data.gaps import gap_read_columns, gap_readings
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
#: The column of a frame's row numbers (the table's order, which bounding rows per person ranks by).
_ROW = "__dpsynth_row"


def quote(name: str) -> str:
    """An SQL identifier for any column name."""
    return '"' + str(name).replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


def numbered_files(listing: str) -> tuple[str, str]:
    """``(relation, order)``: the Parquet files of ``listing`` (SQL string literals, comma-separated) with every
    row's place, and the ORDER BY that puts the rows in the table's order (the files' in the listing, then each
    file's rows)."""
    relation = (
        f"(SELECT *, list_position([{listing}], __dpsynth_file) AS __dpsynth_part FROM "
        f"read_parquet([{listing}], file_row_number=true, filename='__dpsynth_file'))"
    )
    return relation, "__dpsynth_part, file_row_number"


def register_pairs(con, name: str, values, codes, source_type: str) -> None:
    """A table ``name`` of (raw, code): ``values`` in the column's own SQL type, each with its code."""
    try:
        raw = values if isinstance(values, pa.Array) else pa.array(values)
    except (OverflowError, pa.ArrowInvalid):  # whole numbers past int64 (a uint64 or HUGEINT column)
        raw = pa.array([None if v is None else str(v) for v in values], type=pa.string())  # DuckDB casts back
    con.register(f"{name}_arrow", pa.table({"raw": raw, "code": codes}))
    con.execute(f"CREATE TABLE {name} AS SELECT CAST(raw AS {source_type}) AS raw, code FROM {name}_arrow").fetchall()
    con.unregister(f"{name}_arrow")


def kept_rows(
    con, number: int, base: str, numbered: tuple, types: dict, column: str, raw, codes, persons, ranks
) -> str:
    """The query of the rows kept per person (:mod:`.persons`, step 4) over ``base`` (every row of the table whose
    columns are ``types``, names to SQL types) and ``numbered`` (:func:`numbered_files`'s pair, or a frame's): the
    rows of the persons past the bound (their identifiers ``raw``, coded ``codes``) ranked in the table's order,
    those at the kept ``(persons, ranks)`` pairs kept, every other person's rows kept whole. Registers its two
    small tables on ``con`` (named with ``number``)."""
    relation, order = numbered
    kept, persons_map = f"kept_{number}", f"persons_{number}"
    register_pairs(con, persons_map, raw, codes, types[column])
    con.register(kept, pa.table({"p": np.asarray(persons, np.int64), "i": np.asarray(ranks, np.int64)}))
    cols, ident = ", ".join(quote(n) for n in types), quote(column)
    return (
        f"SELECT {cols} FROM (SELECT r.*, m.code AS __dpsynth_p, row_number() OVER (PARTITION BY m.code ORDER BY "
        f"{order}) - 1 AS __dpsynth_i FROM {relation} r JOIN {persons_map} m "
        f"ON r.{ident} IS NOT DISTINCT FROM m.raw) t "
        f"SEMI JOIN {kept} k ON t.__dpsynth_p = k.p AND t.__dpsynth_i = k.i "
        f"UNION ALL SELECT {cols} FROM {base} b ANTI JOIN {persons_map} m ON b.{ident} IS NOT DISTINCT FROM m.raw"
    )


def keep_rows_of_files(
    files: list, column: str, raw, codes, persons, ranks, folder: str, *, memory_limit: str | None = None
) -> list:
    """The rows kept per person of local Parquet ``files`` (:func:`kept_rows`), written by DuckDB, out of core, to
    Parquet files in ``folder`` (which it also spills to, beyond ``memory_limit``, e.g. ``"2GB"``: DuckDB's default,
    80% of the machine, when None); returns their paths. How the Spark engine bounds."""
    listing = ", ".join(_literal(str(f)) for f in files)
    config = {"temp_directory": folder, "preserve_insertion_order": False}
    con = duckdb.connect(":memory:", config=config | ({"memory_limit": str(memory_limit)} if memory_limit else {}))
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(f"CREATE VIEW src AS SELECT * FROM read_parquet([{listing}])")
        types = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE src)").fetchall())
        query = kept_rows(con, 1, "src", numbered_files(listing), types, column, raw, codes, persons, ranks)
        target = Path(folder) / "kept.parquet"
        con.execute(f"COPY ({query}) TO {_literal(str(target))} (FORMAT parquet)").fetchall()
    except duckdb.Error as exc:
        raise DataError(f"the rows per person could not be kept ({type(exc).__name__})") from None
    finally:
        con.close()
    return [target]


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
    spilled data; ``encoding``/``delimiter`` of a CSV (detected when None), and its header's ``header_row``,
    ``header_rows`` and ``names`` (:func:`~dpsynth_core.data.csvfile.csv_frames`')."""

    engine = "duckdb"
    #: Whether every column's records were folded when the source opened (:meth:`_prepare`).
    _folded = False
    #: The SQL types of the gap columns as counted: their gaps' (:meth:`_read_gaps`).
    _counted_types: dict = {}

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
        header_row: int | None = None,
        header_rows: int | None = None,
        names: tuple[str, ...] | None = None,
    ):
        files = checked_files(data)
        reading = {"encoding": encoding, "delimiter": delimiter, "header_row": header_row}
        reading.update(header_rows=header_rows, names=names)  # a folder or glob: listed and checked first
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
            names = self._run(lambda: self._register(data, files, reading, temp_directory))
            self._base, self._table, self._weight = "src", "src", "count(*)"
            self._setup(domain, names)
        except BaseException:
            self.close()
            raise

    # --- the source ------------------------------------------------------------------------

    def _register(self, data, files, reading: dict, temp_directory) -> list:
        if isinstance(data, (pd.DataFrame, pa.Table)):
            if isinstance(data, pd.DataFrame) and len(data.columns) != len(set(map(str, data.columns))):
                raise DataError("the table has duplicate column names")
            table = _arrow_frame(data) if isinstance(data, pd.DataFrame) else data
            self.con.register("source_frame", table.append_column(_ROW, pa.array(np.arange(len(table)))))
            self.con.execute(f"CREATE VIEW src AS SELECT * EXCLUDE ({_ROW}) FROM source_frame")
            self._numbered = ("source_frame", _ROW)
        elif isinstance(data, (str, Path)):
            if names_parquet(data):  # a folder or glob: exactly the files data/parts.py checked (as Spark reads)
                listing = ", ".join(_literal(str(f)) for f in files or [data])
            else:
                self._csv = csv_to_parquet(data, temp_directory=temp_directory, **reading)
                listing = _literal(str(self._csv.path))
            self.con.execute(f"CREATE VIEW src AS SELECT * FROM read_parquet([{listing}])")
            self._numbered = numbered_files(listing)
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
        if self._base == "src" and self._few_distinct("src", list(self._types)):
            self._run(
                lambda: self.con.execute(
                    f"CREATE TABLE folded AS SELECT *, count(*)::BIGINT AS {_WEIGHT} FROM src GROUP BY ALL"
                ).fetchall()
            )
            self._folded, relation, weight = True, "folded", f"sum({_WEIGHT})"
        elif self._few_distinct(self._base, names):
            relation, weight = self._base, "count(*)"
        else:
            return
        cols, table = ", ".join(quote(n) for n in names), f"records_{next(self._numbers)}"
        self._run(
            lambda: self.con.execute(
                f"CREATE TABLE {table} AS SELECT {cols}, {weight}::BIGINT AS {_WEIGHT} FROM {relation} GROUP BY ALL"
            ).fetchall()
        )
        self._table, self._weight = table, f"sum({_WEIGHT})::BIGINT"

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

    def _column_names(self) -> list:
        return list(self._types)

    def _person_values(self, column: str) -> tuple[pa.Array, np.ndarray]:
        query = f"SELECT {quote(column)} AS raw, count(*) AS n FROM src GROUP BY ALL"
        table = self._run(lambda: self.con.sql(query).to_arrow_table())
        return table.column("raw").combine_chunks(), table.column("n").to_numpy()

    def _bound(self, column: str, raw: pa.Array, codes: np.ndarray, persons: np.ndarray, ranks: np.ndarray) -> None:
        number = next(self._numbers)
        query = kept_rows(self.con, number, "src", self._numbered, self._types, column, raw, codes, persons, ranks)
        table = f"bounded_{number}"
        self._run(lambda: self.con.execute(f"CREATE TABLE {table} AS {query}").fetchall())
        self._base, self._table, self._weight, self._folded = table, table, "count(*)", False

    def _read_gaps(self, domain: TableDomain) -> None:
        number, relation = next(self._numbers), self._base
        joins, alias, distinct = [], {}, self._distinct(gap_read_columns(domain))[1]
        for i, (name, (values, numbers, readable)) in enumerate(gap_readings(domain, distinct).items()):
            numbers = pa.array(numbers, mask=~readable)  # missing where unreadable: so is the gap
            register_pairs(self.con, f"reading_{number}_{i}", values, numbers, self._types[name])
            alias[name] = f"g{i}"
            joins.append(f"LEFT JOIN reading_{number}_{i} g{i} ON r.{quote(name)} IS NOT DISTINCT FROM g{i}.raw")
        selects = [
            f"{alias[n]}.code - {alias[domain.gaps[n].derived.source]}.code AS {quote(n)}"
            if n in domain.gaps
            else f"r.{quote(n)}"
            for n in self._types
        ]
        view = f"gaps_{number}"
        sql = f"CREATE VIEW {view} AS SELECT {', '.join(selects)} FROM {relation} r {' '.join(joins)}"
        self._run(lambda: self.con.execute(sql).fetchall())
        counted = dict(self.con.execute(f"SELECT column_name, column_type FROM (DESCRIBE {view})").fetchall())
        self._counted_types = {n: counted[n] for n in domain.gaps}
        self._base = self._table = view

    def _materialize(self, maps: dict) -> None:
        number = next(self._numbers)
        table = f"codes_{number}"
        selects, joins = [], []
        for i, (name, column) in enumerate(maps.items()):
            self._register_map(f"map_{number}_{i}", column, self._counted_types.get(name, self._types[name]))
            alias = f"m{i}"
            joins.append(f"LEFT JOIN map_{number}_{i} {alias} ON src.{quote(name)} IS NOT DISTINCT FROM {alias}.raw")
            selects.append(f"{alias}.code AS {quote(name)}")

        def coded(weight: str, relation: str) -> str:  # (no str.format: column names may hold braces)
            return f"SELECT {', '.join(selects)}{weight} FROM {relation} src " + " ".join(joins)

        # Records that share every code need counting only once: keep one row per combination
        # with its count when the records were folded or a sample of the codes has few distinct
        # rows (one query: the join feeds the aggregate). Exact either way.
        sample = f"({coded('', f'(SELECT * FROM {self._table} LIMIT {SAMPLE_ROWS})')})"
        if maps and (self._table != self._base or self._few_distinct(sample, list(maps))):
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
        codes = pa.array(column.current, type=_code_type(column.cells))
        register_pairs(self.con, name, list(column.raw), codes, source_type)

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
