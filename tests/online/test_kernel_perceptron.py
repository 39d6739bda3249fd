"""The kernel Perceptron: equal to the Perceptron in feature space; Novikoff there; the budget."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, kernels, online, theory
from jaxlearn.online._kernel_perceptron import decision_function


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_same_mistakes_as_perceptron_on_explicit_feature_map(degree, x64):
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(degree), 300, 3, 0.1)
    X_test = jax.random.normal(jax.random.PRNGKey(99), (50, 3))
    kp = online.kernel_perceptron(kernels.polynomial(degree), budget=300)
    k_state, k_trace = core.run(kp, kp.init(X[0]), X, y)

    features = jax.vmap(lambda x: kernels.polynomial_features(x, degree))
    Phi = features(X)
    p = online.perceptron()
    p_state, p_trace = core.run(p, p.init(Phi[0]), Phi, y)

    np.testing.assert_array_equal(k_trace.mistake, p_trace.mistake)
    np.testing.assert_array_equal(k_trace.prediction, p_trace.prediction)
    assert int(k_trace.mistake.sum()) > 10
    # w = sum_i alpha_i psi(x_i), and the scores on new points agree
    w = features(k_state.support).T @ k_state.alpha
    np.testing.assert_allclose(w, p_state.w, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(
        decision_function(k_state, kernels.polynomial(degree), X_test),
        features(X_test) @ p_state.w,
        rtol=1e-9,
        atol=1e-9,
    )


def test_novikoff_in_feature_space(x64):
    # A circle is a halfspace in the degree-2 feature space: ||x||^2 - r^2 = <w*, psi(x)>.
    key = jax.random.PRNGKey(0)
    X = jax.random.uniform(key, (3000, 2), minval=-1.0, maxval=1.0)
    r2 = 0.5
    keep = jnp.abs(jnp.sum(X**2, axis=1) - r2) > 0.1
    X = X[keep]
    y = jnp.where(jnp.sum(X**2, axis=1) > r2, 1.0, -1.0)
    psi = jax.vmap(lambda x: kernels.polynomial_features(x, 2))(X)
    w_star = jnp.zeros(psi.shape[1]).at[0].set(-r2).at[4].set(1.0).at[8].set(1.0)
    np.testing.assert_allclose(psi @ w_star, jnp.sum(X**2, axis=1) - r2, atol=1e-12)
    gamma = theory.halfspace_margin(w_star, psi, y)
    R = jnp.sqrt(jnp.max(jax.vmap(kernels.polynomial(2))(X, X)))
    learner = online.kernel_perceptron(kernels.polynomial(2), budget=512)
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    assert not bool(trace.budget_full.any())
    assert 0 < int(trace.mistake.sum()) <= theory.perceptron_mistake_bound(R, gamma)


def test_budget_full_is_reported_and_state_kept():
    X, y, _ = datasets.noisy_halfspace(jax.random.PRNGKey(3), 200, 4, 0.3)
    learner = online.kernel_perceptron(kernels.gaussian(0.5), budget=5)
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    assert int(state.count) == 5
    first_full = int(jnp.argmax(trace.budget_full))
    assert bool(trace.budget_full.any()) and first_full >= 5
    # budget_full marks exactly the mistakes made once five were stored
    earlier_mistakes = jnp.cumsum(trace.mistake) - trace.mistake.astype(jnp.int32)
    np.testing.assert_array_equal(trace.budget_full, trace.mistake & (earlier_mistakes >= 5))
    # the stored support vectors are the first five mistakes, untouched afterwards
    first_five = jnp.nonzero(trace.mistake, size=5)[0]
    np.testing.assert_array_equal(state.support, X[first_five])
    np.testing.assert_array_equal(state.alpha, y[first_five])
    assert bool(jnp.all(jnp.isfinite(core.predict_batch(learner, state, X))))


def test_bad_budget():
    with pytest.raises(ValueError, match=r"expected `budget` an integer in \[1, inf\)"):
        online.kernel_perceptron(kernels.linear(), budget=0)
