"""scikit-learn estimators over the online learners: epochs of ``core.run``, and ``partial_fit``
(:class:`Perceptron` is scikit-learn's, by :func:`jaxlearn.linear.epoch_sgd`: see its docstring).

``fit`` plays ``max_iter`` epochs over the sample from a fresh state, each epoch in a new random order
when ``shuffle`` (the orders drawn from ``random_state``), as :func:`jaxlearn.core.run` over the
concatenated epochs, :data:`CHUNK_ROWS` rounds of them at a time (the orders are drawn chunk by chunk,
so memory does not grow with ``max_iter``). It stops early at a fixed point: a state that no example
changes (a Perceptron that separates the sample) is the state every later epoch ends in.
``partial_fit`` plays one pass over its chunk, in order,
from the carried ``state_``, so ``partial_fit`` over chunks equals ``fit(max_iter=1, shuffle=False)``
on their concatenation. There is no stopping tolerance: the online learners have no objective to
monitor, and a fixed number of epochs keeps the program static.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial
from sklearn.utils import check_random_state

from jaxlearn import core, losses, online
from jaxlearn._buckets import fit_bucket, pad_rows
from jaxlearn._checks import check_positive_int
from jaxlearn._cpu_jit import cpu_jit
from jaxlearn._shared import sign_label
from jaxlearn.sklearn._base import (
    N_JOBS,
    BinaryClassifier,
    BinaryLabels,
    InvalidParameterError,
    float_dtype,
)
from jaxlearn.sklearn._sgd import EpochSGDClassifier, l1_ratio

__all__ = [
    "MarginPerceptron",
    "OnlineGradientDescentClassifier",
    "Perceptron",
    "epoch_order",
    "play",
]


def _no_trace(info):  # run keeps no per-round record: fit needs the final state only
    return ()


#: The most rounds ``fit`` orders and plays at once (at least one epoch).
CHUNK_ROWS = 2**20


@cpu_jit
def _fixed_point(learner, state, X, y):
    """Whether no example changes ``state`` (the round counter ``step`` aside)."""

    def unchanged(x, label):
        new = learner.update(state, x, label)[0]
        if hasattr(new, "step"):
            new = new._replace(step=state.step)
        return jnp.all(
            jnp.stack(
                [jnp.all(a == b) for a, b in zip(jax.tree.leaves(new), jax.tree.leaves(state))]
            )
        )

    return jnp.all(jax.vmap(unchanged)(X, y))


def play_epochs(learner, state, X, y, random_state, epochs: int, shuffle: bool):
    """``epochs`` passes over ``(X, y)`` from ``state`` (orders as :func:`epoch_order`, drawn chunk by chunk
    from one ``RandomState``: the same orders as drawn at once), stopping at a fixed point.

    Returns ``(state, epochs played)``; past a fixed point only ``step`` (rounds played) still moves.
    """
    n = X.shape[0]
    rng = check_random_state(random_state) if shuffle else None
    per_chunk = min(epochs, max(1, CHUNK_ROWS // n))
    # each epoch padded to the sample's size bucket with rounds that leave the state as it was (on
    # the first example), and the sample with copies of it: every size in a bucket runs one program
    size = fit_bucket(n)
    X_padded, y_padded = (np.concatenate([a, np.repeat(a[:1], size - n, axis=0)]) for a in (X, y))
    done = 0
    while done < epochs:
        count = min(per_chunk, epochs - done)
        order = epoch_order(rng, n, count, shuffle).reshape(count, n)
        rounds = pad_rows(order, size, axis=1).reshape(-1)  # the padding rounds on example 0
        active = np.tile(np.arange(size) < n, count)
        state = play(learner, state, X, y, rounds, active)
        done += count
        if done < epochs and bool(_fixed_point(learner, state, X_padded, y_padded)):
            if hasattr(
                state, "step"
            ):  # the rounds the remaining epochs would have played (int32, wraps)
                rounds = np.int64(state.step) + np.int64(epochs - done) * n
                state = state._replace(step=jnp.asarray(np.array(rounds).astype(np.int32)))
            break
    return state, done


def epoch_order(random_state, n: int, epochs: int, shuffle: bool) -> np.ndarray:
    """The example indices of ``epochs`` passes over ``n`` examples, each pass a fresh permutation
    drawn from ``random_state`` when ``shuffle`` (all at once: argsort of uniform draws), else in order.

    Drawn on the host with NumPy, as scikit-learn draws its orders: a JAX permutation would compile
    one sorting program per sample size.
    """
    if not shuffle:
        return np.tile(np.arange(n), epochs)
    draws = check_random_state(random_state).random_sample((epochs, n))
    return np.argsort(draws, axis=1, kind="stable").reshape(-1)


def play(learner, state, X, y, order=None, active=None):
    """``core.run`` of ``learner`` from ``state`` over the stream ``X[order], y[order]`` (all of the
    epochs' examples, concatenated: one compiled scan), round by round (``block_size=0``: the
    block rule of the perceptrons pays off on long streams only, and compiles in about three times
    as long); the rounds where ``active`` is ``False`` leave the state as it was."""
    if order is not None:
        X, y = X[order], y[order]
    state, _ = core.run(learner, state, X, y, trace_fn=_no_trace, block_size=0, active=active)
    return state


@cpu_jit
def _linear_scores(state, X):
    return X @ state.w + state.b


@cpu_jit(static_argnames=("epochs", "shuffle", "zero_one"))
def _batch_fit(learner, key, X, y, *, epochs: int, shuffle: bool, zero_one: bool):
    """The epochs as a traceable fit (for the multiclass reductions, which vmap it): the orders are
    drawn with ``jax.random`` from ``key``."""
    n = X.shape[0]
    if shuffle:
        keys = jax.random.split(key, epochs)
        order = jax.vmap(lambda k: jax.random.permutation(k, n))(keys).reshape(-1)
    else:
        order = jnp.tile(jnp.arange(n), epochs)
    if zero_one:  # Winnow's {0, 1}. A 0 label is all_pairs's mask (an example of neither class): it
        # becomes the zero instance labelled 0, which Winnow predicts right and never updates on.
        X = jnp.where((y == 0)[:, None], jnp.zeros_like(X), X)
        y = (y > 0).astype(jnp.int32)
    return play(learner, learner.init(X[0]), X, y, order)


@functools.lru_cache(maxsize=None)
def _batch_fit_fn(
    epochs: int, shuffle: bool, zero_one: bool
):  # one function per options: equal trees
    return functools.partial(_batch_fit, epochs=epochs, shuffle=shuffle, zero_one=zero_one)


def sign_of(scores_fn):
    def predict(*args):
        return sign_label(scores_fn(*args))

    return predict


_sign_linear = sign_of(_linear_scores)


def _check_epochs(max_iter) -> int:
    return check_positive_int("max_iter", max_iter)


class OnlineClassifier(BinaryLabels):
    """``fit``/``partial_fit`` over ``self._learner()``; ``state_`` is the learner's state."""

    #: The learner's labels: {-1, +1}, or {0, 1} for Winnow.
    _zero_one = False

    _parameter_constraints = {"max_iter": core.POSITIVE_INT}

    def _learner(self) -> core.Learner:  # pragma: no cover - abstract
        raise NotImplementedError

    def _inputs(self, X):  # the learner's instances (Winnow binarises)
        return X

    def _targets(self, y_pm):
        return ((y_pm + 1) // 2).astype(np.int32) if self._zero_one else y_pm

    def fit(self, X, y):
        """``max_iter`` epochs of the online learner over ``(X, y)`` from a fresh state.

        Args:
          X: array of shape (n, d).
          y: labels of shape (n,), exactly two distinct values (any type).

        Returns:
          self.
        """
        X, y = self._validate(X, y, reset=True)
        y = self._encode_binary(y)
        epochs, shuffle = _check_epochs(self.max_iter), bool(self.shuffle)
        self._prepare(X)
        X = self._inputs(X)
        learner = self._learner()
        state = learner.init(X[0])
        self.state_, self.n_iter_ = play_epochs(
            learner, state, X, self._targets(y), self.random_state, epochs, shuffle
        )
        return self

    def partial_fit(self, X, y, classes=None):
        """One pass of the online learner over ``(X, y)``, in order, from the carried state.

        Args:
          X: array of shape (n, d).
          y: labels of shape (n,), values of ``classes``.
          classes: the two labels; required on the first call, optional (and checked) later.

        Returns:
          self.
        """
        first = not hasattr(self, "state_")
        if first and classes is None:
            raise ValueError("expected `classes` (the two labels) on the first call to partial_fit")
        X, y = self._validate(X, y, reset=first)
        if classes is not None:
            given = np.unique(np.asarray(classes))
            if not first and not np.array_equal(given, self.classes_):
                raise ValueError(
                    f"expected `classes` equal to those of the first call to partial_fit, {self.classes_!r}, "
                    f"got {given!r}"
                )
            if first:
                self._encode_binary(given)
        unseen = np.setdiff1d(np.unique(y), self.classes_)
        if unseen.size:
            raise ValueError(
                f"expected `y` with values in classes_ {self.classes_!r}, got {unseen!r}"
            )
        y_pm = (2 * np.searchsorted(self.classes_, y) - 1).astype(float_dtype())
        if first:
            self._prepare(X)
        X = self._inputs(X)
        learner = self._learner()
        state = learner.init(X[0]) if first else self.state_
        self.state_ = play(learner, state, X, self._targets(y_pm))
        return self

    def _batch_learner(self, X=None) -> core.BatchLearner:
        """The estimator as a batch learner (``fit(key, X, y)`` plays the epochs; labels {-1, +1}),
        for jaxlearn's multiclass reductions (``multiclass.one_vs_all``/``all_pairs``)."""
        if X is not None:
            self._prepare(np.asarray(X))
        fit_fn = _batch_fit_fn(_check_epochs(self.max_iter), bool(self.shuffle), self._zero_one)
        fit = Partial(fit_fn, self._learner())
        return core.BatchLearner(fit, *self._batch_scores())

    def _batch_scores(self):  # (predict, decision_function) of the batch learner, labels {-1, +1}
        return Partial(_sign_linear), Partial(_linear_scores)


class _LinearOnline(OnlineClassifier, BinaryClassifier):
    """Online learners with a state ``(w, b, ...)``: the score is ``X @ w + b``."""

    def _decision(self, X):
        # on the host, as scikit-learn's linear models score: no program for each size of X
        return np.asarray(X) @ np.asarray(self.state_.w) + np.asarray(self.state_.b)


class Perceptron(EpochSGDClassifier):
    r"""The Perceptron as scikit-learn's: SGD on :math:`\max(0, -y\,p)` with a constant step
    (:func:`jaxlearn.linear.epoch_sgd`, ``loss="perceptron"``, ``learning_rate="constant"``).

    On two classes each step is the online Perceptron's (:func:`jaxlearn.online.perceptron`): on a
    mistake (:math:`y\,p \le 0`), :math:`w \mathrel{+}= \eta_0 y x`, :math:`b \mathrel{+}= \eta_0 y`;
    the fit stops when ``n_iter_no_change`` epochs in a row do not lower the epoch's mean of
    :math:`\max(0, -y\,p)` by ``tol``. More classes: one-vs-all, every class in one vmapped program.

    Args:
      eta0: the step :math:`\eta_0 > 0`.
      penalty, alpha, l1_ratio: an optional penalty (``None``, ``"l2"``, ``"l1"``, ``"elasticnet"``).
      fit_intercept, max_iter, tol, shuffle, n_iter_no_change, class_weight: as scikit-learn's.
      random_state: the orders of the rows, drawn as scikit-learn draws them: the same value visits
        the rows in the same order as scikit-learn's ``Perceptron``.
      early_stopping, validation_fraction: stop on the accuracy of a held-out stratified fraction of the
        sample instead of the training objective, as scikit-learn's.
      normalize: scale each example to unit length (Balcan's version), in ``fit`` and ``predict``.
      warm_start: ``fit`` starts from the last fit's ``coef_`` and ``intercept_``.
      n_jobs, verbose: accepted for scikit-learn's API; jaxlearn vectorises instead and prints nothing.

    Attributes:
      coef_, intercept_: (1, d), (1,) for two classes, else (K, d), (K,); n_iter_; t_; classes_; params_.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import Perceptron
      >>> X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]])
      >>> Perceptron().fit(X, ["yes", "yes", "no", "no"]).predict(X).tolist()
      ['yes', 'yes', 'no', 'no']
    """

    _parameter_constraints = {
        "eta0": core.POSITIVE,
        "alpha": core.NON_NEGATIVE,
        "l1_ratio": (core.UNIT, None),
        "max_iter": core.POSITIVE_INT,
        "tol": (core.NON_NEGATIVE, None),
        "n_iter_no_change": core.POSITIVE_INT,
        "validation_fraction": core.OPEN_UNIT,
    }
    _no_effect = {"n_jobs": N_JOBS, "verbose": None}

    def __init__(
        self,
        *,
        penalty=None,
        alpha=1e-4,
        l1_ratio=0.15,
        fit_intercept=True,
        max_iter=1000,
        tol=1e-3,
        shuffle=True,
        verbose=0,
        eta0=1.0,
        n_jobs=None,
        random_state=0,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=5,
        class_weight=None,
        warm_start=False,
        normalize=False,
    ):
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.shuffle = shuffle
        self.verbose = verbose
        self.eta0 = eta0
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.normalize = normalize

    def _options(self):
        return dict(
            loss="perceptron",
            penalty=self.penalty,
            alpha=self.alpha,
            l1_ratio=l1_ratio(self.penalty, self.l1_ratio),
            learning_rate="constant",
            eta0=self.eta0,
            max_iter=self.max_iter,
            tol=self.tol,
            n_iter_no_change=self.n_iter_no_change,
            fit_intercept=bool(self.fit_intercept),
            shuffle=bool(self.shuffle),
        )

    def _batch_learner(self, X=None):
        if self.normalize:  # the reductions fit the learner on X as it is
            raise InvalidParameterError(
                "Perceptron: `normalize=True` inside a reduction is not supported; scale the rows first "
                "(sklearn.preprocessing.Normalizer)"
            )
        return super()._batch_learner(X)

    def _inputs(self, X):
        if not self.normalize:
            return X
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        return X / np.where(norms > 0, norms, 1).astype(X.dtype)


class MarginPerceptron(_LinearOnline):
    """Balcan's margin Perceptron (:func:`jaxlearn.online.margin_perceptron`) as a classifier.

    Args:
      gamma: the assumed margin :math:`\\gamma \\in (0, 1]` of the unit-length examples.
      fit_intercept, max_iter, shuffle, random_state: as for :class:`Perceptron`.

    Attributes:
      state_: the :class:`~jaxlearn.online.PerceptronState`; classes_: the two labels.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import MarginPerceptron
      >>> X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]])
      >>> MarginPerceptron(random_state=0).fit(X, [1, 1, 0, 0]).predict(X).tolist()
      [1, 1, 0, 0]
    """

    _parameter_constraints = {"gamma": core.Interval(0.0, 1.0, hi_closed=True)}

    def __init__(
        self, gamma=0.1, *, fit_intercept=True, max_iter=5, shuffle=True, random_state=None
    ):
        self.gamma = gamma
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    def _learner(self):
        return online.margin_perceptron(self.gamma, fit_intercept=bool(self.fit_intercept))


_LOSSES = {"hinge": losses.hinge, "log_loss": losses.logistic}


class OnlineGradientDescentClassifier(_LinearOnline):
    """Online gradient descent (:func:`jaxlearn.online.online_gradient_descent`) on the hinge or
    logistic loss, as a classifier.

    Args:
      loss: ``"hinge"`` (:func:`jaxlearn.losses.hinge`) or ``"log_loss"`` (:func:`jaxlearn.losses.logistic`).
      eta0: the constant step size :math:`\\eta > 0`.
      radius: project ``w`` onto the l2 ball of this radius (:func:`jaxlearn.online.l2_ball`);
        ``None``: no projection.
      fit_intercept, max_iter, shuffle, random_state: as for :class:`Perceptron`.

    Attributes:
      state_: the :class:`~jaxlearn.online.OGDState`; classes_: the two labels.

    Example:
      >>> import numpy as np
      >>> from jaxlearn.sklearn import OnlineGradientDescentClassifier
      >>> X = np.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0], [-2.0, -1.0]])
      >>> OnlineGradientDescentClassifier(random_state=0).fit(X, [1, 1, -1, -1]).predict(X).tolist()
      [1, 1, -1, -1]
    """

    _parameter_constraints = {"eta0": core.POSITIVE, "radius": (core.POSITIVE, None)}

    def __init__(
        self,
        loss="hinge",
        *,
        eta0=0.1,
        radius=None,
        fit_intercept=True,
        max_iter=5,
        shuffle=True,
        random_state=None,
    ):
        self.loss = loss
        self.eta0 = eta0
        self.radius = radius
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state

    def _learner(self):
        if self.loss not in _LOSSES:
            raise ValueError(f"expected `loss` one of {sorted(_LOSSES)}, got {self.loss!r}")
        projection = None if self.radius is None else online.l2_ball(self.radius)
        return online.online_gradient_descent(
            _LOSSES[self.loss],
            self.eta0,
            projection=projection,
            fit_intercept=bool(self.fit_intercept),
        )
