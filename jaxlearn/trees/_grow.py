r"""The level-by-level growth of a tree, shared by the exact and the binned (histogram) split search.

A tree of static depth :math:`D` is grown level by level: at each level the split search finds, for
every node of the level at once, its best split (feature, and the two neighbouring values the
threshold goes between); this module then does what does not depend on how splits are found:

* the class counts and sizes of the level's occupied nodes (one segment sum over the examples);
* the threshold, the mid-point between the two values (rounded down to the lower one when the
  mid-point rounds up to the upper one, so the split is always between them);
* the decision: a node splits when it is impure, holds at least ``min_samples_split`` examples and
  has a valid split (even of gain 0, as ID3 and scikit-learn do); else it is a leaf, and its
  examples are dropped from the levels below;
* writing the level's params, routing each example to its node's child, and the leaves' counts.

The search decides which side of the threshold an example falls on (by value or by bin) and may
carry state from one level to the next (the exact search partitions its sorted orders).

Tie rules, shared: among splits of equal score the lowest feature wins (:func:`best_of_rows`), then
the lowest threshold (the search's own rule).
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn.trees._criteria import impurity
from jaxlearn.trees._params import DecisionTreeParams, importances

Array = jax.Array


class LevelSplits(NamedTuple):
    """The best split of each of the ``w`` nodes of a level, as a split search found it.

    Attributes:
      score: (w,) the best split score of each node, ``-inf`` where the node has no valid split.
      feature: (w,) int32 the feature of the best split.
      lo, hi: (w,) the values the threshold goes between: the largest value on the left side and
        the smallest on the right side (in the node).
      goes_right: ``goes_right(threshold, node_c) -> (m,) bool``: the side each example falls on
        in its node's best split (``threshold`` (w,), ``node_c`` (m,) the examples' clipped ids).
      advance: ``advance(goes_on, right, split) -> state``: the search's state for the next level
        (``goes_on`` (m,): the example goes on to a child; ``right`` (m,); ``split`` (w,)).
    """

    score: Array
    feature: Array
    lo: Array
    hi: Array
    goes_right: Callable[[Array, Array], Array]
    advance: Callable[[Array, Array, Array], Any]


def class_counts(y, weights, num_classes):
    """(m, k) in the dtype of ``weights``: each example's one-hot label times its weight (an int32
    multiplicity, or a real weight)."""
    return jax.nn.one_hot(y, num_classes, dtype=weights.dtype) * weights[:, None]


def best_of_rows(best, chosen=None):
    """Per node the best of its candidate features: ``(score, row, feature)``, each (w,).

    ``best`` (w, r): the best score of each node on each of its ``r`` candidate rows; ``chosen``
    (w, r): the feature of each row (``None``: row ``j`` is feature ``j``). A tie goes to the lowest row.
    """
    row = jnp.argmax(best, axis=1).astype(jnp.int32)
    feature = row if chosen is None else jnp.take_along_axis(chosen, row[:, None], axis=1)[:, 0]
    return jnp.max(best, axis=1), row, feature


def draw_subsets(u, candidates, size):
    """(w, size) int32: per row the ``size`` candidates (``candidates`` (w, d) bool) of largest
    uniform ``u`` (w, d), in increasing order; non-candidates only when there are too few."""
    u = jnp.where(candidates, u, -1.0)
    return jnp.sort(jax.lax.top_k(u, size)[1], axis=1).astype(jnp.int32)


def midpoint(lo, hi):
    """The threshold between ``lo < hi``: their mid-point, or ``lo`` if the mid-point rounds to ``hi``."""
    thr = lo + (hi - lo) / 2
    return jnp.where(thr < hi, thr, lo)


def grow_levels(
    search,
    state,
    onehot,
    alive,
    *,
    max_depth,
    dtype,
    criterion,
    num_features,
    min_samples_split=2,
):
    r"""Grow a tree of depth ``max_depth`` level by level with the split search ``search``.

    The levels are one ``lax.while_loop``, which stops once every node of a level is a leaf. A level
    of a deep tree has far fewer nodes holding examples than its :math:`2^l` places, so the search
    works on the children of the previous level's splits only, in order, as *slots*: ``w`` slots,
    the smaller of the widest level's :math:`2^D` nodes and the :math:`m` examples (a node splits
    only when it holds two examples or more). A level then costs the search on :math:`m` examples,
    whatever the depth.

    Args:
      search: ``search(level, w, slot, totals, sizes, state, nodes) -> LevelSplits`` for the
        occupied nodes of ``level``: ``slot`` (m,) the examples' slots (``w``: dropped), ``totals``
        (w, k) the slots' weighted class counts, ``sizes`` (w,) int32 their examples (of positive
        weight), ``nodes`` (w,) each slot's node (its local id in the level; ``2^D`` for an
        unused slot). Slots keep the order of the nodes.
      state: the search's state at the root (passed on by :attr:`LevelSplits.advance`).
      onehot: (m, k) the weighted one-hot labels (:func:`class_counts`: int32 multiplicities or
        real weights).
      alive: (m,) bool, the examples of positive weight (the others take no part).
      dtype: the float dtype of the params.
      criterion, num_features: the impurity of the nodes, and the width :math:`d` of the sample
        (the length of the feature importances).
      min_samples_split: the fewest examples (of positive weight) a node must hold to split.

    Returns:
      The :class:`DecisionTreeParams` (class counts, impurities and importances in ``dtype``).
    """
    depth = max_depth
    width = 2**depth  # nodes of the widest level
    num_nodes = 2 ** (depth + 1) - 1
    m, k = onehot.shape
    slots = min(width, m)  # a level's occupied nodes: at most 2^l, and at most one per example
    params = DecisionTreeParams(
        jnp.zeros(num_nodes, jnp.int32),
        jnp.zeros(num_nodes, dtype),
        jnp.ones(num_nodes, bool),
        jnp.zeros((num_nodes, k), dtype),
        jnp.zeros(num_nodes, dtype),
        jnp.zeros(num_features, dtype),
    )

    def write(params, level, nodes, values):
        first = jnp.left_shift(jnp.int32(1), jnp.asarray(level, jnp.int32))
        heap = jnp.where(nodes < first, first - 1 + nodes, num_nodes)  # out of range: dropped
        old = params._asdict()
        return params._replace(
            **{f: old[f].at[heap].set(v, mode="drop") for f, v in values.items()}
        )

    def level_step(carry):
        level, slot, nodes, state, params = carry
        totals = jax.ops.segment_sum(onehot, slot, num_segments=slots)  # (w, k)
        sizes = jax.ops.segment_sum(alive.astype(jnp.int32), slot, num_segments=slots)
        found = search(level, slots, slot, totals, sizes, state, nodes)
        thr = midpoint(found.lo, found.hi)
        split = (
            (jnp.sum(totals > 0, axis=-1) > 1)
            & jnp.isfinite(found.score)
            & (sizes >= min_samples_split)
        )
        slot_c = jnp.minimum(slot, slots - 1)
        goes_on = (slot < slots) & split[slot_c]
        right = found.goes_right(thr, slot_c).astype(jnp.int32)
        # the children of the i-th splitting slot take the slots 2i and 2i + 1 of the next level
        rank = jnp.cumsum(split.astype(jnp.int32)) - 1
        child = jnp.where(goes_on, 2 * rank[slot_c] + right, slots)
        to = jnp.where(split, 2 * rank, slots)
        children = jnp.full(slots, width, jnp.int32).at[to].set(2 * nodes, mode="drop")
        children = children.at[to + 1].set(2 * nodes + 1, mode="drop")
        values = {
            "feature": jnp.where(split, found.feature, 0),
            "threshold": jnp.where(split, thr, 0).astype(dtype),
            "is_leaf": ~split,
            "counts": totals.astype(dtype),
        }
        params = write(params, level, nodes, values)
        return level + 1, child, children, found.advance(goes_on, right > 0, split), params

    def growing(carry):  # a level below the last, and an example still in a node that may split
        level, slot = carry[:2]
        return (level < depth) & jnp.any(slot < slots)

    slot = jnp.where(alive, 0, slots).astype(jnp.int32)  # the root takes slot 0
    nodes = jnp.full(slots, width, jnp.int32).at[0].set(0)
    carry = (jnp.int32(0), slot, nodes, state, params)
    _, slot, nodes, state, params = jax.lax.while_loop(growing, level_step, carry)
    leaves = jax.ops.segment_sum(onehot, slot, num_segments=slots).astype(dtype)
    params = write(params, depth, nodes, {"counts": leaves})  # the last level, if reached
    counts = params.counts
    node_impurity = impurity(counts, criterion).astype(dtype)
    reachable = jnp.ones(num_nodes, bool)  # nodes below a leaf are leaves with no counts
    weights = importances(
        params.feature, params.is_leaf, counts, node_impurity, reachable, num_features
    )
    return params._replace(
        counts=counts, impurity=node_impurity, feature_importances=weights.astype(dtype)
    )
