"""Losses and their sub-gradient conventions (SPEC section 6)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaxlearn import losses

vectors = st.lists(st.floats(-3, 3), min_size=3, max_size=3).map(lambda v: jnp.array(v))


def test_zero_one_counts_a_zero_score_as_an_error():
    w, x = jnp.array([1.0, -1.0]), jnp.array([1.0, 1.0])
    assert float(losses.zero_one(w, x, 1.0)) == 1.0
    assert float(losses.zero_one(w, x, -1.0)) == 1.0
    assert float(losses.zero_one(w, jnp.array([2.0, 1.0]), 1.0)) == 0.0


def test_hinge_values_and_strict_subgradient():
    x = jnp.array([1.0, 2.0])
    # margin exactly 1 (the kink): the gradient is 0, COMP0078's strict 1[y <w,x> < 1]
    w_kink = jnp.array([1.0, 0.0])
    assert float(losses.hinge(w_kink, x, 1.0)) == 0.0
    np.testing.assert_array_equal(jax.grad(losses.hinge)(w_kink, x, 1.0), [0.0, 0.0])
    # margin below 1: -y x
    w = jnp.array([0.1, 0.1])
    assert float(losses.hinge(w, x, -1.0)) == pytest.approx(1.3)
    np.testing.assert_allclose(jax.grad(losses.hinge)(w, x, -1.0), x)


@settings(max_examples=60, deadline=None)
@given(w=vectors, u=vectors, x=vectors, y=st.sampled_from([-1.0, 1.0]))
def test_hinge_subgradient_inequality(w, u, x, y):
    # l(u) - l(w) >= <u - w, g> for the returned g (SS10 Example 5), including kinks
    g = jax.grad(losses.hinge)(w, x, y)
    assert float(losses.hinge(u, x, y) - losses.hinge(w, x, y)) >= float(jnp.vdot(u - w, g)) - 1e-4


def test_hinge_subgradient_inequality_at_the_kink(x64):
    key = jax.random.PRNGKey(0)
    x = jax.random.normal(key, (4,))
    w = x / jnp.vdot(x, x)  # y <w, x> = 1 exactly for y = 1
    g = jax.grad(losses.hinge)(w, x, 1.0)
    for u in jax.random.normal(jax.random.PRNGKey(1), (100, 4)):
        assert (
            float(losses.hinge(u, x, 1.0) - losses.hinge(w, x, 1.0))
            >= float(jnp.vdot(u - w, g)) - 1e-12
        )


def test_logistic_gradient_formula_and_stability(x64):
    w, x = jnp.array([0.3, -0.2, 0.5]), jnp.array([1.0, 2.0, -1.0])
    for y in (-1.0, 1.0):
        margin = y * jnp.vdot(w, x)
        np.testing.assert_allclose(losses.logistic(w, x, y), np.log1p(np.exp(-margin)), rtol=1e-12)
        np.testing.assert_allclose(
            jax.grad(losses.logistic)(w, x, y), -y * x / (1 + jnp.exp(margin)), rtol=1e-12
        )
    big = jnp.array([1e4, 0.0, 0.0])
    assert float(losses.logistic(big, x, -1.0)) == pytest.approx(1e4)
    assert float(losses.logistic(big, x, 1.0)) == 0.0
    assert bool(jnp.all(jnp.isfinite(jax.grad(losses.logistic)(big, x, -1.0))))


def test_squared_and_absolute(x64):
    w, x = jnp.array([1.0, 2.0]), jnp.array([0.5, 0.25])
    assert float(losses.squared(w, x, 3.0)) == pytest.approx(4.0)
    np.testing.assert_allclose(jax.grad(losses.squared)(w, x, 3.0), 2 * (1.0 - 3.0) * x)
    assert float(losses.absolute(w, x, 3.0)) == pytest.approx(2.0)
    np.testing.assert_allclose(jax.grad(losses.absolute)(w, x, 3.0), -x)


def test_losses_are_convex_along_random_lines(x64):
    key = jax.random.PRNGKey(2)
    for loss in (losses.hinge, losses.logistic, losses.squared, losses.absolute):
        for k in jax.random.split(key, 20):
            w, u, x = jax.random.normal(k, (3, 4))
            a = 0.3
            lhs = loss(a * w + (1 - a) * u, x, 1.0)
            assert float(lhs) <= float(a * loss(w, x, 1.0) + (1 - a) * loss(u, x, 1.0)) + 1e-12


# Generalized hinge loss (UML section 17.2.4; SPEC 11.4, 11.6)


def _multivector(k):
    from jaxlearn.multiclass import multivector

    return lambda x, y: multivector(x, y, k)


def test_generalized_hinge_bounds_the_cost_of_the_prediction():
    k, n = 4, 3
    rng = np.random.default_rng(0)
    W = rng.standard_normal((200, k * n)).astype(np.float32)
    X = rng.standard_normal((200, n)).astype(np.float32)
    y = rng.integers(0, k, 200).astype(np.int32)
    delta = (rng.uniform(0.5, 2.0, (k, k)) * (1 - np.eye(k))).astype(np.float32)
    psi = _multivector(k)
    loss = jax.jit(jax.vmap(lambda w, x, y: losses.generalized_hinge(w, psi, x, y, delta)))(W, X, y)
    predicted = np.argmax(np.einsum("mkn,mn->mk", W.reshape(-1, k, n), X), axis=1)
    cost = delta[predicted, y]
    assert np.all(np.asarray(loss) >= cost - 1e-6)
    assert np.mean(np.asarray(loss) > cost + 1e-3) > 0.5  # a bound, not an identity
    # equality where every margin <w, Psi(x,y) - Psi(x,y')> >= Delta(y', y) holds: the loss is 0
    w = (
        np.concatenate([3.0 * np.eye(n), np.zeros((1, n))]).reshape(-1).astype(np.float32)
    )  # w_y = 3 e_y
    x = np.array([1.0, 0.0, 0.0], np.float32)
    assert float(losses.generalized_hinge(w, psi, x, 0, delta)) == 0.0


def test_generalized_hinge_is_the_hinge_for_two_classes():
    # k = 2 with labels {0, 1} read as {-1, +1}: Psi(x, y) = y x / 2, zero-one cost
    def psi(x, label):
        return (2 * label - 1).astype(x.dtype) * x / 2

    rng = np.random.default_rng(1)
    W, X = rng.standard_normal((2, 300, 5)).astype(np.float32)
    y01 = rng.integers(0, 2, 300).astype(np.int32)
    two_class = lambda w, x, y: losses.generalized_hinge(w, psi, x, y, num_classes=2)
    got = jax.jit(jax.vmap(two_class))(W, X, y01)
    want = jax.vmap(losses.hinge)(W, X, (2 * y01 - 1).astype(np.float32))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    assert np.mean(np.asarray(want) > 0) > 0.3 and np.mean(np.asarray(want) == 0) > 0.1
    grads = jax.jit(jax.vmap(jax.grad(two_class)))(W, X, y01)
    np.testing.assert_allclose(
        grads,
        jax.vmap(jax.grad(losses.hinge))(W, X, (2 * y01 - 1).astype(np.float32)),
        rtol=1e-6,
        atol=1e-6,
    )


def test_generalized_hinge_subgradient_inequality(x64):
    k, n = 3, 4
    psi = _multivector(k)
    rng = np.random.default_rng(2)
    delta = rng.uniform(0, 1, (k, k)) * (1 - np.eye(k))
    loss = lambda w, x, y: losses.generalized_hinge(w, psi, x, y, delta)

    @jax.jit
    def gaps(w, x, y, U):  # l(u) - l(w) - <u - w, g> for 50 points u
        g = jax.grad(loss)(w, x, y)
        return jax.vmap(loss, (0, None, None))(U, x, y) - loss(w, x, y) - (U - w) @ g

    W, X = rng.standard_normal((20, k * n)), rng.standard_normal((20, n))
    y = np.arange(20, dtype=np.int32) % k
    U = rng.standard_normal((20, 50, k * n))
    got = jax.vmap(gaps)(W, X, y, U)
    assert float(jnp.min(got)) >= -1e-12
    # at a tie with the y' = y term (the kink) the zero sub-gradient is kept
    w_kink = np.zeros(k * n)
    w_kink[:n] = X[0] / (X[0] @ X[0])  # <w_0, x> = 1 = Delta(1, 0) + <w_1, x>
    g = jax.grad(losses.generalized_hinge)(w_kink, psi, X[0], 0, 1 - np.eye(k))
    np.testing.assert_array_equal(g, 0.0)


def test_exercise_17_1_clusters_have_zero_generalized_hinge(x64):
    from tests.multiclass.data import clusters

    k = 4
    X, y, mu = clusters(k=k)
    # append the constant 1; w_i = [mu_i, -||mu_i||^2 / 2]
    X1 = np.c_[X, np.ones(len(X))]
    w = np.c_[mu, -0.5 * (mu**2).sum(axis=1)].reshape(-1)
    psi = _multivector(k)
    loss = jax.jit(jax.vmap(lambda x, y: losses.generalized_hinge(w, psi, x, y, num_classes=k)))(
        X1, y
    )
    np.testing.assert_array_equal(loss, 0.0)
    # the claim is tight enough to fail: with centres 2r apart some example has a positive loss
    X2, y2, mu2 = clusters(k=k, spacing=1.5)
    w2 = np.c_[mu2, -0.5 * (mu2**2).sum(axis=1)].reshape(-1)
    X2 = np.c_[X2, np.ones(len(X2))]
    loss2 = jax.vmap(lambda x, y: losses.generalized_hinge(w2, psi, x, y, num_classes=k))(X2, y2)
    assert float(jnp.max(loss2)) > 0


def test_cost_matrix_checks():
    np.testing.assert_array_equal(losses.zero_one_cost(3), 1 - np.eye(3))
    losses.check_cost_matrix(losses.zero_one_cost(3), 3)
    with pytest.raises(ValueError, match=r"expected `delta` of shape \(3, 3\)"):
        losses.check_cost_matrix(jnp.ones((3, 2)), 3)
    with pytest.raises(ValueError, match="zero diagonal"):
        losses.check_cost_matrix(jnp.ones((3, 3)), 3)
    with pytest.raises(ValueError, match=">= 0"):
        losses.check_cost_matrix(-losses.zero_one_cost(3), 3)
    with pytest.raises(ValueError, match="num_classes"):
        losses.generalized_hinge(jnp.zeros(4), _multivector(2), jnp.zeros(2), 0)
