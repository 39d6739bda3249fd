"""Euclidean projections onto convex sets, for projected online gradient descent (UML section 21.3;
SS10 L6 Lemma 6).

Thin factories over :mod:`optax.projections`, with the radius or bounds captured (and traced, so a
sweep over them vmaps) and the result cast back to the iterate's dtype.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial
from jax.typing import ArrayLike
from optax import projections

from jaxlearn._checks import is_concrete
from jaxlearn.core import POSITIVE, Interval, loadable

Array = jax.Array
Projection = Callable[[Array], Array]
#: A bound of a box: any number, infinite ones included (NaN is refused).
BOUND = Interval(-np.inf, np.inf, True, True)


def l2_ball(radius: ArrayLike) -> Projection:
    r"""Projection onto :math:`\{w : \|w\| \le B\}`: :math:`w \mapsto w \min(1, B/\|w\|)`.

    A ``jax.tree_util.Partial``: the radius :math:`B > 0` is a leaf, so a learner using it sweeps it
    under ``vmap`` (checked when concrete).
    """
    POSITIVE.check("radius", radius)
    return Partial(_project_l2_ball, radius)


def box(lo: ArrayLike, hi: ArrayLike) -> Projection:
    r"""Projection onto the box :math:`\{w : lo \le w_i \le hi\}`: coordinate-wise clipping.

    ``lo`` and ``hi`` are numbers or per-coordinate arrays (infinite bounds allowed), with
    :math:`lo \le hi` (checked when concrete).
    """
    lo, hi = (np.asarray(b) if isinstance(b, list) else b for b in (lo, hi))
    BOUND.check("lo", lo)
    BOUND.check("hi", hi)
    if is_concrete(lo, hi):
        low, high = np.asarray(lo, float), np.asarray(hi, float)
        try:
            crossed = np.any(low > high)
        except ValueError:
            raise ValueError(
                f"expected `lo` and `hi` of broadcastable shapes, got {low.shape} and {high.shape}"
            ) from None
        if crossed:
            raise ValueError(f"expected `lo` <= `hi`, got lo={lo!r} and hi={hi!r}")
    return Partial(_project_box, lo, hi)


def simplex(scale: ArrayLike = 1.0) -> Projection:
    r"""Projection onto the simplex :math:`\{w : w_i \ge 0, \sum_i w_i = s\}` (sort-based; UML section 21.3).

    .. math:: \Pi(w)_i = \max(w_i - \tau, 0), \quad \tau \text{ such that } \sum_i \max(w_i - \tau, 0) = s,

    with :math:`\tau` read off the sorted coordinates (optax's ``projection_simplex``). The scale
    :math:`s > 0` is a leaf of the returned ``Partial`` (traced; checked when concrete). As OGD's
    projection the first iterate is :math:`\Pi(0) = (s/d, \dots, s/d)`: online learning of a
    distribution over :math:`d` coordinates.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import online
      >>> online.simplex()(jnp.array([0.5, 2.0, -1.0])).tolist()
      [0.0, 1.0, 0.0]
      >>> online.simplex(2.0)(jnp.zeros(4)).tolist()
      [0.5, 0.5, 0.5, 0.5]
    """
    POSITIVE.check("scale", scale)
    return Partial(_project_simplex, scale)


@loadable
def _project_simplex(scale, w):
    # optax divides float sums by an int ``arange``: standard promotion, whatever the user's setting
    with jax.numpy_dtype_promotion("standard"):
        return projections.projection_simplex(w, jnp.asarray(scale).astype(w.dtype)).astype(w.dtype)


@loadable
def _project_l2_ball(radius, w):
    return projections.projection_l2_ball(w, jnp.asarray(radius).astype(w.dtype))


@loadable
def _project_box(lo, hi, w):
    lower, upper = (jnp.asarray(b).astype(w.dtype) for b in (lo, hi))
    return projections.projection_box(w, lower, upper)
