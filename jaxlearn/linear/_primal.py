r"""The squared-hinge linear SVM solved in its primal by L-BFGS (the problem of LIBLINEAR ``-s 2``).

.. math:: \min_w F(w) = \tfrac12\|w\|^2 + \sum_i C_i \max(0, 1 - y_i\langle w, x_i\rangle)^2

is convex with a Lipschitz gradient; ``minimize_lbfgs`` runs L-BFGS on it until the
gradient is small relative to its value at :math:`w = 0` (LIBLINEAR's primal stopping rule). The same
minimiser as :func:`svm_dual_cd` with ``loss="squared_hinge"``, in work per iteration linear in the
sample: the better solver when there are many more examples than features.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_positive_int, check_sample
from jaxlearn._lbfgs import check_sample_weight, minimize_lbfgs
from jaxlearn._shared import as_float
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.linear._common import linear_predict, linear_score

Array = jax.Array


@loadable
class SVMPrimalParams(NamedTuple):
    r"""The primal solution and its certificate.

    Attributes:
      w: the weights, shape ``(d,)``; ``b``: the intercept (``intercept_scaling`` times the weight of
        the constant feature; 0 unless ``fit_intercept``).
      grad_norm: :math:`\|\nabla F(w)\|_2` at the output.
      converged: ``grad_norm`` fell to the tolerance within ``max_iter`` iterations.
      n_iter: the solver's iterations (int32).
    """

    w: Array
    b: Array
    grad_norm: Array
    converged: Array
    n_iter: Array


@learner_factory(
    "C",
    "tol",
    "intercept_scaling",
    ranges={
        "C": POSITIVE,
        "tol": POSITIVE,
        "max_iter": POSITIVE_INT,
        "intercept_scaling": POSITIVE,
    },
)
def svm_primal_lbfgs(
    C: ArrayLike,
    *,
    tol: ArrayLike = 1e-4,
    max_iter: int = 1000,
    fit_intercept: bool = False,
    intercept_scaling: ArrayLike = 1.0,
) -> BatchLearner:
    r"""The squared-hinge SVM by L-BFGS on its primal (UML section 15.2 with the squared hinge).

    .. math::
        \min_w \tfrac12\|w\|^2 + C\sum_i s_i \max(0, 1 - y_i\langle w, x_i\rangle)^2, \qquad
        \text{until } \|\nabla F(w)\|_2 \le \mathrm{tol}\,\frac{\max(\min(m_+, m_-), 1)}{m}\,\|\nabla F(0)\|_2

    (:math:`s_i` the sample weights, :math:`m_\pm` the examples of each label, :math:`m = m_+ + m_-`,
    examples of label 0 left out: LIBLINEAR's primal
    stopping rule). L-BFGS (``minimize_lbfgs``) stops on the largest gradient entry,
    so the threshold is divided by :math:`\sqrt{d}`: the 2-norm rule then holds. The minimiser is
    :func:`svm_dual_cd`'s with ``loss="squared_hinge"``; an iteration costs two passes over the sample.

    Args:
      C: :math:`C > 0` (traced: ``jax.vmap`` over it sweeps a grid in one program).
      tol: the relative gradient tolerance (traced).
      max_iter: the most L-BFGS iterations (static).
      fit_intercept: a constant feature of value ``intercept_scaling``, regularised (LIBLINEAR's bias).
      intercept_scaling: that feature's value (traced).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) -> SVMPrimalParams``
      (``key`` unused; labels in {-1, +1}; a label 0 is an example left out), ``predict`` +1 iff
      :math:`\langle w, x\rangle + b > 0`, ``decision_function`` the score.

    Examples:
      >>> import jax.numpy as jnp
      >>> X, y = jnp.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0]]), jnp.array([1.0, 1.0, -1.0])
      >>> params = svm_primal_lbfgs(10.0).fit(None, X, y)
      >>> [round(v, 2) for v in params.w.tolist()], bool(params.converged)
      ([0.33, 0.33], True)

    References:
      UML section 15.2; Lin, Weng and Keerthi (2008), "Trust region Newton method for large-scale
      logistic regression" (LIBLINEAR's primal L2-loss SVM and its stopping rule); Nocedal & Wright
      (2006), Algorithm 7.5.
    """
    return primal_learner(_fit, C, tol, max_iter, fit_intercept, intercept_scaling)


def primal_learner(solve, C, tol, max_iter, fit_intercept, intercept_scaling) -> BatchLearner:
    """The learner of a solver of the squared hinge's primal, ``solve(X, y, weight, C, tol,
    intercept_scaling, *, max_iter, fit_intercept) -> SVMPrimalParams``: labels in {-1, +1} (0: an
    example left out), per-example sample weights, the sign of the score."""
    max_iter = check_positive_int("max_iter", max_iter)
    if not isinstance(fit_intercept, (bool, np.bool_)):
        raise TypeError(f"expected `fit_intercept` a bool, got {fit_intercept!r}")

    def fit(key, X, y, sample_weight=None):
        del key  # deterministic
        X, y = as_float(X, y)
        weight = (
            jnp.ones_like(y)
            if sample_weight is None
            else jnp.asarray(sample_weight).astype(X.dtype)
        )
        options = dict(max_iter=max_iter, fit_intercept=bool(fit_intercept))
        return solve(X, y, weight, C, tol, intercept_scaling, **options)

    def check(X, y, sample_weight=None):
        check_sample(X, y)
        check_sample_weight(sample_weight, np.shape(X)[0])

    return BatchLearner(fit, linear_predict, linear_score, check=check)


def stopping_share(y, dtype) -> Array:
    """LIBLINEAR's primal stopping share :math:`\\max(\\min(m_+, m_-), 1) / m` of labels ``y`` in
    {-1, 0, +1}, :math:`m = m_+ + m_-`: an example of label 0 is left out, of :math:`m` too (a sample
    without label 0 divides by its length, as it always has)."""
    smaller = jnp.maximum(jnp.minimum(jnp.sum(y > 0), jnp.sum(y < 0)), 1)
    taking_part = jnp.sum(y != 0)
    return jnp.where(
        taking_part < y.shape[0],
        (smaller / taking_part).astype(dtype),
        smaller.astype(dtype) / y.shape[0],
    )


@functools.partial(jax.jit, static_argnames=("max_iter", "fit_intercept"))
def _fit(X, y, weight, C, tol, intercept_scaling, *, max_iter, fit_intercept):
    dtype = X.dtype
    scaling = jnp.asarray(intercept_scaling).astype(dtype)
    cost = jnp.where(y != 0, jnp.asarray(C).astype(dtype) * weight, 0)

    def objective(w):
        # the bias's column of value `scaling` is not built: a sweep over intercept_scaling then
        # shares X's products with the sweep over C
        scores = X @ w[:-1] + w[-1] * scaling if fit_intercept else X @ w
        slack = jnp.maximum(1 - y * scores, 0)
        return 0.5 * jnp.vdot(w, w) + jnp.sum(cost * slack * slack)

    zeros = jnp.zeros(X.shape[1] + fit_intercept, dtype)
    start = jnp.linalg.norm(jax.grad(objective)(zeros))
    share = stopping_share(y, dtype)
    threshold = jnp.asarray(tol).astype(dtype) * share * start
    result = minimize_lbfgs(
        objective, zeros, tol=threshold / np.sqrt(zeros.shape[0]), max_iter=max_iter
    )
    w = result.x
    grad_norm = jnp.linalg.norm(jax.grad(objective)(w))
    if fit_intercept:
        w, b = w[:-1], w[-1] * scaling
    else:
        b = jnp.zeros([], dtype)
    return SVMPrimalParams(w, b, grad_norm.astype(dtype), result.converged, result.n_iter)
