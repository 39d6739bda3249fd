r"""The squared-hinge linear SVM solved in its primal by Newton's method (the finite Newton method).

.. math:: \min_w F(w) = \tfrac12\|w\|^2 + \sum_i C_i \max(0, 1 - y_i\langle w, x_i\rangle)^2

is convex, piecewise quadratic and has a Lipschitz gradient. On the examples inside the margin,
:math:`A = \{i : y_i\langle w, x_i\rangle < 1\}`, the generalised Hessian is
:math:`H = I + 2\sum_{i \in A} C_i x_i x_i^\top`; each iteration solves :math:`H p = -\nabla F(w)` by a
Cholesky factorisation and takes the longest step :math:`t \in \{1, \frac12, \frac14, \dots\}` that
decreases :math:`F` enough (Armijo). Once the margin set stops changing the step is exact, so the
iterations are few (Keerthi and DeCoste's finite Newton method; LIBLINEAR's ``-s 2`` solves the same
problem by a trust-region Newton method). An iteration costs :math:`O(m d^2 + d^3)`: the solver for
samples of many examples and up to some thousands of features. Where :math:`H`'s condition number
nears the float resolution (float32, collinear features, a large :math:`C`) the Cholesky factor of
the formed :math:`H` gives no descent direction; the fit then goes on with directions from a QR
factorisation of :math:`H`'s square root :math:`[\sqrt{2C_A}\,X_A;\ I]`, whose condition number is
the square root of :math:`H`'s.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory
from jaxlearn.linear._dual_cd import augment
from jaxlearn.linear._primal import SVMPrimalParams, primal_learner, stopping_share

Array = jax.Array

#: The Armijo constant: a step must decrease :math:`F` by this share of its first-order prediction.
ARMIJO = 1e-4
#: The most halvings of a step.
HALVINGS = 30


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
def svm_primal_newton(
    C: ArrayLike,
    *,
    tol: ArrayLike = 1e-4,
    max_iter: int = 1000,
    fit_intercept: bool = False,
    intercept_scaling: ArrayLike = 1.0,
) -> BatchLearner:
    r"""The squared-hinge SVM by Newton's method on its primal (UML section 15.2 with the squared hinge).

    .. math::
        \min_w \tfrac12\|w\|^2 + C\sum_i s_i \max(0, 1 - y_i\langle w, x_i\rangle)^2, \qquad
        \text{until } \|\nabla F(w)\|_2 \le \mathrm{tol}\,\frac{\max(\min(m_+, m_-), 1)}{m}\,\|\nabla F(0)\|_2

    (:math:`s_i` the sample weights, :math:`m_\pm` the examples of each label, :math:`m = m_+ + m_-`,
    examples of label 0 left out: LIBLINEAR's primal
    stopping rule). Each iteration is a Newton step on the generalised Hessian of the examples inside
    the margin, shortened by halving until it decreases :math:`F` enough. The minimiser is
    :func:`svm_primal_lbfgs`'s and :func:`svm_dual_cd`'s with ``loss="squared_hinge"``, in far fewer
    iterations; each costs :math:`O(m d^2 + d^3)`, so for wide samples prefer
    :func:`svm_primal_lbfgs`.

    Args:
      C: :math:`C > 0` (traced: ``jax.vmap`` over it sweeps a grid in one program).
      tol: the relative gradient tolerance (traced).
      max_iter: the most Newton iterations (static).
      fit_intercept: a constant feature of value ``intercept_scaling``, regularised (LIBLINEAR's bias).
      intercept_scaling: that feature's value (traced).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) -> SVMPrimalParams``
      (``key`` unused; labels in {-1, +1}; a label 0 is an example left out), ``predict`` +1 iff
      :math:`\langle w, x\rangle + b > 0`, ``decision_function`` the score.

    Examples:
      >>> import jax.numpy as jnp
      >>> X, y = jnp.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0]]), jnp.array([1.0, 1.0, -1.0])
      >>> params = svm_primal_newton(10.0).fit(None, X, y)
      >>> [round(v, 2) for v in params.w.tolist()], bool(params.converged), int(params.n_iter)
      ([0.33, 0.33], True, 1)

    References:
      UML section 15.2; Keerthi and DeCoste (2005), "A modified finite Newton method for fast
      solution of large scale linear SVMs"; Lin, Weng and Keerthi (2008), "Trust region Newton method
      for large-scale logistic regression" (LIBLINEAR's primal L2-loss SVM and its stopping rule).
    """
    return primal_learner(_fit, C, tol, max_iter, fit_intercept, intercept_scaling)


@functools.partial(jax.jit, static_argnames=("max_iter", "fit_intercept"))
def _fit(X, y, weight, C, tol, intercept_scaling, *, max_iter, fit_intercept):
    dtype = X.dtype
    Z = y[:, None] * augment(X, fit_intercept, intercept_scaling)  # rows y_i x_i (0: left out)
    cost = jnp.where(y != 0, jnp.asarray(C).astype(dtype) * weight, 0)
    eye = jnp.eye(Z.shape[1], dtype=dtype)

    def objective(w):
        slack = jnp.maximum(1 - Z @ w, 0)
        return 0.5 * jnp.vdot(w, w) + jnp.sum(cost * slack * slack)

    def gradient(w):
        slack = jnp.maximum(1 - Z @ w, 0)
        return w - 2 * Z.T @ (cost * slack)

    share = stopping_share(y, dtype)
    w = jnp.zeros(Z.shape[1], dtype)
    threshold = jnp.asarray(tol).astype(dtype) * share * jnp.linalg.norm(gradient(w))

    def by_cholesky(w, grad):  # the Newton system H p = -grad, H formed
        inside = (Z @ w < 1).astype(dtype) * cost  # the generalised Hessian's examples
        hessian = eye + 2 * (Z.T * inside) @ Z
        return -jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(hessian), grad)

    def by_qr(w, grad):
        # H = B'B and grad = B'r for B = [sqrt(2 c_A) Z_A; I], r = [-sqrt(2 c_A) slack_A; w]: the
        # direction is the least-squares solution of B p = -r, from the QR factorisation of [B, -r]
        margins = Z @ w
        root = jnp.sqrt(2 * jnp.where(margins < 1, cost, 0))
        B = jnp.concatenate([root[:, None] * Z, eye])
        r = jnp.concatenate([root * jnp.maximum(1 - margins, 0), -w])
        R = jnp.linalg.qr(jnp.concatenate([B, r[:, None]], axis=1), mode="r")
        return jax.scipy.linalg.solve_triangular(R[:-1, :-1], R[:-1, -1])

    def newton_step(direction_of):
        def step(state):
            w, value, grad, n_iter, _ = state
            direction = direction_of(w, grad)
            slope = jnp.vdot(grad, direction)  # < 0: H is positive definite

            def too_long(search):
                t, trial = search
                return (trial > value + ARMIJO * t * slope) & (t > 2.0**-HALVINGS)

            def halve(search):
                t = search[0] / 2
                return t, objective(w + t * direction)

            first = (jnp.ones([], dtype), objective(w + direction))
            t, trial = jax.lax.while_loop(too_long, halve, first)
            stuck = ~(trial < value)  # no decrease at the float resolution: stay, stop unconverged
            new = jnp.where(stuck, w, w + t * direction)
            value = jnp.where(stuck, value, trial)
            return new, value, gradient(new), n_iter + 1, stuck

        return step

    def going(state):
        _, _, grad, n_iter, stuck = state
        return (jnp.linalg.norm(grad) > threshold) & (n_iter < max_iter) & ~stuck

    state = (w, objective(w), gradient(w), jnp.int32(0), jnp.zeros([], bool))
    state = jax.lax.while_loop(going, newton_step(by_cholesky), state)
    # Formed in float32, H loses its smallest eigenvalues once its condition number nears 1/eps
    # (collinear features, a large C): its Cholesky factor then gives no descent direction. A fit
    # stuck so goes on from where it stopped with the direction from a QR factorisation of H's square
    # root (as accurate as the data allows; twice the cost of forming H). The other fits, and every
    # fit under vmap while none is stuck, run no iteration of this loop.
    state = jax.lax.while_loop(going, newton_step(by_qr), (*state[:4], jnp.zeros([], bool)))
    w, _, grad, n_iter, _ = state
    grad_norm = jnp.linalg.norm(grad)
    n_iter = jnp.minimum(n_iter, max_iter)
    if fit_intercept:
        w, b = w[:-1], w[-1] * jnp.asarray(intercept_scaling).astype(dtype)
    else:
        b = jnp.zeros([], dtype)
    return SVMPrimalParams(w, b, grad_norm.astype(dtype), grad_norm <= threshold, n_iter)
