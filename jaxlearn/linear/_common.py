"""Pieces shared by the batch linear learners: input checks, the SGD index draw, labels and scores."""

from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn.core import PLUS_MINUS_HINT, check_finite, check_labels, check_ndim, float_dtype, is_concrete

Array = jax.Array


def check_positive(name: str, value) -> None:
    """Raise ``ValueError`` if a concrete numeric ``value`` has an entry ``<= 0`` (tracers pass)."""
    if value is None or callable(value) or not is_concrete(value):
        return
    array = np.asarray(value)
    if array.size and not (array > 0).all():
        raise ValueError(f"expected `{name}` > 0, got {value!r}")


def check_sample_shapes(X, y) -> None:
    """``X`` of shape (m, d) and ``y`` of shape (m,) with m >= 1 (shapes only, so also under a trace)."""
    check_ndim("X", X, 2, "(m, d)")
    check_ndim("y", y, 1, "(m,)")
    m, n = jnp.shape(X)[0], jnp.shape(y)[0]
    if m != n:
        raise ValueError(f"expected `X` and `y` with the same number of examples, got {m} and {n}")
    if m == 0:
        raise ValueError("expected a non-empty sample, got `X` of shape (0, d)")


def check_sample(X, y, *, labels: Optional[tuple] = (-1, 1)) -> None:
    """The input checks of a batch ``fit``: shapes always, values when ``X``/``y`` are concrete.

    ``X`` of shape (m, d) with m >= 1, ``y`` of shape (m,), both finite, labels in ``labels``
    (``None``: any real value, for regression losses).
    """
    check_sample_shapes(X, y)
    check_finite("X", X)
    check_finite("y", y)
    if labels is not None:
        check_labels("y", y, labels, PLUS_MINUS_HINT)


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
