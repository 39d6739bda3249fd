"""k-nearest neighbours (UML 19.1, 19.3; SPEC 16.1-16.2): agreement with scikit-learn's brute force for
k in {1, 3, 7}, chunking invariance, exact ranking despite float32 cancellation, the vote's tie rule,
regression, bad input."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from jaxlearn.neighbors import knn, knn_regressor, neighbors

KEY = jax.random.PRNGKey(0)


@functools.lru_cache(maxsize=None)
def _tie_free(m=1500, n=300, d=3, seed=0):
    """Continuous points (distinct distances), three classes; m > 8 * 128 exercises the two-stage top-k."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m + n, d)).astype(np.float32)
    y = (np.floor(2 * X[:, 0] + X[:, 1] ** 2) + (rng.random(m + n) < 0.2)).astype(int) % 3
    return X[:m], y[:m], X[m:], y[m:]


@pytest.mark.parametrize("k", [1, 3, 7])
def test_equals_scikit_learn_brute_force(k):
    X, y, X_test, _ = _tie_free()
    rule = knn(k, query_chunk=128)
    params = rule.fit(KEY, X, y)
    ref = KNeighborsClassifier(k, algorithm="brute").fit(X, y)
    np.testing.assert_array_equal(rule.predict(params, X_test), ref.predict(X_test))
    idx, dist = neighbors(params, X_test, k, query_chunk=128)
    ref_dist, ref_idx = ref.kneighbors(X_test)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(np.sqrt(np.asarray(dist)), ref_dist, rtol=1e-4, atol=1e-5)


def test_regressor_equals_scikit_learn():
    X, _, X_test, _ = _tie_free()
    target = np.sin(3 * X[:, 0]) + X[:, 1]
    rule = knn_regressor(5, query_chunk=128)
    ours = rule.predict(rule.fit(KEY, X, target), X_test)
    ref = KNeighborsRegressor(5, algorithm="brute").fit(X, target).predict(X_test)
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6)


def test_query_chunking_does_not_change_results():
    X, y, X_test, _ = _tie_free()
    params = knn(3).fit(KEY, X, y)
    want = knn(3, query_chunk=128).predict(params, X_test[:100])
    for chunk in (1, 7, 100, 1000):
        np.testing.assert_array_equal(knn(3, query_chunk=chunk).predict(params, X_test[:100]), want)


def test_exact_ranking_despite_float32_cancellation():
    # far from the origin ||q||^2 - 2<q, x> + ||x||^2 loses every digit of the small distances in
    # float32; the shortlist is re-ranked by directly computed ||q - x||^2
    rng = np.random.default_rng(3)
    X = (1000.0 + rng.random((400, 2))).astype(np.float32)
    Q = (1000.0 + rng.random((50, 2))).astype(np.float32)
    d2 = ((Q[:, None, :].astype(np.float64) - X[None].astype(np.float64)) ** 2).sum(-1)
    idx, _ = neighbors(knn(1).fit(KEY, X, np.zeros(400, int)), Q, 3)
    np.testing.assert_array_equal(idx, np.argsort(d2, axis=1, kind="stable")[:, :3])


def test_vote_ties_go_to_the_smallest_label():
    X = jnp.array([[0.0], [1.0], [-2.0], [3.0]])
    rule = knn(2)
    # neighbours of 0.4: x=0 (label 2) and x=1 (label 1): one vote each, the smaller label wins
    params = rule.fit(KEY, X, jnp.array([2, 1, 0, 0]))
    assert rule.predict(params, jnp.array([[0.4]])).tolist() == [1]
    # equal distances: the lower training index comes first
    idx, _ = neighbors(params, jnp.array([[0.5]]), 1)
    assert idx.tolist() == [[0]]


def test_bad_input():
    X, y, X_test, _ = _tie_free(m=10, n=5)
    with pytest.raises(ValueError, match=r"`k` <= the number of training examples m = 10, got k = 11"):
        knn(11).fit(KEY, X, y)
    with pytest.raises(ValueError, match=r"`k` an integer in \[1, inf\)"):
        knn(0)
    with pytest.raises(ValueError, match="`X` to be finite"):
        knn(1).fit(KEY, np.where(np.arange(10)[:, None] == 2, np.nan, X), y)
    params = knn(3).fit(KEY, X, y)
    with pytest.raises(ValueError, match="expected `X` with 3 features"):
        knn(3).predict(params, X_test[:, :2])
    with pytest.raises(ValueError, match="`X` to be finite"):
        knn(3).predict(params, X_test * np.nan)
    with pytest.raises(ValueError, match=r"expected `y` with labels in 0..2 \(num_classes=3\), found \{5\}"):
        knn(1, num_classes=3).fit(KEY, X, np.where(np.arange(10) == 0, 5, y))
    with pytest.raises(ValueError, match="`k` <= the number of training examples"):
        knn_regressor(20).fit(KEY, X, X[:, 0])
