r"""The kernel Soft-SVM solved exactly: libsvm's SMO over the Gram matrix (UML sections 15.2, 16.3).

The dual of the Soft-SVM with an unpenalised intercept (UML (15.4) in scikit-learn's scaling, with
per-example costs :math:`U_i = C s_i`)

.. math::
    \max_{\alpha}\ \sum_i \alpha_i - \tfrac12 \sum_{i,j} \alpha_i\alpha_j y_i y_j K(x_i, x_j)
    \quad\text{s.t.}\quad 0 \le \alpha_i \le U_i,\ \ \sum_i \alpha_i y_i = 0,

solved two coordinates at a time (sequential minimal optimisation), the pair chosen by libsvm's
second-order working-set selection (Fan, Chen and Lin 2005): deterministic, so the order of the
updates never depends on a random draw, nor on rows of zero cost (a zero-weight row is at both of
its bounds, never selected: a padded sample takes the same steps as the unpadded one). The intercept
is libsvm's (the mean of :math:`-y_i G_i` over the free coordinates), so the decision values are
those of scikit-learn's ``SVC`` on the same problem.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from jaxlearn._checks import check_sample
from jaxlearn._lbfgs import check_sample_weight
from jaxlearn._shared import as_float, sign_label
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.kernels import Kernel, as_tree, check_kernel, expansion
from jaxlearn.linear._common import as_support_dtype, kernel_example

Array = jax.Array
HIGHEST = jax.lax.Precision.HIGHEST  # float32 products in float32 (no TF32 on a GPU)

#: libsvm's step for a non-positive curvature :math:`K_{ii} + K_{jj} - 2K_{ij} \le 0`.
TAU = 1e-12
#: The iteration cap libsvm applies when none is given: :math:`\max(10^7, 100\,m)`.
LIBSVM_MAX_ITER = 10_000_000
#: The shape of the blocks of the Gram matrix computed at a time (:func:`gram_matrix`).
TILE = (16, 256)


@loadable
class KernelSVMDualCDParams(NamedTuple):
    r"""The kernel Soft-SVM's solution and its certificates.

    Attributes:
      support: the (m, d) training instances :math:`x_j` (rows of zero cost too, coefficient 0);
        (m, 0) with a precomputed kernel.
      dual_coef: (m,) :math:`y_j\alpha_j`, so that :math:`f(x) = \sum_j y_j\alpha_j K(x_j, x) + b`.
      b: the intercept (libsvm's :math:`-\rho`).
      violation: the maximal KKT violation :math:`\max_{I_{up}} -y_iG_i - \min_{I_{low}} -y_iG_i`
        at the returned point (:math:`G = Q\alpha - 1`); ``converged`` when it is ``<= tol``.
      gap: the duality gap :math:`P(w, b) - D(\alpha) \ge 0` (the primal in scikit-learn's scale).
      converged: the violation fell to ``tol`` (libsvm's stopping rule) within ``max_iter`` steps.
      n_iter: the SMO steps taken (int32).
    """

    support: Array
    dual_coef: Array
    b: Array
    violation: Array
    gap: Array
    converged: Array
    n_iter: Array


class DualSolution(NamedTuple):
    """What :func:`solve_dual` returns: the dual variables :math:`\\alpha` (m,), the intercept
    ``b``, the KKT ``violation``, the duality ``gap``, ``converged`` and ``n_iter``."""

    alpha: Array
    b: Array
    violation: Array
    gap: Array
    converged: Array
    n_iter: Array


@learner_factory(
    "kernel",
    "C",
    "tol",
    "max_iter",
    ranges={"C": POSITIVE, "tol": POSITIVE, "max_iter": POSITIVE_INT},
    functions=("kernel",),
)
def kernel_svm_dual_cd(
    kernel: Optional[Kernel],
    C: ArrayLike,
    *,
    tol: ArrayLike = 1e-3,
    max_iter: ArrayLike = LIBSVM_MAX_ITER,
) -> BatchLearner:
    r"""The kernel Soft-SVM with an intercept, solved exactly by SMO (UML sections 15.2, 16.3).

    .. math::
        \min_{w, b}\ \tfrac12\|w\|^2 + C\sum_i s_i\,\xi_i, \quad
        \xi_i = \max(0, 1 - y_i(\langle w, \psi(x_i)\rangle + b)), \quad
        w = \sum_i \alpha_i y_i\psi(x_i)

    (:math:`s_i` the sample weights; the intercept :math:`b` is not penalised, as libsvm's and
    scikit-learn's ``SVC``; UML (15.4) up to the scale :math:`\lambda = 1/(C m)`). Each step moves
    the pair :math:`(i, j)` of libsvm's second-order working-set selection along the constraint
    :math:`\sum_i \alpha_i y_i = 0` to the exact minimiser of the dual on that line, clipped to the
    box :math:`0 \le \alpha \le C s`:

    .. math::
        i = \arg\max_{t \in I_{up}} -y_tG_t, \quad j = \arg\min_{t \in I_{low},\, -y_tG_t < -y_iG_i}
        -\frac{(y_iG_i - y_tG_t)^2}{K_{ii} + K_{tt} - 2K_{it}}, \quad
        \alpha_i \mathrel{+}= y_i\tau,\ \alpha_j \mathrel{-}= y_j\tau

    in a bounded ``lax.while_loop`` until the maximal violation
    :math:`\max_{I_{up}} -y_tG_t - \min_{I_{low}} -y_tG_t \le` ``tol`` (libsvm's rule) or
    ``max_iter`` steps. The Gram matrix is computed once, from each pair of rows alone (so a row
    never changes another's entries). No shrinking and no kernel cache: memory is :math:`m^2`
    entries.

    Args:
      kernel: ``k(x, z)`` (:mod:`jaxlearn.kernels`; its parameters traced), or ``None``: the
        examples are given by their kernel values (scikit-learn's ``kernel="precomputed"``):
        ``fit`` takes the (m, m) Gram matrix as ``X``, ``decision_function`` the (n, m) values
        :math:`K(x, x_j)` of the points with the training examples.
      C: :math:`C > 0` (traced: ``jax.vmap`` over it sweeps a grid in one program).
      tol: the stopping tolerance on the maximal violation (traced; scikit-learn's default 1e-3).
      max_iter: the most SMO steps (traced int; default libsvm's own cap, :math:`10^7`).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) ->
      KernelSVMDualCDParams`` (labels in {-1, +1}; under ``jit``/``vmap``, as the multiclass
      reductions pass them, a label 0 is an example left out;
      ``sample_weight`` >= 0 scales each example's :math:`C`, and a weight 0 fixes :math:`\alpha_i =
      0`: the fit is that of the sample without the row; ``key`` is unused, the fit is
      deterministic), ``predict`` +1 iff :math:`f(x) > 0`, ``decision_function`` :math:`f(x) =
      \sum_j y_j\alpha_j K(x_j, x) + b`.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn import kernels
      >>> X = jnp.array([[0.0, 0.0], [0.1, -0.1], [2.0, 0.0], [0.0, -2.0], [-2.0, 0.1], [0.1, 2.0]])
      >>> y = jnp.array([1.0, 1.0, -1.0, -1.0, -1.0, -1.0])  # +1 near the origin
      >>> learner = kernel_svm_dual_cd(kernels.gaussian(0.5), C=10.0)
      >>> params = learner.fit(None, X, y)
      >>> learner.predict(params, X).tolist(), bool(params.converged)
      ([1.0, 1.0, -1.0, -1.0, -1.0, -1.0], True)

    References:
      UML sections 15.2, 15.4 and 16.3; Platt (1998), "Sequential minimal optimization"; Fan, Chen
      and Lin (2005), "Working set selection using second order information for training SVM"; Chang
      and Lin (2011), "LIBSVM", section 4.
    """
    kernel = None if kernel is None else as_tree(kernel)

    def check(X, y, sample_weight=None):
        check_sample(X, y)
        check_sample_weight(sample_weight, jnp.shape(X)[0])
        if kernel is None:
            check_gram("X", X, jnp.shape(X)[0])
        else:
            check_kernel(kernel, kernel_example(X))

    def fit(key, X, y, sample_weight=None):
        del key  # deterministic: the working set is chosen by the KKT violations
        if kernel is None:
            check_gram("X", X, jnp.shape(X)[0])
        X, y = as_float(X, y)
        weight = jnp.ones_like(y) if sample_weight is None else jnp.asarray(sample_weight)
        weight = weight.astype(X.dtype)
        return _fit(kernel, X, y, weight, C, tol, max_iter)

    def decision_function(params, X):
        X = as_support_dtype(params, X)
        if kernel is None:
            check_gram("X", X, params.dual_coef.shape[0])
        return _decision(kernel, params.support, params.dual_coef, params.b, X)

    def predict(params, X):
        return sign_label(decision_function(params, X))

    return BatchLearner(fit, predict, decision_function, check=check)


def check_gram(name: str, K: ArrayLike, m: int) -> None:
    """``K`` of shape (n, m): kernel values against the ``m`` training examples (a precomputed
    kernel)."""
    shape = jnp.shape(K)
    if len(shape) != 2 or shape[1] != m:
        raise ValueError(
            f"expected `{name}` of shape (n, {m}), the kernel values against the {m} training "
            f"examples (kernel=None: a precomputed kernel), got shape {shape}"
        )


def gram_matrix(kernel: Kernel, X: Array) -> Array:
    """``K[i, j] = kernel(X[i], X[j])``, evaluated pair by pair in tiles of a fixed shape
    (:data:`TILE` rows by columns, ``X`` padded with zeros to whole tiles): every tile runs the same
    program, so rows appended to ``X`` leave the entries of the others bit for bit (which the
    centred products of :func:`jaxlearn.kernels.gram` do not promise for the Gaussian kernel)."""
    m, rows, cols = X.shape[0], *TILE
    padded = lambda size: jnp.zeros((-(-m // size) * size, *X.shape[1:]), X.dtype).at[:m].set(X)
    A = padded(rows).reshape(-1, rows, *X.shape[1:])
    B = padded(cols).reshape(-1, cols, *X.shape[1:])
    tile = lambda a, b: jax.vmap(lambda x: jax.vmap(kernel, (None, 0))(x, b))(a)
    row_of_tiles = lambda a: jax.lax.map(lambda b: tile(a, b), B)
    tiles = jax.lax.map(row_of_tiles, A)  # (row tiles, column tiles, rows, columns)
    K = jnp.swapaxes(tiles, 1, 2).reshape(A.shape[0] * rows, B.shape[0] * cols)
    return K[:m, :m].astype(X.dtype)


@jax.jit
def _decision(kernel, support, dual_coef, b, X):
    r""":math:`\sum_j y_j\alpha_j K(x_j, x) + b` on the rows of ``X`` (with a precomputed kernel,
    ``X`` holds the values :math:`K(x, x_j)`)."""
    if kernel is None:
        return jnp.matmul(X, dual_coef, precision=HIGHEST) + b
    return expansion(kernel, support, dual_coef, X) + b


@jax.jit
def _fit(kernel, X, y, weight, C, tol, max_iter):
    K = X if kernel is None else gram_matrix(kernel, X)
    cost = jnp.where(y != 0, jnp.asarray(C).astype(X.dtype) * weight, 0)  # a label 0: left out
    labels = jnp.where(y < 0, -1, 1).astype(X.dtype)
    solution = solve_dual(lambda i: K[i], jnp.diagonal(K), labels, cost, tol, max_iter)
    support = X[:, :0] if kernel is None else X  # a precomputed kernel keeps no instances
    return KernelSVMDualCDParams(support, labels * solution.alpha, *solution[1:])


class _State(NamedTuple):
    alpha: Array
    G: Array  # the dual's gradient Q alpha - 1
    violation: Array
    stop: Array
    n_iter: Array


def _first(values: Array, extreme: Callable[[Array], Array]) -> Array:
    """The first index of ``extreme(values)`` (``jnp.argmax`` for ``jnp.max``) by two plain
    reductions, which XLA vectorises where it does not vectorise an arg-reduction."""
    index = jnp.arange(values.shape[0])
    first = jnp.min(jnp.where(values == extreme(values), index, values.shape[0]))
    return jnp.minimum(first, values.shape[0] - 1)  # in range with NaNs


def _sequential_sum(values: Array) -> Array:
    """``values[0] + values[1] + ...`` in this order: trailing zeros (padding) change nothing."""
    add = lambda k, total: total + values[k]
    return jax.lax.fori_loop(0, values.shape[0], add, jnp.zeros((), values.dtype), unroll=16)


def solve_dual(
    column: Callable[[Array], Array],
    diagonal: Array,
    y: Array,
    upper: Array,
    tol: ArrayLike,
    max_iter: ArrayLike,
) -> DualSolution:
    r"""libsvm's SMO on :math:`\min_\alpha \frac12\alpha^\top Q\alpha - \sum_i\alpha_i`,
    :math:`Q_{ij} = y_iy_jK_{ij}`, :math:`0 \le \alpha \le U`, :math:`y^\top\alpha = 0` (to call
    inside ``jit``; vmappable over every argument).

    Args:
      column: ``i -> K[i, :]`` (m,), the kernel values of example ``i`` with the others.
      diagonal: (m,) :math:`K_{ii}`.
      y: (m,) labels in {-1, +1}.
      upper: (m,) the bounds :math:`U_i \ge 0`; :math:`U_i = 0` fixes :math:`\alpha_i = 0`.
      tol, max_iter: the stopping tolerance on the maximal violation; the most steps.

    Returns:
      :class:`DualSolution`; ``b`` is libsvm's :math:`-\rho`.
    """
    dtype = diagonal.dtype
    m = y.shape[0]
    inf = jnp.asarray(jnp.inf, dtype)
    tol = jnp.asarray(tol).astype(dtype)
    max_iter = jnp.asarray(max_iter).astype(jnp.int32)
    upper = upper.astype(dtype)
    positive = y > 0
    index = jnp.arange(m)
    ones = jnp.ones((), dtype)

    def select(alpha, G):
        """libsvm's working set: ``(i, j, violation)``; ``j`` is ``m`` when no pair violates."""
        score = -y * G  # -y_t G_t
        up = jnp.where(positive, alpha < upper, alpha > 0)  # y_t alpha_t may grow
        low = jnp.where(positive, alpha > 0, alpha < upper)  # y_t alpha_t may shrink
        i = _first(jnp.where(up, score, -inf), jnp.max)
        g_max = jnp.where(up[i], score[i], -inf)
        g_min = jnp.min(jnp.where(low, score, inf))
        Ki = column(i)
        b = g_max - score
        quad = diagonal[i] + diagonal - 2 * Ki
        quad = jnp.where(quad > 0, quad, TAU)
        gain = jnp.where(low & (b > 0), -(b * b) / quad, inf)
        j = _first(gain, jnp.min)
        j = jnp.where(jnp.isfinite(gain[j]), j, m)
        return i, j, Ki, g_max - g_min

    def body(state):
        alpha, G = state.alpha, state.G
        i, j, Ki, violation = select(alpha, G)
        stop = (violation <= tol) | (j == m)
        j = jnp.minimum(j, m - 1)
        Kj = column(j)
        yi, yj = y[i], y[j]
        quad = diagonal[i] + diagonal[j] - 2 * Ki[j]
        quad = jnp.where(quad > 0, quad, TAU)
        step = (yi * -G[i] - yj * -G[j]) / quad  # along alpha_i += y_i t, alpha_j -= y_j t
        room_i = jnp.where(yi > 0, upper[i] - alpha[i], alpha[i])
        room_j = jnp.where(yj > 0, alpha[j], upper[j] - alpha[j])
        t = jnp.minimum(step, jnp.minimum(room_i, room_j))
        new_i = jnp.where(t >= room_i, jnp.where(yi > 0, upper[i], 0), alpha[i] + yi * t)
        new_j = jnp.where(t >= room_j, jnp.where(yj > 0, 0, upper[j]), alpha[j] - yj * t)
        new_i, new_j = jnp.where(stop, alpha[i], new_i), jnp.where(stop, alpha[j], new_j)
        d_i, d_j = new_i - alpha[i], new_j - alpha[j]
        G = G + y * (yi * d_i * Ki + yj * d_j * Kj)
        alpha = jnp.where(index == i, new_i, jnp.where(index == j, new_j, alpha))
        n_iter = state.n_iter + jnp.where(stop, 0, 1).astype(jnp.int32)
        return _State(alpha, G, violation, stop, n_iter)

    def cond(state):
        return ~state.stop & (state.n_iter < max_iter)

    zeros = jnp.zeros((m,), dtype)
    init = _State(zeros, -jnp.ones((m,), dtype), inf, jnp.zeros((), bool), jnp.zeros((), jnp.int32))
    state = jax.lax.while_loop(cond, body, init)
    alpha, G = state.alpha, state.G
    violation = select(alpha, G)[3]  # at the returned point (after the last step, too)
    violation = jnp.where(jnp.isfinite(violation), jnp.maximum(violation, 0), 0).astype(dtype)
    # libsvm's rho: the mean of y_i G_i over the free alphas, else the middle of their bounds
    yG = y * G
    free = (alpha > 0) & (alpha < upper)
    at_upper = (upper > 0) & (alpha >= upper)
    at_lower = (upper > 0) & (alpha <= 0)
    caps = (at_upper & ~positive) | (at_lower & positive)  # y_i G_i >= rho
    floors = (at_upper & positive) | (at_lower & ~positive)  # y_i G_i <= rho
    ub = jnp.min(jnp.where(caps, yG, inf))
    lb = jnp.max(jnp.where(floors, yG, -inf))
    n_free = jnp.sum(free.astype(jnp.int32))
    rho = jnp.where(
        n_free > 0,
        _sequential_sum(jnp.where(free, yG, 0)) / jnp.maximum(n_free, 1).astype(dtype),
        jnp.where(jnp.isinf(ub), lb, jnp.where(jnp.isinf(lb), ub, (ub + lb) * 0.5)),
    )
    b = -rho
    # the duality gap from G alone: Q alpha = G + 1, y_i f(x_i) = G_i + 1 + y_i b
    norm2 = jnp.sum(alpha * (G + ones))
    hinge = jnp.maximum(-G - y * b, 0)
    primal = 0.5 * norm2 + jnp.sum(jnp.where(upper > 0, upper * hinge, 0))
    dual = jnp.sum(alpha) - 0.5 * norm2
    converged = violation <= tol
    return DualSolution(
        alpha, b.astype(dtype), violation, (primal - dual).astype(dtype), converged, state.n_iter
    )
