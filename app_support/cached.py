"""Cached wrappers around core calls. Every input is an argument, so caching is safe."""

from __future__ import annotations

import json

import streamlit as st

from dpsynth_core.evaluation import metrics
from dpsynth_core.synthesizers import planning
from dpsynth_core.data.tables import read_table


@st.cache_data(show_spinner=False, max_entries=8)
def read_csv_bytes(raw: bytes, name: str, encoding: str | None = None, delimiter: str | None = None):
    """Read an uploaded or bundled file (cells as text). Raises DataError with a clear message."""
    return read_table(raw, name=name, encoding=encoding, delimiter=delimiter)


@st.cache_data(show_spinner=False, max_entries=256)
def column_plan(declaration_json: str, epsilon: float, rho: float, rows_public: bool, method: str, rows: int):
    return planning.column_plan(json.loads(declaration_json), epsilon, rho, rows_public=rows_public,
                                method=method, rows=rows)


@st.cache_data(show_spinner=False, max_entries=256)
def budget_split(declaration_json: str, epsilon: float, rows_public: bool, method: str):
    return planning.budget_split(json.loads(declaration_json), epsilon, rows_public=rows_public, method=method)


def paired(entry: dict, real, declaration: dict) -> dict:
    """Both tables over the declared cells, kept with the release entry for the session."""
    if "_pairs" not in entry:
        entry["_pairs"] = metrics.paired_codes(real, entry["data"], declaration)
    return entry["_pairs"]


def quality(entry: dict, name: str, real, declaration: dict, report=lambda done, message: None):
    """One publisher-only measure of a release, computed once and kept with it (JSON form).

    ``name``: "fidelity", "one_way", "two_way", "game" or "values". Nothing here enters a release.
    """
    if name in entry["metrics"]:
        return entry["metrics"][name]
    if name == "values":  # numeric and date columns value by value (no bins): a few tenths of a second
        entry["metrics"][name] = metrics.value_summaries(real, entry["data"], declaration)
        return entry["metrics"][name]
    report(0.05, "Reading both tables over the declared cells")
    pairs = paired(entry, real, declaration)
    if name == "fidelity":
        value = metrics.fidelity_by_column(pairs)
    elif name == "one_way":
        value = metrics.one_way_distances(pairs)
    elif name == "two_way":
        report(0.4, f"Comparing {len(pairs) * (len(pairs) - 1) // 2:,} pairs of columns")
        matrix = metrics.two_way_distances(pairs)
        value = {"columns": list(matrix.columns), "values": matrix.to_numpy().tolist()}
    else:
        size = min(GAME_RECORDS, len(real), len(entry["data"]))
        report(0.3, f"Training a classifier on {size:,} real and {size:,} synthetic records")
        game = metrics.distinguishing_game(pairs, max_records=GAME_RECORDS)
        value = {"accuracy": game.accuracy, "low": game.low, "high": game.high, "test_records": game.test_records,
                 "classifier": game.classifier, "records": size}
    entry["metrics"][name] = value
    return value


#: Records of each kind the distinguishing game samples (a subsample keeps it to about a second).
GAME_RECORDS = 3000


@st.cache_data(show_spinner=False, max_entries=16)
def k_anonymous_example(k: int):
    """The bundled adult example made k-anonymous, its classes by income, and the homogeneous ones."""
    from dpsynth_core.data.examples import example_csv
    from dpsynth_core.evaluation.kanonymity import ADULT_HIERARCHIES, equivalence_classes, homogeneity_attack, k_anonymize

    frame = read_table(example_csv("adult"))[0]
    result = k_anonymize(frame, ADULT_HIERARCHIES, k)
    classes = equivalence_classes(result.table, list(ADULT_HIERARCHIES), "income")
    return result, classes, homogeneity_attack(classes).sort_values("size")


@st.cache_data(show_spinner=False, max_entries=16)
def dp_share_with_and_without(k: int, epsilon: float):
    """A DP release of the example with and without one member of the smallest homogeneous class:
    the share of such records with that class's income in each (a teaching demo; seeded)."""
    import numpy as np

    from dpsynth_core import synthesize
    from dpsynth_core.data.examples import example_csv, example_declaration

    from dpsynth_core.evaluation.kanonymity import ADULT_HIERARCHIES

    result, _, homogeneous = k_anonymous_example(k)
    frame = read_table(example_csv("adult"))[0]
    target = homogeneous.iloc[0]

    def in_class(table) -> np.ndarray:
        match = np.ones(len(table), dtype=bool)
        for name, level in result.levels.items():
            general = ADULT_HIERARCHIES[name][level](table[name].astype(str))
            match &= general.to_numpy() == target[name]
        return match

    shares = {}
    member = np.flatnonzero(in_class(frame))[0]
    for label, data in (("with this person", frame), ("without this person", frame.drop(index=member))):
        synthetic = synthesize(data, example_declaration("adult"), epsilon, method="marginals",
                               random_state=np.random.default_rng(len(data))).data
        group = synthetic.loc[in_class(synthetic), "income"]
        shares[label] = (float((group == target["most common value"]).mean()) if len(group) else float("nan"),
                         int(len(group)))
    return target.to_dict(), shares


@st.cache_data(show_spinner=False, max_entries=32)
def bad_bins_demo(epsilon: float, runs: int) -> dict:
    """Learn page: how often 'rare disease' shows up, per method, without and with Alex (made-up data)."""
    import numpy as np

    from dpsynth_core.privacy.cathist import cathist, draw_from_range
    from dpsynth_core.privacy.noise import make_noise_source

    diagnoses = 10
    without_alex, with_alex = {0: 12, 1: 7}, {0: 12, 1: 7, 4: 1}
    noise = make_noise_source(np.random.default_rng())

    def shows_rare(counts: dict, method: str) -> bool:
        keys = list(counts)
        if method == "occurring values only":
            noisy = np.array(list(counts.values())) + noise.discrete_laplace(len(keys), 1 / epsilon)
            return any(k == 4 and v > 0 for k, v in zip(keys, noisy))
        result = cathist(keys, list(counts.values()), diagnoses, epsilon=epsilon, rho=0.5,
                         draw_inactive=draw_from_range(diagnoses), noise=noise)
        return 4 in result.keys

    return {m: [float(np.mean([shows_rare(d, m) for _ in range(runs)])) for d in (without_alex, with_alex)]
            for m in ("occurring values only", "CatHist over the declared list")}
