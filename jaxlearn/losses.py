"""Losses of one example, ``loss(w, x, y) -> scalar``, with the book's sub-gradient conventions.

Every loss is written so that ``jax.grad(loss)(w, x, y)`` returns the sub-gradient the source
documents use (SPEC section 6): at the hinge's kink the gradient is 0, the strict rule
``z_t = -y x 1[y <w, x> < 1]`` of COMP0078's OGD (one element of the sub-differential of SS10
Example 5). ``jnp.maximum`` would split the kink 50/50, which is why it is not used.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

Array = jax.Array


def _score(w: ArrayLike, x: ArrayLike) -> Array:
    return jnp.vdot(jnp.asarray(w), jnp.asarray(x))


def zero_one(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Halfspace 0-1 loss :math:`1[y \langle w, x\rangle \le 0]` (SS10 section 10).

    A zero score counts as an error. Its gradient is zero everywhere (it is not a surrogate).
    """
    margin = y * _score(w, x)
    return jnp.where(margin <= 0, 1.0, 0.0).astype(margin.dtype)


def hinge(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Hinge loss :math:`\max\{0, 1 - y \langle w, x\rangle\}` (SS10 section 10; UML section 15.2).

    Sub-gradient: :math:`-y x` where :math:`y\langle w, x\rangle < 1`, else 0 (0 at the kink).
    """
    margin = y * _score(w, x)
    return jnp.where(margin < 1, 1 - margin, jnp.zeros_like(margin))


def logistic(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Logistic loss :math:`\log(1 + e^{-y\langle w, x\rangle})` (SS10 Example 4), computed stably.

    Gradient: :math:`-y x / (1 + e^{y\langle w, x\rangle})`.
    """
    margin = y * _score(w, x)
    return jnp.logaddexp(jnp.zeros_like(margin), -margin)


def squared(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Squared loss :math:`(\langle w, x\rangle - y)^2` (SS10 Example 3; no factor 1/2)."""
    return (_score(w, x) - y) ** 2


def absolute(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Absolute loss :math:`|\langle w, x\rangle - y|`.

    Sub-gradient :math:`\mathrm{sign}(\langle w, x\rangle - y)\, x` (0 at the kink).
    """
    return jnp.abs(_score(w, x) - y)


# Losses of a prediction in [0, 1] against an outcome in [0, 1] (prediction with expert advice).


def entropic(y: ArrayLike, y_hat: ArrayLike) -> Array:
    r"""Entropic (log) loss :math:`y \ln\frac{y}{\hat y} + (1-y)\ln\frac{1-y}{1-\hat y}` (COMP0078).

    The relative entropy of :math:`(y, 1-y)` to :math:`(\hat y, 1 - \hat y)`, with :math:`0 \ln 0 = 0`;
    ``inf`` when :math:`\hat y \in \{0, 1\}` contradicts :math:`y`.
    """
    y, y_hat = jnp.asarray(y), jnp.asarray(y_hat)
    xlogy = jax.scipy.special.xlogy
    return xlogy(y, y) - xlogy(y, y_hat) + xlogy(1 - y, 1 - y) - xlogy(1 - y, 1 - y_hat)


def square(y: ArrayLike, y_hat: ArrayLike) -> Array:
    r"""Square loss of a prediction :math:`(y - \hat y)^2` (COMP0078, the WA algorithm)."""
    return (jnp.asarray(y) - jnp.asarray(y_hat)) ** 2
