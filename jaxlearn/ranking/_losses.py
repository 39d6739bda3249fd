r"""Ranking losses and their convex surrogates (UML sections 17.4-17.4.1).

Every loss takes ``(y_pred, y_true)`` in the book's order :math:`\Delta(y', y)`: ``y_pred`` the predicted
scores :math:`y' \in \mathbb R^r`, ``y_true`` the true relevance :math:`y \in \mathbb R^r` (over the last
axis; leading axes are batch axes). Ranks follow the book: :math:`\pi(y)_i` is the 1-based position of
:math:`y_i` when :math:`y` is sorted in **ascending** order, so the top-ranked item has position
:math:`r`. Ties are broken by a stable sort: of two equal values the one with the smaller index gets
the smaller position.

Every function checks shapes (also under ``jit``/``vmap``: ``r >= 1`` items, ``y_pred`` and ``y_true`` of
one shape) and, on concrete inputs, that the values are finite (NaN has no rank) and in range.
"""

from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_finite, is_concrete
from jaxlearn.core import POSITIVE_INT, Interval
from jaxlearn.ranking._assignment import linear_sum_assignment

Array = jax.Array


def static_count(name: str, value, lo: int, hi: int) -> int:
    """``value`` as a Python int in ``lo..hi`` (a number of items: structural, so never traced)."""
    if value is not None and not is_concrete(value):
        raise TypeError(f"expected `{name}` a Python int (it fixes shapes, so it cannot be traced)")
    Interval(lo, hi, True, True, integer=True).check(name, value)
    return int(value)


def _pair(y_pred: ArrayLike, y_true: ArrayLike) -> tuple[Array, Array]:
    y_pred, y_true = jnp.asarray(y_pred), jnp.asarray(y_true)
    if y_pred.shape != y_true.shape or y_pred.ndim == 0 or y_pred.shape[-1] == 0:
        raise ValueError(
            "expected `y_pred` and `y_true` of the same shape (..., r) with r >= 1 items, "
            f"got {y_pred.shape} and {y_true.shape}"
        )
    check_finite("y_pred", y_pred)
    check_finite("y_true", y_true)
    floats = [a.dtype for a in (y_pred, y_true) if jnp.issubdtype(a.dtype, jnp.floating)]
    dtype = floats[0] if floats else jnp.result_type(float)  # y_pred's when floating
    return y_pred.astype(dtype), y_true.astype(dtype)


def permutation(y: ArrayLike) -> Array:
    r"""The induced permutation :math:`\pi(y)`: :math:`\pi(y)_i` is the 1-based position of :math:`y_i` in
    ascending order (UML section 17.4); ties by index (stable). int32, over the last axis.

    Examples:
      >>> permutation(jnp.array([2.0, 1.0, 6.0, -1.0, 0.5])).tolist()
      [4, 3, 5, 1, 2]
    """
    y = jnp.asarray(y)
    if y.ndim == 0 or y.shape[-1] == 0:
        raise ValueError(f"expected `y` of shape (..., r) with r >= 1 items, got {y.shape}")
    check_finite("y", y)
    return (jnp.argsort(jnp.argsort(y, axis=-1, stable=True), axis=-1, stable=True) + 1).astype(
        jnp.int32
    )


def zero_one_ranking(y_pred: ArrayLike, y_true: ArrayLike) -> Array:
    r"""The 0-1 ranking loss :math:`\Delta(y', y) = 1[\pi(y') \ne \pi(y)]` (UML section 17.4)."""
    y_pred, y_true = _pair(y_pred, y_true)
    differ = jnp.any(permutation(y_pred) != permutation(y_true), axis=-1)
    return differ.astype(y_pred.dtype)


def kendall_tau_loss(y_pred: ArrayLike, y_true: ArrayLike) -> Array:
    r"""Kendall-tau loss: the fraction of discordant pairs (UML section 17.4),

    .. math::
        \Delta(y', y) = \frac{2}{r(r-1)}\sum_{i<j}
        1[\operatorname{sign}(y'_i - y'_j) \ne \operatorname{sign}(y_i - y_j)].

    A pair tied in one vector and not in the other counts as discordant. In [0, 1]; 1 on reversed
    distinct values. ``r = 1`` gives 0.
    """
    y_pred, y_true = _pair(y_pred, y_true)
    r = y_pred.shape[-1]
    sp = jnp.sign(y_pred[..., :, None] - y_pred[..., None, :])
    st = jnp.sign(y_true[..., :, None] - y_true[..., None, :])
    upper = jnp.triu(jnp.ones((r, r), bool), k=1)
    discordant = jnp.sum((sp != st) & upper, axis=(-2, -1)).astype(y_pred.dtype)
    return discordant * (2.0 / max(r * (r - 1), 1))


def discount(r: int, k: Optional[int] = None, *, dtype=None) -> Array:
    r"""The NDCG discount :math:`D(i) = 1/\log_2(r - i + 2)` for the top ``k`` positions
    :math:`i \in \{r-k+1, \ldots, r\}`, 0 below (UML section 17.4), for :math:`i = 1..r`; ``k=None``: all.

    ``r >= 1`` and ``k`` in ``1..r`` are Python ints; ``dtype`` a floating dtype (default: JAX's float)."""
    POSITIVE_INT.check("r", r)
    r = int(r)
    k = r if k is None else static_count("k", k, 1, r)
    if dtype is not None and not jnp.issubdtype(dtype, jnp.floating):
        raise TypeError(f"expected `dtype` a floating dtype, got {dtype!r}")
    i = np.arange(1, r + 1)
    d = np.where(i >= r - k + 1, 1.0 / np.log2(r - i + 2.0), 0.0)
    return jnp.asarray(d, dtype or jnp.result_type(float))


def _gain(positions: Array, y_true: Array, D: Array) -> Array:
    """:math:`G = \\sum_i D(\\text{position}_i) y_i` over the last axis."""
    return jnp.sum(D[positions - 1] * y_true, axis=-1)


def _check_relevance(y_true) -> None:
    if is_concrete(y_true) and (np.asarray(y_true) < 0).any():
        raise ValueError(
            f"expected `y_true` relevance >= 0 for NDCG, found {float(np.min(y_true)):g}"
        )


def ndcg_loss(y_pred: ArrayLike, y_true: ArrayLike, *, k: Optional[int] = None) -> Array:
    r"""NDCG loss (UML section 17.4): :math:`\Delta(y', y) = 1 - G(y', y)/G(y, y)`,
    :math:`G(y', y) = \sum_i D(\pi(y')_i) y_i` with :func:`discount` ``D`` (top ``k`` positions).

    ``y_true`` must be non-negative (relevance). When :math:`G(y, y) = 0` (no relevant item reaches the
    top ``k``) every ordering is as good as the best: the loss is defined as 0. In [0, 1]; 0 when
    :math:`\pi(y') = \pi(y)`.

    Examples:
      >>> float(ndcg_loss(jnp.array([3.0, 2.0, 1.0]), jnp.array([0.0, 0.0, 1.0])))  # relevant item last
      0.5
    """
    y_pred, y_true = _pair(y_pred, y_true)
    _check_relevance(y_true)
    D = discount(y_pred.shape[-1], k, dtype=y_pred.dtype)
    best = _gain(permutation(y_true), y_true, D)
    got = _gain(permutation(y_pred), y_true, D)
    safe = jnp.where(best > 0, best, jnp.ones_like(best))
    return jnp.where(best > 0, 1 - got / safe, jnp.zeros_like(best))


def kendall_tau_hinge(y_pred: ArrayLike, y_true: ArrayLike) -> Array:
    r"""The Kendall-tau hinge surrogate on scores :math:`y'_i = \langle w, x_i\rangle` (UML section 17.4.1),

    .. math:: \frac{2}{r(r-1)}\sum_{i<j}\max\{0, 1 - \operatorname{sign}(y_i - y_j)(y'_i - y'_j)\}
        \ \ge\ \Delta_{\text{Kendall}}(y', y)

    (a pair with :math:`y_i = y_j` contributes 1).
    """
    y_pred, y_true = _pair(y_pred, y_true)
    r = y_pred.shape[-1]
    s = jnp.sign(y_true[..., :, None] - y_true[..., None, :])
    margin = 1 - s * (y_pred[..., :, None] - y_pred[..., None, :])
    upper = jnp.triu(jnp.ones((r, r), bool), k=1)
    total = jnp.sum(jnp.where(upper, jnp.maximum(margin, 0), 0), axis=(-2, -1))
    return total * (2.0 / max(r * (r - 1), 1))


# --------------------------------------------------------------------------------------------
# NDCG loss-augmented inference: an assignment problem, solved inside the XLA program
# --------------------------------------------------------------------------------------------


def ndcg_cost_matrix(y_pred: ArrayLike, y_true: ArrayLike, *, k: Optional[int] = None) -> Array:
    r"""The assignment costs :math:`A_{i,j} = j\alpha_i + D(j)\beta_i`, :math:`\alpha_i = -y'_i`,
    :math:`\beta_i = y_i/G(y, y)` (:math:`\beta = 0` when :math:`G(y, y) = 0`) of UML (17.9)."""
    y_pred, y_true = _pair(y_pred, y_true)
    _check_relevance(y_true)
    r = y_pred.shape[-1]
    D = discount(r, k, dtype=y_pred.dtype)
    best = _gain(permutation(y_true), y_true, D)
    beta = jnp.where(best[..., None] > 0, y_true / jnp.where(best > 0, best, 1)[..., None], 0)
    j = jnp.arange(1, r + 1, dtype=jnp.int32).astype(y_pred.dtype)
    return j * (-y_pred)[..., :, None] + D * beta[..., :, None]


def ndcg_loss_augmented(y_pred: ArrayLike, y_true: ArrayLike, *, k: Optional[int] = None) -> Array:
    r"""The maximiser :math:`\hat v` of the NDCG surrogate (17.8),
    :math:`\arg\max_{v \in V}\ \Delta(v, y) + \sum_i (v_i - \pi(y)_i) y'_i` over permutations :math:`v` of
    :math:`1..r`: the assignment problem :math:`\arg\min_v \sum_i (\alpha_i v_i + \beta_i D(v_i))` of UML
    section 17.4.1 (17.9), solved exactly (Lemma 17.4: the LP relaxation has a permutation optimum).

    The costs :math:`A_{i,j} = j\alpha_i + D(j)\beta_i` are not a product of an item term and a position
    term (the gain term :math:`D(j)\beta_i` breaks the sorted solution), so a general solver runs: the
    shortest augmenting path method of ``scipy.optimize.linear_sum_assignment``, :math:`O(r^3)`, written
    in ``lax`` loops (``jaxlearn.ranking._assignment``), inside ``jit``/``vmap`` programs on any
    backend, with no host round trip. It starts from the sorted order: without the gain term the
    optimum is :math:`v = \pi(y')`, with duals :math:`v_j = -\sum_{t \le j} g_t`, :math:`g_t` the midpoints
    of consecutive sorted scores, and every item whose best reduced cost is still at its sorted position
    keeps it; only the others are searched (few once the scores spread, against about :math:`r^2/4`
    Dijkstra steps from scratch). With tied scores (``w = 0``) it starts empty, as SciPy does. So the
    result is SciPy's assignment whenever the optimum is unique or the scores tie, and an optimal one
    always.

    Returns:
      :math:`\hat v`, int32 positions in ``1..r`` over the last axis.

    Examples:
      >>> ndcg_loss_augmented(jnp.array([3.0, 2.0, 1.0]), jnp.array([0.0, 0.0, 1.0])).tolist()
      [3, 2, 1]
    """
    cost = ndcg_cost_matrix(y_pred, y_true, k=k)
    scores = _pair(y_pred, y_true)[0]
    r = cost.shape[-1]
    if cost.ndim == 2:
        return _solve_from_sorted(cost, scores) + 1
    columns = jax.vmap(_solve_from_sorted)(cost.reshape(-1, r, r), scores.reshape(-1, r))
    return columns.reshape(cost.shape[:-1]) + 1


def _solve_from_sorted(cost: Array, scores: Array) -> Array:
    """:func:`linear_sum_assignment` of one ``(r, r)`` NDCG cost, warm-started at the sorted scores."""
    r = cost.shape[-1]
    order = jnp.argsort(scores, stable=True)
    rank = jnp.argsort(order, stable=True).astype(jnp.int32)  # the column of each item when sorted
    ordered = scores[order]
    middles = jnp.concatenate([ordered[:1] - 1, (ordered[:-1] + ordered[1:]) / 2])
    v = -jnp.cumsum(middles)  # the sorted order's duals: item i's unique best column is rank[i]
    reduced = cost - v
    u = jnp.min(reduced, axis=1)
    tight = jnp.take_along_axis(reduced, rank[:, None], axis=1)[:, 0] == u
    distinct = jnp.all(ordered[1:] > ordered[:-1]) if r > 1 else jnp.array(True)
    col4row = jnp.where(tight & distinct, rank, -1)
    return linear_sum_assignment(
        cost, (jnp.where(distinct, u, 0), jnp.where(distinct, v, 0), col4row)
    )


def _assign(cost: np.ndarray) -> np.ndarray:
    """Host side of :func:`ndcg_loss_augmented_scipy`: ``linear_sum_assignment`` on each ``(r, r)``."""
    from scipy.optimize import linear_sum_assignment as scipy_assignment

    cost = np.asarray(cost)
    r = cost.shape[-1]
    flat = cost.reshape(-1, r, r)
    out = np.empty(flat.shape[:2], np.int32)
    for b, c in enumerate(flat):  # host loop over the vmapped batch: one assignment each
        rows, cols = scipy_assignment(c)
        out[b, rows] = cols + 1
    return out.reshape(cost.shape[:-1])


def ndcg_loss_augmented_scipy(
    y_pred: ArrayLike, y_true: ArrayLike, *, k: Optional[int] = None
) -> Array:
    """:func:`ndcg_loss_augmented` by SciPy on the host (``jax.pure_callback``, one host round trip per
    call or ``vmap``-ed batch): the reference the in-program solver is tested and benchmarked against."""
    cost = ndcg_cost_matrix(y_pred, y_true, k=k)
    out = jax.ShapeDtypeStruct(cost.shape[:-1], jnp.int32)
    return jax.pure_callback(_assign, out, cost, vmap_method="expand_dims")


def ndcg_hinge(y_pred: ArrayLike, y_true: ArrayLike, *, k: Optional[int] = None) -> Array:
    r"""The NDCG surrogate (17.8) on scores :math:`y'`:
    :math:`\max_{v \in V}[\Delta(v, y) + \sum_i (v_i - \pi(y)_i) y'_i] \ge \Delta_{\text{NDCG}}(y', y)`."""
    y_pred, y_true = _pair(y_pred, y_true)
    v = ndcg_loss_augmented(y_pred, y_true, k=k)
    return ndcg_surrogate_value(v, y_pred, y_true, k=k)


def ndcg_surrogate_value(
    v: ArrayLike, y_pred: ArrayLike, y_true: ArrayLike, *, k: Optional[int] = None
) -> Array:
    r""":math:`\Delta(v, y) + \sum_i (v_i - \pi(y)_i) y'_i` for a permutation ``v`` (positions 1..r)."""
    y_pred, y_true = _pair(y_pred, y_true)
    _check_relevance(y_true)
    if np.shape(v) != y_pred.shape:
        raise ValueError(
            f"expected `v` of shape {y_pred.shape} (a permutation of 1..r), got {np.shape(v)}"
        )
    if is_concrete(v):
        r = y_pred.shape[-1]
        if not np.array_equal(
            np.sort(np.asarray(v), axis=-1), np.broadcast_to(np.arange(1, r + 1), np.shape(v))
        ):
            raise ValueError(
                f"expected `v` a permutation of the positions 1..{r}, got {np.asarray(v).tolist()}"
            )
    v = jnp.asarray(v).astype(jnp.int32)
    D = discount(y_pred.shape[-1], k, dtype=y_pred.dtype)
    pi = permutation(y_true)
    best = _gain(pi, y_true, D)
    safe = jnp.where(best > 0, best, jnp.ones_like(best))
    loss = jnp.where(best > 0, 1 - _gain(v, y_true, D) / safe, jnp.zeros_like(best))
    return loss + jnp.sum((v - pi).astype(y_pred.dtype) * y_pred, axis=-1)
