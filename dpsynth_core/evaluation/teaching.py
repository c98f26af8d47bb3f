"""The Learn page's live demonstrations, computed here so they are tested like the rest.

Made-up data or the bundled public example only; nothing here touches a publisher's data or
enters a release.
"""

from __future__ import annotations

import numpy as np

from ..data.examples import example_csv, example_declaration
from ..data.tables import read_table
from ..privacy.cathist import cathist, draw_from_range, threshold
from ..privacy.noise import discrete_laplace_survival, make_noise_source
from .kanonymity import ADULT_HIERARCHIES, equivalence_classes, homogeneity_attack, k_anonymize

#: The clinic of the "bad bins" demo: ten possible diagnoses, code 4 is Alex's rare disease.
DIAGNOSES, RARE = 10, 4
WITHOUT_ALEX, WITH_ALEX = {0: 12, 1: 7}, {0: 12, 1: 7, RARE: 1}
BAD_BINS_METHODS = ("occurring values only", "CatHist over the declared list")


def bad_bins_demo(epsilon: float, runs: int, rng=None) -> dict:
    """How often the rare disease shows up in a release, per method, without and with Alex:
    ``{method: [share without, share with]}``. Noise on the occurring values only can show it only
    when Alex is there; CatHist over the declared list can show it either way."""
    noise = make_noise_source(rng if rng is not None else np.random.default_rng())

    def shows_rare(counts: dict, method: str) -> bool:
        keys = list(counts)
        if method == BAD_BINS_METHODS[0]:
            noisy = np.array(list(counts.values())) + noise.discrete_laplace(len(keys), 1 / epsilon)
            return any(k == RARE and v > 0 for k, v in zip(keys, noisy))
        result = cathist(
            keys,
            list(counts.values()),
            DIAGNOSES,
            epsilon=epsilon,
            rho=0.5,
            draw_inactive=draw_from_range(DIAGNOSES),
            noise=noise,
        )
        return RARE in result.keys

    return {
        m: [float(np.mean([shows_rare(d, m) for _ in range(runs)])) for d in (WITHOUT_ALEX, WITH_ALEX)]
        for m in BAD_BINS_METHODS
    }


def bad_bins_exact(epsilon: float) -> dict:
    """The exact chance that the rare disease shows up, per method, without and with Alex (the limit of
    :func:`bad_bins_demo` as the runs grow): noise on the occurring values only shows it never without
    Alex and with chance ``P(1 + Z > 0)`` with him; CatHist shows it with chance ``p`` (an empty bin
    kept, tolerance 0.5) without him and with the threshold's keep-probability of a count of 1 with him,
    so the two differ by at most ``e^epsilon``."""
    rule = threshold(DIAGNOSES, 0.5, epsilon)
    return {
        BAD_BINS_METHODS[0]: [0.0, float(discrete_laplace_survival(0, epsilon))],
        BAD_BINS_METHODS[1]: [float(rule.p), float(rule.keep_probability(1))],
    }


def k_anonymous_example(k: int):
    """The bundled adult example made k-anonymous, its classes by income, and the homogeneous ones
    (smallest first)."""
    frame = read_table(example_csv("adult"))[0]
    result = k_anonymize(frame, ADULT_HIERARCHIES, k)
    classes = equivalence_classes(result.table, list(ADULT_HIERARCHIES), "income")
    return result, classes, homogeneity_attack(classes).sort_values("size")


def dp_share_with_and_without(k: int, epsilon: float, example=None):
    """A DP release of the example with and without one member of the smallest homogeneous class of
    its k-anonymous version: (that class, {"with this person" | "without this person": (share of
    the class's records with its income, records in the class)}). Seeded, so the page is stable.

    Each release holds the columns the question reads (the generalised ones and income), under their
    declaration: the same promise as a release of the whole table, in a third of its time."""
    from ..release import synthesize

    result, _, homogeneous = example if example is not None else k_anonymous_example(k)
    asked = [*result.levels, "income"]
    frame = read_table(example_csv("adult"))[0][asked]
    declaration = example_declaration("adult")
    declaration = {**declaration, "columns": {name: declaration["columns"][name] for name in asked}}
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
        synthetic = synthesize(data, declaration, epsilon, random_state=np.random.default_rng(len(data))).data
        group = synthetic.loc[in_class(synthetic), "income"]
        shares[label] = (
            float((group == target["most common value"]).mean()) if len(group) else float("nan"),
            int(len(group)),
        )
    return target.to_dict(), shares
