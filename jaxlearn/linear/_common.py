"""Pieces shared by the batch linear learners: the SGD index draw, labels and scores."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import (  # noqa: F401 - check_* re-exported while the SVM modules move to core
    check_positive,
    check_sample,
    check_sample_shapes,
    float_dtype,
)

Array = jax.Array


def sample_indices(key: Array, steps: int, m: int) -> Array:
    """The examples SGD visits: ``jax.random.randint(key, (steps,), 0, m)`` (uniform, with replacement)."""
    return jax.random.randint(key, (steps,), 0, m)


def as_float(X: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    """``X`` and ``y`` as arrays of the floating dtype the learner computes in (``X``'s own if floating)."""
    X = jnp.asarray(X)
    dtype = float_dtype(X)
    return X.astype(dtype), jnp.asarray(y).astype(dtype)


def sign_label(score: Array) -> Array:
    """+1 where the score is positive, -1 elsewhere (a zero score predicts -1, as the Perceptron does)."""
    return jnp.where(score > 0, 1, -1).astype(score.dtype)


def linear_score(params, X: ArrayLike) -> Array:
    r"""The scores :math:`\langle w, x_i\rangle` (plus ``params.b`` where the params carry one)."""
    w = params.w
    score = jnp.asarray(X).astype(w.dtype) @ w
    b = getattr(params, "b", None)
    return score if b is None else score + b
