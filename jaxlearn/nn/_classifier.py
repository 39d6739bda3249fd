"""A multilayer perceptron classifier as a ``BatchLearner`` (UML section 20.6 with a softmax output).

One module-level jitted program takes the step size and weight decay as arguments: refitting, or a new
step size, compiles nothing, and ``jax.vmap`` over them or the key trains many networks as one program.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.typing import ArrayLike

from jaxlearn._checks import at_least, check_sample, is_concrete, num_classes_of
from jaxlearn.core import (
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    BatchLearner,
    Interval,
    learner_factory,
    loadable,
)
from jaxlearn.nn._inputs import as_numbers, check_callable, check_key, check_width, static_int
from jaxlearn.nn._mlp import Activation, identity, mlp_apply, mlp_init, relu
from jaxlearn.nn._train import example_loss, train_loop

Array = jax.Array

#: The optax optimisers ``mlp_classifier`` builds from a traced learning rate.
OPTIMIZERS = {"sgd": optax.sgd, "adam": optax.adam}
#: The number of classes: at least two.
NUM_CLASSES = at_least(2, integer=True)
RANGES = {
    "hidden": POSITIVE_INT,
    "steps": POSITIVE_INT,
    "num_classes": NUM_CLASSES,
    "eta": POSITIVE,
    "batch_size": POSITIVE_INT,
    "weight_decay": NON_NEGATIVE,
    "eval_every": POSITIVE_INT,
    "validation_fraction": Interval(
        0.0, 1.0, lo_closed=True
    ),  # [0, 1): some rows must be left to train on
}


@loadable
class MLPParams(NamedTuple):
    r"""A fitted :func:`mlp_classifier`.

    Attributes:
      layers: the network ``[(W_0, b_0), ...]`` (``W_t`` of shape :math:`k_{t+1}\times k_t`), the
        iterate with the smallest validation cross-entropy (ties: the earlier).
      best_step: the optimiser step of that iterate (int32; 0 is the random initialisation).
      diverged: True if training froze at a non-finite loss, parameter or validation score (a learning
        rate too large; see :func:`~jaxlearn.nn.train`); an eager ``fit`` then warns.
      loss_curve: the mean minibatch cross-entropy of each window of ``eval_every`` steps,
        ``ceil(steps / eval_every)`` entries (:attr:`~jaxlearn.nn.TrainHistory.train_loss`;
        one epoch a window: scikit-learn's ``loss_curve_``).
      validation_loss: the cross-entropy of the held-out rows at the end of each window (the
        score the iterate is chosen by; :attr:`~jaxlearn.nn.TrainHistory.valid_loss`); ``None``
        when ``validation_fraction=0``. Entry ``e`` is taken after ``min((e + 1) * eval_every,
        steps)`` steps; after a divergence it repeats the last finite score.
    """

    layers: list
    best_step: Array
    diverged: Array
    loss_curve: Optional[Array] = None
    validation_loss: Optional[Array] = None


@learner_factory(
    "eta",
    "weight_decay",
    aliases={"learning_rate": "eta"},
    ranges=RANGES,
    functions=("activation",),
)
def mlp_classifier(
    hidden: Union[int, Sequence[int]],
    *,
    steps: int,
    num_classes: Optional[int] = None,
    eta: ArrayLike = 1e-3,
    optimizer: str = "adam",
    batch_size: int = 32,
    weight_decay: ArrayLike = 1e-4,
    activation: Activation = relu,
    validation_fraction: float = 0.1,
    eval_every: Optional[int] = None,
) -> BatchLearner:
    r"""A multilayer perceptron for labels ``0..k-1``, trained by SGD with validation selection.

    .. math:: h(x) = W_T\,\sigma(\cdots\sigma(W_0 x + b_0)\cdots) + b_T, \qquad
        \min \frac1m \sum_i -\log \mathrm{softmax}(h(x_i))_{y_i} + \frac\lambda2\|w\|^2

    Args:
      hidden, steps: hidden layer sizes, ints >= 1 (``128``, ``(64, 64)``); :func:`~jaxlearn.nn.train` steps.
      num_classes: :math:`k \ge 2`; default ``max(y) + 1`` of a concrete ``y`` (give it to fit under ``jit``).
      eta, optimizer: step size > 0 (traced; alias ``learning_rate``); ``"adam"`` or ``"sgd"`` (the book's).
      batch_size, eval_every: examples per step; steps between validation scores (``steps // 20``); ints >= 1.
      weight_decay, activation: :math:`\lambda \ge 0` (traced); :math:`\sigma` of the hidden layers
        (default ``relu``, as everywhere in :mod:`jaxlearn.nn` and in scikit-learn; the book's is
        ``nn.sigmoid``).
      validation_fraction: in [0, 1), the share held out to select the iterate by cross-entropy (0: the
        training set).

    ``hidden``, ``steps``, ``batch_size``, ``eval_every``, ``num_classes`` and ``validation_fraction`` are
    structural (Python numbers); ``X`` of any bool/int/float dtype is fitted as floats.

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y) -> MLPParams``; ``predict`` the arg-max class
      (ties to the smaller index); ``decision_function`` the ``(m, k)`` logits.

    Examples:
      >>> import jax
      >>> from jaxlearn import datasets, nn
      >>> X, y = datasets.load_digits()
      >>> learner = nn.mlp_classifier(64, steps=500)
      >>> params = learner.fit(jax.random.PRNGKey(0), X[:1000] / 16, y[:1000])
      >>> float((learner.predict(params, X[1000:] / 16) == y[1000:]).mean()) > 0.9
      True

    References:
      UML section 20.6 ("SGD for Neural Networks").
    """
    hidden = tuple(static_int("hidden", h) for h in ((hidden,) if np.ndim(hidden) == 0 else hidden))
    steps, batch_size = static_int("steps", steps), static_int("batch_size", batch_size)
    eval_every = max(1, steps // 20) if eval_every is None else static_int("eval_every", eval_every)
    if num_classes is not None:
        num_classes = static_int("num_classes", num_classes, NUM_CLASSES)
    if not isinstance(optimizer, str):
        raise TypeError(
            f"expected `optimizer` one of {tuple(OPTIMIZERS)}, got {type(optimizer).__name__}"
        )
    if optimizer not in OPTIMIZERS:
        raise ValueError(f"expected `optimizer` in {tuple(OPTIMIZERS)}, got {optimizer!r}")
    if np.ndim(validation_fraction) != 0 or not isinstance(
        validation_fraction, (int, float, np.number)
    ):
        raise TypeError(
            f"expected `validation_fraction` a number in [0, 1), got {validation_fraction!r}"
        )
    validation_fraction = float(validation_fraction)
    check_callable("activation", activation)
    structure = dict(
        hidden=hidden,
        optimizer=optimizer,
        activation=activation,
        steps=steps,
        batch_size=batch_size,
        eval_every=eval_every,
        validation_fraction=validation_fraction,
    )

    def fit(key, X, y):
        check_key(key)
        if (
            is_concrete(y) and np.asarray(y).dtype == np.bool_
        ):  # on the host: no jnp before the class count
            y = np.asarray(y, np.int32)
        k = num_classes_of(y, num_classes)
        X = as_numbers("X", X)
        rates = [
            jnp.asarray(v).astype(X.dtype) for v in (eta, weight_decay)
        ]  # int or float: one program
        return _fit(key, X, jnp.asarray(y).astype(jnp.int32), *rates, k=k, **structure)

    def decision_function(params: MLPParams, X: ArrayLike) -> Array:
        """The ``(m, k)`` logits (their softmax is the class probabilities)."""
        if not isinstance(params, MLPParams):
            raise TypeError(
                f"expected `params` the MLPParams of a fit, got {type(params).__name__}"
            )
        X = as_numbers("X", X)
        check_width(
            "X", X, params.layers[0][0].shape[-1], {2: "(m, d)"}, "the width of the fitted sample"
        )
        return _logits(params.layers, X, activation=activation)

    def predict(params: MLPParams, X: ArrayLike) -> Array:
        """The arg-max class of the logits (int32; ties to the smaller class index)."""
        return jnp.argmax(decision_function(params, X), axis=-1).astype(jnp.int32)

    return BatchLearner(
        fit, predict, decision_function, functools.partial(check_sample, labels=None)
    )


@functools.partial(jax.jit, static_argnames=("activation",))
def _logits(layers, X, *, activation):
    X = X.astype(layers[0][0].dtype)
    return jax.vmap(lambda x: mlp_apply(layers, x, activation=activation, output=identity))(X)


@functools.partial(
    jax.jit,
    static_argnames=(
        "k",
        "hidden",
        "optimizer",
        "activation",
        "steps",
        "batch_size",
        "eval_every",
        "validation_fraction",
    ),
)
def _fit(
    key,
    X,
    y,
    learning_rate,
    weight_decay,
    *,
    k,
    hidden,
    optimizer,
    activation,
    steps,
    batch_size,
    eval_every,
    validation_fraction,
):
    dtype = X.dtype
    m, d = X.shape
    init_key, split_key, train_key = jax.random.split(key, 3)
    layers = mlp_init(init_key, (d, *hidden, k), dtype=dtype)
    n_valid = min(m - 1, max(1, round(validation_fraction * m))) if validation_fraction > 0 else 0
    if (
        n_valid
    ):  # train on the rows X[order[n_valid:]] without copying them (see train_loop's `rows`)
        order = jax.random.permutation(split_key, m)
        Xv, yv, rows = X[order[:n_valid]], y[order[:n_valid]], order[n_valid:]
    else:
        Xv, yv, rows = X, y, None
    opt = OPTIMIZERS[optimizer](jnp.asarray(learning_rate).astype(dtype))
    best, history = train_loop(
        train_key,
        layers,
        X,
        y,
        Xv,
        yv,
        weight_decay,
        loss=example_loss("cross_entropy", activation),
        optimizer=opt,
        error=None,
        steps=steps,
        batch_size=batch_size,
        eval_every=eval_every,
        rows=rows,
    )
    valid_loss = history.valid_loss if n_valid else None  # else the training set's loss
    return MLPParams(best, history.best_step, history.diverged, history.train_loss, valid_loss)
