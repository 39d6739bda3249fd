"""Balcan's margin Perceptron: Theorem 2 (12/gamma^2 updates), the gamma/2 margin at convergence."""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, online, theory


def _normalized_margin(w, X, y):
    return theory.halfspace_margin(w, X, y, normalize=True)


def test_golden_trace_initialisation_and_margin_mistake():
    gamma = 0.2
    X = jnp.array([[2.0, 0.0], [0.05, 1.0], [1.0, 0.0], [0.0, -1.0]])
    y = jnp.array([1.0, 1.0, 1.0, -1.0])
    learner = online.margin_perceptron(gamma)
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    # round 1: w = 0, the initialisation w_1 = y x / ||x|| = (1, 0) counts as an update
    # round 2: s = 0.05 / ||(0.05, 1)|| ~ 0.0499 in (0, gamma/2): a margin mistake, not a mistake
    # round 3: w = (1, 0) + (0.0499, 0.9988); s = w.x/||w|| ~ 0.72 >= gamma/2: no update
    # round 4: s = -0.9988 * -1 / ||w|| ~ 0.69: no update
    np.testing.assert_array_equal(trace.update, [True, True, False, False])
    np.testing.assert_array_equal(trace.margin_mistake, [False, True, False, False])
    np.testing.assert_array_equal(trace.mistake, [True, False, False, False])
    x2 = X[1] / jnp.linalg.norm(X[1])
    chex.assert_trees_all_close(state.w, jnp.array([1.0, 0.0]) + x2, rtol=1e-6)


@pytest.mark.parametrize("margin", [0.05, 0.1, 0.2])
def test_cyclic_batch_version_meets_theorem_2(margin):
    # Cycle through S until a pass makes no update: at most 12/gamma^2 updates in all, and every
    # example then has normalised margin >= gamma/2.
    X, y, w_star = datasets.separable(jax.random.PRNGKey(int(margin * 100)), 500, 6, margin)
    gamma = _normalized_margin(w_star, X, y)
    learner = online.margin_perceptron(gamma)
    state, updates = learner.init(X[0]), 0
    for _ in range(200):
        state, trace = core.run(learner, state, X, y, block_size=128)
        updates += int(trace.update.sum())
        if not bool(trace.update.any()):
            break
    else:
        pytest.fail("the margin Perceptron did not converge in 200 passes")
    assert updates <= theory.margin_perceptron_bound(gamma)
    assert _normalized_margin(state.w, X, y) >= gamma / 2


def test_theorem_2_against_an_adaptive_adversary():
    X, y, w_star = datasets.separable(jax.random.PRNGKey(11), 300, 5, 0.15)
    gamma = _normalized_margin(w_star, X, y)
    learner = online.margin_perceptron(gamma)

    def violation(state, X, y):  # smallest normalised margin under the current weights
        norm = jnp.maximum(jnp.linalg.norm(state.w), 1e-30)
        return -y * (X @ state.w) / (norm * jnp.linalg.norm(X, axis=1))

    from .adversary import adversarial_run

    _, trace = adversarial_run(learner, learner.init(X[0]), X, y, 2000, violation)
    updates = int(trace.update.sum())
    assert 5 <= updates <= theory.margin_perceptron_bound(gamma)
    assert int(trace.margin_mistake.sum()) > 0  # margin mistakes are counted as updates


def test_sweep_of_64_margins_equals_64_runs():
    X, y, _ = datasets.separable(jax.random.PRNGKey(2), 400, 5, 0.05)
    gammas = jnp.linspace(0.01, 0.5, 64)
    s0 = online.margin_perceptron(0.1).init(X[0])
    states, traces = jax.jit(
        jax.vmap(lambda g: core.run(online.margin_perceptron(g), s0, X, y, block_size=50))
    )(gammas)
    one = jax.jit(lambda g: core.run(online.margin_perceptron(g), s0, X, y))
    for i in range(64):
        state, trace = one(gammas[i])
        chex.assert_trees_all_close(states.w[i], state.w, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(traces.update[i], trace.update)
    # larger margins demand more updates
    assert int(traces.update[-1].sum()) > int(traces.update[0].sum())


def test_float32_margin_on_float64_data(x64):
    X, y, _ = datasets.separable(jax.random.PRNGKey(0), 100, 3, 0.2)
    assert X.dtype == jnp.float64
    learner = online.margin_perceptron(jnp.float32(0.2))
    state, trace = core.run(learner, learner.init(X[0]), X, y, block_size=16)
    assert state.w.dtype == jnp.float64 and int(trace.update.sum()) > 0
