"""The report's plain statements of change hold together at 95% (issue 20): on a table where nothing changed,
the chance that a report says anything changed is at most 5%, checked by simulation through the report's own
code (fixed seeds; the tolerance is the binomial bound at a tiny error level), and the same simulation catches
statements checked against each figure's own 95% interval (the earlier construction)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from dpsynth_core.evaluation import intervals, report
from dpsynth_core.evaluation.values import value_figures
from dpsynth_core.privacy.noise import make_noise_source
from tests.every_kind import DOMAIN, real_table, released_form

RUNS = 4000
#: The chance that a correct construction is wrongly failed.
ERROR = 1e-6


@pytest.fixture(scope="module")
def unchanged():
    """The statistics of a released table compared with itself, rows shuffled: every true difference is 0."""
    real = released_form(real_table(0), DOMAIN)
    synthetic = real.sample(frac=1, random_state=3).reset_index(drop=True)
    return report.exact_statistics(real, synthetic, DOMAIN, chart_columns=["flag", "age"])


def _runs_with_a_statement(exact, drawn) -> int:
    said = np.zeros(RUNS, dtype=bool)
    for run in range(RUNS):
        said[run] = any(value_figures(n, f, drawn.values[n], run)["shape"] for n, f in exact.values.items())
    return int(said.sum())


def _most_allowed() -> int:
    """Most runs with a statement that a construction wrong at most 5% of the time shows, except with
    probability ERROR."""
    return int(binom.ppf(1 - ERROR, RUNS, 1 - report.CONFIDENCE))


@pytest.mark.parametrize("epsilon", [0.3, 1.0])
def test_statements_of_change_hold_together_at_95_percent(unchanged, epsilon):
    drawn = report.draw_noise(unchanged, epsilon=epsilon, noise=make_noise_source(np.random.default_rng(5)), runs=RUNS)
    assert drawn.statements == sum(len(f["values"]) + 2 for f in unchanged.values.values()) > 10
    assert _runs_with_a_statement(unchanged, drawn) <= _most_allowed()


def test_statements_against_each_figures_own_interval_would_fail(unchanged, monkeypatch):
    """The simulation has the power to see the earlier construction: with every statement checked against its
    figure's own 95% interval (a family of one), a report of a table where nothing changed says something
    changed far more often than 5% of the time."""
    honest = intervals.value_noise
    monkeypatch.setattr(report, "value_noise", lambda *a, **kw: honest(*a, **{**kw, "family": 1}))
    drawn = report.draw_noise(unchanged, epsilon=0.3, noise=make_noise_source(np.random.default_rng(5)), runs=RUNS)
    assert _runs_with_a_statement(unchanged, drawn) > _most_allowed()


def test_the_report_states_the_familywise_level(unchanged):
    from dpsynth_core.evaluation.report_render import _statements_note

    figures = report.add_noise(unchanged, epsilon=1.0, random_state=2)
    assert figures.statements == report.draw_noise(unchanged, epsilon=1.0, noise=make_noise_source(2)).statements
    note = _statements_note(figures)
    assert "Each interval is 95%; the plain statements that something changed hold together at 95%" in note
    assert f"over all {figures.statements} figures" in note
    assert report.ReportFigures.from_dict(figures.to_dict()).statements == figures.statements


def test_a_year_reads_as_a_year_in_the_value_summary():
    """A column's own values are grouped by thousands from five digits on only (a four-digit year is not):
    the Preview's table and statements read 1993, not 1,993."""
    import pandas as pd

    from dpsynth_core.domain import TableDomain
    from dpsynth_core.evaluation.values import value_summaries, value_table

    domain = TableDomain.from_json(
        {
            "columns": {
                "year": {"type": "integer", "min": 1900, "max": 2100},
                "pay": {"type": "integer", "min": 0, "max": 10**6},
            }
        }
    )
    real = pd.DataFrame({"year": [1993] * 9 + [1994], "pay": [45_000] * 10})
    synthetic = pd.DataFrame({"year": [1960] * 10, "pay": [45_000] * 10})
    summaries = value_summaries(real, synthetic, domain)
    shown = value_table(summaries).astype(str).to_string()
    assert "1993" in shown and "1,993" not in shown and "45,000" in shown
    said = " ".join(summaries["year"]["shape"])
    assert "1993" in said and "1960" in said and "1,9" not in said, said


def test_rows_beyond_the_real_range_are_said_with_their_shares():
    """Synthetic rows above the largest real value (or below the smallest) are a share of the synthetic rows,
    said in the Preview's warning from 1% on, both sides named when both are crossed; the values are read by
    the declaration's public rule, so a real 5.5 rounded to 6 in a whole-number column is not beyond it."""
    import pandas as pd

    from dpsynth_core.domain import TableDomain
    from dpsynth_core.evaluation.values import SHAPE_BEYOND_SHARE, value_summaries, value_table

    domain = TableDomain.from_json(
        {
            "columns": {
                "years": {"type": "float", "min": 0, "max": 70},
                "kids": {"type": "integer", "min": 0, "max": 20},
                "day": {"type": "date", "min": "2012-01-01", "max": "2015-12-31"},
            }
        }
    )
    real = pd.DataFrame(
        {"years": [0.5, 2.5, 23.0, 23.0] * 50, "kids": ["0", "1", "5.5", "2"] * 50, "day": ["2013-05-01"] * 200}
    )
    years = [1.0] * 184 + [40.0] * 12 + [0.25] * 2 + [""] * 2  # 6% above, 1% below, missing neither
    synthetic = pd.DataFrame({"years": years, "kids": ["6"] * 200, "day": ["2013-05-01"] * 199 + ["2014-01-02"]})
    summaries = value_summaries(real, synthetic, domain)
    assert summaries["years"]["beyond_real"] == pytest.approx({"below": 0.01, "above": 0.06})
    said = summaries["years"]["shape"]
    assert said[-1] == (
        "years: 7.0% of the synthetic rows lie outside the real values (0.5 to 23): 1.0% below, 6.0% above"
    )
    assert summaries["kids"]["beyond_real"] == {"below": 0.0, "above": 0.0}
    assert not any("outside" in s or "above" in s for s in summaries["kids"]["shape"])
    assert summaries["day"]["beyond_real"]["above"] == pytest.approx(0.005) and 0.005 < SHAPE_BEYOND_SHARE
    assert not summaries["day"]["shape"]  # half a percent: shown in the table, not said
    table = value_table(summaries).set_index("column")["synthetic rows outside the real range"]
    assert table.to_dict() == {"years": "7.0%", "kids": "0.0%", "day": "0.5%"}
    synthetic["day"] = ["2013-05-01"] * 190 + ["2016-02-01"] * 10  # beyond the declared range: clamped to its end
    assert value_summaries(real, synthetic, domain)["day"]["shape"][-1] == (
        "day: 5.0% of the synthetic rows lie above the largest real value (2013-05-01)"
    )


def test_a_mean_is_said_to_move_when_it_moved_by_a_quarter_and_by_a_tenth_of_the_spread():
    """A mean near 0 (a daily return) moving by a sliver of its spread is not said to have changed, though its
    relative change is large; a skewed column whose mean doubled is (capital gains: most 0, a few large)."""
    import pandas as pd

    from dpsynth_core.domain import TableDomain
    from dpsynth_core.evaluation.values import value_summaries

    domain = TableDomain.from_json(
        {
            "columns": {
                "ret": {"type": "float", "min": -1, "max": 1},
                "gain": {"type": "integer", "min": 0, "max": 100_000},
            }
        }
    )
    rng = np.random.default_rng(5)
    real_ret, synthetic_ret = rng.normal(0.0002, 0.01, 4000), rng.normal(0.0004, 0.01, 4000)
    real_ret += 0.0002 - real_ret.mean()
    synthetic_ret += 0.0004 - synthetic_ret.mean()  # twice the real mean: a gap of 0.02 deviations
    real = pd.DataFrame({"ret": real_ret.astype(str), "gain": ["0"] * 3920 + ["20000"] * 80})
    synthetic = pd.DataFrame({"ret": synthetic_ret.astype(str), "gain": ["0"] * 3840 + ["20000"] * 160})
    summaries = value_summaries(real, synthetic, domain)
    assert not any("mean" in s for s in summaries["ret"]["shape"])
    assert "gain: the mean is 400 in the real values and 800 in the synthetic ones" in summaries["gain"]["shape"]


def test_a_point_mass_is_the_same_value_to_the_releases_resolution():
    """cps_mixtape's earnings top-coded at 25862.3203125 (a float32's digits in the file, 19% of the records) come out
    at 25862.32, the simplest number in PrivTree's deepest leaf: the Preview said "25,862 is 19% of the real values
    and 0% of the synthetic ones" and then "25,862 is 0% of the real values and 19% of the synthetic ones". Within a
    deepest leaf's width of a real value, a synthetic value is that value (the Preview's figures; the report's counts
    read each real value to the public values it is that close to); a value two widths away is not."""
    import pandas as pd

    from dpsynth_core.domain import TableDomain
    from dpsynth_core.domain.point_masses import point_width, resolution
    from dpsynth_core.evaluation.values import report_statistics, value_comparison, value_summaries

    domain = TableDomain.from_json({"columns": {"re74": {"type": "float", "min": 0, "max": 30000}}})
    column = domain.columns["re74"]
    assert resolution(column) == point_width(30000.0) and 0.0017 < resolution(column) < 0.0018
    real = pd.DataFrame({"re74": [25862.3203125] * 19 + [0.0] * 30 + [1000.0 + i for i in range(51)]})
    synthetic = pd.DataFrame({"re74": [25862.32] * 19 + [0.0] * 30 + [2000.0 + i for i in range(51)]})
    summary = value_summaries(real, synthetic, domain)["re74"]
    assert not [s for s in summary["shape"] if "25,862" in s], summary["shape"]
    assert summary["synthetic_share_of_real_top"] == pytest.approx(0.30)  # 0, the most common, kept
    top = value_comparison(real["re74"], synthetic["re74"], column).top.set_index("value")
    assert top.loc[25862.3203125].tolist() == pytest.approx([0.19, 0.19])
    found = report_statistics(real["re74"], synthetic["re74"], column)
    counts = dict(zip(found["values"], found["counts"].tolist()))
    assert counts[25862.32] == 19 and counts[0.0] == 30
    away = pd.DataFrame({"re74": [25862.32 + 2 * resolution(column)] * 19 + synthetic["re74"][19:].tolist()})
    said = value_summaries(real, away, domain)["re74"]["shape"]
    # two values, written so that they read apart (both were "25,862" before)
    assert "re74: 25,862.32 is 19% of the real values and 0% of the synthetic ones" in said, said
    assert "re74: 25,862.324 is 0% of the real values and 19% of the synthetic ones" in said, said


def test_a_narrow_range_of_real_numbers_is_written_so_that_its_ends_and_values_read_apart():
    """tsibbledata's nyc_bikes: the Preview said a station's latitude "40.7 is 14% of the real values" and that rows
    "lie outside the real values (40.7 to 40.7)". The ends, the frequent values and the means are written with the
    digits it takes to tell them apart; whole numbers and wide ranges read as before."""
    import numpy as np
    import pandas as pd

    from dpsynth_core.domain import TableDomain
    from dpsynth_core.evaluation.values import value_summaries, value_table

    domain = TableDomain.from_json({"columns": {"lat": {"type": "float", "min": 40.6, "max": 40.8}}})
    real = pd.DataFrame({"lat": [40.71958611647166] * 30 + [40.7272235] * 20 + [40.7101087, 40.748715945] * 25})
    synthetic = pd.DataFrame({"lat": np.linspace(40.704, 40.752, 100)})
    summary = value_summaries(real, synthetic, domain)["lat"]
    said = " | ".join(summary["shape"])
    # each frequent value apart from the values beside it in either table (the synthetic 40.7191 and 40.7201 here)
    assert "lat: 40.7196 is 30% of the real values and 0% of the synthetic ones" in said, said
    assert "lat: 40.7101 is 25% of the real values" in said and "outside the real values (40.71 to 40.75)" in said, said
    row = value_table({"lat": summary}).iloc[0]
    assert row["most common real value"] == "40.7196", row
    real_mean, synthetic_mean = row["mean (real / synthetic)"].split(" / ")
    assert real_mean != synthetic_mean and real_mean.startswith("40.7"), row
    years = value_summaries(
        pd.DataFrame({"y": [1990] * 60 + [2000] * 40}),
        pd.DataFrame({"y": [1980] * 60 + [2000] * 40}),
        TableDomain.from_json({"columns": {"y": {"type": "integer", "min": 1900, "max": 2100}}}),
    )["y"]["shape"]
    assert any(s.startswith("y: 1990 is 60% of the real values") for s in years), years


def test_a_column_one_table_of_which_holds_no_value_is_said_so():
    """ADSL's date of informed consent is empty in every record; drawn at the noise floor, some synthetic rows held a
    date, and the Preview said "the values are spread differently (up to 100% of the rows lie on different sides
    of some value)", a gap between a distribution and none. It now says which table holds no value and how many
    rows of the other do; both ways."""
    import pandas as pd

    from dpsynth_core.domain import TableDomain
    from dpsynth_core.evaluation.values import value_summaries

    domain = TableDomain.from_json({"columns": {"consent": {"type": "date", "min": "2012-01-01", "max": "2016-12-31"}}})
    empty, some = pd.DataFrame({"consent": [""] * 100}), pd.DataFrame({"consent": ["2013-02-01"] * 6 + [""] * 94})
    assert value_summaries(empty, some, domain)["consent"]["shape"] == [
        "consent: no real row holds a value, where 6.0% of the synthetic rows do"
    ]
    assert value_summaries(some, empty, domain)["consent"]["shape"] == [
        "consent: no synthetic row holds a value, where 6.0% of the real rows do"
    ]
