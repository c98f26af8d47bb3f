"""Numbers given in steps (``multiple_of``, :mod:`dpsynth_core.domain.multiples`): declared, checked, said, and the
release's values on the step's multiples inside the range; the check before a draw names such columns."""

import numpy as np
import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.data.decoding import decoded_codes
from dpsynth_core.data.file_notes import multiple_columns
from dpsynth_core.domain import TableDomain
from dpsynth_core.domain.declaration import column_from_json
from dpsynth_core.privacy.noise import make_noise_source


def test_a_step_is_declared_kept_in_json_said_and_checked_against_the_range():
    income = column_from_json("income", {"type": "integer", "min": 0, "max": 200_000, "multiple_of": 2500})
    score = column_from_json("score", {"type": "float", "min": 0.2, "max": 9.9, "multiple_of": 0.5})
    assert income.multiple_of == 2500 and score.multiple_of == 0.5
    assert income.to_json()["multiple_of"] == 2500 and score.to_json()["multiple_of"] == 0.5
    assert "multiple_of" not in column_from_json("n", {"type": "integer", "min": 0, "max": 9}).to_json()
    assert "rounded to multiples of 2500" in income.describe()
    assert TableDomain.from_json({"columns": {"score": score.to_json()}}).problems() == []
    none_there = {"columns": {"n": {"type": "integer", "min": 1, "max": 20, "multiple_of": 25}}}
    assert TableDomain.from_json(none_there).problems() == ["column 'n': no multiple of 25 lies in 1 to 20"]
    for bad in (0, -5, 2.5):  # whole numbers take a whole step of 1 or more
        with pytest.raises(Exception, match="multiple_of"):
            TableDomain.from_json({"columns": {"n": {"type": "integer", "min": 0, "max": 9, "multiple_of": bad}}})
    with pytest.raises(Exception, match="multiple_of"):
        TableDomain.from_json({"columns": {"x": {"type": "float", "min": 0, "max": 9, "multiple_of": 0}}})


@pytest.mark.parametrize(
    "spec, step",
    [
        (
            {"type": "integer", "min": 0, "max": 200_000, "edges": [0, 12_600, 40_000, 120_000], "multiple_of": 2500},
            2500,
        ),
        ({"type": "float", "min": 0.2, "max": 9.9, "bins": 7, "multiple_of": 0.5, "special": [9.9]}, 0.5),
        ({"type": "float", "min": 0.0, "max": 1.0, "bins": 4, "multiple_of": 0.1, "decimals": 3}, 0.1),
    ],
)
def test_the_drawn_values_lie_on_the_multiples_inside_the_range_and_special_values_stay(spec, step):
    """Every decoded value is a multiple of the step (written as the step writes it: 0.3, not 0.30000000000000004),
    inside the declared range (the nearest multiple there where rounding would pass an end: 0.2-9.9 by halves,
    0.5 to 9.5), and a declared special value stays exact."""
    domain = column_from_json("x", spec)
    codes = np.repeat(np.arange(domain.bins), 400)
    values = decoded_codes(domain, codes, make_noise_source(7)).series().dropna().to_numpy(dtype=float)
    special = np.isin(values, spec.get("special", []))
    on = values[~special] / step
    assert np.allclose(on, np.round(on)) and values.size == codes.size
    assert values[~special].min() >= spec["min"] and values[~special].max() <= spec["max"]
    assert np.all(values[~special] == np.round(values[~special], 6))
    if spec.get("special"):
        assert special.sum() == 400  # the special value's own bin, kept exact


def test_a_release_of_income_brackets_comes_out_on_the_brackets():
    """End to end, on a table of incomes recorded as brackets' midpoints (multiples of 2,500, as Chile's 1988
    plebiscite survey records them): declared with the step, every released income is a multiple of 2,500 and the
    exact values' distance (TVD) to the real ones falls by 40% or more (15,000 and 35,000 hold 28% each, which the
    plain release mostly finds as narrow spikes; the other brackets' records it draws inside their fitted bins)."""
    rng = np.random.default_rng(88)
    brackets = np.array([2500, 7500, 15000, 25000, 35000, 75000, 125000, 200000])
    shares = np.array([0.07, 0.1, 0.28, 0.12, 0.28, 0.08, 0.04, 0.03])
    real = pd.DataFrame(
        {"income": rng.choice(brackets, 3000, p=shares), "region": rng.choice(["north", "centre", "south"], 3000)}
    )
    spec = {
        "columns": {
            "income": {"type": "integer", "min": 0, "max": 250_000, "missing": False},
            "region": {"type": "categorical", "values": ["north", "centre", "south"], "missing": False},
        }
    }
    stepped = {"columns": {**spec["columns"], "income": {**spec["columns"]["income"], "multiple_of": 2500}}}

    def tvd(release):
        got = release.data["income"].astype(float).value_counts(normalize=True)
        want = real["income"].astype(float).value_counts(normalize=True)
        return 0.5 * got.sub(want, fill_value=0).abs().sum(), got

    plain, step = [], []
    for seed in range(3):
        plain.append(tvd(synthesize(real, spec, 1.0, random_state=seed))[0])
        distance, got = tvd(synthesize(real, stepped, 1.0, random_state=seed))
        assert all(v % 2500 == 0 for v in got.index)
        step.append(distance)
    # measured, seeds 0-2: 0.44-0.45 to 0.20-0.26 (the plain release finds 15,000 and 35,000 as narrow spikes, but
    # spreads the other brackets' records; at some seeds it spread 15,000's too: 0.70 at seed 0 before the sixty-fifth
    # round)
    assert np.mean(step) < 0.6 * np.mean(plain) and all(a < b for a, b in zip(step, plain)), (plain, step)


def test_the_check_names_columns_given_in_steps_and_leaves_whole_numbers_and_tenths_to_decimal_places():
    """The check before a draw (publisher-only: it reads the data, names columns and counts): brackets of 2,500, a
    score in halves and a count in fives are named with their step; whole numbers stored as reals, tenths, a column
    declaring its step, and a column of small numbers that only 0 is a multiple of (a rate of 0.004 is no multiple
    of 10,000) are not."""
    rng = np.random.default_rng(5)
    data = pd.DataFrame(
        {
            "income": rng.choice([2500, 7500, 15000, 0], 200),
            "score": rng.choice([0.5, 1.0, 1.5, 2.0, 3.5], 200),
            "count": rng.choice([0, 5, 10, 20, 35], 200),
            "whole": rng.choice([1.0, 2.0, 3.0, 7.0], 200),
            "tenths": rng.choice([0.1, 0.3, 0.7, 1.9], 200),
            "rate": rng.uniform(0.0036, 0.0072, 200).round(6),
            "stated": rng.choice([2500, 7500, 15000], 200),
        }
    ).astype(str)
    columns = {
        "income": {"type": "integer", "min": 0, "max": 200000},
        "score": {"type": "float", "min": 0, "max": 5},
        "count": {"type": "integer", "min": 0, "max": 100},
        "whole": {"type": "float", "min": 0, "max": 10},
        "tenths": {"type": "float", "min": 0, "max": 2},
        "rate": {"type": "float", "min": 0, "max": 0.01},
        "stated": {"type": "integer", "min": 0, "max": 200000, "multiple_of": 500},
    }
    lines = multiple_columns(data, TableDomain.from_json({"columns": columns}))
    assert lines == [
        "Column 'income': all 200 of its numbers are multiples of 2,500.",
        "Column 'score': all 200 of its numbers are multiples of 0.5.",
        "Column 'count': all 200 of its numbers are multiples of 5.",
    ]


def test_a_column_in_steps_is_not_told_its_decimal_places_too():
    """rhDNase's FEV is written to a tenth, always an even one: told once, as multiples of 0.2 (declaring the step
    writes one place); a column of tenths is still told its places."""
    from dpsynth_core.data.file_notes import coarse_columns
    from tests.conftest import complete_domain, shared_path

    frame = pd.read_csv(shared_path("rhdnase.csv"), dtype=str, keep_default_na=False)
    lines = coarse_columns(frame, TableDomain.from_json(complete_domain("rhdnase")))
    assert [line for line in lines if "'fev'" in line] == ["Column 'fev': all 767 of its numbers are multiples of 0.2."]
    tenths = frame.assign(fev=[f"{i % 50}.{i % 10}" for i in range(len(frame))])
    assert [
        line for line in coarse_columns(tenths, TableDomain.from_json(complete_domain("rhdnase"))) if "'fev'" in line
    ] == ["Column 'fev': all 767 of its numbers have at most 1 decimal place."]
