r"""The depth of a fully grown tree (``max_depth=None``): deeper until no node of the last level could split.

A tree is a complete binary tree of static depth :math:`D` (:mod:`~jaxlearn.trees._params`), grown
level by level, so its depth is fixed before it grows. ``max_depth=None`` reads it off the data: the
tree (or every tree of a forest) is grown to :math:`D = \lceil \log_2 m \rceil + 2` (a balanced tree
separating :math:`m` examples, and some slack), then :data:`DEPTH_STEP` levels deeper while a node of
its last level (a leaf only because the tree ends there) is impure and holds enough examples to
split. The trees are then those of scikit-learn's unlimited depth, except on data that need more
than :math:`m - 1` levels (none do), the 24 levels of the node arrays, or the node budget
:data:`NODE_BYTES` of all trees together, where growth stops at that depth.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from jaxlearn._checks import is_concrete
from jaxlearn.trees._common import DEPTH, smallest_weight

#: Levels added each time the last level of the trees still holds a node that could split.
DEPTH_STEP = 3
#: The most bytes the node arrays of all trees may take (per node: ``k`` class counts, an impurity, a
#: threshold, a feature, a leaf flag, and ``d`` uniforms that draw a forest's feature subsets); the depth
#: of ``max_depth=None`` stops where they would not fit.
NODE_BYTES = 2**30
#: The most bytes of node arrays the first depth tried may take (:func:`grow_fully`'s ``slack``).
FIRST_NODE_BYTES = 2**26

_TRACED = (
    "expected concrete `X`, `y` and `sample_weight` for max_depth=None (the depth is read off the "
    "data, growing until the leaves are pure); give an int `max_depth` to fit under jax.jit or "
    "jax.vmap"
)


def depth_cap(m: int, d: int, num_trees: int, num_classes: int, budget: int = NODE_BYTES) -> int:
    """The deepest ``max_depth=None`` grows: ``m - 1`` levels, at most 24, within ``budget`` bytes."""
    node = 4 * (num_classes + d) + 13
    cap = min(max(m - 1, 0), int(DEPTH.hi))
    while cap > 0 and num_trees * (2 ** (cap + 1) - 1) * node > budget:
        cap -= 1
    return cap


def unfinished(params, min_split: int, least: float = 1.0) -> bool:
    """Whether a node of the last level (of any tree) is impure and may hold ``min_split`` examples: its
    weighted count is at least ``min_split * least``, ``least`` the smallest weight of an example
    (1 for multiplicities; with real weights a node may so be taken for unfinished, never the
    reverse, and grow a few levels more than it needs)."""
    counts = np.asarray(
        getattr(params, "trees", params).counts
    )  # (..., 2^(D+1) - 1, k); a forest's trees
    bottom = counts[..., (counts.shape[-2] - 1) // 2 :, :]  # the last level: nodes 2^D - 1 ..
    impure = np.sum(bottom > 0, axis=-1) > 1
    if least == 1.0:
        return bool(np.any(impure & (np.sum(bottom, axis=-1) >= min_split)))
    floor = min_split * least * (1 - 1e-3)  # weighted sums are rounded: a margin, never too deep
    return bool(np.any(impure & (np.sum(bottom, axis=-1) >= floor)))


def grow_fully(
    fit_at: Callable[[int], object],
    X,
    y,
    *,
    num_trees: int,
    num_classes: int,
    min_split: int,
    sample_weight=None,
    scale: float = 1.0,
    slack: int = 2,
):
    r"""``fit_at(D)`` for the depth :math:`D` of :func:`unfinished`'s search (see the module notes).

    Args:
      fit_at: the params of the tree (or forest) grown to depth :math:`D`.
      X, y: the sample (concrete: a traced one is a ``ValueError``).
      num_trees, num_classes: for the node budget.
      min_split: the fewest examples a node must hold to split (``max(min_samples_split,
        2 * min_samples_leaf)``).
      sample_weight: the real example weights (concrete) or ``None`` (all 1); an example of a tree
        weighs at least ``scale`` times the smallest positive one (a multiplicity is >= 1).
      slack: the first depth tried is :math:`\lceil \log_2 m \rceil` + ``slack`` (within
        :data:`FIRST_NODE_BYTES`): each depth tried is a new program to compile, so a growth whose
        cost does not grow with the depth (the sorted sweep) starts deeper.

    A single tree (``num_trees=1``) is returned cut to its deepest occupied level: the nodes below
    it are empty leaves.
    """
    if not is_concrete(X, y, sample_weight):
        raise ValueError(_TRACED)
    least = scale * smallest_weight(sample_weight)
    m, d = (int(n) for n in np.shape(X))
    cap = depth_cap(m, d, num_trees, num_classes)
    first = depth_cap(m, d, num_trees, num_classes, FIRST_NODE_BYTES)
    depth = min(math.ceil(math.log2(max(m, 1))) + slack, max(first, 1), cap)
    while True:
        params = fit_at(depth)
        if depth >= cap or not unfinished(params, min_split, least):
            return trimmed(params) if num_trees == 1 else params
        depth = min(depth + DEPTH_STEP, cap)


def trimmed(params):
    """A tree's params cut to its deepest level holding training examples (a prefix of the heap)."""
    occupied = np.flatnonzero(np.asarray(params.counts).sum(axis=-1) > 0)
    depth = int(np.floor(np.log2(occupied.max() + 1))) if occupied.size else 0
    size = 2 ** (depth + 1) - 1
    return params._replace(
        **{
            f: getattr(params, f)[:size]
            for f in ("feature", "threshold", "is_leaf", "counts", "impurity")
        }
    )
