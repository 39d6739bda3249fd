"""scikit-learn estimator for the multilayer perceptron: ``MLPClassifier`` (``jaxlearn.nn.mlp_classifier``).

The network is trained by minibatch SGD (Adam by default) on the softmax cross-entropy with weight
decay, the whole run one compiled ``lax.scan``; jaxlearn keeps the iterate of smallest cross-entropy on
a held-out ``validation_fraction`` of the sample (0: on the training sample), where scikit-learn keeps
the last one.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from jaxlearn import core, nn
from jaxlearn.sklearn._multiclass import ScoringClassifier

__all__ = ["MLPClassifier"]

#: scikit-learn's activation names.
ACTIVATIONS = {"relu": nn.relu, "tanh": nn.tanh, "logistic": nn.sigmoid, "identity": nn.identity}


class MLPClassifier(ScoringClassifier):
    r"""A multilayer perceptron classifier (``jaxlearn.nn.mlp_classifier``, UML 20.6 with a softmax output).

    .. math:: \min_w \frac1m \sum_i -\log \mathrm{softmax}(h_w(x_i))_{y_i} + \frac\alpha2\|w\|^2

    ``predict_proba`` is the softmax of the logits, ``decision_function`` the logits ((n,) for two
    classes: :math:`h_1 - h_0`).

    Args:
      hidden_layer_sizes: the hidden layer widths, e.g. ``(100,)`` or ``(64, 64)``.
      activation: ``"relu"``, ``"tanh"``, ``"logistic"`` or ``"identity"`` (of the hidden layers).
      solver: ``"adam"`` or ``"sgd"`` (constant step size, the book's).
      alpha: the weight decay :math:`\alpha \ge 0`.
      batch_size: examples per step; ``"auto"``: ``min(200, n_samples)``.
      learning_rate_init: the step size (> 0).
      max_iter: the epochs: ``max_iter * ceil(n_samples / batch_size)`` steps in all.
      validation_fraction: in [0, 1), the share held out to select the iterate (0: the training set).
      random_state: seeds the initialisation, the split and the minibatches.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import MLPClassifier
      >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0]] * 10)
      >>> mlp = MLPClassifier(hidden_layer_sizes=(8,), learning_rate_init=0.05, random_state=0)
      >>> mlp.fit(X, ["a", "b", "c"] * 10).predict(X[:3]).tolist()
      ['a', 'b', 'c']
    """

    _parameter_constraints = {
        "alpha": core.NON_NEGATIVE,
        "learning_rate_init": core.POSITIVE,
        "max_iter": core.POSITIVE_INT,
        "validation_fraction": core.Interval(0.0, 1.0, lo_closed=True),
    }

    def __init__(
        self,
        hidden_layer_sizes=(100,),
        activation: str = "relu",
        *,
        solver: str = "adam",
        alpha=1e-4,
        batch_size="auto",
        learning_rate_init=1e-3,
        max_iter: int = 200,
        validation_fraction=0.1,
        random_state=None,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.solver = solver
        self.alpha = alpha
        self.batch_size = batch_size
        self.learning_rate_init = learning_rate_init
        self.max_iter = max_iter
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def _batch(self, n_samples: int) -> int:
        if isinstance(self.batch_size, str) and self.batch_size == "auto":
            return min(200, n_samples)
        if isinstance(self.batch_size, bool) or not isinstance(self.batch_size, numbers.Integral):
            raise ValueError(f"expected `batch_size` 'auto' or an int >= 1, got {self.batch_size!r}")
        return min(core.check_positive_int("batch_size", self.batch_size), n_samples)

    def _batch_learner(self, X, n_classes):
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"expected `activation` one of {tuple(ACTIVATIONS)}, got {self.activation!r}")
        if X is None:  # after fit: only the network's shape and activation matter to predict
            steps, batch = 1, 1
        else:
            batch = self._batch(X.shape[0])
            epochs = core.check_positive_int("max_iter", self.max_iter)
            steps = epochs * math.ceil(X.shape[0] / batch)
        return nn.mlp_classifier(
            self.hidden_layer_sizes,
            steps=steps,
            num_classes=n_classes,
            eta=self.learning_rate_init,
            optimizer=self.solver,
            batch_size=batch,
            weight_decay=self.alpha,
            activation=ACTIVATIONS[self.activation],
            validation_fraction=self.validation_fraction,
        )

    def fit(self, X, y):
        """Train on ``X`` (n, d) and labels ``y`` (two or more values); warns if training diverged.

        Returns:
          self.
        """
        super().fit(X, y)
        self.n_iter_ = int(self.max_iter)
        core.warn_if_diverged(self.params_, "MLPClassifier training")
        return self

    def predict_proba(self, X) -> np.ndarray:
        """The softmax of the logits: (n, K), columns in ``classes_`` order."""
        logits = self._evaluate(X)[1]
        z = np.exp(logits - logits.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)
