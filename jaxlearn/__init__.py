"""jaxlearn: the classical learners of learning theory as pure, jit-compiled, vmappable JAX functions.

Start here:

- :mod:`jaxlearn.core`: the protocols (``Learner``, ``BatchLearner``) and the online loop ``run``.
- :mod:`jaxlearn.online`: the Perceptron family, Winnow and online gradient descent.
- :mod:`jaxlearn.losses`, :mod:`jaxlearn.kernels`: losses of one example; kernels and Gram matrices.
- :mod:`jaxlearn.theory`: the bounds of the source documents, as functions.
- :mod:`jaxlearn.datasets`, :mod:`jaxlearn.metrics`: generators, loaders and metrics.
"""

from jaxlearn import core, datasets, kernels, losses, metrics, online, theory
from jaxlearn.core import BatchLearner, Learner, predict_batch, run

__version__ = "0.1.0"

__all__ = [
    "BatchLearner",
    "Learner",
    "core",
    "datasets",
    "kernels",
    "losses",
    "metrics",
    "online",
    "predict_batch",
    "run",
    "theory",
]
