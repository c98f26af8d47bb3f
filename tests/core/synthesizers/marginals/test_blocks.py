"""A survey's question blocks: formed from names alone, their skip counts, the measurement (audited), and the
release that keeps who skipped a whole question (FiveThirtyEight's Star Wars survey, header over two rows)."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pandas as pd
import pytest

from dpsynth_core.data.formats import read_data
from dpsynth_core.domain import TableDomain
from dpsynth_core.engines.memory import MemorySource
from dpsynth_core.pgm import Measurement
from dpsynth_core.privacy.noise import make_noise_source
from dpsynth_core.privacy.zcdp import zcdp_to_epsilon
from dpsynth_core.release import synthesize
from dpsynth_core.release.card import unjoined_notes
from dpsynth_core.synthesizers.marginals import MarginalsSynthesizer, blocks
from dpsynth_core.synthesizers.marginals.measurements import measure
from tests.audit import audit
from tests.conftest import shared_path

ANSWERS = {"type": "categorical", "values": ["Yes", "No"]}


def _survey(rows: list[tuple]) -> tuple[pd.DataFrame, TableDomain]:
    names = ["age", "Seen? | I", "Seen? | II", "Seen? | III"]
    frame = pd.DataFrame(rows, columns=names)
    spec = {"columns": {"age": {"type": "integer", "min": 0, "max": 99, "missing": False}}}
    spec["columns"].update({n: dict(ANSWERS) for n in names[1:]})
    return frame, TableDomain.from_json(spec)


def _columns(frame, domain):
    source = MemorySource(frame, domain)
    return source, {
        n: type("Column", (), {"cells": c, "missing_code": c - 1 if domain.kept[n].missing else None})()
        for n, c in source.cells.items()
    }


def test_blocks_come_from_names_and_the_declaration_alone():
    frame, domain = _survey([(30, "Yes", None, "No")])
    _, columns = _columns(frame, domain)
    missing = {n: c.missing_code is not None for n, c in columns.items()}
    assert missing["age"] is False  # declared without missing cells: in no block
    found = blocks.question_blocks(missing)
    assert [(b.question, b.columns) for b in found] == [("Seen?", ("Seen? | I", "Seen? | II", "Seen? | III"))]
    missing["Seen? | (answered any)"] = False  # a real column of that name: the hidden one steps aside
    assert blocks.question_blocks(missing)[0].hidden == "Seen? | (answered any) "
    assert blocks.question_blocks({"Q - a": True, "R - b": True}) == []  # one column a question: no block
    assert blocks.question_blocks({"Q - a": True, "Q - b": False}) == []  # one that may be missing: none
    assert "1 question answered over several columns" in blocks.plan_words(domain)
    assert (
        blocks.plan_words(TableDomain.from_json({"columns": {"age": {"type": "integer", "min": 0, "max": 9}}})) is None
    )
    assert blocks.question_of("Which sides? - Squash") == "Which sides?"
    qualtrics = blocks.question_blocks({"Q1": True, "Q2_1 | Rate each - Taste": True, "Q2_2 | Rate each - Price": True})
    assert [(b.question, len(b.columns)) for b in qualtrics] == [("Q2 | Rate each", 2)]  # its code and its text


def test_the_skip_count_is_the_records_missing_in_every_column_of_the_block():
    rows = [(30, None, None, None)] * 4 + [(40, "Yes", None, None)] * 3 + [(50, "No", "Yes", "No")] * 5
    frame, domain = _survey(rows)
    source, columns = _columns(frame, domain)
    found = blocks.Blocks(source, columns)
    assert found.skipped == {"Seen? | (answered any)": 4}
    group, counts = found.own(source, "Seen? | II")
    assert group == ("Seen? | II", "Seen? | (answered any)")
    # rows: Yes, No, missing; columns: skipped the block, answered some of it
    assert counts.tolist() == [[0, 5], [0, 0], [4, 3]]
    assert found.structure[group].tolist() == [[False, True], [False, True], [True, True]]
    assert found.own(source, "age")[0] == ("age",)


def test_duckdb_counts_the_same_skips(tmp_path):
    from dpsynth_core.engines.duckdb_source import DuckDBSource

    rows = [(30, None, None, None)] * 4 + [(40, "Yes", None, None)] * 3 + [(50, "No", "Yes", "No")] * 5
    frame, domain = _survey(rows)
    frame.to_csv(tmp_path / "t.csv", index=False)
    source, columns = _columns(frame, domain)
    with DuckDBSource(str(tmp_path / "t.csv"), domain) as engine:
        found = blocks.Blocks(engine, columns)
        assert found.skipped == blocks.Blocks(source, columns).skipped == {"Seen? | (answered any)": 4}
        assert found.own(engine, "Seen? | III")[1].tolist() == [[0, 0], [0, 5], [4, 3]]


def _two_questions():
    rng = np.random.default_rng(4)
    seen = rng.choice(["Yes", "No", None], size=(60, 3), p=[0.5, 0.3, 0.2])
    seen[:12] = None  # skipped the first question whole
    rate = rng.choice(["Good", None], size=(60, 2), p=[0.6, 0.4])
    rate[6:20] = None  # the second: overlapping skips
    frame = pd.DataFrame(np.column_stack([rng.choice(["Yes", "No"], 60), seen, rate]))
    frame.columns = ["fan", "Seen? | I", "Seen? | II", "Seen? | III", "Rate - a", "Rate - b"]
    spec = {"columns": {"fan": {"type": "categorical", "values": ["Yes", "No"], "missing": False}}}
    spec["columns"].update({n: dict(ANSWERS) for n in frame.columns[1:4]})
    spec["columns"].update({n: {"type": "categorical", "values": ["Good"]} for n in frame.columns[4:]})
    return frame, TableDomain.from_json(spec)


def _answered(frame, names) -> np.ndarray:
    return frame[names].notna().any(axis=1).to_numpy().astype(int)


def test_the_rounds_count_a_hidden_column_with_any_other_in_memory_and_in_duckdb(tmp_path):
    from dpsynth_core.engines.duckdb_source import DuckDBSource

    frame, domain = _two_questions()
    seen, rate = list(frame.columns[1:4]), list(frame.columns[4:])
    source, columns = _columns(frame, domain)
    found = blocks.Blocks(source, columns)
    h_seen, h_rate = (b.hidden for b in found.blocks)
    pairs, weighed = found.candidates(
        list(columns), [(a, b) for i, a in enumerate(columns) for b in list(columns)[i + 1 :]]
    )
    assert ("fan", h_seen) in pairs and ("Rate - a", h_seen) in pairs and (h_seen, h_rate) in pairs
    assert ("Seen? | I", h_seen) not in pairs  # a block's own pairs are measured first, not offered
    assert weighed[("fan", h_seen)] == 2 * 5  # a hidden column weighs as one of its columns: 5 pairs each
    expected = {
        ("fan", h_seen): pd.crosstab(frame["fan"].map({"Yes": 0, "No": 1}), _answered(frame, seen)),
        ("Rate - a", h_seen): pd.crosstab(frame["Rate - a"].isna().astype(int), _answered(frame, seen)),
        (h_seen, h_rate): pd.crosstab(_answered(frame, seen), _answered(frame, rate)),
    }
    frame.to_csv(tmp_path / "t.csv", index=False)
    with DuckDBSource(str(tmp_path / "t.csv"), domain) as engine:
        for table in (source, engine):
            counts = blocks.Blocks(table, columns).counts.marginals(list(expected) + [("fan", "Rate - b")])
            for group, got in zip(expected, counts):
                assert got.tolist() == expected[group].to_numpy().tolist(), group
            assert counts[-1].sum() == 60


# --- audit: a record that skipped the whole question, added; broken: its skip count released exactly ----------

SIGMA, DELTA = 1.5, 0.05
_D = _survey([(30, None, None, None)] * 3 + [(40, "Yes", None, "No")] * 6)
_D_PRIME = _survey([(30, None, None, None)] * 4 + [(40, "Yes", None, "No")] * 6)
_EVENTS = {f"skipped >= {t}": (lambda t: lambda out: out >= t)(t) for t in (4, 5, 6)}


_COUNTED: dict = {}  # each table's blocks and pair, counted once


def _skipped_cell(data, seed, broken=False):
    if id(data) not in _COUNTED:
        source, columns = _columns(*data)
        found = blocks.Blocks(source, columns)
        _COUNTED[id(data)] = found, *found.own(source, "Seen? | I")
    found, group, counts = _COUNTED[id(data)]
    noisy, _ = measure(make_noise_source(seed), counts, SIGMA, zcdp=True)
    found.clear_structural(group, noisy)
    return counts[2, 0] if broken else noisy[2, 0]


def test_audit_of_a_block_measurement_passes_and_catches_an_exact_skip_count():
    epsilon = zcdp_to_epsilon(1 / (2 * SIGMA**2), DELTA)
    assert not audit(_skipped_cell, _D, _D_PRIME, _EVENTS, trials=3000, seed=1, delta=DELTA).violates(epsilon)
    broken = audit(lambda d, s: _skipped_cell(d, s, True), _D, _D_PRIME, _EVENTS, trials=300, seed=2, delta=DELTA)
    assert broken.violates(epsilon)


# --- the release --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def star_wars():
    frame, _ = read_data(shared_path("star_wars.csv"), header_rows=2)
    spec = json.loads(shared_path("star_wars.domain.json").read_text())
    return frame, spec


def _skips(frame: pd.DataFrame, names: list) -> tuple[float, float]:
    """The shares of records that skipped all of ``names``, and that skipped some but not all."""
    empty = frame[names].isna() | (frame[names].astype(str) == "")
    count = empty.sum(axis=1)
    return float((count == len(names)).mean()), float(((count > 0) & (count < len(names))).mean())


def test_a_release_keeps_who_skipped_a_whole_question(star_wars):
    """Of 1,186 respondents, 29.7% skipped all 14 character questions and 6.2% some. Before the blocks a release
    at epsilon 1 had 0% skip them all and 98.8% skip some. The skip share's noise, pooled over 14
    measurements at about 60 records each, is about 20 records (1.7%): 0.06 is over three deviations."""
    frame, spec = star_wars
    characters = [c for c in frame.columns if c.startswith("Please state whether")]
    real_all, real_some = _skips(frame, characters)
    assert (real_all, len(characters)) == (pytest.approx(0.297, abs=0.001), 14)
    release = synthesize(frame, spec, 1.0, random_state=0)
    synthetic_all, synthetic_some = _skips(release.data, characters)
    assert synthetic_all == pytest.approx(real_all, abs=0.06)
    assert synthetic_some < 0.5
    details = release.card["method_details"]
    questions = [b["question"] for b in details["question_blocks"]]
    assert len(questions) == 3 and questions[2].startswith("Please state whether")
    assert blocks.HIDDEN_SUFFIX not in " ".join(release.data.columns)  # the hidden columns never leave
    # the card's list of columns in no measured pair counts a column's pair with a hidden one as no pair
    pairs = [m["marginal"] for m in details["measured_marginals"] if len(m["marginal"]) > 1]
    real_pairs = [g for g in pairs if not any(c.endswith(blocks.HIDDEN_SUFFIX) for c in g)]
    joined = {c for g in real_pairs for c in g}
    kept = list(TableDomain.from_json(spec).kept)
    expected = len([c for c in kept if c not in joined])
    assert f"{expected:,} of the {len(kept):,} columns" in unjoined_notes(details, kept)[0]
    assert any(n.startswith("3 questions answered over several columns") for n in release.card["notes"])


def test_a_person_unit_keeps_the_skips_too(star_wars):
    """A person unit of 2 rows doubles every measurement's noise (sigma 86 records): one column's own test of its
    "missing" cell (tested over the table's 37 columns) used to cut it, and with it every skip of the question,
    though the block's skip count, pooled over its 14 pairs (about 23 records of deviation), was 15 deviations
    from empty. 0.07 is three such deviations of the share."""
    frame, spec = star_wars
    frame = frame.assign(RespondentID=(np.arange(len(frame)) // 2).astype(str))
    spec = {**spec, "person": {"column": "RespondentID", "max_rows": 2}}
    characters = [c for c in frame.columns if c.startswith("Please state whether")]
    release = synthesize(frame, spec, 1.0, random_state=0)
    assert _skips(release.data, characters)[0] == pytest.approx(_skips(frame, characters)[0], abs=0.07)


def test_a_block_columns_missing_cell_is_kept_while_the_skip_count_is_told_from_empty():
    frame, domain = _survey([(30, None, None, None)] * 4 + [(40, "Yes", None, "No")] * 6)
    source, columns = _columns(frame, domain)
    found = blocks.Blocks(source, columns)
    cut = {n: np.array([True, True, False]) for n in found.hidden_of}  # every "missing" cut by its own test

    def pairs(skipped: float, sigma: float):
        return [Measurement(g, np.array([[0, 3], [0, 3], [skipped, 1]], dtype=float), sigma) for g in found.structure]

    kept = found.supported(cut, pairs(40.0, 10.0))  # pooled: 40 +/- 5.8, told from empty
    assert all(kept[n][2] for n in found.hidden_of) and not kept[("Seen? | I", found.blocks[0].hidden)][0, 0]
    still = found.supported(cut, pairs(10.0, 10.0))  # 10 +/- 5.8: not
    assert not any(still[n][2] for n in found.hidden_of)


def test_the_privacy_page_says_so_before_the_draw(star_wars):
    from dpsynth_core.synthesizers.planning import privacy_note

    level, text = privacy_note(TableDomain.from_json(star_wars[1]), 1.0)
    assert "δ (delta)" in text and "**3 questions answered over several columns**" in text
    assert "Which of the following Star Wars films" in text


def test_the_model_gives_no_records_to_an_answer_of_a_skipped_question(star_wars):
    frame, spec = star_wars
    model = MarginalsSynthesizer(epsilon=1.0, random_state=3)
    model.fit(frame, TableDomain.from_json(spec))
    for name, hidden in model.blocks_.hidden_of.items():
        pair = model.model_.project((name, hidden))
        missing = model.columns_[name].missing_code
        assert np.delete(pair[:, 0], missing).sum() == 0, name
        assert pair[missing, 0] > 0, name
    copy = pickle.loads(pickle.dumps(model))  # as Spark's executors get it: without the fit's counting source
    assert not hasattr(copy.blocks_, "counts") and copy.blocks_.structure.keys() == model.blocks_.structure.keys()
