"""SGD for neural networks with validation selection and weight decay (UML section 20.6).

The whole run is one compiled program (a ``lax.scan`` over evaluation windows of ``eval_every`` steps),
carrying the best iterate so far; it is vmappable over keys. A sample split by rows over several
devices (``parallel.shard_rows``) trains data-parallel: the same loop inside ``jax.shard_map``, each
device drawing its share of every stratified minibatch from its own rows, the gradients added by
``lax.psum``.
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import optax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P
from jax.typing import ArrayLike

from jaxlearn._checks import warn_if_diverged
from jaxlearn._sharding import (
    RowSplit,
    block_starts,
    block_weights,
    check_divisible,
    check_progress,
    local_rows,
    row_split,
    rows_like,
)
from jaxlearn.core import NON_NEGATIVE, loadable
from jaxlearn.nn._descent import descend, mean_over_batch, minibatches, weighted_sum
from jaxlearn.nn._inputs import (
    as_numbers,
    check_callable,
    check_key,
    check_network_sample,
    network,
    static_int,
)
from jaxlearn.nn._mlp import (
    Activation,
    Params,
    cross_entropy,
    identity,
    mlp_apply,
    relu,
    squared_loss,
)

Array = jax.Array
ExampleLoss = Callable[[Params, Array, Array], Array]

#: The losses ``train`` knows by name (``loss="squared"`` or ``loss="cross_entropy"``).
LOSSES = ("squared", "cross_entropy")
#: How ``train`` draws its minibatches (``sampling=``).
SAMPLINGS = ("uniform", "stratified")


@loadable
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


def picked_entries(log_p: Array, labels: Array) -> Array:
    """``log_p[i, labels[i]]`` for each row ``i``, as a masked row sum (exact: one entry plus zeros).

    The same numbers as ``jnp.take_along_axis``, but its gradient is an element-wise select instead of
    a scatter-add, so the many-seed program (``jax.vmap`` of a fit over keys) holds no batched scatter.
    """
    classes = jnp.arange(log_p.shape[-1], dtype=jnp.int32)
    return jnp.sum(jnp.where(labels.astype(jnp.int32)[:, None] == classes, log_p, 0), axis=1)


@functools.lru_cache(maxsize=None)
def example_loss(name: str, activation: Activation = relu) -> ExampleLoss:
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
            return -jnp.sum(picked_entries(log_p, labels)) / X.shape[0]

    else:
        raise ValueError(
            f"expected `loss` in {LOSSES} or a callable loss(params, x, y), got {name!r}"
        )
    loss.mean = mean
    return loss


@functools.lru_cache(maxsize=None)
def zero_one_error(activation: Activation = relu) -> ExampleLoss:
    """The 0-1 error of the arg-max class of the network's outputs, for int labels (with ``.mean``,
    the error rate of a batch)."""

    def error(params, x, y):
        out = mlp_apply(params, x, activation=activation, output=identity)
        return (jnp.argmax(out).astype(jnp.int32) != jnp.asarray(y).astype(jnp.int32)).astype(
            out.dtype
        )

    def mean(params, X, labels):
        out = mlp_apply(params, X, activation=activation, output=identity)
        guess = jnp.argmax(out, axis=-1).astype(jnp.int32)  # int64 under x64
        return jnp.mean((guess != labels.astype(jnp.int32)).astype(out.dtype))

    error.mean = mean
    return error


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
    activation: Activation = relu,
    sampling: Optional[str] = None,
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
      weight_decay, activation: :math:`\lambda \ge 0` (traced); :math:`\sigma` of the hidden layers
        (default ``relu``, as everywhere in :mod:`jaxlearn.nn`; the book's is ``nn.sigmoid``).
      validation, eval_every: ``(X_valid, y_valid)`` (``None``: training set); score period (``steps // 20``).
      sampling: ``"uniform"`` (each example of a minibatch uniform over the ``m`` rows) or ``"stratified"``
        (example :math:`j` uniform over the :math:`j`-th of ``batch_size`` contiguous row blocks :math:`B_j`,
        its loss weighted :math:`|B_j|/m`); ``None``: stratified for ``X`` split by rows, else uniform.
      progress: a tqdm bar over the evaluation windows (static; needs the ``progress`` extra).

    Returns:
      ``(best_params, history)``: the iterate of least validation loss or ``error``, :math:`w^{(1)}` included
      (ties: smaller loss, then earlier) and a :class:`TrainHistory`.

    Divergence: a window whose minibatch losses, final parameters or validation score are non-finite is
    discarded and the run freezes with ``history.diverged`` set (sticky; never a NaN iterate), so ``train``
    never reports a never-improved run as healthy: one whose every evaluation after the start is non-finite
    returns :math:`w^{(1)}` with ``diverged=True`` (an eager call warns), and so does a finite run that never
    beat the start and ends with over 10x the validation loss it began with (a rate too large to learn).

    Data-parallel: with ``X`` (and ``y``) split by rows over :math:`D` devices (``parallel.shard_rows``;
    :math:`D` divides ``m`` and ``batch_size``) the loop runs inside ``jax.shard_map``, device :math:`k`
    drawing the stratified examples of its own blocks :math:`kb/D..(k+1)b/D-1` and the devices' loss sums
    and gradients added by ``lax.psum``; ``X`` is never gathered. The params (replicated) equal the
    one-device ``sampling="stratified"`` fit up to the order of float sums. Without ``validation`` the
    validation scores are the devices' partial sums too; a ``validation`` pair is copied to every device.

    Examples:
      >>> import jax, optax, jaxlearn.nn as nn
      >>> X = jax.random.normal(jax.random.PRNGKey(0), (64, 2))
      >>> params = nn.mlp_init(jax.random.PRNGKey(1), [2, 16, 2])
      >>> best, history = nn.train(jax.random.PRNGKey(2), params, X, (X[:, 0] * X[:, 1] > 0).astype(int),
      ...                          loss="cross_entropy", optimizer=optax.adam(0.05), steps=400, batch_size=16)
      >>> history.valid_loss.shape, bool(history.diverged)
      ((20,), False)

    References:
      UML section 20.6, "SGD for Neural Networks" (validation selection, weight decay).
    """
    check_key(key)
    params = network(params)
    steps, batch_size = static_int("steps", steps), static_int("batch_size", batch_size)
    eval_every = max(1, steps // 20) if eval_every is None else static_int("eval_every", eval_every)
    NON_NEGATIVE.check("weight_decay", weight_decay)
    weight_decay = as_numbers("weight_decay", weight_decay).astype(
        params[0][0].dtype
    )  # int: same program
    if not (hasattr(optimizer, "init") and hasattr(optimizer, "update")):
        found = type(optimizer).__name__
        raise TypeError(f"expected `optimizer` an optax GradientTransformation, got {found}")
    check_callable("activation", activation)
    if not isinstance(loss, str) and not callable(loss):
        raise TypeError(
            f"expected `loss` in {LOSSES} or a callable loss(params, x, y), got {loss!r}"
        )
    loss_fn = example_loss(loss, activation) if isinstance(loss, str) else loss
    if error is None or callable(error):
        error_fn = error
    elif error == "zero_one":
        error_fn = zero_one_error(activation)
    else:
        raise ValueError(f"expected `error` 'zero_one', a callable or None, got {error!r}")
    kinds = dict(labels=loss == "cross_entropy" or error == "zero_one", targets=loss == "squared")
    if kinds["labels"] and kinds["targets"]:
        raise ValueError(
            "expected `error`='zero_one' with int labels (cross-entropy), got loss='squared'"
        )
    X, y = check_network_sample(params, X, y, "X", "y", **kinds)
    split = row_split(X)
    sampling = _sampling(sampling, split, X.shape[0], batch_size)
    check_progress(progress, 1 if split is None else split.count)
    if validation is None:
        Xv, yv = X, y
    else:
        if not isinstance(validation, (tuple, list)) or len(validation) != 2:
            raise ValueError("expected `validation` a pair (X_valid, y_valid)")
        Xv, yv = check_network_sample(
            params, *validation, "validation[0]", "validation[1]", **kinds
        )
    if jnp.shape(yv)[1:] != jnp.shape(y)[1:]:
        raise ValueError(
            f"expected `validation[1]` of shape (m', {', '.join(map(str, jnp.shape(y)[1:]))}) "
            f"as `y`, got {jnp.shape(yv)}"
        )
    structure = dict(
        loss=loss_fn,
        optimizer=optimizer,
        error=error_fn,
        steps=steps,
        batch_size=batch_size,
        eval_every=eval_every,
        progress=bool(progress),
    )
    if split is None:
        result = _train(key, params, X, y, Xv, yv, weight_decay, sampling=sampling, **structure)
    else:
        y = rows_like(split, y)
        if validation is not None:
            Xv, yv = jax.device_put((Xv, yv), NamedSharding(split.mesh, P()))
        program = _data_parallel(split, validation is None, **structure)
        result = program(key, params, X, y, Xv, yv, weight_decay)
    warn_if_diverged(result[1], "train")
    return result


def _sampling(sampling: Optional[str], split: Optional[RowSplit], m: int, batch_size: int) -> str:
    """The minibatch rule ``train`` uses (a name of :data:`SAMPLINGS`), with the checks of ``sampling``."""
    if sampling is None:
        sampling = "uniform" if split is None else "stratified"
    elif not isinstance(sampling, str):
        raise TypeError(
            f"expected `sampling` in {SAMPLINGS} or None, got {type(sampling).__name__}"
        )
    elif sampling not in SAMPLINGS:
        raise ValueError(f"expected `sampling` in {SAMPLINGS} or None, got {sampling!r}")
    if split is not None:
        if sampling == "uniform":
            raise ValueError(
                f"expected `sampling`='stratified' (or None) with `X` split by rows over {split.count} "
                "devices, got 'uniform': a uniform minibatch reads rows of every device (a gather of `X`), "
                "a stratified one draws each device's share from its own rows"
            )
        check_divisible(split, m, batch_size)
    if sampling == "stratified":
        block_starts(m, batch_size)  # batch_size <= m: every block holds a row
    return sampling


@functools.partial(
    jax.jit,
    static_argnames=(
        "loss",
        "optimizer",
        "error",
        "steps",
        "batch_size",
        "eval_every",
        "sampling",
        "progress",
    ),
)
def _train(key, params, X, y, Xv, yv, weight_decay, **structure):
    return train_loop(key, params, X, y, Xv, yv, weight_decay, **structure)


def train_loop(
    key,
    params,
    X,
    y,
    Xv,
    yv,
    weight_decay,
    *,
    loss,
    optimizer,
    error,
    steps,
    batch_size,
    eval_every,
    rows=None,
    sampling="uniform",
    progress=False,
) -> tuple[Params, TrainHistory]:
    """The body of :func:`train` on one device (traceable; no input checks): call it inside other jitted fits.

    ``rows`` (optional, int array) restricts the minibatches to those rows of ``(X, y)``: training on
    ``X[rows]`` without building it, so that under ``jax.vmap`` over seeds with a per-seed split the
    minibatch gather still reads the one shared ``X`` (a batched copy of ``X`` per seed makes each
    step's gather several times slower). ``sampling``: ``"uniform"`` or ``"stratified"`` (see ``train``).
    """
    dtype = params[0][0].dtype
    m = X.shape[0] if rows is None else rows.shape[0]
    idx = minibatches(key, sampling, steps, eval_every, m, batch_size)
    if rows is not None:
        idx = rows[idx]
    mean_loss = mean_over_batch(loss)
    if sampling == "uniform" or m % batch_size == 0:  # every weight 1/b: the batch's mean loss
        batch_loss = mean_loss
    else:
        weights = block_weights(m, batch_size, dtype)
        batch_loss = functools.partial(weighted_sum(loss), w=weights)
    value_and_grad = jax.value_and_grad(batch_loss)
    mean_error = None if error is None else mean_over_batch(error)

    def evaluate(p):
        return mean_loss(p, Xv, yv), (None if error is None else mean_error(p, Xv, yv))

    best, fields = descend(
        params,
        idx,
        weight_decay,
        lambda p, batch: value_and_grad(p, X[batch], y[batch]),
        evaluate,
        optimizer=optimizer,
        steps=steps,
        eval_every=eval_every,
        progress=progress,
    )
    return best, TrainHistory(*fields)


@functools.lru_cache(maxsize=64)
def _data_parallel(
    split: RowSplit,
    own_validation: bool,
    *,
    loss,
    optimizer,
    error,
    steps,
    batch_size,
    eval_every,
    progress,
) -> Callable:
    """``train``'s program for ``X``, ``y`` split by rows as ``split``: ``(key, params, X, y, Xv, yv,
    weight_decay) -> (best, history)``, replicated; ``Xv, yv`` split as ``X`` if ``own_validation`` (the
    training set), else replicated. One jitted ``shard_map`` per split and structure (cached)."""
    count, total = split.count, functools.partial(jax.lax.psum, axis_name=split.axes)
    mean_loss = mean_over_batch(loss)
    mean_error = None if error is None else mean_over_batch(error)

    def body(params, X, y, Xv, yv, weight_decay, idx, weights):
        m = X.shape[0] * count
        if m % batch_size == 0:  # every weight 1/b: the devices' batch means, over D
            local_loss = lambda p, Xb, yb: mean_loss(p, Xb, yb) / count  # noqa: E731
        else:
            local_loss = functools.partial(weighted_sum(loss), w=weights)
        value_and_grad = jax.value_and_grad(local_loss)
        on_all = (
            (lambda s: total(s / count)) if own_validation else (lambda s: s)
        )  # D | m: equal blocks

        def evaluate(p):
            return on_all(mean_loss(p, Xv, yv)), (
                None if error is None else on_all(mean_error(p, Xv, yv))
            )

        best, fields = descend(
            params,
            local_rows(idx, split, m),
            weight_decay,
            lambda p, batch: total(value_and_grad(p, X[batch], y[batch])),
            evaluate,
            optimizer=optimizer,
            steps=steps,
            eval_every=eval_every,
            progress=progress,
        )
        return best, TrainHistory(*fields)

    rows, draws = split.spec, P(None, None, split.axes)
    valid = rows if own_validation else P()
    sharded = jax.shard_map(
        body,
        mesh=split.mesh,
        in_specs=(P(), rows, rows, valid, valid, P(), draws, rows),
        out_specs=P(),
        check_vma=False,
    )

    def program(key, params, X, y, Xv, yv, weight_decay):
        m = X.shape[0]
        idx = minibatches(key, "stratified", steps, eval_every, m, batch_size)
        weights = block_weights(m, batch_size, params[0][0].dtype)
        return sharded(params, X, y, Xv, yv, weight_decay, idx, weights)

    return jax.jit(program)
