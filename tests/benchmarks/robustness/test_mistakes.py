"""benchmarks.robustness.mistakes: each mistake it makes in a declaration is one the data does not fit, and the
publisher's check (``fit_notes``, what check-declaration and the Preview say) names that column."""

import random

import numpy as np
import pandas as pd
import pytest

from benchmarks.robustness.mistakes import mistaken
from benchmarks.robustness.unseen import declare_loosely
from dpsynth_core.data.misfits import fit_notes
from dpsynth_core.domain import TableDomain


def _table(rows: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, rows).astype(float),
            "share": rng.random(rows).round(3),
            "town": rng.choice(["Leeds", "York", "Hull", "Bath"], rows),
            "day": pd.date_range("1994-03-01", periods=rows, freq="40D").strftime("%Y-%m-%d"),
            "kids": rng.integers(0, 9, rows),
        }
    )
    frame.loc[::9, "age"] = np.nan
    return frame


@pytest.mark.parametrize("seed", range(8))
def test_every_mistake_is_one_the_check_names(seed):
    frame = _table()
    spec = declare_loosely(frame, random.Random(seed))
    wrong, made = mistaken(spec, frame, random.Random(seed), 1.0)
    assert made and spec != wrong and len(made) <= len(frame.columns)
    marker = spec.get("missing_values", {}).get("markers", [""])[0]  # as the harness writes a missing cell
    cells = frame.astype("string").fillna(marker)
    notes = fit_notes(cells, TableDomain.from_json(wrong))
    said = " ".join([*notes.missing, *notes.clamped, *notes.changed, *notes.empty])
    for line in made:
        assert f"Column '{line.split(':')[0]}'" in said, (line, said)
    assert fit_notes(cells, TableDomain.from_json(spec)).changed == []  # the declaration before: the data fits it


def test_no_mistake_at_rate_zero():
    frame = _table()
    spec = declare_loosely(frame, random.Random(0))
    assert mistaken(spec, frame, random.Random(0), 0.0) == (spec, [])


def test_the_benchmark_counts_each_mistake_told_on_a_checkout(tmp_path, capsys):
    """On penguins as Rdatasets lays it out (its NA cells written NA), every mistake made is told: at once, or once
    the note on cells written 'NA' is followed."""
    from benchmarks.robustness import mistakes
    from tests.benchmarks.checkouts import penguins_checkout

    root = str(penguins_checkout(tmp_path))
    found = mistakes.main(["--root", root, "--seed", "2", "--count", "1", "--rate", "1"])
    assert sum(found.values()) >= 3 and not [k for k, was_told in found if not was_told], found
    assert not [line for line in capsys.readouterr().out.splitlines() if line.startswith("not told")]
