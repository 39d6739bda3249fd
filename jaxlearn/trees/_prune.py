r"""Pruning a grown tree, bottom-up (UML section 18.2.2).

Both rules walk the nodes from the leaves to the root (the breadth-first order reversed, so every
node comes after its descendants) in one ``lax.fori_loop`` over the :math:`N` nodes, each step
:math:`O(1)`: a node's subtree error and size are the sums of its children's, already final.
"""

from __future__ import annotations

import functools
from typing import Callable, Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from jaxlearn._checks import check_class_labels, check_ndim
from jaxlearn.core import OPEN_UNIT, POSITIVE
from jaxlearn.trees._common import check_query, check_tree, labels_as_int
from jaxlearn.trees._params import DecisionTreeParams, child, importances, num_features
from jaxlearn.trees._params import reachable as _reachable

Array = jax.Array


def prune(
    params: DecisionTreeParams,
    X_val: Optional[ArrayLike] = None,
    y_val: Optional[ArrayLike] = None,
    *,
    bound: Optional[Callable] = None,
    m: Optional[ArrayLike] = None,
    d: Optional[ArrayLike] = None,
    delta: ArrayLike = 0.05,
) -> DecisionTreeParams:
    r"""Prune a tree bottom-up: by validation error, or by a generalisation bound (UML 18.2.2).

    Walking the internal nodes :math:`j` bottom-up, :math:`T` becomes :math:`T` with :math:`j` a leaf
    (its training majority) when that does not increase (ties prune) the validation mistakes, with
    ``X_val, y_val`` (reduced-error pruning), or, with ``bound``, the Generic Tree Pruning objective

    .. math:: f(T, m) = L_S(T) + \mathrm{bound}(n(T), d, m, \delta)\quad (n(T) \text{ nodes}).

    Args:
      params: a fitted tree (from :func:`~jaxlearn.trees.decision_tree`).
      X_val, y_val: a validation sample (reduced-error pruning), or ``bound``, not both.
      bound: ``bound(n_nodes, d, m, delta)``, e.g. :func:`jaxlearn.theory.tree_mdl_bound`.
      m, d, delta: the training sample size :math:`m > 0` (default: the count at the root), the
        number of features :math:`d > 0` of the bound's description language (required with
        ``bound``), the confidence :math:`\delta \in (0, 1)`.

    Returns:
      The pruned params, same shapes: pruned nodes become leaves (nodes below them unreachable);
      impurities and feature importances are those of the pruned tree.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from jaxlearn.trees import decision_tree, num_nodes
      >>> X, y = jnp.array([[0.0], [1.0], [2.0], [3.0]]), jnp.array([0, 1, 0, 0])
      >>> params = decision_tree(2).fit(jax.random.PRNGKey(0), X, y)
      >>> int(num_nodes(params)), int(num_nodes(prune(params, X, jnp.zeros(4, jnp.int32))))
      (5, 1)

    References:
      UML section 18.2.2 (Generic Tree Pruning Procedure), (18.1).
    """
    # L_S(T) is the training error read off the node counts. Of the book's candidates at a node only
    # "leaf 0 / leaf 1" (here: a leaf with the majority class, the best leaf) are considered: the
    # "replace j by one of its subtrees" candidates change which training examples reach that
    # subtree, which the params alone cannot tell. Raises ValueError when neither or both of a
    # validation set and `bound` are given, `d` is missing, or the validation sample is malformed.
    check_tree(params)
    if (bound is None) == (X_val is None):
        raise ValueError(
            "expected a validation set (`X_val`, `y_val`) or `bound`, not both or neither"
        )
    k = params.counts.shape[-1]
    dtype = params.counts.dtype
    if bound is not None:
        if not callable(bound):
            raise TypeError(
                f"expected `bound` a function bound(n_nodes, d, m, delta), got {bound!r}"
            )
        if d is None or y_val is not None:
            raise ValueError(
                "expected `d` (the bound's number of features) and no `y_val` with `bound=`"
            )
        for name, value, interval in (
            ("m", m, POSITIVE),
            ("d", d, POSITIVE),
            ("delta", delta, OPEN_UNIT),
        ):
            interval.check(name, value)
        m = jnp.sum(params.counts[0]) if m is None else jnp.asarray(m, dtype)
        train_errors = _leaf_errors(params.counts, params.counts)
        return _prune(
            params, train_errors, m, jnp.asarray(d, dtype), jnp.asarray(delta, dtype), bound=bound
        )
    if y_val is None:
        raise ValueError("expected `y_val` of shape (n,), the labels of `X_val`, got None")
    X_val = check_query(params, X_val, "X_val")
    y_val = np.asarray(y_val) if isinstance(y_val, list) else y_val
    check_ndim("y_val", y_val, 1, "(n,)")
    if jnp.shape(X_val)[0] != jnp.shape(y_val)[0]:
        raise ValueError(
            f"expected `X_val` and `y_val` of the same length, got {jnp.shape(X_val)[0]} and "
            f"{jnp.shape(y_val)[0]}"
        )
    check_class_labels("y_val", y_val, int(k))
    val_counts = _node_counts(params, X_val, labels_as_int(y_val))
    leaf_errors = _leaf_errors(val_counts, params.counts)
    one = jnp.ones([], dtype)
    return _prune(params, leaf_errors.astype(dtype), one, one, one, bound=None)


def _leaf_errors(counts, train_counts):
    """Mistakes at each node of the examples ``counts`` if it were a leaf with the training majority."""
    label = jnp.argmax(train_counts, axis=-1)
    return jnp.sum(counts, axis=-1) - jnp.take_along_axis(counts, label[:, None], axis=-1)[:, 0]


@jax.jit
def _node_counts(params, X, y):
    """(N, k) class counts of the examples ``(X, y)`` reaching each node (every node on the path)."""
    num_nodes, k = params.counts.shape
    onehot = jax.nn.one_hot(y, k, dtype=params.counts.dtype)

    def step(carry):
        node, counts, steps = carry
        inside = jnp.minimum(node, num_nodes - 1)
        active = (node < num_nodes) & ~params.is_leaf[inside]
        node = jnp.where(
            active, child(params, X, inside), num_nodes
        )  # finished paths leave the tree
        counts = counts + jax.ops.segment_sum(onehot, node, num_segments=num_nodes)
        return node, counts, steps + 1

    def going(carry):  # a path still in the tree (never longer than the tree's nodes)
        node, _, steps = carry
        return jnp.any(node < num_nodes) & (steps < num_nodes)

    node = jnp.zeros(X.shape[0], jnp.int32)
    counts0 = jax.ops.segment_sum(onehot, node, num_segments=num_nodes)
    return jax.lax.while_loop(going, step, (node, counts0, jnp.zeros([], jnp.int32)))[1]


@functools.partial(jax.jit, static_argnames=("bound",))
def _prune(params, leaf_errors, m, d, delta, *, bound):
    dtype = leaf_errors.dtype

    def objective(
        errors, nodes
    ):  # f(T, m) = L_S(T) + bound(n(T), d, m, delta), or validation errors
        if bound is None:
            return errors
        return errors / m + jnp.asarray(
            bound(nodes.astype(dtype), d, m, delta), dtype
        )  # a float64 bound

    num_nodes = params.is_leaf.shape[0]
    reachable = _reachable(params.is_leaf, params.children)
    # the subtree errors/sizes of the grown tree, as the starting point of the walk
    errors = jnp.where(params.is_leaf & reachable, leaf_errors, 0)
    sizes = reachable.astype(jnp.int32)
    total_errors, total_nodes = jnp.sum(errors), jnp.sum(sizes, dtype=jnp.int32)

    def step(t, carry):
        sub_errors, sub_sizes, is_leaf, total_errors, total_nodes = carry
        j = num_nodes - 1 - t
        left = jnp.minimum(params.children[j], num_nodes - 1)
        right = jnp.minimum(left + 1, num_nodes - 1)
        internal = ~is_leaf[j] & reachable[j]
        err = jnp.where(internal, sub_errors[left] + sub_errors[right], sub_errors[j])
        size = jnp.where(internal, 1 + sub_sizes[left] + sub_sizes[right], sub_sizes[j])
        new_errors = total_errors - err + leaf_errors[j]
        new_nodes = total_nodes - size + 1
        cut = internal & (objective(new_errors, new_nodes) <= objective(total_errors, total_nodes))
        sub_errors = sub_errors.at[j].set(jnp.where(cut, leaf_errors[j], err))
        sub_sizes = sub_sizes.at[j].set(jnp.where(cut, 1, size))
        is_leaf = is_leaf.at[j].set(is_leaf[j] | cut)
        total_errors = jnp.where(cut, new_errors, total_errors)
        total_nodes = jnp.where(cut, new_nodes, total_nodes)
        return sub_errors, sub_sizes, is_leaf, total_errors, total_nodes

    carry = (errors, sizes, params.is_leaf, total_errors, total_nodes)
    is_leaf = jax.lax.fori_loop(0, num_nodes, step, carry)[2]
    reachable = _reachable(is_leaf, params.children)
    feature = jnp.where(is_leaf, 0, params.feature)
    children = jnp.where(is_leaf, 0, params.children)
    counts = jnp.where(reachable[:, None], params.counts, 0).astype(params.counts.dtype)
    impurity = jnp.where(reachable, params.impurity, 0).astype(params.impurity.dtype)
    d = num_features(params)
    weights = importances(feature, is_leaf, children, counts, impurity, reachable, d)
    return params._replace(
        is_leaf=is_leaf,
        feature=feature,
        children=children,
        threshold=jnp.where(is_leaf, 0, params.threshold).astype(params.threshold.dtype),
        counts=counts,
        impurity=impurity,
        feature_importances=weights.astype(params.feature_importances.dtype),
    )


def num_nodes(params: DecisionTreeParams) -> Array:
    """The number of reachable nodes of a tree (internal nodes and leaves), :math:`n` in (18.1)."""
    check_tree(params)
    return jnp.sum(_reachable(params.is_leaf, params.children), axis=-1, dtype=jnp.int32)
