"""Distance-weighted k-NN (UML section 19.1; SPEC 16.1): ``weights="distance"`` equals scikit-learn's
``KNeighborsClassifier`` / ``KNeighborsRegressor(weights="distance")`` on real data sets (breast cancer,
diabetes; held-out rows and training rows, where scikit-learn's rule for a query on training points
applies), ``"as_printed"`` is UML's formula to the letter, and the weighted rules keep their answer under
jit, vmap and a row-split sample."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from jaxlearn import parallel
from jaxlearn.neighbors import knn, knn_regressor

KEY = jax.random.PRNGKey(0)


@functools.lru_cache(maxsize=None)
def _split(loader, train):
    """Standardised features, rows shuffled; queries: the held-out rows and the first 15 training rows."""
    X, y = loader(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    order = np.random.default_rng(0).permutation(len(X))
    X, y = X[order], y[order]
    return X[:train], y[:train], np.concatenate([X[train:], X[:15]])


@pytest.mark.parametrize("k", [1, 5, 25])
def test_distance_weighted_vote_equals_scikit_learn_on_breast_cancer(k, x64):
    X, y, Q = _split(load_breast_cancer, train=300)
    rule = knn(k, weights="distance")
    ours = np.asarray(rule.predict(rule.fit(KEY, X, y), Q))
    ref = KNeighborsClassifier(k, weights="distance", algorithm="brute").fit(X, y)
    np.testing.assert_array_equal(ours, ref.predict(Q))
    np.testing.assert_array_equal(ours[-15:], y[:15])  # a query on a training point takes its label
    if k == 25:  # the weights change answers: the uniform vote differs on two queries
        uniform = np.asarray(knn(k).predict(knn(k).fit(KEY, X, y), Q))
        reference = KNeighborsClassifier(k, algorithm="brute").fit(X, y).predict(Q)
        np.testing.assert_array_equal(uniform, reference)
        assert (uniform != ours).sum() == 2


@pytest.mark.parametrize("k", [1, 4, 10])
def test_distance_weighted_regression_equals_scikit_learn_on_diabetes(k, x64):
    X, y, Q = _split(load_diabetes, train=300)
    rule = knn_regressor(k, weights="distance")
    ours = np.asarray(rule.predict(rule.fit(KEY, X, y), Q))
    ref = KNeighborsRegressor(k, weights="distance", algorithm="brute").fit(X, y).predict(Q)
    np.testing.assert_allclose(ours[:-15], ref[:-15], rtol=1e-9)
    # on training points scikit-learn's expanded-form distances leave about 1e-8 instead of 0
    np.testing.assert_allclose(ours[-15:], ref[-15:], rtol=1e-6)
    np.testing.assert_array_equal(ours[-15:], y[:15])  # exactly the training target
    # float32 agrees to float32 precision
    with jax.enable_x64(False):
        X32, Q32, y32 = (a.astype(np.float32) for a in (X, Q, y))
        np.testing.assert_allclose(rule.predict(rule.fit(KEY, X32, y32), Q32), ref, rtol=2e-5)


def test_queries_on_training_points_and_the_formula_as_printed():
    """SPEC 16.1: a query at distance 0 of some of its k neighbours weighs those only (scikit-learn's rule);
    UML's printed weights rho_i / sum_j rho_j grow with distance, equal when all k neighbours coincide."""
    X = jnp.array([[0.0], [0.0], [0.1], [3.0]])
    labels, targets = jnp.array([2, 1, 0, 0]), jnp.array([1.0, 2.0, 10.0, 4.0])
    at = jnp.array([[0.0], [1.0]])

    def vote(weights, k=3):
        rule = knn(k, weights=weights, num_classes=3)
        return rule.predict(rule.fit(KEY, X, labels), at).tolist()

    def mean(weights, k=3, points=X):
        rule = knn_regressor(k, weights=weights)
        return np.asarray(rule.predict(rule.fit(KEY, points, targets), at))

    assert vote("uniform") == [0, 0]  # one vote each at 0: the smallest label
    assert vote("distance") == [1, 0]  # at 0: labels 2 and 1 weigh 1 each, label 0 nothing
    np.testing.assert_allclose(
        mean("distance"), [1.5, (1 + 2 + 10 / 0.9) / (2 + 1 / 0.9)], rtol=1e-6
    )
    np.testing.assert_allclose(mean("uniform"), [13 / 3, 13 / 3], rtol=1e-6)
    # as printed: from 1.0 the neighbours 0.1, 0, 0 at distances 0.9, 1, 1 weigh 0.9/2.9, 1/2.9, 1/2.9
    np.testing.assert_allclose(mean("as_printed")[1], (0.9 * 10 + 1 + 2) / 2.9, rtol=1e-6)
    np.testing.assert_allclose(
        mean("as_printed", k=2)[0], 1.5, rtol=1e-6
    )  # both at distance 0: equal
    np.testing.assert_allclose(
        mean("as_printed", k=3)[0], 10.0, rtol=1e-6
    )  # only the one at 0.1 counts
    # at 0 the one neighbour off the query (label 0) takes all the weight; at 1 the farther two (labels 2, 1)
    # outweigh the nearer one (label 0) and tie: the smaller label
    assert vote("as_printed") == [0, 1]


def test_weighted_rules_under_jit_vmap_and_a_row_split_sample(weights="distance"):
    rng = np.random.default_rng(0)
    X, Q = rng.normal(size=(64, 2)).astype(np.float32), rng.normal(size=(9, 2)).astype(np.float32)
    y, t = rng.integers(0, 3, 64), rng.normal(size=64).astype(np.float32)
    mesh = parallel.mesh(devices=jax.devices()[:1])  # the shard_map path, on one device
    rule, reg = knn(5, weights=weights, num_classes=3), knn_regressor(5, weights=weights)
    want = rule.predict(rule.fit(KEY, X, y), Q), reg.predict(reg.fit(KEY, X, t), Q)
    split = (
        rule.predict(rule.fit(KEY, *parallel.shard_rows((X, y), mesh)), Q),
        reg.predict(reg.fit(KEY, *parallel.shard_rows((X, t), mesh)), Q),
    )
    jitted = jax.jit(lambda X, y: reg.predict(reg.fit(KEY, X, y), Q))(X, t)
    stacked = jax.vmap(lambda y: rule.predict(rule.fit(KEY, X, y), Q))(jnp.stack([y, (y + 1) % 3]))
    for got, ref in [*zip(split, want), (jitted, want[1]), (stacked[0], want[0])]:
        np.testing.assert_array_equal(got, ref)
