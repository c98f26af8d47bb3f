"""Helpers shared by the per-method tests: a small real table and an in-domain check."""

from __future__ import annotations

import pandas as pd

from dpsynth_core.domain import TableDomain
from tests.conftest import complete_domain, shared_path

SMALL_COLUMNS = ["age", "education", "sex", "relationship", "marital-status", "income", "hours-per-week"]


def adult_small(rows: int = 4000):
    frame = pd.read_csv(shared_path("adult.csv"), dtype=str, keep_default_na=False)[SMALL_COLUMNS].head(rows)
    spec = complete_domain("adult")
    spec["columns"] = {c: spec["columns"][c] for c in SMALL_COLUMNS}
    spec["columns"]["age"]["bin_width"] = 5
    spec["columns"]["hours-per-week"]["bin_width"] = 10
    return frame, spec


def assert_in_domain(frame: pd.DataFrame, spec) -> None:
    domain = TableDomain.from_json(spec) if isinstance(spec, dict) else spec
    assert list(frame.columns) == list(domain.kept)
    for name, col in domain.kept.items():
        values = frame[name].dropna()
        if col.kind == "categorical":
            assert set(values.astype(str)) <= {str(v) for v in col.values}, name
        elif col.kind in ("integer", "float"):
            assert values.astype(float).between(col.min, col.max).all(), name
        elif col.kind == "text":
            assert all(col.normalise([v])[0] == v for v in values.unique()), name


def missing_cells_bound(
    rows_out: int, rows_in: int, cells: int, epsilon: float, slack: float = 1.0, failure: float = 1e-6
) -> int:
    """Most missing cells a synthetic column may show when the data has none, from the noise alone.

    The "missing" cell's noisy count is discrete Laplace noise of scale ``1/epsilon`` on a true
    0, at most ``q`` except with probability ``failure``; every other cell loses at most ``q``.
    Its share is then at most ``Beta(q + 1, rows_in - cells q)``'s upper quantile (the
    Dirichlet(noisy + 1) posterior; without the prior the share is smaller), times ``slack``,
    and the synthetic count is binomial with that share.
    """
    from scipy.stats import beta, binom

    from dpsynth_core.privacy.noise import discrete_laplace_survival

    q = 0
    while discrete_laplace_survival(q, epsilon) > failure:
        q += 1
    share = beta.ppf(1 - failure, q + 1, max(rows_in - cells * q, 1)) * slack
    return int(binom.ppf(1 - failure, rows_out, min(share, 1.0)))
