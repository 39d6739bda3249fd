"""Stability and regularisation (SS10 L7(a) sections 14-15): the figures of Theorems 7-9 beside
:func:`jaxlearn.theory.stability_bound` (Theorem 8's rate, which is also the :math:`\\epsilon` of
Theorem 6).

RLM is :math:`A(S) = \\arg\\min_w L_S(w) + \\lambda\\|w\\|^2` (SS10's normalisation: the objective is
:math:`2\\lambda`-strongly convex; UML's soft-SVM SGD writes :math:`\\frac{\\lambda}{2}\\|w\\|^2`, so
``linear.soft_svm(2 * lam, T)`` is this rule). The loss is convex and :math:`\\rho`-Lipschitz in
:math:`w` (hinge or logistic: :math:`\\rho = \\max\\|x\\|`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn import core
from jaxlearn.theory._common import _check

Array = jax.Array

_ANY_NORM = {"w_norm": core.NON_NEGATIVE}  # w* = 0 is a comparator of Theorem 9


def rlm_distance_bound(rho: ArrayLike, lam: ArrayLike, m: ArrayLike) -> Array:
    r"""SS10 proof of Theorem 8: replacing one of the :math:`m` examples moves the RLM minimiser by

    .. math:: \|A(S) - A(S^{(i)})\| \le \frac{2\rho}{\lambda m}

    (strong convexity of :math:`L_S(v) + \lambda\|v\|^2` against the two Lipschitz terms; times
    :math:`\rho` it is :func:`stability_bound`).

    Examples:
      >>> from jaxlearn import theory
      >>> round(float(theory.rlm_distance_bound(1.0, 0.1, 100)), 4)  # 2 / (0.1 * 100)
      0.2
    """
    rho, lam, m = _check(rho=rho, lam=lam, m=m)
    return 2 * rho / (lam * m)


def stable_erm_bound(stability: ArrayLike, erm_error: ArrayLike) -> Array:
    r"""SS10 Theorem 7: a rule that is :math:`\epsilon_1`-replace-one stable (``stability``) and
    :math:`\epsilon_2`-approximately ERM against :math:`h^*` (``erm_error``: :math:`L_S(h_S) \le
    L_S(h^*) + \epsilon_2` on every :math:`S`) has

    .. math:: E_{S \sim D^m}[L_D(h_S)] - L_D(h^*) \le \epsilon_1 + \epsilon_2.

    Examples:
      >>> from jaxlearn import theory
      >>> float(theory.stable_erm_bound(0.25, 0.5))
      0.75
    """
    stability, erm_error = _check(stability=stability, erm_error=erm_error)
    return stability + erm_error


def rlm_oracle_bound(rho: ArrayLike, lam: ArrayLike, m: ArrayLike, w_norm: ArrayLike) -> Array:
    r"""SS10 Theorem 9: RLM with a convex :math:`\rho`-Lipschitz loss has, for every :math:`w^*` with
    :math:`\|w^*\| =` ``w_norm``,

    .. math:: E_S[L_D(A(S))] - L_D(w^*) \le \frac{2\rho^2}{\lambda m} + \lambda\|w^*\|^2

    (Theorem 7 with :math:`\epsilon_1` = Theorem 8's rate and :math:`\epsilon_2 = \lambda\|w^*\|^2`).
    At :func:`rlm_tuned_lam` it is :math:`\sqrt{8\rho^2\|w^*\|^2/m}`, UML Corollary 15.7's figure.

    Examples:
      >>> from jaxlearn import theory
      >>> round(float(theory.rlm_oracle_bound(1.0, 0.2, 50, 1.0)), 4)  # 2 / (0.2 * 50) + 0.2
      0.4
    """
    rho, lam, m = _check(rho=rho, lam=lam, m=m)
    (w_norm,) = _check(_ANY_NORM, w_norm=w_norm)
    return 2 * rho**2 / (lam * m) + lam * w_norm**2


def rlm_tuned_lam(rho: ArrayLike, w_norm: ArrayLike, m: ArrayLike) -> Array:
    r"""The :math:`\lambda` that minimises :func:`rlm_oracle_bound`:
    :math:`\lambda = \sqrt{2\rho^2/(\|w^*\|^2 m)}`.

    Examples:
      >>> from jaxlearn import theory
      >>> round(float(theory.rlm_tuned_lam(1.0, 1.0, 50)), 4)  # sqrt(2 / 50)
      0.2
    """
    rho, w_norm, m = _check(rho=rho, w_norm=w_norm, m=m)
    return jnp.sqrt(2 * rho**2 / (w_norm**2 * m))
