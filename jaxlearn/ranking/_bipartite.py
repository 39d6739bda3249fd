r"""Bipartite ranking: multivariate performance measures from the counts (a, b, c, d) and the sorted
loss-augmented search (UML section 17.5).

Truth :math:`y \in \{\pm1\}^r`, prediction :math:`y' \in \mathbb R^r`; item :math:`i` is predicted positive
iff :math:`y'_i \ge \theta` (the argmax (17.13) is indifferent at :math:`y'_i = \theta`; ``+1`` is the
documented choice). :math:`a` = true positives, :math:`b` = false positives, :math:`c` = false
negatives, :math:`d` = true negatives.

**0/0 conventions** ("nothing to get wrong is perfect"): precision = 1 when :math:`a + b = 0` (no
predicted positive), recall = 1 when :math:`a + c = 0` (no positive), specificity = 1 when
:math:`b + d = 0`, :math:`F_\beta = 1` when :math:`a = b = c = 0`. Every measure is in [0, 1] and its
loss is :math:`\Delta = 1 - \text{measure}`.

Measures take the counts, as one :class:`Counts` tuple or four numbers ``(a, b, c, d)`` (arrays
broadcast), or, as every ranking measure does, ``(y_pred, y_true)`` (then thresholded at ``theta``).
"""

from __future__ import annotations

import math
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import PLUS_MINUS_HINT, at_least, check_finite, check_labels
from jaxlearn.core import NON_NEGATIVE, POSITIVE, Interval
from jaxlearn.ranking._losses import static_count

Array = jax.Array

#: Any finite real (the threshold ``theta``).
REAL = Interval(-math.inf)
#: ``k`` of the at-``k`` measures: an int >= 0 (at most the number of items ``r``).
K_ITEMS = at_least(0, integer=True)


class Counts(NamedTuple):
    """The confusion counts of UML (17.11): ``a`` TP, ``b`` FP, ``c`` FN, ``d`` TN (floats)."""

    a: Array
    b: Array
    c: Array
    d: Array


def _check_pair(y_pred, y_true) -> None:
    """Shapes (also on tracers); finite scores and labels in {-1, +1} when concrete."""
    if y_pred.shape != y_true.shape or y_pred.ndim == 0 or y_pred.shape[-1] == 0:
        raise ValueError(
            "expected `y_pred` and `y_true` of the same shape (..., r) with r >= 1 items, "
            f"got {y_pred.shape} and {y_true.shape}"
        )
    check_finite("y_pred", y_pred)
    check_labels("y_true", y_true, (-1, 1), PLUS_MINUS_HINT)


def _float_dtype(*arrays):
    floats = [a.dtype for a in arrays if jnp.issubdtype(a.dtype, jnp.floating)]
    return floats[0] if floats else jnp.result_type(float)


def confusion_counts(y_pred: ArrayLike, y_true: ArrayLike, *, theta: ArrayLike = 0.0) -> Counts:
    r"""Counts (a, b, c, d) of :math:`b(y') = (\operatorname{sign}(y'_i - \theta))_i` against
    :math:`y \in \{\pm1\}^r` (UML (17.11)), over the last axis; :math:`y'_i = \theta` counts as positive."""
    y_pred, y_true = jnp.asarray(y_pred), jnp.asarray(y_true)
    _check_pair(y_pred, y_true)
    REAL.check("theta", theta)
    try:
        jnp.broadcast_shapes(np.shape(theta), y_pred.shape)
    except ValueError:
        raise ValueError(
            f"expected `theta` a number or an array broadcasting to {y_pred.shape}, "
            f"got shape {np.shape(theta)}"
        ) from None
    dtype = _float_dtype(y_pred, y_true)
    predicted = y_pred.astype(dtype) >= jnp.asarray(theta, dtype)
    return _counts(predicted, y_true > 0, dtype)


def _counts(predicted: Array, positive: Array, dtype) -> Counts:
    def count(mask):
        return jnp.sum(mask, axis=-1).astype(dtype)

    negative, missed = ~positive, ~predicted
    a, b = count(predicted & positive), count(predicted & negative)
    return Counts(a, b, count(missed & positive), count(missed & negative))


def top_k_counts(y_pred: ArrayLike, y_true: ArrayLike, k: int) -> Counts:
    """Counts when the ``k`` highest scores are predicted positive (ties: the smaller index first)."""
    y_pred, y_true = jnp.asarray(y_pred), jnp.asarray(y_true)
    _check_pair(y_pred, y_true)
    k = static_count("k", k, 0, y_pred.shape[-1])
    rank = jnp.argsort(
        jnp.argsort(-y_pred, axis=-1, stable=True), axis=-1, stable=True
    )  # 0 = highest
    return _counts(rank < k, y_true > 0, _float_dtype(y_pred, y_true))


def _unpack(args, theta) -> Counts:
    if len(args) == 2:
        return confusion_counts(*args, theta=theta)
    one = len(args) == 1 and isinstance(args[0], (tuple, list)) and len(args[0]) == 4
    if one or len(args) == 4:
        values = [jnp.asarray(x) for x in (args[0] if one else args)]
        for name, value in zip("abcd", values):
            NON_NEGATIVE.check(name, value)  # counts: finite, >= 0
        try:
            jnp.broadcast_shapes(*(v.shape for v in values))
        except ValueError:
            raise ValueError(
                f"expected `counts` (a, b, c, d) of broadcasting shapes, got {[v.shape for v in values]}"
            ) from None
        dtype = _float_dtype(*values)
        return Counts(*(x.astype(dtype) for x in values))
    raise ValueError(
        "expected `counts`: the four counts (a, b, c, d), a Counts tuple, or (y_pred, y_true), got "
        f"{len(args)} arguments"
    )


def _ratio(num, den):
    """``num / den`` with 0/0 := 1 (the documented convention)."""
    num, den = jnp.asarray(num), jnp.asarray(den)
    return jnp.where(den > 0, num / jnp.where(den > 0, den, jnp.ones_like(den)), jnp.ones_like(num))


def _precision(a, b, c, d):
    return _ratio(a, a + b)


def _recall(a, b, c, d):
    return _ratio(a, a + c)


def _f_beta(a, b, c, d, beta=1.0):
    beta2 = jnp.asarray(beta, a.dtype) ** 2
    return _ratio((1 + beta2) * a, (1 + beta2) * a + b + beta2 * c)


def _balanced_accuracy(a, b, c, d):
    return (_ratio(a, a + c) + _ratio(d, d + b)) / 2


def precision(*counts, theta: ArrayLike = 0.0) -> Array:
    r"""Precision :math:`a / (a + b)` (1 when nothing is predicted positive)."""
    return _precision(*_unpack(counts, theta))


def recall(*counts, theta: ArrayLike = 0.0) -> Array:
    r"""Recall (sensitivity) :math:`a / (a + c)` (1 when there is no positive)."""
    return _recall(*_unpack(counts, theta))


def specificity(*counts, theta: ArrayLike = 0.0) -> Array:
    r"""Specificity :math:`d / (d + b)` (1 when there is no negative)."""
    a, b, c, d = _unpack(counts, theta)
    return _ratio(d, d + b)


def f_beta(*counts, beta: ArrayLike = 1.0, theta: ArrayLike = 0.0) -> Array:
    r""":math:`F_\beta = \frac{(1 + \beta^2)a}{(1 + \beta^2)a + b + \beta^2 c}`
    :math:`= (1 + \beta^2)/(1/\text{Precision} + \beta^2/\text{Recall})` (UML section 17.5); ``beta`` may be
    traced; :math:`\beta > 0`. :math:`F_1 = 2a/(2a + b + c)`, the harmonic mean of precision and recall."""
    POSITIVE.check("beta", beta)
    return _f_beta(*_unpack(counts, theta), beta)


def balanced_accuracy(*counts, theta: ArrayLike = 0.0) -> Array:
    r"""Averaged sensitivity and specificity :math:`\frac12(a/(a + c) + d/(d + b))` (UML section 17.5)."""
    return _balanced_accuracy(*_unpack(counts, theta))


def precision_at_k(y_pred: ArrayLike, y_true: ArrayLike, k: int) -> Array:
    """Precision of the ``k`` highest-scored items (the threshold with :math:`a + b = k`)."""
    return _precision(*top_k_counts(y_pred, y_true, k))


def recall_at_k(y_pred: ArrayLike, y_true: ArrayLike, k: int) -> Array:
    """Recall of the ``k`` highest-scored items (the threshold with :math:`a + b = k`)."""
    return _recall(*top_k_counts(y_pred, y_true, k))


# --------------------------------------------------------------------------------------------
# The loss-augmented search of "Solving Equation (17.14)"
# --------------------------------------------------------------------------------------------

MEASURES = ("balanced_accuracy", "f1", "f_beta", "precision_at_k", "recall_at_k")


def measure_loss(measure: str, counts: Counts, *, beta: ArrayLike = 1.0) -> Array:
    r""":math:`\Delta(a, b, c, d) = 1 - \text{measure}` for one of :data:`MEASURES` (broadcasts)."""
    counts = [jnp.asarray(x) for x in counts]
    dtype = _float_dtype(*counts)
    counts = Counts(*(x.astype(dtype) for x in counts))
    if measure == "balanced_accuracy":
        value = _balanced_accuracy(*counts)
    elif measure == "f1":
        value = _f_beta(*counts)
    elif measure == "f_beta":
        value = _f_beta(*counts, beta)
    elif measure == "precision_at_k":
        value = _precision(*counts)
    elif measure == "recall_at_k":
        value = _recall(*counts)
    else:
        raise ValueError(f"expected `measure` in {MEASURES}, got {measure!r}")
    return 1 - value


def check_measure(measure: str, k: Optional[int]) -> None:
    """Raise ``ValueError`` on an unknown measure, or a missing ``k`` for the at-``k`` measures."""
    if measure not in MEASURES:
        raise ValueError(f"expected `measure` in {MEASURES}, got {measure!r}")
    if measure.endswith("_at_k"):
        if k is None:
            raise ValueError(f"expected `k` an integer >= 0 for measure={measure!r}, got None")
        K_ITEMS.check("k", k)


def feasible(measure: str, a: Array, b: Array, k: Optional[int]) -> Array:
    r"""The constraint :math:`f(a, b)` defining :math:`V`: :math:`a + b \ge k` (precision@k),
    :math:`a + b \le k` (recall@k), none otherwise (:math:`V = \{\pm1\}^r`, :math:`\theta = 0`)."""
    if measure == "precision_at_k":
        return a + b >= k
    if measure == "recall_at_k":
        return a + b <= k
    return jnp.ones(jnp.broadcast_shapes(np.shape(a), np.shape(b)), bool)


def bipartite_loss_augmented(
    y_pred: ArrayLike,
    y_true: ArrayLike,
    measure: str,
    *,
    k: Optional[int] = None,
    beta: ArrayLike = 1.0,
    return_value: bool = False,
):
    r"""The maximiser :math:`\bar v` of :math:`\max_{v \in V}\ \Delta(v, y) + \sum_i v_i y'_i` (UML (17.14)),
    by the book's search ("Solving Equation (17.14)") over the counts :math:`(a, b)`.

    Within :math:`\bar Y_{a,b}` (``a`` true and ``b`` false positives) :math:`\Delta` is constant, so the
    best ``v`` marks the ``a`` highest-scoring positives and the ``b`` highest-scoring negatives. With
    the scores sorted once and their prefix sums :math:`S^+_a, S^-_b`,
    :math:`\sum_i v_i y'_i = 2(S^+_a + S^-_b) - \sum_i y'_i`, so every candidate costs :math:`O(1)`: the
    whole :math:`(r+1)\times(r+1)` grid of :math:`(a, b)` (entries with :math:`a > P`, :math:`b > N` or
    :math:`f(a, b) = 0` masked) is evaluated as one array, :math:`O(r^2)` where the loop of UML section
    17.5 ("Solving Equation (17.14)") is :math:`O(r^3)`, and its maximum taken with the book's tie rule
    (``if alpha >= alpha_bar``: the last candidate in the order ``a = 0..P`` outer, ``b = 0..N`` inner
    wins).

    Args:
      y_pred: scores :math:`y'_i = \langle w, x_i\rangle`, shape ``(r,)``.
      y_true: labels in {-1, +1}, shape ``(r,)``.
      measure: one of :data:`MEASURES` (static).
      k: for the at-``k`` measures, an int in ``0..r`` (static).
      beta: :math:`\beta > 0` for ``"f_beta"`` (may be traced).
      return_value: also return the maximum :math:`\bar\alpha`.

    Returns:
      :math:`\bar v \in \{\pm1\}^r` in ``y_pred``'s dtype; or ``(v, alpha_bar)``.
    """
    check_measure(measure, k)
    y_pred, y_true = jnp.asarray(y_pred), jnp.asarray(y_true)
    _check_pair(y_pred, y_true)
    if y_pred.ndim != 1:
        raise ValueError(
            f"expected `y_pred` of shape (r,) (one query; vmap for more), got {y_pred.shape}"
        )
    r = y_pred.shape[-1]
    if measure.endswith("_at_k"):
        k = static_count("k", k, 0, r)
    POSITIVE.check("beta", beta)
    dtype = _float_dtype(y_pred, y_true)
    mu = y_pred.astype(dtype)
    positive = y_true > 0
    P = jnp.sum(positive).astype(jnp.int32)
    N = r - P

    def ranked(members):  # members first, by decreasing score (stable); prefix sums of their scores
        order = jnp.argsort(jnp.where(members, -mu, jnp.inf), stable=True)
        sums = jnp.concatenate(
            [jnp.zeros(1, dtype), jnp.cumsum(jnp.where(members[order], mu[order], 0))]
        )
        return jnp.argsort(order, stable=True), sums  # rank of each item among the members

    rank_p, S_p = ranked(positive)
    rank_n, S_n = ranked(~positive)
    a = jnp.arange(r + 1, dtype=jnp.int32)[:, None]
    b = jnp.arange(r + 1, dtype=jnp.int32)[None, :]
    counts = Counts(*(x.astype(dtype) for x in (a, b, P - a, N - b)))
    valid = (a <= P) & (b <= N) & feasible(measure, a, b, k)
    alpha = (
        measure_loss(measure, counts, beta=beta) + 2 * (S_p[:, None] + S_n[None, :]) - jnp.sum(mu)
    )
    alpha = jnp.where(valid, alpha, -jnp.inf).ravel()
    best = alpha.size - 1 - jnp.argmax(alpha[::-1])  # the last maximiser
    a_bar, b_bar = best // (r + 1), best % (r + 1)
    v = jnp.where(positive, rank_p < a_bar, rank_n < b_bar)
    v = jnp.where(v, 1, -1).astype(dtype)
    return (v, alpha[best]) if return_value else v


def bipartite_hinge(
    y_pred: ArrayLike,
    y_true: ArrayLike,
    measure: str,
    *,
    k: Optional[int] = None,
    beta: ArrayLike = 1.0,
) -> Array:
    r"""The surrogate (17.14), :math:`\max_{v\in V}[\Delta(v, y) + \sum_i (v_i - y_i) y'_i]
    \ge \Delta(b(y'), y)` when :math:`y \in V`."""
    _, value = bipartite_loss_augmented(y_pred, y_true, measure, k=k, beta=beta, return_value=True)
    y_pred = jnp.asarray(y_pred)
    return value - jnp.sum(jnp.asarray(y_true).astype(value.dtype) * y_pred.astype(value.dtype))


def predict_signs(y_pred: ArrayLike, measure: str, *, k: Optional[int] = None) -> Array:
    r""":math:`b(y') = \arg\max_{v\in V}\sum_i v_i y'_i` (17.13): ``+1`` where :math:`y'_i \ge 0`; for
    precision@k also the top ``k`` (at least ``k`` positives), for recall@k only within the top ``k``
    (at most ``k``)."""
    y_pred = jnp.asarray(y_pred)
    positive = y_pred >= 0
    if measure.endswith("_at_k"):
        rank = jnp.argsort(jnp.argsort(-y_pred, axis=-1, stable=True), axis=-1, stable=True)
        top = rank < k
        positive = (positive | top) if measure == "precision_at_k" else (positive & top)
    return jnp.where(positive, 1, -1).astype(_float_dtype(y_pred))
