"""Bounds of online learning (UML chapter 21; Balcan; COMP0078): the Perceptron family, Winnow,
experts, OGD."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn import core
from jaxlearn._checks import above, at_least, check_ndim, check_sample
from jaxlearn._shared import float_dtype
from jaxlearn.theory._common import _check, _halfspace, _points, _require

Array = jax.Array


def radius(X: ArrayLike) -> Array:
    r""":math:`R = \max_t \|x_t\|` over the rows of ``X`` (m, d): the radius in the Perceptron bounds."""
    X = _points(X)
    return jnp.max(jnp.linalg.norm(jnp.asarray(X, float_dtype(X)), axis=-1))


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
    check_sample(_points(X), y)
    return sample_margin(X, y)


def total_deviation(w: ArrayLike, X: ArrayLike, y: ArrayLike, margin: ArrayLike) -> Array:
    r"""Balcan's :math:`TD_\gamma = \sum_t \max\{0, \gamma - y_t\, w\cdot x_t\}` for unit-length :math:`x_t`.

    The total distance the (normalised) points must move to be separated by the unit vector
    ``w / ||w||`` with margin ``margin`` :math:`> 0` (a number; the formula is a reading of Balcan's
    section 1, which defines it in words).
    """
    w, X, y = _halfspace(w, X, y, unit=True)
    (gamma,) = _check(margin=margin)
    check_ndim("margin", gamma, 0, "() (a number)")
    Xn = X / jnp.linalg.norm(X, axis=-1, keepdims=True)
    return jnp.sum(jnp.maximum(0.0, gamma.astype(X.dtype) - y * (Xn @ (w / jnp.linalg.norm(w)))))


def perceptron_mistake_bound(radius: ArrayLike, margin: ArrayLike) -> Array:
    r"""Novikoff: the Perceptron makes at most :math:`(R/\gamma)^2` mistakes (COMP0078
    "Perceptron Bound [Novikoff]").

    Holds when some unit :math:`v` has :math:`y_t\langle v, x_t\rangle \ge \gamma > 0` and
    :math:`\|x_t\| \le R` for all t. For unit-length inputs (Balcan Theorem 1) use ``radius=1``.
    """
    R, gamma = _check(radius=radius, margin=margin)
    return (R / gamma) ** 2


def perceptron_nonseparable_bound(margin: ArrayLike, total_deviation: ArrayLike) -> Array:
    r"""Balcan Theorem 1, non-separable: :math:`M \le 1/\gamma^2 + (2/\gamma)\, TD_\gamma`.

    For the normalised Perceptron and *every* unit :math:`w^*` and :math:`\gamma > 0`, with
    :math:`TD_\gamma \ge 0` from :func:`total_deviation`.
    """
    gamma, td = _check(margin=margin, total_deviation=total_deviation)
    return 1.0 / gamma**2 + 2.0 / gamma * td


def margin_perceptron_bound(margin: ArrayLike) -> Array:
    r"""Balcan Theorem 2: the margin Perceptron makes at most :math:`12/\gamma^2` updates,
    margin mistakes included, for :math:`\gamma = \min_x |w^*\cdot x|/\|x\| \in (0, 1]`."""
    (gamma,) = _check({"margin": core.Interval(0.0, 1.0, hi_closed=True)}, margin=margin)
    return 12.0 / gamma**2


def ogd_regret_bound(U: ArrayLike, R: ArrayLike, T: ArrayLike) -> Array:
    r"""OGD with the hinge loss and :math:`\eta = U / (R\sqrt{T})`: regret against every
    :math:`\|u\| \le U` is at most :math:`U R \sqrt{T}` (COMP0078 "Regret Bound for OGD")."""
    U, R, T = _check(U=U, R=R, T=T)
    return U * R * jnp.sqrt(T)


def ogd_pathwise_bound(U: ArrayLike, eta: ArrayLike, grad_sq_norms: ArrayLike) -> Array:
    r"""The pathwise OGD inequality :math:`\|u\|^2/(2\eta) + (\eta/2)\sum_t \|v_t\|^2`.

    Bounds :math:`\sum_t f_t(w_t) - f_t(u)` for every :math:`\|u\| \le U` and *any* sequence, for
    OGD with a constant step ``eta`` (the telescoping step of the proof in COMP0078 "Regret Bound for
    OGD"; with a projection, UML section 21.3 and SS10 L6 Lemma 6); ``grad_sq_norms`` are the
    :math:`\|v_t\|^2` of the run, time on the last axis (a ``(runs, T)`` array gives one bound per run).
    """
    if np.ndim(grad_sq_norms) < 1:
        raise ValueError(
            f"expected `grad_sq_norms` of shape (..., T), got {np.shape(grad_sq_norms)}"
        )
    (g,) = _check(grad_sq_norms=grad_sq_norms)
    U, eta, total = _check(
        {"U": core.NON_NEGATIVE}, U=U, eta=eta, grad_sq_norms=jnp.sum(g, axis=-1)
    )
    return U**2 / (2 * eta) + eta / 2 * total


def winnow_mistake_bound(k: ArrayLike, n: ArrayLike, eta: ArrayLike = 2.0, threshold=None) -> Array:
    r"""Mistakes of Winnow on a monotone disjunction of ``k`` of ``n`` variables (Littlestone 1988).

    With promotion/demotion factor :math:`\eta > 1` and threshold :math:`\theta \ge 1/\eta` (default
    ``n``): promotions :math:`P \le k(1 + \log_\eta \theta)` and demotions
    :math:`D < \frac{\eta}{\eta - 1}(n/\theta + (\eta - 1) P)`, so for :math:`\eta = 2`,
    :math:`\theta = n` the bound is the classic :math:`2 + 3k(1 + \log_2 n)`.
    """
    k, n, eta = _check({"eta": above(1.0)}, k=k, n=n, eta=eta)
    theta = n if threshold is None else _check(threshold=threshold)[0]
    _require(k <= n, f"expected `k` <= `n` (k of the n variables), got k={k} and n={n}")
    _require(
        theta * eta >= 1, f"expected `threshold` >= 1 / `eta`, got threshold={theta}, eta={eta}"
    )
    promotions = k * (1 + jnp.log(theta) / jnp.log(eta))
    demotions = eta / (eta - 1) * (n / theta + (eta - 1) * promotions)
    return promotions + demotions


# --- Prediction with expert advice and finite classes (UML sections 21.1-21.2; COMP0078) ---


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
    ranges = {"beta": core.Interval(0.0, 1.0, lo_closed=True), "n": at_least(1)}
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
