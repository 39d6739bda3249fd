"""Trees of any depth grown by the histograms of each level's nodes (``_deep_histograms``) are the
trees of the sorted sweep on the same values, bit for bit: the eager fit (which takes the histograms
where they apply) against the fit under ``jit`` (which cannot read the bins and sweeps), and the
grower against the sweep directly, on levels wider than a round of histograms."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from sklearn.datasets import load_digits

from jaxlearn.trees import decision_tree, random_forest
from jaxlearn.trees._bins import fit_bins, quantized
from jaxlearn.trees._deep_histograms import MAX_NODE_CELLS, chunk_size, deep_histograms, grow_binned
from jaxlearn.trees._features import presort
from jaxlearn.trees._histogram import histograms_cheaper
from jaxlearn.trees._sweep import grow
from tests.trees.checks import assert_same_tree

KEY = jax.random.PRNGKey(0)


def _noisy(seed=0, m=320, d=6, values=7, k=3):
    """Features of few values and labels that are partly noise: deep trees with wide levels (m a
    size bucket, so that the eager fit, which pads to one, and the traced fit have one shape)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, (m, d)).astype(np.float32)
    y = ((X[:, 0] + X[:, 1] > values) + (rng.random(m) < 0.3)).astype(np.int32) % k
    return X, y


@pytest.mark.parametrize(
    "options",
    [
        dict(),
        dict(criterion="train_error", min_samples_split=5),
        dict(criterion="entropy", min_samples_leaf=3),
        dict(max_features=3),
    ],
    ids=["gini", "train_error-mss5", "entropy-msl3", "subsets"],
)
@pytest.mark.parametrize("max_depth", [None, 12])
def test_tree_of_any_depth_is_the_sorted_sweeps(options, max_depth):
    """``max_depth`` None or deep enough that the sweep would grow it (``histograms_cheaper``)."""
    X, y = _noisy()
    tree = decision_tree(max_depth, num_classes=3, **options)
    assert max_depth is None or not histograms_cheaper(max_depth, 320, 6, None, 7, 3)
    assert deep_histograms(None, options.get("max_features"), 1, 7, 3)
    assert_same_tree(tree.fit(KEY, X, y), jax.jit(tree.fit)(KEY, X, y))


@pytest.mark.parametrize(
    "options",
    [
        dict(),
        dict(max_bins=None, bootstrap=False),
        dict(max_features=None, max_samples=0.5, criterion="entropy"),
    ],
    ids=["bootstrap-sqrt", "exact-no-bootstrap", "all-features-half-draws-entropy"],
)
@pytest.mark.parametrize("max_depth", [None, 12])
def test_forest_of_any_depth_grows_the_sorted_sweeps_trees(options, max_depth):
    X, y = _noisy(seed=1)
    forest = random_forest(5, max_depth, num_classes=3, **options)
    assert_same_tree(forest.fit(KEY, X, y).trees, jax.jit(forest.fit)(KEY, X, y).trees)


@pytest.mark.parametrize("max_features, criterion", [(None, "gini"), (8, "entropy")])
def test_levels_of_several_rounds_grow_the_sweeps_tree_on_the_digits(max_features, criterion):
    """The digits' levels hold up to about 80 nodes: several rounds of 16 nodes each."""
    X, y = load_digits(return_X_y=True)
    X, y = X[:1024].astype(np.float32), y[:1024].astype(np.int32)
    bins, edges = fit_bins(X, None)
    weights = np.random.default_rng(2).integers(0, 3, X.shape[0]).astype(np.int32)
    options = dict(
        max_depth=X.shape[0] - 1,
        num_classes=10,
        criterion=criterion,
        min_samples_leaf=1,
        max_features=max_features,
    )
    assert chunk_size(X.shape[0], edges.shape[0] * 10) == 16
    values = quantized(bins, edges)
    want = jax.jit(lambda w: grow(KEY, values, y, w, presort(values), unbatched=True, **options))
    got = jax.jit(lambda w: grow_binned(KEY, bins, edges, y, w, **options))
    tree = got(weights)
    assert_same_tree(tree, want(weights))
    assert max(_level_widths(tree)) > 16  # a level of several rounds


def _level_widths(tree):
    """The number of nodes at each depth of a tree numbered breadth-first."""
    is_leaf, children = np.asarray(tree.is_leaf), np.asarray(tree.children)
    depth = np.zeros(is_leaf.size, np.int64)
    for node in np.flatnonzero(~is_leaf):  # parents come before their children
        depth[children[node] : children[node] + 2] = depth[node] + 1
    reached = np.zeros(is_leaf.size, bool)
    reached[0] = True
    reached[children[~is_leaf]] = reached[children[~is_leaf] + 1] = True
    return np.bincount(depth[reached])


def test_the_sweep_keeps_what_histograms_would_change():
    """Real weights (float sums in another order), feature subsets with min_samples_leaf > 1 (drawn
    among the features with a split), many bins x classes (slower)."""
    assert deep_histograms(None, None, 1, 17, 10)
    assert not deep_histograms(np.ones(3), None, 1, 17, 10)
    assert not deep_histograms(None, 3, 2, 17, 10)
    assert deep_histograms(None, None, 2, 17, 10)
    assert not deep_histograms(None, None, 1, MAX_NODE_CELLS // 2 + 1, 2)
    assert deep_histograms(None, None, 1)  # before binning: binning may pay
    assert not deep_histograms(np.ones(3), None, 1)
