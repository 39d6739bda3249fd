"""Pieces shared by the batch linear learners: their float dtype and linear scores."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import float_dtype

Array = jax.Array


def as_float(X: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    """``X`` and ``y`` as arrays of the floating dtype the learner computes in (``X``'s own if floating)."""
    X = jnp.asarray(X)
    dtype = float_dtype(X)
    return X.astype(dtype), jnp.asarray(y).astype(dtype)


def linear_score(params, X: ArrayLike) -> Array:
    r"""The scores :math:`\langle w, x_i\rangle` (plus ``params.b`` where the params carry one)."""
    w = params.w
    score = jnp.asarray(X).astype(w.dtype) @ w
    b = getattr(params, "b", None)
    return score if b is None else score + b
