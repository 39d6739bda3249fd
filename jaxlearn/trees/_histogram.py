r"""The binned split search: class histograms over bins (LightGBM, ``HistGradientBoosting``), for a
whole forest at once.

With every feature quantised once to :math:`B` bins (:mod:`~jaxlearn.trees._bins`), a level costs
one scatter-add of the examples' weights into the class histograms of every (tree, node, feature,
bin, class), cumulative sums over the bins (the left counts of the split "bin :math:`\le b`" of
UML section 18.2.3), the split scores and arg-maxes: :math:`O(m\,r + w\,r\,B\,k)` a tree for the
:math:`r` features scored per node, the :math:`w` nodes of the level and :math:`k` classes, with no
sorting. When each feature has few distinct values (the digits: 17 grey levels), one bin per value
makes these the exact thresholds of the sorted sweep (:mod:`~jaxlearn.trees._sweep`), at a
fraction of its cost.

The :math:`T` trees of a forest are grown together, node :math:`i` of tree :math:`t` being segment
:math:`t\,w + i` of the level: every segment sum and scatter is one flat operation (a ``vmap`` over
trees would batch each scatter, several times slower on CPU). Compiling a level takes far longer
than growing it on small data, so on small data the shallow levels are one ``lax.fori_loop`` at the
width of the deepest of them and only the last few are compiled one by one (:func:`level_groups`);
on CPU the trees are grown one cache-sized group after the other (``lax.map``), every tree at once
elsewhere.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxlearn.trees._criteria import impurity, valid_split_score
from jaxlearn.trees._grow import draw_subsets, from_heap, midpoint
from jaxlearn.trees._params import DecisionTreeParams, heap_children, importances

Array = jax.Array

#: On CPU the trees are grown in groups whose histograms at the widest level have at most this many
#: cells (int32): about the size of a core's L2 cache.
CPU_HISTOGRAM_CELLS = 2**18
#: The work of the deepest level (histogram cells and scattered entries, all trees) from which every
#: level is compiled at its own width (:func:`level_groups`).
UNROLL_WORK = 5 * 10**7
#: On small data, the deepest levels compiled one by one (:func:`level_groups`): 3 for a tree, 2 for a
#: forest, whose first fit is the longer compilation (:data:`FOREST_DEEP_LEVELS`).
DEEP_LEVELS = 3
FOREST_DEEP_LEVELS = 2
#: Histograms of at most this many bins are summed over the bins by a chain of additions (:func:`over_bins`).
CHAIN_BINS = 32


def histograms_cheaper(max_depth: int, m: int, d: int, r, num_bins: int, k: int) -> bool:
    r"""Whether histograms grow trees of depth ``max_depth`` at less cost than the sorted sweep.

    On ``m`` examples of ``d`` features, ``r`` of them scored per node (``None``: all), ``num_bins``
    bins and ``k`` classes: the deepest level of :math:`2^{D-1}` nodes costs the histograms about
    :math:`2^{D-1} r B (k + 1)` cells, and the levels together twice that; a level of the sweep costs
    about :math:`m (d + r (k + 4))`, whatever its width (it partitions every feature's order and
    scores the ``r`` drawn ones). Measured on the digits (:math:`B = 17`): a tree takes the
    histograms to depth 10 and the sweep from 11, a forest of 8 features a node the histograms to
    depth 11 and the sweep from 12, where it also compiles in less than half the time.
    """
    r = d if r is None else r
    return 2**max_depth * r * num_bins * (k + 1) <= max_depth * m * (d + r * (k + 4))


def grow_histograms(uniforms, bins, edges, y, weights, **options) -> DecisionTreeParams:
    """:func:`grow_together` on groups of trees, one group after the other when their histograms would
    outgrow the CPU's caches (every tree at once on an accelerator); the same trees."""
    num_trees = weights.shape[0]
    r = bins.shape[1] if options["max_features"] is None else options["max_features"]
    cells = (
        2 ** max(options["max_depth"] - 1, 0) * r * edges.shape[0] * (options["num_classes"] + 1)
    )
    group = num_trees if jax.default_backend() != "cpu" else max(1, CPU_HISTOGRAM_CELLS // cells)
    group = max(g for g in range(1, min(group, num_trees) + 1) if num_trees % g == 0)
    options["level_work"] = num_trees * (
        cells + weights.shape[1] * r
    )  # the deepest level's, all trees
    if group == num_trees:
        return grow_together(uniforms, bins, edges, y, weights, **options)

    def part(a):
        return None if a is None else a.reshape(num_trees // group, group, *a.shape[1:])

    trees = jax.lax.map(
        lambda uw: grow_together(uw[0], bins, edges, y, uw[1], **options),
        (part(uniforms), part(weights)),
    )
    return jax.tree_util.tree_map(lambda a: a.reshape(num_trees, *a.shape[2:]), trees)


def grow_together(
    uniforms,
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
    level_work=None,
    deep_levels=DEEP_LEVELS,
) -> DecisionTreeParams:
    r"""Grow :math:`T` trees on binned features by class histograms (traceable).

    Tree :math:`t` is the tree of :func:`~jaxlearn.trees._sweep.grow` on the quantised sample
    ``edges[bins]`` with multiplicities ``weights[t]`` (same gains and tie rules: lowest feature, then
    lowest threshold; the threshold is the mid-point between the upper edges of the last bin on the
    left and of the next bin present in the node). With ``max_features`` set, only each node's drawn
    features get histograms.

    Args:
      uniforms: (T, 2^D - 1, d) the uniforms that draw the per-node feature subsets (row :math:`i`:
        the internal node :math:`i` in heap order), or ``None`` when ``max_features`` is ``None``.
      bins: (m, d) int32 bin indices in ``0..B-1``, shared by the trees; edges: (B, d) their upper
        edges (floats, non-decreasing in each column; a bin's edge is the value it stands for).
      y: (m,) int32 labels; weights: (T, m) int32 multiplicities, or real weights >= 0 (class counts
        and gains then weighted sums in the edges' dtype; ``min_samples_leaf`` and
        ``min_samples_split`` count examples); weight 0: the example takes no part.
      max_features: ``None`` (all features at every node) or the size of the random subset of
        features, drawn per node among the features that are not constant in it.
      min_samples_split: the fewest examples (of positive weight) a node must hold to split.

    Returns:
      The trees' :class:`~jaxlearn.trees.DecisionTreeParams`, stacked on a leading axis of length T.
    """
    num_trees, m = weights.shape
    d = bins.shape[1]
    num_bins = edges.shape[0]
    k = num_classes
    dtype = edges.dtype
    width = 2**max_depth  # local node id `width`: the example was dropped (its node is a leaf)
    exact = jnp.issubdtype(weights.dtype, jnp.integer)  # multiplicities: counted in int32
    count_dtype = jnp.int32 if exact else dtype
    weights = weights.astype(count_dtype)
    alive = weights > 0
    r = d if max_features is None else max_features
    # a last channel counting the examples, for min_samples_leaf (and for real weights, whose sums
    # do not count the examples a side)
    with_sizes = min_samples_leaf > 1 or not exact
    c = k + 1 if with_sizes else k
    tree = jnp.arange(num_trees, dtype=jnp.int32)[:, None]  # (T, 1)
    narrow = bins.astype(jnp.uint8 if num_bins <= 256 else jnp.int32)  # for the per-node bin ranges
    node = jnp.where(alive, 0, width).astype(jnp.int32)  # (T, m) the examples' nodes in the level
    num_nodes = 2 * width - 1
    params = (
        jnp.zeros((num_trees, num_nodes), jnp.int32),
        jnp.zeros((num_trees, num_nodes), dtype),
        jnp.ones((num_trees, num_nodes), bool),
        jnp.zeros((num_trees, num_nodes, k), count_dtype),
    )
    if (
        uniforms is not None
    ):  # rows past the last internal node, read (and unused) by the widest level
        uniforms = jnp.concatenate(
            [uniforms, jnp.zeros((num_trees, width, d), uniforms.dtype)], axis=1
        )

    def grow_level(level, w, node, params):
        """Level ``level`` (static or traced) on arrays of ``w >= 2**level`` nodes."""
        first = jnp.left_shift(
            jnp.int32(1), jnp.asarray(level, jnp.int32)
        )  # the level's 2**level nodes
        inside = node < w
        node_c = jnp.minimum(node, w - 1)
        segment = jnp.where(inside, tree * w + node, num_trees * w)  # flat ids; T * w: dropped
        totals = _class_totals(segment, y, weights, num_trees * w, k).reshape(num_trees, w, k)
        if max_features is None:
            chosen, row_bins = None, bins[None]  # (1, m, r): every node scores every feature
        else:  # the features not constant in the node are the candidates of its random subset
            rows = jnp.broadcast_to(
                jnp.concatenate([narrow, ~narrow], axis=1), (num_trees, m, 2 * d)
            )
            top = jax.ops.segment_max(
                rows.reshape(num_trees * m, 2 * d), segment.reshape(-1), num_segments=num_trees * w
            )  # the largest bin and ~ the smallest
            u = jax.lax.dynamic_slice_in_dim(uniforms, first - 1, w, axis=1).reshape(
                num_trees * w, d
            )
            chosen = draw_subsets(u, top[:, :d] > ~top[:, d:], max_features).reshape(
                num_trees, w, r
            )
            feature = jnp.take_along_axis(chosen, node_c[:, :, None], axis=1)  # (T, m, r)
            row_bins = jnp.take_along_axis(bins[None], feature, axis=2)
        if with_sizes or min_samples_split > 2:  # (an impure node holds 2 examples or more)
            sizes = jax.ops.segment_sum(
                alive.reshape(-1).astype(count_dtype),
                segment.reshape(-1),
                num_segments=num_trees * w,
            ).reshape(num_trees, w, 1)
        left = cumulative_histograms(segment, row_bins, y, weights, w, num_bins, k, with_sizes)
        node_totals = jnp.concatenate([totals, sizes], axis=2) if with_sizes else totals
        node_score, best_row, b_lo, b_hi = best_bin_splits(
            left, node_totals, k, with_sizes, min_samples_leaf, criterion, dtype, m
        )
        if chosen is None:
            best_feature = best_row
        else:
            best_feature = jnp.take_along_axis(chosen, best_row[..., None], axis=2)[..., 0]
        lo_hi = edges[jnp.stack([b_lo, b_hi]), best_feature[None]]  # (2, T, w)
        thr = midpoint(lo_hi[0], lo_hi[1])
        # a node splits when it is impure and has a valid split (even of gain 0, as ID3 does)
        split = (jnp.sum(totals > 0, axis=-1) > 1) & jnp.isfinite(node_score)
        if min_samples_split > 2:
            split = split & (sizes[..., 0] >= min_samples_split)
        per_node = jnp.stack([best_feature, b_lo, split.astype(jnp.int32)], axis=2)  # (T, w, 3)
        mine = jnp.take_along_axis(
            per_node, node_c[:, :, None], axis=1
        )  # (T, m, 3): each example's node
        x_bin = jnp.take_along_axis(bins[None], mine[:, :, :1], axis=2)[:, :, 0]
        goes_on = inside & (mine[:, :, 2] > 0)
        node = jnp.where(goes_on, 2 * node + (x_bin > mine[:, :, 1]).astype(jnp.int32), width)
        values = (
            jnp.where(split, best_feature, 0),
            jnp.where(split, thr, 0).astype(dtype),
            ~split,
            totals,
        )
        local = jnp.arange(w, dtype=jnp.int32)
        heap = jnp.where(local < first, first - 1 + local, num_nodes)  # out of range: dropped
        return node, tuple(p.at[:, heap].set(v, mode="drop") for p, v in zip(params, values))

    if level_work is None:  # the work of the deepest level, which decides how the levels compile
        level_work = num_trees * (width // 2 * r * num_bins * c + m * r)
    for start, stop, w in level_groups(max_depth, level_work, deep_levels):
        if stop - start == 1:
            node, params = grow_level(start, w, node, params)
        else:  # one compiled level for the group, at its widest level's width
            step = lambda lv, carry, w=w: grow_level(lv, w, *carry)  # noqa: E731
            node, params = jax.lax.fori_loop(start, stop, step, (node, params))
    segment = jnp.where(node < width, tree * width + node, num_trees * width)
    leaves = _class_totals(segment, y, weights, num_trees * width, k).reshape(num_trees, width, k)
    feature, threshold, is_leaf, counts = params
    counts = counts.at[:, width - 1 :].set(leaves).astype(dtype)
    node_impurity = impurity(counts, criterion).astype(dtype)
    reachable = jnp.ones(feature.shape[1], bool)  # nodes below a leaf are leaves with no counts
    children = heap_children(feature.shape[1])
    weights_of = jax.vmap(
        lambda f, leaf, n, imp: importances(f, leaf, children, n, imp, reachable, d)
    )
    gains = weights_of(feature, is_leaf, counts, node_impurity).astype(dtype)
    heap = DecisionTreeParams(
        feature, threshold, is_leaf, counts, node_impurity, gains, jnp.zeros_like(feature)
    )
    return jax.vmap(lambda tree: from_heap(tree, max_depth, m))(heap)


def cumulative_histograms(segment, row_bins, y, weights, w, num_bins, k, with_sizes):
    """(T, w, r, B, c): per tree and node the class counts left of each bin's upper edge, for each
    of its ``r`` rows (features), by one scatter-add of the examples' weights and cumulative sums
    over the bins; with ``with_sizes`` a last channel counts the examples of positive weight.

    ``segment`` (T, m): each example's flat node id ``t * w + node`` (``T * w``: in no node);
    ``row_bins`` (T or 1, m, r) its bin in each row; ``y`` (m,); ``weights`` (T, m) in the counts' dtype.
    """
    num_trees = segment.shape[0]
    r = row_bins.shape[2]
    c = k + 1 if with_sizes else k
    cell = ((segment[:, :, None] * r + jnp.arange(r, dtype=jnp.int32)) * num_bins + row_bins) * c
    index, value = cell + y[None, :, None], jnp.broadcast_to(weights[:, :, None], cell.shape)
    if with_sizes:
        index = jnp.concatenate([index, cell + k], axis=2)
        ones = jnp.broadcast_to((weights > 0)[:, :, None], cell.shape).astype(weights.dtype)
        value = jnp.concatenate([value, ones], axis=2)
    hist = jnp.zeros(num_trees * w * r * num_bins * c, weights.dtype)
    hist = hist.at[index.reshape(-1)].add(value.reshape(-1), mode="drop")
    return over_bins(hist.reshape(num_trees, w, r, num_bins, c))


def best_bin_splits(left, node_totals, k, with_sizes, min_samples_leaf, criterion, dtype, most):
    """The best split of each node from its :func:`cumulative_histograms` ``left`` (T, w, r, B, c) and
    its totals ``node_totals`` (T, w, c): ``(score, row, b_lo, b_hi)``, each (T, w).

    The best (row, bin) is the first maximum in row-major order: the lowest feature (rows are in
    increasing feature order), then the lowest threshold. ``b_lo`` is its bin, the last on the left;
    ``b_hi`` the next bin present in the node (the first later bin of the row with more examples on
    its left). The score is ``-inf`` where no split leaves ``min_samples_leaf`` examples a side;
    ``most`` bounds integer counts (:func:`~jaxlearn.trees._criteria.valid_split_score`).
    """
    num_trees, w, r, num_bins, _ = left.shape
    right = node_totals[:, :, None, None, :] - left
    if with_sizes:
        n_left, n_right = left[..., k], right[..., k]
    else:
        n_left, n_right = jnp.sum(left, -1), jnp.sum(right, -1)
    valid = (n_left >= min_samples_leaf) & (n_right >= min_samples_leaf)
    score = valid_split_score(left[..., :k], right[..., :k], valid, criterion, dtype, most)
    score = score.reshape(num_trees, w, r * num_bins)
    n_left = n_left.reshape(num_trees, w, r * num_bins)
    node_score = jnp.max(score, axis=2)
    best = first_max(score, node_score)
    at_lo = jnp.take_along_axis(n_left, best[..., None], axis=2)
    position = jnp.arange(r * num_bins, dtype=jnp.int32)
    b_hi = first_true((position > best[..., None]) & (n_left > at_lo)) % num_bins
    return node_score, best // num_bins, best % num_bins, b_hi


def over_bins(hist):
    """Cumulative sums over the bins (axis 3). Up to :data:`CHAIN_BINS` bins a chain of static additions,
    one per bin (exact in int32; on CPU faster than ``jnp.cumsum``'s windowed reduction of these short
    axes); else ``jnp.cumsum``."""
    if hist.shape[3] > CHAIN_BINS:
        return jnp.cumsum(hist, axis=3)
    sums = [hist[:, :, :, 0]]
    for b in range(1, hist.shape[3]):  # num_bins static additions, not a loop over examples
        sums.append(sums[-1] + hist[:, :, :, b])
    return jnp.stack(sums, axis=3)


def first_max(score, top):
    """The first index of ``top`` (the maximum) along axis 2, as ``jnp.argmax``: two plain reductions,
    which XLA's CPU backend vectorises (its arg-max, a reduction of pairs, it does not)."""
    return first_true(score == top[..., None])


def first_true(mask):
    """The first ``True`` index along axis 2 (0 where there is none, as ``jnp.argmax``)."""
    size = mask.shape[2]
    return jnp.min(jnp.where(mask, jnp.arange(size, dtype=jnp.int32), size), axis=2) % size


def _class_totals(segment, y, weights, num_segments, k):
    """(num_segments * k,) in the dtype of ``weights``: the weighted class counts of the segments
    (larger ids dropped)."""
    index = segment * k + y[None, :]
    total = jnp.zeros(num_segments * k, weights.dtype)
    return total.at[index.reshape(-1)].add(weights.reshape(-1), mode="drop")


def level_groups(max_depth: int, level_work: int = 0, deep_levels: int = DEEP_LEVELS):
    """The levels ``[start, stop)`` grown by one compiled level at width ``w``: ``(start, stop, w)``.

    Compiling a level takes far longer than running it on small data, and a level at width ``w``
    costs about ``w`` nodes' work, so the shallow levels are one group at the width of its deepest,
    and the deepest ones (at most ``deep_levels``, none of levels ``0..D // 2``) are compiled one by
    one, each at its own width: e.g. for a tree of depth 8, levels 0-4 at width 16, then 32, 64 and
    128 (three deep levels); for a forest of that depth, whose first fit compiles the longer program,
    levels 0-5 at width 32, then 64 and 128 (:data:`FOREST_DEEP_LEVELS`). When the deepest level's
    work (``level_work``, histogram cells and scattered entries of all trees) reaches
    :data:`UNROLL_WORK`, running costs more than compiling: every level is compiled at its own width.
    """
    if level_work >= UNROLL_WORK:
        return [(level, level + 1, 2**level) for level in range(max_depth)]
    split = min(max(max_depth // 2 + 1, max_depth - deep_levels), max_depth)
    groups = [(0, split)] + [(level, level + 1) for level in range(split, max_depth)]
    return [(a, b, 2 ** (b - 1)) for a, b in groups if b > a]
