r"""The binned split search: class histograms over quantile bins (LightGBM, ``HistGradientBoosting``).

With every feature quantised once to :math:`B` bins (:func:`~jaxlearn.trees._features.bin_features`),
a level costs one scatter-add of the examples' weighted one-hot labels into the class histograms of
every (node, feature, bin), cumulative sums over the bins (the left counts of the split "bin
:math:`\le b`" of UML section 18.2.3), the split scores and arg-maxes: :math:`O(m\,r\,k + w\,r\,B\,k)`
for the :math:`r` features scored per node and the :math:`w` nodes of a level, with no sorting.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlearn.trees._criteria import valid_split_score
from jaxlearn.trees._grow import LevelSplits, best_of_rows, class_counts, draw_subsets, grow_levels

Array = jax.Array


def grow_binned(
    key, bins, edges, y, weights, *, max_depth, num_classes, criterion, min_samples_leaf, max_features
):
    r"""Grow one tree on binned features by class histograms (traceable; vmap it for a forest).

    It grows the same tree as :func:`~jaxlearn.trees._sweep.grow` on the quantised sample
    ``edges[bins]`` (same gains, the same tie rules: lowest feature, then lowest threshold; the
    threshold is the mid-point between the upper edges of the last bin on the left and the next bin
    present in the node). With ``max_features`` set, only each node's drawn features get histograms.

    Args:
      key: draws the per-node feature subsets when ``max_features`` is set (else unused).
      bins: (m, d) int32 bin indices in ``0..B-1``; edges: (B, d) their upper edges (floats).
      y: (m,) int32 labels; weights: (m,) int32 multiplicities (examples of weight 0 take no part).
      max_features: ``None`` (all features at every node) or the size of the random subset of
        features, drawn per node among the features that are not constant in it.
    """
    m, d = bins.shape
    num_bins = edges.shape[0]
    k = num_classes
    dtype = edges.dtype
    alive = weights > 0
    r = d if max_features is None else max_features
    onehot = class_counts(y, weights, k)
    # channels of the histograms: the weighted class counts, and the examples (for min_samples_leaf)
    with_sizes = min_samples_leaf > 1
    data = jnp.concatenate([onehot, alive.astype(jnp.int32)[:, None]], axis=1) if with_sizes else onehot
    c = data.shape[1]
    if max_features is not None:  # one draw for all levels (each draw is a costly compilation)
        uniforms = jax.random.uniform(key, (2**max_depth - 1, d))  # row i: the internal node i (heap)

    def search(level, w, node, totals, sizes, state):
        node_c = jnp.minimum(node, w - 1)
        if max_features is None:
            chosen, row_bins = None, bins  # (m, r)
        else:  # features not constant in the node: the candidates of its random subset
            lo = jax.ops.segment_min(bins, node, num_segments=w)
            hi = jax.ops.segment_max(bins, node, num_segments=w)
            chosen = draw_subsets(uniforms[w - 1 : 2 * w - 1], hi > lo, max_features)
            row_bins = jnp.take_along_axis(bins, chosen[node_c], axis=1)  # (m, r)
        slot = (jnp.minimum(node, w)[:, None] * r + jnp.arange(r, dtype=jnp.int32)) * num_bins + row_bins
        hist = jax.ops.segment_sum(
            jnp.broadcast_to(data[:, None, :], (m, r, c)).reshape(m * r, c),
            slot.reshape(m * r),
            num_segments=w * r * num_bins,
        ).reshape(w, r, num_bins, c)
        left = jnp.cumsum(hist, axis=2)
        node_totals = jnp.concatenate([totals, sizes[:, None]], axis=1) if with_sizes else totals
        right = node_totals[:, None, None, :] - left
        if with_sizes:
            n_left, n_right = left[..., k], right[..., k]
        else:
            n_left, n_right = jnp.sum(left[..., :k], -1), jnp.sum(right[..., :k], -1)
        valid = (n_left >= min_samples_leaf) & (n_right >= min_samples_leaf)
        score = valid_split_score(left[..., :k], right[..., :k], valid, criterion, dtype)  # (w, r, B)
        node_score, best_row, best_feature = best_of_rows(jnp.max(score, axis=2), chosen)
        row_score = jnp.take_along_axis(score, best_row[:, None, None], axis=1)[:, 0]  # (w, B)
        b_lo = jnp.argmax(row_score, axis=1).astype(jnp.int32)  # lowest threshold on a tie
        present = jnp.sum(jnp.take_along_axis(hist, best_row[:, None, None, None], axis=1)[:, 0], -1) > 0
        b_hi = jnp.argmax(present & (jnp.arange(num_bins, dtype=jnp.int32) > b_lo[:, None]), axis=1)

        def goes_right(thr, node_c):
            x_bin = jnp.take_along_axis(bins, best_feature[node_c][:, None], axis=1)[:, 0]
            return x_bin > b_lo[node_c]

        lo_edge, hi_edge = edges[b_lo, best_feature], edges[b_hi, best_feature]
        return LevelSplits(node_score, best_feature, lo_edge, hi_edge, goes_right, lambda *_: state)

    # The levels are unrolled (the depth is structural): level l works on arrays of its 2**l nodes,
    # which makes the shallow levels cheap (a fori_loop would need the widest level's shapes throughout).
    return grow_levels(
        search,
        (),
        onehot,
        alive,
        max_depth=max_depth,
        dtype=dtype,
        unroll=True,
        criterion=criterion,
        num_features=d,
    )
