"""Batch Perceptron (SS10 Algorithm 1, Theorem 3) and the augmented Perceptron (Algorithm 3, Lemma 2)."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import datasets, theory
from jaxlearn.linear._perceptron import augmented_perceptron, batch_perceptron

KEY = jax.random.PRNGKey(0)


@pytest.mark.parametrize("margin", [0.05, 0.1, 0.3])
def test_theorem_3_updates_and_zero_training_error(margin):
    X, y, w_star = datasets.separable(jax.random.PRNGKey(int(100 * margin)), 400, 8, margin)
    params = jax.jit(batch_perceptron().fit)(KEY, X, y)
    assert bool(params.converged)
    assert bool(jnp.all(y * (X @ params.w) > 0))  # zero training error
    gamma_S = theory.margin(X, y)  # gamma(S) exactly, through hard-SVM
    assert float(gamma_S) >= float(theory.halfspace_margin(w_star, X, y)) - 1e-6
    assert 0 < int(params.num_updates) <= theory.perceptron_mistake_bound(theory.radius(X), gamma_S)


def test_non_separable_input_is_reported():
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(1), 300, 4, 0.2)
    params = batch_perceptron(max_epochs=5).fit(KEY, X, y)
    assert not bool(params.converged) and int(params.num_epochs) == 5


def test_fit_under_jit_vmap_and_dtypes(dtype):
    X, y, _ = datasets.separable(jax.random.PRNGKey(2), 300, 5, 0.1, dtype=dtype)
    learner = batch_perceptron()
    eager, jitted = learner.fit(KEY, X, y), jax.jit(learner.fit)(KEY, X, y)
    chex.assert_trees_all_close(eager, jitted)
    assert eager.w.dtype == dtype
    np.testing.assert_array_equal(learner.predict(eager, X), y)


def _augmented_explicitly(a, X, y, max_epochs=10_000):
    """Algorithm 3 with the augmented vectors built: x~_i = [a x_i ; sqrt(1 - a^2) e_i]."""
    m = X.shape[0]
    Xa = jnp.concatenate([a * X, jnp.sqrt(1 - a**2) * jnp.eye(m, dtype=X.dtype)], axis=1)
    params = batch_perceptron(max_epochs, block_size=1).fit(KEY, Xa, y)
    return params.w[: X.shape[1]], params.w[X.shape[1] :], params


@pytest.mark.parametrize("a", [0.3, 0.7, 0.95])
def test_augmented_equals_the_explicit_augmentation(a, x64):
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(3), 120, 4, 0.15)
    params = augmented_perceptron(a).fit(KEY, X, y)
    w, xi, explicit = _augmented_explicitly(a, X, y)
    np.testing.assert_allclose(params.w, w, atol=1e-12)
    np.testing.assert_allclose(params.xi, xi, atol=1e-12)
    assert int(params.num_updates) == int(explicit.num_updates)


@pytest.mark.parametrize("a", [0.3, 0.7])
def test_lemma_2(a, x64):
    X, y, w_true = datasets.noisy_halfspace(jax.random.PRNGKey(4), 200, 5, 0.1)
    m = X.shape[0]
    params = augmented_perceptron(a).fit(KEY, X, y)
    assert bool(params.converged)
    b = np.sqrt(1 - a**2)
    Xa = jnp.concatenate([a * X, b * jnp.eye(m)], axis=1)
    directions = jnp.concatenate([w_true[None], jax.random.normal(jax.random.PRNGKey(5), (30, 5))])
    for w_star in directions / jnp.linalg.norm(directions, axis=1, keepdims=True):
        for gamma in (0.05, 0.1, 0.3):
            ell = jnp.maximum(0, gamma - y * (X @ w_star))
            L = jnp.sum(ell**2)
            gamma_prime = a * gamma / jnp.sqrt(1 + a**2 / (1 - a**2) * L)
            witness = jnp.concatenate([w_star, a / b * y * ell]) / jnp.sqrt(1 + a**2 / b**2 * L)
            assert float(jnp.linalg.norm(witness)) == pytest.approx(1.0)  # (i) a unit vector ...
            assert (
                float(jnp.min(y * (Xa @ witness))) >= float(gamma_prime) - 1e-12
            )  # ... with margin gamma'
            assert int(params.num_updates) <= 1 / float(gamma_prime) ** 2  # (ii)
    assert int(jnp.sum(params.xi != 0)) <= int(params.num_updates)  # (iii)
    untouched = params.xi == 0
    assert bool(jnp.all(jnp.where(untouched, y * (X @ params.w) > 0, True)))  # (iv)


def test_augmented_vmaps_over_a():
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(6), 80, 3, 0.1)
    As = jnp.array([0.2, 0.5, 0.8])
    swept = jax.vmap(lambda a: augmented_perceptron(a).fit(KEY, X, y))(As)
    for i, a in enumerate(As):
        chex.assert_trees_all_close(
            jax.tree_util.tree_map(lambda leaf, i=i: leaf[i], swept),
            augmented_perceptron(a).fit(KEY, X, y),
        )


def test_bad_inputs():
    X, y, _ = datasets.separable(jax.random.PRNGKey(7), 50, 3, 0.1)
    with pytest.raises(ValueError, match=r"`y` in \{-1, 1\}"):
        batch_perceptron().fit(KEY, X, (y + 1) / 2)
    with pytest.raises(ValueError, match="`X` to be finite"):
        batch_perceptron().fit(KEY, X.at[0, 0].set(jnp.nan), y)
    with pytest.raises(ValueError, match=r"`a` a number in \(0, 1\)"):
        augmented_perceptron(1.0)
    with pytest.raises(ValueError, match=r"`max_epochs` an integer in \[1, inf\)"):
        batch_perceptron(0)
