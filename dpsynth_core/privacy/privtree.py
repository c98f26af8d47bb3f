"""PrivTree (Zhang, Xiao and Xie, "PrivTree: a differentially private algorithm for hierarchical
decompositions", SIGMOD 2016, section 3) over an integer, date or real range: the leaves of a tree that
halves a node while its biased noisy count clears a threshold. Epsilon-DP under adding or removing one
record however deep the tree grows; :mod:`.binning` uses it to find where a column's values lie.
"""

from __future__ import annotations

import math

import numpy as np

from .. import constraints
from ..data.counting import SortedValues
from .noise import NoiseSource, real_laplace

#: PrivTree's threshold theta (public); 0 lets the bias alone decide how deep the tree goes.
THRESHOLD = 0.0
#: Real-number intervals are split at most this many times (to 2**-24 of the declared range).
FLOAT_MAX_DEPTH = constraints.FLOAT_MAX_DEPTH
#: OpenDP's float Laplace charges its rounding: a factor this close to 1 on the scale covers it.
_ROUNDING_SLACK = 1e-9


def depth_bias(epsilon: float) -> float:
    """PrivTree's depth bias ``delta`` at ``epsilon``: ``lambda ln 2 = 3 ln 2 / epsilon`` records a level (fanout 2),
    before the rounding slack on the noise's scale."""
    return 3 * math.log(2) / epsilon


def privtree(
    values: SortedValues,
    low,
    high,
    *,
    epsilon: float,
    integer: bool,
    noise: NoiseSource,
    label: str = "",
    threshold: float = THRESHOLD,
    max_depth: int = FLOAT_MAX_DEPTH,
):
    """PrivTree over ``[low, high]``: the leaves' lower and upper ends, in order (epsilon-DP, add/remove).

    Integer nodes are closed ranges ``[lo, hi]`` split into ``[lo, mid]`` and ``[mid + 1, hi]``;
    real nodes are ``[lo, hi)`` (the last one closed at ``high``) split at the midpoint, at most
    ``max_depth`` times. Noise is drawn level by level, one vector call per level.

    ``low`` and ``high`` may be arrays of disjoint intervals (the declared bins of a column): a
    forest of trees, each from depth 0. A record lies in one root's subtree and its count enters
    only the nodes on its path, so the proof for one tree holds unchanged.
    """
    scale = 3.0 / epsilon * (1 + _ROUNDING_SLACK)
    decay = depth_bias(epsilon) * (1 + _ROUNDING_SLACK)
    dtype = np.int64 if integer else float
    lows, highs = np.atleast_1d(np.asarray(low, dtype=dtype)), np.atleast_1d(np.asarray(high, dtype=dtype))
    high = highs.max()
    leaf_lows, leaf_highs = [], []
    depth = 0
    while lows.size:
        can_split = highs > lows if integer else np.full(lows.size, depth < max_depth)
        split = np.zeros(lows.size, dtype=bool)
        if can_split.any():
            lo, hi = lows[can_split], highs[can_split]
            counts = values.count_pieces(lo, hi, top=high, integer=integer)
            score = np.maximum(counts - depth * decay, threshold - decay)
            split[can_split] = real_laplace(noise, score, scale, label=label) > threshold
        leaf_lows.append(lows[~split])
        leaf_highs.append(highs[~split])
        lo, hi = lows[split], highs[split]
        mid = lo + (hi - lo) // 2 if integer else lo + (hi - lo) / 2
        lows = np.concatenate([lo, mid + 1 if integer else mid])
        highs = np.concatenate([mid, hi])
        depth += 1
    lows, highs = np.concatenate(leaf_lows), np.concatenate(leaf_highs)
    order = np.argsort(lows, kind="stable")
    return lows[order], highs[order]
