"""The linear score shared by the batch linear learners."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

Array = jax.Array


def linear_score(params, X: ArrayLike) -> Array:
    r"""The scores :math:`\langle w, x_i\rangle` (plus ``params.b`` where the params carry one)."""
    w = params.w
    score = jnp.asarray(X).astype(w.dtype) @ w
    b = getattr(params, "b", None)
    return score if b is None else score + b
