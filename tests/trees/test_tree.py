"""Decision trees (UML 18.2, SPEC 15.2-15.5): Exercise 18.2, the gain measures on hand-built nodes, the
threshold sweep against brute force, agreement with scikit-learn, quantile bins, bad input."""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from jaxlearn.trees import apply, decision_tree, gain, impurity, num_nodes, prune

KEY = jax.random.PRNGKey(0)

# UML Exercise 18.2: X = {0,1}^3
EX_X = np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0], [0, 0, 1]], np.float32)
EX_Y = np.array([1, 1, 0, 0])


def _entropy_bits(a):
    return 0.0 if a in (0.0, 1.0) else -a * np.log2(a) - (1 - a) * np.log2(1 - a)


def test_exercise_18_2_id3_is_suboptimal():
    tree = decision_tree(2, criterion="entropy")
    params = tree.fit(KEY, EX_X, EX_Y)
    # root gains in bits: x1: H(1/2) - 3/4 H(2/3) ~ 0.311 > 0, x2 and x3: 0
    ln2 = np.log(2)
    counts = lambda mask: np.bincount(EX_Y[mask], minlength=2)  # noqa: E731
    gains = [
        float(gain(counts(EX_X[:, j] == 0), counts(EX_X[:, j] == 1), "entropy")) / ln2
        for j in range(3)
    ]
    np.testing.assert_allclose(
        gains, [_entropy_bits(0.5) - 0.75 * _entropy_bits(2 / 3), 0, 0], atol=1e-6
    )
    np.testing.assert_allclose(gains[0], 0.311, atol=1e-3)
    assert int(params.feature[0]) == 0 and not bool(params.is_leaf[0])
    # in the x1 = 1 branch x2 and x3 tie (gain H(2/3) - 2/3 ~ 0.252 bits): the lowest index, x2, wins
    assert int(params.feature[2]) == 1
    error = np.mean(np.asarray(tree.predict(params, EX_X)) != EX_Y)
    assert error == 0.25
    # the best depth-2 tree, 1[x2 = x3], has no error: brute force over all depth-2 trees
    best = 1.0
    for root, left, right in itertools.product(range(3), repeat=3):
        for labels in itertools.product((0, 1), repeat=4):
            leaf = 2 * EX_X[:, root] + np.where(EX_X[:, root] == 0, EX_X[:, left], EX_X[:, right])
            best = min(best, np.mean(np.asarray(labels)[leaf.astype(int)] != EX_Y))
    assert best == 0.0


def test_impurities_are_the_books_functions():
    a = np.linspace(0, 1, 101)
    counts = np.stack([1 - a, a], axis=1) * 40
    gini, err, ent = (np.asarray(impurity(counts, c)) for c in ("gini", "train_error", "entropy"))
    np.testing.assert_allclose(gini, 2 * a * (1 - a), atol=1e-6)
    np.testing.assert_allclose(err, np.minimum(a, 1 - a), atol=1e-6)
    xlogx = np.where(a > 0, a * np.log(np.where(a > 0, a, 1)), 0)
    xlogx1 = np.where(a < 1, (1 - a) * np.log(np.where(a < 1, 1 - a, 1)), 0)
    np.testing.assert_allclose(ent, -xlogx - xlogx1, atol=1e-6)
    # entropy and Gini are concave upper bounds of the train error (UML 18.2.1)
    assert (gini >= err - 1e-7).all() and (ent >= err - 1e-7).all()
    assert (np.diff(gini, 2) <= 1e-6).all() and (np.diff(ent, 2) <= 1e-6).all()
    # multiclass and the empty node
    np.testing.assert_allclose(
        impurity(jnp.array([2.0, 1.0, 1.0]), "gini"), 1 - (0.25 + 2 * 0.0625)
    )
    assert float(impurity(jnp.zeros(3), "entropy")) == 0.0


def test_gains_on_hand_built_nodes():
    left, right = jnp.array([3.0, 1.0]), jnp.array([1.0, 3.0])
    # parent (4, 4): C = 1/2, 1/2, ln 2; children (3, 1) and (1, 3), each with weight 1/2
    np.testing.assert_allclose(gain(left, right, "gini"), 0.5 - 2 * 0.375 / 2)
    np.testing.assert_allclose(gain(left, right, "train_error"), 0.5 - 0.25)
    h = -(0.75 * np.log(0.75) + 0.25 * np.log(0.25))
    np.testing.assert_allclose(gain(left, right, "entropy"), np.log(2) - h, rtol=1e-6)
    # a split that does not change the class proportions gains nothing under every criterion
    for criterion in ("gini", "entropy", "train_error"):
        np.testing.assert_allclose(
            gain(jnp.array([1.0, 2.0]), jnp.array([2.0, 4.0]), criterion), 0, atol=1e-7
        )


def _brute_force_splits(X, y, k, criterion):
    """Every split (gain, feature, threshold) of the O(d m^2) search, in (feature, threshold) order."""
    splits = []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for lo, hi in zip(values[:-1], values[1:]):
            theta = lo + (hi - lo) / 2
            left = np.bincount(y[X[:, j] <= theta], minlength=k)
            right = np.bincount(y[X[:, j] > theta], minlength=k)
            splits.append(
                (
                    float(gain(left.astype(np.float64), right.astype(np.float64), criterion)),
                    j,
                    theta,
                )
            )
    return splits


@pytest.mark.parametrize("criterion", ["gini", "entropy", "train_error"])
def test_threshold_sweep_equals_brute_force_at_every_node(criterion, x64):
    rng = np.random.default_rng(7)
    X = rng.integers(0, 6, size=(60, 3)).astype(
        np.float64
    )  # duplicates: empty intervals are skipped
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, size=60)) % 3
    params = decision_tree(3, criterion=criterion).fit(KEY, X, y)
    paths = np.array([_path(params, x) for x in X])  # the nodes on each example's path
    checked = unique = 0
    for node in range(7):
        reach = (paths == node).any(axis=1)
        if params.is_leaf[node] or not reach.any():
            continue
        splits = _brute_force_splits(X[reach], y[reach].astype(int), 3, criterion)
        best = max(g for g, _, _ in splits)
        chosen = (int(params.feature[node]), float(params.threshold[node]))
        gains = {(j, theta): g for g, j, theta in splits}
        assert chosen in gains and gains[chosen] >= best - 1e-9, (node, chosen, best)
        optimal = [(j, theta) for g, j, theta in splits if g >= best - 1e-9]
        if (
            len(optimal) == 1
        ):  # a unique best split (else a tie under rounding: any optimum is right)
            assert chosen == optimal[0]
        unique += len(optimal) == 1
        np.testing.assert_array_equal(
            params.counts[node], np.bincount(y[reach].astype(int), minlength=3)
        )
        checked += 1
    assert checked >= 3 and unique >= 2


def _path(params, x):
    feature, threshold, is_leaf = (np.asarray(a) for a in params[:3])
    nodes, node = [0], 0
    while not is_leaf[node]:
        node = 2 * node + 1 + int(x[feature[node]] > threshold[node])
        nodes.append(node)
    return nodes + [-1] * (4 - len(nodes))


@functools.lru_cache(maxsize=None)
def _tie_free(seed=0, m=400, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2 * m, d)).astype(np.float32)
    y = ((X[:, 0] > 0).astype(int) + (X[:, 1] * X[:, 2] > 0.3) + (rng.random(2 * m) < 0.1)) % 3
    return X[:m], y[:m], X[m:], y[m:]


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_predictions_equal_scikit_learn_on_tie_free_data(criterion, depth=4):
    X, y, X_test, _ = _tie_free()
    tree = decision_tree(depth, criterion=criterion)
    params = tree.fit(KEY, X, y)
    ref = DecisionTreeClassifier(max_depth=depth, criterion=criterion, random_state=0).fit(X, y)
    # tie-free: scikit-learn's random feature order does not change its tree
    other = DecisionTreeClassifier(max_depth=depth, criterion=criterion, random_state=1).fit(X, y)
    np.testing.assert_array_equal(other.predict(X_test), ref.predict(X_test))
    np.testing.assert_array_equal(tree.predict(params, X_test), ref.predict(X_test))
    np.testing.assert_array_equal(tree.predict(params, X), ref.predict(X))
    # the same root split and the same number of leaves
    assert int(params.feature[0]) == ref.tree_.feature[0]
    np.testing.assert_allclose(float(params.threshold[0]), ref.tree_.threshold[0], rtol=1e-6)
    leaves = np.unique(np.asarray(apply(params, X))).size
    assert leaves == ref.get_n_leaves()
    # the mean decrease in impurity per feature, and each node's impurity
    np.testing.assert_allclose(
        params.feature_importances, ref.feature_importances_, rtol=1e-4, atol=1e-6
    )
    nats = np.log(2) if criterion == "entropy" else 1.0  # scikit-learn's entropy is in bits
    np.testing.assert_allclose(params.impurity[0], ref.tree_.impurity[0] * nats, rtol=1e-5)


def test_min_samples_leaf_matches_scikit_learn():
    X, y, X_test, _ = _tie_free()
    params = decision_tree(4, min_samples_leaf=7).fit(KEY, X, y)
    ref = DecisionTreeClassifier(max_depth=4, min_samples_leaf=7, random_state=0).fit(X, y)
    np.testing.assert_array_equal(decision_tree(4).predict(params, X_test), ref.predict(X_test))
    reached = np.asarray(params.counts.sum(axis=1))[np.asarray(params.is_leaf)]
    assert reached[reached > 0].min() >= 7


def test_quantile_bins():
    X, y, X_test, y_test = _tie_free()
    exact_tree, binned_tree = decision_tree(4), decision_tree(4, max_bins=16)
    # 8 equally frequent values per feature: every value is its own quantile bin, the trees are equal
    rng = np.random.default_rng(1)
    X_few = np.stack([rng.permutation(np.repeat(np.arange(8.0), 50)) for _ in range(5)], axis=1)
    X_few = X_few.astype(np.float32)
    y_few = (X_few[:, 0] + X_few[:, 1] * X_few[:, 2] / 8 + rng.integers(0, 2, 400)).astype(int) % 3
    np.testing.assert_array_equal(
        binned_tree.predict(binned_tree.fit(KEY, X_few, y_few), X_test * 4),
        exact_tree.predict(exact_tree.fit(KEY, X_few, y_few), X_test * 4),
    )
    # continuous features: thresholds among at most 15 per feature, accuracy close to the exact tree's
    exact, coarse = exact_tree.fit(KEY, X, y), binned_tree.fit(KEY, X, y)
    per_feature = [
        np.unique(np.asarray(coarse.threshold)[np.asarray(coarse.feature) == j]).size
        for j in range(5)
    ]
    assert max(per_feature) <= 16
    acc = lambda p: np.mean(np.asarray(exact_tree.predict(p, X_test)) == y_test)  # noqa: E731
    assert acc(coarse) >= acc(exact) - 0.05


def test_depth_zero_and_pure_nodes_are_leaves():
    X, y = (
        np.array([[0.0, 0, 0], [1.0, 0, 0], [2.0, 0, 0], [3.0, 0, 0]], np.float32),
        np.array([1, 1, 0, 0]),
    )
    root = decision_tree(0).fit(KEY, X, y)
    assert root.is_leaf.tolist() == [True] and decision_tree(0).predict(root, X).tolist() == [
        0,
        0,
        0,
        0,
    ]
    params = decision_tree(2, criterion="entropy").fit(KEY, X, y)
    # the root splits at 1.5; both children are pure: leaves, and nothing below them is reachable
    assert params.is_leaf.tolist()[:3] == [False, True, True] and float(params.threshold[0]) == 1.5
    np.testing.assert_array_equal(params.counts[3:], 0)


def test_bad_input():
    X, y, _, _ = _tie_free(m=40)
    with pytest.raises(ValueError, match=r"`max_depth` an integer in \[0, 24\]"):
        decision_tree(-1)
    with pytest.raises(ValueError, match="`criterion`"):
        decision_tree(2, criterion="gain")
    with pytest.raises(ValueError, match="`max_bins`"):
        decision_tree(2, max_bins=1)
    tree = decision_tree(2)
    with pytest.raises(ValueError, match="`X` to be finite"):
        tree.fit(KEY, np.where(np.arange(40)[:, None] == 3, np.nan, X), y)
    with pytest.raises(
        ValueError, match=r"expected `y` with labels in 0..2 \(num_classes=3\), found \{-1\}"
    ):
        decision_tree(2, num_classes=3).fit(KEY, X, np.where(np.arange(40) == 0, -1, y))
    with pytest.raises(
        ValueError, match=r"`y` with labels in 0..1 \(num_classes=2\), found \{0.5\}"
    ):
        tree.fit(KEY, X[:3], np.array([0.0, 0.5, 1.0]))
    with pytest.raises(ValueError, match="num_classes"):
        jax.jit(tree.fit)(KEY, X, y)


def test_a_walk_ends_on_params_whose_children_loop():
    """Params are data (a file may hold any): children that point back up cannot hang ``apply``,
    ``predict``, ``prune`` or ``num_nodes``; a path is never longer than the tree's nodes."""
    X = jnp.array([[0.0], [1.0], [2.0], [3.0]])
    y = jnp.array([0, 1, 0, 1])
    params = decision_tree(2).fit(KEY, X, y)
    looped = params._replace(
        is_leaf=jnp.zeros_like(params.is_leaf), children=jnp.zeros_like(params.children)
    )
    leaves = np.asarray(apply(looped, X))
    assert leaves.shape == (4,) and np.all((leaves >= 0) & (leaves < params.is_leaf.shape[0]))
    assert int(num_nodes(looped)) >= 1
    prune(looped, X, y)


def test_max_features_draws_a_subset_per_node_from_the_key():
    """All the features is the tree without subsets, to the bit; a subset of one feature splits each
    node on a feature drawn from the key (different keys, different trees), every split valid."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X, y = X.astype(np.float32)[:600], y[:600]
    key = jax.random.key(0)
    whole = decision_tree(None).fit(None, X, y)
    jax.tree.map(
        np.testing.assert_array_equal, whole, decision_tree(None, max_features=64).fit(key, X, y)
    )
    one = decision_tree(None, max_features=1).fit(key, X, y)
    other = decision_tree(None, max_features=1).fit(jax.random.key(1), X, y)
    assert np.any(np.asarray(one.feature) != np.asarray(other.feature))
    assert float(np.mean(decision_tree(None).predict(one, X) == y)) == 1.0  # grown until pure
    with pytest.raises(ValueError, match="`key` a JAX key"):
        decision_tree(3, max_features="sqrt").fit(None, X, y)
    with pytest.raises(ValueError, match="`max_features`"):
        decision_tree(3, max_features=0)
