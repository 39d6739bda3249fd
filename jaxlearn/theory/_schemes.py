"""Realizable compression schemes (SS10 L3(c) sections 1.1-1.2; L4 Corollaries 2-3): keep a few examples,
rebuild the hypothesis from them.

A scheme is a pair of functions: ``*_compress`` picks the kept examples of a sample (a boolean mask of
shape (m,)), ``*_reconstruct`` rebuilds the hypothesis from the kept examples alone. Corollary 1 of
SS10 L3(c) then bounds its error (:func:`jaxlearn.theory.compression_bound` with ``k`` kept examples).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike
from optax.projections import projection_simplex

from jaxlearn import linear
from jaxlearn._checks import check_positive_int, check_sample
from jaxlearn._shared import as_float, float_dtype
from jaxlearn.core import loadable
from jaxlearn.theory._common import _points

Array = jax.Array


@loadable
class Rectangle(NamedTuple):
    """An axis-aligned rectangle :math:`\\prod_j [\\text{lower}_j, \\text{upper}_j]` (empty when some
    ``lower > upper``)."""

    lower: Array
    upper: Array


@loadable
class HalfspaceCompression(NamedTuple):
    r"""``w``: the min-norm point of :math:`\mathrm{conv}\{y_i x_i\}` (the halfspace's normal);
    ``weights``: convex weights with :math:`w = \sum_i \alpha_i y_i x_i`; ``support``: the kept examples,
    :math:`\alpha_i > 0` (at most :math:`d + 1`, after a Caratheodory reduction)."""

    w: Array
    weights: Array
    support: Array


def _sample(X, y):
    X, y = (np.asarray(v) if isinstance(v, list) else v for v in (X, y))
    check_sample(_points(X), y)
    return as_float(X, y)


def _mask(mask, m, name="mask"):
    mask = np.asarray(mask) if isinstance(mask, list) else mask
    if jnp.shape(mask) != (m,):
        raise ValueError(
            f"expected `{name}` of shape ({m},) (one flag per example), got {jnp.shape(mask)}"
        )
    return jnp.asarray(mask).astype(bool)


# --- Axis-aligned rectangles (SS10 L3(c) section 1.1) ---


def rectangle_compress(X: ArrayLike, y: ArrayLike) -> Array:
    r"""The rectangle scheme's kept examples: for each of the :math:`d` coordinates, the positive
    examples of least and greatest value (at most :math:`2d`; none when there is no positive example).

    Examples:
      >>> from jaxlearn import theory
      >>> X = [[0.1, 0.5], [0.4, 0.2], [0.3, 0.3], [0.9, 0.9]]
      >>> theory.rectangle_compress(X, [1, 1, 1, -1]).tolist()
      [True, True, False, False]
    """
    X, y = _sample(X, y)
    positive = y > 0
    low = jnp.argmin(jnp.where(positive[:, None], X, jnp.inf), axis=0)
    high = jnp.argmax(jnp.where(positive[:, None], X, -jnp.inf), axis=0)
    kept = jnp.zeros(X.shape[0], bool).at[low].set(True).at[high].set(True)
    return kept & jnp.any(positive)


def rectangle_reconstruct(X: ArrayLike, y: ArrayLike, mask: ArrayLike) -> Rectangle:
    r"""The smallest axis-aligned rectangle holding the kept positive examples (empty if there is none);
    on the mask of :func:`rectangle_compress` it is the tightest rectangle around all positives, so it
    classifies a sample labelled by a rectangle without error (SS10 L3(c) section 1.1)."""
    X, y = _sample(X, y)
    kept = (_mask(mask, X.shape[0]) & (y > 0))[:, None]
    return Rectangle(
        jnp.min(jnp.where(kept, X, jnp.inf), 0), jnp.max(jnp.where(kept, X, -jnp.inf), 0)
    )


def rectangle_predict(rectangle: Rectangle, X: ArrayLike) -> Array:
    """+1 inside the (closed) rectangle, -1 outside, in ``X``'s float dtype.

    Examples:
      >>> from jaxlearn import theory
      >>> X, y = [[0.1, 0.5], [0.4, 0.2], [0.3, 0.3], [0.9, 0.9]], [1, 1, 1, -1]
      >>> box = theory.rectangle_reconstruct(X, y, theory.rectangle_compress(X, y))
      >>> theory.rectangle_predict(box, X).tolist()
      [1.0, 1.0, 1.0, -1.0]
    """
    X = jnp.asarray(_points(X))
    X = X.astype(float_dtype(X))
    lower, upper = (jnp.asarray(v).astype(X.dtype) for v in rectangle)
    if jnp.shape(lower) != X.shape[-1:] or jnp.shape(upper) != X.shape[-1:]:
        raise ValueError(
            f"expected `rectangle` bounds of shape {X.shape[-1:]} (the width of `X`), got "
            f"{jnp.shape(lower)} and {jnp.shape(upper)}"
        )
    inside = jnp.all((X >= lower) & (X <= upper), axis=-1)
    return jnp.where(inside, 1.0, -1.0).astype(X.dtype)


# --- Homogeneous halfspaces (SS10 L3(c) section 1.2) ---


def halfspace_compress(
    X: ArrayLike, y: ArrayLike, *, mask: ArrayLike | None = None, steps: int = 5000
) -> HalfspaceCompression:
    r"""The halfspace scheme: the point :math:`w` of :math:`\mathrm{conv}\{y_i x_i\}` closest to the origin.

    .. math::
        w = \sum_i \alpha_i y_i x_i, \quad
        \alpha = \arg\min_{\alpha \in \Delta_m} \|\textstyle\sum_i \alpha_i y_i x_i\|^2,

    solved by accelerated projected gradient on the simplex (``steps`` iterations, with restarts;
    run it in float64 for tight optimality), then reduced (Caratheodory) to at most :math:`d + 1`
    examples with :math:`\alpha_i > 0`. On a separable sample :math:`y_i\langle w, x_i\rangle \ge \|w\|^2 > 0`
    for every :math:`i` (projection optimality), and :math:`w` is also the min-norm point of the kept
    examples alone (:func:`halfspace_reconstruct`). ``mask`` restricts the hull to some examples. On a
    sample that is not separable the hull holds the origin and ``w`` is (close to) zero.

    Returns:
      :class:`HalfspaceCompression` ``(w, weights, support)``.

    Examples:
      >>> from jaxlearn import theory
      >>> X, y = [[2.0, 1.0], [1.0, 2.0], [-1.0, -3.0], [3.0, 3.0]], [1, 1, -1, 1]
      >>> kept = theory.halfspace_compress(X, y)
      >>> [round(float(v), 3) for v in kept.w], kept.support.tolist()
      ([1.5, 1.5], [True, True, False, False])
    """
    X, y = _sample(X, y)
    steps = check_positive_int("steps", steps)
    mask = jnp.ones(X.shape[0], bool) if mask is None else _mask(mask, X.shape[0])
    return _min_norm_point(y[:, None] * X, mask, steps=steps)


def halfspace_reconstruct(
    X: ArrayLike, y: ArrayLike, support: ArrayLike, *, steps: int = 5000
) -> Array:
    """The halfspace rebuilt from the kept examples: the min-norm point of their hull (SS10 L3(c)
    section 1.2)."""
    _mask(support, jnp.shape(_points(X))[0], "support")
    return halfspace_compress(X, y, mask=support, steps=steps).w


@functools.partial(jax.jit, static_argnames=("steps",))
def _min_norm_point(V, mask, *, steps):
    G = V @ V.T
    lipschitz = 2 * jnp.linalg.eigvalsh(G)[-1] + jnp.finfo(V.dtype).tiny

    def project(z):  # onto the face of the simplex spanned by the masked coordinates
        floor = jnp.min(jnp.where(mask, z, jnp.inf)) - 1
        with jax.numpy_dtype_promotion("standard"):  # optax divides floats by int indices
            return projection_simplex(jnp.where(mask, z, floor))

    def step(_, carry):  # FISTA with function-value restart
        alpha, beta, t, value = carry
        new = project(beta - 2 * (G @ beta) / lipschitz)
        new_value = new @ G @ new
        t_next = (1 + jnp.sqrt(1 + 4 * t**2)) / 2
        restart = new_value > value
        beta = jnp.where(restart, new, new + (t - 1) / t_next * (new - alpha))
        return new, beta, jnp.where(restart, 1.0, t_next).astype(t.dtype), new_value

    start = mask.astype(V.dtype) / jnp.sum(mask).astype(V.dtype)
    one = jnp.ones([], V.dtype)
    alpha, *_ = jax.lax.fori_loop(0, steps, step, (start, start, one, start @ G @ start))
    alpha = _caratheodory(V, alpha)
    return HalfspaceCompression(alpha @ V, alpha, alpha > 0)


def _caratheodory(V, alpha):
    """Convex weights of the same point with at most d + 1 nonzero (Caratheodory; SS10 L3(c) section 1.2):
    while more, move along a null direction z of [V^T; 1^T] on the support until a weight reaches zero."""
    m, d = V.shape
    A = jnp.concatenate([V.T, jnp.ones((1, m), V.dtype)])

    def too_many(carry):
        alpha, rounds = carry
        return (jnp.sum(alpha > 0) > d + 1) & (rounds < m)

    def drop_one(carry):
        alpha, rounds = carry
        support = alpha > 0
        restricted = jnp.concatenate(
            [A * support.astype(V.dtype), jnp.diag(~support).astype(V.dtype)]
        )
        z = jnp.where(
            support, jnp.linalg.svd(restricted)[2][-1], 0
        )  # a least singular direction: A z = 0
        z = jnp.where(jnp.max(z) > 0, z, -z)
        ratios = jnp.where(support & (z > 0), alpha / jnp.where(z > 0, z, 1), jnp.inf)
        leaving = jnp.argmin(ratios)
        alpha = jnp.maximum(alpha - ratios[leaving] * z, 0).at[leaving].set(0)
        return alpha / jnp.sum(alpha), rounds + 1

    return jax.lax.while_loop(too_many, drop_one, (alpha, jnp.zeros([], jnp.int32)))[0]


# --- The Perceptron's compression set (SS10 L4 Corollaries 2-3) ---


def perceptron_compress(X: ArrayLike, y: ArrayLike, *, max_epochs: int = 1000) -> Array:
    r"""The examples the batch Perceptron updated on (``update_counts > 0``): at most :math:`1/\gamma(S)^2`
    of them on a separable sample in the unit ball (Corollary 2), and its weights are
    :math:`w = \sum_i c_i y_i x_i` over them.

    Examples:
      >>> from jaxlearn import theory
      >>> X, y = [[0.9, 0.1], [0.8, 0.3], [-0.7, -0.2], [0.6, -0.1]], [1, 1, -1, 1]
      >>> theory.perceptron_compress(X, y).tolist()
      [True, False, False, False]
    """
    X, y = _sample(X, y)
    params = linear.batch_perceptron(max_epochs).fit(jax.random.PRNGKey(0), X, y)
    return params.update_counts > 0


def perceptron_reconstruct(
    X: ArrayLike, y: ArrayLike, support: ArrayLike, *, max_epochs: int = 1000
) -> Array:
    """The Perceptron rerun on the kept examples only, in their order: the same updates in the same
    order, hence the same ``w`` (``support`` concrete: the kept examples are gathered)."""
    X, y = _sample(X, y)
    support = np.asarray(_mask(support, X.shape[0], "support"))
    if not support.any():
        return jnp.zeros(X.shape[1], X.dtype)
    return linear.batch_perceptron(max_epochs).fit(jax.random.PRNGKey(0), X[support], y[support]).w
