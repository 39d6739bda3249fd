"""The closest-centroid classifier with kernels (SPEC 10.11; UML Exercise 16.6)."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import kernels
from jaxlearn.linear import kernel_centroid

KEY = jax.random.PRNGKey(0)


def _sample(seed, m=40, d=3, dtype=None):
    key = jax.random.PRNGKey(seed) if isinstance(seed, int) else seed
    X = jax.random.normal(key, (m, d), dtype)
    y = jnp.where(jnp.sum(X**2, axis=1) < 2.5, 1, -1).astype(X.dtype)
    return X, y


def _explicit_centroid_rule(Phi, y, Phi_new):
    """Centroids built in feature space; returns half the difference of squared distances."""
    c_pos, c_neg = Phi[y > 0].mean(axis=0), Phi[y < 0].mean(axis=0)
    d_pos = jnp.sum((Phi_new - c_pos) ** 2, axis=1)
    d_neg = jnp.sum((Phi_new - c_neg) ** 2, axis=1)
    return (d_neg - d_pos) / 2, jnp.where(d_pos <= d_neg, 1.0, -1.0)


@pytest.mark.parametrize("degree", [None, 2, 3], ids=["linear", "poly2", "poly3"])
def test_kernel_rule_equals_centroids_in_the_explicit_feature_space(degree, x64):
    X, y = _sample(1)
    X_new, _ = _sample(2, m=200)
    if degree is None:
        kernel, psi = kernels.linear(), lambda A: A
    else:
        kernel = kernels.polynomial(degree)
        psi = jax.vmap(lambda x: kernels.polynomial_features(x, degree))
    learner = kernel_centroid(kernel)
    params = learner.fit(KEY, X, y)
    half_gap, labels = _explicit_centroid_rule(psi(X), y, psi(X_new))
    scale = float(jnp.abs(half_gap).max())
    np.testing.assert_allclose(
        learner.decision_function(params, X_new), half_gap, atol=1e-10 * scale
    )
    np.testing.assert_array_equal(learner.predict(params, X_new), labels)
    c_pos, c_neg = psi(X)[y > 0].mean(axis=0), psi(X)[y < 0].mean(axis=0)
    np.testing.assert_allclose(
        psi(X).T @ params.alpha, c_pos - c_neg, atol=1e-12 * scale
    )  # w = c+ - c-
    np.testing.assert_allclose(params.b, (c_neg @ c_neg - c_pos @ c_pos) / 2, rtol=1e-12)


def test_hand_example_and_ties():
    # c+ = (1 + 3) / 2 = 2, c- = -1: w = 3, b = (1 - 4) / 2 = -1.5, a tie at the midpoint 0.5
    X, y = jnp.array([[1.0], [3.0], [-1.0]]), jnp.array([1.0, 1.0, -1.0])
    learner = kernel_centroid(kernels.linear())
    params = learner.fit(KEY, X, y)
    np.testing.assert_allclose(params.alpha, [0.5, 0.5, -1.0])
    assert float(params.b) == -1.5
    X_new = jnp.array([[0.4], [0.5], [0.6], [-10.0], [10.0]])
    np.testing.assert_allclose(
        learner.decision_function(params, X_new), [-0.3, 0.0, 0.3, -31.5, 28.5], atol=1e-6
    )
    assert learner.predict(params, X_new).tolist() == [
        -1.0,
        1.0,
        1.0,
        -1.0,
        1.0,
    ]  # the tie is positive


def test_gaussian_centroids_separate_two_clusters():
    centres = jnp.array([[2.0, 0.0], [-2.0, 0.0]])
    X = centres[jnp.arange(100) % 2] + 0.5 * jax.random.normal(KEY, (100, 2))
    y = jnp.where(jnp.arange(100) % 2 == 0, 1.0, -1.0)
    learner = kernel_centroid(kernels.gaussian(1.0), batch_size=32)
    params = learner.fit(KEY, X, y)
    assert float(jnp.mean(learner.predict(params, X) == y)) > 0.95


def test_batch_size_gives_the_same_rule(x64):
    X, y = _sample(3, m=23)
    a = kernel_centroid(kernels.gaussian(0.8))
    b = kernel_centroid(kernels.gaussian(0.8), batch_size=5)
    pa, pb = a.fit(KEY, X, y), b.fit(KEY, X, y)
    chex.assert_trees_all_close(pa, pb, rtol=1e-12)
    np.testing.assert_allclose(
        b.decision_function(pb, X), a.decision_function(pa, X), rtol=1e-12, atol=1e-14
    )


def test_strings_through_the_substring_kernel():
    strings = ["abab", "aab", "bab", "ccc", "cac", "acc"]
    X = kernels.encode_strings(strings)
    y = jnp.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    learner = kernel_centroid(kernels.substring())
    params = learner.fit(KEY, X, y)
    assert params.alpha.dtype == jnp.float32
    assert learner.predict(params, kernels.encode_strings(["abb", "ccca"], 4)).tolist() == [
        1.0,
        -1.0,
    ]


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


def test_bad_inputs():
    X, y = _sample(9, m=10)
    learner = kernel_centroid(kernels.linear())
    with pytest.raises(ValueError, match="both classes"):
        learner.fit(KEY, X, jnp.ones(10))
    with pytest.raises(ValueError, match=r"`kernel` to return a scalar .* got shape \(3,\)"):
        kernel_centroid(lambda x, z: x * z).fit(KEY, X, y)
    with pytest.raises(ValueError, match=r"`batch_size` an integer in \[1, inf\)"):
        kernel_centroid(kernels.linear(), batch_size=0)
    # traced: a single class cannot be reported, but the fit stays finite
    params = jax.jit(learner.fit)(KEY, X, jnp.ones(10))
    assert bool(jnp.all(jnp.isfinite(params.alpha))) and bool(jnp.isfinite(params.b))


def test_an_example_of_label_zero_is_in_neither_centroid(x64):
    """One-vs-one gives the other classes label 0 (inside its program: a traced ``y``, which the
    label check cannot read): the rule is the one fitted without them."""
    X, y = _sample(3)
    X_new, _ = _sample(4, m=50)
    zero = jnp.arange(y.size) % 3 == 0
    learner = kernel_centroid(kernels.gaussian(0.5))
    with_zeros = jax.jit(learner.fit)(KEY, X, jnp.where(zero, 0.0, y))
    without = learner.fit(KEY, X[~zero], y[~zero])
    np.testing.assert_allclose(
        learner.decision_function(with_zeros, X_new),
        learner.decision_function(without, X_new),
        rtol=1e-12,
        atol=1e-12,
    )
