"""The Preview after Generate: the synthetic table is drawn before anything else is computed from the data."""

from __future__ import annotations

import streamlit as st
from streamlit.testing.v1 import AppTest

from app_support import comparisons
from tests.conftest import ROOT


def state_domain(at) -> list:
    """The kept columns of the session's declaration (a release's columns)."""
    from dpsynth_core.domain import as_table_domain

    return list(as_table_domain(at.session_state["declaration"]).kept)


def test_the_table_is_drawn_before_the_value_comparison_is_computed(monkeypatch):
    events = []
    quality, dataframe = comparisons.quality, st.dataframe

    def recorded_quality(entry, name, *args, **kwargs):
        if name not in entry["metrics"]:
            events.append(name)
        return quality(entry, name, *args, **kwargs)

    def recorded_dataframe(data, *args, **kwargs):
        events.append("table")
        return dataframe(data, *args, **kwargs)

    monkeypatch.setattr(comparisons, "quality", recorded_quality)
    monkeypatch.setattr(st, "dataframe", recorded_dataframe)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("app_pages/4_Preview.py").run()
    assert events == ["table"]  # before the first draw: the columns it will have, as an empty table
    assert list(at.dataframe[0].value.columns) == list(state_domain(at)) and len(at.dataframe[0].value) == 0
    events.clear()
    at.button(key="preview_generate").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert events[:2] == ["table", "values"]  # the first tab's rows, then the shapes (computed once)
    assert events.count("values") == 1
    blocks = [getattr(e, "type", "") for e in at.main if type(e).__name__ == "Block"]
    assert blocks.index("flex_container") < blocks.index("tab_container")  # the warnings' place: above the tabs


def test_after_a_draw_the_ledger_and_button_are_drawn_once_the_table_is_on_its_way(monkeypatch):
    # the session's save and the sidebar's ledger wait for the table; the button still counts the draw
    from app_support import state

    events = []
    dataframe, save = st.dataframe, state.save_session

    def recorded_dataframe(data, *args, **kwargs):
        events.append("table")
        return dataframe(data, *args, **kwargs)

    def recorded_save():
        events.append("save")
        return save()

    monkeypatch.setattr(st, "dataframe", recorded_dataframe)
    monkeypatch.setattr(state, "save_session", recorded_save)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("app_pages/4_Preview.py").run()
    events.clear()
    at.button(key="preview_generate").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "table" in events and events[-1] == "save", events  # the last save comes after the table
    assert at.button(key="preview_generate").label.startswith("Draw again"), at.button(key="preview_generate").label
    assert any("release #1" in s.value for s in at.success)


def test_the_cards_plain_notes_show_on_the_preview(monkeypatch):
    # a note the card holds (a small noisy row count, a free-text column of which nothing came out) is said
    # on the Preview too, where the publisher looks at the table
    from dpsynth_core.synthesizers.base import Synthesizer

    monkeypatch.setattr(Synthesizer, "release_notes", lambda self: ["The table has 1 row: a plain note."])
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("app_pages/4_Preview.py").run()
    at.button(key="preview_generate").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(w.value == "The table has 1 row: a plain note." for w in at.warning), [w.value for w in at.warning]


def test_a_table_where_many_columns_changed_shape_shows_the_worst_and_names_the_rest(monkeypatch):
    # nine columns changed shape: the warning spells out the six most changed, most first, and names the rest,
    # so that it does not push the charts off the screen (a 32-column table gave 33 sentences)
    from dpsynth_core.evaluation.shape_words import SHAPE_SHOWN

    quality = comparisons.quality
    changed = {f"c{i}": {"shape": [f"c{i} moved by {i}"], "max_cdf_gap": i / 10} for i in range(9)}

    def many_changed(entry, name, *args, **kwargs):
        return changed if name == "values" else quality(entry, name, *args, **kwargs)

    monkeypatch.setattr(comparisons, "quality", many_changed)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("app_pages/4_Preview.py").run()
    at.button(key="preview_generate").click().run()
    assert not at.exception, [e.value for e in at.exception]
    [said] = [w.value for w in at.warning if "changed shape" in w.value]
    shown = [f"c{i} moved by {i}" for i in range(8, 8 - SHAPE_SHOWN, -1)]
    assert [said.index(s) for s in shown] == sorted(said.index(s) for s in shown), said  # most changed first
    assert "c2 moved" not in said and "3 more columns: c0, c1, c2 (their figures are in that table)" in said, said
