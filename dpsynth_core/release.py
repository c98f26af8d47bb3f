"""One-call releases: ``synthesize(data, domain, epsilon)`` returns the synthetic table and its card."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from . import constraints
from .accounting import Accountant
from .card import build_card
from .synthesizers import get_method


@dataclass
class Release:
    """A finished release.

    Attributes:
        data: the synthetic table (safe to publish).
        card: the release card (safe to publish).
        accountant: the ledger of privacy spends behind the card.
        publisher_report: data-dependent diagnostics (cells changed by the encoding rule,
            per-column fidelity): for the publisher only, never to be published.
    """

    data: pd.DataFrame
    card: dict
    accountant: Accountant
    publisher_report: dict


def synthesize(data, domain, epsilon: float, *, method: str = "cathist", rho: float = constraints.RHO_DEFAULT,
               rows: int | None = None, random_state=None, progress=None, **options) -> Release:
    """Make a DP synthetic copy of ``data`` over its declared ``domain``.

    Args:
        data: a DataFrame or a path to a CSV/TSV file.
        domain: a :class:`~dpsynth_core.domain.TableDomain`, its JSON form as a dict, or a
            path to the JSON file.
        epsilon: the total privacy budget (> 0), split as the card shows.
        method: a registered method name (see ``dpsynth_core.METHODS``).
        rho: tolerance for randomness in (0, 1): the chance a column has no made-up value.
        rows: a public number of synthetic rows; None (default) noises the true count.
        random_state: None for the secure source (releases); an int or numpy Generator for
            repeatable runs (tests, teaching). The seed never appears in the card.
        progress: optional ``callable(done, message)`` told how far the release is (0 to 1)
            at coarse steps, for progress bars.
    """
    info = get_method(method)
    model = info.cls(epsilon=epsilon, rho=rho, random_state=random_state, **options)
    share = model.fit_share
    model.fit(data, domain, rows=rows, progress=_scaled(progress, 0.0, share))
    synthetic = model.sample(progress=_scaled(progress, share, 1.0))
    card = build_card(model, info, len(synthetic))
    report = {"encoding": model.encoding_report_, "columns": model.publisher_details()}
    return Release(data=synthetic, card=card, accountant=model.accountant_, publisher_report=report)


def _scaled(progress, start: float, end: float):
    """A progress callable mapping 0..1 onto ``start..end`` of ``progress`` (None stays None)."""
    if progress is None:
        return None
    return lambda done, message: progress(start + (end - start) * done, message)
