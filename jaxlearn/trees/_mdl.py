r"""The MDL description language of decision trees over :math:`\{0,1\}^d` (UML section 18.1).

A tree with :math:`n` nodes is written as :math:`n + 1` blocks, each one symbol of an alphabet of
:math:`d + 3`: the :math:`n` nodes in depth-first preorder, then an end-of-code block. Here the
symbols are

* :math:`i \in \{0, \dots, d-1\}`: an internal node :math:`1[x_i = 1]` (its child for :math:`x_i = 0`
  comes first in the preorder, then the child for :math:`x_i = 1`),
* :math:`d + y`: a leaf predicting :math:`y \in \{0, 1\}`,
* :math:`d + 2`: the end of the code.

Every internal node has two children, so the code is prefix-free, and its length is
:math:`(n + 1)\log_2(d + 3)` bits: the description length behind the bound (18.1),
:func:`jaxlearn.theory.tree_mdl_bound`. (Written with :math:`\lceil\log_2(d + 3)\rceil` bits per block
the code is a prefix-free bit string; the book's count is that of the :math:`(d + 3)`-ary code.)

Trees are :class:`~jaxlearn.trees.DecisionTreeParams` of two classes whose reachable splits separate
0 from 1 (a threshold in [0, 1), as :func:`~jaxlearn.trees.decision_tree` fits on 0/1 features).
Encoding walks the tree with a stack in one ``lax.scan``; decoding replays the stack and scatters
the nodes into a complete tree of static depth in heap layout (children :math:`2i+1, 2i+2`).
"""

from __future__ import annotations

import functools
from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import at_least, check_ndim, is_concrete
from jaxlearn.trees._common import DEPTH, check_tree
from jaxlearn.trees._params import DecisionTreeParams, heap_children, num_features, reachable

Array = jax.Array
#: The number of features d of the description language: an integer >= 1.
FEATURES = at_least(1, integer=True)


def mdl_code(params: DecisionTreeParams) -> Array:
    r"""The prefix-free MDL code of a tree over :math:`\{0,1\}^d` (UML section 18.1).

    Args:
      params: a fitted tree of two classes (:func:`~jaxlearn.trees.decision_tree` on 0/1 features).

    Returns:
      int32 symbols of shape :math:`(N + 1,)` for a tree of :math:`N` node places: the :math:`n`
      reachable nodes in preorder (feature :math:`i` for :math:`1[x_i = 1]`, :math:`d + y` for a leaf
      :math:`y`), then the end symbol :math:`d + 2`, repeated to the end of the array. The code is the
      prefix through the first end symbol: :math:`n + 1` blocks.

    Examples:
      >>> import itertools, math, jax, jax.numpy as jnp
      >>> from jaxlearn import trees
      >>> X = jnp.array(list(itertools.product([0.0, 1.0], repeat=2)))  # the papaya tree of UML 18.1
      >>> params = trees.decision_tree(2).fit(jax.random.PRNGKey(0), X, (X[:, 0] * X[:, 1]).astype(int))
      >>> trees.mdl_code(params).tolist()  # x_1? (no: leaf 0; yes: x_2? (no: 0; yes: 1)), end
      [0, 2, 1, 2, 3, 4, 4, 4]
      >>> round(float(trees.description_length(params)), 4), round(6 * math.log2(5), 4)  # n = 5, d = 2
      (13.9316, 13.9316)

    References:
      UML section 18.1 (the description language, (18.1)).
    """
    _check_binary_tree(params)
    return _encode(params)


def description_length(params: DecisionTreeParams) -> Array:
    r"""The length in bits of the tree's MDL code, :math:`(n + 1)\log_2(d + 3)` (UML section 18.1).

    Counted from :func:`mdl_code` (its blocks through the end symbol), so
    ``theory.tree_mdl_bound(n, d, m, delta)`` is
    :math:`\sqrt{(\text{description\_length} + \ln(2/\delta))/(2m)}`.
    """
    code = mdl_code(params)
    d = num_features(params)
    blocks = jnp.argmax(code == d + 2) + 1
    dtype = params.threshold.dtype
    return blocks.astype(dtype) * jnp.log2(jnp.asarray(d + 3, dtype))


def mdl_decode(code: ArrayLike, d: int, max_depth: Optional[int] = None) -> DecisionTreeParams:
    r"""The tree of an MDL code (the inverse of :func:`mdl_code`), as params of static depth ``max_depth``.

    Args:
      code: int symbols, shape ``(L,)``: a preorder of nodes (:math:`0..d-1` internal, :math:`d`,
        :math:`d + 1` leaves 0 and 1) ended by :math:`d + 2`; symbols after the first end are ignored.
      d: the number of binary features :math:`d \ge 1` (structural).
      max_depth: the depth :math:`D` of the returned arrays (structural), at least the tree's depth;
        ``None``: the tree's depth, read off a concrete ``code``.

    Returns:
      :class:`~jaxlearn.trees.DecisionTreeParams` whose splits are :math:`x_i > 1/2` and whose leaves
      predict their symbol's label on every input of :math:`\{0,1\}^d` (as the coded tree does). The
      code carries no training statistics: ``counts`` holds one pseudo-example per leaf (its label),
      summed up the tree; impurities and feature importances are 0.

    A concrete ``code`` that is not a code (a symbol outside :math:`0..d+2`, no end symbol, an end
    before the tree is complete or after it, a tree deeper than ``max_depth``) raises ``ValueError``.
    """
    FEATURES.check("d", d)
    d = int(d)
    if max_depth is not None:
        DEPTH.check("max_depth", max_depth)
    code = np.asarray(code) if isinstance(code, (list, tuple)) else code
    check_ndim("code", code, 1, "(L,)")
    if not jnp.issubdtype(jnp.result_type(code), jnp.integer):
        raise TypeError(
            f"expected `code` an array of int symbols in [0, d + 2], got dtype {jnp.result_type(code)}"
        )
    code = jnp.asarray(code).astype(jnp.int32)
    if code.shape[0] < 2:
        raise ValueError(
            f"expected `code` of at least 2 symbols (a leaf and the end), got {code.shape[0]}"
        )
    nodes, depths, symbols, valid = _walk(code, d)
    if is_concrete(code):
        _check_code(np.asarray(code), d, bool(valid))
        depth = int(np.max(np.asarray(depths)))
        if max_depth is None:
            max_depth = depth
            DEPTH.check("max_depth", max_depth)
        elif depth > max_depth:
            raise ValueError(
                f"expected `max_depth` >= the coded tree's depth {depth}, got {max_depth}"
            )
    elif max_depth is None:
        raise ValueError(
            "expected `max_depth` (an int) when `code` is traced: the depth sets the shapes"
        )
    return _scatter(nodes, symbols, d, int(max_depth))


# --------------------------------------------------------------------------------------------------


def _check_binary_tree(params) -> None:
    """Two classes, and (when concrete) splits that separate 0 from 1: thresholds in [0, 1)."""
    check_tree(params)
    if jnp.ndim(params.feature) != 1:
        raise ValueError(
            f"expected `params` of one tree (`feature` of shape (N,)), got {jnp.shape(params.feature)}; "
            "map stacked trees with jax.vmap"
        )
    k = params.counts.shape[-1]
    if k != 2:
        raise ValueError(
            f"expected `params` of a tree over labels {{0, 1}} (leaves 0 and 1), got {k} classes"
        )
    if not is_concrete(params.threshold, params.is_leaf):
        return
    reachable = np.asarray(_reachable_internal(params))
    threshold = np.asarray(params.threshold)
    bad = reachable & ~((threshold >= 0) & (threshold < 1))
    if bad.any():
        node = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"expected `params` of a tree over binary features (every split threshold in [0, 1), so that "
            f"it tests x_i = 1), found {threshold[node]:g} at node {node}"
        )


@jax.jit
def _reachable_internal(params):
    """The reachable internal nodes."""
    return reachable(params.is_leaf, params.children) & ~params.is_leaf


@jax.jit
def _encode(params):
    size_n = params.feature.shape[-1]
    d = num_features(params)
    labels = jnp.argmax(params.counts, axis=-1).astype(jnp.int32)  # the leaf's prediction (ties: 0)

    def step(carry, _):
        stack, size = carry
        has = size > 0
        node = stack[jnp.maximum(size - 1, 0)]
        leaf = params.is_leaf[node]
        symbol = jnp.where(has, jnp.where(leaf, d + labels[node], params.feature[node]), d + 2)
        push = has & ~leaf
        top = size - has.astype(jnp.int32)  # pop, then push the right child under the left one
        left = params.children[node]
        stack = stack.at[top].set(jnp.where(push, left + 1, stack[top]), mode="drop")
        stack = stack.at[top + 1].set(jnp.where(push, left, stack[top + 1]), mode="drop")
        return (stack, top + 2 * push.astype(jnp.int32)), symbol.astype(jnp.int32)

    stack = jnp.zeros(size_n + 2, jnp.int32)
    _, code = jax.lax.scan(step, (stack, jnp.ones([], jnp.int32)), None, length=size_n + 1)
    return code


@functools.partial(jax.jit, static_argnames=("d",))
def _walk(code, d):
    """Replay the decoder's stack: the heap index and depth of each coded node (-1 past the end), its
    symbol, and whether the code is valid (the end comes exactly when the tree is complete)."""
    length = code.shape[0]

    def step(carry, symbol):
        nodes, depths, size, done, ok = carry
        active = ~done
        is_end = symbol == d + 2
        is_node = (symbol >= 0) & (symbol < d + 2)
        ok = ok & jnp.where(active, jnp.where(is_end, size == 0, (size > 0) & is_node), True)
        emit = active & ~is_end & (size > 0)
        top = jnp.maximum(size - 1, 0)
        node, depth = nodes[top], depths[top]
        push = emit & (symbol >= 0) & (symbol < d)
        top = size - emit.astype(jnp.int32)
        nodes = nodes.at[top].set(jnp.where(push, 2 * node + 2, nodes[top]), mode="drop")
        nodes = nodes.at[top + 1].set(jnp.where(push, 2 * node + 1, 0), mode="drop")
        depths = depths.at[top].set(jnp.where(push, depth + 1, depths[top]), mode="drop")
        depths = depths.at[top + 1].set(jnp.where(push, depth + 1, 0), mode="drop")
        size = top + 2 * push.astype(jnp.int32)
        done = done | (active & is_end)
        return (nodes, depths, size, done, ok), (
            jnp.where(emit, node, -1),
            jnp.where(emit, depth, -1),
        )

    start = (
        jnp.zeros(length + 1, jnp.int32),
        jnp.zeros(length + 1, jnp.int32),
        jnp.ones([], jnp.int32),
    )
    carry = (*start, jnp.zeros([], bool), jnp.ones([], bool))
    (_, _, _, done, ok), (nodes, depths) = jax.lax.scan(step, carry, code)
    return nodes, depths, code, ok & done


def _check_code(code, d: int, valid: bool) -> None:
    """The concrete code's error, named: symbols out of range, no end, or a malformed preorder."""
    ends = np.flatnonzero(code == d + 2)
    body = code[: ends[0]] if ends.size else code
    if ((body < 0) | (body > d + 2)).any():
        raise ValueError(
            f"expected `code` symbols in [0, d + 2] = [0, {d + 2}] (d = {d}), found {int(body.min())}..."
            f"{int(body.max())}"
        )
    if not ends.size:
        raise ValueError(
            f"expected `code` to end with the end-of-code symbol d + 2 = {d + 2}, found none"
        )
    if not valid:
        raise ValueError(
            "expected `code` a preorder of a tree whose internal nodes have two children, ended right after "
            f"its last leaf; the end symbol at position {int(ends[0])} comes before or after that"
        )


@functools.partial(jax.jit, static_argnames=("d", "max_depth"))
def _scatter(nodes, symbols, d, max_depth):
    size_n = 2 ** (max_depth + 1) - 1
    dtype = jnp.result_type(float)
    index = jnp.where((nodes >= 0) & (nodes < size_n), nodes, size_n)  # size_n: dropped
    internal = symbols < d
    feature = (
        jnp.zeros(size_n, jnp.int32).at[index].set(jnp.where(internal, symbols, 0), mode="drop")
    )
    is_leaf = jnp.ones(size_n, bool).at[index].set(~internal, mode="drop")
    threshold = jnp.where(is_leaf, 0.0, 0.5).astype(dtype)
    label = jnp.clip(symbols - d, 0, 1)
    leaf_counts = jax.nn.one_hot(label, 2, dtype=dtype) * (~internal)[:, None].astype(dtype)
    counts = jnp.zeros((size_n, 2), dtype).at[index].add(leaf_counts, mode="drop")

    def add_to_ancestors(_, carry):  # every leaf's pseudo-example counts at each of its ancestors
        counts, above = carry
        above = jnp.where((above > 0) & (above < size_n), (above - 1) // 2, size_n)  # size_n: none
        return counts.at[above].add(leaf_counts, mode="drop"), above

    leaf_index = jnp.where(internal, size_n, index)
    counts = jax.lax.fori_loop(0, max_depth, add_to_ancestors, (counts, leaf_index))[0]
    return DecisionTreeParams(
        feature=feature,
        threshold=threshold,
        is_leaf=is_leaf,
        counts=counts,
        impurity=jnp.zeros(size_n, dtype),
        feature_importances=jnp.zeros(d, dtype),
        children=jnp.where(is_leaf, 0, heap_children(size_n)),
    )
