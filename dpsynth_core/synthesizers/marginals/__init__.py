"""The ``marginals`` method (the default): adaptive DP marginals fitted into one graphical model (AIM).

:mod:`.synthesizer` holds the method (:class:`MarginalsSynthesizer`) and its fit, step by step;
:mod:`.budget` its budget as plain functions (the charge before any data is read, each round's
arithmetic); :mod:`.selection` AIM's choice of what to measure; :mod:`.measurements` a measurement
and what the measurements imply. Only tests and benchmarks reach past this face.
"""

from .synthesizer import MarginalsSynthesizer

__all__ = ["MarginalsSynthesizer"]
