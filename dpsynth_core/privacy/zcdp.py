"""Zero-concentrated DP stated as (epsilon, delta)-DP, and back.

:func:`zcdp_to_epsilon` states a rho-zCDP guarantee as (epsilon, delta)-DP by OpenDP's conversion (Canonne, Kamath
and Steinke 2020, the optimal bound for a rho-zCDP guarantee); :func:`zcdp_budget` inverts it, so a method can
calibrate its noise to spend exactly the epsilon the publisher chose. OpenDP alone decides either way: the
inversion's root finding only proposes, and its answer is checked by the conversion.
"""

from __future__ import annotations

import math
from functools import lru_cache


@lru_cache(maxsize=1)
def _opendp_zcdp_converter():
    """A measurement whose privacy map at ``d`` is exactly ``d**2 / 2``-zCDP, chained into
    OpenDP's conversion to approximate DP (so ``d = sqrt(2 rho)`` stands for any rho)."""
    from opendp.combinators import make_zCDP_to_approxDP
    from opendp.domains import atom_domain
    from opendp.measurements import make_gaussian
    from opendp.metrics import absolute_distance
    from opendp.mod import enable_features

    enable_features("contrib")
    return make_zCDP_to_approxDP(make_gaussian(atom_domain(T=float, nan=False), absolute_distance(T=float), scale=1.0))


@lru_cache(maxsize=4096)
def zcdp_to_epsilon(rho: float, delta: float) -> float:
    """The epsilon of a rho-zCDP guarantee stated as (epsilon, delta)-DP (OpenDP's conversion)."""
    if rho < 0 or not 0 <= delta < 1:
        raise ValueError(f"rho ({rho}) must be >= 0 and delta ({delta}) in [0, 1)")
    if rho == 0:
        return 0.0
    if delta == 0:
        return math.inf
    try:
        return float(_opendp_zcdp_converter().map(math.sqrt(2.0 * rho)).epsilon(delta))
    except Exception:  # OpenDP refuses rho so large that the bound overflows: no finite epsilon to state
        return math.inf


@lru_cache(maxsize=1024)
def zcdp_budget(epsilon: float, delta: float) -> float:
    """The largest rho whose (epsilon, delta) statement is at most ``epsilon``, to a relative precision of 1e-9
    on rho: the returned rho converts to at most ``epsilon`` and rho * (1 + 1e-9) to more, both by
    :func:`zcdp_to_epsilon` (OpenDP's conversion, which alone decides). False position finds the root in about
    ten conversions of 3 ms; halving the bracket, the fallback, takes about forty."""
    if not (epsilon > 0 and 0 < delta < 1):
        raise ValueError(f"epsilon ({epsilon}) must be > 0 and delta ({delta}) in (0, 1)")

    def over(rho: float) -> float:
        return zcdp_to_epsilon(rho, delta) - epsilon

    log_term = -math.log(delta)  # Bun and Steinke's conversion, looser than OpenDP's: its rho is below the root
    low = (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2
    low = low if over(low) <= 0 else 0.0
    high = epsilon**2 / 2 + epsilon  # rho = eps^2/2 always converts to more than eps
    while over(high) <= 0:
        low, high = high, high * 2
    root = _false_position(over, low, high)
    near = (root * (1 - 4e-10), root * (1 + 4e-10))
    if low <= near[0] and near[1] <= high and over(near[0]) <= 0 < over(near[1]):
        low, high = near
    while high - low > 1e-9 * high:
        mid = (low + high) / 2
        low, high = (mid, high) if over(mid) <= 0 else (low, mid)
    return low


def _false_position(function, low: float, high: float, *, steps: int = 60) -> float:
    """Where the increasing ``function`` crosses zero between ``low`` (at or below zero) and ``high`` (above):
    the Illinois variant of false position, to about 1e-12 relative. An estimate only: the caller checks it."""
    f_low, f_high, side, guess = function(low), function(high), 0, low
    for _ in range(steps):
        previous, guess = guess, high - f_high * (high - low) / (f_high - f_low)
        if not low < guess < high or abs(guess - previous) <= 1e-12 * high:
            break
        value = function(guess)
        if value > 0:
            high, f_high = guess, value
            f_low, side = (f_low / 2 if side == -1 else f_low), -1
        else:
            low, f_low = guess, value
            f_high, side = (f_high / 2 if side == 1 else f_high), 1
    return min(max(guess, low), high)
