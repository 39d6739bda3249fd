"""The checkable bounds of the source documents, as functions of their parameters.

Every function is plain ``jnp`` arithmetic, so bounds can be evaluated on traced values and
vmapped alongside the learners they bound. Section numbers refer to ``SPEC.md`` and the sources.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

Array = jax.Array


def radius(X: ArrayLike) -> Array:
    r""":math:`R = \max_t \|x_t\|`, the radius of the data in the Perceptron bounds."""
    return jnp.max(jnp.linalg.norm(jnp.asarray(X), axis=-1))


def halfspace_margin(w: ArrayLike, X: ArrayLike, y: ArrayLike, *, normalize: bool = False) -> Array:
    r"""The margin of a halfspace on a sample, :math:`\min_i y_i \langle w, x_i\rangle / \|w\|`.

    With ``normalize=True`` each :math:`x_i` is scaled to unit length first (Balcan's
    :math:`\gamma = \min_x |w^* \cdot x| / \|x\|`). Negative when ``w`` does not separate the sample.
    """
    X, w = jnp.asarray(X), jnp.asarray(w)
    scores = y * (X @ w) / jnp.linalg.norm(w)
    if normalize:
        scores = scores / jnp.linalg.norm(X, axis=-1)
    return jnp.min(scores)


def margin(X: ArrayLike, y: ArrayLike) -> Array:
    r"""The margin of a sample, :math:`\gamma(S) = \max_{\|w\| = 1} \min_i y_i\langle w, x_i\rangle`
    (SS10 L4 section 2), computed through hard-SVM: :math:`\gamma(S) = 1/\|w_0\|` (UML Lemma 15.2).

    Raises ``ValueError`` on a concrete sample that is not separable (see
    :func:`jaxlearn.linear.sample_margin`).
    """
    from jaxlearn.linear import sample_margin  # the SVM solver lives with the batch learners

    return sample_margin(X, y)


def total_deviation(w: ArrayLike, X: ArrayLike, y: ArrayLike, margin: ArrayLike) -> Array:
    r"""Balcan's :math:`TD_\gamma = \sum_t \max\{0, \gamma - y_t\, w\cdot x_t\}` for unit-length :math:`x_t`.

    The total distance the (normalised) points must move to be separated by the unit vector
    ``w / ||w||`` with margin ``margin`` (SPEC 4.1, derived reading).
    """
    X, w = jnp.asarray(X), jnp.asarray(w)
    Xn = X / jnp.linalg.norm(X, axis=-1, keepdims=True)
    return jnp.sum(jnp.maximum(0.0, margin - y * (Xn @ (w / jnp.linalg.norm(w)))))


def perceptron_mistake_bound(radius: ArrayLike, margin: ArrayLike) -> Array:
    r"""Novikoff: the Perceptron makes at most :math:`(R/\gamma)^2` mistakes (COMP0078; SPEC 4.2).

    Holds when some unit :math:`v` has :math:`y_t\langle v, x_t\rangle \ge \gamma` and
    :math:`\|x_t\| \le R` for all t. For unit-length inputs (Balcan Theorem 1) use ``radius=1``.
    """
    return (jnp.asarray(radius) / jnp.asarray(margin)) ** 2


def perceptron_nonseparable_bound(margin: ArrayLike, total_deviation: ArrayLike) -> Array:
    r"""Balcan Theorem 1, non-separable: :math:`M \le 1/\gamma^2 + (2/\gamma)\, TD_\gamma` (SPEC 4.1).

    For the normalised Perceptron and *every* unit :math:`w^*` and :math:`\gamma > 0`, with
    :math:`TD_\gamma` from :func:`total_deviation`.
    """
    margin = jnp.asarray(margin)
    return 1.0 / margin**2 + 2.0 / margin * jnp.asarray(total_deviation)


def margin_perceptron_bound(margin: ArrayLike) -> Array:
    r"""Balcan Theorem 2: the margin Perceptron makes at most :math:`12/\gamma^2` updates,
    margin mistakes included (SPEC 4.4)."""
    return 12.0 / jnp.asarray(margin) ** 2


def ogd_regret_bound(U: ArrayLike, R: ArrayLike, T: ArrayLike) -> Array:
    r"""OGD with the hinge loss and :math:`\eta = U / (R\sqrt{T})`: regret against every
    :math:`\|u\| \le U` is at most :math:`U R \sqrt{T}` (COMP0078 "Regret Bound for OGD"; SPEC 5.3)."""
    return jnp.asarray(U) * jnp.asarray(R) * jnp.sqrt(jnp.asarray(T, dtype=jnp.result_type(float)))


def ogd_pathwise_bound(U: ArrayLike, eta: ArrayLike, grad_sq_norms: ArrayLike) -> Array:
    r"""The pathwise OGD inequality :math:`\|u\|^2/(2\eta) + (\eta/2)\sum_t \|v_t\|^2` (SPEC 5.2, 5.3).

    Bounds :math:`\sum_t f_t(w_t) - f_t(u)` for every :math:`\|u\| \le U` and *any* sequence, for
    OGD with a constant step ``eta``; ``grad_sq_norms`` are the :math:`\|v_t\|^2` of the run, time
    on the last axis (a ``(runs, T)`` array gives one bound per run).
    """
    eta = jnp.asarray(eta)
    return jnp.asarray(U) ** 2 / (2 * eta) + eta / 2 * jnp.sum(jnp.asarray(grad_sq_norms), axis=-1)


def winnow_mistake_bound(k: ArrayLike, n: ArrayLike, eta: ArrayLike = 2.0, threshold=None) -> Array:
    r"""Mistakes of Winnow on a monotone disjunction of ``k`` of ``n`` variables (Littlestone 1988).

    With promotion/demotion factor :math:`\eta > 1` and threshold :math:`\theta` (default ``n``):
    promotions :math:`P \le k(1 + \log_\eta \theta)` and demotions
    :math:`D < \frac{\eta}{\eta - 1}(n/\theta + (\eta - 1) P)`, so for :math:`\eta = 2`,
    :math:`\theta = n` the bound is the classic :math:`2 + 3k(1 + \log_2 n)`.
    """
    k, n, eta = (jnp.asarray(v, dtype=jnp.result_type(float)) for v in (k, n, eta))
    theta = n if threshold is None else jnp.asarray(threshold, dtype=n.dtype)
    promotions = k * (1 + jnp.log(theta) / jnp.log(eta))
    demotions = eta / (eta - 1) * (n / theta + (eta - 1) * promotions)
    return promotions + demotions


# --------------------------------------------------------------------------------------------
# Prediction with expert advice and finite classes (SPEC sections 2-3)
# --------------------------------------------------------------------------------------------


def _float(*values):
    return (jnp.asarray(v, dtype=jnp.result_type(float)) for v in values)


def consistent_bound(n: ArrayLike) -> Array:
    r"""UML Corollary 21.2: Consistent makes at most :math:`|H| - 1` mistakes."""
    (n,) = _float(n)
    return n - 1


def halving_bound(n: ArrayLike) -> Array:
    r"""UML Theorem 21.3 / COMP0078: Halving makes at most :math:`\log_2 |H|` mistakes (realizable)."""
    (n,) = _float(n)
    return jnp.log2(n)


def weighted_majority_bound(beta: ArrayLike, best_mistakes: ArrayLike, n: ArrayLike) -> Array:
    r"""COMP0078 Weighted Majority: for every expert i,

    .. math:: M \le \frac{\ln(1/\beta)}{\ln(2/(1+\beta))} M_i + \frac{1}{\ln(2/(1+\beta))} \ln n,

    which for :math:`\beta = 1/e` is :math:`2.63\,(M_i + \ln n)`.
    """
    beta, m, n = _float(beta, best_mistakes, n)
    denominator = jnp.log(2 / (1 + beta))
    return (jnp.log(1 / beta) * m + jnp.log(n)) / denominator


def exponential_weights_bound(eta: ArrayLike, T: ArrayLike, n: ArrayLike) -> Array:
    r"""The regret of exponential weights (Hedge / randomized WM) for any :math:`\eta > 0`:
    :math:`\ln(n)/\eta + \eta T/2` (UML proof of Theorem 21.11; COMP0078 Hedge (5))."""
    eta, T, n = _float(eta, T, n)
    return jnp.log(n) / eta + eta * T / 2


def rwm_regret_bound(T: ArrayLike, n: ArrayLike) -> Array:
    r"""UML Theorem 21.11: randomized weighted majority with :math:`\eta = \sqrt{2\ln(n)/T}` has
    expected regret at most :math:`\sqrt{2\ln(n)\, T}` (for :math:`T > 2 \ln n`)."""
    T, n = _float(T, n)
    return jnp.sqrt(2 * jnp.log(n) * T)


def hedge_regret_bound(T: ArrayLike, n: ArrayLike) -> Array:
    r"""COMP0078 Hedge theorem: with :math:`\eta = \sqrt{2\ln(n)/T}`,
    :math:`E[L_{HA}] - \min_i L_i \le \sqrt{2 T \ln n}`."""
    return rwm_regret_bound(T, n)


def weighted_average_regret_bound(n: ArrayLike, loss: str = "entropic") -> Array:
    r"""COMP0078 WA theorem: regret at most :math:`(1/\eta)\ln n`: :math:`\ln n` for the entropic loss
    (:math:`\eta = 1`), :math:`2\ln n` for the square loss (:math:`\eta = 1/2`)."""
    scale = {"entropic": 1.0, "square": 2.0}
    if loss not in scale:
        raise ValueError(f"expected `loss` in {{'entropic', 'square'}}, got {loss!r}")
    (n,) = _float(n)
    return scale[loss] * jnp.log(n)


def conjunction_bound(n: ArrayLike) -> Array:
    r"""Balcan section 2.1: the elimination algorithm for conjunctions errs at most :math:`n + 1` times."""
    (n,) = _float(n)
    return n + 1


def decision_list_bound(n: ArrayLike, L: ArrayLike) -> Array:
    r"""Balcan section 2.2: the level-based learner of decision lists of length :math:`L` over
    :math:`n` variables makes at most :math:`(4n + 2)(L + 1)` mistakes."""
    n, L = _float(n, L)
    return (4 * n + 2) * (L + 1)


def agnostic_regret_bound(T: ArrayLike, ldim: ArrayLike) -> Array:
    r"""UML Theorem 21.10 (Littlestone-dimension form): expected regret at most
    :math:`\sqrt{2\, \mathrm{Ldim}(H) \ln(eT)\, T}`."""
    T, ldim = _float(T, ldim)
    return jnp.sqrt(2 * ldim * jnp.log(jnp.e * T) * T)


# --------------------------------------------------------------------------------------------
# Convex learning, SGD and SVMs (SPEC sections 7-9)
# --------------------------------------------------------------------------------------------


def sgd_convex_bound(U: ArrayLike, rho: ArrayLike, T: ArrayLike, eta: ArrayLike | None = None) -> Array:
    r"""SS10 Theorem 5: SGD with :math:`\eta_t = \eta_1/\sqrt t`, averaged output, on a convex objective
    with :math:`E\|v_t\|^2 \le \rho^2` over a set of diameter :math:`U`:

    .. math:: E[f(\bar w)] - f(u) \le \frac{1}{\sqrt T}\Big(\frac{U^2}{2\eta_1} + \rho^2 \eta_1\Big),

    which is :math:`U\rho\sqrt{2/T}` at the default :math:`\eta_1 = U/(\rho\sqrt 2)`.
    """
    U, rho, T = _float(U, rho, T)
    eta = U / (rho * jnp.sqrt(2.0)) if eta is None else next(_float(eta))
    return (U**2 / (2 * eta) + rho**2 * eta) / jnp.sqrt(T)


def sgd_strongly_convex_bound(rho: ArrayLike, lam: ArrayLike, T: ArrayLike) -> Array:
    r"""SS10 Lemma 7: SGD with :math:`\eta_t = 1/(\lambda t)` on a :math:`\lambda`-strongly convex
    objective, averaged output: :math:`E[f(\bar w)] - f(u) \le \frac{\rho^2}{2\lambda T}(1 + \ln T)`."""
    rho, lam, T = _float(rho, lam, T)
    return rho**2 / (2 * lam * T) * (1 + jnp.log(T))


def stability_bound(rho: ArrayLike, lam: ArrayLike, m: ArrayLike) -> Array:
    r"""SS10 Theorem 8: regularised loss minimisation :math:`\arg\min L_S(w) + \lambda\|w\|^2` with a
    convex :math:`\rho`-Lipschitz loss is :math:`2\rho^2/(\lambda m)`-replace-one stable."""
    rho, lam, m = _float(rho, lam, m)
    return 2 * rho**2 / (lam * m)


def soft_svm_bound(rho: ArrayLike, B: ArrayLike, m: ArrayLike) -> Array:
    r"""UML Corollary 15.7: with :math:`\lambda = \sqrt{2\rho^2/(B^2 m)}`, soft-SVM's expected 0-1 (and
    hinge) risk exceeds :math:`\min_{\|w\| \le B} L_D^{hinge}(w)` by at most :math:`\sqrt{8\rho^2B^2/m}`."""
    rho, B, m = _float(rho, B, m)
    return jnp.sqrt(8 * rho**2 * B**2 / m)


def hard_svm_bound(rho: ArrayLike, gamma: ArrayLike, m: ArrayLike, delta: ArrayLike) -> Array:
    r"""UML Theorem 15.4: for a :math:`(\gamma, \rho)`-separable distribution, with probability
    :math:`1 - \delta` the 0-1 error of hard-SVM is at most
    :math:`\sqrt{4(\rho/\gamma)^2/m} + \sqrt{2\ln(2/\delta)/m}`."""
    rho, gamma, m, delta = _float(rho, gamma, m, delta)
    return jnp.sqrt(4 * (rho / gamma) ** 2 / m) + jnp.sqrt(2 * jnp.log(2 / delta) / m)


# --------------------------------------------------------------------------------------------
# Multiclass (SPEC 4.11, 11.5)
# --------------------------------------------------------------------------------------------


def multiclass_perceptron_bound(R: ArrayLike, w_norm: ArrayLike) -> Array:
    r"""UML Theorem 17.5: if :math:`\langle w^*, \Psi(x_i, y_i) - \Psi(x_i, y)\rangle \ge 1` for all
    :math:`i, y \ne y_i` and :math:`R = \max_{i, y}\|\Psi(x_i, y_i) - \Psi(x_i, y)\|`, the multiclass
    batch Perceptron stops after at most :math:`(R\|w^*\|)^2` updates."""
    R, w_norm = _float(R, w_norm)
    return (R * w_norm) ** 2


def multiclass_svm_bound(rho: ArrayLike, B: ArrayLike, m: ArrayLike) -> Array:
    r"""UML Corollary 17.1: with :math:`\|\Psi(x, y)\| \le \rho/2` and
    :math:`\lambda = \sqrt{2\rho^2/(B^2m)}` (the book's :math:`\lambda\|w\|^2`), the multiclass SVM's
    expected :math:`\Delta`-risk exceeds :math:`\min_{\|u\| \le B} L_D^{g-hinge}(u)` by at most
    :math:`\sqrt{8\rho^2B^2/m}`."""
    rho, B, m = _float(rho, B, m)
    return jnp.sqrt(8 * rho**2 * B**2 / m)


def multiclass_sgd_steps(rho: ArrayLike, B: ArrayLike, epsilon: ArrayLike) -> Array:
    r"""UML Corollary 17.2: SGD for multiclass learning with :math:`T \ge B^2\rho^2/\epsilon^2` steps and
    :math:`\eta = \sqrt{B^2/(\rho^2 T)}` is within :math:`\epsilon` of :math:`\min_{\|u\| \le B}
    L_D^{g-hinge}(u)` in expectation; this returns that :math:`T` (a float: round up)."""
    rho, B, epsilon = _float(rho, B, epsilon)
    return (B * rho / epsilon) ** 2


# --------------------------------------------------------------------------------------------
# Decision trees and nearest neighbours (SPEC sections 15-16)
# --------------------------------------------------------------------------------------------


def tree_mdl_bound(
    n_nodes: ArrayLike, d: ArrayLike, m: ArrayLike, delta: ArrayLike, train_error: ArrayLike = 0.0
) -> Array:
    r"""UML (18.1): with probability :math:`1 - \delta` over :math:`S \sim D^m`, every decision tree
    :math:`h` with :math:`n` nodes over :math:`d` binary features has

    .. math:: L_D(h) \le L_S(h) + \sqrt{\frac{(n + 1)\log_2(d + 3) + \ln(2/\delta)}{2m}}

    (the MDL bound of Theorem 7.7 with the tree's prefix-free code of :math:`(n + 1)\log_2(d + 3)`
    bits). Returns the right-hand side with :math:`L_S(h) =` ``train_error`` (default 0: the
    complexity term alone, the ``bound`` that :func:`jaxlearn.trees.prune` adds to :math:`L_S`)."""
    n_nodes, d, m, delta, train_error = _float(n_nodes, d, m, delta, train_error)
    bits = (n_nodes + 1) * jnp.log2(d + 3)
    return train_error + jnp.sqrt((bits + jnp.log(2 / delta)) / (2 * m))


def one_nn_bound(bayes_error: ArrayLike, c: ArrayLike, d: ArrayLike, m: ArrayLike) -> Array:
    r"""UML Theorem 19.3: on :math:`[0,1]^d \times \{0,1\}` with a :math:`c`-Lipschitz
    :math:`\eta(x) = P[y = 1 | x]`, the 1-NN rule has
    :math:`E_{S \sim D^m}[L_D(h_S)] \le 2 L_D(h^\star) + 4c\sqrt d\, m^{-1/(d+1)}`."""
    bayes_error, c, d, m = _float(bayes_error, c, d, m)
    return 2 * bayes_error + 4 * c * jnp.sqrt(d) * m ** (-1 / (d + 1))


def knn_bound(bayes_error: ArrayLike, c: ArrayLike, d: ArrayLike, m: ArrayLike, k: ArrayLike) -> Array:
    r"""UML Theorem 19.5 (stated for :math:`k \ge 10`): under the assumptions of
    :func:`one_nn_bound`, the k-NN rule has
    :math:`E_S[L_D(h_S)] \le (1 + \sqrt{8/k})\, L_D(h^\star) + (6c\sqrt d + k)\, m^{-1/(d+1)}`."""
    bayes_error, c, d, m, k = _float(bayes_error, c, d, m, k)
    return (1 + jnp.sqrt(8 / k)) * bayes_error + (6 * c * jnp.sqrt(d) + k) * m ** (-1 / (d + 1))
