"""Shared checks for the counting engines: an engine's answers equal the in-memory path's, exactly."""

from __future__ import annotations

import itertools

import numpy as np

from dpsynth_core.engines.memory import MemorySource

#: Datasets whose every pair of columns is compared (all datasets get every column's 1-way counts).
ALL_PAIRS = ("adult", "pums", "ce", "diabetes")

#: A table that breaks every rule it can: out-of-range and unreadable numbers, markers,
#: categories outside the list, text outside each generator, dates in other forms, a quoted
#: line break, a short row, a duplicate header, non-ASCII text.
MESSY_ROWS = [
    ["age", "city", "score", "when", "word", "zip", "code", "age"],
    ["39", "Paris", "1.5", "2020-01-03", "Apple", "02139", "ab", "1"],
    [" 41 ", "Lyon", "1e1", "2020-02-30", "zzzqx", "2139", "abc", "2"],
    ["12.5", "Nice", "-3", "2019-12-31", "hello", "90210", "a b", "NA"],
    ["13.5", "", "abc", "", "", "", "", ""],
    ["NA", "NA", "NA", "NA", "NA", "NA", "NA", "NA"],
    ["200", "Café", "99999", "2021-06-01T10:00", "world", "12345", "zz", "3"],
    ["", '"Pa\nris"', "0.25", "2020-05-05", "Hello", "00000", "q", "4"],
    ["7", "Paris", "inf", "20200101", "the", "99999", "x", "5"],
    ["1", "Lyon"],
]
MESSY_DOMAIN = {
    "columns": {
        "age": {"type": "integer", "min": 0, "max": 120, "bin_width": 10},
        "city": {"type": "categorical", "values": ["Paris", "Lyon", "Other"], "other": "Other"},
        "score": {"type": "float", "min": 0, "max": 10, "bins": 4},
        "when": {"type": "date", "min": "2020-01-01", "max": "2020-12-31", "unit": "month"},
        "word": {"type": "text", "generator": "english_word"},
        "zip": {"type": "text", "generator": "digits", "length": 5, "missing": False},
        "code": {"type": "text", "generator": "letters", "max_length": 2},
        "age.1": {"type": "categorical", "values": [1, 2, 3], "missing": False},
    },
    "missing_values": {"markers": ["", "NA"]},
}


def messy_csv(path, encoding: str = "utf-8", delimiter: str = ";"):
    lines = [delimiter.join(row) for row in MESSY_ROWS]
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


def assert_same_counts(reference: MemorySource, engine, *, pairs: bool = True, pair_limit: int | None = None):
    """Row count, report, every column's value counts and 1-way counts, and 2-way counts, equal."""
    assert engine.n_rows == reference.n_rows
    assert engine.report() == reference.report()
    assert engine.cells == reference.cells
    for name in reference.domain.measured().kept:  # a derived column is never read; a gap column read as its gap
        mine, theirs = engine.value_counts(name), reference.value_counts(name)
        assert mine.to_dict() == theirs.to_dict() and list(mine.index) == list(theirs.index), name  # public order
    names = list(reference.cells)
    groups = [(n,) for n in names]
    if pairs:
        groups += list(itertools.islice(itertools.combinations(names, 2), pair_limit))
    for group, mine, theirs in zip(groups, engine.marginals(groups), reference.marginals(groups)):
        assert mine.shape == theirs.shape and mine.dtype == np.int64, group
        assert np.array_equal(mine, theirs), group
    if len(names) >= 3:  # the sparse form, as the default method asks for large products
        group = tuple(names[:3])
        for mine, theirs in zip(engine.sparse_marginal(group), reference.sparse_marginal(group)):
            assert np.array_equal(mine, theirs), group
