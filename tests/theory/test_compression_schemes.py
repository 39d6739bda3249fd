"""Compression schemes for halfspaces (SS10 L3(c) section 1.2: the min-norm point of conv{y_i x_i})
and the Perceptron's compression set (SS10 L4 Corollaries 2-3)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import datasets, linear, theory


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_min_norm_halfspace_separates_with_margin_its_squared_norm_and_is_rebuilt_from_its_support(
    seed, x64
):
    """SS10 L3(c) section 1.2 (SPEC 18.2): w = argmin over conv{y_i x_i} of ||w|| separates the sample,
    y_i <w, x_i> >= ||w||^2 (projection optimality), is a convex combination of <= d + 1 examples, and
    ||w|| is the margin gamma(S) that hard-SVM computes (the max-margin / min-norm duality). w is also the
    min-norm point of the hull of the kept examples alone: they decompress to the same halfspace."""
    d = 3
    X, y, _ = datasets.separable(
        jax.random.PRNGKey(seed), 80, d, 0.05 * (seed + 1), dtype=jnp.float64
    )
    kept = theory.halfspace_compress(X, y)
    w = kept.w
    assert float(jnp.min(y * (X @ w))) >= float(w @ w) - 1e-12
    assert float(jnp.min(kept.weights)) >= 0 and float(jnp.sum(kept.weights)) == pytest.approx(
        1, abs=1e-12
    )
    np.testing.assert_allclose(kept.weights @ (y[:, None] * X), w, atol=1e-12)
    assert 1 <= int(kept.support.sum()) <= d + 1
    assert float(jnp.linalg.norm(w)) == pytest.approx(float(linear.sample_margin(X, y)), rel=1e-5)
    rebuilt = theory.halfspace_reconstruct(X, y, kept.support)
    np.testing.assert_allclose(rebuilt, w, atol=1e-12)
    assert bool(jnp.all(y * (X @ rebuilt) > 0))


def test_caratheodory_reduction_of_a_degenerate_hull(x64):
    """SPEC 18.2 (Caratheodory): seven points on the line x_1 = 1 have the min-norm point (1, 0) as the
    uniform combination of all of them; the reduction keeps the point with at most d + 1 = 3 of them."""
    X = jnp.stack([jnp.ones(7), jnp.linspace(-1.0, 1.0, 7)], axis=1)
    kept = theory.halfspace_compress(X, jnp.ones(7))
    np.testing.assert_allclose(kept.w, [1.0, 0.0], atol=1e-12)
    assert int(kept.support.sum()) <= 3
    np.testing.assert_allclose(kept.weights @ X, [1.0, 0.0], atol=1e-12)


@pytest.mark.parametrize("margin", [0.05, 0.1, 0.3])
def test_perceptron_compression_set_is_at_most_inverse_margin_squared(margin, x64):
    """SS10 L4 Corollary 2: the batch Perceptron's w is the sum of the updated examples (with their
    update counts), at most 1/gamma(S)^2 distinct ones; rerun on them alone, in their order, it makes the
    same updates and returns the same w."""
    X, y, _ = datasets.separable(
        jax.random.PRNGKey(int(100 * margin)), 300, 6, margin, dtype=jnp.float64
    )
    params = linear.batch_perceptron().fit(jax.random.PRNGKey(0), X, y)
    support = theory.perceptron_compress(X, y)
    np.testing.assert_array_equal(support, params.update_counts > 0)
    assert int(jnp.sum(params.update_counts)) == int(params.num_updates)
    np.testing.assert_allclose((params.update_counts.astype(X.dtype) * y) @ X, params.w, atol=1e-12)
    gamma_S = float(linear.sample_margin(X, y))
    assert 0 < int(support.sum()) <= int(params.num_updates) <= 1 / gamma_S**2
    rebuilt = theory.perceptron_reconstruct(X, y, support)
    np.testing.assert_array_equal(rebuilt, params.w)


def test_perceptron_error_stays_below_corollary_3():
    """SS10 L4 Corollary 3: with margin gamma almost surely (unit ball), m >= 2/gamma^2 examples, the
    Perceptron's error is <= 8 ln(m/delta)/(gamma^2 m) with probability >= 1 - delta (error measured on
    10000 fresh examples of the same distribution; 30 runs)."""
    m, d, gamma, delta, runs, fresh = 2000, 5, 0.5, 0.1, 30, 10_000

    def error(key):
        X, y, _ = datasets.separable(key, m + fresh, d, gamma)
        params = linear.batch_perceptron().fit(key, X[:m], y[:m])
        mistakes = jnp.mean(jnp.where(X[m:] @ params.w > 0, 1.0, -1.0) != y[m:])
        return mistakes, jnp.sum(params.update_counts > 0), params.converged

    errors, sizes, converged = jax.jit(jax.vmap(error))(
        jax.random.split(jax.random.PRNGKey(7), runs)
    )
    assert bool(converged.all()) and int(sizes.max()) <= 1 / gamma**2
    bound = float(theory.perceptron_compression_bound(gamma, m, delta))
    assert bound < 0.2  # not vacuous
    assert np.mean(np.asarray(errors) <= bound) >= 1 - delta
