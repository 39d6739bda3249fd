"""The batch kernel Perceptron on the Gram matrix (SS10 L5 Algorithm 4 and its exercise; UML Exercise
16.2; SPEC 4.8): the batch Perceptron on the explicit feature map, its update bound in feature space,
and non-convergence reported."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import kernels, linear, theory


def _ring(seed, m=40, d=2):
    """Points of the plane labelled +1 inside the circle of radius 1: separable by a quadratic."""
    X = np.random.default_rng(seed).uniform(-1.5, 1.5, size=(m, d))
    return X, np.where((X**2).sum(axis=1) < 1.0, 1.0, -1.0)


def _features(X, degree):
    return jax.vmap(lambda x: kernels.polynomial_features(x, degree))(jnp.asarray(X))


def _normalized(degree):
    """K(x, z) / sqrt(K(x, x) K(z, z)) for the polynomial kernel: features of unit norm."""
    k = kernels.polynomial(degree)
    return lambda x, z: k(x, z) / jnp.sqrt(k(x, x) * k(z, z))


@pytest.mark.parametrize("degree", [2, 3])
def test_gram_perceptron_is_the_batch_perceptron_on_the_feature_map(x64, degree):
    """SS10 L5 Algorithm 4 exercise / UML Exercise 16.2: with the same (cyclic) pick order the Gram-matrix
    run makes the batch Perceptron's updates on psi(x_i): sum_i alpha_i psi(x_i) equals its w after one
    pass and at the end (1e-10, float64), with the same counts and the same predictions on new points."""
    X, y = _ring(degree)
    X_test, _ = _ring(100 + degree, m=200)
    Phi, Phi_test = _features(X, degree), _features(X_test, degree)
    kernel = kernels.polynomial(degree)
    final = linear.kernel_batch_perceptron(kernel).fit(None, X, y)
    assert bool(final.converged) and int(final.num_epochs) >= 3  # several passes to compare
    for epochs in (1, int(final.num_epochs)):
        learner = linear.kernel_batch_perceptron(kernel, max_epochs=epochs)
        params = learner.fit(None, X, y)
        reference = linear.batch_perceptron(max_epochs=epochs).fit(None, Phi, y)
        np.testing.assert_allclose(params.alpha @ Phi, reference.w, rtol=1e-10, atol=1e-10)
        assert int(params.num_updates) == int(reference.num_updates)
        assert int(params.num_epochs) == int(reference.num_epochs) == epochs
        assert bool(params.converged) == bool(reference.converged)
        scores = learner.decision_function(params, X_test)
        np.testing.assert_allclose(scores, Phi_test @ reference.w, rtol=1e-10, atol=1e-9)
        np.testing.assert_array_equal(
            learner.predict(params, X_test), linear.batch_perceptron().predict(reference, Phi_test)
        )
    np.testing.assert_array_equal(learner.predict(final, X), y)  # zero training error at exit


def test_updates_reach_one_over_gamma_squared_on_orthogonal_features(x64):
    """SS10 Theorem 3 in feature space, tight: x_i = sqrt(n) e_i - 1/sqrt(n) (1, ..., 1) have
    <x_i, x_j> = -1, so the degree-2 kernel's features are orthogonal; normalised, gamma(S) = 1/sqrt(n)
    (hard_svm on the explicit features) and the Gram Perceptron makes exactly 1/gamma^2 = n updates,
    for any labels. n = 16: sqrt(n) and 1/sqrt(n) are exact in binary, so every Gram entry off the
    diagonal is exactly 0 and every first score exactly 0 (a mistake), however a backend sums."""
    n = 16
    X = np.sqrt(n) * np.eye(n) - 1 / np.sqrt(n)
    y = np.where(np.random.default_rng(0).random(n) < 0.5, 1.0, -1.0)
    Phi = _features(X, 2)
    Phi = Phi / jnp.linalg.norm(Phi, axis=1, keepdims=True)
    np.testing.assert_allclose(Phi @ Phi.T, np.eye(n), atol=1e-12)
    gamma = float(linear.sample_margin(Phi, y))
    np.testing.assert_allclose(gamma, 1 / np.sqrt(n), rtol=1e-6)
    bound = float(theory.perceptron_mistake_bound(1.0, gamma))
    params = linear.kernel_batch_perceptron(_normalized(2)).fit(None, X, y)
    assert bool(params.converged)
    assert int(params.num_updates) == n and abs(bound - n) < 1e-4  # the bound, attained


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_updates_within_one_over_gamma_squared_with_a_normalised_kernel(x64, seed):
    """SS10 Theorem 3 on psi(x)/|psi(x)| (SPEC 4.8 pitfall: the SS10 form needs K(x, x) = 1): updates
    <= 1/gamma^2 with gamma the feature-space margin from hard_svm on the explicit normalised features,
    then zero training error."""
    X, y = _ring(10 + seed, m=30)
    Phi = _features(X, 2)
    Phi = Phi / jnp.linalg.norm(Phi, axis=1, keepdims=True)
    gamma = float(linear.sample_margin(Phi, y))
    learner = linear.kernel_batch_perceptron(_normalized(2))
    params = learner.fit(None, X, y)
    assert bool(params.converged)
    assert 0 < int(params.num_updates) <= float(theory.perceptron_mistake_bound(1.0, gamma))
    np.testing.assert_array_equal(learner.predict(params, X), y)


def test_non_convergence_is_reported_not_silent():
    """XOR is not separable by the linear kernel: after max_epochs passes converged is False, every
    pass made updates and alpha is finite; the degree-2 kernel separates it (converged, SS10 L5)."""
    X = jnp.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]] * 3)
    y = X[:, 0] * X[:, 1]
    params = linear.kernel_batch_perceptron(kernels.linear(), max_epochs=7).fit(None, X, y)
    assert not bool(params.converged) and int(params.num_epochs) == 7
    assert int(params.num_updates) >= 7 and np.isfinite(np.asarray(params.alpha)).all()
    learner = linear.kernel_batch_perceptron(kernels.polynomial(2), max_epochs=7)
    separated = learner.fit(None, X, y)
    assert bool(separated.converged) and int(separated.num_epochs) < 7
    np.testing.assert_array_equal(learner.predict(separated, X), y)
