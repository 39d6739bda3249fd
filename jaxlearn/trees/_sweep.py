r"""The exact split search: the sorted sweep of UML section 18.2.3, at every node of a level at once.

Each feature is sorted once (:func:`~jaxlearn.trees._features.presort`); the sorted orders are kept
grouped by node, each node a contiguous segment. A level then runs, for all nodes at once, the
sweep of UML 18.2.3: running class counts along each feature's sorted order (one cumulative sum,
less the counts before the node's segment) are the left counts of every threshold "the mid-point
between consecutive distinct values"; the best score of each node is a segment max. The orders are
then partitioned among the children with a stable counting pass (cumulative sums and one scatter,
no sort). The cost is :math:`O(d\,m\,k)` a level for :math:`m` examples, :math:`d` features and
:math:`k` classes.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlearn.trees._criteria import valid_split_score
from jaxlearn.trees._grow import (
    LevelSplits,
    best_of_rows,
    class_counts,
    draw_subsets,
    grow_levels,
    node_uniforms,
)

Array = jax.Array


def grow(
    key,
    X,
    y,
    weights,
    order,
    *,
    max_depth,
    num_classes,
    criterion,
    min_samples_leaf,
    max_features,
    min_samples_split=2,
    unbatched=False,
):
    r"""Grow one tree on exact mid-point thresholds (traceable; vmap it over ``key``/``weights``).

    Args:
      key: draws the per-node feature subsets when ``max_features`` is set (else unused).
      X: (m, d) floats; y: (m,) int32 labels in ``0..k-1``.
      weights: (m,) int32 multiplicities (1 for a plain fit, bootstrap counts in a forest) or real
        weights >= 0 (then the class counts, impurities and gains are weighted sums in ``X``'s
        dtype; ``min_samples_leaf`` and ``min_samples_split`` still count examples, as
        scikit-learn's); examples of weight 0 take no part (they do not even define thresholds, as
        in scikit-learn).
      order: :func:`~jaxlearn.trees._features.presort` of ``X``.
      max_features: ``None`` (all features at every node) or the size of the uniformly random
        subset of features (without replacement) a node may split on, drawn per node.
      unbatched: the tree is grown alone, not under ``vmap``: a level then draws the feature subsets
        of its nodes only, not of all its slots (a branch on the number of nodes, which ``vmap``
        would turn into every branch). The same draws either way.
    """
    m, d = X.shape
    dtype = X.dtype
    if not jnp.issubdtype(weights.dtype, jnp.integer):
        weights = weights.astype(dtype)
    alive = weights > 0
    positions = jnp.arange(m, dtype=jnp.int32)

    # The sorted orders, examples of weight 0 moved (stably) to the end: the root's segment is [0, m_alive).
    a = alive[order].astype(jnp.int32)
    num_alive = jnp.sum(alive, dtype=jnp.int32)
    new_pos = jnp.where(a > 0, _exclusive_cumsum(a), num_alive + _exclusive_cumsum(1 - a))
    order = _scatter_rows(order, new_pos)
    onehot = class_counts(y, weights, num_classes)  # (m, k) weighted
    Xt = X.T  # (d, m)

    def search(level, w, node, totals, sizes, order, keys):
        def segment_max(values, segments):
            return jax.vmap(lambda v: jax.ops.segment_max(v, segments, num_segments=w + 1))(values)

        starts = _exclusive_cumsum(sizes)
        # Every row of `order` is grouped by node with the same segments: position p belongs to one node.
        slots = node[order[0]]  # (m,)
        in_tree = slots < w
        nodes_c = jnp.minimum(slots, w - 1)
        n_left = positions - starts[nodes_c] + 1
        n_right = sizes[nodes_c] - n_left
        fits = in_tree & (n_left >= min_samples_leaf) & (n_right >= min_samples_leaf)
        segments = jnp.where(in_tree, slots, w)
        xs = jnp.take_along_axis(Xt, order, axis=1)  # (d, m) sorted values
        if max_features is None:
            rows, chosen = order, None
        else:  # per node, a random subset of the features it can split on: only their rows are scored
            # (as in scikit-learn, features constant in the node do not count towards the subset)
            candidates = _splittable(xs, starts, sizes, min_samples_leaf)
            chosen = _draw_for_nodes(keys, candidates.T, sizes, max_features, unbatched)
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
        score = valid_split_score(left, right, valid, criterion, dtype, most=m)

        best = segment_max(score, segments)
        at_best = valid & (
            score == jnp.take_along_axis(best, jnp.broadcast_to(segments, score.shape), axis=1)
        )
        first = jax.vmap(lambda p: jax.ops.segment_min(p, segments, num_segments=w + 1))(
            jnp.where(at_best, positions, m)
        )
        best, first = best[:, :w], first[:, :w]  # (r, w)
        node_score, best_row, best_feature = best_of_rows(best.T, chosen)
        best_pos = jnp.clip(jnp.take_along_axis(first, best_row[None], axis=0)[0], 0, m - 2)

        def goes_right(thr, node_c):
            x_split = jnp.take_along_axis(X, best_feature[node_c][:, None], axis=1)[:, 0]
            return x_split > thr[node_c]

        def advance(goes_on, right, split):
            """Partition the sorted orders stably among the children (the leaves' examples last)."""
            kept = jnp.where(split, sizes, 0)
            # the segments once the leaves' examples are dropped
            new_starts = _exclusive_cumsum(kept)
            n_left_node = jax.ops.segment_sum(
                (goes_on & ~right).astype(jnp.int32),
                jnp.minimum(node, w - 1),
                num_segments=w,
            )
            n_right_node = kept - n_left_node  # a node that splits sends all its examples on
            on = goes_on[order]
            to_right = right[order] & on
            to_left = on & ~to_right
            both = jnp.stack([to_left, to_right], axis=-1).astype(jnp.int32)
            cum_both = _exclusive_cumsum(both, axis=1)
            cum_left, cum_right = cum_both[..., 0], cum_both[..., 1]
            cum_off = positions - cum_left - cum_right
            # a node's segment starts after the segments of the nodes before it, in every feature's
            # order: the running counts there are those nodes' left and right examples
            left_first = new_starts - _exclusive_cumsum(n_left_node)
            right_first = new_starts + n_left_node - _exclusive_cumsum(n_right_node)
            dest = jnp.where(
                to_left, left_first[nodes_c] + cum_left, right_first[nodes_c] + cum_right
            )
            dest = jnp.where(on, dest, jnp.sum(kept, dtype=jnp.int32) + cum_off)
            return _scatter_rows(order, dest)

        lo, hi = xs[best_row, best_pos], xs[best_row, best_pos + 1]
        return LevelSplits(node_score, best_feature, lo, hi, goes_right, advance)

    return grow_levels(
        search,
        order,
        onehot,
        alive,
        max_depth=max_depth,
        dtype=dtype,
        criterion=criterion,
        num_features=d,
        min_samples_split=min_samples_split,
        key=None if max_features is None else key,
    )


#: The numbers of slots whose subsets an unbatched level draws: the smallest that holds its nodes.
DRAW_WIDTHS = (64, 512)


def _draw_for_nodes(keys, candidates, sizes, size, unbatched):
    """(w, size): :func:`~jaxlearn.trees._grow.draw_subsets` of the slots with keys ``keys`` (w, ...)
    and ``candidates`` (w, d); with ``unbatched``, those of the slots up to the last holding examples
    (``sizes`` (w,)) only, the others 0 (no example is in them)."""
    w, d = candidates.shape
    if not unbatched:
        return draw_subsets(node_uniforms(keys, d), candidates, size)
    widths = sorted({min(width, w) for width in DRAW_WIDTHS} | {w})
    used = jnp.max(jnp.where(sizes > 0, jnp.arange(1, w + 1, dtype=jnp.int32), 0))

    def first(width):
        def draw(_):
            drawn = draw_subsets(node_uniforms(keys[:width], d), candidates[:width], size)
            return jnp.zeros((w, size), jnp.int32).at[:width].set(drawn)

        return draw

    index = jnp.searchsorted(jnp.asarray(widths, jnp.int32), used)  # the smallest width >= used
    return jax.lax.switch(index, [first(width) for width in widths], None)


def _splittable(xs, starts, sizes, min_samples_leaf):
    """(d, w) bool: whether feature ``f`` has a threshold in node ``j`` leaving ``min_samples_leaf``
    examples a side. ``xs`` (d, m) holds each feature's values sorted within the nodes' contiguous
    segments ``[starts[j], starts[j] + sizes[j])``, so it has one when the value ``min_samples_leaf``
    places from the segment's end exceeds the value as far from its start."""
    m = xs.shape[1]
    low = jnp.clip(starts + min_samples_leaf - 1, 0, m - 1)
    high = jnp.clip(starts + sizes - min_samples_leaf, 0, m - 1)
    return (sizes >= 2 * min_samples_leaf) & (xs[:, high] > xs[:, low])


def _cumsum(a, axis=-1):
    """Inclusive cumulative sum: for long axes a parallel prefix scan (several times faster than
    ``jnp.cumsum`` on CPU, but slower to compile), else ``jnp.cumsum``."""
    if a.shape[axis] >= 4096:
        return jax.lax.associative_scan(jnp.add, a, axis=axis)
    return jnp.cumsum(a, axis=axis)


def _exclusive_cumsum(a, axis=-1):
    return _cumsum(a, axis=axis) - a


def _scatter_rows(order, dest):
    """``new[f, dest[f, p]] = order[f, p]`` for every row ``f`` (``dest`` a permutation per row)."""
    d, m = order.shape
    if d * m > jnp.iinfo(jnp.int32).max:  # past int32's flat indices: index pairs, row by row
        return jax.vmap(lambda o, p: jnp.zeros_like(o).at[p].set(o, unique_indices=True))(
            order, dest
        )
    flat = (dest + m * jnp.arange(d, dtype=dest.dtype)[:, None]).ravel()  # one index per entry
    new = jnp.zeros(d * m, order.dtype).at[flat].set(order.ravel(), unique_indices=True)
    return new.reshape(d, m)


def _next(xs):
    """Each row shifted left by one, padded with +inf: the value at the next position."""
    return jnp.concatenate([xs[:, 1:], jnp.full((xs.shape[0], 1), jnp.inf, xs.dtype)], axis=1)
