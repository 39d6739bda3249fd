"""Bad and unusual input to ``jaxlearn.trees``: the functions of ``__all__`` and the tree learners' own
cases (the width of ``X`` at predict, labels, one class, one row, ``max_features``, ``bootstrap``).

Every fit is tiny and cached: a tree or forest compiles once per shape."""

import functools

import jax
import numpy as np

from jaxlearn import parallel, theory, trees
from tests.inputs.rows import Bad, Holds, Same

KEY = jax.random.PRNGKey(0)
_X = np.array([[0.0, 1.0], [1.0, 3.0], [2.0, 0.0], [3.0, 2.0], [4.0, 1.0], [5.0, 0.5]], np.float32)
_Y = np.array([0, 0, 1, 1, 0, 1])
_WIDE = np.ones((2, 3), np.float32)
_NAN = np.where(_X == 2.0, np.nan, _X)
_B = _X > 1
_INF = np.where(_X == 2.0, np.inf, _X)
_TREE = trees.decision_tree(2, num_classes=2)
_FOREST = trees.random_forest(2, 1, num_classes=2)


@functools.lru_cache(maxsize=None)
def _params():
    return _TREE.fit(KEY, _X, _Y)


@functools.lru_cache(maxsize=None)
def _forest():
    return _FOREST.fit(KEY, _X, _Y)


def _close(want):
    return lambda got: np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-7)


def _importances_ok(params):
    w = np.asarray(params.feature_importances)
    assert w.shape == (2,) and np.all(w >= 0) and np.isclose(w.sum(), 1.0), w


def _single_leaf(params):
    assert bool(params.is_leaf[0]) and np.all(np.asarray(params.feature_importances) == 0)
    assert np.isfinite(np.asarray(params.counts)).all()


def _labels(want):
    return lambda got: np.testing.assert_array_equal(np.asarray(got), want)


ROWS = [
    # impurity / gain: class counts (..., k), finite and >= 0
    Bad(trees.impurity, "negative count", lambda: trees.impurity([3.0, -1.0]), "counts"),
    Bad(trees.impurity, "NaN count", lambda: trees.impurity([3.0, np.nan]), "counts"),
    Bad(trees.impurity, "scalar counts", lambda: trees.impurity(3.0), "counts"),
    Bad(trees.impurity, "string counts", lambda: trees.impurity(["a", "b"]), "counts", TypeError),
    Bad(trees.impurity, "unknown criterion", lambda: trees.impurity([1, 1], "gain"), "criterion"),
    Bad(
        trees.impurity,
        "criterion not a string",
        lambda: trees.impurity([1, 1], 1),
        "criterion",
        TypeError,
    ),
    Same(
        trees.impurity,
        "int counts",
        lambda: trees.impurity(np.array([3, 1])),
        lambda: trees.impurity(np.array([3.0, 1.0])),
    ),
    Same(
        trees.impurity,
        "bool counts",
        lambda: trees.impurity([True, False], "entropy"),
        lambda: trees.impurity(np.array([1.0, 0.0]), "entropy"),
    ),
    Holds(trees.impurity, "empty node", lambda: trees.impurity([0, 0], "entropy"), _close(0.0)),
    Holds(
        trees.impurity,
        "a batch of nodes",
        lambda: trees.impurity(np.eye(3)[:, :2] * 2 + 1),
        _close([0.375, 0.375, 0.5]),
    ),
    Bad(
        trees.gain,
        "children over different classes",
        lambda: trees.gain([1, 2], [1, 2, 3]),
        ("left_counts", "right_counts"),
    ),
    Bad(
        trees.gain,
        "shapes that do not broadcast",
        lambda: trees.gain(np.ones((3, 2)), np.ones((4, 2))),
        ("left_counts", "right_counts"),
    ),
    Bad(trees.gain, "negative right count", lambda: trees.gain([1, 2], [1, -2]), "right_counts"),
    Bad(trees.gain, "inf left count", lambda: trees.gain([np.inf, 2.0], [1.0, 2.0]), "left_counts"),
    Bad(trees.gain, "unknown criterion", lambda: trees.gain([1, 2], [2, 1], "error"), "criterion"),
    Same(
        trees.gain,
        "int counts",
        lambda: trees.gain(np.array([3, 1]), np.array([1, 3])),
        lambda: trees.gain(np.array([3.0, 1.0]), np.array([1.0, 3.0])),
    ),
    Holds(trees.gain, "empty children", lambda: trees.gain([0, 0], [0, 0]), _close(0.0)),
    # apply / predict_proba: X of shape (n, d) with the training width, finite
    Bad(trees.apply, "one feature too wide", lambda: trees.apply(_params(), _WIDE), "X"),
    Bad(trees.apply, "one feature too narrow", lambda: trees.apply(_params(), _X[:, :1]), "X"),
    Bad(trees.apply, "a 1-D row", lambda: trees.apply(_params(), _X[0]), "X"),
    Bad(trees.apply, "NaN row", lambda: trees.apply(_params(), _NAN), "X"),
    Bad(
        trees.apply,
        "too wide under jit (a shape check)",
        lambda: jax.jit(trees.apply)(_params(), _WIDE),
        "X",
    ),
    Bad(trees.apply, "params not a tree", lambda: trees.apply(_forest(), _X), "params", TypeError),
    Same(
        trees.apply,
        "list X",
        lambda: trees.apply(_params(), _X.tolist()),
        lambda: trees.apply(_params(), _X),
    ),
    Same(
        trees.apply,
        "int X",
        lambda: trees.apply(_params(), _X.astype(np.int32)),
        lambda: trees.apply(_params(), _X.astype(np.int32).astype(np.float32)),
    ),
    Same(
        trees.apply,
        "under jit",
        lambda: jax.jit(trees.apply)(_params(), _X),
        lambda: trees.apply(_params(), _X),
    ),
    Bad(
        trees.predict_proba,
        "one feature too wide",
        lambda: trees.predict_proba(_params(), _WIDE),
        "X",
    ),
    Bad(trees.predict_proba, "a 1-D row", lambda: trees.predict_proba(_params(), _X[0]), "X"),
    Bad(trees.predict_proba, "inf row", lambda: trees.predict_proba(_params(), _INF), "X"),
    Holds(
        trees.predict_proba,
        "rows are distributions",
        lambda: trees.predict_proba(_params(), _X[:3]),
        lambda p: np.testing.assert_allclose(np.asarray(p).sum(axis=1), 1.0, rtol=1e-6),
    ),
    # bootstrap_counts: the bags of random_forest(...).fit(key, ...) on that many rows
    Bad(
        trees.bootstrap_counts,
        "more draws than rows",
        lambda: trees.bootstrap_counts(KEY, 2, len(_Y), max_samples=len(_Y) + 1),
        "max_samples",
    ),
    Bad(
        trees.bootstrap_counts,
        "no trees",
        lambda: trees.bootstrap_counts(KEY, 0, len(_Y)),
        "num_trees",
    ),
    Bad(
        trees.bootstrap_counts,
        "a string of draws",
        lambda: trees.bootstrap_counts(KEY, 2, len(_Y), max_samples="half"),
        "max_samples",
        TypeError,
    ),
    Holds(
        trees.bootstrap_counts,
        "the fitted forest's roots hold its bags",
        lambda: (trees.bootstrap_counts(KEY, 2, len(_Y)), _forest()),
        lambda pair: np.testing.assert_array_equal(
            np.asarray(pair[1].trees.counts[:, 0]),
            np.stack([np.bincount(_Y, weights=c, minlength=2) for c in np.asarray(pair[0])]),
        ),
    ),
    # num_nodes
    Bad(
        trees.num_nodes,
        "params not a tree",
        lambda: trees.num_nodes(_forest()),
        "params",
        TypeError,
    ),
    Holds(
        trees.num_nodes,
        "a fitted tree",
        lambda: trees.num_nodes(_params()),
        lambda n: 1 <= int(n) <= 7 or (_ for _ in ()).throw(AssertionError(n)),
    ),
    # prune: a validation sample of the training width, or a bound with d, m > 0 and delta in (0, 1)
    Bad(
        trees.prune,
        "neither a validation set nor a bound",
        lambda: trees.prune(_params()),
        ("X_val", "bound"),
    ),
    Bad(
        trees.prune,
        "both",
        lambda: trees.prune(_params(), _X, _Y, bound=theory.tree_mdl_bound, d=2),
        ("X_val", "bound"),
    ),
    Bad(
        trees.prune,
        "X_val one feature too wide",
        lambda: trees.prune(_params(), _WIDE, _Y[:2]),
        "X_val",
    ),
    Bad(trees.prune, "X_val a 1-D row", lambda: trees.prune(_params(), _X[0], _Y[:1]), "X_val"),
    Bad(trees.prune, "NaN in X_val", lambda: trees.prune(_params(), _NAN, _Y), "X_val"),
    Bad(trees.prune, "y_val missing", lambda: trees.prune(_params(), _X), "y_val"),
    Bad(
        trees.prune,
        "y_val label 2 of two classes",
        lambda: trees.prune(_params(), _X, _Y * 2),
        "y_val",
    ),
    Bad(
        trees.prune,
        "lengths differ",
        lambda: trees.prune(_params(), _X, _Y[:4]),
        ("X_val", "y_val"),
    ),
    Bad(
        trees.prune,
        "bound without d",
        lambda: trees.prune(_params(), bound=theory.tree_mdl_bound),
        "d",
    ),
    Bad(
        trees.prune,
        "delta 1",
        lambda: trees.prune(_params(), bound=theory.tree_mdl_bound, d=2, delta=1.0),
        "delta",
    ),
    Bad(
        trees.prune,
        "d negative",
        lambda: trees.prune(_params(), bound=theory.tree_mdl_bound, d=-2),
        "d",
    ),
    Bad(
        trees.prune,
        "m zero",
        lambda: trees.prune(_params(), bound=theory.tree_mdl_bound, d=2, m=0),
        "m",
    ),
    Bad(
        trees.prune,
        "bound not a function",
        lambda: trees.prune(_params(), bound=0.1, d=2),
        "bound",
        TypeError,
    ),
    Same(
        trees.prune,
        "lists and float labels",
        lambda: trees.prune(_params(), _X.tolist(), [0.0, 1, 1, 1, 0, 1]),
        lambda: trees.prune(_params(), _X, np.array([0, 1, 1, 1, 0, 1])),
    ),
    Holds(
        trees.prune,
        "pruned to one leaf: no importances",
        lambda: trees.prune(_params(), _X, np.zeros(6, np.int32)),
        _single_leaf,
    ),
    # the learners' own cases (the generic suite checks ranges, NaN, widths, lists and int X)
    Holds(
        trees.decision_tree,
        "feature importances of shape (d,), summing to 1",
        _params,
        _importances_ok,
    ),
    Bad(trees.decision_tree, "fit on a 1-D X", lambda: _TREE.fit(KEY, _X[:, 0], _Y), "X"),
    Bad(trees.decision_tree, "label 2 with num_classes=2", lambda: _TREE.fit(KEY, _X, _Y * 2), "y"),
    Bad(
        trees.decision_tree,
        "label -1 (classes read off y)",
        lambda: trees.decision_tree(1).fit(KEY, _X, _Y - 1),
        "y",
    ),
    Bad(trees.decision_tree, "label 0.5", lambda: _TREE.fit(KEY, _X, _Y / 2), "y"),
    Bad(
        trees.decision_tree,
        "criterion 'gain'",
        lambda: trees.decision_tree(2, criterion="gain"),
        "criterion",
    ),
    Bad(trees.decision_tree, "max_depth 25", lambda: trees.decision_tree(25), "max_depth"),
    Bad(
        trees.decision_tree,
        "num_classes 1",
        lambda: trees.decision_tree(2, num_classes=1),
        "num_classes",
    ),
    Bad(
        trees.decision_tree,
        "predict too wide under jit",
        lambda: jax.jit(_TREE.predict)(_params(), _WIDE),
        "X",
    ),
    Holds(
        trees.decision_tree,
        "one class: a single leaf",
        lambda: _TREE.fit(KEY, _X, np.zeros(6, np.int32)),
        _single_leaf,
    ),
    Holds(
        trees.decision_tree,
        "one row: a single leaf predicting its label",
        lambda: _TREE.predict(_TREE.fit(KEY, _X[1:2], _Y[2:3]), _X),
        _labels([1] * 6),
    ),
    Same(
        trees.decision_tree,
        "float labels holding integers",
        lambda: _TREE.fit(KEY, _X, _Y.astype(np.float32)),
        _params,
    ),
    Bad(
        trees.random_forest,
        "max_features 0",
        lambda: trees.random_forest(2, 1, max_features=0),
        "max_features",
    ),
    Bad(
        trees.random_forest,
        "max_features 1.5",
        lambda: trees.random_forest(2, 1, max_features=1.5),
        "max_features",
    ),
    Bad(
        trees.random_forest,
        "max_features 'half'",
        lambda: trees.random_forest(2, 1, max_features="half"),
        "max_features",
    ),
    Bad(
        trees.random_forest,
        "max_features True",
        lambda: trees.random_forest(2, 1, max_features=True),
        "max_features",
        TypeError,
    ),
    Bad(
        trees.random_forest,
        "max_features a list",
        lambda: trees.random_forest(2, 1, max_features=[1]),
        "max_features",
        TypeError,
    ),
    Bad(
        trees.random_forest,
        "bootstrap 'yes'",
        lambda: trees.random_forest(2, 1, bootstrap="yes"),
        "bootstrap",
        TypeError,
    ),
    Bad(
        trees.random_forest,
        "predict on a tree's params",
        lambda: _FOREST.predict(_params(), _X),
        "params",
        TypeError,
    ),
    Bad(
        trees.random_forest,
        "predict too wide under jit",
        lambda: jax.jit(_FOREST.predict)(_forest(), _WIDE),
        "X",
    ),
    Holds(trees.random_forest, "feature importances of the forest", _forest, _importances_ok),
    Holds(
        trees.random_forest,
        "one class: every tree a single leaf",
        lambda: _FOREST.fit(KEY, _X, np.ones(6, np.int32)),
        lambda p: np.testing.assert_array_equal(np.asarray(p.trees.is_leaf[:, 0]), True),
    ),
    Same(
        trees.random_forest,
        "bool X",
        lambda: _FOREST.predict(_FOREST.fit(KEY, _B, _Y), _B),
        lambda: _FOREST.predict(_FOREST.fit(KEY, _B.astype(np.float32), _Y), _B.astype(np.float32)),
    ),
    Bad(
        trees.random_forest,
        "mesh a list of devices",
        lambda: trees.random_forest(2, 1, mesh=jax.devices()),
        "mesh",
        TypeError,
    ),
    Same(
        trees.random_forest,
        "a one-device mesh",
        lambda: trees.random_forest(
            2, 1, num_classes=2, mesh=parallel.mesh(devices=jax.devices()[:1])
        ).fit(KEY, _X, _Y),
        _forest,
        rtol=0,
        atol=0,
    ),
    # the MDL code of UML 18.1: trees over binary features, two classes
    Bad(trees.mdl_code, "thresholds of real features", lambda: trees.mdl_code(_params()), "params"),
    Bad(
        trees.mdl_code, "a forest's params", lambda: trees.mdl_code(_forest()), "params", TypeError
    ),
    Bad(trees.mdl_code, "stacked trees", lambda: trees.mdl_code(_forest().trees), "params"),
    Bad(
        trees.mdl_code,
        "three classes",
        lambda: trees.mdl_code(
            trees.decision_tree(1).fit(KEY, _B.astype(np.float32), np.array([0, 1, 2, 0, 1, 2]))
        ),
        "params",
    ),
    Same(
        trees.mdl_code,
        "under jit",
        lambda: jax.jit(trees.mdl_code)(_TREE.fit(KEY, _B, _Y)),
        lambda: trees.mdl_code(_TREE.fit(KEY, _B.astype(np.float32), _Y)),
        rtol=0,
        atol=0,
    ),
    Bad(
        trees.description_length,
        "a forest's params",
        lambda: trees.description_length(_forest()),
        "params",
        TypeError,
    ),
    Holds(
        trees.description_length,
        "one leaf: 2 blocks of log2(d + 3) bits",
        lambda: trees.description_length(trees.decision_tree(0, num_classes=2).fit(KEY, _B, _Y)),
        _close(2 * np.log2(5)),
    ),
    Bad(trees.mdl_decode, "d 0", lambda: trees.mdl_decode([2, 4], 0), "d"),
    Bad(trees.mdl_decode, "float d", lambda: trees.mdl_decode([2, 4], 2.0), "d", TypeError),
    Bad(trees.mdl_decode, "no end symbol", lambda: trees.mdl_decode([0, 2, 3], 2), "code"),
    Bad(
        trees.mdl_decode, "a symbol beyond d + 2", lambda: trees.mdl_decode([0, 7, 3, 4], 2), "code"
    ),
    Bad(trees.mdl_decode, "a negative symbol", lambda: trees.mdl_decode([-1, 3, 4], 2), "code"),
    Bad(
        trees.mdl_decode,
        "end before the tree is complete",
        lambda: trees.mdl_decode([0, 2, 4], 2),
        "code",
    ),
    Bad(trees.mdl_decode, "nodes after the tree", lambda: trees.mdl_decode([2, 3, 4], 2), "code"),
    Bad(
        trees.mdl_decode,
        "float symbols",
        lambda: trees.mdl_decode(np.array([2.0, 4.0]), 2),
        "code",
        TypeError,
    ),
    Bad(trees.mdl_decode, "a 2-D code", lambda: trees.mdl_decode(np.array([[2, 4]]), 2), "code"),
    Bad(trees.mdl_decode, "one symbol", lambda: trees.mdl_decode([4], 2), "code"),
    Bad(
        trees.mdl_decode,
        "max_depth below the tree's depth",
        lambda: trees.mdl_decode([0, 2, 3, 4], 2, 0),
        "max_depth",
    ),
    Bad(trees.mdl_decode, "max_depth -1", lambda: trees.mdl_decode([2, 4], 2, -1), "max_depth"),
    Bad(
        trees.mdl_decode,
        "traced code without max_depth",
        lambda: jax.jit(lambda c: trees.mdl_decode(c, 2).feature)(np.array([2, 4])),
        "max_depth",
    ),
    Same(
        trees.mdl_decode,
        "a list, int64 and under jit",
        lambda: trees.mdl_decode([0, 2, 3, 4, 4], 2),
        lambda: jax.jit(lambda c: trees.mdl_decode(c, 2, 1))(np.array([0, 2, 3, 4, 4], np.int64)),
        rtol=0,
        atol=0,
    ),
]
