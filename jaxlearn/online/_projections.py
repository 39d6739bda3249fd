"""Euclidean projections onto convex sets, for projected online gradient descent (SPEC 5.2, 6.6)."""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

Array = jax.Array
Projection = Callable[[Array], Array]


def l2_ball(radius: ArrayLike) -> Projection:
    r"""Projection onto :math:`\{w : \|w\| \le B\}`: :math:`w \mapsto w \min(1, B/\|w\|)`."""

    def project(w):
        norm = jnp.linalg.norm(w)
        scale = jnp.minimum(1, jnp.asarray(radius).astype(w.dtype) / jnp.where(norm > 0, norm, 1))
        return w * scale

    return project


def box(lo: ArrayLike, hi: ArrayLike) -> Projection:
    r"""Projection onto the box :math:`\{w : lo \le w_i \le hi\}`: coordinate-wise clipping."""

    def project(w):
        return jnp.clip(w, jnp.asarray(lo).astype(w.dtype), jnp.asarray(hi).astype(w.dtype))

    return project
