"""Example weights in the trees and forests: ``sample_weight`` in ``fit`` and ``class_weight``, as
scikit-learn's.

The tree with real weights is scikit-learn's tree (float64, data of float32 values as scikit-learn's
trees read them, ``min_samples_leaf=5`` so that no two features split a node into the same parts:
scikit-learn's own trees agree across seeds there); integer weights are repeated rows and weight 0
a removed row, exactly; the forest multiplies its bootstrap multiplicities by the weights.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
import sklearn.tree

from jaxlearn import trees
from jaxlearn.sklearn import DecisionTreeClassifier, RandomForestClassifier
from jaxlearn.sklearn._base import InvalidParameterError
from tests.harness import count_compilations


def _sample(m=300, d=5, seed=0):
    """Three classes of unequal sizes on continuous features; weights in [0.1, 3], a tenth of them 0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2 * m, d)).astype(np.float32).astype(np.float64)
    y = ((X[:, 0] > 0).astype(int) + (X[:, 1] * X[:, 2] > 0.3) + (rng.random(2 * m) < 0.1)) % 3
    weights = rng.uniform(0.1, 3.0, m)
    weights[rng.random(m) < 0.1] = 0.0
    return X[:m], y[:m], X[m:], weights


@pytest.mark.parametrize(
    "criterion, class_weight",
    [("gini", None), ("entropy", None), ("gini", "balanced"), ("entropy", {0: 0.5, 1: 2.0})],
)
def test_weighted_tree_is_scikit_learns(x64, criterion, class_weight):
    X, y, X_test, weights = _sample()
    options = dict(criterion=criterion, min_samples_leaf=5, class_weight=class_weight)
    theirs = [
        sklearn.tree.DecisionTreeClassifier(**options, random_state=seed).fit(X, y, weights)
        for seed in (0, 1)
    ]
    # no ties between splits: scikit-learn's random feature order does not change its tree
    np.testing.assert_array_equal(theirs[0].predict(X_test), theirs[1].predict(X_test))
    ours = DecisionTreeClassifier(**options, random_state=0).fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(ours.predict(X_test), theirs[0].predict(X_test))
    np.testing.assert_allclose(ours.feature_importances_, theirs[0].feature_importances_, atol=1e-9)
    np.testing.assert_allclose(
        ours.predict_proba(X_test), theirs[0].predict_proba(X_test), atol=1e-9
    )
    # (the depths may differ: scikit-learn splits a pure node whose weighted Gini rounds to 3e-16 >
    # its EPSILON, children of the same class; jaxlearn's pure node is a leaf)


def _same_tree(a, b):
    """The same splits and leaves bit for bit; importances to float64 rounding (the programs differ)."""
    for field in ("feature", "threshold", "is_leaf", "counts", "impurity"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)
    np.testing.assert_allclose(a.feature_importances, b.feature_importances, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("values", ["continuous", "few"])  # the sorted sweep, the histograms
def test_integer_weights_are_repeated_rows_and_zero_removed_rows(x64, values):
    X, y, _, _ = _sample(m=200)
    if values == "few":
        X = np.round(X, 1)
    counts = np.random.default_rng(1).integers(0, 4, len(y))
    tree = trees.decision_tree(6)
    weighted = tree.fit(None, X, y, sample_weight=counts.astype(float))
    repeated = tree.fit(None, np.repeat(X, counts, axis=0), np.repeat(y, counts))
    _same_tree(weighted, repeated)
    kept = counts > 0
    zeros = tree.fit(None, X, y, sample_weight=kept.astype(float))
    _same_tree(zeros, tree.fit(None, X[kept], y[kept]))
    # scaling every weight by a power of two scales the counts and changes nothing else
    scaled = tree.fit(None, X, y, sample_weight=4.0 * counts)
    np.testing.assert_array_equal(scaled.counts, 4 * weighted.counts)
    _same_tree(scaled._replace(counts=weighted.counts), weighted)


def test_estimator_integer_weights_are_repeated_rows():
    X, y, X_test, _ = _sample(m=120)
    counts = np.random.default_rng(2).integers(0, 3, len(y))
    weighted = DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=counts)
    repeated = DecisionTreeClassifier(random_state=0).fit(
        np.repeat(X, counts, axis=0), np.repeat(y, counts)
    )
    np.testing.assert_array_equal(weighted.predict_proba(X_test), repeated.predict_proba(X_test))
    np.testing.assert_allclose(
        weighted.feature_importances_, repeated.feature_importances_, rtol=1e-6
    )


@pytest.mark.parametrize("max_depth", [3, None], ids=["histograms", "unlimited"])
def test_binned_tree_ignores_rows_of_weight_zero(max_depth):
    # quantile bins of the rows of positive weight, whether histograms or the sweep grow the tree
    X, y, _, weights = _sample(m=200)
    X, weights = X.astype(np.float32), weights.astype(np.float32)
    tree = DecisionTreeClassifier(max_depth=max_depth, max_bins=16)
    fitted = tree.fit(X, y, sample_weight=weights).params_
    dead = weights == 0
    X2 = X.copy()
    X2[dead] = 100 * np.random.default_rng(3).normal(size=(dead.sum(), X.shape[1]))
    again = tree.fit(X2, y, sample_weight=weights).params_
    jax.tree.map(np.testing.assert_array_equal, fitted, again)


@pytest.mark.parametrize("max_depth", [3, 6, None], ids=["histograms", "sweep", "unlimited"])
def test_forest_ignores_rows_of_weight_zero(max_depth):
    # default forest: quantile bins of the rows of positive weight, bootstrap, sqrt(d) features; the
    # deeper forests are grown by the sweep, on values quantised to the same bins
    X, y, _, weights = _sample(m=200)
    X, weights = X.astype(np.float32), weights.astype(np.float32)
    forest = RandomForestClassifier(n_estimators=8, max_depth=max_depth, random_state=0)
    fitted = forest.fit(X, y, sample_weight=weights).params_
    dead = weights == 0
    X2, y2 = X.copy(), y.copy()
    X2[dead] = 100 * np.random.default_rng(3).normal(size=(dead.sum(), X.shape[1]))
    y2[dead] = (y2[dead] + 1) % 3
    again = forest.fit(X2, y2, sample_weight=weights).params_
    jax.tree.map(np.testing.assert_array_equal, fitted, again)


def test_forest_without_bootstrap_is_the_weighted_tree(x64):
    X, y, X_test, weights = _sample(m=200)
    options = dict(max_depth=6, min_samples_leaf=3, class_weight="balanced")
    tree = DecisionTreeClassifier(**options).fit(X, y, sample_weight=weights)
    forest = RandomForestClassifier(
        n_estimators=2, bootstrap=False, max_features=None, max_bins=None, **options
    ).fit(X, y, sample_weight=weights)
    for member in range(2):
        _same_tree(jax.tree.map(lambda a, i=member: a[i], forest.params_.trees), tree.params_)
    np.testing.assert_array_equal(forest.predict(X_test), tree.predict(X_test))
    # without bootstrap "balanced_subsample" is "balanced" (as scikit-learn's)
    subsample = forest.set_params(class_weight="balanced_subsample").fit(X, y, weights)
    _same_tree(jax.tree.map(lambda a: a[0], subsample.params_.trees), tree.params_)


def test_balanced_subsample_balances_each_bootstrap_sample():
    # the root of tree t holds n_{t,c} draws of class c, each weighing n / (K_t n_{t,c}): n / K_t each
    X, y, _, _ = _sample(m=200)
    y = np.where(np.arange(len(y)) < 150, 0, y)  # class 0 three times the others together
    forest = RandomForestClassifier(
        n_estimators=8, max_depth=2, class_weight="balanced_subsample", random_state=0
    ).fit(X.astype(np.float32), y)
    roots = np.asarray(forest.params_.trees.counts[:, 0])
    drawn = (roots > 0).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(roots, np.where(roots > 0, len(y) / drawn, 0), rtol=1e-5)
    balanced = forest.set_params(class_weight="balanced").fit(X.astype(np.float32), y)
    assert not np.allclose(np.asarray(balanced.params_.trees.counts[:, 0]), roots)


def test_new_weights_compile_nothing():
    X, y, _, weights = _sample(m=100)
    X = X.astype(np.float32)
    fit = jax.jit(trees.decision_tree(4, num_classes=3).fit)
    first = fit(None, X, y, weights.astype(np.float32))
    with count_compilations() as compiled:
        second = fit(None, X, y, (weights + 1).astype(np.float32))
    assert compiled[0] == 0
    assert not np.array_equal(first.counts, second.counts)


def test_bad_weights_are_refused():
    X, y, _, weights = _sample(m=40)
    with pytest.raises(InvalidParameterError, match="class_weight"):
        DecisionTreeClassifier(class_weight="balanced_subsample").fit(X, y)
    with pytest.raises(InvalidParameterError, match="class_weight"):
        RandomForestClassifier(class_weight="unbalanced").fit(X, y)
    with pytest.raises(ValueError, match="non-zero"):  # scikit-learn's check of sample_weight
        DecisionTreeClassifier().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="sample_weight. >= 0"):
        DecisionTreeClassifier().fit(X, y, sample_weight=-weights)
    with pytest.raises(ValueError, match="sample_weight"):
        trees.decision_tree(2).fit(None, X, y, sample_weight=weights[:-1])
