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
        assert float(losses.hinge(u, x, 1.0) - losses.hinge(w, x, 1.0)) >= float(jnp.vdot(u - w, g)) - 1e-12


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
