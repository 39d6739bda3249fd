"""k-nearest neighbours (UML 19.1, 19.3; SPEC 16.1-16.2): agreement with scikit-learn's brute force for
k in {1, 3, 7}, chunking invariance, exact ranking despite float32 cancellation, the vote's tie rule,
regression, equal distances (lower training index first), bad input."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from jaxlearn.neighbors import _top_k_indices, knn, knn_regressor, neighbors

KEY = jax.random.PRNGKey(0)


@functools.lru_cache(maxsize=None)
def _tie_free(m=2100, n=300, d=3, seed=0):
    """Continuous points (distinct distances), three classes; m >= 2048 exercises the two-stage top-k."""
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


@pytest.mark.parametrize("m", [2048, 2500, 9000])
@pytest.mark.parametrize("k", [1, 9, 13])
def test_two_stage_top_k_is_top_k_ties_included(m, k):
    # normal scores rounded to a coarse grid: blocks of unequal maxima share the scores near the k-th
    # place; top_k's rule (lower index first among equal scores) must come out of the two stages too
    score = jnp.round(3 * jax.random.normal(jax.random.PRNGKey(m + k), (64, m)))
    np.testing.assert_array_equal(_top_k_indices(score, k), jax.lax.top_k(score, k)[1])


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
    with pytest.raises(
        ValueError, match=r"`k` <= the number of training examples m = 10, got k = 11"
    ):
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
    with pytest.raises(
        ValueError, match=r"expected `y` with labels in 0..2 \(num_classes=3\), found \{5\}"
    ):
        knn(1, num_classes=3).fit(KEY, X, np.where(np.arange(10) == 0, 5, y))
    with pytest.raises(ValueError, match="`k` <= the number of training examples"):
        knn_regressor(20).fit(KEY, X, X[:, 0])


def _mirrored_pairs(num_queries, seed, near_point=False, distractors=0):
    """Queries with a pair of training points mirrored about each, ``q + v`` and ``q - v``, at random
    training indices (which of the two gets the lower index is random).

    Every coordinate is a half-integer of size up to ~2e4, so ``||q - x||^2`` (computed directly) is
    exact in float32 and the two distances are *equal*, while the expanded form
    ``||q||^2 - 2<q, x> + ||x||^2`` rounds them apart in either direction at random: only the
    (distance, index) rule fixes their order. Queries sit on a grid over [-2e4, 2e4]^3 (at least
    5,000 apart), so no other query's points come near. With ``near_point`` each query also has one
    training point strictly nearer (at ``q + u``, ``|u|^2 < |v|^2``); ``distractors`` adds far points.
    Returns ``X, Q, lower, higher, near`` (``lower``/``higher``: the pair's training indices)."""
    rng = np.random.default_rng(seed)
    side = int(np.ceil(num_queries ** (1 / 3)))
    grid = np.stack(np.meshgrid(*[np.arange(side)] * 3, indexing="ij"), -1).reshape(-1, 3)[
        :num_queries
    ]
    Q = (grid - side / 2) * (40_000 // side) + rng.integers(-100, 100, (num_queries, 3)) + 0.5
    v = rng.integers(-6, 7, (num_queries, 3)) * 1.0
    v[np.all(v == 0, axis=1)] = [3.0, 0.0, 0.0]
    points = [Q + v, Q - v]  # integers: q is a half-integer, v an integer
    if near_point:
        u = np.zeros_like(v)
        u[:, 0] = 0.5  # |u|^2 = 1/4 < |v|^2 >= 1
        points.append(Q + u)
    X = np.concatenate(points + [rng.integers(-20_000, 20_000, (distractors, 3)) + 0.25])
    perm = rng.permutation(len(X))  # position of each point in the training set
    X_train = np.empty_like(X)
    X_train[perm] = X
    plus, minus = perm[:num_queries], perm[num_queries : 2 * num_queries]
    near = perm[2 * num_queries : 3 * num_queries] if near_point else None
    # the sample really has exact ties, in float32
    Xf, Qf = X_train.astype(np.float32), Q.astype(np.float32)
    d_plus = ((Xf[plus] - Qf) ** 2).sum(1)
    np.testing.assert_array_equal(d_plus, ((Xf[minus] - Qf) ** 2).sum(1))
    return Xf, Qf, np.minimum(plus, minus), np.maximum(plus, minus), near


@pytest.mark.parametrize(
    "num_queries, distractors", [(150, 0), (400, 1300)]
)  # m = 2100: two-stage top-k
def test_equal_distances_lower_training_index_first(num_queries, distractors):
    # UML 19.1 sorts the training points by distance to x; the library's tie rule (documented in
    # `knn` and `neighbors`): equal distances -> lower training index first. Sorting by distance
    # alone passes on tie-free data but puts a mirrored pair in the wrong order on many queries.
    X, Q, lower, higher, _ = _mirrored_pairs(num_queries, seed=num_queries, distractors=distractors)
    m = len(X)
    y = np.zeros(m, int)
    y[lower], y[higher] = (
        1,
        0,
    )  # the lower index carries label 1: the prediction shows who came first
    target = np.zeros(m, np.float32)
    target[lower], target[higher] = 10.0, -10.0
    params = knn(1).fit(KEY, X, y)
    idx, dist = neighbors(params, Q, 2, query_chunk=64)
    np.testing.assert_array_equal(idx, np.stack([lower, higher], 1))
    np.testing.assert_array_equal(dist[:, 0], dist[:, 1])
    np.testing.assert_array_equal(neighbors(params, Q, 1)[0][:, 0], lower)
    np.testing.assert_array_equal(knn(1).predict(params, Q), np.ones(num_queries))
    reg = knn_regressor(1)
    np.testing.assert_array_equal(
        reg.predict(reg.fit(KEY, X, target), Q), np.full(num_queries, 10.0)
    )


def test_equal_distances_at_the_kth_place_keep_the_lower_index():
    # One point strictly nearest, then the mirrored pair tied for 2nd place: k = 2 takes exactly one
    # of the pair, the one of lower index.
    X, Q, lower, higher, near = _mirrored_pairs(300, seed=7, near_point=True, distractors=300)
    m, n = len(X), len(Q)
    y = np.zeros(m, int)
    y[near], y[lower], y[higher] = 2, 1, 0  # a 1-1 vote goes to the smaller label: the included one
    target = np.zeros(m, np.float32)
    target[near], target[lower], target[higher] = 4.0, 2.0, -2.0
    params = knn(2, num_classes=3).fit(KEY, X, y)
    np.testing.assert_array_equal(neighbors(params, Q, 2)[0], np.stack([near, lower], 1))
    np.testing.assert_array_equal(neighbors(params, Q, 3)[0], np.stack([near, lower, higher], 1))
    np.testing.assert_array_equal(knn(2, num_classes=3).predict(params, Q), np.ones(n))
    shares = knn(2, num_classes=3).decision_function(params, Q)
    np.testing.assert_array_equal(shares, np.tile([0.0, 0.5, 0.5], (n, 1)))
    reg = knn_regressor(2)
    np.testing.assert_array_equal(reg.predict(reg.fit(KEY, X, target), Q), np.full(n, 3.0))


@pytest.mark.parametrize(
    "metric, theirs",
    [("manhattan", dict(p=1)), ("chebyshev", dict(p=np.inf)), ("cosine", dict(metric="cosine"))],
)
@pytest.mark.parametrize("k", [1, 5])
def test_other_metrics_equal_scikit_learn(k, metric, theirs):
    """``metric="manhattan"``, ``"chebyshev"``, ``"cosine"``: the neighbours (distances, and on
    tie-free data the indices) and the votes and means of scikit-learn's, uniform and
    distance-weighted; a query chunk cut to 2^22 differences gives the same answer."""
    X, y, Q, _ = _tie_free(m=2100, n=120, d=4)
    params = knn(k, metric=metric).fit(KEY, X, y)
    index, dist = neighbors(params, Q, k, metric=metric)
    sk = KNeighborsClassifier(k, algorithm="brute", **theirs).fit(X, y)
    their_dist, their_index = sk.kneighbors(Q)
    np.testing.assert_array_equal(index, their_index)
    np.testing.assert_allclose(dist, their_dist, rtol=1e-6, atol=1e-6)  # float32 against float64
    cut = neighbors(params, Q, k, metric=metric, query_chunk=1024)  # 1024 x 2100 x 4 > 2^22
    np.testing.assert_array_equal(cut[0], index)
    for weights in ("uniform", "distance"):
        rule = knn(k, weights=weights, metric=metric)
        sk = KNeighborsClassifier(k, weights=weights, algorithm="brute", **theirs).fit(X, y)
        np.testing.assert_array_equal(rule.predict(params, Q), sk.predict(Q))
        reg = knn_regressor(k, weights=weights, metric=metric)
        sk_reg = KNeighborsRegressor(k, weights=weights, algorithm="brute", **theirs)
        fitted = reg.fit(KEY, X, y * 1.0)
        # inverse cosine distances near 0 carry float32's absolute error of 1 - cos: 1e-4 relative
        np.testing.assert_allclose(
            reg.predict(fitted, Q), sk_reg.fit(X, y * 1.0).predict(Q), rtol=2e-4
        )
    with pytest.raises(ValueError, match="`metric`"):
        knn(3, metric="braycurtis")
