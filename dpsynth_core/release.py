"""One-call releases: ``synthesize(data, domain, epsilon)`` returns the synthetic table and its card."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import constraints
from .accounting import Accountant
from .card import build_card
from .errors import ParameterError
from .synthesizers import get_method
from .tables import check_delimiter, check_encoding, read_table
from .validation import check_delta, check_publisher_rho, check_rows, check_seed, check_total_epsilon


@dataclass
class Release:
    """A finished release.

    Attributes:
        data: the synthetic table (safe to publish).
        card: the release card (safe to publish).
        accountant: the ledger of privacy spends behind the card.
        publisher_report: data-dependent diagnostics (lines changed by the per-record reading
            rule, cells changed by the encoding rule, per-column details): for the publisher
            only, never to be published.
    """

    data: pd.DataFrame
    card: dict
    accountant: Accountant
    publisher_report: dict


def synthesize(data, domain, epsilon: float, *, method: str = "cathist", rho: float = constraints.RHO_DEFAULT,
               rows: int | None = None, random_state=None, encoding: str | None = None,
               delimiter: str | None = None, progress=None, **options) -> Release:
    """Make a DP synthetic copy of ``data`` over its declared ``domain``.

    Every parameter is checked before the data is read; the ranges are the app's.

    Args:
        data: a DataFrame or a path to a CSV/TSV file.
        domain: a :class:`~dpsynth_core.domain.TableDomain`, its JSON form as a dict, or a
            path to the JSON file.
        epsilon: the total privacy budget, from 0.01 to 20 (``constraints.EPSILON_MIN`` and
            ``EPSILON_MAX``), split as the card shows.
        method: a registered method name (see ``dpsynth_core.METHODS``).
        rho: tolerance for randomness, from 0.01 to 0.99: the chance a column has no made-up value.
        rows: a public number of synthetic rows (1 to 5,000,000); None (default) noises the true count.
        random_state: None for the secure source (releases); an int in [0, 2^128) or a numpy
            Generator for repeatable runs (tests, teaching). The seed never appears in the card.
        encoding, delimiter: how to read a CSV path (see :func:`~dpsynth_core.tables.read_table`);
            None reads them from the byte-order mark and the header line, never from the records.
        progress: optional ``callable(done, message)`` told how far the release is (0 to 1)
            at coarse steps, for progress bars.
    """
    epsilon = check_total_epsilon(epsilon)
    rho = check_publisher_rho(rho)
    rows = check_rows(rows)
    random_state = check_seed(random_state)
    encoding, delimiter = check_encoding(encoding), check_delimiter(delimiter)
    info = get_method(method)
    accepted = [p for p in inspect.signature(info.cls.__init__).parameters
                if p not in ("self", "epsilon", "rho", "random_state")]
    unknown = [k for k in options if k not in accepted]
    if unknown:
        raise ParameterError(f"method '{method}' has no option {', '.join(map(repr, unknown))} "
                             f"(its options: {', '.join(accepted) or 'none'})")
    if options.get("delta") is not None:
        options["delta"] = check_delta(options["delta"])
    if "groups" in options:
        options["groups"] = _check_groups(options["groups"])
    reading = None
    if isinstance(data, (str, Path)):
        data, table_info = read_table(data, encoding=encoding, delimiter=delimiter)
        reading = table_info["lines"]
    model = info.cls(epsilon=epsilon, rho=rho, random_state=random_state, **options)
    share = model.fit_share
    model.fit(data, domain, rows=rows, progress=_scaled(progress, 0.0, share))
    synthetic = model.sample(progress=_scaled(progress, share, 1.0))
    card = build_card(model, info, len(synthetic))
    report = {"encoding": model.encoding_report_, "columns": model.publisher_details()}
    if reading is not None:
        report["reading"] = reading
    return Release(data=synthetic, card=card, accountant=model.accountant_, publisher_report=report)


def _scaled(progress, start: float, end: float):
    """A progress callable mapping 0..1 onto ``start..end`` of ``progress`` (None stays None)."""
    if progress is None:
        return None
    return lambda done, message: progress(start + (end - start) * done, message)


def _check_groups(groups):
    """Column groups must be a list of lists of column names (their meaning is checked by the method)."""
    if groups is None:
        return None
    rule = "a list of column groups, each a list of column names"
    if isinstance(groups, (str, bytes)) or not isinstance(groups, (list, tuple)) or len(groups) > 10_000:
        raise ParameterError(f"groups must be {rule}")
    out = []
    for group in groups:
        if isinstance(group, (str, bytes)) or not isinstance(group, (list, tuple)) or \
                not all(isinstance(c, str) for c in group) or not 1 <= len(group) <= constraints.MAX_COLUMNS:
            raise ParameterError(f"groups must be {rule}; {str(group)[:60]!r} is not")
        out.append(tuple(group))
    return out
