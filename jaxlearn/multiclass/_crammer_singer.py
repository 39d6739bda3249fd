r"""The multiclass SVM of UML 17.2 solved exactly in its dual (Crammer & Singer 2001; Keerthi et al. 2008).

.. math::
    \min_W \tfrac12\sum_k\|w_k\|^2 + \sum_i C_i\max_k\big(1[k \ne y_i]
    + \langle w_k - w_{y_i}, x_i\rangle\big)

through its dual: per example :math:`i`, the :math:`k` variables :math:`\alpha_i` with
:math:`\sum_k \alpha_i^k = 0`, :math:`\alpha_i^k \le C_i 1[k = y_i]`, :math:`w_k = \sum_i \alpha_i^k x_i`.
The sequential dual method (LIBLINEAR ``-s 4``) solves each example's sub-problem exactly by a sort over
the classes, in a random order of the examples each epoch, inside a bounded ``lax.while_loop``.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn import _active_set as active_set
from jaxlearn._checks import check_multiclass_sample, check_positive_int
from jaxlearn._lbfgs import check_sample_weight
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.multiclass._common import NUM_CLASSES, argmax_label, as_sample, batch_X, width_error

Array = jax.Array

#: A violation below this is not a move (LIBLINEAR's threshold).
_MOVE = 1e-12


@loadable
class MulticlassSVMDualCDParams(NamedTuple):
    r"""The multiclass SVM solution and its certificates.

    Attributes:
      w: the class weight vectors, shape ``(k, d)`` (row ``y`` is :math:`w_y`).
      b: the class intercepts, shape ``(k,)`` (``intercept_scaling`` times the constant feature's
        weights; 0 unless ``fit_intercept``).
      gap: the duality gap :math:`P(W) - D(\alpha) \ge 0` at the returned point.
      violation: the last epoch's largest per-example violation :math:`\max_k G_i^k - \min_k G_i^k`
        (over the variables that may decrease), LIBLINEAR's stopping quantity.
      converged: the violation fell below ``tol`` within ``max_iter`` epochs.
      n_iter: the epochs run (int32).
    """

    w: Array
    b: Array
    gap: Array
    violation: Array
    converged: Array
    n_iter: Array


@learner_factory(
    "C",
    "tol",
    "intercept_scaling",
    ranges={
        "C": POSITIVE,
        "num_classes": NUM_CLASSES,
        "tol": POSITIVE,
        "max_iter": POSITIVE_INT,
        "intercept_scaling": POSITIVE,
    },
)
def multiclass_svm_dual_cd(
    C: ArrayLike,
    num_classes: int,
    *,
    tol: ArrayLike = 1e-4,
    max_iter: int = 1000,
    fit_intercept: bool = False,
    intercept_scaling: ArrayLike = 1.0,
) -> BatchLearner:
    r"""The multiclass (Crammer-Singer) SVM by the sequential dual method (UML 17.2; Keerthi et al. 2008).

    .. math::
        \min_W \tfrac12\|W\|^2 + C\sum_i s_i \max_k\big(1[k \ne y_i] + \langle w_k - w_{y_i}, x_i\rangle\big),
        \qquad \alpha_i^k = \min\Big(C s_i 1[k = y_i], \frac{\beta - B_k}{\|x_i\|^2}\Big)

    (:math:`s_i` the sample weights), UML (17.4)'s objective with the multivector map and the zero-one
    cost, times :math:`1/(\lambda m)` for :math:`\lambda = 1/(C m)`: the minimiser of
    :func:`multiclass_svm` ``(lam=1/(C m))`` computed exactly. Each example's sub-problem over its
    :math:`k` variables (:math:`B_k = G_k - \|x_i\|^2\alpha_i^k`, :math:`G_k = \langle w_k, x_i\rangle +
    1[k \ne y_i]`) is solved exactly: :math:`\beta` by a sort of the :math:`B_k` (plus :math:`\|x_i\|^2 C_i`
    at :math:`y_i`) and a cumulative sum. An example whose variables sit at their bounds with gradients
    pointing outwards is skipped until the next pass over all examples (LIBLINEAR's shrinking). The loop
    stops when the largest violation of a pass over all examples is below ``tol`` (LIBLINEAR's rule) or
    after ``max_iter`` epochs.

    Args:
      C: :math:`C > 0` (traced: ``jax.vmap`` over it sweeps a grid in one program).
      num_classes: :math:`k \ge 2`, labels ``0..k-1`` (static).
      tol: the stopping tolerance on the violation (traced; LIBLINEAR's own default is 0.1,
        scikit-learn's ``LinearSVC`` passes 1e-4).
      max_iter: the most epochs (static).
      fit_intercept: a constant feature of value ``intercept_scaling`` whose weights are regularised
        (LIBLINEAR's bias); ``b`` is ``intercept_scaling`` times them.
      intercept_scaling: that feature's value (traced).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y, sample_weight=None) ->
      MulticlassSVMDualCDParams`` (``sample_weight`` >= 0 scales each example's :math:`C`);
      ``predict`` the argmax labels (int32, ties to the minimal index); ``decision_function`` the
      scores ``(n, k)``.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X = jnp.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [1.5, 0.2]])
      >>> svm = multiclass_svm_dual_cd(1.0, 3)
      >>> params = svm.fit(jax.random.PRNGKey(0), X, jnp.array([0, 1, 2, 0]))
      >>> svm.predict(params, X).tolist(), bool(params.converged)
      ([0, 1, 2, 0], True)

    References:
      UML sections 17.2.1-17.2.4; Crammer and Singer (2001); Keerthi, Sundararajan, Chang, Hsieh and
      Lin (2008), "A sequential dual method for large scale multi-class linear SVMs"; Fan et al.
      (2008), "LIBLINEAR".
    """
    k = int(num_classes)
    max_iter = check_positive_int("max_iter", max_iter)
    if not isinstance(fit_intercept, (bool, np.bool_)):
        raise TypeError(f"expected `fit_intercept` a bool, got {fit_intercept!r}")
    static = dict(num_classes=k, max_iter=max_iter, fit_intercept=bool(fit_intercept))

    def fit(key, X, y, sample_weight=None):
        X, y = as_sample(X, y)
        weight = (
            jnp.ones(X.shape[0], X.dtype) if sample_weight is None else jnp.asarray(sample_weight)
        )
        key = jax.random.PRNGKey(0) if key is None else key
        return _fit(key, X, y, weight.astype(X.dtype), C, tol, intercept_scaling, **static)

    def decision_function(params, X):
        X = batch_X(X).astype(params.w.dtype)
        if X.shape[1] != params.w.shape[-1]:
            raise width_error(X, params.w.shape[-1])
        return X @ params.w.T + params.b

    def predict(params, X):
        return argmax_label(decision_function(params, X))

    def check(X, y, sample_weight=None):
        check_multiclass_sample(X, y, k)
        check_sample_weight(sample_weight, np.shape(X)[0])

    return BatchLearner(fit, predict, decision_function, check)


def sub_problem(A: Array, B: Array, y: Array, c: Array) -> Array:
    r"""The exact minimiser of :math:`\tfrac A2\|\alpha\|^2 + \langle B, \alpha\rangle` over
    :math:`\sum_k\alpha_k = 0`, :math:`\alpha_k \le c\,1[k = y]` (Crammer & Singer 2001, section 6;
    Keerthi et al. 2008): :math:`\alpha_k = \min(c 1[k=y], (\beta - B_k)/A)`, :math:`\beta` by a sort."""
    k = B.shape[0]
    is_y = jnp.arange(k, dtype=jnp.int32) == y
    D = jnp.sort(B + jnp.where(is_y, A * c, 0))[::-1]
    before = jnp.cumsum(D) - A * c  # before[r - 1]: beta before adding D[r]
    r = jnp.arange(1, k).astype(B.dtype)
    stops = ~(before[:-1] < r * D[1:])  # LIBLINEAR's loop stops at the first such r
    count = jnp.where(jnp.any(stops), jnp.argmax(stops).astype(jnp.int32) + 1, jnp.int32(k))
    beta = before[count - 1] / count.astype(B.dtype)
    return jnp.minimum(jnp.where(is_y, c, 0), (beta - B) / A)


class _State(NamedTuple):
    alpha: Array
    w: Array
    index: Array  # a permutation of the examples, those the next epoch visits first
    num_active: Array
    violation: Array
    eps_shrink: Array  # LIBLINEAR's shrinking tolerance
    full: Array  # the next epoch visits every example
    stop: Array
    epoch: Array


@functools.partial(jax.jit, static_argnames=("num_classes", "max_iter", "fit_intercept"))
def _fit(key, X, y, weight, C, tol, intercept_scaling, *, num_classes, max_iter, fit_intercept):
    dtype, k = X.dtype, num_classes
    Xa = X
    if fit_intercept:  # LIBLINEAR's bias: a constant feature of value intercept_scaling
        column = jnp.full((X.shape[0], 1), jnp.asarray(intercept_scaling).astype(dtype))
        Xa = jnp.concatenate([X, column], axis=1)
    m = Xa.shape[0]
    cost = jnp.asarray(C).astype(dtype) * weight
    sq_norms = jnp.sum(Xa * Xa, axis=1)
    classes = jnp.arange(k, dtype=jnp.int32)
    margins = (classes[None, :] != y[:, None]).astype(dtype)  # e_i^k = 1[k != y_i]
    tol = jnp.asarray(tol).astype(dtype)
    free = cost > 0  # the others (a weight 0, a padding row) never move: left out
    start, num_free = active_set.first(free)

    def body(state):
        """One pass over the active examples in a random order (:mod:`jaxlearn._active_set`)."""

        def visit(carry):
            s, n, index, alpha, w, worst, bits = carry
            index, i, bits = active_set.draw_next(index, s, n, bits)
            x, a, A, c = Xa[i], alpha[i], sq_norms[i], cost[i]
            # a sum, not a dot: the same rounding under vmap
            g = jnp.sum(w * x, axis=1) + margins[i]
            upper = jnp.where(classes == y[i], c, 0)
            low = jnp.min(jnp.where(a < upper, g, jnp.inf))
            # LIBLINEAR's shrinking: a variable at its bound whose gradient is below every free one's
            # stays there; an example with at most one other variable is left out until the next full
            # pass
            shrunk = jnp.sum((a >= upper) & (g < low)) >= k - 1
            spread = jnp.max(g) - low
            move = (A > 0) & ~shrunk & (spread > _MOVE)  # c > 0: only free examples are visited
            safe = jnp.where(A > 0, A, 1)
            new = jnp.where(move, sub_problem(safe, g - safe * a, y[i], c), a)
            worst = jnp.where(move, jnp.maximum(worst, spread), worst)
            index, s, n = active_set.retire(index, s, n, shrunk)
            w = w + (new - a)[:, None] * x[None, :]
            return s, n, index, alpha.at[i].set(new), w, worst, bits

        seed = active_set.epoch_seed(key, state.epoch)
        carry = (jnp.int32(0), state.num_active, state.index, state.alpha, state.w)
        carry = (*carry, jnp.asarray(-jnp.inf, dtype), seed)
        _, n, index, alpha, w, worst, _ = jax.lax.while_loop(lambda c: c[0] < c[1], visit, carry)
        # LIBLINEAR's outer rule: below the shrinking tolerance, stop if this pass saw every example,
        # else pass over all of them again with a tolerance halved (down to tol)
        small = worst < state.eps_shrink
        stop = small & (worst < tol) & state.full
        n = jnp.where(small, num_free, n)
        eps_shrink = jnp.where(small, jnp.maximum(state.eps_shrink / 2, tol), state.eps_shrink)
        return _State(alpha, w, index, n, worst, eps_shrink, small, stop, state.epoch + 1)

    def cond(state):
        return ~state.stop & (state.epoch < max_iter)

    zeros = jnp.zeros((m, k), dtype)
    init = _State(
        zeros,
        jnp.zeros((k, Xa.shape[1]), dtype),
        start,
        num_free,
        jnp.asarray(jnp.inf, dtype),
        jnp.maximum(10 * tol, 1),
        jnp.ones([], bool),
        jnp.zeros([], bool),
        jnp.zeros([], jnp.int32),
    )
    state = jax.lax.while_loop(cond, body, init)
    alpha = state.alpha
    w = jnp.sum(
        alpha[:, :, None] * Xa[:, None, :], axis=0
    )  # without the incremental updates' drift
    scores = Xa @ w.T
    own = jnp.take_along_axis(scores, y[:, None], axis=1)[:, 0]
    hinge = jnp.max(margins + scores - own[:, None], axis=1)
    half_norm = 0.5 * jnp.sum(w * w)
    primal = half_norm + jnp.sum(cost * hinge)
    dual = jnp.sum(jnp.take_along_axis(alpha, y[:, None], axis=1)) - half_norm
    violation = jnp.where(jnp.isfinite(state.violation), jnp.maximum(state.violation, 0), 0).astype(
        dtype
    )
    if fit_intercept:
        w, b = w[:, :-1], w[:, -1] * jnp.asarray(intercept_scaling).astype(dtype)
    else:
        b = jnp.zeros(k, dtype)
    return MulticlassSVMDualCDParams(w, b, primal - dual, violation, state.stop, state.epoch)
