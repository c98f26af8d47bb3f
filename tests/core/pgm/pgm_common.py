"""What the graphical-model tests share: four small columns and a random table of counts over them."""

from __future__ import annotations

import numpy as np

CELLS = {"a": 3, "b": 4, "c": 2, "d": 5}
#: Relative error of the model's marginals: exp is evaluated in single precision (float32's
#: epsilon 1.2e-7, a unit or two in the last place), the rest in double.
EXP_REL = 1e-6


def joint_counts(seed=0):
    """A random joint table of 10,000 records over :data:`CELLS` (gamma-distributed cell weights)."""
    rng = np.random.default_rng(seed)
    joint = rng.gamma(0.5, size=tuple(CELLS.values()))
    return joint / joint.sum() * 10_000


def marginal(joint, group):
    """The marginal of a table over :data:`CELLS` on the columns of ``group``."""
    names = list(CELLS)
    return joint.sum(axis=tuple(i for i, n in enumerate(names) if n not in group))
