r"""The params of a tree: its nodes in breadth-first order, each split's children side by side (UML 18.2).

A tree grown to depth at most :math:`D` on :math:`m` examples has at most
:math:`N = \min(2^{D+1}, 2m) - 1` nodes (a node splits only when it holds two examples or more),
stored in the order they are grown: the root is node 0, then level by level, the two children of a
split next to each other (left, then right) in the order of their parents. Per node: a split
feature, a threshold (:math:`x_j \le \theta` goes left), a leaf flag, the index of its left child
(the right child is the next node), the (weighted) class counts of the training examples that reach
it and their impurity; per feature its importance, whose length is the training width :math:`d`
(so ``predict`` checks the width of ``X``, statically, also under ``jit``). Nodes past the last one
grown are leaves no path reaches. A complete tree in heap layout (children :math:`2i+1, 2i+2`) is
one such tree.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn.core import loadable

Array = jax.Array


@loadable
class DecisionTreeParams(NamedTuple):
    r"""A tree's :math:`N` nodes in breadth-first order (the root first; see the module notes).

    Attributes:
      feature: (N,) int32, the split feature :math:`j` of each internal node (0 at leaves).
      threshold: (N,) the split threshold :math:`\theta`: :math:`x_j \le \theta` goes to the left
        child, :math:`x_j > \theta` to the right child (0 at leaves).
      is_leaf: (N,) bool; prediction stops at the first leaf on the path.
      counts: (N, k) the (weighted) training class counts reaching each node; a leaf
        predicts their argmax (the smallest class on a tie). All zero at unreachable nodes.
      impurity: (N,) the impurity :math:`C(t)` of each node's counts, in the tree's criterion.
      feature_importances: (d,) the mean decrease in impurity of each feature (scikit-learn's
        ``feature_importances_``): :math:`\sum_{t \text{ splits on } j} n_t C(t) - n_{t_L} C(t_L) -
        n_{t_R} C(t_R)`, normalised to sum 1 (all 0 for a single leaf).
      children: (N,) int32, the left child of each internal node (its right child is the next
        node; 0 at leaves).
    """

    feature: Array
    threshold: Array
    is_leaf: Array
    counts: Array
    impurity: Array
    feature_importances: Array
    children: Array


def heap_children(num_nodes: int) -> Array:
    """(N,) int32: the left children :math:`2i + 1` of a complete tree in heap layout (0 past the end)."""
    left = 2 * jnp.arange(num_nodes, dtype=jnp.int32) + 1
    return jnp.where(left < num_nodes, left, 0)


def child(params: DecisionTreeParams, X, node) -> Array:
    r"""(n,) the child each row of ``X`` goes to from its node ``node`` (n,): the left one where
    :math:`x_j \le \theta` at that node, else the right one (meaningful at internal nodes)."""
    x = jnp.take_along_axis(X, params.feature[node][:, None], axis=1)[:, 0]
    return params.children[node] + (x > params.threshold[node]).astype(jnp.int32)


def num_features(params: DecisionTreeParams) -> int:
    """The static training width :math:`d` of a tree's (or a forest's stacked trees') params."""
    return params.feature_importances.shape[-1]


def importances(feature, is_leaf, children, counts, impurity, reachable, d: int) -> Array:
    """(d,) the normalised impurity decrease of the reachable internal nodes, summed per feature."""
    num_nodes = feature.shape[0]
    weighted = jnp.sum(counts, axis=-1) * impurity  # n_t C(t)
    left = jnp.minimum(children, num_nodes - 1)
    decrease = weighted - weighted[left] - weighted[jnp.minimum(left + 1, num_nodes - 1)]
    decrease = jnp.where(reachable & ~is_leaf, jnp.maximum(decrease, 0), 0)  # >= 0 up to rounding
    total = jax.ops.segment_sum(decrease, feature, num_segments=d)
    norm = jnp.sum(total)
    return total / jnp.where(norm > 0, norm, 1)


def reachable(is_leaf, children) -> Array:
    """(N,) bool: the nodes every path from the root to them passes through internal nodes only (the
    root, and the children of reachable internal nodes), one vectorised pass per level."""
    if jnp.ndim(is_leaf) > 1:  # a forest's stacked trees
        return jax.vmap(reachable)(is_leaf, children)
    num_nodes = is_leaf.shape[-1]
    node = jnp.arange(num_nodes, dtype=jnp.int32)
    internal = ~is_leaf
    parent = jnp.full(num_nodes, num_nodes, jnp.int32)  # num_nodes: no parent
    for side in (0, 1):
        target = jnp.where(internal & (children + side > node), children + side, num_nodes)
        parent = parent.at[target].set(node, mode="drop")
    has_parent = parent < num_nodes
    parent_c = jnp.minimum(parent, num_nodes - 1)

    def step(carry):
        reach, _ = carry
        new = (node == 0) | (has_parent & reach[parent_c] & internal[parent_c])
        return new, jnp.any(new != reach)

    return jax.lax.while_loop(lambda c: c[1], step, (node == 0, jnp.ones([], bool)))[0]
