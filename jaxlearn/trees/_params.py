r"""The params of a tree: a complete binary tree of static depth in heap layout (UML section 18.2).

A tree of depth :math:`D` is stored as a complete binary tree of :math:`2^{D+1} - 1` nodes in heap
layout (node :math:`i` has children :math:`2i+1` and :math:`2i+2`, node 0 is the root): per node a
split feature, a threshold (:math:`x_j \le \theta` goes left, to :math:`2i+1`), a leaf flag, the
(weighted) class counts of the training examples that reach it and their impurity; per feature its
importance, whose length is the training width :math:`d` (so ``predict`` checks the width of ``X``,
statically, also under ``jit``). A node that stops splitting is a *pass-through leaf*: prediction
stops there, and the nodes below it are never reached.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxlearn.core import loadable

Array = jax.Array


@loadable
class DecisionTreeParams(NamedTuple):
    r"""A complete binary tree of static depth :math:`D` in heap layout (:math:`N = 2^{D+1} - 1` nodes).

    Attributes:
      feature: (N,) int32, the split feature :math:`j` of each internal node (0 at leaves).
      threshold: (N,) the split threshold :math:`\theta`: :math:`x_j \le \theta` goes to the left
        child :math:`2i + 1`, :math:`x_j > \theta` to the right child :math:`2i + 2` (0 at leaves).
      is_leaf: (N,) bool; prediction stops at the first leaf on the path.
      counts: (N, k) the (weighted) training class counts reaching each node; a leaf
        predicts their argmax (the smallest class on a tie). All zero at unreachable nodes.
      impurity: (N,) the impurity :math:`C(t)` of each node's counts, in the tree's criterion.
      feature_importances: (d,) the mean decrease in impurity of each feature (scikit-learn's
        ``feature_importances_``): :math:`\sum_{t \text{ splits on } j} n_t C(t) - n_{t_L} C(t_L) -
        n_{t_R} C(t_R)`, normalised to sum 1 (all 0 for a single leaf).
    """

    feature: Array
    threshold: Array
    is_leaf: Array
    counts: Array
    impurity: Array
    feature_importances: Array


def tree_depth(params: DecisionTreeParams) -> int:
    """The static depth :math:`D` of a tree's params (:math:`2^{D+1} - 1` nodes)."""
    return int(round(math.log2(params.feature.shape[-1] + 1))) - 1


def num_features(params: DecisionTreeParams) -> int:
    """The static training width :math:`d` of a tree's (or a forest's stacked trees') params."""
    return params.feature_importances.shape[-1]


def importances(feature, is_leaf, counts, impurity, reachable, d: int) -> Array:
    """(d,) the normalised impurity decrease of the reachable internal nodes, summed per feature."""
    num_nodes = feature.shape[0]
    weighted = jnp.sum(counts, axis=-1) * impurity  # n_t C(t)
    left = jnp.minimum(2 * jnp.arange(num_nodes) + 1, num_nodes - 1)
    decrease = weighted - weighted[left] - weighted[jnp.minimum(left + 1, num_nodes - 1)]
    decrease = jnp.where(reachable & ~is_leaf, jnp.maximum(decrease, 0), 0)  # >= 0 up to rounding
    total = jax.ops.segment_sum(decrease, feature, num_segments=d)
    norm = jnp.sum(total)
    return total / jnp.where(norm > 0, norm, 1)
