"""The scikit-learn trees predict by walking their fitted nodes with NumPy on the CPU, with no program
compiled: the leaves, classes, frequencies and out-of-bag votes of the compiled walk
(``trees.apply``, the one an accelerator runs) bit for bit, and the same vote shares."""

import jax
import numpy as np
import pytest

from jaxlearn import trees
from jaxlearn.sklearn import DecisionTreeClassifier, RandomForestClassifier, _trees
from tests.harness import count_compilations


def _sample(seed, n=300, d=6, classes=3):
    """Integer-valued features (many rows exactly at a split's threshold) and noisy labels."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, d)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, n)) % classes
    return X, y


def _compiled(monkeypatch):
    """The estimators take the accelerator's path: the compiled walk."""
    monkeypatch.setattr(_trees, "_on_host", lambda tree: False)


@pytest.mark.parametrize("x64", [False, True])
@pytest.mark.parametrize("max_depth", [3, None])
def test_tree_walk_on_the_host_reaches_the_compiled_walks_leaves(monkeypatch, x64, max_depth):
    X, y = _sample(0)
    queries = np.concatenate([X[:50], _sample(1, n=77)[0] + 0.5])  # other rows, other sizes
    with jax.enable_x64(x64):
        tree = DecisionTreeClassifier(max_depth=max_depth, random_state=0).fit(X, y)
        host = (tree.apply(queries), tree.predict(queries), tree.predict_proba(queries))
        np.testing.assert_array_equal(host[0], np.asarray(trees.apply(tree.params_, queries)))
        _compiled(monkeypatch)
        compiled = (tree.apply(queries), tree.predict(queries), tree.predict_proba(queries))
    for ours, theirs in zip(host, compiled):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")
@pytest.mark.parametrize("x64", [False, True])
def test_forest_votes_on_the_host_are_the_compiled_votes(monkeypatch, x64):
    X, y = _sample(2)
    queries = _sample(3, n=101)[0]
    with jax.enable_x64(x64):
        forest = RandomForestClassifier(n_estimators=7, oob_score=True, random_state=0).fit(X, y)
        host = (forest.predict(queries), forest.predict_proba(queries))
        host_oob = forest.oob_decision_function_
        _compiled(monkeypatch)
        compiled = (forest.predict(queries), forest.predict_proba(queries))
        compiled_oob = forest.fit(X, y).oob_decision_function_
    for ours, theirs in zip((*host, host_oob), (*compiled, compiled_oob)):
        assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(host[0], compiled[0])
    np.testing.assert_array_equal(host_oob, compiled_oob)
    # the same votes of the 7 trees; the shares divide them by 7 correctly rounded (XLA multiplies
    # by a rounded 1/7: the last bit of a float32 share may differ)
    np.testing.assert_array_equal(np.round(host[1] * 7), np.round(compiled[1] * 7))
    np.testing.assert_array_equal(host[1], np.round(host[1] * 7).astype(host[1].dtype) / 7)
    np.testing.assert_allclose(host[1], compiled[1], rtol=1e-15 if x64 else 2e-7)


def test_prediction_compiles_nothing_on_the_cpu():
    X, y = _sample(4)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y)
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    with count_compilations() as compiled:
        for size in (1, 37, 300):
            for estimator in (tree, forest):
                estimator.predict(X[:size])
                estimator.predict_proba(X[:size])
            tree.apply(X[:size])
    assert compiled[0] == 0


def test_a_walk_through_malformed_children_ends():
    """Children past the last node (a tampered file) are clamped, as the compiled walk clamps them,
    and a walk takes at most as many steps as its tree has nodes."""
    X, y = _sample(5)
    params = jax.device_get(DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y).params_)
    looped = params._replace(
        is_leaf=np.zeros_like(params.is_leaf), children=np.full_like(params.children, 10**6)
    )
    stacked = jax.tree.map(lambda a: np.asarray(a)[None], looped)
    leaves = _trees._host_leaves(stacked, X[:9])
    np.testing.assert_array_equal(leaves, np.asarray(trees.apply(looped, X[:9]))[None])
