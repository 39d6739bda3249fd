r"""Class histograms at any depth: the binned split search of one tree, level by level over its nodes.

:mod:`~jaxlearn.trees._histogram` lays a level out as every node a complete tree of its depth could
have, :math:`2^l`, which bounds it to shallow trees. Here the split search runs inside
:func:`~jaxlearn.trees._grow.grow_levels`, whose levels hold only the children of the previous
level's splits. The histograms of a level's :math:`n` nodes are summed in rounds of :math:`c` nodes
(:func:`chunk_size`), each one scatter-add of the :math:`m` examples' weights into the class
histograms of :math:`c` nodes, :math:`r` features and :math:`B` bins: a level costs
:math:`O(\lceil n / c \rceil\, m\, r + n\, r\, B\, k)`, against the sorted sweep's
:math:`O(m\,(d + r\,k))` for any :math:`n`, so the few nodes of a tree's first and last levels
cost little. With few bins and classes (:func:`deep_histograms`) it grows deep trees faster than the
sweep, and its one compiled round is a smaller program.

On the bins of :func:`~jaxlearn.trees._bins.fit_bins` the trees are those of the sorted sweep
(:mod:`~jaxlearn.trees._sweep`) on the values ``edges[bins]``: the same left and right class counts
of every threshold, the same feature subsets (each node's own key), the same tie rules (lowest
feature, then lowest threshold) and the same mid-points (between the upper edges of the last bin on
the left and the next bin present in the node).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from jaxlearn.trees._grow import LevelSplits, class_counts, draw_subsets, grow_levels, node_uniforms
from jaxlearn.trees._histogram import best_bin_splits, cumulative_histograms

Array = jax.Array

#: The most histogram cells (bins x classes) a node and feature may have for :func:`grow_binned`:
#: past it the sorted sweep grows deep trees faster (measured on 2,048-8,192 rows of random labels:
#: 17 bins x 10 classes 1.4-3x faster than the sweep, 64 x 10 up to 1.7x slower).
MAX_NODE_CELLS = 256


def deep_histograms(weights, subset, min_samples_leaf, num_bins=None, num_classes=None) -> bool:
    """Whether an eager fit grows its trees of any depth by :func:`grow_binned`, on the ``num_bins``
    bins read off the concrete sample, rather than by the sorted sweep: on a CPU, for multiplicities
    (``weights`` ``None``: real weights summed in another order than the sweep's may round
    otherwise), feature subsets (``subset``) only with ``min_samples_leaf`` 1, and at most
    :data:`MAX_NODE_CELLS` histogram cells a node and feature. With ``num_bins`` ``None``: the
    conditions known before the sample is binned (whether binning it may pay)."""
    return (
        jax.default_backend() == "cpu"
        and weights is None
        and (subset is None or min_samples_leaf == 1)
        and (num_bins is None or num_bins * num_classes <= MAX_NODE_CELLS)
    )


def chunk_size(m: int, cells: int) -> int:
    """The nodes whose histograms a round sums: a power of two near ``m / cells`` (a round's
    histograms then hold about as many cells as it scatters examples), in [16, 256]."""
    return 2 ** min(max(round(math.log2(max(m, 1) / cells)), 4), 8)


def grow_binned(
    key,
    bins,
    edges,
    y,
    weights,
    *,
    max_depth,
    num_classes,
    criterion,
    min_samples_leaf,
    max_features,
    min_samples_split=2,
):
    r"""Grow one tree on binned features by class histograms, level by level (traceable).

    The tree of :func:`~jaxlearn.trees._sweep.grow` on ``edges[bins]`` with ``weights``.

    Args:
      key: draws the per-node feature subsets when ``max_features`` is set (else unused).
      bins: (m, d) int bin indices in ``0..B-1``; edges: (B, d) their upper edges (non-decreasing
        in each column).
      y: (m,) int32 labels; weights: (m,) int32 multiplicities or real weights >= 0.
      max_features: ``None`` (every feature at every node) or the size of the random subset of
        features drawn per node among those not constant in it (with ``min_samples_leaf`` 1: for a
        larger one the sorted sweep, which draws among the features with a split leaving
        ``min_samples_leaf`` a side).
    """
    bins, edges = jnp.asarray(bins), jnp.asarray(edges)
    m, d = bins.shape
    num_bins = edges.shape[0]
    k = num_classes
    dtype = edges.dtype
    if not jnp.issubdtype(weights.dtype, jnp.integer):
        weights = weights.astype(dtype)
    alive = weights > 0
    exact = jnp.issubdtype(weights.dtype, jnp.integer)
    with_sizes = min_samples_leaf > 1 or not exact  # a channel counting the examples a side
    c = k + 1 if with_sizes else k
    narrow = bins.astype(jnp.uint8 if num_bins <= 256 else jnp.int32)
    extremes = jnp.concatenate([narrow, ~narrow], axis=1)  # a node's largest bin and ~ its smallest

    def search(level, w, slot, totals, sizes, state, keys):
        chunk = min(chunk_size(m, num_bins * c), w)
        padded = -(-w // chunk) * chunk
        totals = jnp.zeros((padded, k), totals.dtype).at[:w].set(totals).astype(weights.dtype)
        sizes = jnp.zeros(padded, sizes.dtype).at[:w].set(sizes)
        if keys is not None:
            keys = jnp.zeros((padded, *keys.shape[1:]), keys.dtype).at[:w].set(keys)

        def best_splits(i, found):
            """The best splits of the nodes ``i * chunk`` to ``(i + 1) * chunk - 1``."""
            first = i * chunk
            local = slot - first
            segment = jnp.where((local >= 0) & (local < chunk), local, chunk)  # (m,)
            segment_c = jnp.minimum(segment, chunk - 1)
            if max_features is None:
                chosen, row_bins = None, bins
            else:
                top = jax.ops.segment_max(extremes, segment, num_segments=chunk + 1)[:chunk]
                candidates = top[:, :d] > ~top[:, d:]
                u = node_uniforms(jax.lax.dynamic_slice_in_dim(keys, first, chunk), d)
                chosen = draw_subsets(u, candidates, max_features)  # (chunk, r)
                row_bins = jnp.take_along_axis(bins, chosen[segment_c], axis=1)  # (m, r)
            left = cumulative_histograms(
                segment[None], row_bins[None], y, weights[None], chunk, num_bins, k, with_sizes
            )
            node_totals = jax.lax.dynamic_slice_in_dim(totals, first, chunk)
            if with_sizes:
                node_sizes = jax.lax.dynamic_slice_in_dim(sizes, first, chunk)
                node_totals = jnp.concatenate(
                    [node_totals, node_sizes[:, None].astype(weights.dtype)], axis=1
                )
            node_score, row, b_lo, b_hi = (
                a[0]
                for a in best_bin_splits(
                    left, node_totals[None], k, with_sizes, min_samples_leaf, criterion, dtype, m
                )
            )
            feature = row if chosen is None else jnp.take_along_axis(chosen, row[:, None], 1)[:, 0]
            return tuple(
                jax.lax.dynamic_update_slice_in_dim(a, v, first, 0)
                for a, v in zip(found, (node_score, feature, b_lo, b_hi))
            )

        used = jnp.max(jnp.where(sizes > 0, jnp.arange(1, padded + 1, dtype=jnp.int32), 0))
        found = (
            jnp.full(padded, -jnp.inf, dtype),
            jnp.zeros(padded, jnp.int32),
            jnp.zeros(padded, jnp.int32),
            jnp.zeros(padded, jnp.int32),
        )
        found = jax.lax.fori_loop(0, -(-used // chunk), best_splits, found)
        score, feature, b_lo, b_hi = (a[:w] for a in found)
        lo, hi = edges[b_lo, feature], edges[b_hi, feature]

        def goes_right(_, slot_c):
            return jnp.take_along_axis(bins, feature[slot_c][:, None], axis=1)[:, 0] > b_lo[slot_c]

        return LevelSplits(score, feature, lo, hi, goes_right, lambda *_: None)

    return grow_levels(
        search,
        None,
        class_counts(y, weights, num_classes),
        alive,
        max_depth=max_depth,
        dtype=dtype,
        criterion=criterion,
        num_features=d,
        min_samples_split=min_samples_split,
        key=None if max_features is None else key,
    )
