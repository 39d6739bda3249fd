r"""Multinomial (softmax) logistic regression with an L2 penalty, solved by L-BFGS (UML section 9.3,
the multiclass log loss of section 17.2).

scikit-learn's multinomial objective (``LogisticRegression(solver="lbfgs")`` on three or more classes):
one weight vector and one unpenalised intercept per class; ``C`` and ``tol`` are traced. The binary
version is :func:`jaxlearn.linear.logistic_regression`.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import POSITIVE_OR_INF, check_multiclass_sample, check_num_classes
from jaxlearn._cpu_jit import UNOPTIMISED, cpu_jit
from jaxlearn._lbfgs import check_sample_weight, minimize_lbfgs
from jaxlearn.core import (
    NON_NEGATIVE,
    POSITIVE_INT,
    BatchLearner,
    learner_factory,
    loadable,
)
from jaxlearn.multiclass._common import NUM_CLASSES, as_sample, batch_X, width_error

Array = jax.Array


@loadable
class MultinomialLogisticParams(NamedTuple):
    r"""``w``: (k, d) the class weight vectors; ``b``: (k,) the intercepts (centred: they sum to 0; 0
    unless ``fit_intercept``); ``converged``, ``n_iter``, ``grad_norm``: as
    :class:`jaxlearn.linear.LogisticRegressionParams`."""

    w: Array
    b: Array
    converged: Array
    n_iter: Array
    grad_norm: Array


@learner_factory(
    "C",
    "tol",
    ranges={
        "C": POSITIVE_OR_INF,
        "num_classes": NUM_CLASSES,
        "tol": NON_NEGATIVE,
        "max_iter": POSITIVE_INT,
    },
)
def multinomial_logistic_regression(
    C: ArrayLike,
    num_classes: int,
    *,
    tol: ArrayLike = 1e-4,
    max_iter: int = 100,
    fit_intercept: bool = True,
) -> BatchLearner:
    r"""Multinomial logistic regression (labels ``0..k-1``), L2-regularised, solved by L-BFGS.

    .. math::
        \min_{W, b}\ C\sum_{i=1}^m s_i\Big(\log\sum_{y=0}^{k-1} e^{\langle w_y, x_i\rangle + b_y}
        - \langle w_{y_i}, x_i\rangle - b_{y_i}\Big) + \frac12\|W\|_F^2, \qquad
        P(y \mid x) = \operatorname{softmax}_y(\langle w_y, x\rangle + b_y)

    scikit-learn's multinomial objective, minimised divided by :math:`C\sum_i s_i` by
    ``minimize_lbfgs`` from :math:`W = 0, b = 0` until the largest gradient entry is
    at most ``tol`` or ``max_iter`` iterations. The penalty makes :math:`W` unique
    (:math:`\sum_y w_y = 0`); the intercepts are unique up to a constant, returned centred.

    Args:
      C: the inverse regularisation :math:`C > 0` (traced: ``jax.vmap`` over it sweeps a grid);
        ``inf``: no penalty (scikit-learn's ``penalty=None``).
      num_classes: :math:`k \ge 2` (static).
      tol: the gradient tolerance (traced).
      max_iter: the most L-BFGS iterations (static).
      fit_intercept: learn the unpenalised intercepts ``b`` (static).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) ->
      MultinomialLogisticParams`` (``key`` unused), ``predict`` the argmax labels (int32, ties to the
      smallest), ``decision_function`` the scores (n, k); :func:`multinomial_predict_proba` the
      probabilities.

    Examples:
      >>> import jax.numpy as jnp
      >>> from jaxlearn import multiclass
      >>> X = jnp.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [1.5, 0.2]])
      >>> learner = multiclass.multinomial_logistic_regression(10.0, 3)
      >>> params = learner.fit(None, X, jnp.array([0, 1, 2, 0]))
      >>> learner.predict(params, X).tolist(), bool(params.converged)
      ([0, 1, 2, 0], True)
      >>> multiclass.multinomial_predict_proba(params, X).sum(axis=1).round(4).tolist()
      [1.0, 1.0, 1.0, 1.0]

    References:
      UML section 9.3 (logistic regression), section 17.2 (multiclass losses); Nocedal & Wright
      (2006), *Numerical Optimization*, section 7.2 (L-BFGS).
    """
    k = check_num_classes(num_classes)

    def check(X, y, sample_weight=None):
        check_multiclass_sample(X, y, k)
        check_sample_weight(sample_weight, np.shape(X)[0])

    def fit(key, X, y, sample_weight=None):
        del key  # deterministic
        X, y = as_sample(X, y)
        s = (
            jnp.ones(X.shape[0], X.dtype)
            if sample_weight is None
            else jnp.asarray(sample_weight).astype(X.dtype)
        )
        return _fit(X, y, s, C, tol, num_classes=k, max_iter=max_iter, fit_intercept=fit_intercept)

    return BatchLearner(fit, _predict, _scores, check=check)


def _scores(params, X):
    X = batch_X(X)
    if X.shape[1] != params.w.shape[-1]:
        raise width_error(X, params.w.shape[-1])
    return X.astype(params.w.dtype) @ params.w.T + params.b


def _predict(params, X):
    return jnp.argmax(_scores(params, X), axis=-1).astype(jnp.int32)


def multinomial_predict_proba(params: MultinomialLogisticParams, X: ArrayLike) -> Array:
    r"""The class probabilities :math:`\operatorname{softmax}(W x + b)`, shape (n, k)."""
    if not isinstance(params, MultinomialLogisticParams):
        raise TypeError(
            f"expected `params` the MultinomialLogisticParams of a fit, got {type(params).__name__}"
        )
    return jax.nn.softmax(_scores(params, X), axis=-1)


def _objective(params, X, Y, s, C, total):
    W, b = params
    Z = X @ W.T + b
    losses = jax.nn.logsumexp(Z, axis=1) - jnp.sum(Y * Z, axis=1)
    return s @ losses / total + jnp.sum(W * W) / (2 * C * total)


@cpu_jit(
    static_argnames=("num_classes", "max_iter", "fit_intercept"), small_data_options=UNOPTIMISED
)
def _fit(X, y, s, C, tol, *, num_classes, max_iter, fit_intercept):
    dtype = X.dtype
    C = jnp.asarray(C).astype(dtype)
    Y = jax.nn.one_hot(y, num_classes, dtype=dtype)
    total = jnp.sum(s)
    zeros = jnp.zeros(num_classes, dtype)
    W0 = jnp.zeros((num_classes, X.shape[1]), dtype)
    if fit_intercept:
        fun = functools.partial(_objective, X=X, Y=Y, s=s, C=C, total=total)
        x0 = (W0, zeros)
    else:
        fun = lambda W: _objective((W[0], zeros), X, Y, s, C, total)  # noqa: E731
        x0 = (W0,)
    result = minimize_lbfgs(fun, x0, tol=tol, max_iter=max_iter)
    W = result.x[0]
    b = result.x[1] - jnp.mean(result.x[1]) if fit_intercept else zeros
    return MultinomialLogisticParams(W, b, result.converged, result.n_iter, result.grad_norm)
