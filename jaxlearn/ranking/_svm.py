r"""Linear ranking by SGD on the convex surrogates of UML sections 17.4.1 and 17.5.1 (SPEC 13.3, 14.2).

Both learners score the items of a query with one weight vector, :math:`h_w(\bar x) = (\langle w,
x_1\rangle, \ldots, \langle w, x_r\rangle)` (17.6), and fit :math:`w` by the :math:`\theta`/:math:`w` SGD of
UML section 15.5 (the rule of :func:`jaxlearn.linear.soft_svm`) on
:math:`\frac\lambda2\|w\|^2 + \frac1m\sum_i \ell(w, (\bar x_i, y_i))`:

.. math::
    \theta^{(1)} = 0;\quad t = 1..T:\ w^{(t)} = \frac{\theta^{(t)}}{\lambda t},\ i \sim U[m],\
    \theta^{(t+1)} = \theta^{(t)} - v_t;\quad \bar w = \frac1T\sum_{t=1}^T w^{(t)},

with :math:`v_t` a sub-gradient of the surrogate :math:`\ell` at :math:`w^{(t)}` on query :math:`i`.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn.core import (
    PLUS_MINUS_HINT,
    BatchLearner,
    check_finite,
    check_labels,
    check_positive_int,
    float_dtype,
    is_concrete,
)
from jaxlearn.linear._common import check_positive, sample_indices
from jaxlearn.ranking._bipartite import bipartite_loss_augmented, check_measure, predict_signs
from jaxlearn.ranking._losses import discount, ndcg_loss_augmented, permutation

Array = jax.Array

_LOSSES = ("kendall", "ndcg")


class RankingSVMParams(NamedTuple):
    r"""``w``: the averaged weights :math:`\bar w`, shape ``(d,)``."""

    w: Array


def check_queries(X, Y, *, labels: Optional[tuple] = None, nonnegative: bool = False):
    """Input checks of the query learners: ``X`` (m, r, d), ``Y`` (m, r); values when concrete."""
    X, Y = jnp.asarray(X), jnp.asarray(Y)
    if X.ndim != 3:
        raise ValueError(f"expected `X` of shape (m, r, d) (m queries of r items), got {X.shape}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"expected a non-empty sample of non-empty queries, got `X` of shape {X.shape}")
    if Y.shape != X.shape[:2]:
        raise ValueError(f"expected `Y` of shape {X.shape[:2]} (one value per item of `X`), got {Y.shape}")
    dtype = float_dtype(X)
    check_finite("X", X)
    check_finite("Y", Y)
    if labels is not None:
        check_labels("Y", Y, labels, PLUS_MINUS_HINT)
    if nonnegative and is_concrete(Y) and (np.asarray(Y) < 0).any():
        raise ValueError(f"expected `Y` relevance >= 0 (NDCG gains), found {float(np.min(Y)):g}")
    return X.astype(dtype), Y.astype(dtype)


def _scores(params, X):
    X = jnp.asarray(X)
    if X.ndim != 3:
        raise ValueError(f"expected `X` of shape (m, r, d), got {X.shape}")
    return X.astype(params.w.dtype) @ params.w


def ranking_svm(
    lam: ArrayLike, steps: int, *, loss: str = "kendall", k: Optional[int] = None
) -> BatchLearner:
    r"""Linear ranking by SGD on the Kendall-tau or NDCG surrogate (UML section 17.4.1).

    ``loss="kendall"``: the pairwise hinge surrogate
    :math:`\frac{2}{r(r-1)}\sum_{i<j}\max\{0, 1 - s_{ij}\langle w, x_i - x_j\rangle\}`,
    :math:`s_{ij} = \operatorname{sign}(y_i - y_j)`, sub-gradient
    :math:`-\frac{2}{r(r-1)}\sum_{i<j:\ \text{active}} s_{ij}(x_i - x_j)`
    (a pair is active when its hinge is positive and :math:`y_i \ne y_j`).

    ``loss="ndcg"``: the surrogate (17.8)
    :math:`\max_{v\in V}[\Delta(v, y) + \sum_i (v_i - \pi(y)_i)\langle w, x_i\rangle]`, sub-gradient
    :math:`\sum_i(\hat v_i - \pi(y)_i)x_i` with :math:`\hat v` from
    :func:`~jaxlearn.ranking.ndcg_loss_augmented` (an assignment problem solved on the host by scipy
    through ``jax.pure_callback``: one host round trip per step, see there). ``Y`` holds relevance
    :math:`\ge 0`; ``k`` the NDCG cut-off (``None``: all positions).

    Args:
      lam: :math:`\lambda > 0` (traced).
      steps: SGD rounds :math:`T` (static).
      loss: ``"kendall"`` or ``"ndcg"`` (static).
      k: NDCG's top-``k`` (static; ignored by Kendall).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, Y) -> RankingSVMParams`` with ``X`` of shape
      ``(m, r, d)`` and ``Y`` ``(m, r)``; ``predict(params, X)`` and ``decision_function`` the scores
      ``(m, r)`` (rank by :func:`~jaxlearn.ranking.permutation`).

    References:
      UML section 17.4.1, (17.6)-(17.10), Lemma 17.4; UML section 15.5; SPEC 13.3.
    """
    if loss not in _LOSSES:
        raise ValueError(f"expected `loss` in {_LOSSES}, got {loss!r}")
    steps = check_positive_int("steps", steps)
    check_positive("lam", lam)

    def fit(key, X, Y):
        X, Y = check_queries(X, Y, nonnegative=loss == "ndcg")
        if loss == "ndcg":
            discount(X.shape[1], k)  # validates k
        idx = sample_indices(key, steps, X.shape[0])
        return _fit(idx, X, Y, lam, jnp.ones([], X.dtype), kind=loss, k=k)

    return BatchLearner(fit, _scores, _scores)


def bipartite_svm(
    measure: str, lam: ArrayLike, steps: int, *, k: Optional[int] = None, beta: ArrayLike = 1.0
) -> BatchLearner:
    r"""Bipartite ranking for a multivariate measure by SGD on the surrogate (17.14) (UML section 17.5.1).

    .. math::
        \ell(w, (\bar x, y)) = \max_{v\in V}\big[\Delta(v, y) + \sum_i (v_i - y_i)\langle w, x_i\rangle\big],

    sub-gradient :math:`\sum_i(\hat v_i - y_i)x_i` with :math:`\hat v` from the sorted :math:`O(r^2)` search
    :func:`~jaxlearn.ranking.bipartite_loss_augmented`. :math:`\Delta = 1 -` ``measure`` over the counts
    (a, b, c, d); :math:`V = \{\pm1\}^r` except precision@k (:math:`a + b \ge k`) and recall@k
    (:math:`a + b \le k`).

    Args:
      measure: ``"balanced_accuracy"``, ``"f1"``, ``"f_beta"``, ``"precision_at_k"`` or ``"recall_at_k"``.
      lam: :math:`\lambda > 0` (traced).
      steps: SGD rounds (static).
      k: for the at-``k`` measures (static).
      beta: :math:`\beta` of ``"f_beta"`` (traced).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, Y) -> RankingSVMParams``, ``X`` ``(m, r, d)``,
      ``Y`` ``(m, r)`` in {-1, +1}; ``predict`` the signs :math:`b(h_{\bar w}(\bar x))` of (17.13),
      ``(m, r)`` in {-1, +1}; ``decision_function`` the scores.

    References:
      UML section 17.5, (17.11)-(17.14) and "Solving Equation (17.14)"; SPEC 14.
    """
    check_measure(measure, k)
    steps = check_positive_int("steps", steps)
    check_positive("lam", lam)
    k = None if k is None else int(k)

    def fit(key, X, Y):
        X, Y = check_queries(X, Y, labels=(-1, 1))
        idx = sample_indices(key, steps, X.shape[0])
        return _fit(idx, X, Y, lam, jnp.asarray(beta, X.dtype), kind=measure, k=k)

    def predict(params, X):
        return predict_signs(_scores(params, X), measure, k=k)

    return BatchLearner(fit, predict, _scores)


def _subgradient(kind, k, w, x, y, beta):
    """A sub-gradient of the surrogate ``kind`` at ``w`` on the query ``(x, y)``."""
    mu = x @ w
    r = x.shape[0]
    if kind == "kendall":
        s = jnp.sign(y[:, None] - y[None, :])
        upper = jnp.triu(jnp.ones((r, r), bool), k=1)
        active = upper & (s != 0) & (1 - s * (mu[:, None] - mu[None, :]) > 0)
        A = jnp.where(active, s, jnp.zeros_like(s))
        return -(2.0 / max(r * (r - 1), 1)) * ((jnp.sum(A, axis=1) - jnp.sum(A, axis=0)) @ x)
    if kind == "ndcg":
        v = ndcg_loss_augmented(mu, y, k=k)
        return (v - permutation(y)).astype(x.dtype) @ x
    v = bipartite_loss_augmented(mu, y, kind, k=k, beta=beta)
    return (v - y) @ x


@functools.partial(jax.jit, static_argnames=("kind", "k"))
def _fit(idx, X, Y, lam, beta, *, kind, k):
    dtype, steps = X.dtype, idx.shape[0]
    lam = jnp.asarray(lam).astype(dtype)
    scales = 1 / (lam * jnp.arange(1, steps + 1, dtype=jnp.int32).astype(dtype))

    def step(carry, it):
        theta, total = carry
        i, scale = it
        w = theta * scale
        theta = theta - _subgradient(kind, k, w, X[i], Y[i], beta)
        return (theta, total + w), None

    zeros = jnp.zeros(X.shape[2], dtype)
    (_, total), _ = jax.lax.scan(step, (zeros, zeros), (idx, scales))
    return RankingSVMParams(w=total / jnp.asarray(steps, dtype))
