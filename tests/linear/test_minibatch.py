"""The mini-batch rule of ``soft_svm`` and ``sgd`` (``batch_size=b``): stratified draws, the algorithm as
written (a NumPy replay in float64), full-batch sub-gradient descent at ``b = m``, and Pegasos's
mini-batches reaching the Soft-SVM optimum of scikit-learn's LinearSVC."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import linear, losses
from jaxlearn._regularized import sample_indices
from jaxlearn._sharding import block_starts, block_weights, stratified_indices
from tests.linear.test_svm import _breast_cancer, _linear_svc, _objective

KEY = jax.random.PRNGKey(4)


def _sample(m=10, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    return X, np.where(
        X @ np.array([1.0, -0.5, 0.25])[:d] + 0.2 * rng.normal(size=m) > 0, 1.0, -1.0
    )


def test_stratified_draws_stay_in_their_blocks_and_cover_them():
    m, b = 10, 4  # blocks [0, 2), [2, 5), [5, 7), [7, 10): unequal
    starts = block_starts(m, b)
    assert starts.tolist() == [0, 2, 5, 7, 10]
    idx = np.asarray(stratified_indices(KEY, (3000,), m, b))
    assert idx.shape == (3000, b) and idx.dtype == np.int32
    for j in range(b):
        assert set(idx[:, j].tolist()) == set(
            range(starts[j], starts[j + 1])
        )  # each row of the block, only
    weights = np.asarray(block_weights(m, b, np.float32))
    np.testing.assert_allclose(
        weights, [0.2, 0.3, 0.2, 0.3]
    )  # |B_j| / m: sum_j c_j E g(i_j) = mean gradient


def _pegasos_replay(idx, X, y, lam, weights):
    """UML 15.5 with the sub-gradient of a weighted mini-batch: theta -= v_t, w_t = theta / (lam t)."""
    theta, total = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for t, rows in enumerate(idx, start=1):
        w = theta / (lam * t)
        active = (y[rows] * (X[rows] @ w) < 1) * y[rows] * weights
        theta = theta + active @ X[rows]
        total += w
    return total / len(idx)


@pytest.mark.parametrize("b", [4, 5])
def test_soft_svm_minibatch_is_the_algorithm_as_written(x64, b):
    X, y = _sample()
    params = linear.soft_svm(0.3, 60, batch_size=b).fit(KEY, X, y)
    idx = np.asarray(stratified_indices(KEY, (60,), 10, b))  # the draws fit makes from this key
    weights = np.asarray(block_weights(10, b, np.float64))
    np.testing.assert_allclose(
        params.w, _pegasos_replay(idx, X, y, 0.3, weights), rtol=1e-12, atol=1e-14
    )


def test_batch_of_the_whole_sample_is_full_batch_subgradient_descent(x64):
    X, y = _sample()
    params = linear.soft_svm(0.3, 40, batch_size=10).fit(KEY, X, y)  # ten blocks of one row each
    every_row = np.tile(np.arange(10), (40, 1))
    np.testing.assert_allclose(
        params.w, _pegasos_replay(every_row, X, y, 0.3, np.full(10, 0.1)), rtol=1e-12
    )


def test_sgd_minibatch_is_the_algorithm_as_written(x64):
    X, y = _sample()
    params = linear.sgd(losses.logistic, steps=50, batch_size=5, eta=0.5).fit(KEY, X, y)
    idx = np.asarray(stratified_indices(KEY, (50,), 10, 5))
    w, total = np.zeros(3), np.zeros(3)
    for t, rows in enumerate(idx, start=1):
        total += w
        margins = y[rows] * (X[rows] @ w)
        gradient = (0.2 * -y[rows] / (1 + np.exp(margins))) @ X[
            rows
        ]  # c_j = 1/5, d/dw log(1 + e^{-y<w,x>})
        w = w - 0.5 / np.sqrt(t) * gradient
    np.testing.assert_allclose(params.w, total / 50, rtol=1e-12)
    np.testing.assert_allclose(params.last, w, rtol=1e-12)


def test_batch_size_one_is_the_single_example_rule():
    X, y = _sample()
    X, y = X.astype(np.float32), y.astype(np.float32)
    one = linear.soft_svm(0.3, 80, batch_size=1).fit(KEY, X, y)
    default = linear.soft_svm(0.3, 80).fit(KEY, X, y)
    np.testing.assert_array_equal(one.w, default.w)
    idx = sample_indices(KEY, 80, 10)
    replay = _pegasos_replay(np.asarray(idx)[:, None], X, y, 0.3, np.ones(1))
    np.testing.assert_allclose(one.w, replay, rtol=1e-5)


def test_minibatch_pegasos_within_one_percent_of_linear_svc():
    """At 20,000 steps a batch of 32 reaches the optimum within 1% (measured 0.25%); one example per step
    does not (measured 2.8%): the mini-batch's smaller variance is visible."""
    X, y = _breast_cancer()
    lam = 0.02
    optimum = _objective(_linear_svc(X, y, lam)[0], X, y, lam)
    gaps = {}
    for b in (1, 32):
        w = linear.soft_svm(lam, 20_000, batch_size=b).fit(KEY, X.astype(np.float32), y).w
        gaps[b] = (_objective(w, X, y, lam) - optimum) / optimum
    assert -1e-5 <= gaps[32] <= 0.01 < gaps[1], gaps


def test_vmap_over_lam_equals_a_loop_with_batches():
    X, y = _sample(m=40)
    X, y = X.astype(np.float32), y.astype(np.float32)
    lams = jnp.array([0.01, 0.3, 2.0], jnp.float32)
    swept = jax.vmap(lambda lam: linear.soft_svm(lam, 50, batch_size=8).fit(KEY, X, y).w)(lams)
    for lam, w in zip(lams.tolist(), swept):
        alone = linear.soft_svm(lam, 50, batch_size=8).fit(KEY, X, y).w
        np.testing.assert_allclose(w, alone, rtol=1e-6, atol=1e-7)
