"""scikit-learn estimator for the multilayer perceptron: ``MLPClassifier`` (``jaxlearn.nn.mlp_fit``).

scikit-learn's training, as one compiled ``lax.while_loop`` over epochs: Glorot-uniform start, shuffled
minibatch epochs of Adam (or SGD with momentum) on the weighted cross-entropy plus the L2 penalty,
stopped once the epoch loss (with ``early_stopping``: the held-out accuracy) has not improved by
``tol`` for more than ``n_iter_no_change`` epochs; the last iterate is kept (with ``early_stopping``:
the best held-out one).
"""

from __future__ import annotations

import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from jaxlearn import core, nn
from jaxlearn._buckets import fit_bucket, pad_rows
from jaxlearn._checks import check_positive_int, warn_if_diverged
from jaxlearn._shared import on_device
from jaxlearn.sklearn._base import (
    LogProbabilities,
    OnlyDefault,
    encode_classes,
    key_from,
    sample_weights,
)
from jaxlearn.sklearn._multiclass import ScoringClassifier

__all__ = ["MLPClassifier"]

#: scikit-learn's activation names.
ACTIVATIONS = {"relu": nn.relu, "tanh": nn.tanh, "logistic": nn.sigmoid, "identity": nn.identity}
#: The solvers, as scikit-learn names them; "lbfgs" is full-batch (no partial_fit).
SOLVERS = ("adam", "sgd", "lbfgs")
#: [0, 1): Adam's decay rates.
DECAY = core.Interval(0.0, 1.0, lo_closed=True)


def _two_logits(layers, n_classes: int) -> list:
    """With two classes the network's one logit :math:`z` stands for the logits :math:`(0, z)`."""
    if n_classes != 2:
        return layers
    W, b = layers[-1]
    last = (jnp.concatenate([jnp.zeros_like(W), W]), jnp.concatenate([jnp.zeros_like(b), b]))
    return [*layers[:-1], last]


class MLPClassifier(LogProbabilities, ScoringClassifier):
    r"""A multilayer perceptron classifier, trained as scikit-learn's (``jaxlearn.nn.mlp_fit``; UML 20.6).

    .. math:: \min_w \frac{\sum_i s_i\,(-\log \mathrm{softmax}(h_w(x_i))_{y_i})
        + \frac\alpha2 \sum_t\|W_t\|^2}{\sum_i s_i}

    (per batch; two classes: one logistic output, as scikit-learn's). The weights and biases start
    Glorot-uniform (``nn.glorot_init``); each epoch is a shuffled pass in batches of ``batch_size``;
    training stops when the epoch loss has not improved by ``tol`` for more than ``n_iter_no_change``
    epochs (``early_stopping``: the accuracy on a ``validation_fraction`` held out, and the
    best iterate is restored), else after ``max_iter`` epochs with a ``ConvergenceWarning``.
    ``loss_curve_`` holds each epoch's loss (penalty included), ``n_iter_`` its length, ``best_loss_``
    its minimum (``None`` with ``early_stopping``, whose scores are ``validation_scores_`` and
    ``best_validation_score_``). ``predict_proba`` is the softmax of the logits, ``decision_function``
    the logits ((n,) for two classes). :meth:`partial_fit` plays one more epoch (``nn.mlp_epoch``).

    Args:
      hidden_layer_sizes: the hidden layer widths, e.g. ``(100,)`` or ``(64, 64)``.
      activation: ``"relu"``, ``"tanh"``, ``"logistic"`` or ``"identity"`` (of the hidden layers).
      solver: ``"adam"``, ``"sgd"`` (constant step size) or ``"lbfgs"``: L-BFGS on the whole
        sample's loss, at most ``max_iter`` iterations, until the largest gradient entry is at most
        ``tol``, as scikit-learn's (``loss_`` the loss at the end; no ``loss_curve_``, no
        ``partial_fit``; ``batch_size``, ``early_stopping`` and the step sizes unused).
      alpha: the L2 penalty :math:`\alpha \ge 0` on the weight matrices.
      batch_size: examples per step; ``"auto"``: ``min(200, n_samples)``.
      learning_rate_init: the step size (> 0).
      max_iter: the most epochs.
      shuffle: a new permutation of the rows each epoch.
      random_state: seeds the initialisation, the split and the permutations.
      tol, n_iter_no_change: the stopping rule's tolerance and patience (epochs).
      momentum, nesterovs_momentum: SGD's momentum in [0, 1] and whether it is Nesterov's.
      early_stopping: hold out ``validation_fraction`` of the rows (stratified for two classes, as
        scikit-learn) and stop on their accuracy.
      validation_fraction: in [0, 1), the share held out (only with ``early_stopping``).
      beta_1, beta_2, epsilon: Adam's decay rates in [0, 1) and its :math:`\epsilon > 0`.
      power_t, max_fun, verbose: accepted for scikit-learn's API, with no effect (``power_t`` is read
        only by ``learning_rate="invscaling"``; ``"lbfgs"`` here counts iterations, not loss
        evaluations; jaxlearn prints nothing).
      learning_rate, warm_start: scikit-learn's defaults only (``"constant"``, ``False``).

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
        "tol": core.NON_NEGATIVE,
        "n_iter_no_change": core.POSITIVE_INT,
        "momentum": core.UNIT,
        "validation_fraction": core.Interval(0.0, 1.0, lo_closed=True),
        "beta_1": DECAY,
        "beta_2": DECAY,
        "epsilon": core.POSITIVE,
    }
    _no_effect = {"power_t": core.NON_NEGATIVE, "max_fun": core.POSITIVE_INT, "verbose": None}
    _only_default = {
        "learning_rate": OnlyDefault(("constant",), "SGD's step size is `learning_rate_init`"),
        "warm_start": OnlyDefault((False,), "every fit starts from a new initialisation"),
    }

    def __init__(
        self,
        hidden_layer_sizes=(100,),
        activation: str = "relu",
        *,
        solver: str = "adam",
        alpha=1e-4,
        batch_size="auto",
        learning_rate="constant",
        learning_rate_init=1e-3,
        power_t=0.5,
        max_iter: int = 200,
        shuffle: bool = True,
        random_state=None,
        tol=1e-4,
        verbose=False,
        warm_start=False,
        momentum=0.9,
        nesterovs_momentum: bool = True,
        early_stopping: bool = False,
        validation_fraction=0.1,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-8,
        n_iter_no_change: int = 10,
        max_fun=15000,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.solver = solver
        self.alpha = alpha
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.learning_rate_init = learning_rate_init
        self.power_t = power_t
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.tol = tol
        self.verbose = verbose
        self.warm_start = warm_start
        self.momentum = momentum
        self.nesterovs_momentum = nesterovs_momentum
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.n_iter_no_change = n_iter_no_change
        self.max_fun = max_fun

    def _batch(self, n_samples: int) -> int:
        if isinstance(self.batch_size, str) and self.batch_size == "auto":
            return min(200, n_samples)
        if isinstance(self.batch_size, bool) or not isinstance(self.batch_size, numbers.Integral):
            raise ValueError(
                f"expected `batch_size` 'auto' or an int >= 1, got {self.batch_size!r}"
            )
        return min(check_positive_int("batch_size", self.batch_size), n_samples)

    def _activation(self):
        if not isinstance(self.activation, str) or self.activation not in ACTIVATIONS:
            raise ValueError(
                f"expected `activation` one of {tuple(ACTIVATIONS)}, got {self.activation!r}"
            )
        return ACTIVATIONS[self.activation]

    def _check_solver(self) -> None:
        if not isinstance(self.solver, str) or self.solver not in SOLVERS:
            raise ValueError(f"expected `solver` one of {SOLVERS}, got {self.solver!r}")

    def _stochastic(self) -> bool:
        """``partial_fit`` is there for the stochastic solvers only, as scikit-learn's."""
        if self.solver == "lbfgs":
            raise AttributeError(
                "partial_fit is only available for stochastic optimizers (not lbfgs)"
            )
        return True

    def _sizes(self, n_features: int, n_classes: int) -> list:
        hidden = np.atleast_1d(self.hidden_layer_sizes).tolist()
        return [int(n_features), *(int(h) for h in hidden), int(n_classes)]

    def _start(self, rng, n_features: int, n_outputs: int, dtype):
        """scikit-learn's Glorot-uniform start, drawn as scikit-learn draws it from the ``RandomState``
        ``rng`` (each layer's weights, then its biases; factor 2 for the logistic activation, else 6):
        the same ``random_state`` starts both at the same network."""
        factor = 2.0 if self.activation == "logistic" else 6.0
        sizes = self._sizes(n_features, n_outputs)
        layers = []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):  # the layers, a handful
            bound = np.sqrt(factor / (fan_in + fan_out))
            W = rng.uniform(-bound, bound, (fan_in, fan_out)).astype(dtype, copy=False)
            b = rng.uniform(-bound, bound, fan_out).astype(dtype, copy=False)
            layers.append((np.ascontiguousarray(W.T), b))
        return layers

    def _query_params(self):
        # the network alone: the histories' lengths (the epochs run) would make a program per fit
        return self.params_._replace(loss_curve=None, validation_loss=None)

    def _batch_learner(self, X, n_classes):
        """The learner whose ``predict``/``decision_function`` read ``params_`` (after fit)."""
        return nn.mlp_classifier(
            self.hidden_layer_sizes,
            steps=1,
            num_classes=n_classes,
            activation=self._activation(),
            validation_fraction=0.0,
        )

    def fit(self, X, y, sample_weight=None):
        """Train on ``X`` (n, d) and labels ``y`` (two or more values), rows weighted by
        ``sample_weight`` (default all 1); warns if training diverged, or (``ConvergenceWarning``) if
        ``max_iter`` epochs ended it.

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True)
        index = encode_classes(self, y)
        activation = self._activation()
        self._check_solver()
        weights = None if sample_weight is None else sample_weights(sample_weight, X)
        n_classes = self.classes_.size
        # scikit-learn's draws from one RandomState: the start, then the held-out rows
        rng = check_random_state(self.random_state)
        layers = self._start(rng, X.shape[1], 1 if n_classes == 2 else n_classes, X.dtype)
        if self.solver == "lbfgs":
            return self._fit_lbfgs(layers, X, index, weights, activation)
        validation, rows = None, X.shape[0]
        if self.early_stopping:
            train, held = train_test_split(
                np.arange(X.shape[0]),
                test_size=self.validation_fraction,
                random_state=rng,
                # scikit-learn stratifies two classes only (one output): the same split for a seed
                stratify=index if n_classes == 2 else None,
            )
            if held.size < 2:
                raise ValueError(
                    "The validation set is too small: increase `validation_fraction` or the sample"
                )
            held_weights = np.ones(held.size, X.dtype) if weights is None else weights[held]
            validation = tuple(
                pad_rows(a, fit_bucket(held.size, rows))
                for a in (X[held], index[held], held_weights)
            )
            X, index = X[train], index[train]
            weights = None if weights is None else weights[train]
        # the rows padded to their size bucket with weight 0 (they join no batch): a new training
        # size in the bucket runs the same compiled program
        n, size = X.shape[0], fit_bucket(X.shape[0], rows)
        weights = np.ones(n, X.dtype) if weights is None else weights
        # a batch of every row (scikit-learn's min(200, n) below 200 rows) is the padded sample's one
        # batch: the same rows in the same order, and one program for every size in the bucket
        batch_size = self._batch(n)
        batch_size = size if batch_size >= n else batch_size
        result = nn.mlp_fit(
            key_from(rng),  # the order of the epochs' batches
            layers,
            pad_rows(X, size),
            pad_rows(index, size),
            sample_weight=pad_rows(weights, size),
            validation=validation,
            eta=float(self.learning_rate_init),
            alpha=self.alpha,
            optimizer=self.solver,
            batch_size=batch_size,
            activation=activation,
            max_epochs=self.max_iter,
            tol=self.tol,
            n_iter_no_change=self.n_iter_no_change,
            shuffle=self.shuffle,
            beta_1=self.beta_1,
            beta_2=self.beta_2,
            epsilon=self.epsilon,
            momentum=self.momentum,
            nesterov=self.nesterovs_momentum,
        )
        n = int(result.n_epochs)
        curve = np.asarray(result.loss_curve)[:n]
        layers = _two_logits(result.layers, n_classes)
        scores = None if validation is None else np.asarray(result.validation_scores)[:n]
        kept = n if scores is None else int(np.argmax(scores)) + 1
        self.params_ = nn.MLPParams(
            layers,
            on_device(np.asarray(kept, np.int32)),
            result.diverged,
            on_device(np.asarray(curve)),
            None if scores is None else on_device(scores),
        )
        self._record(curve)
        self._partial_state = None
        if self.early_stopping:
            self.best_loss_ = None
            self.validation_scores_ = [float(v) for v in scores]
            self.best_validation_score_ = float(np.max(scores))
        else:
            self.validation_scores_ = self.best_validation_score_ = None
        warn_if_diverged(self.params_, "MLPClassifier training")
        if n == self.max_iter and not bool(result.converged) and not bool(result.diverged):
            warnings.warn(
                f"Stochastic Optimizer: Maximum iterations ({self.max_iter}) reached and the "
                "optimization hasn't converged yet.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def _fit_lbfgs(self, layers, X, index, weights, activation):
        """``solver="lbfgs"``: full-batch L-BFGS from ``layers`` (``nn.mlp_fit``'s ``"lbfgs"``)."""
        n, size = X.shape[0], fit_bucket(X.shape[0])
        weights = np.ones(n, X.dtype) if weights is None else weights
        result = nn.mlp_fit(
            None,
            layers,
            pad_rows(X, size),
            pad_rows(index, size),
            sample_weight=pad_rows(weights, size),
            alpha=self.alpha,
            optimizer="lbfgs",
            activation=activation,
            max_epochs=self.max_iter,
            tol=self.tol,
        )
        n_iter = int(result.n_epochs)  # L-BFGS iterations
        self.params_ = nn.MLPParams(
            _two_logits(result.layers, self.classes_.size),
            jnp.asarray(n_iter, jnp.int32),
            result.diverged,
            jnp.asarray(result.loss_curve),
            None,
        )
        for name in ("loss_curve_", "best_loss_", "_partial_state"):
            self.__dict__.pop(name, None)
        self.loss_, self.n_iter_ = float(result.loss_curve[0]), n_iter
        self.validation_scores_ = self.best_validation_score_ = None
        warn_if_diverged(self.params_, "MLPClassifier training")
        # as scikit-learn's: a warning when max_iter ends it (a stop for want of any decrease at
        # the float resolution is SciPy's relative-reduction convergence)
        if n_iter >= self.max_iter and not bool(result.converged) and not bool(result.diverged):
            warnings.warn(
                f"lbfgs failed to converge after {n_iter} iterations (max_iter={self.max_iter}): "
                "increase `max_iter` or scale the data",
                ConvergenceWarning,
                stacklevel=3,
            )
        return self

    def _record(self, losses) -> None:
        """``loss_curve_`` (one float an epoch), ``n_iter_`` (its length) and ``best_loss_`` (its minimum)."""
        self.loss_curve_ = [float(v) for v in losses]
        self.n_iter_ = len(self.loss_curve_)
        self.best_loss_ = (
            float(np.nanmin(self.loss_curve_)) if np.isfinite(self.loss_curve_).any() else np.nan
        )

    @available_if(_stochastic)
    def partial_fit(self, X, y, classes=None):
        """One epoch over ``(X, y)`` in shuffled minibatches, from the network fitted so far (scikit-learn's
        ``partial_fit``): ``classes`` (every label ``y`` may take) is required on the first call. Each call
        appends its epoch's mean cross-entropy to ``loss_curve_``; the optimiser state carries over
        between calls (a call after :meth:`fit` starts a fresh one from the fitted network). The first
        call starts Glorot-uniform with one output per class. Unlike :meth:`fit`, an epoch here is
        :func:`jaxlearn.nn.mlp_epoch`'s: weight decay ``alpha`` on every parameter, plain SGD for
        ``"sgd"`` (no momentum), optax's Adam; ``early_stopping=True`` is refused, as scikit-learn does.

        Returns:
          self.
        """
        if self.early_stopping:
            raise ValueError("partial_fit does not support early_stopping=True")
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
        activation = self._activation()
        self._check_solver()
        rng = check_random_state(self.random_state)
        if first:
            layers = self._start(rng, X.shape[1], self.classes_.size, X.dtype)
            state, losses = None, []
        else:
            check_is_fitted(self)
            layers, state, losses = (
                self.params_.layers,
                getattr(self, "_partial_state", None),
                self.loss_curve_,
            )
        key = jax.random.fold_in(key_from(rng), len(losses))
        layers, state, loss = nn.mlp_epoch(
            key,  # a new order each epoch
            layers,
            state,
            X,
            index,
            eta=float(self.learning_rate_init),
            weight_decay=self.alpha,
            optimizer=self.solver,
            batch_size=self._batch(X.shape[0]),
            activation=activation,
        )
        self._partial_state = state
        self._record([*losses, float(loss)])
        self.validation_scores_ = self.best_validation_score_ = None
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
