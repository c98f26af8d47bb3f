"""A small graphical-model engine: one consistent distribution from many noisy marginals.

* :mod:`.junction_tree`: the tree of cliques that covers every measured column group;
* :mod:`.model`: belief propagation over that tree, marginals of any column group;
* :mod:`.estimation`: Private-PGM estimation (mirror descent on the clique potentials; McKenna,
  Sheldon and Miklau 2019), warm-started by one proportional-fitting step toward a new measurement;
* :mod:`.sizes`: the model size each candidate group would make, worked out a round ahead in a
  second process (the same numbers; only names, cell counts and groups go there);
* :mod:`.generate`: synthetic records from the model, sampled i.i.d. or with every clique's
  counts matched to the model's by stratified rounding.

Everything here is post-processing of noisy measurements: no module reads data.
"""

from .estimation import Measurement, absorb, estimate
from .generate import generate
from .junction_tree import JunctionTree, model_cells, model_cells_with
from .model import GraphicalModel
from .support import support_from

__all__ = [
    "JunctionTree",
    "model_cells",
    "model_cells_with",
    "GraphicalModel",
    "Measurement",
    "absorb",
    "estimate",
    "generate",
    "support_from",
]
