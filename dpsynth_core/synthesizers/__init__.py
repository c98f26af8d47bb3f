"""The synthesis methods, one module each (a package for a large one), and the registry the CLI and the app
list them from.

Every method has the estimator shape ``Method(epsilon=..., ...).fit(data, domain)`` then
``.sample(n)`` (:mod:`.base`; what a method is and what a draw costs, before any data, is its parent's,
:mod:`.pricing`). A small method is one module
(:mod:`.cathist`, :mod:`.copula`, :mod:`.dirichlet`, :mod:`.microagg`); a large one is a package of
its steps (:mod:`.marginals`, the default), and the Bayesian-network family is one package
(:mod:`.network`: the network ``bayesnet`` and ``deniability`` share, and the two methods). Methods
never import one another; shared building blocks (:mod:`.charges`, :mod:`.finite`, :mod:`.options`,
and the core's counting, noise and CatHist modules) stand apart. The method modules register
themselves when :data:`METHODS` is first read (:mod:`.registry`), so importing this package (or its
:mod:`.options`) stays light.
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
