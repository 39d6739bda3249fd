"""Kernels: exact feature maps, the book's Gaussian parameterisation, PSD Gram matrices."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import kernels


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_polynomial_kernel_is_the_inner_product_of_its_feature_map(degree, x64):
    X = jax.random.normal(jax.random.PRNGKey(degree), (10, 3))
    psi = jax.vmap(lambda x: kernels.polynomial_features(x, degree))(X)
    assert psi.shape == (10, 4**degree)  # (n + 1)^k coordinates
    np.testing.assert_allclose(
        psi @ psi.T, kernels.gram(kernels.polynomial(degree), X), rtol=1e-12, atol=1e-12
    )


def test_gaussian_kernel_uses_two_sigma(x64):
    x, z = jnp.array([1.0, 2.0]), jnp.array([0.0, 0.0])
    assert float(kernels.gaussian(0.5)(x, z)) == pytest.approx(np.exp(-5.0 / 1.0))
    assert float(kernels.gaussian(2.0)(x, x)) == 1.0


def test_gaussian_truncated_feature_map_1d(x64):
    # UML Example 16.2, sigma = 1: psi(x)_n = exp(-x^2/2) x^n / sqrt(n!), 60 terms.
    from math import factorial

    def psi(x):
        return jnp.array([np.exp(-(x**2) / 2) * x**n / np.sqrt(float(factorial(n))) for n in range(60)])

    for x, z in [(0.5, -1.0), (3.0, 2.5), (-3.0, 3.0)]:
        np.testing.assert_allclose(
            psi(x) @ psi(z), kernels.gaussian(1.0)(jnp.array([x]), jnp.array([z])), atol=1e-12
        )


@pytest.mark.parametrize(
    "kernel",
    [kernels.linear(), kernels.polynomial(2), kernels.gaussian(0.3)],
    ids=["linear", "poly", "gauss"],
)
def test_gram_matrices_are_symmetric_psd(kernel, x64):
    X = jax.random.normal(jax.random.PRNGKey(0), (30, 4))
    G = kernels.gram(kernel, X)
    np.testing.assert_allclose(G, G.T, atol=1e-12)
    assert float(jnp.linalg.eigvalsh(G).min()) >= -1e-8 * float(jnp.abs(G).max())


def test_gram_against_other_points_and_vmap_over_sigma():
    X, Z = jnp.ones((5, 3)), jnp.zeros((2, 3))
    assert kernels.gram(kernels.linear(), X, Z).shape == (5, 2)
    sigmas = jnp.array([0.5, 1.0, 2.0])
    Gs = jax.vmap(lambda s: kernels.gram(kernels.gaussian(s), X, Z))(sigmas)
    np.testing.assert_allclose(Gs[:, 0, 0], jnp.exp(-3.0 / (2 * sigmas)), rtol=1e-6)


def test_bad_inputs():
    with pytest.raises(
        ValueError, match=r"`X` of shape \(n, d\) and `Z` of shape \(m, d\), got \(5, 3\) and \(2, 4\)"
    ):
        kernels.gram(kernels.linear(), jnp.ones((5, 3)), jnp.ones((2, 4)))
    with pytest.raises(ValueError, match="`degree` a positive int"):
        kernels.polynomial(0)
    with pytest.raises(ValueError, match=r"`x` of shape \(n,\)"):
        kernels.polynomial_features(jnp.ones((2, 2)), 2)


def test_float32_sigma_on_float64_points(x64):
    x = jnp.array([1.0, 2.0])
    value = kernels.gaussian(jnp.float32(0.5))(x, jnp.zeros(2))
    assert value.dtype == jnp.float64 and float(value) == pytest.approx(np.exp(-5.0))
