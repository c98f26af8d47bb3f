"""The keyed fingerprint of a table's records (dpsynth_core.data.fingerprint): the same records in any
file form give one fingerprint, one changed cell another, and without the workspace's key it
confirms nothing."""

from __future__ import annotations

import hashlib

import pandas as pd

from dpsynth_core.data.fingerprint import RecordSums, records_fingerprint

KEY = bytes(range(32))


def test_the_fingerprint_follows_the_records_in_any_form(record_forms):
    forms = ["a.csv", "b.csv", "c.tsv", "d.parquet", "parts"]
    keys = {records_fingerprint(record_forms / f, KEY) for f in forms}
    frame = pd.read_csv(record_forms / "a.csv", dtype=str, keep_default_na=False)
    keys.add(records_fingerprint(frame[frame.columns[::-1]], KEY))  # column order does not matter
    assert len(keys) == 1
    other = frame.copy()
    other.loc[7, "age"] = "101"
    assert records_fingerprint(other, KEY) not in keys  # one changed cell: other data
    assert records_fingerprint(frame.iloc[1:], KEY) not in keys  # one record fewer
    assert records_fingerprint(pd.concat([frame, frame.iloc[:1]]), KEY) not in keys  # one record more


def test_the_fingerprint_is_keyed_so_it_confirms_nothing_offline(record_forms):
    key = records_fingerprint(record_forms / "a.csv", KEY)
    assert records_fingerprint(record_forms / "a.csv", bytes(32)) != key
    assert key != hashlib.sha256((record_forms / "a.csv").read_bytes()).hexdigest()
    sums = RecordSums(KEY)  # pinned: a change of the rule (or of pandas' SipHash) would orphan every ledger
    sums.add(pd.DataFrame({"a": ["x", " 1.50", None], "b": [1, 2, 3]}))
    assert sums.hexdigest()[:16] == PINNED


PINNED = "cf51bd1ac2177c62"


def test_text_columns_hashed_together_give_the_fingerprint_of_column_by_column(monkeypatch):
    """A wide table's text columns are hashed several at once (fingerprint.GROUP_CELLS); the same
    fingerprint as one column at a time, on 36 random tables of odd cells, missing ones, numbers as
    text, another string dtype and a column of integers, with the columns joined either way (CONCAT_ROWS): every
    combination of the three alternations (grouping, joining, extra columns) three times."""
    import numpy as np

    from dpsynth_core.data import fingerprint

    rng = np.random.default_rng(0)
    pool = np.array(["", " 1.50", "1.5", "abc", " x ", "NaN", "inf", "-0", "0", "2020-01-01", "é", "1e3", "  "])
    for trial in range(36):
        rows, columns = int(rng.integers(1, 40)), int(rng.integers(1, 30))
        frame = pd.DataFrame({f"c{j}": pd.array(rng.choice(pool, rows), dtype="str") for j in range(columns)})
        frame.iloc[rng.integers(0, rows), rng.integers(0, columns)] = None
        if trial % 3 == 0:
            frame["n"] = rng.integers(0, 5, rows)
            frame["p"] = pd.array(rng.choice(pool, rows), dtype="string[python]")
        monkeypatch.setattr(fingerprint, "GROUP_CELLS", [1 << 20, int(rng.integers(2, 100))][trial % 2])
        monkeypatch.setattr(fingerprint, "CONCAT_ROWS", [1000, 1][trial // 2 % 2])  # both ways of joining columns
        together = records_fingerprint(frame, KEY)
        grouped = fingerprint._text_column_hashes(frame, sorted(frame.columns), fingerprint._Keys(KEY))
        assert grouped or columns == 1 or 2 * rows > fingerprint.GROUP_CELLS  # the grouped path was taken
        monkeypatch.setattr(fingerprint, "GROUP_CELLS", 1)  # one column at a time
        assert records_fingerprint(frame, KEY) == together, trial


def test_a_columns_fingerprint_reads_numbers_with_commas_only_where_they_have_one_reading():
    def column(*cells):
        sums = RecordSums(b"k" * 32)
        sums.add(pd.DataFrame({"x": list(cells) + ["7"]}))  # a second value: a constant column has none
        return sums.identity().columns

    assert column("1234.5", "0.125", "1234567") == column("1.234,5", "0,125", "1.234.567")
    assert column("1234.5", "1234567") == column("1,234.5", "1,234,567")
    # 1,234 is a thousand and more, or one and a bit: the column reads it as text, like neither number
    assert column("1,234") not in (column("1234"), column("1.234"))
    # a currency or percent sign set aside: the number written, as the release reads it
    assert column("1234.5", "-3", "12") == column("$1,234.50", "-$3", "12 €") == column("1.234,50 €", "$-3", "£12")
    assert column("97", "12.5") == column("97%", "12.5 %")
    assert column("2012-01-31") == column("2012/1/31") == column("2012.01.31")
    # day or month first: read where the column reads one way only (a day after the 12th tells which)
    assert (
        column("2012-01-31", "2012-02-01") == column("31/01/2012", "01/02/2012") == column("01/31/2012", "02/01/2012")
    )
    assert column("01/02/2012", "03/01/2012") not in (
        column("2012-01-02", "2012-01-03"),
        column("2012-02-01", "2012-03-01"),
    )
