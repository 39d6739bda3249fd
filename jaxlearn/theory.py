"""The checkable bounds of the source documents, as functions of their parameters.

Every function is plain ``jnp`` arithmetic, so bounds can be evaluated on traced values and
vmapped alongside the learners they bound. Section numbers refer to the sources (``SPEC n.m``: the
numbering of ``docs/algorithms.md``).
Concrete arguments outside the range the theorem assumes (a margin ``<= 0``, ``delta`` outside (0, 1),
a count that is not a positive integer, NaN, inf) raise a ``ValueError`` naming the argument.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn import core

__all__ = [
    "agnostic_regret_bound", "conjunction_bound", "consistent_bound", "decision_list_bound",
    "exponential_weights_bound", "halfspace_margin", "halving_bound", "hard_svm_bound",
    "hedge_regret_bound", "knn_bound", "margin", "margin_perceptron_bound", "multiclass_perceptron_bound",
    "multiclass_sgd_steps", "multiclass_svm_bound", "ogd_pathwise_bound", "ogd_regret_bound",
    "one_nn_bound", "perceptron_mistake_bound", "perceptron_nonseparable_bound", "radius",
    "rwm_regret_bound", "sgd_convex_bound", "sgd_strongly_convex_bound", "soft_svm_bound",
    "stability_bound", "total_deviation", "tree_mdl_bound", "weighted_average_regret_bound",
    "weighted_majority_bound", "winnow_mistake_bound",
]  # fmt: skip

Array = jax.Array

#: The range of each argument of the bounds, by name (a function passes its own where a theorem differs).
_RANGES = {
    **dict.fromkeys("radius margin U R eta threshold rho lam B gamma w_norm epsilon".split(), core.POSITIVE),
    **dict.fromkeys("T n k L m d n_nodes".split(), core.POSITIVE_INT),
    **dict.fromkeys("total_deviation grad_sq_norms c".split(), core.NON_NEGATIVE),
    **dict.fromkeys("best_mistakes ldim".split(), core.NON_NEGATIVE_INT),
    **dict.fromkeys("beta delta".split(), core.OPEN_UNIT),
    "train_error": core.UNIT,
    "bayes_error": core.Interval(0.0, 0.5, True, True),  # L_D(h*) = E[min(eta, 1 - eta)] <= 1/2
}


def _check(ranges=None, **named) -> list:
    """``named`` as broadcastable float arrays, refusing a concrete value outside its range (``ranges``
    or :data:`_RANGES`; a count may be an integral float: ``1e6``, ``[10.0, 100.0]``)."""
    out = []
    for name, value in named.items():
        interval = (ranges or {}).get(name, _RANGES[name])
        value = np.asarray(value) if isinstance(value, (list, tuple)) else value
        if value is None or callable(value):
            raise TypeError(f"expected `{name}` {interval}, got {value!r}")
        interval._replace(integer=False).check(name, value)
        if interval.integer and core.is_concrete(value) and not interval.contains(value).all():
            raise ValueError(f"expected `{name}` {interval}, got {value!r}")
        out.append(jnp.asarray(value, dtype=jnp.result_type(float)))
    try:
        np.broadcast_shapes(*(jnp.shape(v) for v in out))
    except ValueError:
        names = ", ".join(f"`{name}`" for name in named)
        raise ValueError(f"expected {names} of broadcastable shapes, got {[v.shape for v in out]}") from None
    return out


def _require(ok, message: str) -> None:
    """Raise ``ValueError(message)`` when a concrete condition between arguments fails."""
    if core.is_concrete(ok) and not np.all(np.asarray(ok)):
        raise ValueError(message)


def _points(X, *, unit: bool = False):
    """``X`` of shape (m, d), m >= 1, finite (rows nonzero when ``unit``: they get scaled to length 1)."""
    X = np.asarray(X) if isinstance(X, list) else X
    core.check_ndim("X", X, 2, "(m, d)")
    if jnp.shape(X)[0] == 0:
        raise ValueError("expected `X` of shape (m, d) with m >= 1, got (0, d)")
    core.check_finite("X", X)
    if unit and core.is_concrete(X) and not np.asarray(X).any(axis=-1).all():
        raise ValueError("expected `X` with nonzero rows (each is scaled to unit length), found a zero row")
    return X


def _halfspace(w, X, y, *, unit: bool):
    """``w`` (d,), nonzero and finite, and a sample ``X`` (m, d), ``y`` in {-1, +1}, in X's float dtype."""
    X, y, w = _points(X, unit=unit), *(np.asarray(v) if isinstance(v, list) else v for v in (y, w))
    core.check_sample(X, y)
    d = jnp.shape(X)[1]
    if jnp.shape(w) != (d,):
        raise ValueError(f"expected `w` of shape ({d},) (the width of `X`), got {jnp.shape(w)}")
    core.check_finite("w", w)
    if core.is_concrete(w) and not np.asarray(w).any():
        raise ValueError("expected `w` nonzero (the halfspace is w / ||w||), got the zero vector")
    return (jnp.asarray(v, core.float_dtype(X)) for v in (w, X, y))


def radius(X: ArrayLike) -> Array:
    r""":math:`R = \max_t \|x_t\|` over the rows of ``X`` (m, d): the radius in the Perceptron bounds."""
    X = _points(X)
    return jnp.max(jnp.linalg.norm(jnp.asarray(X, core.float_dtype(X)), axis=-1))


def halfspace_margin(w: ArrayLike, X: ArrayLike, y: ArrayLike, *, normalize: bool = False) -> Array:
    r"""The margin of a halfspace on a sample, :math:`\min_i y_i \langle w, x_i\rangle / \|w\|`.

    With ``normalize=True`` each :math:`x_i` is scaled to unit length first (Balcan's
    :math:`\gamma = \min_x |w^* \cdot x| / \|x\|`). Negative when ``w`` does not separate the sample.
    ``w`` (d,) nonzero, ``X`` (m, d), ``y`` (m,) in {-1, +1}.
    """
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"expected `normalize` a bool, got {normalize!r}")
    w, X, y = _halfspace(w, X, y, unit=normalize)
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

    X, y = (np.asarray(v) if isinstance(v, list) else v for v in (X, y))
    core.check_sample(_points(X), y)
    return sample_margin(X, y)


def total_deviation(w: ArrayLike, X: ArrayLike, y: ArrayLike, margin: ArrayLike) -> Array:
    r"""Balcan's :math:`TD_\gamma = \sum_t \max\{0, \gamma - y_t\, w\cdot x_t\}` for unit-length :math:`x_t`.

    The total distance the (normalised) points must move to be separated by the unit vector
    ``w / ||w||`` with margin ``margin`` :math:`> 0` (a number; SPEC 4.1, derived reading).
    """
    w, X, y = _halfspace(w, X, y, unit=True)
    (gamma,) = _check(margin=margin)
    core.check_ndim("margin", gamma, 0, "() (a number)")
    Xn = X / jnp.linalg.norm(X, axis=-1, keepdims=True)
    return jnp.sum(jnp.maximum(0.0, gamma.astype(X.dtype) - y * (Xn @ (w / jnp.linalg.norm(w)))))


def perceptron_mistake_bound(radius: ArrayLike, margin: ArrayLike) -> Array:
    r"""Novikoff: the Perceptron makes at most :math:`(R/\gamma)^2` mistakes (COMP0078; SPEC 4.2).

    Holds when some unit :math:`v` has :math:`y_t\langle v, x_t\rangle \ge \gamma > 0` and
    :math:`\|x_t\| \le R` for all t. For unit-length inputs (Balcan Theorem 1) use ``radius=1``.
    """
    R, gamma = _check(radius=radius, margin=margin)
    return (R / gamma) ** 2


def perceptron_nonseparable_bound(margin: ArrayLike, total_deviation: ArrayLike) -> Array:
    r"""Balcan Theorem 1, non-separable: :math:`M \le 1/\gamma^2 + (2/\gamma)\, TD_\gamma` (SPEC 4.1).

    For the normalised Perceptron and *every* unit :math:`w^*` and :math:`\gamma > 0`, with
    :math:`TD_\gamma \ge 0` from :func:`total_deviation`.
    """
    gamma, td = _check(margin=margin, total_deviation=total_deviation)
    return 1.0 / gamma**2 + 2.0 / gamma * td


def margin_perceptron_bound(margin: ArrayLike) -> Array:
    r"""Balcan Theorem 2: the margin Perceptron makes at most :math:`12/\gamma^2` updates,
    margin mistakes included, for :math:`\gamma = \min_x |w^*\cdot x|/\|x\| \in (0, 1]` (SPEC 4.4)."""
    (gamma,) = _check({"margin": core.Interval(0.0, 1.0, hi_closed=True)}, margin=margin)
    return 12.0 / gamma**2


def ogd_regret_bound(U: ArrayLike, R: ArrayLike, T: ArrayLike) -> Array:
    r"""OGD with the hinge loss and :math:`\eta = U / (R\sqrt{T})`: regret against every
    :math:`\|u\| \le U` is at most :math:`U R \sqrt{T}` (COMP0078 "Regret Bound for OGD"; SPEC 5.3)."""
    U, R, T = _check(U=U, R=R, T=T)
    return U * R * jnp.sqrt(T)


def ogd_pathwise_bound(U: ArrayLike, eta: ArrayLike, grad_sq_norms: ArrayLike) -> Array:
    r"""The pathwise OGD inequality :math:`\|u\|^2/(2\eta) + (\eta/2)\sum_t \|v_t\|^2` (SPEC 5.2, 5.3).

    Bounds :math:`\sum_t f_t(w_t) - f_t(u)` for every :math:`\|u\| \le U` and *any* sequence, for
    OGD with a constant step ``eta``; ``grad_sq_norms`` are the :math:`\|v_t\|^2` of the run, time
    on the last axis (a ``(runs, T)`` array gives one bound per run).
    """
    if np.ndim(grad_sq_norms) < 1:
        raise ValueError(f"expected `grad_sq_norms` of shape (..., T), got {np.shape(grad_sq_norms)}")
    (g,) = _check(grad_sq_norms=grad_sq_norms)
    U, eta, total = _check({"U": core.NON_NEGATIVE}, U=U, eta=eta, grad_sq_norms=jnp.sum(g, axis=-1))
    return U**2 / (2 * eta) + eta / 2 * total


def winnow_mistake_bound(k: ArrayLike, n: ArrayLike, eta: ArrayLike = 2.0, threshold=None) -> Array:
    r"""Mistakes of Winnow on a monotone disjunction of ``k`` of ``n`` variables (Littlestone 1988).

    With promotion/demotion factor :math:`\eta > 1` and threshold :math:`\theta \ge 1/\eta` (default
    ``n``): promotions :math:`P \le k(1 + \log_\eta \theta)` and demotions
    :math:`D < \frac{\eta}{\eta - 1}(n/\theta + (\eta - 1) P)`, so for :math:`\eta = 2`,
    :math:`\theta = n` the bound is the classic :math:`2 + 3k(1 + \log_2 n)`.
    """
    k, n, eta = _check({"eta": core.above(1.0)}, k=k, n=n, eta=eta)
    theta = n if threshold is None else _check(threshold=threshold)[0]
    _require(k <= n, f"expected `k` <= `n` (k of the n variables), got k={k} and n={n}")
    _require(theta * eta >= 1, f"expected `threshold` >= 1 / `eta`, got threshold={theta}, eta={eta}")
    promotions = k * (1 + jnp.log(theta) / jnp.log(eta))
    demotions = eta / (eta - 1) * (n / theta + (eta - 1) * promotions)
    return promotions + demotions


# --- Prediction with expert advice and finite classes (SPEC sections 2-3) ---


def consistent_bound(n: ArrayLike) -> Array:
    r"""UML Corollary 21.2: Consistent makes at most :math:`|H| - 1` mistakes (``n`` = :math:`|H| \ge 1`)."""
    (n,) = _check(n=n)
    return n - 1


def halving_bound(n: ArrayLike) -> Array:
    r"""UML Theorem 21.3 / COMP0078: Halving makes at most :math:`\log_2 |H|` mistakes (realizable)."""
    (n,) = _check(n=n)
    return jnp.log2(n)


def weighted_majority_bound(beta: ArrayLike, best_mistakes: ArrayLike, n: ArrayLike) -> Array:
    r"""COMP0078 Weighted Majority, :math:`\beta \in [0, 1)`: for every expert i,

    .. math:: M \le \frac{\ln(1/\beta)}{\ln(2/(1+\beta))} M_i + \frac{1}{\ln(2/(1+\beta))} \ln n,

    which for :math:`\beta = 1/e` is :math:`2.63\,(M_i + \ln n)` (``n >= 1`` may be any real here);
    :math:`\beta = 0` is Halving: :math:`\log_2 n` for a perfect expert, ``inf`` (vacuous) otherwise.
    """
    ranges = {"beta": core.Interval(0.0, 1.0, lo_closed=True), "n": core.at_least(1)}
    beta, m, n = _check(ranges, beta=beta, best_mistakes=best_mistakes, n=n)
    return (jnp.log(n) - jax.scipy.special.xlogy(m, beta)) / jnp.log(2 / (1 + beta))  # 0 ln 0 = 0


def exponential_weights_bound(eta: ArrayLike, T: ArrayLike, n: ArrayLike) -> Array:
    r"""The regret of exponential weights (Hedge / randomized WM) for any :math:`\eta > 0`:
    :math:`\ln(n)/\eta + \eta T/2` (UML proof of Theorem 21.11; COMP0078 Hedge (5))."""
    eta, T, n = _check(eta=eta, T=T, n=n)
    return jnp.log(n) / eta + eta * T / 2


def rwm_regret_bound(T: ArrayLike, n: ArrayLike) -> Array:
    r"""UML Theorem 21.11: randomized weighted majority with :math:`\eta = \sqrt{2\ln(n)/T}` has
    expected regret at most :math:`\sqrt{2\ln(n)\, T}` (for :math:`T > 2 \ln n`)."""
    T, n = _check(T=T, n=n)
    _require(T > 2 * jnp.log(n), f"expected `T` > 2 ln `n` (Theorem 21.11), got T={T} and n={n}")
    return jnp.sqrt(2 * jnp.log(n) * T)


def hedge_regret_bound(T: ArrayLike, n: ArrayLike) -> Array:
    r"""COMP0078 Hedge theorem: with :math:`\eta = \sqrt{2\ln(n)/T}`,
    :math:`E[L_{HA}] - \min_i L_i \le \sqrt{2 T \ln n}`."""
    T, n = _check(T=T, n=n)
    return jnp.sqrt(2 * jnp.log(n) * T)


def weighted_average_regret_bound(n: ArrayLike, loss: str = "entropic") -> Array:
    r"""COMP0078 WA theorem: regret at most :math:`(1/\eta)\ln n`: :math:`\ln n` for the entropic loss
    (:math:`\eta = 1`), :math:`2\ln n` for the square loss (:math:`\eta = 1/2`)."""
    scale = {"entropic": 1.0, "square": 2.0}
    if not isinstance(loss, str) or loss not in scale:
        error = ValueError if isinstance(loss, str) else TypeError
        raise error(f"expected `loss` in {{'entropic', 'square'}}, got {loss!r}")
    (n,) = _check(n=n)
    return scale[loss] * jnp.log(n)


def conjunction_bound(n: ArrayLike) -> Array:
    r"""Balcan section 2.1: the elimination algorithm for conjunctions errs at most :math:`n + 1` times."""
    (n,) = _check(n=n)
    return n + 1


def decision_list_bound(n: ArrayLike, L: ArrayLike) -> Array:
    r"""Balcan section 2.2: the level-based learner of decision lists of length :math:`L \ge 1` over
    :math:`n` variables makes at most :math:`(4n + 2)(L + 1)` mistakes."""
    n, L = _check(n=n, L=L)
    return (4 * n + 2) * (L + 1)


def agnostic_regret_bound(T: ArrayLike, ldim: ArrayLike) -> Array:
    r"""UML Theorem 21.10 (Littlestone-dimension form): expected regret at most
    :math:`\sqrt{2\, \mathrm{Ldim}(H) \ln(eT)\, T}`."""
    T, ldim = _check(T=T, ldim=ldim)
    return jnp.sqrt(2 * ldim * jnp.log(jnp.e * T) * T)


# --- Convex learning, SGD and SVMs (SPEC sections 7-9) ---


def sgd_convex_bound(U: ArrayLike, rho: ArrayLike, T: ArrayLike, eta: ArrayLike | None = None) -> Array:
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


# --- Multiclass (SPEC 4.11, 11.5) ---


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


# --- Decision trees and nearest neighbours (SPEC sections 15-16) ---


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


def knn_bound(bayes_error: ArrayLike, c: ArrayLike, d: ArrayLike, m: ArrayLike, k: ArrayLike) -> Array:
    r"""UML Theorem 19.5 (stated for :math:`k \ge 10`): under the assumptions of
    :func:`one_nn_bound`, the k-NN rule has
    :math:`E_S[L_D(h_S)] \le (1 + \sqrt{8/k})\, L_D(h^\star) + (6c\sqrt d + k)\, m^{-1/(d+1)}`."""
    bayes_error, c, d, m, k = _check(
        {"k": core.at_least(10, integer=True)}, bayes_error=bayes_error, c=c, d=d, m=m, k=k
    )
    return (1 + jnp.sqrt(8 / k)) * bayes_error + (6 * c * jnp.sqrt(d) + k) * m ** (-1 / (d + 1))
