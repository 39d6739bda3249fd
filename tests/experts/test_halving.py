"""Consistent and Halving: the COMP0078 golden run, log2 n and n - 1 on random and adaptive streams."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, experts, theory


def test_comp0078_halving_run():
    # Day 1: (1,1,0,0,1,1,0,0), a 4-4 tie predicts 1, outcome 0. Day 2: E3=0, E4=E7=E8=1 predict 1,
    # outcome 1. Day 3: E4=1, E7=E8=0 predict 0, outcome 1. (Eliminated experts' advice is irrelevant.)
    X = jnp.array([[1, 1, 0, 0, 1, 1, 0, 0], [0, 0, 0, 1, 0, 0, 1, 1], [0, 0, 0, 1, 0, 0, 0, 0]])
    y = jnp.array([0, 1, 1])
    learner = experts.halving()
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    np.testing.assert_array_equal(trace.prediction, [1, 1, 0])
    np.testing.assert_array_equal(trace.mistake, [True, False, True])
    np.testing.assert_array_equal(state.alive, [0, 0, 0, 1, 0, 0, 0, 0])  # E4 survives
    assert int(trace.mistake.sum()) == 2 <= theory.halving_bound(8)


def _adaptive(learner, H, rounds, key):
    """Each round a random point; the outcome contradicts the prediction whenever some hypothesis of
    the version space allows it (the sequence stays realizable)."""
    points = jax.random.randint(key, (rounds,), 0, H.shape[1])

    def body(state, point):
        advice = H[:, point]
        p = learner.predict(state, advice)
        flip_possible = jnp.any(state.alive & (advice == 1 - p))
        y = jnp.where(flip_possible, 1 - p, p)
        return learner.update(state, advice, y)

    return jax.lax.scan(body, learner.init(H[:, 0]), points)


@pytest.mark.parametrize("k", [1, 3, 6])
def test_halving_log2_bound_against_an_adaptive_adversary(k):
    H = jax.random.bernoulli(jax.random.PRNGKey(k), 0.5, (2**k, 40)).astype(jnp.int32)
    state, trace = _adaptive(experts.halving(), H, 400, jax.random.PRNGKey(10 + k))
    assert not bool(trace.inconsistent.any())
    assert int(trace.mistake.sum()) <= theory.halving_bound(2**k)
    assert int(trace.mistake.sum()) >= 1
    assert int(state.alive.sum()) >= 1


@pytest.mark.parametrize("seed", range(4))
def test_bounds_on_random_realizable_streams(seed):
    X, y = datasets.expert_advice(jax.random.PRNGKey(seed), 300, 64)
    for learner, bound in [
        (experts.halving(), theory.halving_bound(64)),
        (experts.consistent(), theory.consistent_bound(64)),
    ]:
        state, trace = core.run(learner, learner.init(X[0]), X, y)
        assert int(trace.mistake.sum()) <= bound
        assert bool(state.alive[0]) and not bool(trace.inconsistent.any())


def test_consistent_can_need_all_n_minus_1_mistakes():
    # UML Exercise 21.1: H = {1[x = j]}, target h_d, points x_t = t for t < d: every round a mistake.
    d = 12
    H = jnp.eye(d, dtype=jnp.int32)
    points = jnp.arange(d - 1)
    X, y = H[:, points].T, H[d - 1, points]
    learner = experts.consistent()
    _, trace = core.run(learner, learner.init(X[0]), X, y)
    assert int(trace.mistake.sum()) == d - 1 == theory.consistent_bound(d)
    _, trace = core.run(experts.halving(), learner.init(X[0]), X, y)
    assert int(trace.mistake.sum()) == 1  # the majority says 0 until the final 1-1 tie


def test_consistent_against_an_adaptive_adversary():
    H = jax.random.bernoulli(jax.random.PRNGKey(3), 0.5, (16, 30)).astype(jnp.int32)
    _, trace = _adaptive(experts.consistent(), H, 300, jax.random.PRNGKey(4))
    assert int(trace.mistake.sum()) <= theory.consistent_bound(16)
    assert int(trace.mistake.sum()) > theory.halving_bound(16)  # a weaker learner than Halving


def test_unrealizable_stream_is_reported_not_a_crash():
    X = jnp.array([[1, 0], [1, 0], [0, 1]])
    y = jnp.array([1, 0, 1])  # round 2 contradicts every expert left
    for learner in (experts.halving(), experts.consistent()):
        state, trace = core.run(learner, learner.init(X[0]), X, y)
        np.testing.assert_array_equal(trace.inconsistent, [False, True, True])
        np.testing.assert_array_equal(state.alive, [True, False])  # the last non-empty V_t is kept


def test_bad_inputs():
    X, y = datasets.expert_advice(jax.random.PRNGKey(0), 20, 4)
    learner = experts.halving()
    with pytest.raises(ValueError, match=r"`ys` in \{0, 1\}, found values \{-1, 1\}"):
        core.run(learner, learner.init(X[0]), X, 2 * y - 1)
    with pytest.raises(ValueError, match=r"`xs` in \{0, 1\}"):
        core.run(learner, learner.init(X[0]), X + 1, y)
    with pytest.raises(ValueError, match="`x` with 4 features"):
        core.run(learner, learner.init(X[0]), jnp.ones((20, 5), jnp.int32), y)
    with pytest.raises(ValueError, match=r"`example_x` of shape \(n,\)"):
        learner.init(X)
