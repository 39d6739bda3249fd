"""Euclidean projections onto convex sets, for projected online gradient descent (SPEC 5.2, 6.6).

Thin factories over :mod:`optax.projections`, with the radius or bounds captured (and traced, so a
sweep over them vmaps) and the result cast back to the iterate's dtype.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
from jax.tree_util import Partial
from jax.typing import ArrayLike
from optax import projections

Array = jax.Array
Projection = Callable[[Array], Array]


def l2_ball(radius: ArrayLike) -> Projection:
    r"""Projection onto :math:`\{w : \|w\| \le B\}`: :math:`w \mapsto w \min(1, B/\|w\|)`.

    A ``jax.tree_util.Partial``: the radius is a leaf, so a learner using it sweeps it under ``vmap``.
    """
    return Partial(_project_l2_ball, radius)


def box(lo: ArrayLike, hi: ArrayLike) -> Projection:
    r"""Projection onto the box :math:`\{w : lo \le w_i \le hi\}`: coordinate-wise clipping."""
    return Partial(_project_box, lo, hi)


def _project_l2_ball(radius, w):
    return projections.projection_l2_ball(w, jnp.asarray(radius).astype(w.dtype))


def _project_box(lo, hi, w):
    lower, upper = (jnp.asarray(b).astype(w.dtype) for b in (lo, hi))
    return projections.projection_box(w, lower, upper)
