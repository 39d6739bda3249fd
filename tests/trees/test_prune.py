"""Pruning (UML 18.2.2, SPEC 15.4): reduced-error pruning against a recursive reference, the bound-driven
Generic Tree Pruning Procedure never increases f = L_S + (18.1) and prunes pure noise to a leaf."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jaxlearn import theory
from jaxlearn.trees import decision_tree, prune
from jaxlearn.trees._prune import _reachable, num_nodes

KEY = jax.random.PRNGKey(0)
TREE = decision_tree(5)


def _noisy(seed, m, d=4, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.random((m, d)).astype(np.float32)
    y = ((X[:, 0] > 0.5) ^ (rng.random(m) < noise)).astype(int)
    return X, y


def _reference_reduced_error(params, X, y):
    """Bottom-up recursion over the nodes: cut a subtree when validation mistakes do not increase."""
    feature, threshold = np.asarray(params.feature), np.asarray(params.threshold)
    is_leaf, counts = np.asarray(params.is_leaf).copy(), np.asarray(params.counts)
    children = np.asarray(params.children)

    def walk(node, rows):  # returns the subtree's validation mistakes after pruning below
        leaf_mistakes = np.sum(y[rows] != np.argmax(counts[node]))
        if is_leaf[node]:
            return leaf_mistakes
        go_right = X[rows, feature[node]] > threshold[node]
        left = children[node]
        sub = walk(left, rows[~go_right]) + walk(left + 1, rows[go_right])
        if leaf_mistakes <= sub:
            is_leaf[node] = True
            return leaf_mistakes
        return sub

    walk(0, np.arange(len(y)))
    return is_leaf & np.asarray(_reachable(is_leaf, params.children))


def test_reduced_error_pruning_equals_the_recursive_rule():
    X, y = _noisy(0, 300)
    X_val, y_val = _noisy(1, 150)
    params = TREE.fit(KEY, X, y)
    pruned = prune(params, X_val, y_val)
    expected = _reference_reduced_error(params, X_val, y_val)
    np.testing.assert_array_equal(
        np.asarray(pruned.is_leaf) & np.asarray(_reachable(pruned.is_leaf, pruned.children)),
        expected,
    )
    assert int(num_nodes(pruned)) < int(num_nodes(params))
    mistakes = lambda p: np.sum(np.asarray(TREE.predict(p, X_val)) != y_val)  # noqa: E731
    assert mistakes(pruned) <= mistakes(params)
    # the importances are those of the pruned tree
    for tree in (params, pruned):
        np.testing.assert_allclose(
            tree.feature_importances, _gini_importances(tree), rtol=1e-4, atol=1e-6
        )
    assert not np.allclose(pruned.feature_importances, params.feature_importances)


def _gini_importances(params):
    """The mean decrease in Gini impurity per feature of the reachable internal nodes (numpy)."""
    counts = np.asarray(params.counts, np.float64)
    n = counts.sum(axis=1)
    weighted = n - (counts**2).sum(axis=1) / np.where(n > 0, n, 1)  # n C_gini
    total = np.zeros(params.feature_importances.shape[0])
    internal = ~np.asarray(params.is_leaf) & np.asarray(_reachable(params.is_leaf, params.children))
    for j in np.flatnonzero(internal):
        left = int(params.children[j])
        total[params.feature[j]] += weighted[j] - weighted[left] - weighted[left + 1]
    return total / total.sum() if total.sum() > 0 else total


def _f(params, d, delta=0.05):
    m = float(np.asarray(params.counts[0]).sum())
    reach = np.asarray(_reachable(params.is_leaf, params.children))
    leaves = reach & np.asarray(params.is_leaf)
    counts = np.asarray(params.counts)[leaves]
    errors = np.sum(counts.sum(axis=1) - counts.max(axis=1))
    return float(theory.tree_mdl_bound(reach.sum(), d, m, delta, train_error=errors / m))


def test_bound_pruning_never_increases_f():
    X, y = _noisy(2, 400)
    params = TREE.fit(KEY, X, y)
    pruned = prune(params, bound=theory.tree_mdl_bound, d=4)
    assert _f(pruned, 4) <= _f(params, 4) + 1e-6
    assert 1 < int(num_nodes(pruned)) < int(num_nodes(params))  # keeps the x_0 > 1/2 split
    assert int(pruned.feature[0]) == 0


def test_bound_pruning_of_a_float32_tree_under_x64_is_the_same():
    """The bound is float64 under x64 (``theory`` computes in the default float); a float32 tree is
    pruned the same way, not refused by strict dtype promotion."""
    X, y = _noisy(2, 400)
    params = TREE.fit(KEY, X, y)
    want = prune(params, bound=theory.tree_mdl_bound, d=4)
    with jax.enable_x64(True):
        got = prune(params, bound=theory.tree_mdl_bound, d=4)
    assert got.counts.dtype == params.counts.dtype
    np.testing.assert_array_equal(got.is_leaf, want.is_leaf)


def test_pure_noise_prunes_to_a_single_leaf_for_small_m():
    X, y = _noisy(3, 60, noise=0.5)
    params = TREE.fit(KEY, X, y)
    assert int(num_nodes(params)) > 10
    pruned = prune(params, bound=theory.tree_mdl_bound, m=60, d=4)
    assert int(num_nodes(pruned)) == 1 and bool(pruned.is_leaf[0])
    np.testing.assert_array_equal(pruned.feature_importances, 0)  # a single leaf decreases nothing
    np.testing.assert_array_equal(pruned.impurity[1:], 0)


def test_bad_input():
    X, y = _noisy(0, 40)
    params = TREE.fit(KEY, X, y)
    with pytest.raises(ValueError, match="a validation set"):
        prune(params)
    with pytest.raises(ValueError, match="`d`"):
        prune(params, bound=theory.tree_mdl_bound)
    with pytest.raises(ValueError, match="`X_val` to be finite"):
        prune(params, X * np.nan, y)
