"""An input path that names Parquet files: one file, a folder of parts, or a glob.

A Spark or DuckDB job writes a table as a folder of ``part-*.parquet`` files; the engines
read such a folder, or a glob such as ``'data/*.parquet'``, as one table. Before any work,
:func:`parquet_parts` lists the files such a path names and checks them, so that both
engines read exactly these files and a bad set ends with one line:

* a folder holds ``*.parquet`` files only, directly (no subfolders); other names starting
  with ``_`` or ``.`` (Spark's ``_SUCCESS``, Hadoop's ``.crc`` files) are skipped, as Spark
  skips them;
* a glob ends in ``.parquet``, ``.pq`` or ``.parq``, matches at least one file and no folder,
  and has no ``**`` (DuckDB and Spark read recursive globs differently);
* a Parquet file whose name starts with ``_`` or ``.`` is refused: Spark skips it and DuckDB
  reads it, so the two engines would count different tables;
* every file is Parquet and all share one schema (the same column names, in the same
  order, with the same types): Spark would otherwise take one file's schema and fill the
  others' missing columns with nulls.

Only the files' footers are read here (their schemas).
"""

from __future__ import annotations

import glob
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import DataError

#: File names read as Parquet (by the engines, by ``auto``, and by the release's writer).
PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
GLOB_CHARACTERS = "*?["
_SHOWN = 3


def is_remote(path) -> bool:
    """A path on a cluster's storage (a URL such as ``s3://`` or ``hdfs://``; ``file://`` is local)."""
    text = str(path)
    return "://" in text and not text.startswith("file://")


def is_glob(path) -> bool:
    """A local path with glob characters (``*``, ``?``, ``[``) that is not an existing file's name."""
    if not isinstance(path, (str, Path)) or is_remote(path):
        return False
    return any(c in str(path) for c in GLOB_CHARACTERS) and not Path(path).exists()


def is_file_set(path) -> bool:
    """True for a local folder or glob: a path that names several files read as one table."""
    if not isinstance(path, (str, Path)) or is_remote(path):
        return False
    return Path(path).is_dir() or is_glob(path)


def parquet_named(name) -> bool:
    """True for a name ending in a Parquet suffix, any case (one file, read with no encoding, delimiter or header)."""
    return str(name).lower().rstrip("/").endswith(PARQUET_SUFFIXES)


def names_parquet(path) -> bool:
    """True for a path read as Parquet: a name ending in a Parquet suffix, a folder or a glob."""
    return isinstance(path, (str, Path)) and (parquet_named(path) or is_file_set(path))


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN:,} more" if len(names) > _SHOWN else "")


def _hidden(path: Path) -> bool:
    return path.name.startswith(("_", "."))


def _folder_parts(folder: Path) -> list[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError as exc:
        raise DataError(f"cannot list the folder {folder}: {exc.strerror or exc}") from None
    subfolders = [p.name for p in entries if p.is_dir()]
    if subfolders:
        raise DataError(
            f"the folder {folder} holds folders ({_listed(subfolders)}): only a flat folder of .parquet "
            f"files is read; pass a glob such as '{folder}/*/*.parquet' to read the files under them"
        )
    files = [p for p in entries if not (_hidden(p) and not p.name.lower().endswith(PARQUET_SUFFIXES))]
    others = [p.name for p in files if not p.name.endswith(".parquet")]
    if others:
        raise DataError(
            f"the folder {folder} holds files that are not .parquet files ({_listed(others)}): "
            "move them out, or pass a glob that names the Parquet files"
        )
    if not files:
        raise DataError(f"the folder {folder} holds no .parquet files")
    return files


def _glob_parts(pattern: str) -> list[Path]:
    if "**" in pattern:
        raise DataError(
            f"the glob {pattern!r} has '**': name each folder level instead (for example 'data/*/*.parquet')"
        )
    if not pattern.lower().endswith(PARQUET_SUFFIXES):
        raise DataError(
            f"the glob {pattern!r} must end in .parquet, .pq or .parq (only Parquet files are read as a set)"
        )
    matches = sorted(Path(p) for p in glob.glob(pattern, include_hidden=True))
    if not matches:
        raise DataError(f"no file matches {pattern!r}")
    folders = [str(p) for p in matches if p.is_dir()]
    if folders:
        raise DataError(
            f"the glob {pattern!r} matches folders ({_listed(folders)}): a glob names files; add "
            "'/*.parquet' to name the files in them"
        )
    return matches


def parquet_parts(path) -> list[Path]:
    """The Parquet files a folder or glob names, sorted by path, checked as the module docstring says.

    Raises :class:`~dpsynth_core.errors.DataError` (one line) for a glob matching nothing, an
    empty folder, a folder with other files, a file that is not Parquet, or a mix of schemas.
    """
    text = str(path)
    files = _folder_parts(Path(text)) if Path(text).is_dir() else _glob_parts(text)
    hidden = [str(p) for p in files if _hidden(p)]
    if hidden:
        raise DataError(
            f"{_listed(hidden)}: a Parquet file whose name starts with '_' or '.' is skipped by Spark "
            "and read by DuckDB; rename it or move it out"
        )
    _check_one_schema(files)
    return files


def checked_files(data) -> list[Path] | None:
    """The local Parquet files ``data`` names, checked as a folder's parts are (readable Parquet, plain
    columns), so one bad file ends with the same one line; None for anything else (a CSV, a frame, a URL)."""
    if is_file_set(data):
        return parquet_parts(data)
    if not isinstance(data, (str, Path)) or not names_parquet(data) or is_remote(data):
        return None
    path = Path(str(data).removeprefix("file://"))
    if not path.exists():
        raise DataError(f"file not found: {path}")
    if not path.is_file():
        raise DataError(f"{path} is not a regular file")
    _check_one_schema([path])
    return [path]


def _check_one_schema(files: list[Path]) -> None:
    first = None
    for path in files:
        try:
            schema = pq.read_schema(path)
        except (pa.ArrowException, OSError) as exc:
            raise DataError(
                f"{path} is not a readable Parquet file (empty, truncated, damaged or another "
                f"format: {type(exc).__name__})"
            ) from None
        fields = [(f.name, str(f.type)) for f in schema]
        nested = [f.name for f in schema if pa.types.is_nested(f.type)]
        if nested:
            raise DataError(
                f"column '{nested[0]}' of {path.name} holds lists, maps or structures: only plain "
                "columns (text, numbers, dates) can be read"
            )
        if first is None:
            first = (path, fields)
            continue
        if fields != first[1]:
            raise DataError(
                f"the Parquet files do not share one schema: {path.name} has "
                f"{_schema_difference(fields, first[1])} where {first[0].name} has "
                f"{_schema_difference(first[1], fields)}"
            )


def _schema_difference(mine: list, theirs: list) -> str:
    """The first column where two schemas differ, in a few words."""
    for i in range(max(len(mine), len(theirs))):
        a = mine[i] if i < len(mine) else None
        b = theirs[i] if i < len(theirs) else None
        if a != b:
            return f"column {i + 1} {a[0]!r} ({a[1]})" if a else f"no column {i + 1}"
    return "the same columns"  # pragma: no cover - only called on different schemas


#: Parquet rows read (and hashed by the ledger's fingerprint) at once: memory of a few arrays of this many 64-bit
#: words per column.
BATCH_ROWS = 1 << 18


def parquet_cells(path) -> int:
    """Rows times columns of one Parquet file (a path or its bytes), from its footer only (no record read); 0 for
    what is no readable Parquet (:func:`parquet_batches` then says so)."""
    opened = pa.BufferReader(path) if isinstance(path, (bytes, bytearray, memoryview)) else str(path)
    try:
        meta = pq.read_metadata(opened)
    except (pa.ArrowException, OSError, ValueError):
        return 0
    return meta.num_rows * meta.num_columns


def parquet_batches(path, name: str | None = None):
    """The records of one Parquet file (a path, or its bytes as the app's uploader holds them, called ``name``) as
    DataFrames of at most :data:`BATCH_ROWS` rows; a file that is not readable Parquet ends with one line naming it."""
    if isinstance(path, (bytes, bytearray, memoryview)):
        shown, opened = name or "the file", pa.BufferReader(path)
    else:
        path = Path(path)
        if not path.is_file():
            raise DataError(f"{path} is not a regular file" if path.exists() else f"file not found: {path}")
        shown, opened = path.name, path
    try:
        handle = pq.ParquetFile(opened)
        for batch in handle.iter_batches(batch_size=BATCH_ROWS):
            yield batch.to_pandas(timestamp_as_object=False, date_as_object=True)
    except (pa.ArrowException, OSError, ValueError) as problem:
        if isinstance(problem, DataError):
            raise
        raise DataError(f"{shown} is not a readable Parquet file (empty, truncated or another format)") from None
