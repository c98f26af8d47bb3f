"""The DP Bayesian network family (Bindschaedler, Shokri and Gunter 2017): the ``bayesnet`` and
``deniability`` methods and the network they share.

:mod:`.model` holds the shared network (:class:`NetworkSynthesizer`: its guarantee, its fit step by
step, ancestral sampling); :mod:`.structure` how it chooses its structure from noisy entropies;
:mod:`.factors` its conditional tables and sampling from them. :mod:`.bayesnet` samples the network as
it is; :mod:`.deniability` makes each record from a real seed and releases it only past the
plausible-deniability test.
"""

from .bayesnet import BayesNet
from .deniability import PlausibleDeniability
from .model import NetworkSynthesizer

__all__ = ["BayesNet", "NetworkSynthesizer", "PlausibleDeniability"]
