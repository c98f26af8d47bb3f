"""The synthesis methods, one module each, and the registry the CLI and the app list them from.

Every method has the estimator shape ``Method(epsilon=..., ...).fit(data, domain)`` then
``.sample(n)`` (:mod:`.base`). Methods never import one another; shared building blocks
(the DP Bayesian network in :mod:`.network`, and the core's counting, noise and CatHist
modules) stand apart.
"""

from . import bayesnet, copula, deniability, dirichlet, independent, marginals, microagg  # noqa: F401  (registration)
from .base import Synthesizer, as_frame
from .registry import DEFAULT_METHOD, METHODS, MethodInfo, get_method, ranked, register

__all__ = ["Synthesizer", "as_frame", "DEFAULT_METHOD", "METHODS", "MethodInfo", "get_method", "ranked", "register"]
