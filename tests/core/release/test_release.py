"""synthesize() and the release card: contents, no seed, no data-derived facts; the progress hook reports
coarse steps from 0 to 1, in order, with public messages."""

import json

import pandas as pd
import pytest

import dpsynth_core
from dpsynth_core import synthesize
from dpsynth_core.errors import DomainError, ParameterError
from dpsynth_core.release.card import render_card_html
from dpsynth_core.synthesizers import METHODS
from tests.conftest import complete_domain, shared_path


@pytest.fixture(scope="module")
def release():
    return synthesize(shared_path("adult.csv"), complete_domain("adult"), 1.0, method="cathist", random_state=987654321)


def test_card_has_what_a_stakeholder_needs(release):
    card = release.card
    for key in (
        "method",
        "parameters",
        "guarantee",
        "spends",
        "budget_split",
        "rows",
        "domain",
        "software",
        "created",
        "noise_source",
        "covered",
        "not_covered",
    ):
        assert key in card
    # seeded (a repeatable test): no guarantee holds; the card says what a secure draw would guarantee
    assert card["guarantee"]["epsilon"] is None and card["guarantee"]["seeded"] is True
    assert card["guarantee"]["unseeded"]["epsilon"] == pytest.approx(1.0)
    assert card["guarantee"]["unseeded"]["neighbouring"] == "add/remove one record"
    assert card["software"]["version"] == dpsynth_core.__version__
    assert len(card["domain"]["columns"]) == 15
    assert card["rows"]["synthetic"] == len(release.data)
    assert "noisy" in card["rows"]["policy"]
    assert sum(card["budget_split"].values()) == pytest.approx(1.0)
    json.dumps(card)  # JSON-ready


def test_card_never_holds_the_seed(release):
    text = json.dumps(release.card) + render_card_html(release.card)
    assert "987654321" not in text  # the card says that the release is seeded, never the seed


def _keys(value):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner)


def test_card_holds_no_real_data_metric(release):
    keys = set(_keys(release.card))
    assert not keys & {"fidelity", "out_of_domain", "kept_values", "true_values", "made_up"}
    assert "fidelity" in json.dumps(release.publisher_report)


def test_html_card_is_readable(release):
    page = render_card_html(release.card)
    assert page.startswith("<!doctype html>") and "What the guarantee covers" in page
    assert "capital-gain" in page


def test_accepts_dataframe_and_json_path(tmp_path):
    frame = pd.read_csv(shared_path("ce.csv"), dtype=str, keep_default_na=False)
    path = tmp_path / "ce.json"
    path.write_text(json.dumps(complete_domain("ce")))
    out = synthesize(frame, path, 2.0, rows=100, random_state=1)
    assert len(out.data) == 100 and "public" in out.card["rows"]["policy"]


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"epsilon": 0}, ParameterError, "epsilon"),
        ({"epsilon": -1}, ParameterError, "epsilon"),
        ({"epsilon": 1, "rho": 1.0}, ParameterError, "rho"),
        ({"epsilon": 1, "method": "magic"}, ParameterError, "method"),
        ({"epsilon": 1, "rows": 0}, ParameterError, "rows"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    eps = kwargs.pop("epsilon")
    with pytest.raises(error, match=match):
        synthesize(shared_path("ce.csv"), complete_domain("ce"), eps, **kwargs)


def test_incomplete_domain_is_refused_not_filled():
    with pytest.raises(DomainError, match="Income"):
        synthesize(shared_path("ce.csv"), shared_path("ce.domain.json"), 1.0)


def test_the_warm_up_release_reads_no_data_and_records_nothing(tmp_path, monkeypatch):
    """The app's server makes one release of a made-up table at start (``warm_up_release``), so that its
    first real release is not slowed by loading the method's code. It must not open or make a workspace."""
    from dpsynth_core.release import warm_up_release

    monkeypatch.setenv("DPSYNTH_WORKSPACE", str(tmp_path / "workspace"))
    assert warm_up_release() is None
    assert not (tmp_path / "workspace").exists()


def test_synthesize_is_prepare_then_run_and_the_settings_are_frozen(release):
    """The settings are stated once: checked and priced by ``prepare`` before any reading, frozen, and
    recorded with the release as they were; a path is opened once, by the settings themselves."""
    import dataclasses

    from dpsynth_core.release import OpenedTable, prepare

    path, domain = shared_path("adult.csv"), complete_domain("adult")
    settings = prepare(path, domain, 1.0, method="cathist", random_state=987654321)
    assert (settings.method, settings.epsilon, settings.engine, settings.out) == ("cathist", 1.0, "pandas", None)
    assert settings.charge.guaranteed is False  # seeded: recorded as claiming no guarantee
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.epsilon = 2.0
    with pytest.raises(TypeError):
        settings.options["k"] = 3
    opened = settings.open(path)
    assert isinstance(opened, OpenedTable) and not opened.owned and settings.open(opened) is opened
    again = settings.run(opened)
    pd.testing.assert_frame_equal(again.data, release.data)
    assert again.settings == release.settings == settings.public()
    assert again.publisher_report["reading"] == opened.lines


# --- the progress hook -------------------------------------------------------------------------

TABLE = pd.DataFrame({"sex": ["Female", "Male"] * 40, "age": [str(20 + i % 60) for i in range(80)]})
DOMAIN = {
    "columns": {
        "sex": {"type": "categorical", "values": ["Female", "Male"]},
        "age": {"type": "integer", "min": 0, "max": 99, "bin_width": 10},
    }
}


@pytest.mark.parametrize("method", list(METHODS))
def test_progress_moves_from_zero_to_one_in_order(method):
    seen = []
    synthesize(
        TABLE, DOMAIN, 1.0, method=method, random_state=0, progress=lambda done, message: seen.append((done, message))
    )
    fractions = [done for done, _ in seen]
    assert fractions[0] == 0 and fractions[-1] == 1 and fractions == sorted(fractions)
    assert len(seen) >= 4 and all(isinstance(m, str) and m for _, m in seen)
    assert not any(value in message for _, message in seen for value in ("Female", "Male"))  # no data values


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_releases_dates_with_a_time_and_times_of_day_in_range_and_on_their_step(method):
    times = pd.date_range("2010-01-01", periods=600, freq="7min")
    minutes = [360 + (7 * i) % 1020 for i in range(600)]  # 06:00 to 22:59
    spec = {
        "columns": {
            "sex": DOMAIN["columns"]["sex"],
            "seen": {"type": "datetime", "min": "2010-01-01", "max": "2010-01-03 23:00", "step": "minute"},
            "left": {"type": "time", "min": "06:00", "max": "22:59", "step": "minute", "written": "HHMM"},
        }
    }
    frame = pd.DataFrame(
        {
            "sex": ["Female", "Male"] * 300,
            "seen": times.strftime("%Y-%m-%d %H:%M"),
            "left": [str(m // 60 * 100 + m % 60) for m in minutes],
        }
    )
    release = synthesize(frame, spec, 1.0, method=method, random_state=0)
    json.dumps(release.card)  # the card's bins and pieces are written as the columns write their values
    out = release.data
    seen, left = out["seen"].dropna(), out["left"].dropna().astype(int)
    assert len(seen) and seen.str.fullmatch(r"2010-01-0[1-3] [0-2][0-9]:[0-5][0-9]").all(), seen.head()
    assert pd.to_datetime(seen).between(pd.Timestamp("2010-01-01"), pd.Timestamp("2010-01-03 23:00")).all()
    assert len(left) and left.between(600, 2259).all() and (left % 100 < 60).all(), left.head()


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_releases_dates_written_as_a_year_and_a_month_as_months_in_range(method):
    """A column of months (DC's wikia file writes "1939, May"), declared ``"written": "year and month"``, and one of
    quarters (fpp3's series write "1985 Q3"), declared ``"written": "year and quarter"``: every method writes its
    synthetic values back as months (2012-01) and quarters (2012-Q3), inside the declared range."""
    days = pd.date_range("2010-01-01", periods=600, freq="14D")
    spec = {
        "columns": {
            "sex": DOMAIN["columns"]["sex"],
            "first": {"type": "date", "min": "2010-01-01", "max": "2033-12-31", "written": "year and month"},
            "quarter": {"type": "date", "min": "2010-01-01", "max": "2033-12-31", "written": "year and quarter"},
        }
    }
    quarters = days.year.astype(str) + " Q" + days.quarter.astype(str)
    frame = pd.DataFrame({"sex": ["Female", "Male"] * 300, "first": days.strftime("%Y, %B"), "quarter": quarters})
    data = synthesize(frame, spec, 1.0, method=method, random_state=0).data
    out, quarter = data["first"].dropna(), data["quarter"].dropna()
    assert len(out) and out.str.fullmatch(r"20[1-3][0-9]-(0[1-9]|1[0-2])").all(), out.head()
    assert pd.to_datetime(out).between(pd.Timestamp("2010-01-01"), pd.Timestamp("2033-12-31")).all()
    assert len(quarter) and quarter.str.fullmatch(r"20[1-3][0-9]-Q[1-4]").all(), quarter.head()
    assert pd.PeriodIndex(quarter, freq="Q").year.to_series().between(2010, 2033).all()


def test_no_progress_callable_is_fine():
    assert len(synthesize(TABLE, DOMAIN, 1.0, random_state=0).data) > 0


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_releases_times_every_so_many_steps_on_them(method):
    """tsibbledata's Victorian electricity demand is read every 30 minutes (``2012-01-01 13:30``): kept to the
    minute, its synthetic times came at any minute (09:06). Declared ``"multiple_of": 30`` (steps), every method
    writes them on the half hour, inside the range, as a number column declared in steps is (post-processing);
    a time of day every 15 minutes alike."""
    moments = pd.date_range("2012-01-01 00:00", periods=600, freq="30min")
    spec = {
        "columns": {
            "sex": DOMAIN["columns"]["sex"],
            "at": {"type": "datetime", "min": "2012-01-01 00:10", "max": "2012-01-31 23:59", "step": "minute"},
            "clock": {"type": "time", "step": "minute", "multiple_of": 15},
        }
    }
    spec["columns"]["at"]["multiple_of"] = 30
    frame = pd.DataFrame(
        {"sex": ["Female", "Male"] * 300, "at": moments.strftime("%Y-%m-%d %H:%M"), "clock": moments.strftime("%H:%M")}
    )
    data = synthesize(frame, spec, 1.0, method=method, random_state=0).data
    at, clock = pd.to_datetime(data["at"].dropna()), data["clock"].dropna()
    assert len(at) and at.dt.minute.isin([0, 30]).all() and (at.dt.second == 0).all(), at.head()
    assert at.between(pd.Timestamp("2012-01-01 00:30"), pd.Timestamp("2012-01-31 23:30")).all()  # multiples inside
    assert len(clock) and clock.str.fullmatch(r"[0-2][0-9]:(00|15|30|45)").all(), clock.head()
