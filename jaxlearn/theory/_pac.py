"""epsilon-nets and PAC learning (SS10 L8 section 21): the sample size of Theorems 12-13, and
the worked example of intervals on [0, 1] (their ERM and the gap test for an epsilon-net)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn import core
from jaxlearn._checks import (
    ZERO_ONE_HINT,
    as_array,
    as_labels,
    as_numeric,
    check_finite,
    check_labels,
    check_ndim,
    check_range,
)
from jaxlearn._shared import float_dtype
from jaxlearn.theory._common import _check

Array = jax.Array


def epsilon_net_sample_size(d: ArrayLike, epsilon: ArrayLike, delta: ArrayLike) -> Array:
    r"""SS10 Theorem 12: for :math:`\mathrm{VCdim}(H) = d`, :math:`\epsilon \in (0, 1)` and
    :math:`\delta \in (0, 1/4)`, a sample :math:`S \sim D^m` of size

    .. math:: m \ge \frac{8}{\epsilon}\Big(2d \log\frac{16e}{\epsilon} + \log\frac{2}{\delta}\Big)

    is an :math:`\epsilon`-net for :math:`H` (every :math:`h \in H` with :math:`D(h) \ge \epsilon` meets
    :math:`S`) with probability at least :math:`1 - \delta`. The same :math:`m` is the sample size of
    Theorem 13: in the realizable case every ERM hypothesis then has error :math:`\le \epsilon` with
    probability :math:`1 - \delta` (the net is taken for :math:`\{c \,\Delta\, h : h \in H\}`, of the same
    VC dimension). Natural logarithms. Returns the smallest such integer :math:`m`, as a float.

    Args:
      d: the VC dimension, an integer :math:`\ge 0`.
      epsilon: the accuracy, in (0, 1).
      delta: the confidence, in (0, 1/4) as the theorem assumes.

    Examples:
      >>> from jaxlearn import theory
      >>> float(theory.epsilon_net_sample_size(2, 0.1, 0.1))  # closed intervals on the line
      2184.0

    References:
      SS10 L8 section 21, Theorems 12-13.
    """
    d, epsilon, delta = _check(
        {"d": core.NON_NEGATIVE_INT, "epsilon": core.OPEN_UNIT, "delta": core.Interval(0.0, 0.25)},
        d=d,
        epsilon=epsilon,
        delta=delta,
    )
    return jnp.ceil(8 / epsilon * (2 * d * jnp.log(16 * jnp.e / epsilon) + jnp.log(2 / delta)))


def _sample(x, y=None):
    """``x`` (m,) finite numbers, m >= 1, as floats; ``y`` (m,) in {0, 1} as bools when given."""
    x = as_numeric("x", as_array(x))
    check_ndim("x", x, 1, "(m,) (one number per point)")
    if x.shape[0] == 0:
        raise ValueError("expected `x` of shape (m,) with m >= 1, got (0,)")
    check_finite("x", x)
    x = x.astype(float_dtype(x))
    if y is None:
        return x
    y = as_numeric("y", as_labels(y))
    check_ndim("y", y, 1, "(m,)")
    if y.shape != x.shape:
        raise ValueError(
            f"expected `x` and `y` of the same length, got {x.shape[0]} and {y.shape[0]}"
        )
    check_labels("y", y, (0, 1), ZERO_ONE_HINT)
    return x, y.astype(bool)


def interval_erm(x: ArrayLike, y: ArrayLike) -> Array:
    r"""The tightest closed interval containing the positive points: :math:`[a, b]` with
    :math:`a = \min\{x_i : y_i = 1\}`, :math:`b = \max\{x_i : y_i = 1\}`.

    When the labels come from a closed interval (the realizable case) it has no training error, so it
    is an ERM hypothesis of the class of intervals, so a learner of Theorem 13;
    its error under :math:`D` is :math:`D(h \,\Delta\, c)`, which under the uniform distribution on
    [0, 1] is the length of the target minus the length of :math:`[a, b]`. With no positive point it
    is the empty interval, returned as :math:`[+\infty, -\infty]` (so :math:`a \le x \le b` holds for
    no :math:`x`). Jittable; ``jax.vmap`` it over samples.

    Args:
      x: the points, shape (m,), m >= 1, finite.
      y: their labels in {0, 1} (bools too), shape (m,).

    Returns:
      ``[a, b]``, shape (2,), in ``x``'s float dtype.

    Examples:
      >>> from jaxlearn import theory
      >>> theory.interval_erm([0.1, 0.4, 0.5, 0.7, 0.9], [0, 1, 1, 0, 0]).tolist()
      [0.4000000059604645, 0.5]
      >>> theory.interval_erm([0.1, 0.9], [0, 0]).tolist()
      [inf, -inf]

    References:
      SS10 L8 section 21, Theorem 13.
    """
    x, y = _sample(x, y)
    inf = jnp.asarray(jnp.inf, x.dtype)
    return jnp.stack([jnp.min(jnp.where(y, x, inf)), jnp.max(jnp.where(y, x, -inf))])


def is_interval_epsilon_net(x: ArrayLike, epsilon: ArrayLike) -> Array:
    r"""Whether the points ``x`` in [0, 1] form an :math:`\epsilon`-net for closed intervals under the
    uniform distribution on [0, 1] (SS10 Definition 3).

    An interval of length :math:`\ge \epsilon` misses :math:`S` only inside a gap of :math:`S`, so
    :math:`S` is an :math:`\epsilon`-net iff no gap exceeds :math:`\epsilon`: with the
    points sorted, :math:`x_{(1)} - 0`, :math:`x_{(i+1)} - x_{(i)}` and :math:`1 - x_{(m)}` are all
    :math:`\le \epsilon`. Sorts once: :math:`O(m \log m)`; jittable, vmappable over samples.

    Args:
      x: the sample, shape (m,), m >= 1, values in [0, 1].
      epsilon: a number :math:`> 0` (an array broadcasts: one answer per value).

    Returns:
      A bool array of ``epsilon``'s shape.

    Examples:
      >>> from jaxlearn import theory
      >>> theory.is_interval_epsilon_net([0.1, 0.3, 0.5, 0.7, 0.9], [0.15, 0.25]).tolist()
      [False, True]

    References:
      SS10 L8 sections 20-21, Definition 3 and Theorem 12.
    """
    x = _sample(x)
    check_range("x", x, 0.0, 1.0)
    (epsilon,) = _check(epsilon=epsilon)
    edges = jnp.concatenate([jnp.zeros(1, x.dtype), jnp.sort(x), jnp.ones(1, x.dtype)])
    return jnp.max(jnp.diff(edges)) <= epsilon.astype(x.dtype)
