r"""The params of a tree: a complete binary tree of static depth in heap layout (SPEC 15.2).

A tree of depth :math:`D` is stored as a complete binary tree of :math:`2^{D+1} - 1` nodes in heap
layout (node :math:`i` has children :math:`2i+1` and :math:`2i+2`, node 0 is the root): per node a
split feature, a threshold (:math:`x_j \le \theta` goes left, to :math:`2i+1`), a leaf flag and the
(weighted) class counts of the training examples that reach it. A node that stops splitting is a
*pass-through leaf*: prediction stops there, and the nodes below it are never reached.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax

Array = jax.Array


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


def tree_depth(params: DecisionTreeParams) -> int:
    """The static depth :math:`D` of a tree's params (:math:`2^{D+1} - 1` nodes)."""
    return int(round(math.log2(params.feature.shape[-1] + 1))) - 1
