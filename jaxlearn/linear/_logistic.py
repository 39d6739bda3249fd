r"""L2-regularised logistic regression solved to a gradient tolerance by L-BFGS (UML section 9.3).

The objective is scikit-learn's (``LogisticRegression(solver="lbfgs")``), with per-example weights
:math:`s_i` and an unpenalised intercept; ``C`` and ``tol`` are traced, so ``jax.vmap`` over ``C`` is
one compiled program and a new ``C`` compiles nothing. The multinomial version is
:func:`jaxlearn.multiclass.multinomial_logistic_regression`.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import POSITIVE_OR_INF, check_sample
from jaxlearn._cpu_jit import UNOPTIMISED, cpu_jit
from jaxlearn._lbfgs import check_sample_weight, minimize_lbfgs
from jaxlearn._shared import as_float
from jaxlearn.core import (
    NON_NEGATIVE,
    POSITIVE_INT,
    BatchLearner,
    learner_factory,
    loadable,
)
from jaxlearn.linear._common import linear_predict, linear_score

Array = jax.Array


@loadable
class LogisticRegressionParams(NamedTuple):
    r"""``w``: (d,) the weights; ``b``: the intercept (0 unless ``fit_intercept``); ``converged``:
    :math:`\max_j|\nabla_j F| \le` ``tol`` at the output; ``n_iter``: L-BFGS iterations (int32);
    ``grad_norm``: that :math:`\max_j|\nabla_j F|` (:math:`F`: the objective divided by
    :math:`C\sum_i s_i`)."""

    w: Array
    b: Array
    converged: Array
    n_iter: Array
    grad_norm: Array


def _check(X, y, sample_weight=None):
    check_sample(X, y)
    check_sample_weight(sample_weight, np.shape(X)[0])


def weights_of(sample_weight: Optional[ArrayLike], m: int, dtype) -> Array:
    """``sample_weight`` as an (m,) array of ``dtype`` (ones when ``None``)."""
    if sample_weight is None:
        return jnp.ones(m, dtype)
    return jnp.asarray(sample_weight).astype(dtype)


@learner_factory(
    "C", "tol", ranges={"C": POSITIVE_OR_INF, "tol": NON_NEGATIVE, "max_iter": POSITIVE_INT}
)
def logistic_regression(
    C: ArrayLike = 1.0, *, tol: ArrayLike = 1e-4, max_iter: int = 100, fit_intercept: bool = True
) -> BatchLearner:
    r"""Binary L2-regularised logistic regression (labels in {-1, +1}), solved by L-BFGS.

    .. math::
        \min_{w, b}\ C\sum_{i=1}^m s_i \log\big(1 + e^{-y_i(\langle w, x_i\rangle + b)}\big)
        + \frac12\|w\|^2, \qquad P(y = 1 \mid x) = \frac{1}{1 + e^{-(\langle w, x\rangle + b)}}

    the logistic loss of UML section 9.3 with Tikhonov regularisation (section 13.1), scikit-learn's
    objective. ``minimize_lbfgs`` (Nocedal & Wright, Algorithm 7.5) minimises it
    divided by :math:`C\sum_i s_i` (the same minimiser) from :math:`w = 0, b = 0` until the largest
    gradient entry is at most ``tol`` or ``max_iter`` iterations, as scikit-learn stops.

    Args:
      C: the inverse regularisation :math:`C > 0` (traced: ``jax.vmap`` over it sweeps a grid);
        ``inf``: no penalty (scikit-learn's ``penalty=None``).
      tol: the gradient tolerance (traced).
      max_iter: the most L-BFGS iterations (static).
      fit_intercept: learn the unpenalised intercept ``b`` (static).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) ->
      LogisticRegressionParams`` (``key`` unused; ``sample_weight`` (m,) >= 0, ones by default),
      ``predict`` +1 iff :math:`\langle w, x\rangle + b > 0`, ``decision_function`` the score;
      :func:`logistic_predict_proba` the probabilities.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import linear
      >>> X, y = jnp.array([[-2.0], [-1.0], [1.0], [2.0]]), jnp.array([-1.0, 1.0, -1.0, 1.0])
      >>> learner = linear.logistic_regression(C=1.0)
      >>> params = learner.fit(None, X, y)
      >>> round(float(params.w[0]), 2), bool(params.converged)  # scikit-learn's coef_: 0.2904
      (0.29, True)
      >>> linear.logistic_predict_proba(params, jnp.array([[0.0]])).round(4).tolist()
      [[0.5, 0.5]]

    References:
      UML section 9.3 (logistic regression), section 13.1 (regularised loss minimisation); Nocedal &
      Wright (2006), *Numerical Optimization*, section 7.2 (L-BFGS).
    """

    def fit(key, X, y, sample_weight=None):
        del key  # deterministic
        X, y = as_float(X, y)
        s = weights_of(sample_weight, X.shape[0], X.dtype)
        return _fit(X, y, s, C, tol, max_iter=max_iter, fit_intercept=fit_intercept)

    return BatchLearner(fit, linear_predict, linear_score, check=_check)


def logistic_predict_proba(params: LogisticRegressionParams, X: ArrayLike) -> Array:
    r"""The probabilities of the labels -1 and +1: columns :math:`1 - \sigma(z)` and :math:`\sigma(z)`,
    :math:`z = \langle w, x\rangle + b`, shape (n, 2)."""
    if not isinstance(params, LogisticRegressionParams):
        raise TypeError(
            f"expected `params` the LogisticRegressionParams of a fit, got {type(params).__name__}"
        )
    z = linear_score(params, X)
    return jnp.stack([jax.nn.sigmoid(-z), jax.nn.sigmoid(z)], axis=-1)


def _objective(params, X, y, s, C, total):
    w, b = params
    z = X @ w + b
    return s @ jax.nn.softplus(-y * z) / total + (w @ w) / (2 * C * total)


@cpu_jit(static_argnames=("max_iter", "fit_intercept"), small_data_options=UNOPTIMISED)
def _fit(X, y, s, C, tol, *, max_iter, fit_intercept):
    dtype = X.dtype
    C = jnp.asarray(C).astype(dtype)
    total = jnp.sum(s)
    zero = jnp.zeros([], dtype)
    if fit_intercept:
        fun = functools.partial(_objective, X=X, y=y, s=s, C=C, total=total)
        x0 = (jnp.zeros(X.shape[1], dtype), zero)
    else:
        fun = lambda w: _objective((w[0], zero), X, y, s, C, total)  # noqa: E731
        x0 = (jnp.zeros(X.shape[1], dtype),)
    result = minimize_lbfgs(fun, x0, tol=tol, max_iter=max_iter)
    w = result.x[0]
    b = result.x[1] if fit_intercept else zero
    return LogisticRegressionParams(w, b, result.converged, result.n_iter, result.grad_norm)
