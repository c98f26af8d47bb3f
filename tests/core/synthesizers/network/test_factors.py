"""The network's conditional tables: normalised, empty cells left empty, the prior centred on the child's counts."""

import math

import numpy as np

from dpsynth_core.synthesizers.network.factors import conditional_table


def test_conditional_tables_are_normalised_and_leave_empty_cells_empty():
    # 2 configurations x 4 cells; cell 3 (say "missing") is empty with negative noise in both, cell 2
    # is left out of the support. Rows sum to 1, cells 2 and 3 get nothing, and the configuration
    # with a negative total follows the child's 1-way counts: the column sums (26, 7, -3) projected
    # (shift 1.5) to (24.5, 5.5, 0), so p = (49/60, 11/60, 0).
    grid = np.array([[30, 10, 50, -2], [-4, -3, 0, -1]])
    keep = np.array([True, True, False, True])
    theta = conditional_table(grid, keep, np.random.default_rng(0))
    np.testing.assert_allclose(theta.sum(axis=1), 1.0)
    assert (theta[:, 2:] == 0).all()
    draws = np.array([conditional_table(grid, keep, np.random.default_rng(s))[1, 0] for s in range(2000)])
    # Dirichlet(k p) with k = 3: the first share is Beta(3 p1, 3 (1 - p1)), mean p1, variance p1 (1 - p1) / 4
    p1 = 49 / 60
    assert abs(draws.mean() - p1) < 4 * math.sqrt(p1 * (1 - p1) / 4 / 2000)
