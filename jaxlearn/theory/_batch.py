"""Bounds of batch learning (SS10 L6-L7(a); UML chapters 15 and 17-19): SGD, stability, SVMs,
multiclass, trees, k-NN."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import at_least
from jaxlearn.theory._common import _check

Array = jax.Array


# --- Convex learning, SGD and SVMs (SS10 L6-L7(a); UML chapter 15) ---


def sgd_convex_bound(
    U: ArrayLike, rho: ArrayLike, T: ArrayLike, eta: ArrayLike | None = None
) -> Array:
    r"""SS10 Theorem 5: SGD with :math:`\eta_t = \eta_1/\sqrt t`, averaged output, on a convex objective
    with :math:`E\|v_t\|^2 \le \rho^2` over a set of diameter :math:`U`:

    .. math:: E[f(\bar w)] - f(u) \le \frac{1}{\sqrt T}\Big(\frac{U^2}{2\eta_1} + \rho^2 \eta_1\Big),

    which is :math:`U\rho\sqrt{2/T}` at the default :math:`\eta_1 = U/(\rho\sqrt 2)`.
    """
    U, rho, T = _check(U=U, rho=rho, T=T)
    eta = U / (rho * jnp.sqrt(2.0)) if eta is None else _check(eta=eta)[0]
    return (U**2 / (2 * eta) + rho**2 * eta) / jnp.sqrt(T)


def sgd_strongly_convex_bound(rho: ArrayLike, lam: ArrayLike, T: ArrayLike) -> Array:
    r"""SS10 Lemma 7: SGD with :math:`\eta_t = 1/(\lambda t)` on a :math:`\lambda`-strongly convex
    objective, averaged output: :math:`E[f(\bar w)] - f(u) \le \frac{\rho^2}{2\lambda T}(1 + \ln T)`."""
    rho, lam, T = _check(rho=rho, lam=lam, T=T)
    return rho**2 / (2 * lam * T) * (1 + jnp.log(T))


def stability_bound(rho: ArrayLike, lam: ArrayLike, m: ArrayLike) -> Array:
    r"""SS10 Theorem 8: regularised loss minimisation :math:`\arg\min L_S(w) + \lambda\|w\|^2` with a
    convex :math:`\rho`-Lipschitz loss is :math:`2\rho^2/(\lambda m)`-replace-one stable."""
    rho, lam, m = _check(rho=rho, lam=lam, m=m)
    return 2 * rho**2 / (lam * m)


def soft_svm_bound(rho: ArrayLike, B: ArrayLike, m: ArrayLike) -> Array:
    r"""UML Corollary 15.7: with :math:`\lambda = \sqrt{2\rho^2/(B^2 m)}`, soft-SVM's expected 0-1 (and
    hinge) risk exceeds :math:`\min_{\|w\| \le B} L_D^{hinge}(w)` by at most :math:`\sqrt{8\rho^2B^2/m}`."""
    rho, B, m = _check(rho=rho, B=B, m=m)
    return jnp.sqrt(8 * rho**2 * B**2 / m)


def hard_svm_bound(rho: ArrayLike, gamma: ArrayLike, m: ArrayLike, delta: ArrayLike) -> Array:
    r"""UML Theorem 15.4: for a :math:`(\gamma, \rho)`-separable distribution, with probability
    :math:`1 - \delta` the 0-1 error of hard-SVM is at most
    :math:`\sqrt{4(\rho/\gamma)^2/m} + \sqrt{2\ln(2/\delta)/m}`."""
    rho, gamma, m, delta = _check(rho=rho, gamma=gamma, m=m, delta=delta)
    return jnp.sqrt(4 * (rho / gamma) ** 2 / m) + jnp.sqrt(2 * jnp.log(2 / delta) / m)


# --- Multiclass (UML sections 17.2.5 and 17.8) ---


def multiclass_perceptron_bound(R: ArrayLike, w_norm: ArrayLike) -> Array:
    r"""UML Theorem 17.5: if :math:`\langle w^*, \Psi(x_i, y_i) - \Psi(x_i, y)\rangle \ge 1` for all
    :math:`i, y \ne y_i` and :math:`R = \max_{i, y}\|\Psi(x_i, y_i) - \Psi(x_i, y)\|`, the multiclass
    batch Perceptron stops after at most :math:`(R\|w^*\|)^2` updates."""
    R, w_norm = _check(R=R, w_norm=w_norm)
    return (R * w_norm) ** 2


def multiclass_svm_bound(rho: ArrayLike, B: ArrayLike, m: ArrayLike) -> Array:
    r"""UML Corollary 17.1: with :math:`\|\Psi(x, y)\| \le \rho/2` and
    :math:`\lambda = \sqrt{2\rho^2/(B^2m)}` (the book's :math:`\lambda\|w\|^2`), the multiclass SVM's
    expected :math:`\Delta`-risk exceeds :math:`\min_{\|u\| \le B} L_D^{g-hinge}(u)` by at most
    :math:`\sqrt{8\rho^2B^2/m}`."""
    rho, B, m = _check(rho=rho, B=B, m=m)
    return jnp.sqrt(8 * rho**2 * B**2 / m)


def multiclass_sgd_steps(rho: ArrayLike, B: ArrayLike, epsilon: ArrayLike) -> Array:
    r"""UML Corollary 17.2: SGD for multiclass learning with :math:`T \ge B^2\rho^2/\epsilon^2` steps and
    :math:`\eta = \sqrt{B^2/(\rho^2 T)}` is within :math:`\epsilon > 0` of :math:`\min_{\|u\| \le B}
    L_D^{g-hinge}(u)` in expectation; this returns that :math:`T` (a float: round up)."""
    rho, B, epsilon = _check(rho=rho, B=B, epsilon=epsilon)
    return (B * rho / epsilon) ** 2


# --- Decision trees and nearest neighbours (UML chapters 18-19) ---


def tree_mdl_bound(
    n_nodes: ArrayLike, d: ArrayLike, m: ArrayLike, delta: ArrayLike, train_error: ArrayLike = 0.0
) -> Array:
    r"""UML (18.1): with probability :math:`1 - \delta` over :math:`S \sim D^m`, every decision tree
    :math:`h` with :math:`n` nodes over :math:`d` binary features has

    .. math:: L_D(h) \le L_S(h) + \sqrt{\frac{(n + 1)\log_2(d + 3) + \ln(2/\delta)}{2m}}

    (the MDL bound of Theorem 7.7 with the tree's prefix-free code of :math:`(n + 1)\log_2(d + 3)`
    bits). Returns the right-hand side with :math:`L_S(h) =` ``train_error`` in [0, 1] (default 0: the
    complexity term alone, the ``bound`` that :func:`jaxlearn.trees.prune` adds to :math:`L_S`)."""
    n_nodes, d, m, delta, train_error = _check(
        n_nodes=n_nodes, d=d, m=m, delta=delta, train_error=train_error
    )
    bits = (n_nodes + 1) * jnp.log2(d + 3)
    return train_error + jnp.sqrt((bits + jnp.log(2 / delta)) / (2 * m))


def one_nn_bound(bayes_error: ArrayLike, c: ArrayLike, d: ArrayLike, m: ArrayLike) -> Array:
    r"""UML Theorem 19.3: on :math:`[0,1]^d \times \{0,1\}` with a :math:`c`-Lipschitz
    :math:`\eta(x) = P[y = 1 | x]`, the 1-NN rule has
    :math:`E_{S \sim D^m}[L_D(h_S)] \le 2 L_D(h^\star) + 4c\sqrt d\, m^{-1/(d+1)}`."""
    bayes_error, c, d, m = _check(bayes_error=bayes_error, c=c, d=d, m=m)
    return 2 * bayes_error + 4 * c * jnp.sqrt(d) * m ** (-1 / (d + 1))


def knn_bound(
    bayes_error: ArrayLike, c: ArrayLike, d: ArrayLike, m: ArrayLike, k: ArrayLike
) -> Array:
    r"""UML Theorem 19.5 (stated for :math:`k \ge 10`): under the assumptions of
    :func:`one_nn_bound`, the k-NN rule has
    :math:`E_S[L_D(h_S)] \le (1 + \sqrt{8/k})\, L_D(h^\star) + (6c\sqrt d + k)\, m^{-1/(d+1)}`."""
    bayes_error, c, d, m, k = _check(
        {"k": at_least(10, integer=True)}, bayes_error=bayes_error, c=c, d=d, m=m, k=k
    )
    return (1 + jnp.sqrt(8 / k)) * bayes_error + (6 * c * jnp.sqrt(d) + k) * m ** (-1 / (d + 1))
