"""Dates and times written more coarsely than their columns keep them (``dpsynth_core.data.step_notes``)."""

from __future__ import annotations

import pandas as pd

from dpsynth_core.data.misfits import fit_notes
from dpsynth_core.data.step_notes import step_columns
from dpsynth_core.domain import TableDomain


def test_readings_every_half_hour_are_told_with_the_steps_to_declare():
    """tsibbledata's Victorian electricity demand, read every 30 minutes (``2012-01-01 13:30``): the check said only
    "on the minute", and the release put its times at any minute. It now names the half hour and the steps to
    declare (``"multiple_of": 30`` at a step of a minute); hourly readings are still "on the hour", a column declared
    every 30 steps is not told, and quarter-hours are told as every 15 minutes."""
    moments = pd.date_range("2012-01-01 00:00", periods=480, freq="30min")
    frame = pd.DataFrame({"at": moments.strftime("%Y-%m-%d %H:%M")})
    spec = {"type": "datetime", "min": "2012-01-01 00:00", "max": "2012-12-31 23:59"}
    assert step_columns(frame, TableDomain.from_json({"columns": {"at": spec}})) == [
        "Column 'at': all 480 of its times are every 30 minutes, where they may come at any second (declare them kept "
        "to the minute, every 30 steps)."
    ]
    by_minute = {"columns": {"at": {**spec, "step": "minute"}}}
    assert step_columns(frame, TableDomain.from_json(by_minute)) == [
        "Column 'at': all 480 of its times are every 30 minutes, where they may come at any minute (declare them every "
        "30 steps)."
    ]
    declared = TableDomain.from_json({"columns": {"at": {**spec, "step": "minute", "multiple_of": 30}}})
    assert step_columns(frame, declared) == [] and fit_notes(frame, declared).decimals == []
    hourly = pd.DataFrame({"at": pd.date_range("2012-01-01", periods=480, freq="h").strftime("%Y-%m-%d %H:%M")})
    assert step_columns(hourly, TableDomain.from_json(by_minute)) == [
        "Column 'at': all 480 of its times are on the hour, where they are kept to the minute."
    ]
    quarters = pd.DataFrame({"at": pd.date_range("2012-01-01", periods=480, freq="15min").strftime("%Y-%m-%d %H:%M")})
    assert "every 15 minutes" in step_columns(quarters, TableDomain.from_json(by_minute))[0]
