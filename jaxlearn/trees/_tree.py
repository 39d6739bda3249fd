r"""Decision trees grown greedily, level by level, at static depth (SPEC sections 15.2-15.5; UML 18.2).

A tree of depth :math:`D` is stored as a complete binary tree of :math:`2^{D+1} - 1` nodes in heap
layout (node :math:`i` has children :math:`2i+1` and :math:`2i+2`, node 0 is the root): per node a
split feature, a threshold (:math:`x_j \le \theta` goes left, to :math:`2i+1`), a leaf flag and the
(weighted) class counts of the training examples that reach it. A node that stops splitting is a
*pass-through leaf*: prediction stops there, and the nodes below it are never reached.

``fit`` is one jit-compiled program: each feature is sorted once; a ``lax.fori_loop`` over the
:math:`D` levels then finds, for all nodes of a level at once, the best split of every node by the
sweep of UML section 18.2.3 (running class counts along each feature's sorted order, grouped by
node), and partitions the sorted orders among the children with a stable counting pass (cumulative
sums and one scatter, no sort). The cost is :math:`O(d\,m\,k)` a level for :math:`m` examples,
:math:`d` features and :math:`k` classes.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn.core import BatchLearner, check_ndim, check_positive_int, float_dtype
from jaxlearn.linear._common import check_sample
from jaxlearn.trees._common import check_class_labels, labels_as_int

Array = jax.Array

CRITERIA = ("gini", "entropy", "train_error")


class DecisionTreeParams(NamedTuple):
    r"""A complete binary tree of static depth :math:`D` in heap layout (:math:`N = 2^{D+1} - 1` nodes).

    Attributes:
      feature: (N,) int32, the split feature :math:`j` of each internal node (0 at leaves).
      threshold: (N,) the split threshold :math:`\theta`: :math:`x_j \le \theta` goes to the left
        child :math:`2i + 1`, :math:`x_j > \theta` to the right child :math:`2i + 2` (0 at leaves).
      is_leaf: (N,) bool; prediction stops at the first leaf on the path.
      counts: (N, k) the (bootstrap-weighted) training class counts reaching each node; a leaf
        predicts their argmax (the smallest class on a tie). All zero at unreachable nodes.
    """

    feature: Array
    threshold: Array
    is_leaf: Array
    counts: Array


# --------------------------------------------------------------------------------------------
# Gain measures (UML section 18.2.1)
# --------------------------------------------------------------------------------------------


def impurity(counts: ArrayLike, criterion: str = "gini") -> Array:
    r"""The impurity :math:`C` of a node with class ``counts`` (last axis), UML section 18.2.1.

    With :math:`p_c` the class fractions: train error :math:`1 - \max_c p_c`, Gini
    :math:`1 - \sum_c p_c^2`, entropy :math:`-\sum_c p_c \ln p_c` (natural log, :math:`0\ln 0 = 0`).
    For two classes, :math:`a = p_1`, these are the book's :math:`\min\{a, 1-a\}`,
    :math:`2a(1-a)` and :math:`-a\ln a - (1-a)\ln(1-a)`. An empty node has impurity 0.
    """
    _check_criterion(criterion)
    counts = jnp.asarray(counts)
    counts = counts.astype(float_dtype(counts))
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
    """
    left, right = jnp.asarray(left_counts), jnp.asarray(right_counts)
    dtype = float_dtype(left)
    left, right = left.astype(dtype), right.astype(dtype)
    n_left, n_right = jnp.sum(left, -1), jnp.sum(right, -1)
    n = n_left + n_right
    n_safe = jnp.where(n > 0, n, 1)
    children = (n_left * impurity(left, criterion) + n_right * impurity(right, criterion)) / n_safe
    return impurity(left + right, criterion) - children


def _split_score(left, right, criterion):
    r"""A score of a split that orders splits of one node as their gain does (larger is better):
    :math:`-(n_L C(L) + n_R C(R))` up to a constant, written without divisions where possible."""
    n_left, n_right = jnp.sum(left, -1), jnp.sum(right, -1)
    if criterion == "gini":  # n C_gini = n - sum_c n_c^2 / n
        safe_l, safe_r = jnp.maximum(n_left, 1), jnp.maximum(n_right, 1)
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


def _check_criterion(criterion):
    if criterion not in CRITERIA:
        raise ValueError(f"expected `criterion` in {CRITERIA}, got {criterion!r}")


# --------------------------------------------------------------------------------------------
# The factory
# --------------------------------------------------------------------------------------------


def decision_tree(
    max_depth: int,
    *,
    criterion: str = "gini",
    max_bins: Optional[int] = None,
    min_samples_leaf: int = 1,
    num_classes: Optional[int] = None,
) -> BatchLearner:
    r"""A decision tree grown greedily to depth ``max_depth`` (ID3 with threshold splits, UML 18.2).

    Every node of a level is split on the feature and threshold of maximal gain (UML section
    18.2.1; the ``criterion``'s impurity :math:`C`),

    .. math:: \mathrm{Gain}(S, j, \theta) = C(S) - \big(P_S[x_j \le \theta]\, C(S_{x_j \le \theta})
              + P_S[x_j > \theta]\, C(S_{x_j > \theta})\big),

    among the thresholds of UML section 18.2.3: the mid-points between consecutive distinct values
    of :math:`x_j` in the node (on {0,1} features the one threshold 1/2, the book's "x_j = 1?"
    split). A node becomes a leaf when it is pure, at depth ``max_depth``, or when it has no split
    leaving ``min_samples_leaf`` examples on each side (all its features constant). As in ID3 and in
    scikit-learn, an impure node with a valid split is split even when the best gain is 0. A leaf
    predicts the majority class of its training examples.

    Tie rules: among splits of equal score the lowest feature index wins, then the lowest
    threshold; a majority tie at a leaf goes to the smallest class. scikit-learn visits features in
    a random order, so the trees agree where no two splits of a node have equal gain ("tie-free"
    data), which the tests check.

    Labels: the book's ID3 uses {0, 1}; ``fit`` takes any class labels ``0..k-1`` with
    ``k = num_classes``, or ``k = max(y) + 1`` (at least 2) read off concrete labels when
    ``num_classes`` is ``None``. Pass ``num_classes`` to fit under ``jax.jit`` / ``jax.vmap`` over data.

    ``max_bins``: if set, every feature is first quantised to at most ``max_bins`` quantile bins
    (per-feature quantiles of the training data; a value maps to its bin's upper edge, the
    mid-points between bins become the candidate thresholds), as histogram-based learners
    (LightGBM, scikit-learn's ``HistGradientBoosting``) do for large data.

    Args:
      max_depth: the depth :math:`D \ge 0` (structural: :math:`2^{D+1} - 1` nodes; 0 is one leaf).
      criterion: ``"gini"`` (CART), ``"entropy"`` (information gain, ID3/C4.5) or ``"train_error"``.
      max_bins: ``None`` (exact thresholds) or the number of quantile bins per feature (>= 2).
      min_samples_leaf: the fewest training examples a child may receive.
      num_classes: the number of classes :math:`k` (structural), or ``None`` to infer it.

    Returns:
      A :class:`~jaxlearn.core.BatchLearner`: ``fit(key, X, y) -> DecisionTreeParams`` (``key``
      unused), ``predict(params, X)`` the int32 labels. See also :func:`predict_proba`.

    Raises:
      ValueError: on ``max_depth < 0``, an unknown ``criterion``, bad ``max_bins`` or
        ``min_samples_leaf``; ``fit`` on labels outside ``0..k-1``, NaN/inf, ``X`` not of shape (m, d).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> X = jnp.array([[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [3.0, 0.0]])
      >>> y = jnp.array([0, 0, 1, 1])
      >>> tree = decision_tree(2)
      >>> params = tree.fit(jax.random.PRNGKey(0), X, y)
      >>> tree.predict(params, X).tolist()
      [0, 0, 1, 1]
      >>> float(params.threshold[0]), int(params.feature[0])
      (1.5, 0)

    References:
      UML sections 18.2 (ID3), 18.2.1 (gain measures), 18.2.3 (threshold splits); SPEC 15.2-15.5.
    """
    max_depth = check_depth(max_depth)
    _check_criterion(criterion)
    min_samples_leaf = check_positive_int("min_samples_leaf", min_samples_leaf)
    max_bins = None if max_bins is None else _check_bins(max_bins)

    def fit(key, X, y):
        X, y, k = check_tree_sample(X, y, num_classes)
        weights = jnp.ones(X.shape[0], jnp.int32)
        return _fit(
            key,
            X,
            y,
            weights,
            max_depth=max_depth,
            num_classes=k,
            criterion=criterion,
            min_samples_leaf=min_samples_leaf,
            max_features=None,
            max_bins=max_bins,
        )

    return BatchLearner(fit, predict)


def check_depth(max_depth) -> int:
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 0:
        raise ValueError(f"expected `max_depth` a non-negative int, got {max_depth!r}")
    if max_depth > 24:
        raise ValueError(
            f"expected `max_depth` <= 24 (a complete tree of 2^(D+1) - 1 nodes), got {max_depth}"
        )
    return int(max_depth)


def _check_bins(max_bins) -> int:
    if isinstance(max_bins, bool) or not isinstance(max_bins, (int, np.integer)) or max_bins < 2:
        raise ValueError(f"expected `max_bins` None or an int >= 2, got {max_bins!r}")
    return int(max_bins)


def check_tree_sample(X, y, num_classes):
    """Shapes and values of a tree's training sample; returns float ``X``, int32 ``y`` and ``k``."""
    check_sample(X, y, labels=None)
    k = check_class_labels(y, num_classes)
    X = jnp.asarray(X)
    return X.astype(float_dtype(X)), labels_as_int(y), k


# --------------------------------------------------------------------------------------------
# Prediction
# --------------------------------------------------------------------------------------------


def tree_depth(params: DecisionTreeParams) -> int:
    """The static depth :math:`D` of a tree's params (:math:`2^{D+1} - 1` nodes)."""
    return int(round(math.log2(params.feature.shape[-1] + 1))) - 1


def apply(params: DecisionTreeParams, X: ArrayLike) -> Array:
    """The index of the leaf each row of ``X`` reaches (walks :math:`D` levels, stopping at leaves)."""
    check_ndim("X", X, 2, "(n, d)")
    X = jnp.asarray(X).astype(params.threshold.dtype)
    return _apply(params, X)


@jax.jit
def _apply(params, X):
    def step(_, node):
        x = jnp.take_along_axis(X, params.feature[node][:, None], axis=1)[:, 0]
        child = 2 * node + 1 + (x > params.threshold[node]).astype(jnp.int32)
        return jnp.where(params.is_leaf[node], node, child)

    node = jnp.zeros(X.shape[0], jnp.int32)
    return jax.lax.fori_loop(0, tree_depth(params), step, node)


def predict(params: DecisionTreeParams, X: ArrayLike) -> Array:
    """The majority class of the leaf each row of ``X`` reaches (int32; smallest class on a tie)."""
    return jnp.argmax(params.counts[apply(params, X)], axis=-1).astype(jnp.int32)


def predict_proba(params: DecisionTreeParams, X: ArrayLike) -> Array:
    """The class frequencies of the training examples in the leaf each row of ``X`` reaches."""
    counts = params.counts[apply(params, X)]
    return counts / jnp.sum(counts, axis=-1, keepdims=True)


# --------------------------------------------------------------------------------------------
# Growing
# --------------------------------------------------------------------------------------------


def presort(X: Array) -> Array:
    """Each feature's stable sorting permutation, (d, m) int32 (equal values keep their order).

    float32 samples of up to :math:`2^{20}` examples are sorted by a least-significant-digit radix
    sort on the order-preserving integer image of the floats: each pass is a one-operand sort of
    int32 keys (digit, current position), which XLA's CPU sort runs several times faster than the
    two-operand sort behind ``argsort``. Other samples use ``jnp.argsort``.
    """
    m = X.shape[0]
    if X.dtype != jnp.float32 or m > 2**20:
        return jnp.argsort(X.T, axis=1, stable=True).astype(jnp.int32)
    bits = max(1, (m - 1).bit_length())
    digit_bits = 31 - bits
    ints = jax.lax.bitcast_convert_type(jnp.where(X.T == 0, 0, X.T).astype(jnp.float32), jnp.int32)
    flipped = jnp.where(ints < 0, ~ints, ints | jnp.int32(-(2**31)))  # order-preserving, as uint32
    keys = jax.lax.bitcast_convert_type(flipped, jnp.uint32)
    positions = jnp.broadcast_to(jnp.arange(m, dtype=jnp.int32), keys.shape)
    perm = positions
    for shift in range(0, 32, digit_bits):  # a static, short loop over the digits (2-3 passes)
        digit = ((jnp.take_along_axis(keys, perm, axis=1) >> shift) & ((1 << digit_bits) - 1)).astype(
            jnp.int32
        )
        ranked = jnp.sort((digit << bits) | positions, axis=1) & ((1 << bits) - 1)
        perm = jnp.take_along_axis(perm, ranked, axis=1)
    return perm


def bin_features(X: Array, max_bins: int) -> tuple[Array, Array]:
    """Quantile bins: ``(bins, edges)``, (m, d) int32 bin indices in ``0..max_bins-1`` and the
    (max_bins, d) upper edges (per-feature quantiles of ``X``, values present in ``X``).

    A value goes to the first bin whose upper edge is at least the value; of equal edges only the
    first is ever used, so the used bins of a feature have strictly increasing edges.
    """
    qs = jnp.linspace(0, 1, max_bins + 1, dtype=X.dtype)[1:]
    edges = jnp.quantile(X, qs, axis=0, method="higher")  # (max_bins, d), values present in X

    def one(column, edge):
        return jnp.clip(jnp.searchsorted(edge, column, side="left"), 0, max_bins - 1).astype(jnp.int32)

    return jax.vmap(one, in_axes=(1, 1), out_axes=1)(X, edges), edges


def quantize(X: Array, max_bins: int) -> Array:
    """Each value replaced by the upper edge of its quantile bin (at most ``max_bins`` per feature)."""
    bins, edges = bin_features(X, max_bins)
    return jnp.take_along_axis(edges, bins, axis=0)


@functools.partial(
    jax.jit,
    static_argnames=("max_depth", "num_classes", "criterion", "min_samples_leaf", "max_features", "max_bins"),
)
def _fit(key, X, y, weights, *, max_depth, num_classes, criterion, min_samples_leaf, max_features, max_bins):
    if max_bins is not None:
        X = quantize(X, max_bins)
    return grow(
        key,
        X,
        y,
        weights,
        presort(X),
        max_depth=max_depth,
        num_classes=num_classes,
        criterion=criterion,
        min_samples_leaf=min_samples_leaf,
        max_features=max_features,
    )


def _cumsum(a, axis=-1):
    """Inclusive cumulative sum: for long axes a parallel prefix scan (several times faster than
    ``jnp.cumsum`` on CPU, but slower to compile), else ``jnp.cumsum``."""
    if a.shape[axis] >= 4096:
        return jax.lax.associative_scan(jnp.add, a, axis=axis)
    return jnp.cumsum(a, axis=axis)


def _exclusive_cumsum(a, axis=-1):
    return _cumsum(a, axis=axis) - a


def grow(key, X, y, weights, order, *, max_depth, num_classes, criterion, min_samples_leaf, max_features):
    r"""Grow one tree (traceable; vmap it over ``key``/``weights`` for a forest).

    Args:
      key: draws the per-node feature subsets when ``max_features`` is set (else unused).
      X: (m, d) floats; y: (m,) int32 labels in ``0..k-1``.
      weights: (m,) int32 multiplicities (1 for a plain fit, bootstrap counts in a forest); examples
        of weight 0 take no part (they do not even define thresholds, as in scikit-learn).
      order: :func:`presort` of ``X``.
      max_features: ``None`` (all features at every node) or the size of the uniformly random
        subset of features (without replacement) a node may split on, drawn per node.
    """
    m, d = X.shape
    k, depth = num_classes, max_depth
    width = 2**depth  # nodes of the widest level; local node id `width` marks dropped examples
    num_nodes = 2 ** (depth + 1) - 1
    dtype = X.dtype
    alive = weights > 0
    positions = jnp.arange(m, dtype=jnp.int32)

    # The sorted orders, examples of weight 0 moved (stably) to the end: the root's segment is [0, m_alive).
    a = alive[order].astype(jnp.int32)
    num_alive = jnp.sum(alive, dtype=jnp.int32)
    new_pos = jnp.where(a > 0, _exclusive_cumsum(a), num_alive + _exclusive_cumsum(1 - a))
    order = _scatter_rows(order, new_pos)

    node = jnp.where(alive, 0, width).astype(jnp.int32)  # local node id of each example
    onehot = jax.nn.one_hot(y, k, dtype=jnp.int32) * weights[:, None]  # (m, k) weighted
    Xt = X.T  # (d, m)
    feature = jnp.zeros(num_nodes, jnp.int32)
    threshold = jnp.zeros(num_nodes, dtype)
    is_leaf = jnp.ones(num_nodes, bool)
    counts = jnp.zeros((num_nodes, k), dtype)

    def node_totals(node):
        totals = jax.ops.segment_sum(onehot, node, num_segments=width + 1)[:width]  # (width, k)
        sizes = jax.ops.segment_sum(alive.astype(jnp.int32), node, num_segments=width + 1)[:width]
        return totals, sizes

    def heap_index(level):  # local ids 0..width-1 of `level` -> heap ids (out of range: dropped)
        local = jnp.arange(width, dtype=jnp.int32)
        first = jnp.left_shift(jnp.int32(1), jnp.asarray(level, jnp.int32))
        return jnp.where(local < first, first - 1 + local, num_nodes)

    def level_step(level, carry):
        level = jnp.asarray(level, jnp.int32)
        order, node, feature, threshold, is_leaf, counts = carry
        totals, sizes = node_totals(node)
        starts = _exclusive_cumsum(sizes)
        # Every row of `order` is grouped by node with the same segments: position p belongs to one node.
        nodes = node[order[0]]  # (m,)
        in_tree = nodes < width
        nodes_c = jnp.minimum(nodes, width - 1)
        n_left = positions - starts[nodes_c] + 1
        n_right = sizes[nodes_c] - n_left
        fits = in_tree & (n_left >= min_samples_leaf) & (n_right >= min_samples_leaf)
        segments = jnp.where(in_tree, nodes, width)
        xs = jnp.take_along_axis(Xt, order, axis=1)  # (d, m) sorted values
        if max_features is None:
            rows = order
        else:  # per node, a random subset of the features it can split on: only their rows are scored
            can = fits & (_next(xs) > xs)
            candidates = jax.vmap(lambda c: jax.ops.segment_max(c, segments, num_segments=width + 1))(can)
            chosen = _feature_subsets(jax.random.fold_in(key, level), candidates[:, :width], max_features)
            row_feature = chosen[nodes_c].T  # (max_features, m): the feature each row scores at p
            rows = jnp.take_along_axis(order, row_feature, axis=0)
            xs = jnp.take_along_axis(xs, row_feature, axis=0)
        cum = _cumsum(onehot[rows], axis=1)  # (r, m, k) running counts
        base_idx = jnp.maximum(starts[nodes_c] - 1, 0)
        base = jnp.take_along_axis(
            cum, jnp.broadcast_to(base_idx[None, :, None], (cum.shape[0], m, 1)), axis=1
        )
        base = jnp.where((starts[nodes_c] > 0)[None, :, None], base, 0)
        left = cum - base  # counts of positions start..p of the node
        right = totals[nodes_c] - left
        valid = fits & (_next(xs) > xs)
        score = _split_score(left.astype(dtype), right.astype(dtype), criterion)
        score = jnp.where(valid, score, -jnp.inf)

        best = jax.vmap(lambda s: jax.ops.segment_max(s, segments, num_segments=width + 1))(score)
        at_best = valid & (
            score == jnp.take_along_axis(best, jnp.broadcast_to(segments, score.shape), axis=1)
        )
        first = jax.vmap(lambda p: jax.ops.segment_min(p, segments, num_segments=width + 1))(
            jnp.where(at_best, positions, m)
        )
        best, first = best[:, :width], first[:, :width]  # (r, width)
        best_row = jnp.argmax(best, axis=0).astype(jnp.int32)  # lowest feature on a tie
        if max_features is None:
            best_feature = best_row
        else:
            best_feature = jnp.take_along_axis(chosen, best_row[:, None], axis=1)[:, 0]
        best_pos = jnp.clip(jnp.take_along_axis(first, best_row[None], axis=0)[0], 0, m - 2)
        lo = xs[best_row, best_pos]
        hi = xs[best_row, best_pos + 1]
        thr = lo + (hi - lo) / 2
        thr = jnp.where(thr < hi, thr, lo)  # the mid-point rounded up to `hi`: use `lo`
        impure = jnp.sum(totals > 0, axis=-1) > 1
        split = impure & jnp.isfinite(jnp.max(best, axis=0))

        heap = heap_index(level)
        feature = feature.at[heap].set(jnp.where(split, best_feature, 0), mode="drop")
        threshold = threshold.at[heap].set(jnp.where(split, thr, 0).astype(dtype), mode="drop")
        is_leaf = is_leaf.at[heap].set(~split, mode="drop")
        counts = counts.at[heap].set(totals.astype(dtype), mode="drop")

        # Route the examples to the children and partition the sorted orders stably.
        node_c = jnp.minimum(node, width - 1)
        x_split = jnp.take_along_axis(X, best_feature[node_c][:, None], axis=1)[:, 0]
        right_side = (x_split > thr[node_c]).astype(jnp.int32)
        goes_on = (node < width) & split[node_c]
        child = jnp.where(goes_on, 2 * node + right_side, width)

        kept = jnp.where(split, sizes, 0)
        new_starts = _exclusive_cumsum(kept)  # parents' segments after dropping leaves' examples
        n_left_node = jax.ops.segment_sum(
            (goes_on & (right_side == 0)).astype(jnp.int32), node_c, num_segments=width
        )
        on = goes_on[order].astype(jnp.int32)
        to_right = (right_side[order] > 0) & (on > 0)
        to_left = (on > 0) & ~to_right
        both = jnp.stack([to_left, to_right], axis=-1).astype(jnp.int32)
        cum_both = _exclusive_cumsum(both, axis=1)
        cum_left, cum_right = cum_both[..., 0], cum_both[..., 1]
        cum_off = positions - cum_left - cum_right
        seg_start = jnp.broadcast_to(jnp.minimum(starts[nodes_c], m - 1), (d, m))
        seg0 = jnp.take_along_axis(cum_left, seg_start, axis=1)
        seg1 = jnp.take_along_axis(cum_right, seg_start, axis=1)
        dest = jnp.where(
            to_left,
            new_starts[nodes_c] + cum_left - seg0,
            new_starts[nodes_c] + n_left_node[nodes_c].astype(jnp.int32) + cum_right - seg1,
        )
        dest = jnp.where(on > 0, dest, jnp.sum(kept, dtype=jnp.int32) + cum_off)
        return _scatter_rows(order, dest), child, feature, threshold, is_leaf, counts

    carry = (order, node, feature, threshold, is_leaf, counts)
    order, node, feature, threshold, is_leaf, counts = jax.lax.fori_loop(0, depth, level_step, carry)
    totals, _ = node_totals(node)
    counts = counts.at[heap_index(depth)].set(totals.astype(dtype), mode="drop")
    return DecisionTreeParams(feature, threshold, is_leaf, counts)


def _scatter_rows(order, dest):
    """``new[f, dest[f, p]] = order[f, p]`` for every row ``f`` (``dest`` a permutation per row)."""
    return jax.vmap(lambda o, p: jnp.zeros_like(o).at[p].set(o, unique_indices=True))(order, dest)


def _next(xs):
    """Each row shifted left by one, padded with +inf: the value at the next position."""
    return jnp.concatenate([xs[:, 1:], jnp.full((xs.shape[0], 1), jnp.inf, xs.dtype)], axis=1)


def _feature_subsets(key, candidates, size):
    """(width, size) int32: per node ``size`` distinct features drawn uniformly without replacement
    among its ``candidates`` ((d, width) bool: the features with a valid split there), in increasing
    order; a node with fewer candidates gets them all (plus features it cannot split on). Like
    scikit-learn, features that are constant in the node do not count towards ``size``."""
    return _draw_subsets(jax.random.uniform(key, candidates.shape).T, candidates.T, size)


def _draw_subsets(u, candidates, size):
    """(w, size) int32: per row the ``size`` candidates (``candidates`` (w, d) bool) of largest
    uniform ``u`` (w, d), in increasing order; non-candidates only when there are too few."""
    u = jnp.where(candidates, u, -1.0)
    return jnp.sort(jax.lax.top_k(u, size)[1], axis=1).astype(jnp.int32)


def grow_binned(
    key, bins, edges, y, weights, *, max_depth, num_classes, criterion, min_samples_leaf, max_features
):
    r"""Grow one tree on binned features by class histograms (traceable; vmap it for a forest).

    The histogram algorithm of LightGBM and scikit-learn's ``HistGradientBoosting``: with every
    feature quantised once to :math:`B` bins (:func:`bin_features`), a level costs one scatter-add
    of the examples' weighted one-hot labels into the class histograms of every (node, feature,
    bin), cumulative sums over the bins (the left counts of the split "bin :math:`\le b`" of UML
    section 18.2.3), the split scores and arg-maxes: :math:`O(m\,r\,k + w\,r\,B\,k)` for the
    :math:`r` features scored per node and the :math:`w` nodes of a level, with no sorting. With
    ``max_features`` set, only each node's drawn features get histograms.

    It grows the same tree as :func:`grow` on the quantised sample ``edges[bins]`` (same gains, the
    same tie rules: lowest feature, then lowest threshold; the threshold is the mid-point between
    the upper edges of the last bin on the left and the next bin present in the node).

    Args:
      key: draws the per-node feature subsets when ``max_features`` is set (else unused).
      bins: (m, d) int32 bin indices in ``0..B-1``; edges: (B, d) their upper edges (floats).
      y: (m,) int32 labels; weights: (m,) int32 multiplicities (examples of weight 0 take no part).
      max_features: ``None`` (all features at every node) or the size of the random subset of
        features, drawn per node among the features that are not constant in it.
    """
    m, d = bins.shape
    num_bins = edges.shape[0]
    k, depth = num_classes, max_depth
    width = 2**depth
    num_nodes = 2 ** (depth + 1) - 1
    dtype = edges.dtype
    alive = weights > 0
    r = d if max_features is None else max_features
    # channels of the histograms: the weighted class counts, and the examples (for min_samples_leaf)
    channels = [jax.nn.one_hot(y, k, dtype=jnp.int32) * weights[:, None]]
    if min_samples_leaf > 1:
        channels.append(alive.astype(jnp.int32)[:, None])
    data = jnp.concatenate(channels, axis=1)  # (m, c)
    c = data.shape[1]

    node = jnp.where(alive, 0, width).astype(jnp.int32)  # local id in its level; `width`: dropped
    feature = jnp.zeros(num_nodes, jnp.int32)
    threshold = jnp.zeros(num_nodes, dtype)
    is_leaf = jnp.ones(num_nodes, bool)
    counts = jnp.zeros((num_nodes, k), dtype)

    if max_features is not None:  # one draw for all levels (each draw is a costly compilation)
        uniforms = jax.random.uniform(key, (width - 1, d))  # row i: the internal node i (heap layout)

    def level_step(level, node):
        """Split the ``2**level`` nodes of ``level``: their params and the examples' children."""
        w = 2**level  # the level's nodes; examples with a local id >= w are dropped
        totals = jax.ops.segment_sum(data, node, num_segments=w)  # (w, c)
        node_c = jnp.minimum(node, w - 1)
        if max_features is None:
            chosen = jnp.broadcast_to(jnp.arange(d, dtype=jnp.int32), (w, d))
            row_bins = bins  # (m, r)
        else:  # features not constant in the node: the candidates of its random subset
            lo = jax.ops.segment_min(bins, node, num_segments=w)
            hi = jax.ops.segment_max(bins, node, num_segments=w)
            chosen = _draw_subsets(uniforms[w - 1 : 2 * w - 1], hi > lo, max_features)
            row_bins = jnp.take_along_axis(bins, chosen[node_c], axis=1)  # (m, r)
        slot = (jnp.minimum(node, w)[:, None] * r + jnp.arange(r, dtype=jnp.int32)) * num_bins + row_bins
        hist = jax.ops.segment_sum(
            jnp.broadcast_to(data[:, None, :], (m, r, c)).reshape(m * r, c),
            slot.reshape(m * r),
            num_segments=w * r * num_bins,
        ).reshape(w, r, num_bins, c)
        left = jnp.cumsum(hist, axis=2)
        right = totals[:, None, None, :] - left
        if min_samples_leaf > 1:
            n_left, n_right = left[..., k], right[..., k]
        else:
            n_left, n_right = jnp.sum(left[..., :k], -1), jnp.sum(right[..., :k], -1)
        valid = (n_left >= min_samples_leaf) & (n_right >= min_samples_leaf)
        score = _split_score(left[..., :k].astype(dtype), right[..., :k].astype(dtype), criterion)
        score = jnp.where(valid, score, -jnp.inf)  # (w, r, B)
        best = jnp.max(score, axis=2)  # (w, r)
        best_row = jnp.argmax(best, axis=1).astype(jnp.int32)  # lowest feature on a tie
        best_feature = jnp.take_along_axis(chosen, best_row[:, None], axis=1)[:, 0]
        row_score = jnp.take_along_axis(score, best_row[:, None, None], axis=1)[:, 0]  # (w, B)
        b_lo = jnp.argmax(row_score, axis=1).astype(jnp.int32)  # lowest threshold on a tie
        present = jnp.sum(jnp.take_along_axis(hist, best_row[:, None, None, None], axis=1)[:, 0], -1) > 0
        b_hi = jnp.argmax(present & (jnp.arange(num_bins, dtype=jnp.int32) > b_lo[:, None]), axis=1)
        lo_edge = edges[b_lo, best_feature]
        hi_edge = edges[b_hi, best_feature]
        thr = lo_edge + (hi_edge - lo_edge) / 2
        thr = jnp.where(thr < hi_edge, thr, lo_edge)
        split = (jnp.sum(totals[:, :k] > 0, axis=-1) > 1) & jnp.isfinite(jnp.max(best, axis=1))

        x_bin = jnp.take_along_axis(bins, best_feature[node_c][:, None], axis=1)[:, 0]
        goes_on = (node < w) & split[node_c]
        child = jnp.where(goes_on, 2 * node + (x_bin > b_lo[node_c]).astype(jnp.int32), width)
        params = (jnp.where(split, best_feature, 0), jnp.where(split, thr, 0).astype(dtype), ~split)
        return params + (totals[:, :k].astype(dtype),), child

    # The levels are unrolled (the depth is structural): level l works on arrays of its 2**l nodes,
    # which makes the shallow levels cheap (a fori_loop would need the widest level's shapes throughout).
    for level in range(depth):
        (f, t, leaf, cnt), node = level_step(level, node)
        heap = slice(2**level - 1, 2 ** (level + 1) - 1)
        feature, threshold = feature.at[heap].set(f), threshold.at[heap].set(t)
        is_leaf, counts = is_leaf.at[heap].set(leaf), counts.at[heap].set(cnt)
    totals = jax.ops.segment_sum(data[:, :k], node, num_segments=width).astype(dtype)
    counts = counts.at[width - 1 :].set(totals)
    return DecisionTreeParams(feature, threshold, is_leaf, counts)
