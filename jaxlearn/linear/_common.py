"""The linear score shared by the batch linear learners, and the checks of their ``X``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn.core import check_ndim, check_width, float_dtype

Array = jax.Array


def check_instances(X: ArrayLike, width: int) -> None:
    """``X`` of shape (m, d) with the ``d = width`` features the params were fitted on (shape checks:
    they also run under ``jit``/``vmap``)."""
    check_ndim("X", X, 2, "(m, d)")
    check_width("X", X, width)


def linear_score(params, X: ArrayLike) -> Array:
    r"""The scores :math:`\langle w, x_i\rangle` (plus ``params.b`` where the params carry one)."""
    w = params.w
    check_instances(X, w.shape[-1])
    score = jnp.asarray(X).astype(w.dtype) @ w
    b = getattr(params, "b", None)
    return score if b is None else score + b


def as_support_dtype(params, X: ArrayLike) -> Array:
    """``X`` in the float dtype of the training instances kept by a kernel learner's params (so a
    bool/int ``X`` is promoted before the kernel sees it)."""
    return jnp.asarray(X).astype(params.support.dtype)


def kernel_example(X: ArrayLike) -> np.ndarray:
    """One zero row of ``X``'s width in its float dtype: what a kernel is checked on before ``fit``
    promotes ``X``."""
    return np.zeros((1, *np.shape(X)[1:]), float_dtype(X))
