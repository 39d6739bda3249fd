r"""Soft-SVM solved exactly by dual coordinate descent (Hsieh et al. 2008; LIBLINEAR ``-s 3`` / ``-s 1``).

The primal (UML section 15.2 in scikit-learn's scaling, with per-example costs :math:`C_i`) and its dual

.. math::
    \min_w \tfrac12\|w\|^2 + \sum_i C_i\,\xi_i(w), \qquad
    \min_{0 \le \alpha_i \le U_i} \tfrac12\alpha^\top(Q + D)\alpha - \sum_i\alpha_i, \quad
    Q_{ij} = y_i y_j\langle x_i, x_j\rangle,

with :math:`\xi_i = \max(0, 1 - y_i\langle w, x_i\rangle)` (hinge: :math:`U_i = C_i`, :math:`D = 0`) or its
square (:math:`U_i = \infty`, :math:`D_{ii} = 1/(2C_i)`), :math:`w = \sum_i \alpha_i y_i x_i`. One
coordinate at a time, exactly, in a random order each epoch, with LIBLINEAR's shrinking, in a bounded
``lax.while_loop``; ``C`` is traced, so a sweep over it is one program.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn import _active_set as active_set
from jaxlearn._checks import check_positive_int, check_sample
from jaxlearn._lbfgs import check_sample_weight
from jaxlearn._shared import as_float
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.linear._common import linear_predict, linear_score

Array = jax.Array

#: The losses of the dual solvers (LIBLINEAR's L1-loss and L2-loss SVMs).
LOSSES = ("hinge", "squared_hinge")
#: A projected gradient below this is not a move (LIBLINEAR's threshold).
_MOVE = 1e-12


@loadable
class SVMDualCDParams(NamedTuple):
    r"""The Soft-SVM solution and its certificates.

    Attributes:
      w: the weights, shape ``(d,)``; ``b``: the intercept (``intercept_scaling`` times the weight of
        the constant feature; 0 unless ``fit_intercept``).
      gap: the duality gap :math:`P(w) - D(\alpha) \ge 0` at the returned point (in the primal's scale).
      violation: the last epoch's projected-gradient spread :math:`\max_i PG_i - \min_i PG_i`.
      converged: the spread fell to ``tol`` with every coordinate active (LIBLINEAR's stopping rule).
      n_iter: the epochs run (int32).
    """

    w: Array
    b: Array
    gap: Array
    violation: Array
    converged: Array
    n_iter: Array


def check_loss(loss: str) -> str:
    if loss not in LOSSES:
        raise ValueError(f"expected `loss` one of {', '.join(map(repr, LOSSES))}, got {loss!r}")
    return loss


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
def svm_dual_cd(
    C: ArrayLike,
    *,
    loss: str = "hinge",
    tol: ArrayLike = 1e-4,
    max_iter: int = 1000,
    fit_intercept: bool = False,
    intercept_scaling: ArrayLike = 1.0,
) -> BatchLearner:
    r"""Soft-SVM (hinge or squared hinge) by dual coordinate descent (UML section 15.2; Hsieh et al. 2008).

    .. math::
        \min_w \tfrac12\|w\|^2 + C\sum_i s_i\,\xi_i, \qquad
        \alpha_i \leftarrow \min\Big(\max\Big(\alpha_i - \frac{G_i}{\bar Q_{ii}}, 0\Big), U_i\Big), \quad
        G_i = y_i\langle w, x_i\rangle - 1 + D_{ii}\alpha_i

    (:math:`s_i` the sample weights; :math:`U_i = C s_i`, :math:`D_{ii} = 0` for the hinge,
    :math:`U_i = \infty`, :math:`D_{ii} = 1/(2Cs_i)` for the squared hinge). For the hinge this is UML's
    Soft-SVM (15.4) times :math:`1/(\lambda m)` with :math:`\lambda = 1/(C m)`: the minimiser of
    :func:`soft_svm` ``(lam=1/(C m))``, computed exactly. Each epoch visits the active coordinates in a
    random order drawn from ``key`` and shrinks those at a bound whose gradient points outwards; the
    loop stops when the projected gradients' spread :math:`\max_i PG_i - \min_i PG_i \le` ``tol`` over
    all coordinates (LIBLINEAR's rule), or after ``max_iter`` epochs (``converged`` is then ``False``).

    Args:
      C: :math:`C > 0` (traced: ``jax.vmap`` over it sweeps a grid in one program).
      loss: ``"hinge"`` (UML's Soft-SVM; LIBLINEAR ``-s 3``) or ``"squared_hinge"`` (``-s 1``) (static).
      tol: the stopping tolerance on the projected-gradient spread (traced).
      max_iter: the most epochs (static).
      fit_intercept: a constant feature of value ``intercept_scaling`` whose weight is regularised like
        the others (LIBLINEAR's bias; UML section 15.1.1); ``b`` is ``intercept_scaling`` times it.
      intercept_scaling: that feature's value (traced).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) -> SVMDualCDParams``
      (labels in {-1, +1}; ``sample_weight`` >= 0 scales each example's :math:`C`; a label 0 is an
      example left out), ``predict`` +1 iff :math:`\langle w, x\rangle + b > 0`, ``decision_function``
      the score.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X, y = jnp.array([[2.0, 1.0], [1.0, 2.0], [-1.0, -2.0]]), jnp.array([1.0, 1.0, -1.0])
      >>> params = svm_dual_cd(1.0).fit(jax.random.PRNGKey(0), X, y)
      >>> [round(v, 3) for v in params.w.tolist()], bool(params.converged)  # the max-margin w
      ([0.333, 0.333], True)

    References:
      UML sections 15.2, 15.4; Hsieh, Chang, Lin, Keerthi and Sundararajan (2008), "A dual coordinate
      descent method for large-scale linear SVM", Algorithms 1 and 3 (shrinking); Fan et al. (2008),
      "LIBLINEAR".
    """
    check_loss(loss)
    max_iter = check_positive_int("max_iter", max_iter)
    if not isinstance(fit_intercept, (bool, np.bool_)):
        raise TypeError(f"expected `fit_intercept` a bool, got {fit_intercept!r}")
    static = dict(loss=loss, max_iter=max_iter, fit_intercept=bool(fit_intercept))

    def fit(key, X, y, sample_weight=None):
        X, y = as_float(X, y)
        weight = (
            jnp.ones_like(y)
            if sample_weight is None
            else jnp.asarray(sample_weight).astype(X.dtype)
        )
        key = jax.random.PRNGKey(0) if key is None else key
        return _fit(key, X, y, weight, C, tol, intercept_scaling, **static)

    def check(X, y, sample_weight=None):
        check_sample(X, y)
        check_sample_weight(sample_weight, np.shape(X)[0])

    return BatchLearner(fit, linear_predict, linear_score, check=check)


def augment(X: Array, fit_intercept: bool, intercept_scaling) -> Array:
    """``X`` with a last column of ``intercept_scaling`` when ``fit_intercept`` (LIBLINEAR's bias)."""
    if not fit_intercept:
        return X
    column = jnp.full((X.shape[0], 1), jnp.asarray(intercept_scaling).astype(X.dtype))
    return jnp.concatenate([X, column], axis=1)


class _State(NamedTuple):
    alpha: Array
    w: Array
    index: Array  # a permutation of the coordinates, the active ones (LIBLINEAR's active set) first
    num_active: Array
    pg_max: Array  # the previous epoch's bounds, for shrinking
    pg_min: Array
    spread: Array
    stop: Array
    epoch: Array


@functools.partial(jax.jit, static_argnames=("loss", "max_iter", "fit_intercept"))
def _fit(key, X, y, weight, C, tol, intercept_scaling, *, loss, max_iter, fit_intercept):
    dtype = X.dtype
    Xa = augment(X, fit_intercept, intercept_scaling)
    m = Xa.shape[0]
    cost = jnp.where(
        y != 0, jnp.asarray(C).astype(dtype) * weight, 0
    )  # C_i; a label 0 leaves the example out
    free = cost > 0  # the coordinates that may move
    safe = jnp.where(free, cost, jnp.ones_like(cost))
    if loss == "hinge":
        upper, diag = cost, jnp.zeros_like(cost)
    else:
        upper, diag = (
            jnp.where(free, jnp.inf, 0).astype(dtype),
            jnp.where(free, 0.5 / safe, 0).astype(dtype),
        )
    Z = y[:, None] * Xa  # rows y_i x_i
    qd = jnp.sum(Z * Z, axis=1) + diag
    inf = jnp.asarray(jnp.inf, dtype)
    tol = jnp.asarray(tol).astype(dtype)

    start, num_free = active_set.first(free)

    def epoch(state):
        """One pass over the active coordinates in a random order (:mod:`jaxlearn._active_set`)."""

        def visit(carry):
            s, n, index, alpha, w, pg_max, pg_min, bits = carry
            index, i, bits = active_set.draw_next(index, s, n, bits)
            a, u, z = alpha[i], upper[i], Z[i]
            g = jnp.sum(w * z) - 1 + diag[i] * a  # a sum, not a dot: the same rounding under vmap
            at_low, at_up = a <= 0, a >= u
            shrink = (at_low & (g > state.pg_max)) | (~at_low & at_up & (g < state.pg_min))
            pg = jnp.where(at_low, jnp.minimum(g, 0), jnp.where(at_up, jnp.maximum(g, 0), g))
            pg_max = jnp.where(shrink, pg_max, jnp.maximum(pg_max, pg))
            pg_min = jnp.where(shrink, pg_min, jnp.minimum(pg_min, pg))
            q = qd[i]
            step = jnp.where(q > 0, a - g / jnp.where(q > 0, q, 1), jnp.where(g < 0, u, 0))
            new = jnp.where(~shrink & (jnp.abs(pg) > _MOVE), jnp.clip(step, 0, u), a)
            index, s, n = active_set.retire(index, s, n, shrink)
            return s, n, index, alpha.at[i].set(new), w + (new - a) * z, pg_max, pg_min, bits

        seed = active_set.epoch_seed(key, state.epoch)
        carry = (jnp.int32(0), state.num_active, state.index, state.alpha, state.w, -inf, inf, seed)
        _, n, index, alpha, w, pg_max, pg_min, _ = jax.lax.while_loop(
            lambda c: c[0] < c[1], visit, carry
        )
        w = jnp.sum(alpha[:, None] * Z, axis=0)  # no drift from the incremental updates
        spread = pg_max - pg_min
        small = spread <= tol
        full = n == num_free  # nothing shrunk: the spread is over every coordinate
        restart = small & ~full  # LIBLINEAR: check again with every coordinate active
        pg_max = jnp.where(restart | (pg_max <= 0), inf, pg_max)
        pg_min = jnp.where(restart | (pg_min >= 0), -inf, pg_min)
        n = jnp.where(restart, num_free, n)
        return _State(alpha, w, index, n, pg_max, pg_min, spread, small & full, state.epoch + 1)

    def cond(state):
        return ~state.stop & (state.epoch < max_iter)

    init = _State(
        jnp.zeros(m, dtype),
        jnp.zeros(Xa.shape[1], dtype),
        start,
        num_free,
        inf,
        -inf,
        inf,
        jnp.zeros([], bool),
        jnp.zeros([], jnp.int32),
    )
    state = jax.lax.while_loop(cond, epoch, init)
    w, alpha = state.w, state.alpha
    slack = jnp.maximum(1 - Z @ w, 0)
    loss_terms = slack if loss == "hinge" else slack * slack
    half_norm = 0.5 * jnp.vdot(w, w)
    primal = half_norm + jnp.sum(jnp.where(free, cost * loss_terms, 0))
    dual = jnp.sum(alpha) - half_norm - 0.5 * jnp.sum(diag * alpha * alpha)
    violation = jnp.where(jnp.isfinite(state.spread), jnp.maximum(state.spread, 0), 0).astype(dtype)
    if fit_intercept:
        w, b = w[:-1], w[-1] * jnp.asarray(intercept_scaling).astype(dtype)
    else:
        b = jnp.zeros([], dtype)
    return SVMDualCDParams(w, b, primal - dual, violation, state.stop, state.epoch)
