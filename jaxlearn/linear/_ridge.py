"""Ridge regression and kernel ridge regression in closed form (COMP0078; UML Exercise 16.3).

Mind the scalings: :func:`ridge` penalises a *sum* of squares (COMP0078), :func:`kernel_ridge` an
*average* with a factor 1/2 (UML (16.8)); ``ridge(lam)`` is ``kernel_ridge(kernels.linear(), lam / (2 m))``.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.linalg import cho_factor, cho_solve
from jax.typing import ArrayLike

from jaxlearn._checks import check_positive_int, check_sample
from jaxlearn._lbfgs import check_sample_weight
from jaxlearn._shared import as_float, float_dtype
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.kernels import Kernel, as_tree, check_kernel, expansion, gram
from jaxlearn.linear._common import as_support_dtype, check_instances, kernel_example
from jaxlearn.linear._logistic import weights_of

_check_regression_sample = functools.partial(check_sample, labels=None)


def _check_weighted_regression_sample(X, y, sample_weight=None):
    _check_regression_sample(X, y)
    check_sample_weight(sample_weight, np.shape(X)[0])


Array = jax.Array


@loadable
class RidgeParams(NamedTuple):
    """``w``: (d,) the ridge weights."""

    w: Array


@loadable
class KernelRidgeParams(NamedTuple):
    r"""``support``: the (m, d) training instances; ``alpha``: (m,) the coefficients :math:`\alpha^*`, so
    that :math:`w^* = \sum_i \alpha^*_i \psi(x_i)`."""

    support: Array
    alpha: Array


def _solve_pd(A: Array, b: Array, smallest: Array) -> Array:
    """Solve ``A x = b`` for a symmetric ``A`` whose eigenvalues are at least ``smallest > 0``, by
    Cholesky (never an inverse). Where rounding has made ``A`` indefinite its Cholesky factor is not
    finite, and the solve takes ``A``'s eigendecomposition, the eigenvalues raised to ``smallest``."""
    x = cho_solve(cho_factor(A, lower=True), b)

    def by_eigenvalues():
        values, vectors = jnp.linalg.eigh(A)
        return vectors @ ((vectors.T @ b) / jnp.maximum(values, smallest))

    return jax.lax.cond(jnp.all(jnp.isfinite(x)), lambda: x, by_eigenvalues)


def _ridge_by_svd(X: Array, y: Array, lam: Array) -> Array:
    r""":math:`w = V \operatorname{diag}(\sigma / (\sigma^2 + \lambda)) U^\top y` for ``X`` :math:`= U
    \operatorname{diag}(\sigma) V^\top`: the ridge solution without forming :math:`X^\top X`, whose
    rounding would reach the directions ``X`` hardly spans."""
    s = power_of_two_scale(X)  # one scale for all columns keeps the penalty isotropic
    U, sigma, Vt = jnp.linalg.svd(X * s, full_matrices=False)
    return s * (Vt.T @ (sigma / (sigma * sigma + lam * s * s) * (U.T @ y)))


@learner_factory("lam", ranges={"lam": POSITIVE})
def ridge(lam: ArrayLike) -> BatchLearner:
    r"""Ridge regression without intercept, in closed form (sum of squared errors, as COMP0078 writes it).

    .. math:: w = \arg\min_w \sum_{i=1}^m (\langle w, x_i\rangle - y_i)^2 + \lambda\|w\|^2
        = (X^\top X + \lambda I_d)^{-1} X^\top y = X^\top (X X^\top + \lambda I_m)^{-1} y.

    This is scikit-learn's ``Ridge(alpha=lam, fit_intercept=False)`` and :func:`kernel_ridge` with
    :math:`\lambda_{\text{UML}} = \lambda / (2m)`. The smaller system (d x d or m x m, a static choice) is
    solved by Cholesky; for an intercept append a constant feature (it is then penalised too).

    Args:
      lam: :math:`\lambda > 0` (traced: sweep it with ``jax.vmap``; checked when concrete).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y)`` (``key`` unused, real ``y``) returns
      :class:`RidgeParams`; ``predict`` returns the real values :math:`\langle w, x\rangle`.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import linear
      >>> X, y = jnp.array([[1.0], [1.0]]), jnp.array([1.0, 3.0])
      >>> learner = linear.ridge(2.0)  # w = <x, y> / (||x||^2 + lam) = 4 / 4
      >>> learner.predict(learner.fit(jax.random.PRNGKey(0), X, y), jnp.array([[6.0]])).tolist()
      [6.0]

    References:
      COMP0078 "Regret Bounds for Linear Separation" (the objective, a sum of losses); UML Exercise 16.3,
      (16.8) for the scaling of :func:`kernel_ridge`.
    """

    def fit(key, X, y):
        return _ridge_fit(*as_float(X, y), lam)

    def predict(params, X):
        check_instances(X, params.w.shape[-1])
        return _linear_predict(params, X)

    return BatchLearner(fit, predict, check=_check_regression_sample)


def power_of_two_scale(a: Array, axis=None) -> Array:
    """``2**-e`` where ``max|a| = f 2**e``, ``f`` in [0.5, 1) and ``e > 0`` (else 1), along ``axis``:
    multiplying by it is exact and brings the largest entry below 1, so squares cannot overflow."""
    big = jnp.max(jnp.abs(a), axis=axis)
    e = jnp.where(jnp.isfinite(big), jnp.maximum(jnp.frexp(big)[1], 0), 0)
    return jnp.ldexp(jnp.ones_like(big), -e)


@jax.jit
def _ridge_fit(X, y, lam):
    # The squares of |x| >= 1e19 overflow float32: solve for X D (D a power of two per column, or one for
    # the dual) and y t, then undo it; scaling by powers of two is exact, so at ordinary scales nothing
    # changes.
    m, d = X.shape
    lam = jnp.asarray(lam).astype(X.dtype)
    t = power_of_two_scale(y)
    y = y * t
    if d <= m:  # static shapes: the d x d normal equations
        D = power_of_two_scale(X, axis=0)
        XD = X * D
        factor = cho_factor(XD.T @ XD + jnp.diag(lam * D * D), lower=True)
        solve = lambda: D * cho_solve(factor, XD.T @ y)  # noqa: E731
    else:  # the m x m dual system, the same w
        s = power_of_two_scale(X)
        Xs = X * s
        factor = cho_factor(Xs @ Xs.T + lam * s * s * jnp.eye(m, dtype=X.dtype), lower=True)
        solve = lambda: s * (Xs.T @ cho_solve(factor, y))  # noqa: E731
    # Where rounding has made the system indefinite (a tiny lam on collinear features, in float32),
    # its Cholesky factor is not finite: w then comes from X's SVD, as scikit-learn's ridge falls back
    # from Cholesky to its SVD solver.
    w = jax.lax.cond(
        jnp.all(jnp.isfinite(factor[0])), solve, functools.partial(_ridge_by_svd, X, y, lam)
    )
    return RidgeParams(w=w / t)


@jax.jit
def _linear_predict(params, X):
    return jnp.asarray(X).astype(params.w.dtype) @ params.w


@learner_factory(
    "kernel", "lam", ranges={"lam": POSITIVE, "batch_size": POSITIVE_INT}, functions=("kernel",)
)
def kernel_ridge(
    kernel: Kernel, lam: ArrayLike, *, batch_size: Optional[int] = None
) -> BatchLearner:
    r"""Kernel ridge regression in closed form, with UML's scaling (an average loss with a factor 1/2).

    .. math:: \min_w \lambda\|w\|^2 + \frac{1}{2m}\sum_{i=1}^m (\langle w, \psi(x_i)\rangle - y_i)^2: \qquad
        \alpha^* = (G + 2\lambda m I)^{-1} y, \qquad h(x) = \sum_i \alpha^*_i K(x_i, x),

    by the representer theorem (UML (16.8)-(16.9)); :math:`G + 2\lambda m I` is solved by Cholesky. The Gram
    matrix has :math:`m^2` entries; ``batch_size`` bounds the kernel's intermediates. With example
    weights :math:`s_i` (``fit(key, X, y, sample_weight)``) the loss is the weighted average
    :math:`\frac{1}{2S}\sum_i s_i(\cdot)^2`, :math:`S = \sum_i s_i`, and
    :math:`\alpha^* = D(DGD + 2\lambda S I)^{-1}Dy` with :math:`D = \mathrm{diag}(\sqrt{s})`: a row of
    weight 0 takes no part.

    Args:
      kernel: ``k(x, z) -> scalar`` (:mod:`jaxlearn.kernels`); its numeric parameters are traced.
      lam: :math:`\lambda > 0`, UML's scaling (traced; checked when concrete).
      batch_size: rows of kernel values computed at a time (``None``: all at once; static).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit`` (real ``y``) gives :class:`KernelRidgeParams`.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import kernels, linear
      >>> X, y = jnp.array([[1.0], [1.0]]), jnp.array([1.0, 3.0])
      >>> learner = linear.kernel_ridge(kernels.linear(), 0.5)  # = ridge(2 * 0.5 * m) = ridge(2.0)
      >>> learner.predict(learner.fit(jax.random.PRNGKey(0), X, y), jnp.array([[6.0]])).round(4).tolist()
      [6.0]

    References:
      UML Exercise 16.3, (16.8)-(16.9), section 16.2 (representer theorem).
    """
    kernel = as_tree(kernel)
    if batch_size is not None:
        batch_size = check_positive_int("batch_size", batch_size)

    def fit(key, X, y, sample_weight=None):
        check_kernel(kernel, kernel_example(X))
        X, y = as_float(X, y)  # promoted before the kernel
        weights = weights_of(sample_weight, X.shape[0], float_dtype(X))
        return _kernel_ridge_fit(kernel, X, y, weights, lam, batch_size)

    def predict(params, X):
        return _kernel_scores(
            kernel, params.support, params.alpha, as_support_dtype(params, X), batch_size
        )

    return BatchLearner(fit, predict, check=_check_weighted_regression_sample)


@functools.partial(jax.jit, static_argnums=(5,))
def _kernel_ridge_fit(kernel, X, y, weights, lam, batch_size):
    dtype = float_dtype(X)
    G = gram(kernel, X, batch_size=batch_size).astype(dtype)
    root = jnp.sqrt(weights)
    ridge_term = 2 * jnp.asarray(lam).astype(dtype) * jnp.sum(weights)
    G = root[:, None] * G * root[None, :]
    # a row of weight 0 is a row and column of zeros: 1 on its diagonal keeps the system regular
    # whatever the ridge term, and leaves the other rows' solution as it is
    diagonal = ridge_term + (weights == 0).astype(dtype)
    # G >= 0: the system's eigenvalues are at least the ridge term (a weight-0 row's is 1 more)
    alpha = root * _solve_pd(G + jnp.diag(diagonal), root * y, ridge_term)
    return KernelRidgeParams(support=X, alpha=alpha)


@functools.partial(jax.jit, static_argnums=(4,))
def _kernel_scores(kernel, support, alpha, X, batch_size):
    return expansion(kernel, support, alpha, X, batch_size=batch_size)
