"""Winnow: Littlestone's mistake bound on disjunctions, against random and adaptive streams."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxlearn import core, datasets, online, theory

from .adversary import adversarial_run


def test_golden_trace():
    # n = 3, theta = 3, eta = 2.
    X = jnp.array([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    y = jnp.array([1, 0, 0, 1])
    learner = online.winnow()
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    # w=(1,1,1): 1 < 3 -> 0, false negative: promote x1 -> (2,1,1)
    # 4 >= 3 -> 1, false positive: demote all -> (1, .5, .5)
    # 1 < 3 -> 0, correct; then 1 < 3 -> 0, false negative: promote x1 -> (2, .5, .5)
    np.testing.assert_array_equal(trace.prediction, [0, 1, 0, 0])
    np.testing.assert_array_equal(trace.mistake, [True, True, False, True])
    np.testing.assert_allclose(jnp.exp(state.log_w), [2.0, 0.5, 0.5], rtol=1e-6)


def test_classic_bound_value():
    for k, n in [(1, 16), (3, 100), (5, 1000)]:
        assert float(theory.winnow_mistake_bound(k, n)) == pytest.approx(2 + 3 * k * (1 + np.log2(n)))


@pytest.mark.parametrize("k,n", [(1, 20), (3, 100), (5, 400)])
@pytest.mark.parametrize("eta,threshold", [(2.0, None), (3.0, None), (2.0, "half")])
def test_mistake_bound_on_random_disjunctions(k, n, eta, threshold):
    threshold = n / 2 if threshold == "half" else None
    X, y, _ = datasets.disjunction(jax.random.PRNGKey(k * n), 4000, n, k)
    learner = online.winnow(eta, threshold)
    _, trace = core.run(learner, learner.init(X[0]), X, y)
    assert 0 < int(trace.mistake.sum()) <= theory.winnow_mistake_bound(k, n, eta, threshold)


def test_mistake_bound_against_an_adaptive_adversary():
    # The pool is labelled by the disjunction; each round the adversary shows an example the
    # current weights get wrong, if there is one.
    k, n = 3, 64
    X, y, _ = datasets.disjunction(jax.random.PRNGKey(0), 2000, n, k, p=0.08)
    learner = online.winnow()

    def violation(state, X, y):
        wrong = jax.vmap(learner.predict, (None, 0))(state, X) != y
        return wrong.astype(jnp.float32) + 0.5 * y.astype(
            jnp.float32
        )  # prefer false negatives: they force promotions

    _, trace = adversarial_run(learner, learner.init(X[0]), X, y, 1000, violation)
    mistakes = int(trace.mistake.sum())
    assert 5 <= mistakes <= theory.winnow_mistake_bound(k, n)


def test_long_noisy_stream_stays_finite():
    # 10^5 rounds of random labels in float32: log-space weights neither underflow to -inf
    # nor produce NaN.
    X = jax.random.bernoulli(jax.random.PRNGKey(0), 0.5, (100_000, 8)).astype(jnp.float32)
    y = jax.random.bernoulli(jax.random.PRNGKey(1), 0.5, (100_000,)).astype(jnp.int32)
    learner = online.winnow(4.0)
    state, trace = core.run(learner, learner.init(X[0]), X, y)
    assert bool(jnp.all(jnp.isfinite(state.log_w)))
    assert int(trace.mistake.sum()) > 10_000


def test_rejects_plus_minus_labels_and_real_features():
    X, y, _ = datasets.disjunction(jax.random.PRNGKey(0), 50, 10, 2)
    learner = online.winnow()
    with pytest.raises(ValueError, match=r"`ys` in \{0, 1\}, found values \{-1, 1\}"):
        core.run(learner, learner.init(X[0]), X, 2 * y - 1)
    with pytest.raises(ValueError, match=r"`xs` in \{0, 1\}"):
        core.run(learner, learner.init(X[0]), X * 0.5, y)
