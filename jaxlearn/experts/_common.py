"""Pieces shared by the experts learners: input checks and log-space weights."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import ZERO_ONE_HINT, check_labels, check_ndim, check_range, check_width, float_dtype

Array = jax.Array

OUTCOME_HINT = f"outcomes are {{0, 1}}; {ZERO_ONE_HINT}"


def check_advice_stream(xs, ys) -> None:
    """``xs``: binary advice of shape (T, n); ``ys``: outcomes in {0, 1}."""
    check_ndim("xs", xs, 2, "(T, n)")
    check_labels("xs", xs, (0, 1), "experts' advice is binary here")
    check_labels("ys", ys, (0, 1), OUTCOME_HINT)


def check_soft_stream(xs, ys) -> None:
    """``xs``: advice in [0, 1] of shape (T, n); ``ys``: outcomes in [0, 1]."""
    check_ndim("xs", xs, 2, "(T, n)")
    check_range("xs", xs, 0.0, 1.0)
    check_ndim("ys", ys, 1, "(T,)")
    check_range("ys", ys, 0.0, 1.0)


def check_loss_stream(xs, ys) -> None:
    """The allocation setting: ``ys`` are loss vectors in [0, 1]^n, shape (T, n); ``xs`` is ignored."""
    check_ndim("ys", ys, 2, "(T, n)")
    check_range("ys", ys, 0.0, 1.0)


def init_log_weights(example_x: ArrayLike) -> Array:
    """Uniform normalised log-weights :math:`\\log v_1 = -\\ln n`, shaped from one advice vector."""
    x = jnp.asarray(example_x)
    check_ndim("example_x", x, 1, "(n,)")
    n = x.shape[0]
    return jnp.full((n,), -jnp.log(n), float_dtype(x))


def normalize(log_w: Array) -> Array:
    """Subtract the log-sum-exp so that ``exp(log_w)`` sums to 1 (left alone if every weight is 0)."""
    total = jax.nn.logsumexp(log_w)
    return jnp.where(jnp.isfinite(total), log_w - total, log_w)


def log_mass(log_w: Array, where: Array) -> Array:
    """:math:`\\log \\sum_{i : where_i} w_i`, ``-inf`` for an empty set."""
    return jax.nn.logsumexp(jnp.where(where, log_w, -jnp.inf))


def as_advice(state_weights: Array, x: ArrayLike) -> Array:
    """Check the width of an advice vector against the state and cast it to the weights' dtype."""
    check_width("x", x, state_weights.shape[0])
    return jnp.asarray(x).astype(state_weights.dtype)
