"""jaxlearn: the classical learners of learning theory as pure, jit-compiled, vmappable JAX functions.

Start here:

- :mod:`jaxlearn.core`: the protocols (``Learner``, ``BatchLearner``) and the online loop ``run``.
- :mod:`jaxlearn.online`: the Perceptron family, Winnow, online gradient descent, and the boolean
  learners (conjunctions, decision lists).
- :mod:`jaxlearn.experts`: prediction with expert advice and finite classes (Halving, WM, Hedge, SOA).
- :mod:`jaxlearn.linear`: batch convex learners: SGD, soft/hard/kernel SVM, ridge, batch Perceptrons.
- :mod:`jaxlearn.multiclass`: one-versus-all and all-pairs around any binary learner, class-sensitive
  feature maps, the multiclass SVM and Perceptron.
- :mod:`jaxlearn.structured`: chain features, Viterbi and its loss-augmented version, the structured SVM.
- :mod:`jaxlearn.ranking`: Kendall-tau and NDCG losses, ranking SVMs, bipartite measures and their SVM.
- :mod:`jaxlearn.trees`, :mod:`jaxlearn.neighbors`: decision trees (ID3, pruning), random forests, k-NN.
- :mod:`jaxlearn.nn`: MLPs as parameter pytrees, the book's backpropagation, training with optax.
- :mod:`jaxlearn.losses`, :mod:`jaxlearn.kernels`: losses of one example; kernels and Gram matrices.
- :mod:`jaxlearn.theory`: the bounds of the source documents, as functions.
- :mod:`jaxlearn.datasets`, :mod:`jaxlearn.metrics`: generators, loaders and metrics.
- :mod:`jaxlearn.io`: save and load any state, params, learner or estimator (arrays + JSON, no pickle).
- :mod:`jaxlearn.selection`: k-fold splits and the grid x folds search as one compiled program.
- :mod:`jaxlearn.parallel`: meshes, rows split over devices, sweeps split over devices (jax.sharding).
- :mod:`jaxlearn.sklearn`: scikit-learn estimators over the learners (needs scikit-learn).

Importing jaxlearn changes nothing in JAX's configuration. :func:`enable_compilation_cache` keeps
compiled programs on disk, so that a new process (a notebook kernel, a script run again) skips
compiling them.
"""

from jaxlearn._compilation_cache import enable_compilation_cache
from jaxlearn._compilation_cache import requested_at_import as _cache_requested

if _cache_requested():  # only at the user's request: JAXLEARN_COMPILATION_CACHE=1 or a directory
    enable_compilation_cache()

from jaxlearn import core
from jaxlearn import datasets
from jaxlearn import experts
from jaxlearn import io
from jaxlearn import kernels
from jaxlearn import linear
from jaxlearn import losses
from jaxlearn import metrics
from jaxlearn import multiclass
from jaxlearn import neighbors
from jaxlearn import nn
from jaxlearn import online
from jaxlearn import parallel
from jaxlearn import ranking
from jaxlearn import selection
from jaxlearn import structured
from jaxlearn import theory
from jaxlearn import trees
from jaxlearn.core import BatchLearner
from jaxlearn.core import Learner
from jaxlearn.core import predict_batch
from jaxlearn.core import run

__version__ = "0.1.0"

__all__ = [
    "BatchLearner",
    "Learner",
    "core",
    "datasets",
    "enable_compilation_cache",
    "experts",
    "io",
    "kernels",
    "linear",
    "losses",
    "metrics",
    "multiclass",
    "neighbors",
    "nn",
    "online",
    "parallel",
    "predict_batch",
    "ranking",
    "run",
    "selection",
    "structured",
    "theory",
    "trees",
]
