"""The inefficient Perceptron for non-separable data (SS10 L4 section 4, Algorithm 2, Theorem 4)."""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_positive_int, check_sample
from jaxlearn._shared import as_float
from jaxlearn.core import POSITIVE, POSITIVE_INT, BatchLearner, learner_factory, loadable
from jaxlearn.linear._common import cyclic_passes, linear_predict, linear_score

Array = jax.Array

#: The most candidate directions :math:`\sum_{k \le d}\binom{m}{k}` a fit enumerates.
MAX_CANDIDATES = 1_000_000


@loadable
class InefficientPerceptronParams(NamedTuple):
    r"""``w``: the Perceptron's weights on the inliers (the predictor); ``w_star``: a unit vector
    maximising :math:`|\{i : y_i\langle w^*, x_i\rangle \ge \gamma\}|`; ``inliers``: that set :math:`I`;
    ``margin_error``: :math:`M_\gamma(S) = 1 - |I|/m`; ``num_updates``, ``num_epochs``, ``converged`` as
    for :class:`BatchPerceptronParams` (the Perceptron runs on :math:`I` only)."""

    w: Array
    w_star: Array
    inliers: Array
    margin_error: Array
    num_updates: Array
    num_epochs: Array
    converged: Array


@learner_factory("gamma", ranges={"gamma": POSITIVE, "max_epochs": POSITIVE_INT})
def inefficient_perceptron(gamma: ArrayLike, max_epochs: int = 1000) -> BatchLearner:
    r"""The inefficient Perceptron: the batch Perceptron on the examples a best unit vector gets right
    with margin :math:`\gamma`.

    .. math::
        w^* \in \arg\max_{\|w\| = 1} |\{i : y_i\langle w, x_i\rangle \ge \gamma\}|, \quad
        I = \{i : y_i\langle w^*, x_i\rangle \ge \gamma\}, \quad w = \mathrm{Perceptron}(S_I).

    The arg max is exact: the max-margin direction of the best set :math:`I` is the min-norm point of
    :math:`\mathrm{conv}\{y_i x_i : i \in I\}`, which is that of at most :math:`d` of the points (a face
    of the hull, Caratheodory; the compression scheme for halfspaces of SS10 lecture 3(c)), i.e. the
    min-norm point of their affine hull. The fit tries the direction of every set of :math:`k \le d`
    examples: :math:`\sum_{k \le d}\binom{m}{k}` candidates
    (cost :math:`O(m^{d+1} d)`, exponential in :math:`d`, as the :math:`m^{1/\gamma^2}` of SS10), and
    refuses samples with more than :data:`MAX_CANDIDATES`. Ties at exactly :math:`\gamma` are resolved
    to rounding. Theorem 4 (inputs in the unit ball): with probability :math:`1 - \delta`,
    :math:`L_D(w) \le M_\gamma + \sqrt{M_\gamma 4\ln(m/\delta)/(\gamma^2 m)} + 8\ln(m/\delta)/(\gamma^2 m)`
    (:func:`jaxlearn.theory.inefficient_perceptron_bound`).

    Args:
      gamma: the margin :math:`\gamma > 0` (traced; checked when concrete).
      max_epochs: the most passes of the Perceptron over :math:`I` (static; it needs at most
        :math:`1/\gamma^2` updates on the unit ball, Theorem 3).

    Returns:
      A :class:`~jaxlearn.core.BatchLearner` (labels :math:`\pm1`); ``fit`` gives
      :class:`InefficientPerceptronParams`.

    Examples:
      >>> import jax
      >>> from jaxlearn import datasets, linear
      >>> X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(0), 30, 2, flip=0.1)
      >>> learner = linear.inefficient_perceptron(0.1)
      >>> params = learner.fit(jax.random.PRNGKey(0), X, y)
      >>> bool(params.converged), bool((learner.predict(params, X) == y)[params.inliers].all())
      (True, True)

    References:
      SS10 L4 section 4, Algorithm 2, Theorem 4.
    """
    max_epochs = check_positive_int("max_epochs", max_epochs)

    def fit(key, X, y):
        X, y = as_float(X, y)
        m, d = X.shape
        candidates = sum(math.comb(m, k) for k in range(1, d + 1))
        if candidates > MAX_CANDIDATES:
            raise ValueError(
                f"expected `X` with at most {MAX_CANDIDATES} candidate sets sum_(k<=d) C(m, k), got "
                f"{candidates} for m={m}, d={d}: the inefficient Perceptron is exponential in d; use "
                "augmented_perceptron for larger samples"
            )
        tables = tuple(_subsets(m, k) for k in range(1, min(d, m) + 1))  # arguments, not constants
        return _fit(X, y, gamma, tables, max_epochs=max_epochs)

    return BatchLearner(fit, linear_predict, linear_score, check_sample)


@functools.lru_cache(maxsize=64)
def _subsets(m: int, k: int) -> np.ndarray:
    """Every increasing k-tuple of indices into m examples, shape (C(m, k), k), in lexicographic order:
    each (j-1)-tuple is extended by every larger index (memory C(m, k) k, never m^k)."""
    tuples = np.arange(m)[:, None]
    for _ in range(k - 1):
        last = tuples[:, -1]
        extensions = m - 1 - last
        starts = np.repeat(np.cumsum(extensions) - extensions, extensions)
        column = np.repeat(last + 1, extensions) + np.arange(starts.size) - starts
        tuples = np.concatenate([np.repeat(tuples, extensions, axis=0), column[:, None]], axis=1)
    return tuples.astype(np.int32)


def _affine_min_norm_direction(V, index):
    """The unit direction of the min-norm point of the affine hull of ``V[index]`` (zero if degenerate)."""
    VK = V[index]
    weights = jnp.linalg.solve(VK @ VK.T, jnp.ones(index.shape[0], V.dtype))
    point = (weights / jnp.sum(weights)) @ VK
    norm = jnp.linalg.norm(point)
    ok = jnp.isfinite(norm) & (norm > 0)
    return jnp.where(ok, point / jnp.where(ok, norm, 1), 0)


@functools.partial(jax.jit, static_argnames=("max_epochs",))
def _fit(X, y, gamma, tables, *, max_epochs):
    m = X.shape[0]
    gamma = jnp.asarray(gamma).astype(X.dtype)
    V = y[:, None] * X

    def best_of(index_table):
        def count(index):
            w = _affine_min_norm_direction(V, index)
            return w, jnp.sum(V @ w >= gamma)

        ws, counts = jax.lax.map(count, index_table, batch_size=1024)
        best = jnp.argmax(counts)
        return ws[best], counts[best]

    results = [best_of(table) for table in tables]  # one table of k-subsets per k <= d
    ws = jnp.stack([w for w, _ in results])
    w_star = ws[jnp.argmax(jnp.stack([c for _, c in results]))]
    inliers = V @ w_star >= gamma
    w, updates, epochs, converged = _masked_perceptron(X, y, inliers, max_epochs)
    margin_error = 1 - jnp.sum(inliers).astype(X.dtype) / m
    return InefficientPerceptronParams(w, w_star, inliers, margin_error, updates, epochs, converged)


def _masked_perceptron(X, y, mask, max_epochs):
    """The batch Perceptron (cyclic scan, first violating example) on the examples with ``mask``."""

    def visit(w, i):
        violated = mask[i] & (y[i] * jnp.vdot(w, X[i]) <= 0)
        return jnp.where(violated, w + y[i] * X[i], w), violated

    return cyclic_passes(visit, jnp.zeros(X.shape[1], X.dtype), X.shape[0], max_epochs)
