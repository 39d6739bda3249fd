r"""Linear ranking by SGD on the convex surrogates of UML sections 17.4.1 and 17.5.1.

Both learners score the items of a query with one weight vector, :math:`h_w(\bar x) = (\langle w,
x_1\rangle, \ldots, \langle w, x_r\rangle)` (17.6), and fit :math:`w` on
:math:`\frac\lambda2\|w\|^2 + \frac1m\sum_i \ell(w, (\bar x_i, y_i))` by the SGD of UML section 15.5,
``regularized_sgd``, with :func:`_subgradient` the surrogate's sub-gradient.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import PLUS_MINUS_HINT, check_finite, check_labels, is_concrete
from jaxlearn._regularized import regularized_sgd, sample_indices
from jaxlearn._shared import as_float
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.ranking._bipartite import bipartite_loss_augmented, check_measure, predict_signs
from jaxlearn.ranking._losses import (
    discount,
    ndcg_loss_augmented,
    ndcg_loss_augmented_scipy,
    permutation,
)

Array = jax.Array

_LOSSES = ("kendall", "ndcg")


@loadable
class RankingSVMParams(NamedTuple):
    r"""``w``: the averaged weights :math:`\bar w`, shape ``(d,)``."""

    w: Array


def check_queries(X, Y, *, labels: Optional[tuple] = None, nonnegative: bool = False) -> None:
    """Input checks of the query learners: ``X`` (m, r, d), ``Y`` (m, r); values when concrete."""
    shape, y_shape = np.shape(X), np.shape(Y)
    if len(shape) != 3:
        raise ValueError(f"expected `X` of shape (m, r, d) (m queries of r items), got {shape}")
    if shape[0] == 0 or shape[1] == 0:
        raise ValueError(
            f"expected a non-empty sample of non-empty queries, got `X` of shape {shape}"
        )
    if y_shape != shape[:2]:
        raise ValueError(
            f"expected `Y` of shape {shape[:2]} (one value per item of `X`), got {y_shape}"
        )
    check_finite("X", X)
    check_finite("Y", Y)
    if labels is not None:
        check_labels("Y", Y, labels, PLUS_MINUS_HINT)
    if nonnegative and is_concrete(Y) and (np.asarray(Y) < 0).any():
        raise ValueError(f"expected `Y` relevance >= 0 (NDCG gains), found {float(np.min(Y)):g}")


def _scores(params, X):
    X = jnp.asarray(X)
    d = params.w.shape[-1]
    if X.ndim != 3 or X.shape[2] != d:
        raise ValueError(
            f"expected `X` of shape (m, r, {d}) (the d of the params' `w`), got {X.shape}"
        )
    return X.astype(params.w.dtype) @ params.w


@learner_factory("lam", ranges={"lam": POSITIVE, "steps": POSITIVE_INT, "k": POSITIVE_INT})
def ranking_svm(
    lam: ArrayLike, steps: int, *, loss: str = "kendall", k: Optional[int] = None
) -> BatchLearner:
    r"""Linear ranking by SGD on the Kendall-tau or NDCG surrogate (UML section 17.4.1).

    .. math:: \min_w \frac\lambda2\|w\|^2 + \frac1m\sum_i \ell(w, (\bar x_i, y_i)), \qquad
        h_w(\bar x) = (\langle w, x_1\rangle, \ldots, \langle w, x_r\rangle)

    by ``regularized_sgd``, :math:`\ell` the pairwise hinge (``"kendall"``) or the
    surrogate (17.8) with :func:`~jaxlearn.ranking.ndcg_loss_augmented` (``"ndcg"``: an exact
    :math:`O(r^3)` assignment solver inside the compiled SGD loop, no host round trip; ``Y`` holds
    relevance >= 0).

    Args:
      lam, steps: :math:`\lambda > 0` (traced); SGD rounds :math:`T` (static).
      loss, k: ``"kendall"`` or ``"ndcg"``; NDCG's top-``k`` (``None``: all positions), both static.

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, Y) -> RankingSVMParams``, ``X`` ``(m, r, d)``,
      ``Y`` ``(m, r)``; ``predict`` and ``decision_function`` the scores ``(m, r)``.

    Examples:
      >>> import jax
      >>> from jaxlearn import datasets
      >>> X, Y, _ = datasets.ranking_queries(jax.random.PRNGKey(0), 20, 5, 4)
      >>> learner = ranking_svm(0.01, 500)
      >>> learner.predict(learner.fit(jax.random.PRNGKey(1), X, Y), X).shape
      (20, 5)

    References:
      UML section 17.4.1, (17.6)-(17.10), Lemma 17.4; UML section 15.5.
    """
    if loss not in _LOSSES:
        raise ValueError(f"expected `loss` in {_LOSSES}, got {loss!r}")
    steps = int(steps)

    def check(X, Y):
        check_queries(X, Y, nonnegative=loss == "ndcg")
        if loss == "ndcg":
            discount(np.shape(X)[1], k)  # validates k

    def fit(key, X, Y):
        X, Y = as_float(X, Y)
        idx = sample_indices(key, steps, X.shape[0])
        return _fit(idx, X, Y, lam, jnp.ones([], X.dtype), kind=loss, k=k)

    return BatchLearner(fit, _scores, _scores, check)


@learner_factory(
    "lam",
    "beta",
    ranges={"lam": POSITIVE, "steps": POSITIVE_INT, "k": POSITIVE_INT, "beta": POSITIVE},
)
def bipartite_svm(
    measure: str, lam: ArrayLike, steps: int, *, k: Optional[int] = None, beta: ArrayLike = 1.0
) -> BatchLearner:
    r"""Bipartite ranking for a multivariate measure by SGD on the surrogate (17.14) (UML section 17.5.1).

    .. math::
        \ell(w, (\bar x, y)) = \max_{v\in V}\big[\Delta(v, y) + \sum_i (v_i - y_i)\langle w, x_i\rangle\big]

    by ``regularized_sgd``, :math:`\hat v` from the :math:`O(r^2)` search
    :func:`~jaxlearn.ranking.bipartite_loss_augmented`; :math:`\Delta = 1 -` ``measure``.

    Args:
      measure: ``"balanced_accuracy"``, ``"f1"``, ``"f_beta"``, ``"precision_at_k"`` or ``"recall_at_k"``.
      lam: :math:`\lambda > 0` (traced).
      steps: SGD rounds (static).
      k: for the at-``k`` measures (and only for them), an int in ``1..r`` (static): at
        :math:`k = 0` the constraint :math:`a + b \ge k` of precision@k is void and that of recall@k
        leaves only the all-negative labelling, so neither is a measure of the top :math:`k`.
      beta: :math:`\beta > 0` of ``"f_beta"`` (traced).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, Y) -> RankingSVMParams`` with ``Y`` in
      {-1, +1}; ``predict`` the signs (17.13), ``(m, r)``; ``decision_function`` the scores.

    Examples:
      >>> import jax
      >>> from jaxlearn import datasets
      >>> X, Y, _ = datasets.ranking_queries(jax.random.PRNGKey(0), 20, 5, 4, levels=2)
      >>> learner = bipartite_svm("f1", 0.01, 500)
      >>> learner.predict(learner.fit(jax.random.PRNGKey(1), X, 2 * Y - 1), X).shape
      (20, 5)

    References:
      UML section 17.5, (17.11)-(17.14) and "Solving Equation (17.14)".
    """
    check_measure(measure, k)
    if k is not None and not measure.endswith("_at_k"):
        raise ValueError(
            f"expected `k` only with measure 'precision_at_k' or 'recall_at_k', got k={k!r} with "
            f"measure={measure!r} (which has no k)"
        )
    steps, k = int(steps), None if k is None else int(k)

    def check(X, Y):
        check_queries(X, Y, labels=(-1, 1))
        if measure.endswith("_at_k") and k > np.shape(X)[1]:
            raise ValueError(
                f"expected `k` at most the r = {np.shape(X)[1]} items of a query, got {k}"
            )

    def fit(key, X, Y):
        X, Y = as_float(X, Y)
        idx = sample_indices(key, steps, X.shape[0])
        return _fit(idx, X, Y, lam, jnp.asarray(beta, X.dtype), kind=measure, k=k)

    def predict(params, X):
        return predict_signs(_scores(params, X), measure, k=k)

    return BatchLearner(fit, predict, _scores, check)


def _subgradient(kind, k, w, x, y, beta):
    r"""A sub-gradient of the surrogate ``kind`` at ``w`` on the query ``(x, y)``.

    Kendall: :math:`-\frac{2}{r(r-1)}\sum_{i<j \text{ active}} s_{ij}(x_i - x_j)`, :math:`s_{ij} =
    \operatorname{sign}(y_i - y_j)`, a pair active when :math:`y_i \ne y_j` and its hinge is positive;
    NDCG: :math:`\sum_i (\hat v_i - \pi(y)_i) x_i`; a bipartite measure: :math:`\sum_i (\hat v_i - y_i) x_i`.
    """
    mu = x @ w
    r = x.shape[0]
    if kind == "kendall":
        s = jnp.sign(y[:, None] - y[None, :])
        upper = jnp.triu(jnp.ones((r, r), bool), k=1)
        active = upper & (s != 0) & (1 - s * (mu[:, None] - mu[None, :]) > 0)
        A = jnp.where(active, s, jnp.zeros_like(s))
        return -(2.0 / max(r * (r - 1), 1)) * ((jnp.sum(A, axis=1) - jnp.sum(A, axis=0)) @ x)
    if kind in (
        "ndcg",
        "ndcg_scipy",
    ):  # "ndcg_scipy": the host SciPy solver, kept for the benchmark
        augmented = ndcg_loss_augmented if kind == "ndcg" else ndcg_loss_augmented_scipy
        v = augmented(mu, y, k=k)
        return (v - permutation(y)).astype(x.dtype) @ x
    v = bipartite_loss_augmented(mu, y, kind, k=k, beta=beta)
    return (v - y) @ x


@functools.partial(jax.jit, static_argnames=("kind", "k"))
def _fit(idx, X, Y, lam, beta, *, kind, k):
    subgradient = lambda w, i: _subgradient(kind, k, w, X[i], Y[i], beta)
    w = regularized_sgd(subgradient, idx, lam, jnp.zeros(X.shape[2], X.dtype))
    return RankingSVMParams(w=w)
