"""The linear score shared by the batch linear learners, the checks of their ``X``, the passes of the
batch Perceptrons, and the mini-batches of the SGD learners with their data-parallel program."""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P
from jax.typing import ArrayLike

from jaxlearn._checks import check_ndim, check_width
from jaxlearn._regularized import sample_indices
from jaxlearn._sharding import (
    RowSplit,
    block_weights,
    check_divisible,
    check_progress,
    local_rows,
    row_split,
    rows_like,
    stratified_indices,
)
from jaxlearn._shared import float_dtype, sign_label

Array = jax.Array


def check_instances(X: ArrayLike, width: int) -> None:
    """``X`` of shape (m, d) with the ``d = width`` features the params were fitted on (shape checks:
    they also run under ``jit``/``vmap``)."""
    check_ndim("X", X, 2, "(m, d)")
    check_width("X", X, width)


def linear_score(params, X: ArrayLike) -> Array:
    r"""The scores :math:`\langle w, x_i\rangle` (plus ``params.b`` where the params carry one): one
    compiled program, not an operation compiled at a time (of ``w`` and ``b`` alone: the params'
    other fields, such as a dual fit's one variable per example, are not its arguments)."""
    check_instances(X, params.w.shape[-1])
    return _score(params.w, getattr(params, "b", None), jnp.asarray(X))


def linear_predict(params, X: ArrayLike) -> Array:
    """+1 where :func:`linear_score` is positive, -1 elsewhere (``sign_label``), in one program."""
    check_instances(X, params.w.shape[-1])
    return _predict(params.w, getattr(params, "b", None), jnp.asarray(X))


@jax.jit
def _score(w, b, X):
    score = X.astype(w.dtype) @ w
    return score if b is None else score + b


@jax.jit
def _predict(w, b, X):
    return sign_label(_score(w, b, X))


def as_support_dtype(params, X: ArrayLike) -> Array:
    """``X`` in the float dtype of the training instances kept by a kernel learner's params (so a
    bool/int ``X`` is promoted before the kernel sees it)."""
    return jnp.asarray(X).astype(params.support.dtype)


def kernel_example(X: ArrayLike) -> np.ndarray:
    """One zero row of ``X``'s width in its float dtype: what a kernel is checked on before ``fit``
    promotes ``X``."""
    return np.zeros((1, *np.shape(X)[1:]), float_dtype(X))


def minibatches(
    key: Array, steps: int, X: Array, batch_size: int
) -> tuple[Array, Optional[Array], Optional[RowSplit]]:
    """What an SGD learner visits: ``(idx, weights, split)``.

    ``batch_size=1`` on one device: ``idx`` (T,) uniform over the rows (``sample_indices``),
    ``weights`` ``None``. Otherwise the stratified batches ``idx`` (T, b) (``stratified_indices``)
    and the blocks' shares ``weights`` (b,). ``split``: how ``X``'s rows are split over devices, or ``None``.
    """
    split, m = row_split(X), X.shape[0]
    if split is not None:
        check_divisible(split, m, batch_size)
    elif batch_size == 1:
        return sample_indices(key, steps, m), None, None
    return (
        stratified_indices(key, (steps,), m, batch_size),
        block_weights(m, batch_size, X.dtype),
        split,
    )


def all_devices(value: Any, axes: Optional[tuple]) -> Any:
    """The sum of ``value`` over the devices the rows are split over (``axes``), or ``value`` on one."""
    return value if axes is None else jax.lax.psum(value, axes)


def data_parallel(body: Callable, split: RowSplit, **static) -> Callable:
    """``body(idx, X, y, *hyperparameters, weights, **static, axes=split.axes)`` run on every device's rows
    inside ``jax.shard_map``: ``idx`` (T, b) split by its batch column, ``X``, ``y`` and ``weights`` by
    rows/blocks, the hyperparameters and the result replicated; one compiled program per ``split`` and
    ``static`` (cached)."""
    check_progress(static.get("progress", False), split.count)
    program = functools.partial(_program, body, split, tuple(sorted(static.items())))
    return lambda idx, X, y, *rest: program(len(rest) - 1)(idx, X, rows_like(split, y), *rest)


@functools.lru_cache(maxsize=64)
def _program(body, split, static, num_hyperparameters):
    specs = (P(None, split.axes), split.spec, split.spec, *(P(),) * num_hyperparameters, split.spec)

    def inner(idx, X, y, *rest):  # this device's rows and its blocks' draws, made local
        rows = local_rows(idx, split, X.shape[0] * split.count)
        return body(rows, X, y, *rest, **dict(static), axes=split.axes)

    return jax.jit(
        jax.shard_map(inner, mesh=split.mesh, in_specs=specs, out_specs=P(), check_vma=False)
    )


class DualState(NamedTuple):
    """The loop state of the hard-SVM dual solvers (``_svm`` and ``_hard_svm_bias``)."""

    alpha: jax.Array
    w: jax.Array
    violation: jax.Array
    stop: jax.Array
    step: jax.Array


def kkt_tolerance(tol, radius, w):
    """The hard-SVM solvers' KKT tolerance, floored at the rounding level 16 eps R ||w|| (float32 fits
    converge)."""
    eps = jnp.finfo(w.dtype).eps
    return jnp.maximum(jnp.asarray(tol).astype(w.dtype), 16 * eps * radius * jnp.linalg.norm(w))


def dual_unbounded(alpha, w, radius):
    """On a sample no halfspace separates, the hard-SVM dual is unbounded: ``||w|| / sum(alpha)`` bounds
    the margin of every halfspace, and once it is below ``max(sqrt(eps), 1e-5) R`` the sample is taken as
    not separable."""
    dtype = w.dtype
    total = jnp.sum(alpha)
    resolution = jnp.maximum(jnp.sqrt(jnp.finfo(dtype).eps), 1e-5).astype(dtype)
    margin_bound = jnp.linalg.norm(w) / jnp.maximum(total, jnp.finfo(dtype).tiny)
    return (total > 0) & (margin_bound <= resolution * radius)


def cyclic_passes(visit: Callable, state: Any, num_rows: int, max_epochs: int):
    """Cyclic passes over rows ``0..num_rows-1`` until one makes no update, or ``max_epochs`` passes.

    ``visit(state, i) -> (state, updated)`` visits row ``i`` (``updated``: a bool scalar). Returns
    ``(state, updates, epochs, converged)``: the updates in all, the passes made, and whether the last
    pass made none (the batch Perceptrons' loop: plain, masked, augmented and kernel).
    """

    def visit_counting(carry, i):
        state, updates = carry
        state, updated = visit(state, i)
        return (state, updates + updated.astype(jnp.int32)), None

    def one_pass(carry):
        state, updates, epochs, _ = carry
        (state, new_updates), _ = jax.lax.scan(
            visit_counting, (state, updates), jnp.arange(num_rows)
        )
        return state, new_updates, epochs + 1, new_updates == updates

    def keep_going(carry):
        return (~carry[3]) & (carry[2] < max_epochs)

    zero = jnp.zeros([], jnp.int32)
    return jax.lax.while_loop(keep_going, one_pass, (state, zero, zero, jnp.array(False)))
