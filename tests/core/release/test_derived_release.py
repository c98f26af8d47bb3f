"""A release computes a derived column from its source's synthetic values: never read, never measured, always in
agreement (``dpsynth_core.domain.derived``, the synthesizers' ``_with_derived``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpsynth_core import synthesize
from dpsynth_core.privacy.spending import Spend
from dpsynth_core.synthesizers import METHODS
from dpsynth_core.wording import format_delta, format_epsilon
from tests.conftest import complete_domain, shared_path

#: COMPAS's age category as its documentation states it: under 25, 25 to 45, over 45.
AGE_CAT = {"from": "age", "edges": [25, 46]}


#: A few of COMPAS's columns, which every method releases (plausible deniability lets few rows of 46 columns pass).
FEW = ("sex", "age", "age_cat", "race", "priors_count", "two_year_recid")


def _compas(few: bool = False):
    frame = pd.read_csv(shared_path("compas.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("compas")
    spec["columns"]["age_cat"]["derived"] = AGE_CAT
    if few:
        spec["columns"] = {n: c if n in FEW else {"type": "drop"} for n, c in spec["columns"].items()}
    return frame, spec


def _bands(ages: pd.Series) -> pd.Series:
    labels = ["Less than 25", "25 - 45", "Greater than 45"]
    return pd.cut(pd.to_numeric(ages), [-np.inf, 25, 46, np.inf], right=False, labels=labels).astype(object)


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_computes_the_derived_column_from_its_synthetic_source(method):
    """Measured apart, COMPAS's age category disagreed with the age in many synthetic rows (the GSS file's age group
    in 11% to 16% at ε = 1); derived, it agrees in every row, in the declaration's column order, and nothing of
    the budget is spent on it."""
    frame, spec = _compas(few=True)
    release = synthesize(frame, spec, 1.0, method=method, random_state=2)
    out = release.data
    assert list(out.columns) == [n for n, c in spec["columns"].items() if c["type"] != "drop"]
    both = out["age"].notna() & out["age_cat"].notna()
    assert both.sum() > 0.5 * len(out) and (out.loc[both, "age_cat"] == _bands(out.loc[both, "age"])).all()
    assert (out["age_cat"].isna() == out["age"].isna()).all()
    assert not [label for label in release.card["budget_split"] if "age_cat" in label]
    assert not [event for event in release.charge.events if "age_cat" in event.label]
    accountant = release.accountant  # the charge priced without the column is what the fit spent, to its digits
    fitted = Spend(accountant.events, release.charge.guaranteed, accountant.delta if accountant.has_zcdp else 0.0)
    shown = [
        (format_epsilon(t.epsilon), format_delta(t.delta)) if t else None
        for t in (fitted.total(), release.charge.total())
    ]
    assert shown[0] == shown[1]
    [column] = [c for c in release.card["domain"]["columns"] if c["column"] == "age_cat"]
    assert "computed after the draw from 'age'" in column["description"]


def test_the_derived_columns_cells_are_never_read():
    """The same seed on the records with their age categories all changed gives the same release: nothing of the
    column is read. Measured (declared without its rule), the same change changes the release: the test
    tells a column that is read from one that is not."""
    frame, spec = _compas(few=True)
    scrambled = frame.assign(age_cat="25 - 45")  # every record in one category: its counts change
    first = synthesize(frame, spec, 1.0, method="marginals", random_state=7).data
    again = synthesize(scrambled, spec, 1.0, method="marginals", random_state=7).data
    pd.testing.assert_frame_equal(first, again)
    del spec["columns"]["age_cat"]["derived"]
    measured = synthesize(frame, spec, 1.0, method="marginals", random_state=7).data
    read = synthesize(scrambled, spec, 1.0, method="marginals", random_state=7).data
    assert not measured.equals(read)


def test_a_release_read_by_an_engine_and_written_to_parquet_computes_it_too(tmp_path):
    """DuckDB counts a CSV over the declaration without the derived column (never read), and a Parquet file is
    written from chunks with the column computed in each."""
    frame, spec = _compas(few=True)
    path = tmp_path / "compas.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out.parquet"
    release = synthesize(str(path), spec, 1.0, method="marginals", engine="duckdb", out=str(out), random_state=1)
    written = pd.read_parquet(out)
    assert release.rows == len(written) and "age_cat" in written
    both = written["age"].notna() & written["age_cat"].notna()
    assert both.sum() > 0.5 * len(written) and (written.loc[both, "age_cat"] == _bands(written.loc[both, "age"])).all()


def test_a_report_measures_a_derived_column_from_its_real_cells_without_its_source(tmp_path):
    """A stakeholder report on the derived column alone (its source not measured): the report reads the real
    column itself, with its own budget, as any list of categories; the release's rule does not stop it."""
    from dpsynth_core.release import prepare
    from dpsynth_core.usecases import draw, report
    from dpsynth_core.workspace import Workspace

    frame, spec = _compas(few=True)
    workspace, fingerprint = Workspace(tmp_path), "c" * 64
    made = draw(prepare(frame, spec, 1.0, method="marginals"), frame, workspace, fingerprint, name="compas.csv")
    chosen = dict(card=made.release.card, synthetic=made.release.data, declaration=spec, epsilon=0.2)
    reported = report(workspace, fingerprint, made.release_id, real=frame, columns=["age_cat"], **chosen)
    assert list(reported.figures.one_way) == ["age_cat"]
    assert "Across the 1 column it measures" in reported.page


def test_a_derived_column_in_a_release_per_person():
    """lme4's sleepstudy per subject (10 rows each), with the study's phase as its help page gives it (days 0-1
    training, day 2 baseline, then deprivation) derived from the day: the phase agrees with the day in every
    synthetic row, the identifier is not released, and the guarantee is per subject."""
    frame = pd.read_csv(shared_path("sleepstudy.csv"), dtype=str, keep_default_na=False)
    days = pd.to_numeric(frame["Days"])
    frame = frame.assign(phase=np.select([days < 2, days == 2], ["training", "baseline"], "deprivation"))
    spec = {
        "columns": {
            "rownames": {"type": "drop"},
            "Reaction": {"type": "float", "min": 0, "max": 2000},
            "Days": {"type": "integer", "min": 0, "max": 9},
            "Subject": {"type": "drop"},
            "phase": {
                "type": "categorical",
                "values": ["training", "baseline", "deprivation"],
                "derived": {"from": "Days", "edges": [2, 3]},
            },
        },
        "person": {"column": "Subject", "max_rows": 10, "name": "subject"},
    }
    release = synthesize(frame, spec, 1.0, method="marginals", random_state=3)
    out = release.data
    assert list(out.columns) == ["Reaction", "Days", "phase"]
    both = out["Days"].notna() & out["phase"].notna()
    expected = np.select([out["Days"] < 2, out["Days"] == 2], ["training", "baseline"], "deprivation")
    assert both.any() and (out.loc[both, "phase"] == expected[both.to_numpy()]).all()
    assert release.card["privacy_unit"]["person"] == "subject"  # seeded here: the guarantee stated is the unseeded one
    assert release.card["guarantee"]["unseeded"]["epsilon"] == pytest.approx(1.0)


#: The European Social Survey's three questions on immigration, their documented sum, and a few more columns.
ESS_FEW = ("imbgeco", "imueclt", "imwbcnt", "immigsent", "agea", "female")
PARTS = ["imbgeco", "imueclt", "imwbcnt"]


def _ess():
    frame = pd.read_csv(shared_path("ess9gb.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("ess9gb")
    spec["columns"] = {n: c if n in ESS_FEW else {"type": "drop"} for n, c in spec["columns"].items()}
    return frame, spec


def _sums_agree(out: pd.DataFrame) -> None:
    total = out[PARTS].astype(float).sum(axis=1, skipna=False)
    assert total.notna().sum() > 0.5 * len(out)
    assert (out["immigsent"].astype(float).isna() == total.isna()).all()
    assert (out.loc[total.notna(), "immigsent"].astype(float) == total.dropna()).all()


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_computes_a_sum_from_its_synthetic_parts(method):
    """Measured apart, the survey's sentiment (the sum of its three questions) was another number than their sum in
    86% of the synthetic rows at ε = 1 (1,635 of 1,902); declared a sum, it is their sum in every row (missing where
    a part is), in the declaration's order, and nothing of the budget is spent on it."""
    frame, spec = _ess()
    release = synthesize(frame, spec, 1.0, method=method, random_state=4)
    out = release.data
    assert list(out.columns) == list(ESS_FEW)
    _sums_agree(out)
    assert not [event for event in release.charge.events if "immigsent" in event.label]
    [column] = [c for c in release.card["domain"]["columns"] if c["column"] == "immigsent"]
    assert "computed after the draw as the sum of 'imbgeco', 'imueclt', 'imwbcnt'" in column["description"]


def test_a_sums_cells_are_never_read_and_bands_of_it_agree_too(tmp_path):
    """The same seed on records whose sums are all changed gives the same release; declared without its rule, the
    same change changes it. Bands of the sum (a list derived from it) agree with it, through DuckDB into Parquet."""
    frame, spec = _ess()
    scrambled = frame.assign(immigsent="0")
    first = synthesize(frame, spec, 1.0, method="marginals", random_state=7).data
    pd.testing.assert_frame_equal(first, synthesize(scrambled, spec, 1.0, method="marginals", random_state=7).data)
    measured = {**spec, "columns": {**spec["columns"], "immigsent": {"type": "integer", "min": 0, "max": 30}}}
    one = synthesize(frame, measured, 1.0, method="marginals", random_state=7).data
    assert not one.equals(synthesize(scrambled, measured, 1.0, method="marginals", random_state=7).data)
    spec["columns"]["mood"] = {
        "type": "categorical",
        "values": ["against", "between", "for"],
        "derived": {"from": "immigsent", "edges": [10, 21]},
    }
    path, out = tmp_path / "ess.csv", tmp_path / "out.parquet"
    frame.assign(mood="").to_csv(path, index=False)
    synthesize(str(path), spec, 1.0, method="marginals", engine="duckdb", out=str(out), random_state=1)
    written = pd.read_parquet(out)
    _sums_agree(written)
    bands = pd.cut(written["immigsent"].astype(float), [-np.inf, 10, 21, np.inf], right=False)
    named = bands.cat.rename_categories(["against", "between", "for"]).astype(object)
    assert (written["mood"].isna() == named.isna()).all() and (written["mood"].dropna() == named.dropna()).all()


#: The survey's interview start and end (its end 0 to 30 days past its start), with a few more columns.
INTERVIEW = ("stintrvw", "endintrvw", "female")


def _interviews():
    frame = pd.read_csv(shared_path("ess9gb.csv"), dtype=str, keep_default_na=False)
    spec = complete_domain("ess9gb")
    spec["columns"] = {n: c if n in INTERVIEW else {"type": "drop"} for n, c in spec["columns"].items()}
    spec["columns"]["endintrvw"]["derived"] = {"from": "stintrvw", "gap": [0, 30]}
    return frame, spec


def _gaps(out: pd.DataFrame) -> pd.Series:
    return (pd.to_datetime(out["endintrvw"]) - pd.to_datetime(out["stintrvw"])).dt.days


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_draws_a_date_past_another_by_its_measured_gap(method):
    """Measured apart, the survey's interview ended before it started in 798 of 1,902 synthetic rows at ε = 1 (26 of
    1,905 records; most end the day they start); drawn as the start plus its measured gap, no row ends before it
    starts or more than 30 days after, the end is missing exactly where the start is, and the budget is the
    column's own (it is measured, as its gap)."""
    frame, spec = _interviews()
    release = synthesize(frame, spec, 1.0, method=method, random_state=5)
    out = release.data
    assert list(out.columns) == list(INTERVIEW)
    gaps = _gaps(out)
    assert gaps.notna().sum() > 0.5 * len(out) and gaps.min() >= 0 and gaps.max() <= 30
    assert (out["endintrvw"].isna() >= out["stintrvw"].isna()).all()
    assert pd.to_datetime(out["endintrvw"]).max() <= pd.Timestamp("2019-03-31")


def test_a_gap_is_drawn_the_same_in_chunks_and_by_duckdb(tmp_path):
    """Written in chunks to Parquet (Arrow), the end is past its start in every row; DuckDB reads the end as its gap
    as memory does (the same seeded release, to the byte)."""
    frame, spec = _interviews()
    path, out = tmp_path / "ess.csv", tmp_path / "out.parquet"
    frame.to_csv(path, index=False)
    release = synthesize(str(path), spec, 1.0, method="marginals", out=str(out), random_state=1)
    assert "endintrvw (days past 'stintrvw')" in [b["column"] for b in release.card["adaptive_bins"]]
    written = pd.read_parquet(out)
    gaps = _gaps(written)
    assert gaps.notna().sum() > 0.5 * len(written) and gaps.min() >= 0 and gaps.max() <= 30
    in_memory = synthesize(str(path), spec, 1.0, method="marginals", engine="pandas", random_state=1).data
    duckdb = synthesize(str(path), spec, 1.0, method="marginals", engine="duckdb", random_state=1)
    assert duckdb.settings["engine"] == "duckdb" and duckdb.data.equals(in_memory)


def test_a_chain_of_dates_comes_out_in_order():
    """COMPAS's recidivism offence, the jail entry after it and the exit after that, declared a chain of gaps: no
    synthetic row has them out of order (the records: one entry before its offence, declared away by the gap)."""
    frame, spec = _compas()
    keep = ("sex", "r_offense_date", "r_jail_in", "r_jail_out")
    spec["columns"] = {n: c if n in keep else {"type": "drop"} for n, c in spec["columns"].items()}
    spec["columns"]["r_jail_in"]["derived"] = {"from": "r_offense_date", "gap": [0, 400]}
    spec["columns"]["r_jail_out"]["derived"] = {"from": "r_jail_in", "gap": [0, 400]}
    del spec["columns"]["age_cat"]
    out = synthesize(frame.drop(columns="age_cat"), spec, 1.0, method="marginals", random_state=3).data
    offence, entry, exit_ = (pd.to_datetime(out[c]) for c in keep[1:])
    assert exit_.notna().sum() > 100
    assert ((entry - offence).dt.days >= 0).where(entry.notna(), True).all()
    assert ((exit_ - entry).dt.days >= 0).where(exit_.notna(), True).all()


@pytest.mark.parametrize("method", ["marginals", "cathist", "copula"])
def test_a_year_and_a_month_of_a_date_agree_with_it(method):
    """The survey's interview start with its year and month beside it, declared the date's parts: they agree with
    the synthetic date in every row (measured apart, Ecdat's breaches came out with a year of another date than its
    start in 491 of 998 rows), and nothing is spent on them."""
    frame, spec = _interviews()
    start = pd.to_datetime(frame["stintrvw"], errors="coerce")
    frame = frame.assign(year=start.dt.year.astype("Int64").astype(str).replace("<NA>", ""))
    frame = frame.assign(month=start.dt.month.astype("Int64").astype(str).replace("<NA>", ""))
    spec["columns"]["year"] = {
        "type": "integer",
        "min": 2018,
        "max": 2019,
        "derived": {"from": "stintrvw", "part": "year"},
    }
    spec["columns"]["month"] = {
        "type": "integer",
        "min": 1,
        "max": 12,
        "derived": {"from": "stintrvw", "part": "month"},
    }
    release = synthesize(frame, spec, 1.0, method=method, random_state=6)
    out = release.data
    dates = pd.to_datetime(out["stintrvw"])
    assert dates.notna().sum() > 1000
    assert (out["year"].astype(float) == dates.dt.year).where(dates.notna(), True).all()
    assert (out["month"].astype(float) == dates.dt.month).where(dates.notna(), True).all()
    assert (out["year"].isna() == dates.isna()).all()
    assert not [event for event in release.charge.events if "year" in event.label or "month" in event.label]
