"""scikit-learn estimator for the multilayer perceptron: ``MLPClassifier`` (``jaxlearn.nn.mlp_classifier``).

The network is trained by minibatch SGD (Adam by default) on the softmax cross-entropy with weight
decay, the whole run one compiled ``lax.scan``; jaxlearn keeps the iterate of smallest cross-entropy on
a held-out ``validation_fraction`` of the sample (0: on the training sample), where scikit-learn keeps
the last one.
"""

from __future__ import annotations

import math
import numbers

import jax
import jax.numpy as jnp
import numpy as np
from sklearn.utils.validation import check_is_fitted

from jaxlearn import core, nn
from jaxlearn._checks import check_positive_int, warn_if_diverged
from jaxlearn.sklearn._multiclass import ScoringClassifier

__all__ = ["MLPClassifier"]

#: scikit-learn's activation names.
ACTIVATIONS = {"relu": nn.relu, "tanh": nn.tanh, "logistic": nn.sigmoid, "identity": nn.identity}


class MLPClassifier(ScoringClassifier):
    r"""A multilayer perceptron classifier (``jaxlearn.nn.mlp_classifier``, UML 20.6 with a softmax output).

    .. math:: \min_w \frac1m \sum_i -\log \mathrm{softmax}(h_w(x_i))_{y_i} + \frac\alpha2\|w\|^2

    ``predict_proba`` is the softmax of the logits, ``decision_function`` the logits ((n,) for two
    classes: :math:`h_1 - h_0`). ``loss_curve_`` is the mean minibatch cross-entropy of each epoch
    (without the weight-decay term), ``n_iter_`` its length, ``best_loss_`` its minimum;
    :meth:`partial_fit` plays one more epoch (``nn.mlp_epoch``).

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
            raise ValueError(
                f"expected `batch_size` 'auto' or an int >= 1, got {self.batch_size!r}"
            )
        return min(check_positive_int("batch_size", self.batch_size), n_samples)

    def _batch_learner(self, X, n_classes):
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"expected `activation` one of {tuple(ACTIVATIONS)}, got {self.activation!r}"
            )
        if X is None:  # after fit: only the network's shape and activation matter to predict
            steps, batch, epoch = 1, 1, 1
        else:
            batch = self._batch(X.shape[0])
            epochs = check_positive_int("max_iter", self.max_iter)
            epoch = math.ceil(X.shape[0] / batch)  # steps an epoch: one loss_curve_ entry each
            steps = epochs * epoch
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
            eval_every=epoch,
        )

    def fit(self, X, y):
        """Train on ``X`` (n, d) and labels ``y`` (two or more values); warns if training diverged.

        Returns:
          self.
        """
        super().fit(X, y)
        self._record(np.asarray(self.params_.loss_curve).tolist())
        self._partial_state = None
        warn_if_diverged(self.params_, "MLPClassifier training")
        return self

    def _record(self, losses) -> None:
        """``loss_curve_`` (one float an epoch), ``n_iter_`` (its length) and ``best_loss_`` (its minimum)."""
        self.loss_curve_ = [float(v) for v in losses]
        self.n_iter_ = len(self.loss_curve_)
        self.best_loss_ = (
            float(np.nanmin(self.loss_curve_)) if np.isfinite(self.loss_curve_).any() else np.nan
        )

    def partial_fit(self, X, y, classes=None):
        """One epoch over ``(X, y)`` in shuffled minibatches, from the network fitted so far (scikit-learn's
        ``partial_fit``): ``classes`` (every label ``y`` may take) is required on the first call. Each call
        appends its epoch's mean cross-entropy to ``loss_curve_``; the optimiser state carries over
        between calls (a call after :meth:`fit` starts a fresh one from the fitted network).

        Returns:
          self.
        """
        first = not hasattr(self, "classes_")
        if first and classes is None:
            raise ValueError(
                "expected `classes` (every label of the problem) on the first call to partial_fit"
            )
        X, y = self._validate(X, y, reset=first)
        if first:
            self.classes_ = np.unique(np.asarray(classes))
            if self.classes_.size < 2:
                raise ValueError(
                    f"expected `classes` of two or more values, got {self.classes_.tolist()}"
                )
        elif classes is not None and not np.array_equal(
            np.unique(np.asarray(classes)), self.classes_
        ):
            raise ValueError(
                f"expected `classes` {self.classes_.tolist()} as on the first call, got {classes!r}"
            )
        index = np.searchsorted(self.classes_, y)
        unknown = (index >= self.classes_.size) | (
            self.classes_[np.minimum(index, self.classes_.size - 1)] != y
        )
        if unknown.any():
            raise ValueError(
                f"expected `y` in `classes` {self.classes_.tolist()}, found {y[unknown][0]!r}"
            )
        if self.activation not in ACTIVATIONS:
            raise ValueError(
                f"expected `activation` one of {tuple(ACTIVATIONS)}, got {self.activation!r}"
            )
        key = self._key()
        if first:
            init_key, key = jax.random.split(key)
            sizes = (
                X.shape[1],
                *np.atleast_1d(self.hidden_layer_sizes).tolist(),
                self.classes_.size,
            )
            layers, state, losses = (
                nn.mlp_init(init_key, [int(s) for s in sizes], dtype=X.dtype),
                None,
                [],
            )
        else:
            check_is_fitted(self)
            layers, state, losses = (
                self.params_.layers,
                getattr(self, "_partial_state", None),
                self.loss_curve_,
            )
            key = jax.random.fold_in(key, len(losses))  # a new order each epoch
        layers, state, loss = nn.mlp_epoch(
            key,
            layers,
            state,
            X,
            index,
            eta=self.learning_rate_init,
            weight_decay=self.alpha,
            optimizer=self.solver,
            batch_size=self._batch(X.shape[0]),
            activation=ACTIVATIONS[self.activation],
        )
        self._partial_state = state
        self._record([*losses, float(loss)])
        steps = jnp.asarray(self.n_iter_, jnp.int32)
        self.params_ = nn.MLPParams(
            layers, steps, ~jnp.isfinite(loss), jnp.asarray(self.loss_curve_)
        )
        return self

    def predict_proba(self, X) -> np.ndarray:
        """The softmax of the logits: (n, K), columns in ``classes_`` order."""
        logits = self._evaluate(X)[1]
        z = np.exp(logits - logits.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)
