"""Soft-SVM with kernels by SGD (SPEC 10.8; UML section 16.3, Lemma 16.3)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import kernels
from jaxlearn._regularized import sample_indices
from jaxlearn.linear._kernel_svm import BLOCK, kernel_svm
from jaxlearn.linear._svm import soft_svm

KEY = jax.random.PRNGKey(0)


def _sample(seed, m=30, d=3, dtype=None):
    X = jax.random.normal(jax.random.PRNGKey(seed), (m, d), dtype)
    y = jnp.where(X[:, 0] * X[:, 1] + 0.3 * X[:, 2] > 0, 1, -1).astype(X.dtype)
    return X, y


def _circle(seed, m):
    X = jax.random.uniform(jax.random.PRNGKey(seed), (m, 2), minval=-1.0, maxval=1.0)
    return X, jnp.where(jnp.sum(X**2, axis=1) < 0.5, 1.0, -1.0)


@pytest.mark.parametrize("variant", ["uml", "ss10"])
@pytest.mark.parametrize("degree", [1, 2])
def test_lemma_16_3_equals_soft_svm_on_the_explicit_feature_map(variant, degree, x64):
    X, y = _sample(1)
    lam, steps = 0.05, 400
    psi = jax.vmap(lambda x: kernels.polynomial_features(x, degree))
    params = kernel_svm(kernels.polynomial(degree), lam, steps, variant=variant).fit(KEY, X, y)
    primal = soft_svm(lam, steps, variant=variant).fit(KEY, psi(X), y)
    w_bar = psi(X).T @ params.alpha  # UML Lemma 16.3: w-bar = sum_j alpha-bar_j psi(x_j)
    scale = float(jnp.abs(primal.w).max())
    np.testing.assert_allclose(w_bar, primal.w, rtol=0, atol=1e-10 * scale)
    X_new, _ = _sample(2, m=50)
    learner = kernel_svm(kernels.polynomial(degree), lam, steps, variant=variant)
    np.testing.assert_allclose(
        learner.decision_function(params, X_new), psi(X_new) @ primal.w, rtol=0, atol=1e-10 * scale
    )
    np.testing.assert_array_equal(
        learner.predict(params, X_new), soft_svm(lam, steps).predict(primal, psi(X_new))
    )
    assert int(jnp.sum(params.alpha != 0)) > 5  # the run is not trivial: many margin violations


def test_the_alpha_beta_loop_of_the_book(x64):
    """A NumPy transcription of UML section 16.3, step by step (alpha averaged explicitly)."""
    X, y = _sample(3, m=20)
    lam, steps = 0.1, 300
    k = kernels.gaussian(0.7)
    G, yn = np.asarray(kernels.gram(k, X)), np.asarray(y)
    beta, alpha_sum = np.zeros(20), np.zeros(20)
    for t, i in enumerate(np.asarray(sample_indices(KEY, steps, 20)), start=1):
        alpha = beta / (lam * t)
        alpha_sum += alpha
        if yn[i] * (G[i] @ alpha) < 1:
            beta[i] += yn[i]
    params = kernel_svm(k, lam, steps).fit(KEY, X, y)
    np.testing.assert_allclose(params.alpha, alpha_sum / steps, rtol=1e-12, atol=1e-15)
    assert params.support is not None and int(params.num_steps) == steps


@pytest.mark.parametrize("options", [dict(batch_size=7), dict(precompute=False, batch_size=4)])
def test_chunked_and_on_the_fly_gram_give_the_same_fit(options, x64):
    X, y = _sample(4, m=25)
    learner = kernel_svm(kernels.gaussian(0.5), 0.1, 400)
    other = kernel_svm(kernels.gaussian(0.5), 0.1, 400, **options)
    a, b = learner.fit(KEY, X, y), other.fit(KEY, X, y)
    np.testing.assert_allclose(b.alpha, a.alpha, rtol=1e-12)
    np.testing.assert_allclose(
        other.decision_function(b, X), learner.decision_function(a, X), rtol=1e-12
    )


@pytest.mark.parametrize("variant", ["uml", "ss10"])
def test_fewer_steps_than_examples_use_the_visited_examples_only(variant, x64):
    """T <= m: the (T, T) kernel matrix of the visited examples; the same fit as a Gram row per step
    and as the book's loop (NumPy transcription of UML section 16.3)."""
    X, y = _sample(8, m=60)
    lam, steps, k = 0.05, 45, kernels.gaussian(0.7)
    params = kernel_svm(k, lam, steps, variant=variant).fit(KEY, X, y)
    rows = kernel_svm(k, lam, steps, variant=variant, precompute=False).fit(KEY, X, y)
    np.testing.assert_allclose(params.alpha, rows.alpha, rtol=1e-12, atol=1e-15)
    G, yn = np.asarray(kernels.gram(k, X)), np.asarray(y)
    beta, alpha_sum = np.zeros(60), np.zeros(60)
    for t, i in enumerate(np.asarray(sample_indices(KEY, steps, 60)), start=1):
        alpha = beta / (lam * (t if variant == "uml" else max(t - 1, 1)))
        alpha_sum += alpha
        if yn[i] * (G[i] @ alpha) < 1:
            beta[i] += yn[i]
    np.testing.assert_allclose(params.alpha, alpha_sum / steps, rtol=1e-12, atol=1e-15)
    assert 5 < int(jnp.sum(params.alpha != 0)) <= steps  # a non-trivial run, at most T examples


def test_blocks_of_steps_over_the_gram_matrix_equal_one_step_at_a_time(x64):
    """T > m: BLOCK steps per product with the Gram matrix (here 3 blocks and 5 steps) == a row per step
    (variant "ss10" here; "uml" against the book's loop above)."""
    variant = "ss10"
    X, y = _sample(12, m=50)
    steps, k = 3 * BLOCK + 5, kernels.gaussian(0.6)
    blocks = kernel_svm(k, 0.02, steps, variant=variant).fit(KEY, X, y)
    rows = kernel_svm(k, 0.02, steps, variant=variant, precompute=False).fit(KEY, X, y)
    np.testing.assert_allclose(blocks.alpha, rows.alpha, rtol=1e-12, atol=1e-15)
    assert int(jnp.sum(blocks.alpha != 0)) > 10


def test_decision_function_over_the_nonzero_coefficients_equals_the_full_expansion():
    X, y = _sample(9, m=80)
    k = kernels.gaussian(0.5)
    short, long = kernel_svm(k, 0.01, 30), kernel_svm(k, 0.01, 400)
    X_new, _ = _sample(10, m=20)
    for params in (
        short.fit(KEY, X, y),
        long.fit(KEY, X, y),
    ):  # the long fit: more than 30 nonzeros
        want = kernels.gram(k, X_new, X) @ params.alpha
        np.testing.assert_allclose(
            short.decision_function(params, X_new), want, rtol=1e-5, atol=1e-6
        )
        np.testing.assert_allclose(
            long.decision_function(params, X_new), want, rtol=1e-5, atol=1e-6
        )
    assert int(jnp.sum(long.fit(KEY, X, y).alpha != 0)) > 30
    lams = jnp.array([0.01, 0.1], jnp.float32)  # under vmap the choice of expansion is a select
    swept = jax.vmap(
        lambda lam: short.decision_function(kernel_svm(k, lam, 30).fit(KEY, X, y), X_new)
    )(lams)
    for i, lam in enumerate(lams):
        one = kernel_svm(k, lam, 30)
        want = one.decision_function(one.fit(KEY, X, y), X_new)
        np.testing.assert_allclose(swept[i], want, rtol=1e-5, atol=1e-6)


def test_gaussian_kernel_separates_a_circle():
    X, y = _circle(0, 400)
    X_test, y_test = _circle(1, 2000)
    learner = kernel_svm(kernels.gaussian(0.2), 1e-3, 5000)
    params = learner.fit(KEY, X, y)
    assert float(jnp.mean(learner.predict(params, X_test) == y_test)) > 0.95
    assert float(jnp.mean(y_test == 1)) < 0.5  # the majority label alone scores about 0.6


def test_substring_kernel_learns_a_signature():
    """UML section 16.2.1: h_v(x) = 1 iff v is a substring of x, here v = "ab"."""
    rng = np.random.default_rng(0)
    strings = ["".join(rng.choice(list("abc"), size=rng.integers(1, 7))) for _ in range(160)]
    X = kernels.encode_strings(strings, 6)
    y = jnp.array([1.0 if "ab" in s else -1.0 for s in strings])
    learner = kernel_svm(kernels.substring(include_empty=True), 1e-3, 3000)
    params = learner.fit(KEY, X[:100], y[:100])
    assert float(jnp.mean(learner.predict(params, X[100:]) == y[100:])) >= 0.9


# --------------------------------------------------------------------------------------------
# lam is traced (the conformance row in tests/test_conformance.py sweeps sigma)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["uml", "ss10"])
def test_vmap_over_lam_equals_separate_fits(variant):
    X, y = _sample(5, m=40)
    lams = jnp.asarray(np.geomspace(1e-3, 1.0, 4), jnp.float32)
    make = lambda lam: kernel_svm(kernels.gaussian(1.0), lam, 300, variant=variant)
    swept = jax.vmap(lambda lam: make(lam).fit(KEY, X, y))(lams)
    for i, lam in enumerate(lams):
        np.testing.assert_allclose(
            swept.alpha[i], make(lam).fit(KEY, X, y).alpha, rtol=1e-5, atol=1e-6
        )


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


def test_bad_inputs():
    X, y = _sample(11, m=10)
    learner = kernel_svm(kernels.linear(), 0.1, 50)
    for lam in (0.0, -1.0):
        with pytest.raises(ValueError, match=r"`lam` a number in \(0, inf\)"):
            kernel_svm(kernels.linear(), lam, 50)
    with pytest.raises(ValueError, match=r"`steps` an integer in \[1, inf\)"):
        kernel_svm(kernels.linear(), 0.1, 0)
    with pytest.raises(ValueError, match="`kernel` a function k"):
        kernel_svm("rbf", 0.1, 10)
    with pytest.raises(ValueError, match="`variant` in"):
        kernel_svm(kernels.linear(), 0.1, 10, variant="pegasos")
    with pytest.raises(ValueError, match=r"`kernel` to return a scalar .* got shape \(3,\)"):
        kernel_svm(lambda x, z: x * z, 0.1, 10).fit(KEY, X, y)
    with pytest.raises(ValueError, match=r"`kernel` to return a scalar .* got shape \(3,\)"):
        kernel_svm(lambda x, z: x * z, 0.1, 10, precompute=False).fit(KEY, X, y)
    params = learner.fit(KEY, X, y)
    with pytest.raises(ValueError, match=r"`X` of shape \(n, 3\)"):
        learner.predict(params, X[:, :2])
