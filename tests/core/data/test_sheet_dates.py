"""Dates before 1900 in a workbook (dpsynth_core.data.sheet_dates): hostile serial numbers and damaged files give no
date back and raise nothing (the readers' own tests, with real workbooks, are in test_formats.py)."""

from __future__ import annotations

import datetime as dt
import io
import random

from dpsynth_core.data.sheet_dates import restore_dates, xls_negative_dates
from dpsynth_core.data.workbooks import _NEGATIVE


def test_a_serial_no_date_can_hold_is_left_as_calamine_read_it():
    grid = [[dt.time()] for _ in range(5)]
    serials = {(0, 0): float("-inf"), (1, 0): -1e12, (2, 0): float("nan"), (3, 0): -693593.0, (4, 0): -9013.75}
    restore_dates(grid, serials, 0, 0)
    assert grid == [[dt.time()], [dt.time()], [dt.time()], [dt.date(1, 1, 1)], [dt.datetime(1875, 4, 26, 6)]]
    grid = [[-5.0, "x"]]  # read as a number or as text: not a date cell, left alone
    restore_dates(grid, {(0, 0): -5.0, (0, 1): -1.0}, 0, 0)
    assert grid == [[-5.0, "x"]]


def test_only_a_number_is_taken_from_an_xlsx_cell():
    cells = [b"-1e", b"--3", b"-9014", b"-1.5E+3", b"-.5", b"-", b"-1e999"]
    found = [_NEGATIVE.findall(b'<c r="A1" s="1"><v>' + v + b"</v></c>") for v in cells]
    assert [[float(v) for _, v in f] for f in found] == [[], [], [-9014.0], [-1500.0], [-0.5], [], [float("-inf")]]


def test_a_damaged_xls_gives_no_date_back_and_raises_nothing():
    import xlwt

    book = xlwt.Workbook()
    page, day = book.add_sheet("people"), xlwt.easyxf(num_format_str="DD/MM/YYYY")
    page.write(0, 0, "born")
    for row in range(1, 40):
        page.write(row, 0, -9014.0 - row, day)
    sink = io.BytesIO()
    book.save(sink)
    raw = sink.getvalue()
    assert len(xls_negative_dates(raw, "people")) == 39 and xls_negative_dates(raw, "other") == {}
    rng = random.Random(0)
    for cut in range(1, len(raw), 97):  # cut short anywhere
        xls_negative_dates(raw[:-cut], "people")
    for _ in range(300):  # bytes changed anywhere after the compound file's header
        damaged = bytearray(raw)
        for _ in range(6):
            damaged[rng.randrange(512, len(damaged))] = rng.randrange(256)
        xls_negative_dates(bytes(damaged), "people")
