"""Random forests (UML 18.3, SPEC 15.6): no bootstrap and all features is the single tree, the vote's tie
rule, accuracy against scikit-learn's RandomForestClassifier on digits and breast cancer."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from jaxlearn.trees import (
    DecisionTreeParams,
    RandomForestParams,
    _forest,
    _sweep,
    decision_tree,
    random_forest,
)
from jaxlearn.trees._forest import forest_predict
from tests.trees.checks import assert_same_tree

KEY = jax.random.PRNGKey(0)


def _sample(seed=0, m=200, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d)).astype(np.float32)
    y = ((X[:, 0] * X[:, 1] > 0) ^ (rng.random(m) < 0.15)).astype(int)
    return X, y


def _sample_with_ties(seed=0, m=200, d=4):
    X, y = _sample(seed, m, d)
    X[:, 2] = np.round(X[:, 2])  # few distinct values: equal bins, empty bins, equal gains
    return X, y


@pytest.mark.parametrize(
    "max_bins, min_samples_leaf", [(None, 1), (256, 1), (6, 4)], ids=["exact", "256", "6-msl4"]
)
def test_forest_without_bootstrap_and_with_all_features_is_the_tree(max_bins, min_samples_leaf):
    """The binned forest grows by class histograms, the binned tree by sweeps over the sorted quantised
    values: two algorithms, the same trees (thresholds, tie rules, counts)."""
    X, y = _sample_with_ties()
    tree = decision_tree(4, max_bins=max_bins, min_samples_leaf=min_samples_leaf).fit(KEY, X, y)
    forest = random_forest(
        2,
        4,
        max_features=None,
        bootstrap=False,
        max_bins=max_bins,
        min_samples_leaf=min_samples_leaf,
    ).fit(KEY, X, y)
    assert not np.all(np.asarray(tree.is_leaf[:7]))  # a grown tree, not a stump
    for t in range(2):
        assert_same_tree(jax.tree_util.tree_map(lambda a, t=t: a[t], forest.trees), tree)


def test_binned_forest_on_bootstrap_weights_is_the_tree_on_the_resample():
    """Bootstrap enters the histograms as integer weights: a tree of the forest equals the single tree
    grown on the bootstrap sample with those multiplicities (here: the weighted tree on the same bins)."""
    from jaxlearn.trees import _features, _sweep

    X, y = _sample_with_ties(seed=1)
    forest = random_forest(1, 3, max_features=None, max_bins=16).fit(KEY, X, y)
    weights = np.asarray(forest.trees.counts[0, 0].sum()).astype(int)
    assert weights == 200
    bins, edges = _features.bin_features(jnp.asarray(X), 16)
    draw_key, _ = jax.random.split(jax.random.split(KEY, 1)[0])
    draws = jax.random.randint(draw_key, (200,), 0, 200)
    w = jax.ops.segment_sum(jnp.ones(200, jnp.int32), draws, num_segments=200)
    Xq = jnp.take_along_axis(edges, bins, axis=0)
    exact = _sweep.grow(
        KEY,
        Xq,
        jnp.asarray(y, jnp.int32),
        w,
        _features.presort(Xq),
        max_depth=3,
        num_classes=2,
        criterion="gini",
        min_samples_leaf=1,
        max_features=None,
    )
    assert_same_tree(jax.tree_util.tree_map(lambda a: a[0], forest.trees), exact)


def test_bootstrap_and_feature_subsets_make_different_trees():
    X, y = _sample()
    forest = random_forest(4, 4).fit(KEY, X, y)
    roots = np.asarray(forest.trees.counts[:, 0].sum(axis=1))
    np.testing.assert_array_equal(roots, 200)  # a bootstrap sample has m draws
    assert not np.array_equal(forest.trees.counts[0, 0], forest.trees.counts[1, 0])
    assert len({tuple(np.asarray(f)) for f in forest.trees.feature}) > 1
    # max_features="sqrt" of 4 features: 2 per node; never the same as the deterministic tree
    assert random_forest(4, 4).fit(KEY, X, y).trees.feature.shape == (4, 31)


@pytest.mark.parametrize("num_trees, parts", [(7, 3), (6, 2), (5, 5)])
def test_slices_grown_in_threads_are_the_one_program_trees(monkeypatch, num_trees, parts):
    """An eager CPU fit grows its trees in slices, one thread each (the last slice padded with copies of
    its last tree): the trees of the one program a fit under ``jit`` runs, bit for bit, on the first
    fit of a shape (slice 0 alone, then the others) and on later ones (all slices at once)."""
    X, y = _sample_with_ties(seed=4, m=120)
    monkeypatch.setattr(_forest, "cpu_parts", lambda n: parts)
    forest = random_forest(num_trees, 3, num_classes=2)
    want = jax.jit(forest.fit)(KEY, X, y).trees
    for _ in range(2):
        assert_same_tree(forest.fit(KEY, X, y).trees, want)
    assert forest.predict(forest.fit(KEY, X, y), X).shape == (120,)


def test_vote_ties_go_to_the_smallest_class():
    def leaf(counts):
        return DecisionTreeParams(
            jnp.zeros(1, jnp.int32),
            jnp.zeros(1),
            jnp.ones(1, bool),
            jnp.asarray([counts], jnp.float32),
            jnp.zeros(1),
            jnp.zeros(1),  # one feature
            jnp.zeros(1, jnp.int32),
        )

    trees = jax.tree_util.tree_map(
        lambda *a: jnp.stack(a), leaf([0.0, 3.0, 1.0]), leaf([0.0, 1.0, 3.0])
    )
    assert forest_predict(RandomForestParams(trees), jnp.zeros((2, 1))).tolist() == [1, 1]
    three = jax.tree_util.tree_map(
        lambda *a: jnp.stack(a), *(leaf(c) for c in ([0, 0, 3.0], [0, 3.0, 0], [0, 0, 3.0]))
    )
    assert forest_predict(RandomForestParams(three), jnp.zeros((1, 1))).tolist() == [2]


@pytest.mark.parametrize(
    "loader, depth",
    [(load_digits, 8), (load_breast_cancer, 6)],
    ids=["digits", "breast_cancer"],
)
def test_accuracy_within_one_point_of_scikit_learn(loader, depth, num_trees=16, seeds=(0, 1, 2)):
    """Mean held-out accuracy over three splits/seeds, the same number of trees and depth: not more
    than one point below scikit-learn's (which averages the trees' probabilities, where ours votes)."""
    X, y = loader(return_X_y=True)
    X = X.astype(np.float32)
    ours, theirs = [], []
    forest = random_forest(num_trees, depth, num_classes=int(y.max()) + 1)
    for seed in seeds:
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.3, random_state=seed, stratify=y
        )
        params = forest.fit(jax.random.PRNGKey(seed), X_tr, y_tr)
        ours.append(np.mean(np.asarray(forest.predict(params, X_te)) == y_te))
        ref = RandomForestClassifier(num_trees, max_depth=depth, random_state=seed).fit(X_tr, y_tr)
        theirs.append(ref.score(X_te, y_te))
    assert np.mean(ours) >= np.mean(theirs) - 0.01, (ours, theirs)


def test_bad_input():
    X, y = _sample(m=20)
    with pytest.raises(ValueError, match=r"`max_depth` an integer in \[0, 24\]"):
        random_forest(4, -2)
    with pytest.raises(ValueError, match=r"`num_trees` an integer in \[1, inf\)"):
        random_forest(0, 3)
    with pytest.raises(ValueError, match="`max_features`"):
        random_forest(4, 3, max_features="half")
    with pytest.raises(ValueError, match="`X` to be finite"):
        random_forest(2, 2).fit(KEY, np.where(np.arange(20)[:, None] == 1, np.inf, X), y)


def test_a_tree_grown_alone_draws_the_subsets_of_its_nodes_as_a_batched_one():
    # On the CPU the forest grows its trees one by one, and a level then draws the feature subsets of
    # the slots up to its last node only (64, 512 or all of them): the same draws, so the same tree.
    from jaxlearn.trees._features import presort
    from jaxlearn.trees._sweep import grow

    X, y = load_digits(return_X_y=True)
    X, y = jnp.asarray(X[:1024], jnp.float32), jnp.asarray(y[:1024], jnp.int32)
    weights = jax.random.randint(jax.random.PRNGKey(1), (1024,), 0, 3)  # bootstrap-like counts
    options = dict(
        max_depth=1023, num_classes=10, criterion="gini", min_samples_leaf=1, max_features=8
    )

    def tree(unbatched):
        fit = jax.jit(lambda k, w: grow(k, X, y, w, presort(X), **options, unbatched=unbatched))
        return fit(jax.random.PRNGKey(0), weights)

    alone, batched = tree(True), tree(False)
    for name in alone._fields:  # the same nodes; the importances' sums compiled in two programs
        if name == "feature_importances":
            np.testing.assert_allclose(alone.feature_importances, batched.feature_importances, 1e-6)
        else:
            np.testing.assert_array_equal(getattr(alone, name), getattr(batched, name), name)
    internal = ~np.asarray(alone.is_leaf) & np.asarray(alone.children > 0)
    assert internal.sum() > 64  # more than one width of slots at some level


@pytest.mark.parametrize("min_samples_leaf", [1, 2, 3])
def test_a_nodes_candidate_features_are_those_with_a_split_leaving_min_samples_leaf_a_side(
    min_samples_leaf,
):
    # the sorted sweep's nodes draw their feature subsets among these; each node holds a segment
    # of every feature's order, sorted within it (few distinct values: ties and constant runs)
    rng = np.random.default_rng(min_samples_leaf)
    d, w, m = 5, 8, 64
    sizes = rng.integers(0, 9, size=w)
    sizes[3] = 0  # an empty node among full ones
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    xs = rng.integers(0, 3, size=(d, m)).astype(np.float32)
    for start, size in zip(starts, sizes):
        xs[:, start : start + size] = np.sort(xs[:, start : start + size], axis=1)
    expected = np.zeros((d, w), bool)
    for j, (start, size) in enumerate(zip(starts, sizes)):
        for p in range(start + min_samples_leaf - 1, start + size - min_samples_leaf):
            expected[:, j] |= xs[:, p + 1] > xs[:, p]
    candidates = _sweep._splittable(
        jnp.asarray(xs),
        jnp.asarray(starts, jnp.int32),
        jnp.asarray(sizes, jnp.int32),
        min_samples_leaf,
    )
    np.testing.assert_array_equal(np.asarray(candidates), expected)
    assert expected.any() and not expected.all()


@pytest.mark.parametrize("max_depth", [3, None], ids=["histograms", "sweep"])
def test_max_samples_draws_that_many_rows_per_tree(max_depth):
    """Each tree's root holds its bootstrap sample: ``max_samples`` draws (scikit-learn's rounding of
    a fraction); ``None`` is ``n`` draws, the same trees as before the option."""
    X, y = _sample(m=150)
    for max_samples, draws in ((40, 40), (0.3, 45), (1.0, 150)):
        forest = random_forest(6, max_depth, max_samples=max_samples).fit(KEY, X, y)
        np.testing.assert_array_equal(forest.trees.counts[:, 0].sum(-1), np.full(6, draws))
    default = random_forest(6, max_depth).fit(KEY, X, y)
    every_row = random_forest(6, max_depth, max_samples=150).fit(KEY, X, y)
    jax.tree.map(np.testing.assert_array_equal, default, every_row)
    with pytest.raises(ValueError, match=r"`max_samples` None, an int in \[1, 150\]"):
        random_forest(2, 2, max_samples=151).fit(KEY, X, y)
    with pytest.raises(ValueError, match="`max_samples` None with bootstrap=False"):
        random_forest(2, 2, bootstrap=False, max_samples=0.5)
    with pytest.raises(ValueError, match="`max_samples`"):
        random_forest(2, 2, max_samples=0.0)
    with pytest.raises(TypeError, match="`max_samples`"):
        random_forest(2, 2, max_samples="half")


def test_bootstrap_counts_are_the_fitted_trees_bags():
    """Each tree's root holds its bootstrap sample: its class counts are the counts' class sums."""
    X, y = _sample(m=150)
    for max_depth, max_samples in ((3, None), (None, 0.4)):
        key = jax.random.key(5)
        forest = random_forest(5, max_depth, max_samples=max_samples).fit(key, X, y)
        counts = np.asarray(_forest.bootstrap_counts(key, 5, 150, max_samples=max_samples))
        roots = np.stack([np.bincount(y, weights=c, minlength=2) for c in counts])
        np.testing.assert_array_equal(forest.trees.counts[:, 0], roots)
