"""The app, headless with Streamlit's AppTest: every page, the full walk, bad uploads, no silent redraws."""

from __future__ import annotations

import json

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from tests.conftest import FIXTURES, ROOT

PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))


def _app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)


def _visit(at: AppTest, path: str) -> AppTest:
    at.switch_page(path).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def downloads(monkeypatch):
    """Capture what download buttons serve, by media id."""
    served = {}
    original = MemoryMediaFileStorage.load_and_get_id

    def capture(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        served[file_id] = path_or_data
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", capture)
    return served


def test_home_page_loads_with_example_preselected():
    at = _app().run()
    assert not at.exception
    assert "synthetic copy" in at.title[0].value
    assert at.session_state["data"]["source"] == "example: adult"


@pytest.mark.parametrize("path", PAGES)
def test_every_page_loads_from_a_fresh_start(path):
    _visit(_app().run(), path)


def test_data_page_shows_names_and_size_never_values():
    at = _visit(_app().run(), "pages/1_Data.py")
    text = " ".join(m.value for m in at.markdown) + " ".join(str(m.value) for m in at.metric)
    assert "32,561" in text
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["column name"] and "age" in frame["column name"].tolist()
    assert "State-gov" not in frame.to_string()


def test_unreadable_upload_shows_error_and_keeps_previous_table():
    at = _visit(_app().run(), "pages/1_Data.py")
    at.radio(key="data_source_choice").set_value("My own file").run()
    at.file_uploader(key="data_upload").upload("broken.csv", b"PK\x03\x04 a zip file", "text/csv").run()
    assert not at.exception
    assert any("could not be read" in e.value and "zip" in e.value for e in at.error)
    assert at.session_state["data"]["source"] == "example: adult"


def test_a_broken_line_is_one_row_of_missing_cells_counted_for_the_publisher():
    at = _visit(_app().run(), "pages/1_Data.py")
    at.radio(key="data_source_choice").set_value("My own file").run()
    at.file_uploader(key="data_upload").upload("broken.csv", (FIXTURES / "malformed.csv").read_bytes(),
                                               "text/csv").run()
    assert not at.exception and not at.error
    assert at.session_state["data"]["info"]["rows"] == 3
    assert any("1 of 3 lines could not be read" in w.value and "wrong number of fields" in w.value
               for w in at.warning)


def test_publisher_chooses_encoding_and_delimiter():
    at = _visit(_app().run(), "pages/1_Data.py")
    at.radio(key="data_source_choice").set_value("My own file").run()
    raw = "city;n\nQuébec;1\nLévis;2\n".encode("cp1252")
    at.file_uploader(key="data_upload").upload("w.csv", raw, "text/csv").run()
    info = at.session_state["data"]["info"]
    assert info["columns"] == ["city", "n"] and info["lines"]["read as windows-1252"] == 2
    at.selectbox(key="data_encoding").set_value("utf-8").run()
    info = at.session_state["data"]["info"]
    assert info["lines"]["not decodable"] == 2
    assert any("2 of 2 lines could not be read" in w.value for w in at.warning)
    at.selectbox(key="data_delimiter").set_value(",").run()
    assert at.session_state["data"]["info"]["columns"] == ["city;n"]
    assert not at.exception


def test_upload_starts_a_declaration_from_names_only():
    at = _visit(_app().run(), "pages/1_Data.py")
    at.radio(key="data_source_choice").set_value("My own file").run()
    at.file_uploader(key="data_upload").upload("people.csv", b"id,age,sex,zip\n1,34,Female,02139\n2,51,Male,98105\n",
                                               "text/csv").run()
    assert not at.exception
    columns = at.session_state["declaration"]["columns"]
    assert columns["id"] == {"type": "drop"} and columns["age"]["max"] == 120
    assert columns["zip"]["generator"] == "digits"
    assert "51" not in json.dumps(columns)


def test_domain_page_asks_for_missing_bounds_of_ce():
    at = _visit(_app().run(), "pages/1_Data.py")
    at.selectbox(key="data_example").set_value("ce").run()
    at.button(key="data_use_example").click().run()
    at = _visit(at, "pages/2_Domain.py")
    warnings = " ".join(w.value for w in at.warning)
    assert "no public minimum" in warnings and "Income" not in warnings.split("no public")[0][-5:]
    assert any("columns are ready" in e.value for e in at.error)
    # the publisher supplies the bounds; the page then reports the column ready
    for index, field, value in ((1, "min", -100000), (1, "max", 1000000), (3, "max", 200000)):
        at.number_input(key=f"domain_v{at.session_state['declaration_version']}_{index}_{field}").set_value(value).run()
    assert any("All 4 columns are declared" in s.value for s in at.success)


def test_full_walk_on_adult(downloads):
    at = _visit(_app().run(), "pages/1_Data.py")
    at = _visit(at, "pages/2_Domain.py")
    assert any("All 15 columns are declared" in s.value for s in at.success)
    at = _visit(at, "pages/3_Privacy.py")
    at.select_slider(key="privacy_epsilon").set_value(2.0).run()
    at.slider(key="privacy_rho").set_value(0.8).run()
    assert at.session_state["epsilon"] == 2.0 and at.session_state["rho"] == 0.8
    assert len(at.get("plotly_chart")) == 1
    at = _visit(at, "pages/4_Preview.py")
    at.button(key="preview_generate").click().run()
    assert not at.exception
    assert any("Synthetic table ready" in s.value for s in at.success)
    assert len(at.get("plotly_chart")) >= 4
    at = _visit(at, "pages/5_Release.py")
    buttons = {b.proto.label: b.proto.url for b in at.download_button}
    assert set(buttons) == {"Synthetic data (CSV)", "Release card (HTML)", "Release card (JSON)",
                            "Domain declaration (JSON)"}
    contents = {label: downloads[url.rsplit("/", 1)[-1].split(".")[0]] for label, url in buttons.items()}
    csv = contents["Synthetic data (CSV)"].decode()
    assert csv.splitlines()[0].startswith("age,workclass") and len(csv.splitlines()) > 30_000
    card = json.loads(contents["Release card (JSON)"])
    assert card["guarantee"]["epsilon"] == pytest.approx(2.0) and card["parameters"]["rho"] == 0.8
    assert not any(k in json.dumps(card) for k in ('"seed"', '"random_state"'))
    assert b"<!doctype html>" in contents["Release card (HTML)"]


def test_same_settings_never_silently_redraw():
    at = _visit(_app().run(), "pages/4_Preview.py")
    at.button(key="preview_generate").click().run()
    first = at.session_state["releases"][at.session_state["current_release"]]["release"]
    _visit(at, "pages/3_Privacy.py")
    at = _visit(at, "pages/4_Preview.py")
    again = at.session_state["releases"][at.session_state["current_release"]]["release"]
    assert again is first
    ledger = at.session_state["ledger"][at.session_state["data"]["hash"]]
    assert len(ledger) == 1
    assert "Draw again" in at.button(key="preview_generate").label
    at.button(key="preview_generate").click().run()
    ledger = at.session_state["ledger"][at.session_state["data"]["hash"]]
    assert len(ledger) == 2 and sum(e["epsilon"] for e in ledger) == pytest.approx(2.0)
    assert any("ε = 2" in m.value for m in at.sidebar.metric)


@pytest.mark.parametrize("method", ["cathist", "marginals", "copula", "dirichlet", "bayesnet", "deniability",
                                    "microagg"])
def test_preview_and_release_work_with_every_method(method, downloads):
    at = _visit(_app().run(), "pages/3_Privacy.py")
    at.radio(key="privacy_method").set_value(method).run()
    assert not at.exception
    assert len(at.get("plotly_chart")) == 1
    at = _visit(at, "pages/4_Preview.py")
    at.button(key="preview_generate").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Synthetic table ready" in s.value for s in at.success)
    if method == "deniability":
        assert any("candidate records passed" in c.value for c in at.caption)
    at = _visit(at, "pages/5_Release.py")
    buttons = {b.proto.label: b.proto.url for b in at.download_button}
    card = json.loads(downloads[buttons["Release card (JSON)"].rsplit("/", 1)[-1].split(".")[0]])
    assert card["method"]["name"] == method
    if method == "microagg":
        assert card["guarantee"]["epsilon"] is None and any("no differential-privacy" in e.value for e in at.error)
    elif method == "deniability":
        assert card["guarantee"]["epsilon"] > 1000  # per-record guarantees add up over ~32,000 records
    else:
        assert card["guarantee"]["epsilon"] <= 1.0 + 1e-9


def test_column_groups_reach_the_method():
    at = _visit(_app().run(), "pages/3_Privacy.py")
    at.radio(key="privacy_method").set_value("marginals").run()
    at.text_area(key="privacy_groups").set_value("sex, relationship").run()
    assert at.session_state["groups"] == [["sex", "relationship"]]
    at.text_area(key="privacy_groups").set_value("sex, nonsense").run()
    assert any("Unknown column(s): nonsense" in e.value for e in at.error)
    at.text_area(key="privacy_groups").set_value("sex, relationship").run()
    at = _visit(at, "pages/4_Preview.py")
    at.button(key="preview_generate").click().run()
    release = at.session_state["releases"][at.session_state["current_release"]]["release"]
    measured = [m["marginal"] for m in release.card["method_details"]["measured_marginals"]]
    assert ["relationship", "sex"] in measured  # the group is measured (columns in declaration order)


def test_session_keeps_only_recent_releases_but_counts_every_draw():
    at = _visit(_app().run(), "pages/4_Preview.py")
    for eps in (0.5, 0.7, 1.0, 1.5, 2.0, 3.0):
        at.session_state["epsilon"] = eps
        at = _visit(at, "pages/4_Preview.py")
        at.button(key="preview_generate").click().run()
    assert len(at.session_state["releases"]) == 5
    ledger = at.session_state["ledger"][at.session_state["data"]["hash"]]
    assert sum(e["epsilon"] for e in ledger) == pytest.approx(8.7)


def test_tiny_upload_walks_through_every_method_without_a_traceback():
    at = _visit(_app().run(), "pages/1_Data.py")
    at.radio(key="data_source_choice").set_value("My own file").run()
    at.file_uploader(key="data_upload").upload(
        "tiny.csv", b"id,age,sex,notes\n1,34,Female,\n2,51,Male,\n3,29,Female,\n4,,Male,\n5,40,Female,\n", "text/csv").run()
    at = _visit(at, "pages/2_Domain.py")
    at.selectbox(key=f"domain_v{at.session_state['declaration_version']}_3_kind").set_value("drop").run()
    assert any("All 4 columns are declared" in s.value for s in at.success)
    for method in ("marginals", "cathist", "copula", "bayesnet", "deniability", "microagg", "dirichlet"):
        at = _visit(at, "pages/3_Privacy.py")
        at.radio(key="privacy_method").set_value(method).run()
        at = _visit(at, "pages/4_Preview.py")
        at.button(key="preview_generate").click().run()
        assert not at.exception, (method, [e.value for e in at.exception])
        assert at.success or at.error or at.warning  # a result, or a message saying why not


# --- bad declarations and very large ones ------------------------------------------------------

def _load_declaration(at: AppTest, spec, name: str = "d.json") -> AppTest:
    at = _visit(at, "pages/2_Domain.py")
    raw = spec if isinstance(spec, bytes) else json.dumps(spec).encode()
    at.file_uploader(key="domain_load").upload(name, raw, "application/json").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _adult_spec() -> dict:
    from dpsynth_core.examples import example_declaration

    return json.loads(json.dumps(example_declaration("adult")))


def test_a_declaration_of_the_wrong_type_is_one_line_naming_the_problem():
    spec = _adult_spec()
    spec["columns"]["age"] = {"type": ["integer"]}
    spec["columns"]["sex"]["missing"] = "false"
    at = _load_declaration(_app().run(), spec)
    errors = [e.value for e in at.error if "cannot be used" in e.value]
    assert len(errors) == 1 and "\n" not in errors[0]
    assert "column 'age': type (['integer'])" in errors[0] and "column 'sex': missing ('false')" in errors[0]
    assert at.session_state["declaration"]["columns"]["age"]["type"] == "integer"  # the old one stays
    at = _load_declaration(_app().run(), b'{"columns": {"age": {"type": "integer", "min": NaN}}}')
    assert any("NaN is not a JSON number" in e.value for e in at.error)


def test_a_declaration_with_a_public_list_loads_its_values():
    at = _visit(_app().run(), "pages/1_Data.py")
    at.radio(key="data_source_choice").set_value("My own file").run()
    at.file_uploader(key="data_upload").upload("s.csv", b"state,n\nTexas,1\nOhio,2\n", "text/csv").run()
    spec = {"columns": {"state": {"type": "categorical", "list": "us_states"},
                        "n": {"type": "integer", "min": 0, "max": 9}}}
    at = _load_declaration(at, spec)
    version = at.session_state["declaration_version"]
    values = at.text_area(key=f"domain_v{version}_0_values").value.splitlines()
    assert len(values) == 51 and "Texas" in values
    assert len(at.session_state["declaration"]["columns"]["state"]["values"]) == 51
    assert any("All 2 columns are declared" in s.value for s in at.success)


def test_dates_from_year_1_to_9999_keep_their_bounds():
    at = _visit(_app().run(), "pages/1_Data.py")
    at.radio(key="data_source_choice").set_value("My own file").run()
    at.file_uploader(key="data_upload").upload("d.csv", b"day\n2020-01-01\n", "text/csv").run()
    at = _load_declaration(at, {"columns": {"day": {"type": "date", "min": "0001-01-01", "max": "9999-12-31"}}})
    assert at.session_state["declaration"]["columns"]["day"] == {"type": "date", "min": "0001-01-01",
                                                                "max": "9999-12-31"}
    assert any("All 1 columns are declared" in s.value for s in at.success)


def test_a_long_category_list_is_kept_as_loaded_and_the_privacy_page_works():
    values = [f"category-{i:07d}-{'x' * 20}" for i in range(1_500_000)]  # about 55 MB of JSON... capped below
    spec = _adult_spec()
    spec["columns"]["native-country"] = {"type": "categorical", "values": values[:1_200_000]}
    at = _load_declaration(_app().run(), spec)
    assert any("1,200,000 values, as declared" in c.value for c in at.caption)
    assert not at.text_area  or all(len(t.value or "") < 1_000_000 for t in at.text_area)
    at = _visit(at, "pages/3_Privacy.py")
    at.select_slider(key="privacy_epsilon").set_value(2.0).run()
    assert not at.exception and at.session_state["epsilon"] == 2.0
    assert len(at.session_state["declaration"]["columns"]["native-country"]["values"]) == 1_200_000


def test_ten_thousand_columns_are_shown_a_page_at_a_time():
    header = ",".join(f"c{i}" for i in range(10_000))
    at = _visit(_app().run(), "pages/1_Data.py")
    at.radio(key="data_source_choice").set_value("My own file").run()
    at.file_uploader(key="data_upload").upload("wide.csv", f"{header}\n{','.join(['1'] * 10_000)}\n".encode(),
                                               "text/csv").run()
    at = _visit(at, "pages/2_Domain.py")
    assert len(at.expander) <= 51  # 50 columns and the load/save box
    assert any("0 of 10,000 columns are ready" in e.value and "and 9,980 more" in e.value for e in at.error)
    at.number_input(key="domain_page").set_value(3).run()
    assert not at.exception and "c100" in at.expander[1].label
