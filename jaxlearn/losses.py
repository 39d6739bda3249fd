"""Losses of one example, ``loss(w, x, y) -> scalar``, with the book's sub-gradient conventions.

Every loss is written so that ``jax.grad(loss)(w, x, y)`` returns the sub-gradient the source
documents use: at the hinge's kink the gradient is 0, the strict rule
``z_t = -y x 1[y <w, x> < 1]`` of COMP0078's OGD (one element of the sub-differential of SS10
Example 5). ``jnp.maximum`` would split the kink 50/50, which is why it is not used.
"""

from __future__ import annotations

from typing import Callable, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import (
    PLUS_MINUS_HINT,
    as_numeric,
    at_least,
    check_class_labels,
    check_finite,
    check_labels,
    check_ndim,
    check_range,
    is_concrete,
)
from jaxlearn._shared import float_dtype
from jaxlearn.core import loadable

__all__ = [
    "absolute",
    "check_cost_matrix",
    "entropic",
    "generalized_hinge",
    "hinge",
    "logistic",
    "ramp",
    "square",
    "squared",
    "zero_one",
    "zero_one_cost",
]

Array = jax.Array


def _array(name: str, value) -> Array:
    """``value`` as a numeric array, finite when concrete (a ``TypeError``/``ValueError`` naming it)."""
    value = as_numeric(name, value)
    check_finite(name, value)
    return value


def _floats(named: dict) -> list:
    """The arrays in one float dtype, the widest float among the arrays (Python numbers are weak:
    they take the others' dtype), else the default: bool/int values are promoted before arithmetic."""
    arrays = {name: _array(name, value) for name, value in named.items()}
    floats = [
        jnp.dtype(a.dtype)
        for name, a in arrays.items()
        if jnp.issubdtype(a.dtype, jnp.floating) and hasattr(named[name], "dtype")
    ]
    dtype = max(floats, key=lambda t: t.itemsize) if floats else jnp.result_type(float)
    return [a.astype(dtype) for a in arrays.values()]


def _example(w, x, y, labels: bool = True) -> tuple:
    """``w``, ``x`` of one shape (d,) and a scalar ``y``, as floats; labels in {-1, +1} if ``labels``."""
    w, x, y = _floats({"w": w, "x": x, "y": y})
    if w.shape != x.shape:
        raise ValueError(
            f"expected `w` and `x` of the same shape (d,), got {w.shape} and {x.shape}"
        )
    if y.ndim != 0:
        raise ValueError(
            f"expected a scalar label `y` (one example; vmap for batches), got {y.shape}"
        )
    if labels:
        check_labels("y", y, (-1, 1), PLUS_MINUS_HINT)
    return w, x, y


def _margin(w, x, y) -> Array:
    w, x, y = _example(w, x, y)
    return y * jnp.vdot(w, x)


def _residual(w, x, y) -> Array:
    w, x, y = _example(w, x, y, labels=False)
    return jnp.vdot(w, x) - y


@loadable
def zero_one(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Halfspace 0-1 loss :math:`1[y \langle w, x\rangle \le 0]` (SS10 section 10).

    A zero score counts as an error. Its gradient is zero everywhere (it is not a surrogate).
    ``w``, ``x``: shape (d,) (bool/int promoted to float); ``y`` in {-1, +1}, as for every
    classification loss here.
    """
    margin = _margin(w, x, y)
    return jnp.where(margin <= 0, 1.0, 0.0).astype(margin.dtype)


@loadable
def hinge(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Hinge loss :math:`\max\{0, 1 - y \langle w, x\rangle\}` (SS10 section 10; UML section 15.2).

    Sub-gradient: :math:`-y x` where :math:`y\langle w, x\rangle < 1`, else 0 (0 at the kink).
    """
    margin = _margin(w, x, y)
    return jnp.where(margin < 1, 1 - margin, jnp.zeros_like(margin))


@loadable
def ramp(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Ramp loss :math:`\min\{1, \max\{0, 1 - y \langle w, x\rangle\}\}` (UML section 15.2.3).

    The hinge loss capped at 1: it equals the 0-1 loss on mistakes (:math:`y\langle w, x\rangle \le 0`)
    and lies between the 0-1 loss and the hinge loss. Like the hinge (and unlike the 0-1 loss) it
    depends on the scale of :math:`w`; it is not convex, so minimising it is intractable in general.
    It is :math:`\|x\|`-Lipschitz in :math:`w`. Sub-gradient: :math:`-y x` where
    :math:`0 < y\langle w, x\rangle < 1`, else 0 (0 at both kinks).

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import losses
      >>> x = jnp.array([1.0, 1.0])
      >>> [float(losses.ramp(jnp.array([c, 0.0]), x, 1.0)) for c in (-2.0, 0.0, 0.25, 2.0)]
      [1.0, 1.0, 0.75, 0.0]
    """
    margin = _margin(w, x, y)
    inside = jnp.where(margin > 0, 1 - margin, jnp.ones_like(margin))
    return jnp.where(margin < 1, inside, jnp.zeros_like(margin))


@loadable
def logistic(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Logistic loss :math:`\log(1 + e^{-y\langle w, x\rangle})` (SS10 Example 4), computed stably.

    Gradient: :math:`-y x / (1 + e^{y\langle w, x\rangle})`.
    """
    margin = _margin(w, x, y)
    return jnp.logaddexp(jnp.zeros_like(margin), -margin)


@loadable
def squared(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Squared loss :math:`(\langle w, x\rangle - y)^2` (SS10 Example 3; no factor 1/2)."""
    return _residual(w, x, y) ** 2


@loadable
def absolute(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    r"""Absolute loss :math:`|\langle w, x\rangle - y|`.

    Sub-gradient :math:`\mathrm{sign}(\langle w, x\rangle - y)\, x` (0 at the kink).
    """
    return jnp.abs(_residual(w, x, y))


# Losses of a prediction in [0, 1] against an outcome in [0, 1] (prediction with expert advice).


def entropic(y: ArrayLike, y_hat: ArrayLike) -> Array:
    r"""Entropic (log) loss :math:`y \ln\frac{y}{\hat y} + (1-y)\ln\frac{1-y}{1-\hat y}` (COMP0078).

    The relative entropy of :math:`(y, 1-y)` to :math:`(\hat y, 1 - \hat y)`, with :math:`0 \ln 0 = 0`;
    ``inf`` when :math:`\hat y \in \{0, 1\}` contradicts :math:`y`.
    """
    y, y_hat = _outcomes(y, y_hat)
    xlogy = jax.scipy.special.xlogy
    return xlogy(y, y) - xlogy(y, y_hat) + xlogy(1 - y, 1 - y) - xlogy(1 - y, 1 - y_hat)


def square(y: ArrayLike, y_hat: ArrayLike) -> Array:
    r"""Square loss of a prediction :math:`(y - \hat y)^2` (COMP0078, the WA algorithm), on [0, 1]."""
    y, y_hat = _outcomes(y, y_hat)
    return (y - y_hat) ** 2


def _outcomes(y, y_hat) -> list:
    """``y`` and ``y_hat`` in [0, 1] (checked when concrete), of broadcastable shapes, as floats."""
    y, y_hat = _floats({"y": y, "y_hat": y_hat})
    try:
        np.broadcast_shapes(y.shape, y_hat.shape)
    except ValueError:
        raise ValueError(
            f"expected `y` and `y_hat` of broadcastable shapes, got {y.shape} and {y_hat.shape}"
        ) from None
    check_range("y", y, 0.0, 1.0)
    check_range("y_hat", y_hat, 0.0, 1.0)
    return y, y_hat


# Multiclass: cost matrices and the generalized hinge loss (UML section 17.2).


def zero_one_cost(num_classes: int, dtype=None) -> Array:
    r"""The zero-one cost matrix :math:`\Delta(y', y) = 1[y' \ne y]`, shape ``(k, k)`` (UML 17.2.2).

    ``num_classes``: an int >= 2; ``dtype``: a float dtype (default: the default float dtype).
    """
    k = _num_classes(num_classes)
    if dtype is None:
        dtype = jnp.result_type(float)
    else:
        try:
            dtype = jnp.dtype(dtype)
        except TypeError:
            raise TypeError(f"expected `dtype` a float dtype, got {dtype!r}") from None
        if not jnp.issubdtype(dtype, jnp.floating):
            raise ValueError(f"expected `dtype` a float dtype, got {dtype}")
    return 1 - jnp.eye(k, dtype=dtype)


def _num_classes(num_classes) -> int:
    if num_classes is None:
        raise TypeError("expected `num_classes` an integer in [2, inf), got None")
    at_least(2, integer=True).check("num_classes", num_classes)
    return int(num_classes)


def check_cost_matrix(delta, num_classes: int) -> None:
    r"""Raise ``ValueError`` unless ``delta`` is a ``(k, k)`` cost matrix: :math:`\Delta(y', y) \ge 0`,
    :math:`\Delta(y, y) = 0`, finite (the shape is checked on tracers too; the values when concrete)."""
    k = _num_classes(num_classes)
    delta = _array("delta", delta)
    shape = jnp.shape(delta)
    if shape != (k, k):
        raise ValueError(
            f"expected `delta` of shape ({k}, {k}) (num_classes x num_classes), got {shape}"
        )
    if not is_concrete(delta):
        return
    values = np.asarray(delta)
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
            raise ValueError(
                "expected `num_classes` when `delta` is None (the zero-one cost needs k)"
            )
        k = _num_classes(num_classes)
    else:
        delta = _array("delta", delta)
        k = jnp.shape(delta)[0] if jnp.ndim(delta) else 0
        if num_classes is not None and _num_classes(num_classes) != k:
            raise ValueError(
                f"expected `delta` of shape (k, k), k = `num_classes` = {num_classes}, got {delta.shape}"
            )
        check_cost_matrix(delta, max(k, 2))
    if not callable(psi):
        raise TypeError(
            f"expected `psi` a feature map psi(x, y') -> (d,), got {type(psi).__name__}"
        )
    w, y = _array("w", w), _array("y", y)
    check_ndim("w", w, 1, "(d,)")
    check_ndim("y", y, 0, "() (one label; vmap for batches)")
    check_class_labels("y", y, k)
    w = w.astype(float_dtype(w))
    labels = jnp.arange(k, dtype=jnp.int32)
    features = jax.vmap(lambda label: psi(x, label))(labels)  # (k, d)
    if jnp.shape(features) != (k, w.shape[0]):
        raise ValueError(
            f"expected `psi` to return features of the shape of `w`, {w.shape}, got {jnp.shape(features)[1:]}"
        )
    scores = features.astype(w.dtype) @ w
    y = y.astype(jnp.int32)
    costs = (
        zero_one_cost(k, scores.dtype)[:, y]
        if delta is None
        else jnp.asarray(delta, scores.dtype)[:, y]
    )
    terms = costs + scores - scores[y]
    # the y' = y term is 0; a tie with it keeps the zero sub-gradient (as the hinge's kink does)
    others = jnp.where(labels == y, -jnp.inf, terms)
    best = jnp.argmax(others)
    return jnp.where(others[best] > 0, terms[best], terms[y])
