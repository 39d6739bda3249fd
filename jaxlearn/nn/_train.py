"""SGD for neural networks with validation selection and weight decay (SPEC 17.4; UML section 20.6).

The whole run is one compiled program (a ``lax.scan`` over evaluation windows of ``eval_every`` steps),
carrying the best iterate so far; it is vmappable over keys.
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import optax
from jax.typing import ArrayLike

from jaxlearn.core import NON_NEGATIVE, scan, warn_if_diverged
from jaxlearn.nn._inputs import (
    as_numbers,
    check_callable,
    check_key,
    check_network_sample,
    network,
    static_int,
)
from jaxlearn.nn._mlp import Activation, Params, cross_entropy, identity, mlp_apply, sigmoid, squared_loss

Array = jax.Array
ExampleLoss = Callable[[Params, Array, Array], Array]

#: The losses ``train`` knows by name (``loss="squared"`` or ``loss="cross_entropy"``).
LOSSES = ("squared", "cross_entropy")


class TrainHistory(NamedTuple):
    r"""What :func:`train` records at each of its :math:`E = \lceil \text{steps} / \text{eval\_every}\rceil`
    evaluations (arrays of shape ``(E,)``, a leading seed axis under ``vmap``).

    Attributes:
      step: the number of optimiser steps taken before the evaluation (int32).
      train_loss: the mean minibatch loss (without the weight-decay term) over the steps since the
        previous evaluation, at the parameters each step started from. It is NaN/inf in a window
        where a non-finite loss appeared (see ``nonfinite``); the parameters never are.
      valid_loss: the mean loss on the validation set.
      valid_error: the mean of ``error`` on the validation set (``None`` without an ``error``).
      nonfinite: True from the first window (the steps since the previous evaluation) in which a
        minibatch loss, the parameters or the validation score became non-finite (a diverging
        learning rate); that window and all later ones are discarded, the parameters stay at the
        iterate of the evaluation before (and so does the recorded validation score).
      best_step: scalar int32, the step of the returned iterate (0: the initial parameters).
      start_loss: scalar, the validation loss of the initial parameters.
    """

    step: Array
    train_loss: Array
    valid_loss: Array
    valid_error: Optional[Array]
    nonfinite: Array
    best_step: Array
    start_loss: Array

    @property
    def diverged(self) -> Array:
        """True if the run stopped updating because of a non-finite loss, score or parameters, or if it
        never beat its starting point and ended with a validation loss over 10x the one it started with."""
        blew_up = (self.best_step == 0) & (self.valid_loss[..., -1] > 10 * self.start_loss)
        return self.nonfinite[..., -1] | blew_up


@functools.lru_cache(maxsize=None)
def example_loss(name: str, activation: Activation = sigmoid) -> ExampleLoss:
    r"""The loss of one example as a function of the params, by name (one object per name and
    activation, so that a second ``train`` reuses the compiled program).

    - ``"squared"``: :math:`\frac12\|h_w(x) - y\|^2` with an identity output (UML section 20.6).
    - ``"cross_entropy"``: :math:`-\log\mathrm{softmax}(h_w(x))_y` for an int label ``y``, where
      :math:`h_w(x)` are the logits (identity output).

    The function carries ``.mean``, the mean loss of a batch ``(X, y)`` computed on the whole batch
    (one dot per layer), which :func:`train` uses instead of a ``jax.vmap`` over examples.
    """
    if name == "squared":

        def loss(params, x, y):
            return squared_loss(mlp_apply(params, x, activation=activation), y)

        def mean(params, X, Y):
            diff = mlp_apply(params, X, activation=activation) - Y
            return 0.5 * jnp.sum(diff * diff) / X.shape[0]

    elif name == "cross_entropy":

        def loss(params, x, y):
            return cross_entropy(mlp_apply(params, x, activation=activation), y)

        def mean(params, X, labels):
            log_p = jax.nn.log_softmax(mlp_apply(params, X, activation=activation))
            picked = jnp.take_along_axis(log_p, labels.astype(jnp.int32)[:, None], axis=1)
            return -jnp.sum(picked) / X.shape[0]

    else:
        raise ValueError(f"expected `loss` in {LOSSES} or a callable loss(params, x, y), got {name!r}")
    loss.mean = mean
    return loss


@functools.lru_cache(maxsize=None)
def zero_one_error(activation: Activation = sigmoid) -> ExampleLoss:
    """The 0-1 error of the arg-max class of the network's outputs, for int labels (with ``.mean``,
    the error rate of a batch)."""

    def error(params, x, y):
        out = mlp_apply(params, x, activation=activation, output=identity)
        return (jnp.argmax(out) != jnp.asarray(y).astype(jnp.int32)).astype(out.dtype)

    def mean(params, X, labels):
        out = mlp_apply(params, X, activation=activation, output=identity)
        return jnp.mean((jnp.argmax(out, axis=-1) != labels.astype(jnp.int32)).astype(out.dtype))

    error.mean = mean
    return error


def _mean_over_batch(fn: ExampleLoss) -> Callable[[Params, Array, Array], Array]:
    """``fn``'s mean over a batch: its own ``.mean`` if it has one, else a ``jax.vmap`` over examples."""
    mean = getattr(fn, "mean", None)
    if mean is not None:
        return mean
    per_example = jax.vmap(fn, in_axes=(None, 0, 0))
    return lambda params, X, y: jnp.mean(per_example(params, X, y))


def train(
    key: Array,
    params: Params,
    X: ArrayLike,
    y: ArrayLike,
    *,
    loss: Union[str, ExampleLoss],
    optimizer: optax.GradientTransformation,
    steps: int,
    batch_size: int,
    weight_decay: ArrayLike = 0.0,
    validation: Optional[tuple[ArrayLike, ArrayLike]] = None,
    eval_every: Optional[int] = None,
    error: Optional[Union[str, ExampleLoss]] = None,
    activation: Activation = sigmoid,
    progress: bool = False,
) -> tuple[Params, TrainHistory]:
    r"""The book's SGD for neural networks, with any optax optimiser, returning the validation-best iterate.

    .. math:: w^{(i+1)} = w^{(i)} - \eta_i\,(v_i + \lambda w^{(i)}), \qquad \eta_i = \text{schedule}(i - 1).

    Args:
      key, params: PRNG key for the minibatches (drawn with replacement); the initial network (``mlp_init``).
      X, y: inputs ``(m, k_0)``; targets ``(m, k_T)`` (squared loss) or int labels ``(m,)`` (cross-entropy).
      loss, error: ``"squared"``, ``"cross_entropy"`` or ``f(params, x, y)``; ``"zero_one"``, f or ``None``.
      optimizer: ``optax.sgd(schedule)`` for the book's rule; :math:`v_i` is the mean minibatch loss gradient.
      steps, batch_size: :math:`\tau` and the examples per step (static ints >= 1).
      weight_decay, activation: :math:`\lambda \ge 0` (traced); :math:`\sigma` of the hidden layers.
      validation, eval_every: ``(X_valid, y_valid)`` (``None``: training set); score period (``steps // 20``).
      progress: a tqdm bar over the evaluation windows (static; needs the ``progress`` extra).

    Returns:
      ``(best_params, history)``: the iterate of least validation loss or ``error``, :math:`w^{(1)}` included
      (ties: smaller loss, then earlier) and a :class:`TrainHistory`.

    Divergence: a window whose minibatch losses, final parameters or validation score are non-finite is
    discarded and the run freezes with ``history.diverged`` set (sticky; never a NaN iterate), so ``train``
    never reports a never-improved run as healthy: one whose every evaluation after the start is non-finite
    returns :math:`w^{(1)}` with ``diverged=True`` (an eager call warns), and so does a finite run that never
    beat the start and ends with over 10x the validation loss it began with (a rate too large to learn).

    Examples:
      >>> import jax, optax, jaxlearn.nn as nn
      >>> X = jax.random.normal(jax.random.PRNGKey(0), (64, 2))
      >>> params = nn.mlp_init(jax.random.PRNGKey(1), [2, 16, 2])
      >>> best, history = nn.train(jax.random.PRNGKey(2), params, X, (X[:, 0] * X[:, 1] > 0).astype(int),
      ...                          loss="cross_entropy", optimizer=optax.adam(0.05), steps=400, batch_size=16)
      >>> history.valid_loss.shape, bool(history.diverged)
      ((20,), False)

    References:
      UML section 20.6, "SGD for Neural Networks" (validation selection, weight decay); SPEC 17.4.
    """
    check_key(key)
    params = network(params)
    steps, batch_size = static_int("steps", steps), static_int("batch_size", batch_size)
    eval_every = max(1, steps // 20) if eval_every is None else static_int("eval_every", eval_every)
    NON_NEGATIVE.check("weight_decay", weight_decay)
    weight_decay = as_numbers("weight_decay", weight_decay).astype(params[0][0].dtype)  # int: same program
    if not (hasattr(optimizer, "init") and hasattr(optimizer, "update")):
        found = type(optimizer).__name__
        raise TypeError(f"expected `optimizer` an optax GradientTransformation, got {found}")
    check_callable("activation", activation)
    if not isinstance(loss, str) and not callable(loss):
        raise TypeError(f"expected `loss` in {LOSSES} or a callable loss(params, x, y), got {loss!r}")
    loss_fn = example_loss(loss, activation) if isinstance(loss, str) else loss
    if error is None or callable(error):
        error_fn = error
    elif error == "zero_one":
        error_fn = zero_one_error(activation)
    else:
        raise ValueError(f"expected `error` 'zero_one', a callable or None, got {error!r}")
    kinds = dict(labels=loss == "cross_entropy" or error == "zero_one", targets=loss == "squared")
    if kinds["labels"] and kinds["targets"]:
        raise ValueError("expected `error`='zero_one' with int labels (cross-entropy), got loss='squared'")
    X, y = check_network_sample(params, X, y, "X", "y", **kinds)
    if validation is None:
        Xv, yv = X, y
    else:
        if not isinstance(validation, (tuple, list)) or len(validation) != 2:
            raise ValueError("expected `validation` a pair (X_valid, y_valid)")
        Xv, yv = check_network_sample(params, *validation, "validation[0]", "validation[1]", **kinds)
    if jnp.shape(yv)[1:] != jnp.shape(y)[1:]:
        raise ValueError(f"expected `validation[1]` of shape (m', {', '.join(map(str, jnp.shape(y)[1:]))}) "
                         f"as `y`, got {jnp.shape(yv)}")  # fmt: skip
    result = _train(
        key, params, X, y, Xv, yv, weight_decay,
        loss=loss_fn, optimizer=optimizer, error=error_fn,
        steps=steps, batch_size=batch_size, eval_every=eval_every, progress=bool(progress),
    )  # fmt: skip
    warn_if_diverged(result[1], "train")
    return result


def minibatch_indices(key: Array, shape: tuple[int, ...], m: int) -> Array:
    """Indices drawn uniformly from ``0..m-1`` with replacement, as ``random bits mod m``.

    The modulo bias is below :math:`m / 2^{32}` (3e-7 for a thousand examples); ``jax.random.randint``,
    exactly uniform, compiles to a program about 0.5 s slower to build on the CPU, paid by every
    training program of a new shape.
    """
    return (jax.random.bits(key, shape, jnp.uint32) % jnp.uint32(m)).astype(jnp.int32)


def _all_finite(tree) -> Array:
    leaves = [jnp.all(jnp.isfinite(leaf)) for leaf in jax.tree_util.tree_leaves(tree)]
    return functools.reduce(jnp.logical_and, leaves, jnp.asarray(True))


def _select(flag, new, old):
    return jax.tree_util.tree_map(lambda a, b: jnp.where(flag, a, b), new, old)


@functools.partial(
    jax.jit, static_argnames=("loss", "optimizer", "error", "steps", "batch_size", "eval_every", "progress")
)
def _train(key, params, X, y, Xv, yv, weight_decay, **structure):
    return train_loop(key, params, X, y, Xv, yv, weight_decay, **structure)


def train_loop(
    key, params, X, y, Xv, yv, weight_decay, *, loss, optimizer, error, steps, batch_size, eval_every,
    rows=None, progress=False,
) -> tuple[Params, TrainHistory]:
    """The body of :func:`train` (traceable; no input checks): call it inside other jitted fits.

    ``rows`` (optional, int array) restricts the minibatches to those rows of ``(X, y)``: training on
    ``X[rows]`` without building it, so that under ``jax.vmap`` over seeds with a per-seed split the
    minibatch gather still reads the one shared ``X`` (a batched copy of ``X`` per seed makes each
    step's gather several times slower).

    The optimiser steps of a window carry no checks and no masks (the per-step cost is the gradient
    and the update alone); whether the window stayed finite is decided once at its end, from its
    losses and its final parameters, and a window that did not is discarded (rolled back to its
    start). ``steps`` not a multiple of ``eval_every`` ends with one shorter window (traced apart).
    """
    dtype = params[0][0].dtype
    m = X.shape[0] if rows is None else rows.shape[0]
    num_full, rest = divmod(steps, eval_every)
    num_evals = num_full + (rest > 0)
    idx = minibatch_indices(key, (num_evals, eval_every, batch_size), m)
    if rows is not None:
        idx = rows[idx]
    opt = optax.chain(optax.add_decayed_weights(jnp.asarray(weight_decay).astype(dtype)), optimizer)
    mean_loss = _mean_over_batch(loss)
    mean_error = None if error is None else _mean_over_batch(error)
    value_and_grad = jax.value_and_grad(mean_loss)

    def evaluate(p):
        return mean_loss(p, Xv, yv), (None if error is None else mean_error(p, Xv, yv))

    def better(score, best):
        (loss_new, err_new), (loss_old, err_old) = score, best
        by_loss = jnp.isfinite(loss_new) & (loss_new < loss_old)
        if error is None:
            return by_loss
        return jnp.isfinite(err_new) & ((err_new < err_old) | ((err_new == err_old) & by_loss))

    def step(carry, batch):
        p, opt_state = carry
        value, grads = value_and_grad(p, X[batch], y[batch])
        with jax.numpy_dtype_promotion("standard"):  # optax's internals are not strict-promotion clean
            updates, opt_state = opt.update(grads, opt_state, p)
            p = optax.apply_updates(p, updates)
        return (p, opt_state), value.astype(dtype)

    def window(carry, it):
        p0, state0, score0, frozen, best, best_score, best_step = carry
        done, batches = it
        (p, opt_state), values = jax.lax.scan(step, (p0, state0), batches)
        score = evaluate(p)
        # One check per window: a non-finite loss, parameter or validation score discards the whole
        # window, and the run stays frozen at the last evaluated iterate (later windows are discarded).
        frozen = frozen | ~(jnp.all(jnp.isfinite(values)) & _all_finite((p, score)))
        p, opt_state, score = _select(frozen, (p0, state0, score0), (p, opt_state, score))
        improved = better(score, best_score) & ~frozen
        best = _select(improved, p, best)
        best_score = _select(improved, score, best_score)
        best_step = jnp.where(improved, done, best_step)
        record = (done, jnp.mean(values), *score, frozen)
        return (p, opt_state, score, frozen, best, best_score, best_step), record

    start = jnp.asarray(0, jnp.int32)
    score = evaluate(params)
    best_score = jax.tree_util.tree_map(lambda s: jnp.where(jnp.isfinite(s), s, jnp.inf), score)
    carry = (params, opt.init(params), score, jnp.asarray(False), params, best_score, start)
    ends = jnp.minimum(eval_every * jnp.arange(1, num_evals + 1, dtype=jnp.int32), steps)
    records = []
    if num_full:
        windows = (ends[:num_full], idx[:num_full])
        carry, record = scan(window, carry, windows, progress=progress, desc="jaxlearn.nn.train windows")
        records.append(record)
    if rest:
        carry, record = window(carry, (ends[-1], idx[-1, :rest]))
        records.append(jax.tree_util.tree_map(lambda a: a[None], record))
    done, train_loss, valid_loss, valid_error, nonfinite = jax.tree_util.tree_map(
        lambda *parts: jnp.concatenate(parts), *records
    )
    history = TrainHistory(done, train_loss, valid_loss, valid_error, nonfinite, carry[6], score[0])
    return carry[4], history
