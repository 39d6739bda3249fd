"""Compression bounds (SS10 L3(c); L4 Corollaries 2-3 and Theorem 4): a hypothesis rebuilt from ``k``
of the ``m`` examples.

All logarithms are natural, as in SS10. A bound above 1 is vacuous but true; it happens
when the compression set is too large for the sample (``k`` near ``m / 2``; SS10 L4 footnote 1).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn import core
from jaxlearn.theory._common import _check, _require

Array = jax.Array


_SIZE = {
    "k": core.NON_NEGATIVE_INT
}  # k = 0: an empty compression set (a rectangle with no positives)


def holdout_bound(holdout_error: ArrayLike, n: ArrayLike, delta: ArrayLike) -> Array:
    r"""SS10 L3(c) Lemma 1: a hypothesis :math:`h` chosen before seeing a hold-out set :math:`V` of
    :math:`n` fresh examples has, with probability at least :math:`1 - \delta`,

    .. math:: L_D(h) \le L_V(h) + \sqrt{2 L_V(h)\ln(1/\delta)/n} + 4\ln(1/\delta)/n

    (Bernstein's inequality; the seed's :math:`L_V(h)` inside the root is read :math:`L_V(h_T)`).

    Examples:
      >>> from jaxlearn import theory
      >>> round(float(theory.holdout_bound(0.0, 400, 0.05)), 4)  # 4 ln(20) / 400
      0.03
    """
    (L_V,) = _check(holdout_error=holdout_error)
    n, delta = _check(n=n, delta=delta)
    log = jnp.log(1 / delta)
    return L_V + jnp.sqrt(2 * L_V * log / n) + 4 * log / n


def compression_bound(
    k: ArrayLike, m: ArrayLike, delta: ArrayLike, holdout_error: ArrayLike = 0.0
) -> Array:
    r"""SS10 L3(c) Theorem 1: if :math:`A(S)` is rebuilt from :math:`k` of the :math:`m \ge 2k`
    examples and :math:`L_V` is its error on the :math:`m - k` others, with probability :math:`1 - \delta`

    .. math:: L_D(A(S)) \le L_V + \sqrt{L_V \cdot 4k\ln(m/\delta)/m} + 8k\ln(m/\delta)/m.

    ``holdout_error = 0`` is Corollary 1, :math:`8k\ln(m/\delta)/m`. Concrete ``m < 2k`` is refused
    (the proof needs :math:`m - k \ge m/2`); near ``m = 2k`` the bound exceeds 1 (vacuous, still true).

    Examples:
      >>> from jaxlearn import theory
      >>> round(float(theory.compression_bound(4, 10_000, 0.01)), 4)  # Corollary 1: 32 ln(1e6) / 1e4
      0.0442
    """
    (k,) = _check(_SIZE, k=k)
    m, delta = _check(m=m, delta=delta)
    (L_V,) = _check(holdout_error=holdout_error)
    _require(m >= 2 * k, f"expected `m` >= 2 `k` (SS10 Theorem 1), got m={m} and k={k}")
    rate = k * jnp.log(m / delta) / m
    return L_V + jnp.sqrt(4 * L_V * rate) + 8 * rate


def compression_train_bound(
    k: ArrayLike, m: ArrayLike, delta: ArrayLike, train_error: ArrayLike
) -> Array:
    r"""SS10 L3(c) Theorem 2: the same with the training error :math:`L_S(A(S))` in place of the
    hold-out error, for :math:`m/\delta \ge 42`:

    .. math:: L_D(A(S)) \le L_S + \sqrt{L_S \cdot 4k\ln(m/\delta)/m} + 10k\ln(m/\delta)/m.

    Examples:
      >>> from jaxlearn import theory
      >>> round(float(theory.compression_train_bound(4, 10_000, 0.01, 0.0)), 4)  # 40 ln(1e6) / 1e4
      0.0553
    """
    (k,) = _check(_SIZE, k=k)
    m, delta = _check(m=m, delta=delta)
    (L_S,) = _check(train_error=train_error)
    _require(m >= 2 * k, f"expected `m` >= 2 `k` (SS10 Theorem 2), got m={m} and k={k}")
    _require(
        m / delta >= 42, f"expected `m` / `delta` >= 42 (SS10 Theorem 2), got m={m}, delta={delta}"
    )
    rate = k * jnp.log(m / delta) / m
    return L_S + jnp.sqrt(4 * L_S * rate) + 10 * rate


def perceptron_compression_bound(gamma: ArrayLike, m: ArrayLike, delta: ArrayLike) -> Array:
    r"""SS10 L4 Corollary 3: if some unit :math:`w^*` has :math:`y\langle w^*, x\rangle \ge \gamma`
    almost surely (:math:`\|x\| \le 1`), the batch Perceptron on :math:`m \ge 2/\gamma^2` examples
    has, with probability :math:`1 - \delta`, error at most :math:`8\ln(m/\delta)/(\gamma^2 m)`
    (Corollary 1 with the :math:`k \le 1/\gamma^2` updated examples).

    Examples:
      >>> from jaxlearn import theory
      >>> round(float(theory.perceptron_compression_bound(0.5, 10_000, 0.01)), 4)
      0.0442
    """
    gamma, m, delta = _check(
        {"gamma": core.Interval(0.0, 1.0, hi_closed=True)}, gamma=gamma, m=m, delta=delta
    )
    _require(
        m * gamma**2 >= 2,
        f"expected `m` >= 2 / `gamma`^2 (SS10 Corollary 3), got m={m}, gamma={gamma}",
    )
    return 8 * jnp.log(m / delta) / (gamma**2 * m)


def inefficient_perceptron_bound(
    margin_error: ArrayLike, gamma: ArrayLike, m: ArrayLike, delta: ArrayLike
) -> Array:
    r"""SS10 L4 Theorem 4: the inefficient Perceptron
    (:func:`jaxlearn.linear.inefficient_perceptron`) has, with probability :math:`1 - \delta`,

    .. math::
        L_D(w) \le M_\gamma + \sqrt{M_\gamma \cdot 4\ln(m/\delta)/(\gamma^2 m)} + 8\ln(m/\delta)/(\gamma^2 m),

    :math:`M_\gamma = \min_{\|w^*\| = 1} |\{i : y_i\langle w^*, x_i\rangle < \gamma\}|/m` (``margin_error``).

    Examples:
      >>> from jaxlearn import theory
      >>> round(float(theory.inefficient_perceptron_bound(0.0, 0.5, 10_000, 0.01)), 4)  # Corollary 3
      0.0442
    """
    (M,) = _check(margin_error=margin_error)
    gamma, m, delta = _check(
        {"gamma": core.Interval(0.0, 1.0, hi_closed=True)}, gamma=gamma, m=m, delta=delta
    )
    rate = jnp.log(m / delta) / (gamma**2 * m)
    return M + jnp.sqrt(4 * M * rate) + 8 * rate


def rectangle_compression_bound(d: ArrayLike, m: ArrayLike, delta: ArrayLike) -> Array:
    r"""SS10 L3(c) section 1.1: axis-aligned rectangles in :math:`\mathbb R^d`, compressed to the
    :math:`k = 2d` extreme positive examples, realizable case: with probability :math:`1 - \delta`,
    :math:`L_D \le 16 d\ln(m/\delta)/m` (Corollary 1; concrete ``m < 4d`` is refused).

    Examples:
      >>> from jaxlearn import theory
      >>> round(float(theory.rectangle_compression_bound(2, 10_000, 0.01)), 4)
      0.0442
    """
    d, m, delta = _check(d=d, m=m, delta=delta)
    _require(m >= 4 * d, f"expected `m` >= 4 `d` (m >= 2k with k = 2d), got m={m} and d={d}")
    return 16 * d * jnp.log(m / delta) / m
