"""The descent loop of :func:`~jaxlearn.nn.train`, shared by its one-device and data-parallel programs:
the minibatches of a run, the batch losses, and the optimiser steps scored every ``eval_every`` steps."""

from __future__ import annotations

import functools
from typing import Callable

import jax
import jax.numpy as jnp
import optax

from jaxlearn._progress import scan
from jaxlearn._sharding import stratified_indices

Array = jax.Array


def mean_over_batch(fn: Callable) -> Callable:
    """``fn``'s mean over a batch: its own ``.mean`` if it has one, else a ``jax.vmap`` over examples."""
    mean = getattr(fn, "mean", None)
    if mean is not None:
        return mean
    per_example = jax.vmap(fn, in_axes=(None, 0, 0))
    return lambda params, X, y: jnp.mean(per_example(params, X, y))


def minibatch_indices(key: Array, shape: tuple[int, ...], m: int) -> Array:
    """Indices drawn uniformly from ``0..m-1`` with replacement, as ``random bits mod m``.

    The modulo bias is below :math:`m / 2^{32}` (3e-7 for a thousand examples); ``jax.random.randint``,
    exactly uniform, compiles to a program slower to build on the CPU, paid by every training program
    of a new shape.
    """
    return (jax.random.bits(key, shape, jnp.uint32) % jnp.uint32(m)).astype(jnp.int32)


def minibatches(
    key: Array, sampling: str, steps: int, eval_every: int, m: int, batch_size: int
) -> Array:
    """The ``(num_evals, eval_every, batch_size)`` row indices of a whole run (the last window's tail
    past ``steps`` unused): :func:`minibatch_indices` (``"uniform"``) or
    ``stratified_indices`` (``"stratified"``)."""
    shape = (-(-steps // eval_every), eval_every)
    if sampling == "stratified":
        return stratified_indices(key, shape, m, batch_size)
    return minibatch_indices(key, (*shape, batch_size), m)


def weighted_sum(fn: Callable) -> Callable:
    r""":math:`\sum_i w_i\,\text{fn}(\text{params}, x_i, y_i)` over a batch: the stratified minibatch loss
    with the blocks' shares :math:`w_j = |B_j|/m` (``b`` not dividing ``m``)."""
    per_example = jax.vmap(fn, in_axes=(None, 0, 0))
    return lambda params, X, y, w: jnp.sum(w * per_example(params, X, y).astype(w.dtype))


def _all_finite(tree) -> Array:
    leaves = [jnp.all(jnp.isfinite(leaf)) for leaf in jax.tree_util.tree_leaves(tree)]
    return functools.reduce(jnp.logical_and, leaves, jnp.asarray(True))


def _select(flag, new, old):
    return jax.tree_util.tree_map(lambda a, b: jnp.where(flag, a, b), new, old)


def descend(
    params, idx, weight_decay, value_and_grad, evaluate, *, optimizer, steps, eval_every, progress
):
    """The optimiser steps over the minibatches ``idx`` (num_evals, eval_every, ·), each by
    ``value_and_grad(p, batch) -> (batch loss, its gradient)``, scored every ``eval_every`` steps by
    ``evaluate(p) -> (loss, error or None)``: ``(best iterate, the fields of a TrainHistory)``.

    The optimiser steps of a window carry no checks and no masks (the per-step cost is the gradient
    and the update alone); whether the window stayed finite is decided once at its end, from its
    losses and its final parameters, and a window that did not is discarded (rolled back to its
    start). ``steps`` not a multiple of ``eval_every`` ends with one shorter window (traced apart).
    """
    dtype = params[0][0].dtype
    num_full, rest = divmod(steps, eval_every)
    num_evals = num_full + (rest > 0)
    opt = optax.chain(optax.add_decayed_weights(jnp.asarray(weight_decay).astype(dtype)), optimizer)

    def better(score, best):
        (loss_new, err_new), (loss_old, err_old) = score, best
        by_loss = jnp.isfinite(loss_new) & (loss_new < loss_old)
        if err_new is None:
            return by_loss
        return jnp.isfinite(err_new) & ((err_new < err_old) | ((err_new == err_old) & by_loss))

    def step(carry, batch):
        p, opt_state = carry
        value, grads = value_and_grad(p, batch)
        with jax.numpy_dtype_promotion(
            "standard"
        ):  # optax's internals are not strict-promotion clean
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
        carry, record = scan(
            window, carry, windows, progress=progress, desc="jaxlearn.nn.train windows"
        )
        records.append(record)
    if rest:
        carry, record = window(carry, (ends[-1], idx[-1, :rest]))
        records.append(jax.tree_util.tree_map(lambda a: a[None], record))
    done, train_loss, valid_loss, valid_error, nonfinite = jax.tree_util.tree_map(
        lambda *parts: jnp.concatenate(parts), *records
    )
    return carry[4], (done, train_loss, valid_loss, valid_error, nonfinite, carry[6], score[0])
