"""Which ledger a table belongs to: a keyed fingerprint of its records, not of its bytes.

The ledger must follow the *records*: the same records shuffled, with other line ends, a
blank line, another delimiter, saved as Parquet or split into Parquet parts are the same
data and must find the same lifetime budget. :func:`records_fingerprint` therefore reads
the table (a CSV/TSV by :func:`~dpsynth_core.data.tables.read_table`'s rule, chunk by chunk;
Parquet files batch by batch; a DataFrame as it is) and reduces it to a multiset hash:

* every cell is read by one fixed public rule, the same for every column and every
  declaration (so a changed declaration, a column dropped or re-binned, never opens a fresh
  ledger): missing (no value, or only spaces) / a finite number (text such as ``" 1.50"``
  and a Parquet ``1.5`` are the same number) / otherwise its text without surrounding
  spaces (Parquet dates as ``YYYY-MM-DD``, timestamps as ``YYYY-MM-DD HH:MM:SS``, in UTC);
* each cell gets a 64-bit keyed hash (SipHash-2-4 for text, a keyed mix for numbers),
  each record the chained mix of its cells under its column names (sorted, so column order
  does not matter), and the table two sums of its records' hashes modulo 2^64 (so row order
  and part files do not matter; exact integer arithmetic, vectorised with numpy);
* the fingerprint is the HMAC-SHA-256, under the workspace's secret key, of those sums, the
  number of records and the column names.

The key is 256 random bits kept in the workspace (:mod:`dpsynth_core.workspace`), so a
fingerprint shown on screen or printed by ``ledger`` confirms nothing about the data to
anyone without the workspace: knowing the file but one cell, one cannot test a guess.

Beside the records' fingerprint, :class:`RecordSums` keeps one **column fingerprint** per column
(:class:`RecordsIdentity`): the keyed multiset hash of that column's cells alone, free of its name
and of the other columns, dates, times and numbers with commas read as :func:`_column_reading` says
(``2020-02-10``, ``2020/2/10`` and ``2020-02-10T00:00:00Z`` are one value, ``1234.5``, ``1.234,5`` and
``$1,234.50`` one).
A column of one repeated value gets none (it tells tables apart by nothing). The ledger uses them to find the
records again when the file around them changed (:mod:`dpsynth_core.workspace.matching`): a column
renamed, dropped or added, an index column written by pandas, dates or numbers written another way.

What the records' fingerprint cannot catch: a table whose records differ at all (one record added,
one cell changed, a column added or renamed, a number written with more digits than float64 keeps
excepted) is other data with its own fingerprint; the column fingerprints catch the column changes
(see :mod:`~dpsynth_core.workspace.matching` for what they do not). New versions of one table share a
budget only when the publisher names them (``--dataset NAME``).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataError
from .csvfile import csv_frames
from .formats import read_data, reads_whole
from .one_reading import one_reading_dates, one_reading_numbers
from .parts import checked_files, parquet_batches

#: Bumped whenever the rule above changes (old fingerprints would no longer be found).
VERSION = b"dpsynth records v1"
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(x: np.ndarray) -> np.ndarray:
    """A bijective 64-bit mix (the SplitMix64 finaliser), on uint64 arrays with wrapping arithmetic."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


class _Keys:
    """The sub-keys of one workspace secret (each an HMAC of the secret and a label)."""

    def __init__(self, secret: bytes):
        if not isinstance(secret, (bytes, bytearray)) or len(secret) < 16:
            raise ValueError("the fingerprint key must be at least 16 random bytes")
        self.secret = bytes(secret)
        # SipHash's 16-byte key, given to pandas as 16 ASCII characters (112 random bits)
        self.siphash = "".join(chr(b & 0x7F) for b in self._bytes(b"text")[:16])

    def _bytes(self, label: bytes) -> bytes:
        return hmac.new(self.secret, VERSION + b"/" + label, hashlib.sha256).digest()

    def word(self, label: bytes) -> np.uint64:
        return np.uint64(int.from_bytes(self._bytes(label)[:8], "little"))


def _text_hashes(text: np.ndarray, keys: _Keys) -> np.ndarray:
    hashed = pd.util.hash_array(
        np.asarray(text, dtype=object), encoding="utf8", hash_key=keys.siphash, categorize=False
    )
    return _mix(hashed ^ keys.word(b"text kind"))


def _number_hashes(values: np.ndarray, keys: _Keys) -> np.ndarray:
    bits = (np.asarray(values, dtype=np.float64) + 0.0).view(np.uint64)  # + 0.0: -0.0 is 0.0
    return _mix(_mix(bits ^ keys.word(b"number")) ^ keys.word(b"number kind"))


#: A number written as text: digits with an optional sign, point and exponent (not "inf", "nan", "0x1F").
_NUMBER = r"^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$"


#: A date or time written in ISO 8601 form (a space or ``T`` between, seconds, fraction and zone optional).
_ISO_TIME = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)?$"
)


def _datetime_text(series: pd.Series) -> pa.Array:
    """Moments as one text: in UTC, ``YYYY-MM-DD`` at midnight, else ``YYYY-MM-DD HH:MM:SS[.ffffff]``."""
    if getattr(series.dt, "tz", None) is not None:
        series = series.dt.tz_convert("UTC").dt.tz_localize(None)
    whole = series.dt.strftime("%Y-%m-%d %H:%M:%S.%f").str.rstrip("0").str.rstrip(".")
    return pa.array(series.dt.strftime("%Y-%m-%d").where(series == series.dt.normalize(), whole), pa.string())


def _as_text(values) -> pa.Array:
    """Distinct cells that are not plain numbers or dates, as Arrow text (bytes read as UTF-8)."""
    series = pd.Series(values)
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        return _datetime_text(series)
    out = series.astype(object)
    kind = pd.api.types.infer_dtype(out, skipna=True)
    if kind == "bytes":
        try:
            return pa.array(out.to_numpy(dtype=object), pa.binary()).cast(pa.string())
        except pa.ArrowInvalid:
            raise DataError("holds binary data that is not UTF-8 text") from None
    if kind not in ("string", "empty") and out.map(lambda v: isinstance(v, (list, tuple, dict, np.ndarray))).any():
        raise DataError("holds lists, maps or structures: only plain values (text, numbers, dates) can be read")
    if kind not in ("string", "empty"):
        out = out.astype(str)
    return pa.array(out.to_numpy(dtype=object), pa.string())


def _distinct_hashes(uniques, keys: _Keys) -> tuple[np.ndarray, np.ndarray]:
    """The hash of each distinct cell of a column (see the module docstring for the rule), and its hash
    in the column fingerprints, the same but for ISO dates and times, read as the moment they name."""
    values = np.asarray(uniques) if not isinstance(uniques, pd.api.extensions.ExtensionArray) else None
    missing = keys.word(b"missing")
    if values is not None and values.dtype.kind in "iufb":
        if values.dtype.kind == "b":
            return _text_hashes(np.where(values, "True", "False").astype(object), keys)
        numbers = values.astype(np.float64)
        finite = np.isfinite(numbers)
        out = np.full(len(values), missing, dtype=np.uint64)
        out[finite] = _number_hashes(numbers[finite], keys)
        other = ~finite & ~np.isnan(numbers)
        if other.any():  # infinities: as text, as a CSV holds them
            out[other] = _text_hashes(np.array([str(v) for v in numbers[other]], dtype=object), keys)
        return out, out
    text = pc.utf8_trim_whitespace(_as_text(uniques))
    number = pc.match_substring_regex(text, _NUMBER).to_numpy(zero_copy_only=False)
    numbers = np.full(len(text), np.nan)
    if number.any():
        numbers[number] = pc.cast(pc.filter(text, number), pa.float64()).to_numpy(zero_copy_only=False)
    finite = np.isfinite(numbers)
    out = _text_hashes(text.to_numpy(zero_copy_only=False), keys)
    out[finite] = _number_hashes(numbers[finite], keys)
    out[pc.equal(text, "").to_numpy(zero_copy_only=False)] = missing
    return out, _column_reading(text, out, keys)


def _column_reading(text: pa.Array, hashes: np.ndarray, keys: _Keys) -> np.ndarray:
    """``hashes`` as the column fingerprints read the distinct cells ``text``: dates and times as the moment they
    name, and numbers written with commas as the number they name, wherever a cell (or, for dates written day or
    month first, the column) can be read one way only (:func:`.one_reading.one_reading_dates` and
    :func:`.one_reading.one_reading_numbers`), so a file re-saved in another spreadsheet's form finds its ledger."""
    cells = pd.Series(text.to_numpy(zero_copy_only=False), dtype=object).fillna("")
    dates = one_reading_dates(cells)
    if dates.notna().any():
        text = pa.array(dates.fillna(cells).tolist(), pa.string())
    out = _moments(text, hashes, keys)
    numbers = one_reading_numbers(cells)
    read = np.isfinite(numbers)
    if read.any():
        out = out.copy() if out is hashes else out
        out[read] = _number_hashes(numbers[read], keys)
    return out


def _moments(text: pa.Array, hashes: np.ndarray, keys: _Keys) -> np.ndarray:
    """``hashes`` with every ISO date or time among the distinct cells ``text`` hashed as the moment it names."""
    dated = pc.match_substring_regex(text, _ISO_TIME).to_numpy(zero_copy_only=False)
    if not dated.any():
        return hashes
    moments = pd.to_datetime(
        pd.Series(pc.filter(text, dated).to_numpy(zero_copy_only=False)).str.replace(",", ".", regex=False),
        utc=True,
        format="ISO8601",
        errors="coerce",
    )
    parsed = moments.notna().to_numpy()
    if not parsed.any():
        return hashes
    out = hashes.copy()
    where = np.flatnonzero(dated)[parsed]
    out[where] = _text_hashes(_datetime_text(moments[parsed]).to_numpy(zero_copy_only=False), keys)
    return out


def _cell_hashes(column: pd.Series, keys: _Keys) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's hash in the records' fingerprint and in the column fingerprints (one array when equal)."""
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    distinct, moments = _distinct_hashes(uniques, keys)
    cells = np.append(distinct, keys.word(b"missing"))[codes]  # code -1: missing
    return (cells, cells) if moments is distinct else (cells, np.append(moments, keys.word(b"missing"))[codes])


#: Text columns are hashed several at once while their cells number at most this many.
GROUP_CELLS = 1 << 20
#: From this many rows on, a group's columns are joined end to end in their string dtype (Adult's nine text
#: columns: 0.14 s -> 0.04 s, paid by each new session of the app); fewer rows go through Python objects,
#: whose cost is per cell (10,000 columns of one row: 0.7 s, against 2 s end to end). The same hashes.
CONCAT_ROWS = 1000


def _text_column_hashes(frame: pd.DataFrame, names: list, keys: _Keys) -> dict:
    """The cell hashes of the frame's text columns (pandas' string dtype, as ``read_table`` reads every
    cell; each pair as :func:`_cell_hashes` gives it), several columns in one pass: a cell's hash depends
    on its value only, so they are the hashes column by column gives. One column at a time costs a few
    milliseconds whatever its length: a 10,000-column upload took 10.5 CPU s to fingerprint, now 0.8 s."""
    rows, out, group, kinds = len(frame), {}, [], list(frame.dtypes)
    where = {str(c): i for i, c in enumerate(frame.columns)}

    def flush() -> None:
        if len(group) > 1:
            if rows >= CONCAT_ROWS:  # the columns end to end in their own string dtype
                cells = pd.concat([frame.iloc[:, where[n]] for n in group], ignore_index=True)
            else:  # through Python objects, whose cost is per cell rather than per column
                cells = frame.iloc[:, [where[n] for n in group]].to_numpy(dtype=object).ravel(order="F")
                cells = pd.Series(pd.array(cells, dtype=kinds[where[group[0]]]))
            hashed, moments = _cell_hashes(cells, keys)
            for i, n in enumerate(group):
                out[n] = (hashed[i * rows : (i + 1) * rows], moments[i * rows : (i + 1) * rows])
        group.clear()

    if not 0 < 2 * rows <= GROUP_CELLS:
        return out
    for name in names:
        kind = kinds[where[name]]
        if not isinstance(kind, pd.StringDtype):
            continue
        if group and (kind != kinds[where[group[0]]] or (len(group) + 1) * rows > GROUP_CELLS):
            flush()
        group.append(name)
    flush()
    return out


def _total(hashes: np.ndarray, weights: np.ndarray | None) -> int:
    """The sum of ``hashes`` (each ``weights[i]`` times) modulo 2^64 (numpy's uint64 arithmetic wraps)."""
    return int((hashes if weights is None else hashes * weights).sum(dtype=np.uint64))


@dataclass(frozen=True)
class RecordsIdentity:
    """What the ledger knows of a table: its records' ``fingerprint``, its number of ``rows``, and the
    fingerprints of its ``columns`` that hold more than one value (free of names; see the module docstring)."""

    fingerprint: str
    rows: int
    columns: frozenset[str]


class RecordSums:
    """The running multiset hash of a table's records, and of each column's cells alone (add frames in any
    order, any split)."""

    def __init__(self, secret: bytes):
        self.keys = _Keys(secret)
        self.columns: list | None = None
        self.rows = 0
        self.sums = [0, 0]
        self.column_sums: dict[str, int] = {}
        self.column_first: dict[str, np.uint64] = {}  # each column's first cell, to tell a constant column
        self.varied: set[str] = set()

    def add(self, frame: pd.DataFrame, counts: np.ndarray | None = None) -> None:
        """Add the records of ``frame`` (each ``counts[i]`` times when given: a folded table, one row per
        distinct record, gives the sums of the table it folds, by exact integer arithmetic modulo 2^64)."""
        names = [str(c) for c in frame.columns]
        if len(set(names)) != len(names):
            raise DataError("the table has duplicate column names")
        if self.columns is None:
            self.columns = sorted(names)
        elif sorted(names) != self.columns:
            raise DataError("the parts of the table have different columns")
        if len(frame) == 0:
            return
        keys = self.keys
        weights = None if counts is None else np.asarray(counts, dtype=np.int64).astype(np.uint64)
        record = np.full(len(frame), keys.word(b"record"), dtype=np.uint64)
        by_name = dict(zip(names, frame.columns))
        grouped = _text_column_hashes(frame, self.columns, keys)
        for name in self.columns:
            try:
                cells, moments = grouped[name] if name in grouped else _cell_hashes(frame[by_name[name]], keys)
            except DataError as problem:
                raise DataError(f"column '{name}' {problem}") from None
            except TypeError:
                raise DataError(f"column '{name}' holds values that cannot be read as text, numbers or dates") from None
            record = _mix((record ^ keys.word(b"column " + name.encode("utf-8", "surrogatepass"))) + cells)
            self._add_column(name, moments, weights)
        second = _mix(record ^ keys.word(b"second lane"))
        self.sums[0] = (self.sums[0] + _total(record, weights)) % (1 << 64)
        self.sums[1] = (self.sums[1] + _total(second, weights)) % (1 << 64)
        self.rows += len(frame) if weights is None else int(counts.sum())

    def _add_column(self, name: str, moments: np.ndarray, weights: np.ndarray | None) -> None:
        lane = _total(_mix(moments ^ self.keys.word(b"column lane")), weights)
        self.column_sums[name] = (self.column_sums.get(name, 0) + lane) % (1 << 64)
        first = self.column_first.setdefault(name, moments[0])
        if name not in self.varied and not bool((moments == first).all()):
            self.varied.add(name)

    def identity(self) -> RecordsIdentity:
        """The records' fingerprint with the fingerprints of the columns that hold more than one value."""
        columns = frozenset(
            hmac.new(
                self.keys.secret,
                b"\n".join([VERSION, b"column", str(self.rows).encode(), self.column_sums[n].to_bytes(8, "little")]),
                hashlib.sha256,
            ).hexdigest()
            for n in self.varied
        )
        return RecordsIdentity(self.hexdigest(), self.rows, columns)

    def hexdigest(self) -> str:
        if not self.rows:
            raise DataError("the table has no rows")
        message = b"\n".join(
            [
                VERSION,
                str(self.rows).encode(),
                *(c.encode("utf-8", "surrogatepass") for c in self.columns or []),
                self.sums[0].to_bytes(8, "little") + self.sums[1].to_bytes(8, "little"),
            ]
        )
        return hmac.new(self.keys.secret, message, hashlib.sha256).hexdigest()


def records_fingerprint(data, secret: bytes, *, encoding: str | None = None, delimiter: str | None = None) -> str:
    """The keyed fingerprint of a table's records (see the module docstring), read in bounded memory."""
    return records_identity(data, secret, encoding=encoding, delimiter=delimiter).fingerprint


def records_identity(
    data,
    secret: bytes,
    *,
    encoding: str | None = None,
    delimiter: str | None = None,
    sheet: str | None = None,
    header_row: int | None = None,
    header_rows: int | None = None,
    names: tuple[str, ...] | None = None,
) -> RecordsIdentity:
    """The keyed fingerprints of a table's records and of its columns (see the module docstring), read
    once in bounded memory.

    ``data``: a DataFrame, a CSV/TSV file (read by the in-memory path's own rule, chunk by
    chunk, with ``encoding``, ``delimiter``, ``header_row``, ``header_rows`` and ``names`` as for
    :func:`~dpsynth_core.data.tables.read_table`), a spreadsheet's sheet (``sheet``, the first by default, its header
    at ``header_row`` over ``header_rows``) or a
    statistical package's file (:func:`~.formats.read_data`), a Parquet file, or a folder or glob of
    Parquet parts. ``secret``: the workspace's key.
    """
    sums = RecordSums(secret)
    if isinstance(data, pd.DataFrame):
        sums.add(data)
        return sums.identity()
    if reads_whole(data):  # a spreadsheet or a package's file: read as the release reads it (data/formats.py)
        sums.add(read_data(data, sheet=sheet, header_row=header_row, header_rows=header_rows, names=names)[0])
        return sums.identity()
    files = check_source(data)
    if files is None:
        reading = {"encoding": encoding, "delimiter": delimiter, "header_row": header_row, "header_rows": header_rows}
        reading["names"] = names
        for frame, _ in csv_frames(data, **reading):
            sums.add(frame)
        return sums.identity()
    for file in files:
        for batch in parquet_batches(file):
            sums.add(batch)
    return sums.identity()


def check_source(data) -> list | None:
    """Refuse, in one line, an input that is neither a regular file nor a folder or glob of Parquet
    parts (a device such as ``/dev/zero`` would never end); Parquet files are checked as the engines
    check them (:func:`~.parts.checked_files`). Their list, or None for a CSV."""
    files = checked_files(data)
    if files is not None:
        return files
    path = Path(data)
    if not path.exists():
        raise DataError(f"file not found: {path}")
    if not path.is_file():
        raise DataError(f"{path} is not a data file (a folder of Parquet parts, a device or a pipe?)")
    return None
