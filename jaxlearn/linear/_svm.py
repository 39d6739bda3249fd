"""Support vector machines: Soft-SVM by SGD and Hard-SVM by dual coordinate ascent (UML chapter 15; SS10).

``soft_svm`` is the book's SGD for Soft-SVM (UML section 15.5, or SS10 Algorithm 7): one ``lax.scan``
over an index sequence drawn up front from the key, ``lam`` traced (sweep it with ``jax.vmap``).
``hard_svm`` solves the homogeneous Hard-SVM (15.3) exactly through its dual (15.11) in a bounded
``lax.while_loop`` (with ``fit_intercept``, (15.2) with an unregularised bias, by pairwise steps:
``_hard_svm_bias``) and reports, rather than hides, a sample it cannot separate.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_positive_int, check_sample, is_concrete
from jaxlearn._lbfgs import check_sample_weight
from jaxlearn._regularized import check_variant, hinge_subgradient, regularized_sgd
from jaxlearn._shared import as_float
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.linear._common import (
    DualState,
    all_devices,
    data_parallel,
    dual_unbounded,
    kkt_tolerance,
    linear_predict,
    linear_score,
    minibatches,
)
from jaxlearn.linear._hard_svm_bias import hard_svm_bias_fit, present_mean

Array = jax.Array


@loadable
class SoftSVMParams(NamedTuple):
    r"""``w``: the averaged output :math:`\bar w`; ``b``: the intercept (0 unless ``fit_intercept``)."""

    w: Array
    b: Array


@learner_factory("lam", ranges={"lam": POSITIVE, "steps": POSITIVE_INT, "batch_size": POSITIVE_INT})
def soft_svm(
    lam: ArrayLike,
    steps: int,
    *,
    batch_size: int = 1,
    fit_intercept: bool = False,
    variant: str = "uml",
    progress: bool = False,
) -> BatchLearner:
    r"""Soft-SVM by stochastic sub-gradient descent (UML section 15.5; SS10 Algorithm 7; Pegasos).

    .. math::
        \min_w \frac\lambda2\|w\|^2 + \frac1m\sum_i \max\{0, 1 - y_i\langle w, x_i\rangle\}, \quad
        \theta^{(t+1)} = \theta^{(t)} + \sum_{j=1}^b c_j\, 1[y_{i_j}\langle w^{(t)}, x_{i_j}\rangle < 1]\,
        y_{i_j} x_{i_j}

    by ``regularized_sgd`` (:math:`w^{(t)} = \theta^{(t)}/(\lambda t)`, output their
    mean); ``variant="ss10"`` divides by :math:`\lambda(t-1)`, not iterate-identical (SS10 Algorithm 7).
    ``batch_size=1`` is the book's rule (:math:`i_1` uniform over the sample, :math:`c_1 = 1`); a larger
    :math:`b` is mini-batch Pegasos (Shalev-Shwartz et al. 2011) with a stratified batch: :math:`i_j`
    uniform over the :math:`j`-th of :math:`b` contiguous blocks of rows, :math:`c_j` its share of the
    sample (:math:`1/b` when :math:`b \mid m`), an unbiased sub-gradient as the uniform batch is.

    Data-parallel: with ``X`` split by rows over several devices (:func:`jaxlearn.parallel.shard_rows`)
    every device draws its blocks' examples from its own rows and the partial sums are added by
    ``lax.psum``; the params are those of the one-device fit up to float rounding (:math:`b` and
    :math:`m` divisible by the number of devices).

    Args:
      lam: :math:`\lambda > 0` (traced: ``jax.vmap`` over it sweeps a grid in one program).
      steps: the number of rounds :math:`T` (static).
      batch_size: the examples :math:`b` per step (static; at most the sample size).
      fit_intercept: append a constant feature; its (regularised) weight is ``b``.
      variant: ``"uml"`` (UML section 15.5) or ``"ss10"`` (SS10 Algorithm 7).
      progress: show a tqdm bar over the SGD steps during ``fit`` (static; the ``progress`` extra).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y) -> SoftSVMParams`` (labels in {-1, +1}),
      ``predict`` +1 iff :math:`\langle w, x\rangle + b > 0`, ``decision_function`` the score.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X, y = jnp.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0]]), jnp.array([1.0, 1.0, -1.0])
      >>> learner = soft_svm(0.1, 1000)
      >>> learner.predict(learner.fit(jax.random.PRNGKey(0), X, y), X).tolist()
      [1.0, 1.0, -1.0]

    References:
      UML section 15.5, (15.12); SS10 section 19, Algorithm 7; Shalev-Shwartz, Singer,
      Srebro and Cotter (2011), "Pegasos", section 2.2 (mini-batches).
    """
    check_variant(variant)
    steps, batch_size = (
        check_positive_int("steps", steps),
        check_positive_int("batch_size", batch_size),
    )
    static = dict(fit_intercept=fit_intercept, variant=variant, progress=progress)

    def fit(key, X, y):
        X, y = as_float(X, y)
        idx, weights, split = minibatches(key, steps, X, batch_size)
        if split is None:
            return _soft_svm_fit(idx, X, y, lam, weights, **static)
        return data_parallel(_soft_svm_body, split, **static)(idx, X, y, lam, weights)

    return BatchLearner(fit, linear_predict, linear_score, check=check_sample)


def _soft_svm_body(idx, X, y, lam, weights, *, fit_intercept, variant, progress=False, axes=None):
    if fit_intercept:  # a constant feature, regularised like the others (UML section 15.1.1)
        X = jnp.concatenate([X, jnp.ones((X.shape[0], 1), X.dtype)], axis=1)

    def batch_subgradient(
        w, rows
    ):  # the c_j-weighted sum over the batch (this device's part of it)
        Xb, yb = X[rows], y[rows]
        active = jnp.where(yb * (Xb @ w) < 1, yb * weights, jnp.zeros_like(yb))
        return all_devices(-(active @ Xb), axes)

    zeros = jnp.zeros(X.shape[1], X.dtype)
    subgradient = hinge_subgradient(X, y) if weights is None else batch_subgradient
    w = regularized_sgd(subgradient, idx, lam, zeros, variant=variant, progress=progress)
    if fit_intercept:
        return SoftSVMParams(w=w[:-1], b=w[-1])
    return SoftSVMParams(w=w, b=jnp.zeros([], X.dtype))


_soft_svm_fit = jax.jit(_soft_svm_body, static_argnames=("fit_intercept", "variant", "progress"))


# --------------------------------------------------------------------------------------------
# Hard-SVM
# --------------------------------------------------------------------------------------------


@loadable
class HardSVMParams(NamedTuple):
    r"""The Hard-SVM solution and its certificates.

    Attributes:
      w: :math:`w_0 = \arg\min \|w\|^2` s.t. :math:`y_i\langle w, x_i\rangle \ge 1` (UML (15.3)),
        :math:`= \sum_i \alpha_i y_i x_i`; the unit-norm output of the book is ``w / ||w||``. With
        ``fit_intercept``, :math:`(w_0, b_0)` of (15.2): :math:`y_i(\langle w, x_i\rangle + b) \ge 1`.
      b: the bias :math:`b_0` (not in the norm; 0 unless ``fit_intercept``); the book outputs
        ``b / ||w||``.
      alpha: the dual variables of (15.11), :math:`\alpha \ge 0`, with :math:`\sum_i\alpha_i = \|w_0\|^2`
        (and :math:`\sum_i \alpha_i y_i = 0` with ``fit_intercept``).
      support: the support vectors, :math:`\alpha_i > \sqrt{\epsilon}\max_j\alpha_j` (:math:`\epsilon`
        the machine epsilon of the dtype); they lie on the margin, :math:`y_i\langle w_0, x_i\rangle = 1`.
      margin: :math:`1/\|w\|` when ``separable``, else 0; when ``converged`` this is the margin of
        the sample, :math:`\gamma(S) = 1/\|w_0\|` (UML Lemma 15.2), with ``fit_intercept`` the largest
        distance :math:`\min_i |\langle w, x_i\rangle + b|/\|w\|` of a separating hyperplane
        (Claim 15.1; :math:`\infty` on a one-class sample traced through ``jit``).
      separable: the returned ``w`` separates the sample, :math:`\min_i y_i\langle w, x_i\rangle > 0`
        (plus ``b``; a certificate). ``False``: the sample is not separable by a homogeneous halfspace
        (by any halfspace, with ``fit_intercept``), or its margin is too small to resolve in
        ``max_steps`` sweeps.
      converged: the KKT conditions of (15.11) hold to ``tol`` (then ``separable`` is ``True``).
      num_steps: sweeps over the sample performed (int32).
    """

    w: Array
    b: Array
    alpha: Array
    support: Array
    margin: Array
    separable: Array
    converged: Array
    num_steps: Array


@learner_factory("tol", ranges={"max_steps": POSITIVE_INT, "tol": POSITIVE})
def hard_svm(
    *, max_steps: int = 10_000, tol: ArrayLike = 1e-6, fit_intercept: bool = False
) -> BatchLearner:
    r"""Hard-SVM by dual coordinate ascent, homogeneous or with a bias (UML sections 15.1-15.4; SS10 Lemma 8).

    .. math::
        \max_{\alpha \ge 0}\ \sum_i \alpha_i - \frac12\Big\|\sum_i \alpha_i y_i x_i\Big\|^2, \qquad
        w_0 = \sum_i \alpha_i y_i x_i = \arg\min_{y_i\langle w, x_i\rangle \ge 1} \|w\|^2

    one coordinate at a time in a bounded ``lax.while_loop``, until the KKT conditions hold to ``tol``;
    a sweep skips the coordinates it cannot move (:math:`\alpha_i = 0` with :math:`y_i\langle w,
    x_i\rangle > 1` at its start).
    ``fit_intercept=True`` solves (15.2), :math:`\min \|w\|^2` s.t. :math:`y_i(\langle w, x_i\rangle + b)
    \ge 1`, the bias outside the norm (as scikit-learn's ``SVC``): the dual gains :math:`\sum_i \alpha_i
    y_i = 0`, kept by steps on pairs of coordinates (SMO, second-order pair choice).
    A sample no homogeneous halfspace separates (no halfspace, with ``fit_intercept``), or with a margin
    below :math:`\max(\sqrt\epsilon, 10^{-5}) R` (:math:`R` of the centred sample, with
    ``fit_intercept``), is flagged ``separable=False``, not raised (:func:`check_separable` raises).

    Args:
      max_steps: the most sweeps over the sample (static).
      tol: the KKT tolerance on :math:`y_i\langle w, x_i\rangle \ge 1` (traced).
      fit_intercept: fit the unregularised bias ``b`` of (15.2) (static; the sample needs both labels).
        Appending a constant feature instead regularises it (UML section 15.1.1): another halfspace.

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) -> HardSVMParams``
      (``key`` unused; an example of weight 0 takes no part, as if it were not in the sample, and the
      positive weights are alike: a hard margin has no trade-off to weigh), ``predict`` +1 iff
      :math:`\langle w_0, x\rangle + b_0 > 0`, ``decision_function`` the score.

    Examples:
      >>> import jax.numpy as jnp
      >>> X = jnp.array([[2.0, 0.0], [0.0, 1.0], [-1.0, -1.0], [3.0, 3.0]])
      >>> params = hard_svm().fit(None, X, jnp.array([1.0, 1.0, -1.0, 1.0]))
      >>> [round(v, 4) for v in params.w.tolist()], round(float(params.margin), 4), bool(params.converged)
      ([0.5, 1.0], 0.8944, True)
      >>> X = jnp.array([[2.0], [3.0], [4.0]])  # the threshold 2.5 is 0.5 from the nearest points
      >>> params = hard_svm(fit_intercept=True).fit(None, X, jnp.array([-1.0, 1.0, 1.0]))
      >>> round(float(params.w[0]), 4), round(float(params.b), 4), round(float(params.margin), 4)
      (2.0, -5.0, 0.5)

    References:
      UML (15.2), (15.3), Lemma 15.2, section 15.4 (15.11), Theorem 15.8; SS10 Lemma 8, Corollary 5,
      section 16.2; Platt (1998) and Fan, Chen and Lin (2005) for the pairwise steps.
    """
    max_steps = check_positive_int("max_steps", max_steps)
    if not isinstance(fit_intercept, (bool, np.bool_)):
        raise TypeError(f"expected `fit_intercept` a bool, got {fit_intercept!r}")

    def fit(key, X, y, sample_weight=None):
        del key  # deterministic: cyclic sweeps
        if sample_weight is None:
            present = np.ones(np.shape(X)[0], bool)
        elif is_concrete(sample_weight):  # on the host: no program compiled for the comparison
            present = np.asarray(sample_weight) > 0
        else:
            present = jnp.asarray(sample_weight) > 0
        if fit_intercept and is_concrete(y, present):
            labels = np.asarray(y)[np.asarray(present)]
            if not (np.any(labels > 0) and np.any(labels < 0)):
                raise ValueError(
                    "expected `y` with examples of both classes -1 and +1 for "
                    "hard_svm(fit_intercept=True), found one class only (the bias alone separates "
                    "it: no margin to maximise)"
                )
        X, y = as_float(X, y)
        if fit_intercept:
            fitted = hard_svm_bias_fit(X, y, tol, present, max_steps=max_steps)
            return _bias_params(X, y, tol, present, *fitted)
        return _hard_svm_fit(X, y, tol, present, max_steps=max_steps)

    def check(X, y, sample_weight=None):
        check_sample(X, y)
        check_sample_weight(sample_weight, np.shape(X)[0])

    return BatchLearner(fit, linear_predict, linear_score, check=check)


# Coordinate step: alpha_i <- max(0, alpha_i + (1 - y_i <w, x_i>) / ||x_i||^2), w updated alongside. The
# KKT tolerance is floored at the rounding level 16 eps R ||w|| (float32 fits converge). On a sample
# that is not separable the dual is unbounded and ||w|| / sum(alpha), an upper bound on the margin for
# every alpha >= 0, falls like 1/sweeps: the loop stops once it is below max(sqrt(eps), 1e-5) R.
# A bias is not part of (15.3): fit_intercept solves (15.2) instead (_hard_svm_bias).
@functools.partial(jax.jit, static_argnames=("max_steps",))
def _hard_svm_fit(X, y, tol, present, *, max_steps):
    dtype = X.dtype
    eps = jnp.finfo(dtype).eps
    tol = jnp.asarray(tol).astype(dtype)
    # rows y_i x_i: the constraints are <w, z_i> >= 1; an absent example's row is 0 and never moves
    Z = jnp.where(present[:, None], y[:, None] * X, jnp.zeros_like(X))
    sq_norms = jnp.sum(Z * Z, axis=1)
    radius = jnp.sqrt(jnp.max(sq_norms))
    degenerate = jnp.any(present & (sq_norms == 0))  # <w, 0> >= 1 is infeasible
    safe_sq = jnp.where(sq_norms > 0, sq_norms, jnp.ones_like(sq_norms))

    def coordinate(i, carry):
        alpha, w = carry
        z = Z[i]
        gap = 1 - jnp.vdot(w, z)
        new = jnp.maximum(alpha[i] + gap / safe_sq[i], 0)
        new = jnp.where(sq_norms[i] > 0, new, alpha[i])
        return alpha.at[i].set(new), w + (new - alpha[i]) * z

    def kkt(alpha, w):
        gap = 1 - Z @ w
        violation = jnp.max(
            jnp.where(present, jnp.where(alpha > 0, jnp.abs(gap), jnp.maximum(gap, 0)), 0)
        )
        infeasible = degenerate | dual_unbounded(alpha, w, radius)  # a margin below the resolution
        return violation, (violation <= kkt_tolerance(tol, radius, w)) | infeasible

    def body(state):
        # A sweep visits, in order, the coordinates its start can move: alpha_i > 0, or a constraint not
        # met with room (alpha_i = 0 and <w, z_i> > 1 would stay 0). The KKT check is on every one.
        movable = present & ((state.alpha > 0) | (Z @ state.w <= 1))
        order = jnp.nonzero(movable, size=Z.shape[0], fill_value=0)[0]
        visit = lambda j, carry: coordinate(order[j], carry)  # noqa: E731
        alpha, w = jax.lax.fori_loop(0, jnp.sum(movable), visit, (state.alpha, state.w))
        w = Z.T @ alpha  # recompute: no drift from the incremental updates
        violation, stop = kkt(alpha, w)
        return DualState(alpha, w, violation, stop, state.step + 1)

    def cond(state):
        return ~state.stop & (state.step < max_steps)

    zeros = jnp.zeros(Z.shape[0], dtype)
    w0 = jnp.zeros(X.shape[1], dtype)
    init = DualState(zeros, w0, jnp.asarray(jnp.inf, dtype), degenerate, jnp.zeros([], jnp.int32))
    state = jax.lax.while_loop(cond, body, init)
    alpha, w = state.alpha, state.w
    norm = jnp.linalg.norm(w)
    separable = (jnp.min(jnp.where(present, Z @ w, jnp.inf)) > 0) & ~degenerate
    converged = separable & (state.violation <= kkt_tolerance(tol, radius, w))
    support = alpha > jnp.sqrt(eps) * jnp.max(alpha)
    margin = jnp.where(
        separable, 1 / jnp.where(norm > 0, norm, jnp.ones_like(norm)), jnp.zeros_like(norm)
    )
    b = jnp.zeros([], dtype)
    return HardSVMParams(w, b, alpha, support, margin, separable, converged, state.step)


@jax.jit
def _bias_params(X, y, tol, present, w, b, alpha, violation, num_steps):
    eps = jnp.finfo(X.dtype).eps
    norm = jnp.linalg.norm(w)
    separable = jnp.min(jnp.where(present, y * (X @ w + b), jnp.inf)) > 0
    spread = jnp.max(jnp.where(present, jnp.linalg.norm(X - present_mean(X, present), axis=1), 0))
    converged = separable & (violation <= kkt_tolerance(tol, spread, w))
    support = alpha > jnp.sqrt(eps) * jnp.max(alpha)
    margin = jnp.where(separable, 1 / norm, jnp.zeros_like(norm))  # 1/0 = inf: one class, w = 0
    return HardSVMParams(w, b, alpha, support, margin, separable, converged, num_steps)


def check_separable(params: HardSVMParams) -> None:
    """Raise ``ValueError`` if concrete :class:`HardSVMParams` (possibly batched) flag a non-separable fit.

    Tracers pass silently (inside ``jit``/``vmap`` the flag is the report).
    """
    _check_separable(params, "`params` of a sample")


def _check_separable(params, what: str) -> None:
    if not isinstance(params, HardSVMParams):
        raise TypeError(
            f"expected `params` the HardSVMParams of a hard_svm fit, got {type(params).__name__}"
        )
    if not is_concrete(params.separable):
        return
    separable = np.asarray(params.separable)
    if not separable.all():
        where = "" if separable.ndim == 0 else f" (fits {np.flatnonzero(~separable)[:10].tolist()})"
        raise ValueError(
            f"expected {what} that a halfspace separates (homogeneous, or with a bias under "
            f"fit_intercept=True), but hard_svm found no separator{where}: the sample is not linearly "
            "separable (or its margin is below the resolution of max_steps sweeps); use soft_svm, or "
            "hard_svm(fit_intercept=True) for a halfspace with a bias"
        )


def sample_margin(
    X: ArrayLike, y: ArrayLike, *, max_steps: int = 10_000, tol: ArrayLike = 1e-6
) -> Array:
    r"""The margin of a sample, :math:`\gamma(S) = \max_{\|w\| = 1}\min_i y_i\langle w, x_i\rangle`.

    Computed through :func:`hard_svm` as :math:`1/\|w_0\|` (UML Lemma 15.2; SS10 section 2).

    Raises:
      ValueError: on concrete inputs that no homogeneous halfspace separates, or on which the dual
        ascent did not converge within ``max_steps`` sweeps (under ``jit``/``vmap`` nothing is raised:
        the result is 0 for a non-separable sample), and on the input errors of ``hard_svm().fit``.
    """
    params = hard_svm(max_steps=max_steps, tol=tol).fit(None, X, y)
    _check_separable(params, "a sample `X`, `y`")
    if is_concrete(params.converged) and not np.asarray(params.converged).all():
        raise ValueError(
            f"hard_svm did not converge within max_steps={max_steps} sweeps (KKT violation above "
            f"tol={tol}): the margin is not yet exact; raise `max_steps` or `tol`"
        )
    return params.margin
