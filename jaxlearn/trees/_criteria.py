r"""Impurity and gain of a split (UML section 18.2.1), and the score the growth maximises."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_finite, check_range
from jaxlearn._shared import float_dtype

Array = jax.Array

CRITERIA = ("gini", "entropy", "train_error")


def check_criterion(criterion) -> None:
    if not isinstance(criterion, str):
        raise TypeError(
            f"expected `criterion` in {CRITERIA}, got {type(criterion).__name__} {criterion!r}"
        )
    if criterion not in CRITERIA:
        raise ValueError(f"expected `criterion` in {CRITERIA}, got {criterion!r}")


def _as_counts(name: str, counts):
    """Class counts (last axis) as floats: an array of >= 1 dimension, finite and >= 0 when concrete."""
    counts = np.asarray(counts) if isinstance(counts, (list, tuple)) else counts
    dtype = counts.dtype if hasattr(counts, "dtype") else np.asarray(counts).dtype
    if not (np.issubdtype(dtype, np.number) or dtype == np.bool_):
        raise TypeError(f"expected `{name}` numeric class counts, got dtype {dtype}")
    if len(jnp.shape(counts)) < 1:
        raise ValueError(
            f"expected `{name}` class counts of shape (..., k), got shape {jnp.shape(counts)}"
        )
    check_finite(name, counts)
    check_range(name, counts, 0, np.inf)
    counts = jnp.asarray(counts)
    return counts.astype(float_dtype(counts))


def impurity(counts: ArrayLike, criterion: str = "gini") -> Array:
    r"""The impurity :math:`C` of a node with class ``counts`` (last axis), UML section 18.2.1.

    With :math:`p_c` the class fractions: train error :math:`1 - \max_c p_c`, Gini
    :math:`1 - \sum_c p_c^2`, entropy :math:`-\sum_c p_c \ln p_c` (natural log, :math:`0\ln 0 = 0`).
    For two classes, :math:`a = p_1`, these are the book's :math:`\min\{a, 1-a\}`,
    :math:`2a(1-a)` and :math:`-a\ln a - (1-a)\ln(1-a)`. An empty node has impurity 0.

    Examples:
      >>> round(float(impurity([3, 1])), 4), round(float(impurity([3, 1], "train_error")), 4)
      (0.375, 0.25)
    """
    check_criterion(criterion)
    counts = _as_counts("counts", counts)
    total = jnp.sum(counts, axis=-1)
    p = counts / jnp.where(total > 0, total, 1)[..., None]
    if criterion == "train_error":
        value = 1 - jnp.max(p, axis=-1)
    elif criterion == "gini":
        value = 1 - jnp.sum(p * p, axis=-1)
    else:
        value = -jnp.sum(jax.scipy.special.xlogy(p, p), axis=-1)
    return jnp.where(total > 0, value, 0)


def gain(left_counts: ArrayLike, right_counts: ArrayLike, criterion: str = "gini") -> Array:
    r"""The gain of a split into ``left_counts`` / ``right_counts`` (class counts), UML section 18.2.1:

    .. math:: \mathrm{Gain} = C(S) - \big(P[\text{left}]\, C(S_{\text{left}})
              + P[\text{right}]\, C(S_{\text{right}})\big).

    Examples:
      >>> float(gain([2, 0], [0, 2]))  # a perfect split of a balanced node: all of its Gini impurity
      0.5
    """
    check_criterion(criterion)
    left, right = _as_counts("left_counts", left_counts), _as_counts("right_counts", right_counts)
    try:
        np.broadcast_shapes(left.shape, right.shape)
        same = left.shape[-1] == right.shape[-1]
    except ValueError:
        same = False
    if not same:
        raise ValueError(
            f"expected `left_counts` and `right_counts` over the same classes, got shapes {left.shape} "
            f"and {right.shape}"
        )
    dtype = jnp.promote_types(left.dtype, right.dtype)
    left, right = left.astype(dtype), right.astype(dtype)
    n_left, n_right = jnp.sum(left, -1), jnp.sum(right, -1)
    n = n_left + n_right
    n_safe = jnp.where(n > 0, n, 1)
    children = (n_left * impurity(left, criterion) + n_right * impurity(right, criterion)) / n_safe
    return impurity(left + right, criterion) - children


def split_score(left, right, criterion, counts: bool = True):
    r"""A score of a split that orders splits of one node as their gain does (larger is better):
    :math:`-(n_L C(L) + n_R C(R))` up to a constant, written without divisions where possible.
    ``counts``: the class counts are integers (an empty side sums to 0, any other to at least 1);
    else real weighted counts."""
    n_left, n_right = jnp.sum(left, -1), jnp.sum(right, -1)
    if criterion == "gini":  # n C_gini = n - sum_c n_c^2 / n
        if counts:
            safe_l, safe_r = jnp.maximum(n_left, 1), jnp.maximum(n_right, 1)
        else:
            safe_l, safe_r = jnp.where(n_left > 0, n_left, 1), jnp.where(n_right > 0, n_right, 1)
        return jnp.sum(left * left, -1) / safe_l + jnp.sum(right * right, -1) / safe_r
    if criterion == "entropy":  # n C_entropy = n ln n - sum_c n_c ln n_c
        xlogx = jax.scipy.special.xlogy
        return (
            jnp.sum(xlogx(left, left), -1)
            - xlogx(n_left, n_left)
            + jnp.sum(xlogx(right, right), -1)
            - xlogx(n_right, n_right)
        )
    return jnp.max(left, -1) + jnp.max(right, -1)  # n C_err = n - max_c n_c


def valid_split_score(left, right, valid, criterion, dtype, most=None):
    r""":func:`split_score` of class counts (integer multiplicities, or real weighted counts) in
    ``dtype``, ``-inf`` where not ``valid``.

    ``right`` is a node's totals less ``left``: with real weights a count that should be 0 may come
    out a rounding error below it, which is clipped to 0 (integer counts are exact).

    The entropy of integer counts of at most ``most`` reads :math:`n \ln n` from a table of
    :math:`0, \dots,` ``most``: the same bits wherever a count is scored (a logarithm computed in
    two programs may differ in its last bit, and then so may the choice between two splits of equal
    gain: the growers that score splits differently would not grow the same trees)."""
    counts = jnp.issubdtype(left.dtype, jnp.integer) and jnp.issubdtype(right.dtype, jnp.integer)
    if not counts:
        right = jnp.maximum(right, 0)
    if counts and criterion == "entropy" and most is not None:
        values = jnp.arange(most + 1, dtype=dtype)
        table = jax.scipy.special.xlogy(values, values)

        def xlogx(n):
            return jnp.take(table, n, mode="clip")

        n_left, n_right = jnp.sum(left, -1), jnp.sum(right, -1)
        score = (
            jnp.sum(xlogx(left), -1) - xlogx(n_left) + jnp.sum(xlogx(right), -1) - xlogx(n_right)
        )
    else:
        score = split_score(left.astype(dtype), right.astype(dtype), criterion, counts)
    return jnp.where(valid, score, -jnp.inf)
