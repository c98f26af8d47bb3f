"""The synthesis methods, one module each, and the registry the CLI and the app list them from.

Every method has the estimator shape ``Method(epsilon=..., ...).fit(data, domain)`` then
``.sample(n)`` (:mod:`.base`). Methods never import one another; shared building blocks
(the DP Bayesian network in :mod:`.network`, and the core's counting, noise and CatHist
modules) stand apart. The method modules register themselves when :data:`METHODS` is first read
(:mod:`.registry`), so importing this package (or its :mod:`.options`) stays light.
"""

import importlib

from .registry import DEFAULT_METHOD, METHODS, MethodInfo, get_method, ranked, register

#: Names loaded on first use (PEP 562): the registry is light; the methods load with :data:`METHODS`.
_LAZY = {"Synthesizer": "base", "as_frame": "base"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Synthesizer", "as_frame", "DEFAULT_METHOD", "METHODS", "MethodInfo", "get_method", "ranked", "register"]
