"""The ``bayesnet`` method: rows drawn from a DP Bayesian network.

Guarantee, structure and parameters: see :mod:`dpsynth_core.synthesizers.network.model`
((epsilon, delta)-DP under adding or removing one record). Sampling is ancestral, in a
topological order, and is post-processing of the noisy model.
"""

from __future__ import annotations

from ..registry import register
from .model import NetworkSynthesizer


@register(
    "bayesnet",
    "Bayesian network",
    """Learns, with noise, which columns best predict each other (a network of dependencies)
    and how likely each value is given its predictors, then draws new records from that
    network one column at a time. It keeps the strongest relationships, found
    automatically, and is the model used by the plausible-deniability method.""",
    rank=4,
)
class BayesNet(NetworkSynthesizer):
    """DP Bayesian network synthesizer: ancestral sampling from the fitted network.

    Args:
        max_cost: largest number of cells of one attribute's table (its values times the
            configurations of its discretised parents).
        max_parents: most parents per attribute.
    """
