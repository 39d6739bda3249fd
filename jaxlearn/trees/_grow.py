r"""The level-by-level growth of a tree by a split search, and what the growers share.

A tree is grown level by level: at each level the split search finds, for every node of the level at
once, its best split (feature, and the two neighbouring values the threshold goes between); this
module then does what does not depend on how splits are found:

* the class counts and sizes of the level's nodes (one segment sum over the examples);
* the threshold, the mid-point between the two values (rounded down to the lower one when the
  mid-point rounds up to the upper one, so the split is always between them);
* the decision: a node splits when it is impure, holds at least ``min_samples_split`` examples and
  has a valid split (even of gain 0, as ID3 and scikit-learn do); else it is a leaf, and its
  examples are dropped from the levels below;
* numbering the children (breadth-first, :mod:`~jaxlearn.trees._params`), writing the level's
  params, routing each example to its node's child, and the leaves' counts.

The search decides which side of the threshold an example falls on (by value or by bin) and may
carry state from one level to the next (the exact search partitions its sorted orders). A node's
random feature subset is drawn from its own key, its parent's folded with its side
(:func:`child_keys`), so every grower draws the same subsets for the same tree.

Tie rules, shared: among splits of equal score the lowest feature wins (:func:`best_of_rows`), then
the lowest threshold (the search's own rule).
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn.trees._criteria import impurity
from jaxlearn.trees._params import DecisionTreeParams, heap_children, importances, reachable

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


def child_keys(keys):
    """(2 w, ...) the keys of the children of nodes with keys ``keys`` (w, ...): left, right, in turn."""
    pairs = jax.vmap(lambda k: jax.vmap(lambda side: jax.random.fold_in(k, side))(jnp.arange(2)))
    return pairs(keys).reshape(-1, *keys.shape[1:])


def node_uniforms(keys, d: int):
    """(w, d): the uniforms that draw the feature subsets of the nodes with keys ``keys`` (w, ...)."""
    return jax.vmap(lambda k: jax.random.uniform(k, (d,)))(keys)


def heap_uniforms(key, d: int, max_depth: int):
    """(2^D - 1, d): :func:`node_uniforms` of the internal nodes of a complete tree of depth ``max_depth``
    grown from the root's ``key``, in heap order (row :math:`i`: node :math:`i`, its children
    :math:`2i + 1` and :math:`2i + 2`)."""
    size = 2**max_depth - 1
    if size == 0:
        return jnp.zeros((0, d))

    def descend(_, keys):  # after l rounds the nodes of depth <= l hold their keys
        return keys.at[1:].set(child_keys(keys)[: size - 1])  # node 2i + 1 + s: child s of node i

    root = jnp.asarray(key)
    keys = jnp.broadcast_to(root, (size, *root.shape))
    # one loop over the levels, so the program holds one key derivation, not one per level
    keys = jax.lax.fori_loop(0, max_depth - 1, descend, keys)
    return node_uniforms(keys, d)


def from_heap(params, max_depth: int, m: int) -> DecisionTreeParams:
    """A tree grown in heap layout (``params.children`` unused) renumbered breadth-first, as
    :func:`grow_levels` numbers it: its reachable nodes in heap order, :func:`node_capacity` of them."""
    heap_size = params.is_leaf.shape[-1]
    children = heap_children(heap_size)
    reach = reachable(params.is_leaf, children)
    number = jnp.cumsum(reach.astype(jnp.int32)) - 1
    size = node_capacity(max_depth, m)
    target = jnp.where(reach, number, size)
    left = jnp.where(reach & ~params.is_leaf, number[jnp.minimum(children, heap_size - 1)], 0)

    def move(a, fill):
        return jnp.full((size, *a.shape[1:]), fill, a.dtype).at[target].set(a, mode="drop")

    return params._replace(
        feature=move(params.feature, 0),
        threshold=move(params.threshold, 0),
        is_leaf=move(params.is_leaf, True),
        counts=move(params.counts, 0),
        impurity=move(params.impurity, 0),
        children=move(left, 0),
    )


def node_capacity(max_depth: int, m: int) -> int:
    r"""The most nodes of a tree of depth ``max_depth`` on ``m`` examples: :math:`\min(2^{D+1}, 2m) - 1`."""
    return min(2 ** (max_depth + 1), 2 * max(m, 1)) - 1


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
    key=None,
):
    r"""Grow a tree of depth at most ``max_depth`` level by level with the split search ``search``.

    The levels are one ``lax.while_loop``, which stops once every node of a level is a leaf. The
    nodes of a level are the children of the previous level's splits, taken in order as *slots*:
    ``w`` slots, the smaller of :math:`2^D` and the :math:`m` examples (a node splits only when it
    holds two examples or more). A level then costs the search on :math:`m` examples, whatever the
    depth, and ``max_depth`` may be as large as :math:`m - 1`.

    Args:
      search: ``search(level, w, slot, totals, sizes, state, keys) -> LevelSplits`` for the nodes
        of ``level``: ``slot`` (m,) the examples' slots (``w``: dropped), ``totals`` (w, k) the
        slots' weighted class counts, ``sizes`` (w,) int32 their examples (of positive weight),
        ``keys`` (w, ...) the slots' keys (``None`` without ``key``).
      state: the search's state at the root (passed on by :attr:`LevelSplits.advance`).
      onehot: (m, k) the weighted one-hot labels (:func:`class_counts`: int32 multiplicities or
        real weights).
      alive: (m,) bool, the examples of positive weight (the others take no part).
      dtype: the float dtype of the params.
      criterion, num_features: the impurity of the nodes, and the width :math:`d` of the sample
        (the length of the feature importances).
      min_samples_split: the fewest examples (of positive weight) a node must hold to split.
      key: the root's key (the nodes' keys for their feature subsets), or ``None``.

    Returns:
      The :class:`DecisionTreeParams` of :func:`node_capacity` nodes (class counts, impurities and
      importances in ``dtype``).
    """
    m, k = onehot.shape
    slots = min(2**max_depth, m)  # a level's nodes: at most 2^l, and at most one per example
    num_nodes = node_capacity(max_depth, m)
    params = DecisionTreeParams(
        jnp.zeros(num_nodes, jnp.int32),
        jnp.zeros(num_nodes, dtype),
        jnp.ones(num_nodes, bool),
        jnp.zeros((num_nodes, k), dtype),
        jnp.zeros(num_nodes, dtype),
        jnp.zeros(num_features, dtype),
        jnp.zeros(num_nodes, jnp.int32),
    )
    position = jnp.arange(slots, dtype=jnp.int32)

    def write(params, first, count, values):
        node = jnp.where(position < count, first + position, num_nodes)  # past the level: dropped
        old = params._asdict()
        return params._replace(
            **{f: old[f].at[node].set(v, mode="drop") for f, v in values.items()}
        )

    def level_step(carry):
        level, first, count, slot, keys, state, params = carry
        totals = jax.ops.segment_sum(onehot, slot, num_segments=slots)  # (w, k)
        sizes = jax.ops.segment_sum(alive.astype(jnp.int32), slot, num_segments=slots)
        found = search(level, slots, slot, totals, sizes, state, keys)
        thr = midpoint(found.lo, found.hi)
        split = (
            (jnp.sum(totals > 0, axis=-1) > 1)
            & jnp.isfinite(found.score)
            & (sizes >= min_samples_split)
            & (position < count)
        )
        slot_c = jnp.minimum(slot, slots - 1)
        goes_on = (slot < slots) & split[slot_c]
        right = found.goes_right(thr, slot_c).astype(jnp.int32)
        # the children of the i-th split of the level are the next level's slots 2i and 2i + 1
        rank = jnp.cumsum(split.astype(jnp.int32)) - 1
        child = jnp.where(goes_on, 2 * rank[slot_c] + right, slots)
        values = {
            "feature": jnp.where(split, found.feature, 0),
            "threshold": jnp.where(split, thr, 0).astype(dtype),
            "is_leaf": ~split,
            "counts": totals.astype(dtype),
            "children": jnp.where(split, first + count + 2 * rank, 0),
        }
        params = write(params, first, count, values)
        if keys is not None:  # the children's keys, in their slots
            to = jnp.repeat(jnp.where(split, 2 * rank, slots), 2) + jnp.tile(
                jnp.arange(2, dtype=jnp.int32), slots
            )
            keys = keys.at[to].set(child_keys(keys), mode="drop")
        splits = jnp.sum(split, dtype=jnp.int32)
        state = found.advance(goes_on, right > 0, split)
        return level + 1, first + count, 2 * splits, child, keys, state, params

    def growing(carry):  # a level below the last, and an example still in a node that may split
        level, slot = carry[0], carry[3]
        return (level < max_depth) & jnp.any(slot < slots)

    slot = jnp.where(alive, 0, slots).astype(jnp.int32)  # the root takes slot 0
    keys = None
    if key is not None:  # raw uint32 keys (a typed key is unwrapped), the root's in slot 0
        key = jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key
        keys = jnp.broadcast_to(key, (slots, *key.shape))
    zero = jnp.zeros([], jnp.int32)
    carry = (zero, zero, jnp.ones([], jnp.int32), slot, keys, state, params)
    _, first, count, slot, _, state, params = jax.lax.while_loop(growing, level_step, carry)
    leaves = jax.ops.segment_sum(onehot, slot, num_segments=slots).astype(dtype)
    params = write(params, first, count, {"counts": leaves})  # the last level, if reached
    counts = params.counts
    node_impurity = impurity(counts, criterion).astype(dtype)
    reach = reachable(params.is_leaf, params.children)
    weights = importances(
        params.feature, params.is_leaf, params.children, counts, node_impurity, reach, num_features
    )
    return params._replace(
        counts=counts, impurity=node_impurity, feature_importances=weights.astype(dtype)
    )
