"""What :mod:`.binning` found for one column and what it cost (:class:`FittedBins`): all of it DP output, which the
release card lists."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from .leaves import COARSE_LEVELS, FINE_LEVELS
from .points import points_words


def bins_label(column: str, *, adaptive: bool) -> str:
    """How the plan, the ledger and the card name a column's binning measurements: ``bins <column>`` for bins fitted
    to the data, ``values inside the bins of <column>`` for declared bins whose inside was measured."""
    return f"bins {column}" if adaptive else f"values inside the bins of {column}"


@dataclass(frozen=True)
class FittedBins:
    """The bins found for one column and what they cost (all of it is DP output, safe to publish).

    Attributes:
        column: the column's name.
        edges: the first value of every bin (integers, dates) or every boundary from min to
            max (real numbers), in the column's own type.
        leaves: how many leaves were counted (the tree's, or one per value) before merging, but named points
            counted back into their leaf (:mod:`.points`).
        spread: ``(piece lows, weights)``: the finer pieces the bins were merged from and their
            non-negative weights from the noisy counts, which decoding uses to place values in a bin.
        first_epsilon, count_epsilon: the epsilon of the two measurements, PrivTree's (or the first count
            per value when ``pooled``; 0 when there is one measurement) and the counts' (under the model's
            neighbouring relation).
    """

    column: str
    edges: tuple
    leaves: int
    first_epsilon: float
    count_epsilon: float
    spread: tuple = ((), ())
    #: True when the bins are the declared ones and only the spread inside them was measured.
    inside: bool = False
    #: How the leaves were found (:attr:`.leaves.Leaves.found_by`).
    found_by: str = "tree"
    #: An adaptive column's kept leaves' range ``(low, high)``: ``low <= v < high`` (:func:`.binning._kept_range`; in
    #: days); on a sparse table's nested pieces, those of them that stand clear of empty inside the coarse pieces kept,
    #: outside which the model's support cuts bins more readily (the pieces keep weight up to the coarse ones').
    kept: tuple | None = None
    #: The named points counted as leaves of their own beside PrivTree's (:mod:`.points`): a real range's ends, 0.
    points: tuple = ()
    #: A date column's value at one of its numbers (:meth:`~dpsynth_core.domain.DateDomain.value_at`); None otherwise.
    moment: Callable | None = field(default=None, repr=False, compare=False)
    #: An adaptive column's leaves as counted: ``(lows, noisy counts, noise variances)`` (:mod:`.bin_counts`).
    counted: tuple | None = field(default=None, repr=False, compare=False)
    #: True when the counts carry discrete Gaussian noise, priced in rho (a method composing in zCDP,
    #: :data:`.leaves.GAUSSIAN_COUNTS`); ``count_epsilon`` is then the epsilon whose ``epsilon**2 / 2`` they cost.
    gaussian: bool = False

    @property
    def pooled(self) -> bool:
        """Whether the leaves were counted twice and pooled: single values on a dense table (:func:`.leaves.dense`)."""
        return self.found_by == "dense"

    @property
    def nested(self) -> bool:
        """Whether the leaves are the range's coarse equal pieces, then fine ones of those kept (a table too sparse
        for PrivTree, :func:`.leaves.nested_leaves`)."""
        return self.found_by == "nested"

    @property
    def epsilon(self) -> float:
        return self.first_epsilon + self.count_epsilon

    def as_card(self) -> dict:
        """JSON-ready form for the release card (every number here is DP output)."""

        def public(v):
            return str(v) if isinstance(v, (dt.date, dt.time)) else v  # 2012-01-31, 2012-01-31 13:00:00, 13:00:00

        lows, weights = self.spread
        if lows and self.moment is not None:
            lows = [self.moment(d) for d in lows]
        noise = "discrete Gaussian" if self.gaussian else "discrete Laplace"  # the counts that place the bins
        return {
            "column": self.column,
            "label": bins_label(self.column, adaptive=not self.inside),  # its measurements' label in the ledger
            "edges": [public(v) for v in self.edges],
            "epsilon": self.epsilon,
            "pieces": {"lows": [public(v) for v in lows], "weights": [round(w, 2) for w in weights]},
            "mechanism": (
                f"a discrete Laplace histogram of the range's {2**COARSE_LEVELS} equal pieces, then a {noise} one of "
                f"{2**FINE_LEVELS} equal pieces of those that stand clear of empty"
                + (f", with {points_words(self.points)} there" if self.points else "")
                + " (a table too sparse for PrivTree); "
                if self.nested
                else f"a discrete Laplace and a {noise} histogram of the values, pooled (a dense table); "
                if self.pooled
                else ("PrivTree (Zhang, Xiao and Xie 2016), then " if self.first_epsilon else "")
                + f"a {noise} histogram of the leaves"
                + (f" (with {points_words(self.points)}); " if self.points else "; ")
            )
            + (
                "how values spread inside the declared bins (post-processing)"
                if self.inside
                else "bins merged from it (post-processing)"
            ),
        }
