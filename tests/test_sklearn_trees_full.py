"""Trees of max_depth=None grow until their leaves are pure (scikit-learn's unlimited trees),
min_samples_split stops them as scikit-learn's does, and a single class fits a single leaf."""

import jax
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkTree

from jaxlearn import trees
from jaxlearn.sklearn import DecisionTreeClassifier, RandomForestClassifier


def _one_hot(sizes):
    """Class ``c`` is ``sizes[c]`` rows of the one-hot vector ``e_c``: a chain of one split a class,
    as deep as there are classes; classes of distinct sizes give every split a distinct gain."""
    y = np.repeat(np.arange(len(sizes)), sizes)
    return np.eye(len(sizes), dtype=np.float32)[y], y


def test_tree_of_unlimited_depth_fits_15_one_hot_classes_as_sklearn():
    X, y = _one_hot(np.arange(2, 17))  # 15 classes, a chain of depth 14
    tree = DecisionTreeClassifier().fit(X, y)
    sk = SkTree(random_state=0).fit(X, y)
    assert tree.score(X, y) == 1.0
    assert tree.get_depth() == sk.get_depth() == 14
    np.testing.assert_array_equal(tree.predict(X), sk.predict(X))


def test_tree_deeper_than_24_levels_as_sklearn():
    """A chain of 31 one-hot classes needs 30 levels, past the 24 a complete tree could hold."""
    X, y = _one_hot(np.arange(2, 33))
    tree = DecisionTreeClassifier().fit(X, y)
    sk = SkTree(random_state=0).fit(X, y)
    assert tree.get_depth() == sk.get_depth() == 30
    np.testing.assert_array_equal(tree.predict(X), sk.predict(X))
    params = tree.params_
    assert params.is_leaf.shape[0] <= 2 * 1024 - 1  # breadth-first: at most 2m - 1 nodes (m padded)
    assert int(trees.num_nodes(params)) == sk.tree_.node_count == 61


def test_min_samples_split_stops_as_sklearn():
    X, y = _one_hot(np.arange(2, 17))
    for split in (30, 0.25):
        tree = DecisionTreeClassifier(min_samples_split=split).fit(X, y)
        sk = SkTree(min_samples_split=split, random_state=0).fit(X, y)
        assert tree.get_depth() == sk.get_depth() < 14
        np.testing.assert_array_equal(tree.predict(X), sk.predict(X))
        np.testing.assert_allclose(tree.predict_proba(X), sk.predict_proba(X), rtol=1e-6)


def test_forest_of_unlimited_depth_fits_15_one_hot_classes():
    X, y = _one_hot(np.full(15, 3))
    forest = RandomForestClassifier(n_estimators=8, max_features=None, random_state=0).fit(X, y)
    assert forest.score(X, y) == 1.0


@pytest.mark.parametrize(
    "estimator", [DecisionTreeClassifier(), RandomForestClassifier(n_estimators=4)]
)
def test_single_class_fits_a_leaf(estimator):
    X = np.arange(12, dtype=np.float32).reshape(6, 2)
    fitted = estimator.fit(X, ["only"] * 6)
    assert fitted.predict(X).tolist() == ["only"] * 6
    np.testing.assert_array_equal(fitted.predict_proba(X), np.ones((6, 1)))


def test_library_trees_single_class_and_traced_unlimited_depth():
    X, y = np.arange(12, dtype=np.float32).reshape(6, 2), np.zeros(6, np.int32)
    key = jax.random.PRNGKey(0)
    for learner in (trees.decision_tree(None), trees.random_forest(3, None)):
        assert learner.predict(learner.fit(key, X, y), X).tolist() == [0] * 6
    # unlimited depth under jit: the sample's size bounds the depth, so the program is traceable
    X, y = _one_hot(np.arange(2, 12))
    learner = trees.decision_tree(None, num_classes=10)
    traced = jax.jit(lambda X, y: learner.fit(key, X, y))(X, y)
    eager = learner.fit(key, X, y)
    np.testing.assert_array_equal(learner.predict(traced, X), y)
    np.testing.assert_array_equal(trees.apply(traced, X), trees.apply(eager, X))


def test_random_state_orders_the_features_that_break_ties():
    """Two copies of one informative feature tie at every split: the seed decides which one the tree
    uses, and the tree is the tree grown on the permuted columns, named back in the input's order."""
    rng = np.random.default_rng(0)
    signal = rng.normal(size=60)
    X = np.column_stack([signal, signal, rng.normal(size=60)])
    y = (signal > 0.3).astype(int)
    assert DecisionTreeClassifier().fit(X, y).feature_importances_[0] == 1.0  # None: X's own order
    used = set()
    for seed in range(6):
        tree = DecisionTreeClassifier(random_state=seed).fit(X, y)
        importances = tree.feature_importances_
        used.add(int(np.argmax(importances)))
        order = np.random.RandomState(seed).permutation(3)
        plain = DecisionTreeClassifier().fit(X[:, order], y)
        np.testing.assert_array_equal(importances[order], plain.feature_importances_)
        np.testing.assert_array_equal(tree.predict(X), plain.predict(X[:, order]))
        np.testing.assert_array_equal(tree.apply(X), plain.apply(X[:, order]))
    assert used == {0, 1}


def test_forest_max_samples_as_scikit_learns():
    """``max_samples`` (a fraction, an int) draws smaller bootstrap samples: the held-out accuracy of
    scikit-learn's forest with the same option, over three seeds each."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier as SkForest
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
    for max_samples in (0.2, 30):
        ours, theirs = (
            np.mean(
                [
                    forest(n_estimators=30, max_samples=max_samples, random_state=seed)
                    .fit(X_train, y_train)
                    .score(X_test, y_test)
                    for seed in range(3)
                ]
            )
            for forest in (RandomForestClassifier, SkForest)
        )
        assert ours >= theirs - 0.02, (max_samples, ours, theirs)
    with pytest.raises(ValueError, match="`max_samples` None with bootstrap=False"):
        RandomForestClassifier(bootstrap=False, max_samples=0.5).fit(X_train, y_train)


def test_forest_out_of_bag_score_as_scikit_learns():
    """``oob_score=True``: each row scored by the trees that left it out; on the wine data the
    out-of-bag accuracy of scikit-learn's forest, seed for seed within two points."""
    from sklearn.datasets import load_wine
    from sklearn.ensemble import RandomForestClassifier as SkForest

    X, y = load_wine(return_X_y=True)
    for seed in range(2):
        ours = RandomForestClassifier(n_estimators=50, oob_score=True, random_state=seed).fit(X, y)
        theirs = SkForest(n_estimators=50, oob_score=True, random_state=seed).fit(X, y)
        assert abs(ours.oob_score_ - theirs.oob_score_) <= 0.02
        shares = ours.oob_decision_function_
        assert shares.shape == (len(y), 3)
        np.testing.assert_allclose(shares.sum(axis=1), 1.0, rtol=1e-6)
        assert ours.oob_score_ == np.mean(ours.classes_[shares.argmax(axis=1)] == y)
    with pytest.warns(UserWarning, match="Some inputs do not have OOB scores"):
        few = RandomForestClassifier(n_estimators=2, oob_score=True, random_state=0).fit(X, y)
    assert (few.oob_decision_function_.sum(axis=1) == 0).any()
    assert not hasattr(few.set_params(oob_score=False).fit(X, y), "oob_score_")
    with pytest.raises(ValueError, match="`oob_score` False with bootstrap=False"):
        RandomForestClassifier(bootstrap=False, oob_score=True).fit(X, y)


def test_tree_max_features_as_scikit_learns():
    """``max_features`` draws a feature subset per node from ``random_state``: the held-out
    accuracy of scikit-learn's tree with the same option, the mean over five seeds each."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)
    ours, theirs = (
        np.mean(
            [
                tree(max_features="sqrt", random_state=seed)
                .fit(X_train, y_train)
                .score(X_test, y_test)
                for seed in range(5)
            ]
        )
        for tree in (DecisionTreeClassifier, SkTree)
    )
    assert ours >= theirs - 0.025, (ours, theirs)
    same = [DecisionTreeClassifier(max_features=8, random_state=3).fit(X, y) for _ in range(2)]
    np.testing.assert_array_equal(same[0].params_.feature, same[1].params_.feature)


def test_forest_estimators_are_its_trees():
    """``estimators_`` (and ``len``, indexing, iteration, as scikit-learn's ensembles): fitted
    ``DecisionTreeClassifier`` s whose majority vote is the forest's prediction."""
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    forest = RandomForestClassifier(n_estimators=7, max_depth=4, random_state=0).fit(X, y)
    assert len(forest) == len(forest.estimators_) == 7
    assert all(isinstance(tree, DecisionTreeClassifier) for tree in forest)
    votes = np.stack([tree.predict(X) for tree in forest])  # labels of classes_
    index = np.searchsorted(forest.classes_, votes)
    majority = np.argmax(np.stack([(index == c).sum(0) for c in range(3)]), axis=0)
    np.testing.assert_array_equal(forest.classes_[majority], forest.predict(X))
    np.testing.assert_array_equal(forest[2].params_.threshold, forest.params_.trees.threshold[2])
