"""Kernels: exact feature maps, the book's Gaussian parameterisation, PSD Gram matrices."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import kernels
from tests.harness import count_compilations


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
        return jnp.array(
            [np.exp(-(x**2) / 2) * x**n / np.sqrt(float(factorial(n))) for n in range(60)]
        )

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
        ValueError,
        match=r"`X` of shape \(n, d\) and `Z` of shape \(m, d\), got \(5, 3\) and \(2, 4\)",
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


# --------------------------------------------------------------------------------------------
# Substring, min kernel, is_psd, check_kernel, gram in batches, expansion (SPEC 10.5-10.7)
# --------------------------------------------------------------------------------------------


def _substrings(s):
    return {s[i:j] for i in range(len(s)) for j in range(i + 1, len(s) + 1)}


def _random_strings(seed, n, length, alphabet="abc"):
    rng = np.random.default_rng(seed)
    return ["".join(rng.choice(list(alphabet), size=rng.integers(0, length + 1))) for _ in range(n)]


@pytest.mark.parametrize("include_empty", [False, True])
def test_substring_kernel_is_the_inner_product_of_explicit_indicator_vectors(include_empty):
    strings = (
        _random_strings(0, 30, 9, "ab") + _random_strings(1, 30, 9, "abc") + ["", "aaaa", "abab"]
    )
    # psi_v(x) = 1[v is a substring of x], over the union of all substrings (plus "" if counted)
    vocabulary = sorted(
        set().union(*map(_substrings, strings)) | ({""} if include_empty else set())
    )
    psi = np.array([[float(v in s) for v in vocabulary] for s in strings])
    G = kernels.gram(
        kernels.substring(include_empty=include_empty), kernels.encode_strings(strings, 9)
    )
    np.testing.assert_array_equal(G, psi @ psi.T)


def test_substring_kernel_hand_values_and_padding():
    k = jax.jit(kernels.substring())
    pairs = {
        ("abab", "bab"): 5,
        ("aaa", "aa"): 2,
        ("abc", "abc"): 6,
        ("", "abc"): 0,
        ("abc", "xyz"): 0,
    }
    for (a, b), count in pairs.items():
        x, z = kernels.encode_strings([a, b], length=7)
        assert float(k(x, z)) == count and float(k(z, x)) == count
    # the pad width does not matter, and another pad value works the same
    x, z = kernels.encode_strings(["abab", "bab"], length=12, pad=-5)
    assert float(kernels.substring(pad=-5)(x, z)) == 5
    assert kernels.encode_strings(["ab", "c"]).tolist() == [[97, 98], [99, -1]]


def test_substring_kernel_gram_psd_under_jit():
    X = kernels.encode_strings(_random_strings(2, 40, 8), 8)
    G = jax.jit(lambda X: kernels.gram(kernels.substring(), X))(X)
    assert G.dtype == jnp.float32 and bool(kernels.is_psd(G))


def test_substring_bad_inputs():
    with pytest.raises(ValueError, match="strings of length <= 2, got one of length 3"):
        kernels.encode_strings(["abc"], length=2)
    with pytest.raises(ValueError, match="negative `pad`"):
        kernels.substring(pad=0)
    with pytest.raises(ValueError, match=r"strings `x` and `z` of shape \(L,\)"):
        kernels.substring()(jnp.zeros((2, 2), jnp.int32), jnp.zeros((2, 2), jnp.int32))


def test_min_kernel_is_the_inner_product_of_threshold_features(x64):
    N = 12
    values = jnp.arange(1, N + 1)
    psi = (values[:, None] >= jnp.arange(1, N + 1)[None, :]).astype(jnp.float64)  # 1[x >= j]
    G = kernels.gram(kernels.min_kernel(), values[:, None])
    np.testing.assert_array_equal(G, psi @ psi.T)
    # on vectors: the sum of the coordinatewise kernels
    X = jax.random.uniform(jax.random.PRNGKey(0), (20, 4))
    np.testing.assert_allclose(
        kernels.gram(kernels.min_kernel(), X),
        np.minimum(X[:, None, :], X[None, :, :]).sum(-1),
        rtol=1e-14,
    )


def test_min_kernel_psd_on_nonnegative_data_only(x64):
    X = jax.random.uniform(jax.random.PRNGKey(1), (40, 3), maxval=5.0)
    assert bool(kernels.is_psd(kernels.gram(kernels.min_kernel(), X)))
    assert not bool(kernels.is_psd(kernels.gram(kernels.min_kernel(), jnp.array([[-1.0], [-2.0]]))))


@pytest.mark.parametrize(
    "kernel",
    [kernels.polynomial(2), kernels.polynomial(3), kernels.gaussian(0.3), kernels.gaussian(5.0)],
    ids=["poly2", "poly3", "gauss0.3", "gauss5"],
)
def test_is_psd_accepts_kernel_gram_matrices(kernel, dtype):
    X = jax.random.normal(jax.random.PRNGKey(2), (40, 3), dtype)
    assert bool(kernels.is_psd(kernels.gram(kernel, X)))


def test_is_psd_rejects_non_kernels(x64):
    X = jax.random.normal(jax.random.PRNGKey(3), (20, 3))
    neg_sq_dist = kernels.gram(
        lambda x, z: -jnp.vdot(x - z, x - z), X
    )  # SPEC 10.7's negative example
    assert not bool(kernels.is_psd(neg_sq_dist))
    G = kernels.gram(kernels.gaussian(1.0), X)
    nonsymmetric = jnp.array([[2.0, 1.0], [0.0, 2.0]])  # (A + A^T) / 2 is PSD, A is not symmetric
    assert not bool(kernels.is_psd(nonsymmetric)) and bool(
        kernels.is_psd((nonsymmetric + nonsymmetric.T) / 2)
    )
    # min eigenvalue -1e-6 * max eigenvalue: rejected at the default tolerance, accepted at tol=1e-5
    eigenvalues = jnp.linalg.eigvalsh(G)
    shifted = G - (eigenvalues[0] + 1e-6 * eigenvalues[-1]) * jnp.eye(20)
    assert not bool(kernels.is_psd(shifted)) and bool(kernels.is_psd(shifted, tol=1e-5))
    with pytest.raises(ValueError, match=r"`G` of shape \(n, n\), got \(2, 3\)"):
        kernels.is_psd(jnp.ones((2, 3)))


def test_is_psd_under_vmap_over_sigma():
    X = jax.random.normal(jax.random.PRNGKey(4), (25, 2))
    sigmas = jnp.array([0.1, 1.0, 10.0])
    assert bool(
        jax.jit(jax.vmap(lambda s: kernels.is_psd(kernels.gram(kernels.gaussian(s), X))))(
            sigmas
        ).all()
    )


def test_a_kernel_of_the_wrong_shape_is_rejected():
    X = jnp.ones((4, 3))
    with pytest.raises(ValueError, match=r"`kernel` to return a scalar .* got shape \(3,\)"):
        kernels.gram(lambda x, z: x * z, X)
    with pytest.raises(ValueError, match="`kernel` to return a scalar"):
        kernels.expansion(lambda x, z: (x @ z, x @ z), X, jnp.ones(4), X)


@pytest.mark.parametrize("batch_size", [1, 3, 7, 64])
def test_gram_and_expansion_in_batches(batch_size, x64):
    X = jax.random.normal(jax.random.PRNGKey(5), (7, 3))
    Z = jax.random.normal(jax.random.PRNGKey(6), (5, 3))
    k = kernels.gaussian(2.0)
    G = kernels.gram(k, X, Z)
    np.testing.assert_allclose(kernels.gram(k, X, Z, batch_size=batch_size), G, rtol=1e-14)
    alpha = jax.random.normal(jax.random.PRNGKey(7), (5, 2))
    for a in (alpha, alpha[:, 0]):
        want = G @ a
        np.testing.assert_allclose(kernels.expansion(k, Z, a, X), want, rtol=1e-12)
        np.testing.assert_allclose(
            kernels.expansion(k, Z, a, X, batch_size=batch_size), want, rtol=1e-12
        )
    with pytest.raises(ValueError, match="`batch_size` a positive int"):
        kernels.gram(k, X, batch_size=0)


def test_kernels_are_pytrees_whose_leaves_are_their_numeric_parameters():
    structure = jax.tree_util.tree_structure
    assert structure(kernels.gaussian(0.5)) == structure(kernels.gaussian(2.0))
    assert jax.tree_util.tree_leaves(kernels.gaussian(0.5)) == [0.5]
    assert (
        structure(kernels.polynomial(2))
        == structure(kernels.polynomial(2))
        != structure(kernels.polynomial(3))
    )
    assert structure(kernels.substring()) != structure(kernels.substring(include_empty=True))
    X = jnp.ones((4, 2))
    f = jax.jit(lambda kernel, X: kernels.gram(kernel, X))
    f(kernels.gaussian(0.5), X)
    with count_compilations() as compiled:
        f(kernels.gaussian(2.0), X)  # a new sigma is a new argument value, not a new program
    assert compiled[0] == 0
    plain = lambda x, z: jnp.vdot(x, z)
    assert (
        kernels.as_tree(plain)(X[0], X[1]) == 2.0 and kernels.as_tree(kernels.linear()) is not None
    )
    with pytest.raises(ValueError, match="`kernel` a function"):
        kernels.as_tree("rbf")


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_gram_by_matrix_products_equals_the_kernel_pair_by_pair(dtype, x64):
    """gram/expansion evaluate linear, polynomial and Gaussian kernels by matrix products (the
    Gaussian through ||x||^2 + ||z||^2 - 2<x, z>, centred): the values of k(x, z) pair by pair."""
    X = 3.0 + jax.random.normal(
        jax.random.PRNGKey(8), (9, 4), dtype
    )  # off the origin: centring matters
    Z = 3.0 + jax.random.normal(jax.random.PRNGKey(9), (6, 4), dtype)
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == jnp.float64 else dict(rtol=1e-5, atol=1e-6)
    alpha = jnp.linspace(-1.0, 1.0, 6, dtype=dtype)
    for k in (kernels.linear(), kernels.polynomial(3), kernels.gaussian(0.8)):
        pairwise = jax.vmap(jax.vmap(k, (None, 0)), (0, None))(
            X, Z
        )  # the kernel itself, pair by pair
        G = kernels.gram(k, X, Z)
        assert G.dtype == dtype
        np.testing.assert_allclose(G, pairwise, **tol)
        np.testing.assert_allclose(kernels.expansion(k, Z, alpha, X), pairwise @ alpha, **tol)
    G = kernels.gram(kernels.gaussian(0.8), X)
    np.testing.assert_allclose(jnp.diag(G), 1.0, **tol)
    assert float(G.min()) >= 0.0 and float(G.max()) <= 1.0
    ints = jnp.arange(6).reshape(3, 2)  # int examples: promoted like the kernel promotes them
    G = kernels.gram(kernels.gaussian(2.0), ints)
    assert G.dtype == jnp.result_type(float)
    np.testing.assert_allclose(
        G, kernels.gram(kernels.gaussian(2.0), ints.astype(float)), rtol=1e-12
    )
