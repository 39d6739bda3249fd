"""Pieces shared by the experts learners: input checks and log-space weights."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import ZERO_ONE_HINT, check_labels, check_ndim, check_range, check_width
from jaxlearn._shared import float_dtype

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


def normalize(log_w: Array, previous: Array | None = None) -> Array:
    """Subtract the log-sum-exp so that ``exp(log_w)`` sums to 1.

    If every weight is 0 (every expert of positive weight had an infinite loss, or :math:`\beta = 0`
    and all were wrong), the round cannot rank the experts: ``previous`` is returned, so the weights
    stay a distribution (as Halving keeps its version space on an inconsistent round); without
    ``previous``, ``log_w`` is left alone.
    """
    total = jax.nn.logsumexp(log_w)
    kept = log_w if previous is None else previous
    return jnp.where(jnp.isfinite(total), log_w - jnp.where(jnp.isfinite(total), total, 0), kept)


def log_mass(log_w: Array, where: Array) -> Array:
    """:math:`\\log \\sum_{i : where_i} w_i`, ``-inf`` for an empty set."""
    return jax.nn.logsumexp(jnp.where(where, log_w, -jnp.inf))


def as_advice(state_weights: Array, x: ArrayLike) -> Array:
    """Check the width of an advice vector against the state and cast it to the weights' dtype."""
    check_width("x", x, state_weights.shape[0])
    return jnp.asarray(x).astype(state_weights.dtype)


def says_one(x: ArrayLike) -> Array:
    """Binary advice or outcomes as booleans, ``x > 0`` (a bool ``x`` as it is: no bool/int promotion)."""
    x = jnp.asarray(x)
    return x if x.dtype == jnp.bool_ else x > 0
