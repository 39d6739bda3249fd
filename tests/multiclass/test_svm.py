"""Multiclass SVM by SGD (UML section 17.2.5; SPEC 11.5)."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import linear, losses
from jaxlearn._regularized import regularized_sgd, sample_indices
from jaxlearn.multiclass import loss_augmented_argmax, multiclass_svm, multivector
from jaxlearn.multiclass._svm import hinge_subgradient
from tests.multiclass.data import blobs, digits_split

KEY = jax.random.PRNGKey(0)


def _transcription(X, y, lam, steps, delta, key):
    """UML 15.5's theta/w loop with the generalized hinge's sub-gradient, in NumPy, step by step."""
    k = delta.shape[0]
    theta, total = np.zeros((k, X.shape[1])), np.zeros((k, X.shape[1]))
    for t, i in enumerate(np.asarray(sample_indices(key, steps, X.shape[0])), start=1):
        W = theta / (lam * t)
        total += W
        scores = W @ X[i]
        terms = delta[:, y[i]] + scores - scores[y[i]]
        terms[y[i]] = -np.inf
        y_hat = int(np.argmax(terms))
        if terms[y_hat] > 0:  # v = Psi(x, y_hat) - Psi(x, y)
            theta[y[i]] += X[i]
            theta[y_hat] -= X[i]
    return total / steps


def _weighted_transcription(X, y, lam, steps, weight, key):
    """:func:`_transcription` with sample weights, in NumPy: the draws over the examples of positive
    weight, each sub-gradient times its example's weight, the first floor(T m+ / m) steps run."""
    rows = np.flatnonzero(weight > 0)
    draws = np.asarray(sample_indices(key, steps, rows.size))  # the same bits as a traced m+
    count = max(steps * rows.size // weight.size, 1)
    k = int(y.max()) + 1
    theta, total = np.zeros((k, X.shape[1])), np.zeros((k, X.shape[1]))
    for t, i in enumerate(rows[draws[:count]], start=1):
        W = theta / (lam * t)
        total += W
        scores = W @ X[i]
        terms = (np.arange(k) != y[i]) + scores - scores[y[i]]
        terms[y[i]] = -np.inf
        y_hat = int(np.argmax(terms))
        if terms[y_hat] > 0:
            theta[y[i]] += weight[i] * X[i]
            theta[y_hat] -= weight[i] * X[i]
    return total / count


def test_sample_weights_equal_the_book_loop_with_weights(x64):
    X, y = blobs(jax.random.PRNGKey(1), 40, jnp.float64, k=3)
    weight = np.array(jax.random.uniform(jax.random.PRNGKey(2), (40,), jnp.float64, 0.2, 3.0))
    weight[[0, 7, 8, 31]] = 0.0  # never drawn
    params = multiclass_svm(0.1, 100, 3).fit(KEY, X, y, sample_weight=weight)  # 90 of the steps
    want = _weighted_transcription(np.asarray(X), np.asarray(y), 0.1, 100, weight, KEY)
    np.testing.assert_allclose(np.asarray(params.w).reshape(3, -1), want, rtol=1e-12, atol=1e-12)


def test_the_first_count_steps_are_the_run_of_those_steps():
    X, y = blobs(jax.random.PRNGKey(1), 40, jnp.float32, k=3)
    subgradient, zeros = hinge_subgradient(X, y, 1 - jnp.eye(3), multivector, 3, True)
    idx = sample_indices(KEY, 300, 40)
    run = jax.jit(lambda count: regularized_sgd(subgradient, idx, 0.1, zeros, count=count))
    for count in (1, 123, 300):
        want = regularized_sgd(subgradient, idx[:count], 0.1, zeros)
        np.testing.assert_array_equal(run(count), want)
    assert run._cache_size() == 1
    with pytest.raises(ValueError, match="`count` None with `sparse=True` or `progress=True`"):
        regularized_sgd(subgradient, idx, 0.1, zeros, count=5, progress=True)


def test_a_constant_weight_c_is_lambda_over_c(x64):
    # theta grows c times faster: w^(t) = theta / (lam t) is the fit of lam / c, step for step
    X, y = blobs(jax.random.PRNGKey(1), 40, jnp.float64, k=3)
    weighted = multiclass_svm(0.1, 300, 3).fit(KEY, X, y, sample_weight=jnp.full(40, 2.5))
    plain = multiclass_svm(0.1 / 2.5, 300, 3).fit(KEY, X, y)
    np.testing.assert_allclose(weighted.w, plain.w, rtol=1e-10, atol=1e-12)


def test_equals_the_book_loop_with_a_cost_matrix(x64):
    X, y = blobs(jax.random.PRNGKey(1), 30, jnp.float64, k=4)
    delta = np.array([[0, 1, 2, 3], [1, 0, 1, 2], [2, 1, 0, 1], [3, 2, 1, 0]], np.float64)
    params = multiclass_svm(0.1, 200, 4, delta=delta).fit(KEY, X, y)
    want = _transcription(np.asarray(X), np.asarray(y), 0.1, 200, delta, KEY)
    np.testing.assert_allclose(params.w.reshape(4, -1), want, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(params.b, 0.0)
    assert np.abs(want).max() > 0.1


def test_any_feature_map_equals_the_multivector_fast_path(x64):
    X, y = blobs(jax.random.PRNGKey(2), 30, jnp.float64)
    fast = multiclass_svm(0.05, 150, 3)
    generic = multiclass_svm(0.05, 150, 3, feature_map=lambda x, y, k: multivector(x, y, k))
    a, b = fast.fit(KEY, X, y), generic.fit(KEY, X, y)
    np.testing.assert_allclose(b.w, a.w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        generic.decision_function(b, X), fast.decision_function(a, X), rtol=1e-12
    )


def test_two_classes_is_soft_svm_with_half_lambda(x64):
    """k = 2, zero-one cost: w_1 - w_0 follows UML 15.5's soft-SVM with lam / 2 on labels +1 (class 1)
    and -1 (class 0), draw for draw (the multivector sub-gradient moves w_1 - w_0 by 2 y x)."""
    X, y = blobs(jax.random.PRNGKey(3), 40, jnp.float64, k=2, spread=2.0)
    lam, steps = 0.2, 300
    W = multiclass_svm(lam, steps, 2).fit(KEY, X, y).w.reshape(2, -1)
    binary = linear.soft_svm(lam / 2, steps).fit(KEY, X, jnp.where(y == 1, 1.0, -1.0))
    np.testing.assert_allclose(W[1] - W[0], binary.w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(W[0], -W[1], rtol=1e-12, atol=1e-14)


def test_loss_augmented_argmax():
    costs = jnp.array([1.0, 0.0, 1.0])  # Delta(., y = 1)
    # margins satisfied: y_hat = y (no update)
    assert int(loss_augmented_argmax(jnp.array([0.0, 2.0, 0.5]), costs, 1)) == 1
    # a tie with y's own zero term keeps y (the strict test of the binary hinge)
    assert int(loss_augmented_argmax(jnp.array([1.0, 2.0, 0.0]), costs, 1)) == 1
    # violated: the largest Delta + score difference, ties to the minimal index
    assert int(loss_augmented_argmax(jnp.array([1.5, 2.0, 1.5]), costs, 1)) == 0
    assert int(loss_augmented_argmax(jnp.array([1.0, 2.0, 1.5]), costs, 1)) == 2
    # the cost is inside the argmax: a cheap wrong label loses to an expensive one
    assert (
        int(loss_augmented_argmax(jnp.array([1.9, 2.0, 1.5]), jnp.array([0.2, 0.0, 3.0]), 1)) == 2
    )


def test_generalized_hinge_of_the_output_falls_with_steps():
    X, y = blobs(jax.random.PRNGKey(4), 80, jnp.float32, spread=1.5)
    psi = lambda x, label: multivector(x, label, 3)
    lam = 0.05

    @jax.jit
    def objective(w):
        hinge = jax.vmap(lambda x, y: losses.generalized_hinge(w, psi, x, y, num_classes=3))(X, y)
        return lam / 2 * jnp.vdot(w, w) + jnp.mean(hinge)

    values = [float(objective(multiclass_svm(lam, T, 3).fit(KEY, X, y).w)) for T in (10, 3000)]
    assert values[1] < 0.8 * values[0], values


def test_digits_accuracy_within_2_points_of_crammer_singer():
    from sklearn.svm import LinearSVC

    X_train, X_test, y_train, y_test = digits_split()
    svm = multiclass_svm(0.01, 20_000, 10, fit_intercept=True)
    params = svm.fit(KEY, X_train, y_train)
    accuracy = float(np.mean(np.asarray(svm.predict(params, X_test)) == y_test))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = LinearSVC(multi_class="crammer_singer").fit(X_train, y_train)
    want = float(np.mean(reference.predict(X_test) == y_test))
    assert accuracy >= want - 0.02, (accuracy, want)


def test_bad_input():
    X, y = blobs(KEY, 20, jnp.float32)
    with pytest.raises(
        ValueError, match=r"`y` with labels in 0..2 \(num_classes=3\), found \{3, 7\}"
    ):
        multiclass_svm(0.1, 10, 3).fit(KEY, X, y.at[0].set(3).at[1].set(7))
    with pytest.raises(ValueError, match=r"expected `delta` of shape \(3, 3\)"):
        multiclass_svm(0.1, 10, 3, delta=jnp.ones((2, 2)) - jnp.eye(2))
    with pytest.raises(ValueError, match="`delta` with a zero diagonal"):
        multiclass_svm(0.1, 10, 3, delta=jnp.ones((3, 3)))
    with pytest.raises(ValueError, match=r"`delta` a number in \[0, inf\)"):
        multiclass_svm(0.1, 10, 3, delta=jnp.eye(3) - 1)
    with pytest.raises(ValueError, match=r"`lam` a number in \(0, inf\)"):
        multiclass_svm(0.0, 10, 3)
    with pytest.raises(ValueError, match=r"`steps` an integer in \[1, inf\)"):
        multiclass_svm(0.1, 0, 3)
    svm = multiclass_svm(0.1, 10, 3)
    with pytest.raises(ValueError, match=r"`sample_weight` >= 0, found -1"):
        svm.fit(KEY, X, y, sample_weight=jnp.ones(20).at[3].set(-1.0))
    with pytest.raises(ValueError, match="`sample_weight` with a positive sum, got all zeros"):
        svm.fit(KEY, X, y, sample_weight=jnp.zeros(20))
    with pytest.raises(ValueError, match="got 19 weights for 20 examples"):
        svm.fit(KEY, X, y, sample_weight=jnp.ones(19))
    with pytest.raises(ValueError, match="fit_intercept"):
        multiclass_svm(
            0.1, 10, 3, fit_intercept=True, feature_map=lambda x, y, k: multivector(x, y, k)
        )
