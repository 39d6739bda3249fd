"""Losses of one example, ``loss(w, x, y) -> scalar``, with the book's sub-gradient conventions.

Every loss is written so that ``jax.grad(loss)(w, x, y)`` returns the sub-gradient the source
documents use (SPEC section 6): at the hinge's kink the gradient is 0, the strict rule
``z_t = -y x 1[y <w, x> < 1]`` of COMP0078's OGD (one element of the sub-differential of SS10
Example 5). ``jnp.maximum`` would split the kink 50/50, which is why it is not used.
"""

from __future__ import annotations

from typing import Callable, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn.core import is_concrete

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


# Multiclass: cost matrices and the generalized hinge loss (UML section 17.2; SPEC 11.4).


def zero_one_cost(num_classes: int, dtype=None) -> Array:
    r"""The zero-one cost matrix :math:`\Delta(y', y) = 1[y' \ne y]`, shape ``(k, k)`` (UML 17.2.2)."""
    dtype = jnp.result_type(float) if dtype is None else dtype
    return 1 - jnp.eye(int(num_classes), dtype=dtype)


def check_cost_matrix(delta, num_classes: int) -> None:
    r"""Raise ``ValueError`` unless ``delta`` is a ``(k, k)`` cost matrix: :math:`\Delta(y', y) \ge 0`,
    :math:`\Delta(y, y) = 0`, finite (the shape is checked on tracers too; the values when concrete)."""
    k = int(num_classes)
    shape = jnp.shape(delta)
    if shape != (k, k):
        raise ValueError(f"expected `delta` of shape ({k}, {k}) (num_classes x num_classes), got {shape}")
    if not is_concrete(delta):
        return
    values = np.asarray(delta)
    if not np.isfinite(values).all():
        raise ValueError("expected `delta` to be finite, found NaN or inf values")
    diagonal = np.diag(values)
    if np.any(diagonal != 0):
        raise ValueError(
            f"expected `delta` with a zero diagonal (Delta(y, y) = 0), found {diagonal.tolist()}"
        )
    if np.any(values < 0):
        raise ValueError(f"expected `delta` >= 0 (a cost), found a minimum of {values.min():g}")


def generalized_hinge(
    w: ArrayLike,
    psi: Callable,
    x: ArrayLike,
    y: ArrayLike,
    delta: Optional[ArrayLike] = None,
    *,
    num_classes: Optional[int] = None,
) -> Array:
    r"""The generalized hinge loss of a linear multiclass predictor (UML (17.3), section 17.2.4).

    .. math::
        \ell(w, (x, y)) = \max_{y' \in [k]}
        \big(\Delta(y', y) + \langle w, \Psi(x, y') - \Psi(x, y)\rangle\big)

    The maximum runs over every :math:`y'`, :math:`y` included (its term is 0, so :math:`\ell \ge 0`).
    It upper-bounds the cost of :math:`h_w(x) = \arg\max_{y'}\langle w, \Psi(x, y')\rangle`,
    :math:`\ell \ge \Delta(h_w(x), y)`, is convex in :math:`w` and :math:`\rho`-Lipschitz with
    :math:`\rho = \max_{y'}\|\Psi(x, y') - \Psi(x, y)\|` (Remark 17.2). With :math:`k = 2`,
    :math:`\Psi(x, y) = yx/2` (:math:`y = \pm1`) and the zero-one cost it is the hinge loss
    :math:`\max\{0, 1 - y\langle w, x\rangle\}`.

    ``jax.grad`` returns :math:`\Psi(x, \hat y) - \Psi(x, y)` with :math:`\hat y` the loss-augmented
    argmax; on a tie with the :math:`y' = y` term the gradient is 0 (the convention of :func:`hinge`).

    Args:
      w: the weights, shape ``(d,)``.
      psi: the class-sensitive feature map ``psi(x, y') -> (d,)`` (e.g.
        ``lambda x, y: jaxlearn.multiclass.multivector(x, y, k)``).
      x: one example (whatever ``psi`` takes).
      y: its label in ``0..k-1``.
      delta: the cost matrix, ``delta[y', y]`` = :math:`\Delta(y', y)`, shape ``(k, k)``; ``None``: zero-one
        (then ``num_classes`` gives ``k``).
      num_classes: ``k`` when ``delta`` is ``None``.
    """
    if delta is None:
        if num_classes is None:
            raise ValueError("expected `num_classes` when `delta` is None (the zero-one cost needs k)")
        k = int(num_classes)
    else:
        k = jnp.shape(delta)[0]
        check_cost_matrix(delta, k)
    w = jnp.asarray(w)
    labels = jnp.arange(k, dtype=jnp.int32)
    features = jax.vmap(lambda label: psi(x, label))(labels)  # (k, d)
    scores = features.astype(w.dtype) @ w
    y = jnp.asarray(y).astype(jnp.int32)
    costs = zero_one_cost(k, scores.dtype)[:, y] if delta is None else jnp.asarray(delta, scores.dtype)[:, y]
    terms = costs + scores - scores[y]
    # the y' = y term is 0; a tie with it keeps the zero sub-gradient (as the hinge's kink does)
    others = jnp.where(labels == y, -jnp.inf, terms)
    best = jnp.argmax(others)
    return jnp.where(others[best] > 0, terms[best], terms[y])
